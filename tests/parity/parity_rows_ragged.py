"""Parity rows for tf.RaggedTensor: one row per scenario family is not possible (the table keys
rows by exported name, and tf.ragged is not a scanned namespace), so the `RaggedTensor` row draws
a scenario: a ragged tensor built from flat float values and row lengths, passed through
factories, elementwise math (scalars, dense and ragged operands), reductions, to_tensor,
from_tensor, concat, stack, slicing and map_flat_values. Ragged results compare as `to_list()`
(floating ones as flat values and row splits) together with their flat values, whose gradients
are compared too."""
import minitf
from hypothesis import strategies as st

from parity_oracle import Case, T
from parity_strategies import values
from parity_table import Table

TABLE = Table()
minitf.RaggedTensor  # noqa: B018  (loads the lazy class so the coverage scan sees its row)


def _out(lib, r):
    """A ragged result as to_list(); floating ones as flat values plus partitions, which fix the
    same list but compare within float tolerance (to_list's Python floats compare exactly)."""
    if isinstance(r, lib.RaggedTensor):
        if r.dtype.is_floating:
            return r.flat_values, list(r.nested_row_splits)
        return r.flat_values, r.to_list()
    return r


SCENARIOS = [
    lambda lib, rt: rt + 3.0,
    lambda lib, rt: rt * rt,
    lambda lib, rt: lib.add(rt, 1.5),
    lambda lib, rt: lib.math.square(rt),
    lambda lib, rt: lib.exp(rt),
    lambda lib, rt: lib.reduce_sum(rt, axis=1),
    lambda lib, rt: lib.reduce_mean(rt, axis=1),
    lambda lib, rt: lib.reduce_max(rt, axis=1),
    lambda lib, rt: lib.reduce_sum(rt, axis=0),
    lambda lib, rt: lib.reduce_min(rt, axis=0),
    lambda lib, rt: lib.reduce_sum(rt),
    lambda lib, rt: rt.to_tensor(),
    lambda lib, rt: rt.to_tensor(default_value=9.0, shape=[None, 2]),
    lambda lib, rt: lib.RaggedTensor.from_tensor(rt.to_tensor(), lengths=rt.row_lengths()),
    lambda lib, rt: lib.concat([rt, rt * 2.0], axis=1),
    lambda lib, rt: lib.concat([rt, rt], axis=0),
    lambda lib, rt: rt[:, 1:],
    lambda lib, rt: rt[1:],
    lambda lib, rt: lib.ragged.map_flat_values(lib.tanh, rt),
    lambda lib, rt: -rt,
    lambda lib, rt: abs(rt),
    lambda lib, rt: rt / 2.0,
    lambda lib, rt: rt ** 2,
    lambda lib, rt: lib.stack([rt, rt], axis=0),
    lambda lib, rt: rt + lib.ones([rt.nrows(), 1], dtype=rt.dtype),
    lambda lib, rt: rt < 0.5,
    lambda lib, rt: rt + lib.RaggedTensor.from_row_lengths(rt.flat_values, rt.row_lengths()[::-1]),
    lambda lib, rt: lib.maximum(rt, 0.0),
    lambda lib, rt: lib.RaggedTensor.from_row_splits(rt.flat_values, rt.row_splits).to_tensor(),
    lambda lib, rt: lib.RaggedTensor.from_value_rowids(rt.flat_values, rt.value_rowids(), nrows=rt.nrows()),
    lambda lib, rt: lib.ragged.constant(rt.to_list(), dtype=rt.dtype),
    lambda lib, rt: lib.RaggedTensor.from_tensor(rt.to_tensor(default_value=-9.0), padding=-9.0),
    lambda lib, rt: lib.ragged.range(rt.row_lengths()),
    lambda lib, rt: lib.tile(rt, [2, 2]),
    lambda lib, rt: lib.reverse(rt, [1]),
    lambda lib, rt: lib.ragged.boolean_mask(rt, rt > 0.0),
    lambda lib, rt: rt.to_sparse().indices,
    lambda lib, rt: lib.strings.reduce_join(lib.strings.as_string(rt, precision=2), axis=-1, separator=","),
    lambda lib, rt: lib.strings.split(lib.strings.reduce_join(lib.strings.as_string(rt, precision=1), axis=-1,
                                                              separator=" ")),
    lambda lib, rt: lib.shape(rt)[0],
    lambda lib, rt: rt.bounding_shape(),
    lambda lib, rt: rt[:, 0],
    lambda lib, rt: rt[rt.nrows()],
    lambda lib, rt: lib.add_n([rt, rt * 2.0]),
    lambda lib, rt: lib.ragged.stack([rt, rt], axis=1),
    lambda lib, rt: lib.zeros_like(rt) + rt,
    lambda lib, rt: lib.gather(rt, [rt.nrows() - 1, 0, 0]),
    lambda lib, rt: lib.size(rt) + lib.rank(rt),
]


@st.composite
def ragged_case(draw):
    lengths = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    dtype = draw(st.sampled_from(("float32", "float64")))
    flat = draw(values(dtype, (sum(lengths),)))
    k = draw(st.integers(0, len(SCENARIOS) - 1))
    return Case((T(flat), lengths, k))


TABLE.add("RaggedTensor", ragged_case(), examples=200,
          call=lambda lib, x, lengths, k: _out(lib, SCENARIOS[k](lib, lib.RaggedTensor.from_row_lengths(x, lengths))),
          grad=1)
