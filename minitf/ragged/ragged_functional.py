"""tf.map_fn and tf.nn.embedding_lookup on RaggedTensor arguments.

`tf.map_fn(fn, rt)` calls `fn` on each row (a Tensor for a ragged_rank-1 tensor, else a
RaggedTensor with one ragged dimension fewer) and joins the results by TF's output-signature
rules: without `fn_output_signature` the results must be rows of the same kind as the input's
rows and are joined into a RaggedTensor; a TensorSpec or dtype stacks them into a dense tensor;
a RaggedTensorSpec joins them raggedly. `tf.nn.embedding_lookup(params, rt)` looks up the flat
ids and keeps the partitions.
"""
import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.nest import nest
from minitf.ops import control_flow, embedding
from minitf.ops._core import Tensor, as_tensor
from minitf.ops.constant import cast
from minitf.ops.shaping import stack
from minitf.ragged.ragged_math import register
from minitf.ragged.ragged_spec import RaggedTensorSpec
from minitf.ragged.ragged_tensor import RaggedTensor, concat_axis0
from minitf.tensor_spec import TensorSpec

__all__ = ["map_fn"]


def _nrows(value):
    return value.nrows_int() if isinstance(value, RaggedTensor) else int(value.shape[0])


def _rows(value, n):
    """The n rows of a Tensor or RaggedTensor (RaggedTensor rows are Tensors at ragged_rank 1)."""
    return [value[i] for i in range(n)]


def _row_spec(value):
    """The spec of one row of `value` (TF's unbatched spec, with the shape left unknown)."""
    if isinstance(value, RaggedTensor):
        return RaggedTensorSpec(None, value.dtype, value.ragged_rank - 1, value.row_splits_dtype)
    return TensorSpec(None, value.dtype)


def _as_spec(leaf):
    if isinstance(leaf, (TensorSpec, RaggedTensorSpec)):
        return leaf
    return TensorSpec(None, dtypes.as_dtype(leaf))


def _value_spec(value):
    if isinstance(value, RaggedTensor):
        return RaggedTensorSpec.from_value(value)
    return TensorSpec(value.shape, value.dtype)


def _check_ragged_result(spec, value):
    if isinstance(value, Tensor) and spec.ragged_rank == 0 and value.shape.rank == 0:
        raise errors.InvalidArgumentError(
            None, None, f"Ragged values must have rank >= 1; encoded scalar element at index 0 has values "
                        f"Tensor: {value!r} (map_fn: fn returns scalars; pass fn_output_signature="
                        f"tf.{value.dtype.name} to stack them into a dense tensor)")
    if not spec.is_compatible_with(value):
        raise ValueError(f"Error in map_fn:\n  Expected `fn` to return a:\n    {spec!r}\n  But it returned a:\n"
                         f"    {_value_spec(value)!r}\n    (value={value!s})\n  To fix, update the "
                         f"`fn_output_signature` (or `dtype`) argument to `map_fn`.")


def _join_ragged(spec, values):
    """Row results of one RaggedTensorSpec joined as the rows of a RaggedTensor."""
    if not values:
        flat = Tensor(np.zeros((0,), dtype=spec.dtype._np if spec.dtype != dtypes.string else object))
        for _ in range(spec.ragged_rank):
            flat = RaggedTensor._make(flat, np.zeros(1, np.int64))
        return RaggedTensor._make(flat, np.zeros(1, np.int64))
    lengths = [_nrows(v) for v in values]
    splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return RaggedTensor._make(concat_axis0(values), splits)


def _join_dense(spec, values):
    parts = [as_tensor(v) for v in values]
    shapes = {tuple(p.shape.as_list()) for p in parts}
    if len(shapes) > 1:
        first = tuple(parts[0].shape.as_list())
        other = next(tuple(p.shape.as_list()) for p in parts if tuple(p.shape.as_list()) != first)
        raise ValueError(f"Incompatible shape for value ({other}), expected ({first})")
    parts = [p if p.dtype == spec.dtype else cast(p, spec.dtype) for p in parts]
    return stack(parts, axis=0)


@register(control_flow.map_fn)
def map_fn(api, fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """tf.map_fn over elems holding RaggedTensors (see the module docstring)."""
    flat = nest.flatten(elems)
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if not any(isinstance(v, (RaggedTensor, RaggedTensorSpec)) for v in flat + nest.flatten(signature)):
        return NotImplemented
    flat = [v if isinstance(v, RaggedTensor) else as_tensor(v) for v in flat]
    sizes = {_nrows(v) for v in flat}
    if len(sizes) != 1:
        raise ValueError(f"map_fn: all elems must have the same number of rows, got {sorted(sizes)}")
    n = sizes.pop()
    rows = [_rows(v, n) for v in flat]
    if signature is None:
        signature = nest.pack_sequence_as(elems, [_row_spec(v) for v in flat])
    signature = nest.map_structure(_as_spec, signature)
    specs = nest.flatten(signature)
    columns = [[] for _ in specs]
    for i in range(n):
        result = fn(nest.pack_sequence_as(elems, [r[i] for r in rows]))
        nest.assert_same_structure(signature, result, check_types=False)
        for k, (spec, value) in enumerate(zip(specs, nest.flatten(result))):
            if isinstance(spec, RaggedTensorSpec):
                value = value if isinstance(value, RaggedTensor) else as_tensor(value)
                _check_ragged_result(spec, value)
            columns[k].append(value)
    out = []
    for spec, values in zip(specs, columns):
        if isinstance(spec, RaggedTensorSpec):
            out.append(_join_ragged(spec, values))
        elif values:
            out.append(_join_dense(spec, values))
        else:
            out.append(Tensor(np.zeros((0,), dtype=spec.dtype._np)))
    return nest.pack_sequence_as(signature, out)


@register(embedding.embedding_lookup)
def _embedding_lookup(api, params, ids, max_norm=None, name=None):
    if not isinstance(ids, RaggedTensor):
        return NotImplemented
    return ids.with_flat_values(embedding.embedding_lookup(params, ids.flat_values, max_norm=max_norm))


def _spec_dispatch(cls, api, args, kwargs):
    """A RaggedTensorSpec in map_fn's fn_output_signature: the ragged map_fn serves the call."""
    return map_fn(api, *args, **kwargs) if api is control_flow.map_fn else NotImplemented


RaggedTensorSpec.__tf_dispatch__ = classmethod(_spec_dispatch)
