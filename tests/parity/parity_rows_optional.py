"""Parity rows for tf.experimental.Optional and tf.OptionalSpec. A case batches a dataset of
signed floats and int pairs and walks it with `get_next_as_optional`, one call past the end,
eagerly and inside tf.function (where the flag steers an AutoGraph `if`); it compares the flags,
the values, the element spec and the error of `get_value()` on an empty Optional."""
import minitf
from hypothesis import strategies as st

from parity_strategies import cases
from parity_table import Table

TABLE = Table()
minitf.experimental  # noqa: B018  (loads the lazy namespace for the coverage scan)

_VALUES = st.lists(st.sampled_from([-2.5, -0.0, 0.0, 1.0, 1.0, 3.4028235e38, -3.4028235e38]),
                   min_size=0, max_size=5)


def _error_class(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (the class is what is compared)
        return type(e).__name__
    return None


def _walked(lib, values, batch):
    pairs = [[i, -i] for i in range(len(values))]
    dataset = lib.data.Dataset.from_tensor_slices((values, pairs)) if values else \
        lib.data.Dataset.from_tensor_slices((lib.zeros([0]), lib.zeros([0, 2], lib.int32)))
    dataset = dataset.batch(batch)

    @lib.function
    def traced_step(iterator):
        optional = iterator.get_next_as_optional()
        if optional.has_value():
            features, ints = optional.get_value()
            return lib.reduce_sum(features), lib.reduce_sum(ints)
        return lib.constant(-1.0), lib.constant(-1)

    eager, traced = [], []
    it = iter(dataset)
    for _ in range(-(-len(values) // batch) + 1):
        optional = it.get_next_as_optional()
        eager.append([optional.has_value(), optional.get_value() if bool(optional.has_value()) else None,
                      repr(optional.element_spec), repr(lib.OptionalSpec.from_value(optional))])
    it = iter(dataset)
    for _ in range(-(-len(values) // batch) + 1):
        traced.append(list(traced_step(it)))
    return eager, traced


def _optional_facts(lib, values, batch):
    eager, traced = _walked(lib, values, batch)
    empty = lib.experimental.Optional.empty(lib.TensorSpec([None], lib.float32))
    full = lib.experimental.Optional.from_value({"a": values, "b": (1, [2, 3])})
    return [eager, traced, empty.has_value(), _error_class(empty.get_value), repr(empty.element_spec),
            full.has_value(), full.get_value(), repr(full.element_spec)]


TABLE.add("experimental.Optional", cases(_VALUES, st.integers(1, 3)), call=_optional_facts)
TABLE.add("OptionalSpec", cases(st.sampled_from([[None], [2, 3], []]), st.sampled_from(["float32", "int64"])),
          call=lambda lib, shape, dtype: [repr(s := lib.OptionalSpec(lib.TensorSpec(shape, lib.as_dtype(dtype)))),
                                          s == lib.OptionalSpec(lib.TensorSpec(shape, dtype)),
                                          issubclass(s.value_type, lib.experimental.Optional)])
