"""Parity rows for tf.experimental: DynamicRaggedShape and RowPartition, the shape classes of
ragged tensors. A case builds one from Python lengths (uniform ints and ragged tuples, some
inconsistent, some negative) and compares what it reports: repr, static lengths, encodings and
sizes, indexing and slicing, and the ragged tensors tf.zeros / tf.reshape build from it, or the
exception class of bad input."""
import minitf
from hypothesis import strategies as st

from parity_strategies import cases
from parity_table import Table

TABLE = Table()
minitf.experimental  # noqa: B018  (loads the lazy namespace for the coverage scan)

_LENGTHS = st.lists(st.integers(-1, 4), min_size=0, max_size=4)
_FACTORIES = st.sampled_from(["row_lengths", "row_splits", "value_rowids", "uniform", "row_limits"])


def _partition(lib, factory, values):
    RP = lib.experimental.RowPartition
    if factory == "row_lengths":
        return RP.from_row_lengths(values)
    if factory == "row_splits":
        return RP.from_row_splits([0] + values)
    if factory == "value_rowids":
        return RP.from_value_rowids(sorted(values), nrows=len(values) + 1)
    if factory == "row_limits":
        return RP.from_row_limits(values)
    return RP.from_uniform_row_length(len(values), nvals=len(values) * 2)


def _described_partition(lib, factory, values):
    p = _partition(lib, factory, values)
    return [repr(p), p.row_splits(), p.row_lengths(), p.value_rowids(), p.nrows(), p.nvals(),
            p.row_starts(), p.offsets_in_rows(), str(p.static_nrows), str(p.static_nvals),
            str(p.static_uniform_row_length), str(p.is_uniform()), p.dtype.name]


TABLE.add("experimental.RowPartition", cases(_FACTORIES, _LENGTHS), call=_described_partition)


@st.composite
def _shape_lengths(draw):
    """from_lengths arguments: a first size, then ints (uniform) or tuples of row lengths whose
    count is usually (not always) the number of rows so far."""
    size = draw(st.integers(0, 3))
    lengths, rows = [size], size
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            step = draw(st.integers(0, 3))
            lengths.append(step)
            rows *= step
        else:
            count = rows if draw(st.integers(0, 5)) else rows + 1
            ragged = tuple(draw(st.lists(st.integers(0, 3), min_size=count, max_size=count)))
            lengths.append(ragged)
            rows = sum(ragged)
    return lengths


def _described_shape(lib, lengths, index):
    # (TF's static lengths may hold numpy ints where minitf gives Python ints: compared as ints)
    shape = lib.experimental.DynamicRaggedShape.from_lengths(lengths)
    out = [repr(shape), str([d if isinstance(d, tuple) else int(d) for d in shape.static_lengths()]), shape.inner_shape, str(shape.num_row_partitions),
           str(shape.rank), repr(shape[:index]), repr(shape[:1])]
    zeros = lib.zeros(shape)
    out.append(zeros.to_list() if isinstance(zeros, lib.RaggedTensor) else zeros)
    return out


TABLE.add("experimental.DynamicRaggedShape", cases(_shape_lengths(), st.integers(0, 4)), call=_described_shape)
