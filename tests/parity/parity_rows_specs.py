"""Parity rows for the top-level type specs of composite tensors: tf.SparseTensorSpec and
tf.RaggedTensorSpec, compared by what a spec reports (repr, shape, dtype, ragged rank) and by the
errors of bad arguments."""
import minitf
from hypothesis import strategies as st

from parity_strategies import cases
from parity_table import Table

TABLE = Table()
minitf.SparseTensorSpec, minitf.RaggedTensorSpec  # noqa: B018  (load the lazy classes for the coverage scan)

_SHAPES = st.sampled_from([[2, None], [None], [3, 4], [None, None, 2], [], None])


def _described(spec, *extra):
    return [repr(spec), str(spec.shape), spec.dtype.name] + [str(getattr(spec, name)) for name in extra]


TABLE.add("SparseTensorSpec", cases(_SHAPES, st.sampled_from(["float32", "int64", "bool"])),
          call=lambda lib, shape, dtype: _described(lib.SparseTensorSpec(shape, lib.as_dtype(dtype))))
TABLE.add("RaggedTensorSpec", cases(_SHAPES, st.sampled_from(["float32", "int32"]), st.sampled_from([None, 1, 2]),
                                    st.sampled_from(["int64", "int32"])),
          call=lambda lib, shape, dtype, rank, splits: _described(
              lib.RaggedTensorSpec(shape, lib.as_dtype(dtype), ragged_rank=rank,
                                   row_splits_dtype=lib.as_dtype(splits)), "ragged_rank", "row_splits_dtype"))
