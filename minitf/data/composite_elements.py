"""Ragged and sparse tensors as tf.data elements: cutting them into rows, joining rows into
batches, and the specs of both, as TF's datasets carry them.

A RaggedTensorSpec leaf of an element spec says how its rows batch: at ragged_rank 0 the element
is a plain Tensor (a row of a ragged_rank-1 tensor) whose first dimension may differ from element
to element, and a batch of them is a RaggedTensor; at ragged_rank k a batch is a RaggedTensor of
ragged_rank k + 1. `dense_to_ragged_batch` turns dense components with an unknown dimension into
such leaves, so rows of different lengths batch without padding.
"""
import numpy as np

from minitf import backend
from minitf.dtypes import dtypes
from minitf.data import structure as st
from minitf.function import Function, TensorSpec
from minitf.ragged.ragged_spec import RaggedTensorSpec
from minitf.ragged.ragged_tensor import RaggedTensor, concat_axis0
from minitf.sparse import batching as sparse_batching
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.tensor import Tensor

__all__ = ["leading_size", "rank_of", "rows_of", "join_ragged", "to_ragged_spec", "to_ragged_value", "traced_spec"]


def leading_size(value):
    """The size of the first dimension of an element leaf (rows of a ragged tensor)."""
    if isinstance(value, RaggedTensor):
        return value.nrows_int()
    if isinstance(value, SparseTensor):
        return value._dims[0]
    return int(value.shape[0])


def rank_of(value):
    """The rank of an element leaf."""
    if isinstance(value, SparseTensor):
        return len(value._dims)
    return value.shape.rank


def rows_of(value):
    """The rows of an element leaf along its first dimension: Tensors, SparseTensors of one
    dimension fewer, or the rows of a RaggedTensor (Tensors at ragged_rank 1)."""
    if isinstance(value, SparseTensor):
        return sparse_batching.unbatch(value)
    if isinstance(value, RaggedTensor):
        return [value[i] for i in range(value.nrows_int())]
    # r[i, ...] stays an array (a 0-d one for a string row), where r[i] of an object array would
    # be a bare bytes object
    raw = value._value
    return [Tensor(raw[i, ...]) for i in range(raw.shape[0])]


def join_ragged(values, spec):
    """Elements of one RaggedTensorSpec leaf joined as the rows of a RaggedTensor (the outer
    partition keeps a uniform row length where the spec knows the elements' row count)."""
    lengths = np.asarray([leading_size(v) for v in values], dtype=np.int64)
    splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    inner = concat_axis0([v if isinstance(v, RaggedTensor) else _as_dense(v) for v in values])
    uniform = spec.shape[0] if spec.shape.rank else None
    return RaggedTensor._make(inner, splits, uniform_row_length=uniform, row_splits_dtype=spec.row_splits_dtype)


def _as_dense(value):
    return value if isinstance(value, Tensor) else Tensor(backend.default_module().asarray(value))


def to_ragged_spec(spec, row_splits_dtype=dtypes.int64):
    """TF's dense_to_ragged rule: a TensorSpec of known rank with an unknown dimension becomes a
    RaggedTensorSpec, ragged up to its last unknown dimension; other specs stay."""
    if type(spec) is not TensorSpec or spec.shape.rank is None or spec.shape.is_fully_defined():
        return spec
    dims = spec.shape.as_list()
    ragged_rank = max(axis for axis, size in enumerate(dims) if size is None)
    return RaggedTensorSpec(spec.shape, spec.dtype, ragged_rank, row_splits_dtype)


def to_ragged_value(value, spec):
    """An element leaf as `to_ragged_spec` describes it: a RaggedTensor of the spec's ragged rank
    (a Tensor stays a Tensor at ragged_rank 0)."""
    if not isinstance(spec, RaggedTensorSpec) or not isinstance(value, Tensor) or spec.ragged_rank == 0:
        return value
    ragged = RaggedTensor.from_tensor(value, ragged_rank=spec.ragged_rank)
    return ragged if spec.row_splits_dtype == dtypes.int64 else _with_splits_dtype(ragged, spec.row_splits_dtype)


def _with_splits_dtype(rt, dtype):
    values = rt.values if not isinstance(rt.values, RaggedTensor) else _with_splits_dtype(rt.values, dtype)
    return RaggedTensor._make(values, rt._splits_np, rt._uniform_row_length, dtype)


def _output_spec(value, top=True):
    """The spec of a traced function's outputs, nested as tf.data nests elements (a list is an
    element only at the top, where it becomes a tuple; deeper lists are refused here)."""
    if isinstance(value, tuple) or (top and isinstance(value, list)):
        items = [_output_spec(v, False) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, dict):
        return {k: _output_spec(v, False) for k, v in value.items()}
    if hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, (RaggedTensor, SparseTensor)):
        return TensorSpec(value.shape, value.dtype)
    raise TypeError(f"a traced map returned {type(value).__name__}")


def traced_spec(fn, input_spec):
    """The element spec of `fn` over elements of `input_spec`, read from a trace of `fn` on
    placeholders, as TF learns it (unknown sizes stay None); None where minitf cannot trace it
    (composite inputs or outputs, Python that reads values)."""
    leaves = st.flatten(input_spec)
    if not leaves or any(type(s) is not TensorSpec for s in leaves):
        return None
    unpack = isinstance(input_spec, tuple) and not hasattr(input_spec, "_fields")
    traced = Function(lambda *args: fn(*args) if unpack else fn(args[0]), name="map_spec")
    try:
        concrete = traced.get_concrete_function(*(input_spec if unpack else (input_spec,)))
        outputs = concrete.structured_outputs
        return _output_spec(outputs)
    except Exception:  # noqa: BLE001 (any failure to trace means: use the eager spec instead)
        return None

