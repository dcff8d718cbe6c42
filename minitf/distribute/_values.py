"""Collectives on user values: nested structures of tensors, variables, arrays and numbers
become raw arrays for the collective and come back as Tensors in the same structure."""
import numpy as np

from minitf import backend
from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.distribute.reduce_op import ReduceOp
from minitf.distribute.values import DistributedValues
from minitf.indexed_slices import IndexedSlices
from minitf.recording import Op, record
from minitf.tensor import Tensor

__all__ = ["raw_of", "all_reduce_structure", "all_gather_structure", "reduce_to_cross_replica",
           "reduce_local_replicas", "gather_local_replicas"]


COLLECTIVE_REDUCE = Op("CollectiveReduceV2")


def raw_of(value):
    """The raw array of a Tensor/Variable/IndexedSlices (densified) or anything convertible."""
    if isinstance(value, IndexedSlices):
        value = convert_to_tensor(value)
    raw = getattr(value, "_value", None)
    if raw is None:
        raw = convert_to_tensor(value)._value
    return raw


def _mean(total, count, dtype):
    """total / count in `total`'s dtype (integer means round toward zero, as a cast does)."""
    xp = backend.array_module(total)
    if count == 0:
        return xp.zeros_like(total)
    if np.issubdtype(dtype, np.floating) or np.issubdtype(dtype, np.complexfloating):
        return total / xp.asarray(count, dtype=dtype)
    return (total / count).astype(dtype)


def _reduce_raws(collective, reduce_op, raws):
    if collective.size > 1:
        summed = collective.allreduce(raws, "sum")  # the group packs them into few buffers
    else:
        summed = [r.copy() for r in raws]
    if reduce_op == ReduceOp.MEAN:
        summed = [_mean(s, collective.size, r.dtype) for s, r in zip(summed, raws)]
    return summed


def all_reduce_structure(collective, reduce_op, value):
    """Every leaf of `value` summed (SUM) or averaged (MEAN) over the replicas, as Tensors.

    Differentiable: the gradient of each floating leaf is the upstream gradients reduced the
    same way over the replicas (so every replica must compute its gradient through it, as in
    TF), what synchronized BatchNormalization needs."""
    flat = nest.flatten(value)
    raws = [raw_of(v) for v in flat]
    outputs = [Tensor(s) for s in _reduce_raws(collective, reduce_op, raws)]
    for leaf, out in zip(flat, outputs):
        if isinstance(leaf, Tensor) and out._value.dtype.kind in "fc":
            record(COLLECTIVE_REDUCE, (leaf,), (out,),
                   lambda g: Tensor(_reduce_raws(collective, reduce_op, [raw_of(g)])[0]))
    return nest.pack_sequence_as(value, outputs)


def _gather_one(collective, raw, axis):
    xp = backend.array_module(raw)
    if raw.ndim == 0:
        raise ValueError("gather: the value must have at least one dimension to gather along; "
                         "got a scalar. Reshape it to [1] first.")
    axis = axis % raw.ndim
    moved = xp.moveaxis(raw, axis, 0)
    parts = collective.allgather(xp.ascontiguousarray(moved)) if collective.size > 1 else [moved]
    return xp.moveaxis(xp.concatenate(parts, axis=0), 0, axis)


def all_gather_structure(collective, value, axis):
    """Every leaf of `value` concatenated along `axis` over the replicas, in replica order."""
    flat = nest.flatten(value)
    gathered = [Tensor(_gather_one(collective, raw_of(v), axis)) for v in flat]
    return nest.pack_sequence_as(value, gathered)


def reduce_to_cross_replica(collective, reduce_op, value, axis):
    """`Strategy.reduce`: with `axis` None, the replicas' values combined elementwise; with an
    axis (or axes), each leaf summed over it first, and for MEAN divided by the number of
    elements along it on all replicas together (so empty batches weigh nothing)."""
    if axis is None:
        return all_reduce_structure(collective, reduce_op, value)
    flat = nest.flatten(value)
    raws = [raw_of(v) for v in flat]
    sums, counts = [], []
    for raw in raws:
        xp = backend.array_module(raw)
        axes = tuple(a % raw.ndim for a in (axis if isinstance(axis, (list, tuple)) else (axis,))) \
            if raw.ndim else ()
        if raw.ndim == 0:
            raise ValueError(f"Strategy.reduce: axis={axis} is out of range for a scalar value; "
                             "use axis=None.")
        sums.append(xp.sum(raw, axis=axes).astype(raw.dtype, copy=False))
        counts.append(int(np.prod([raw.shape[a] for a in axes])))
    if collective.size > 1:
        count_array = np.asarray(counts, dtype=np.int64)
        reduced = collective.allreduce(sums + [count_array], "sum")
        sums, counts = reduced[:-1], [int(c) for c in backend.to_host(reduced[-1])]
    if reduce_op == ReduceOp.MEAN:
        sums = [_mean(s, c, r.dtype) for s, c, r in zip(sums, counts, raws)]
    return nest.pack_sequence_as(value, [Tensor(s) for s in sums])


def _axes_of(axis, raw, where):
    if raw.ndim == 0:
        raise ValueError(f"{where}: axis={axis} is out of range for a scalar value; use axis=None.")
    return tuple(a % raw.ndim for a in (axis if isinstance(axis, (list, tuple)) else (axis,)))


def reduce_local_replicas(reduce_op, value, axis):
    """`Strategy.reduce` for a strategy with several replicas in this process: each PerReplica
    leaf is combined over its components. A leaf that is not a PerReplica is a value every
    replica holds: its MEAN is itself, and SUM is refused (as TF refuses it). With `axis`, the
    components are first summed along it and MEAN divides by the number of elements along it
    on all replicas together."""
    flat = nest.flatten(value)
    results = []
    for leaf in flat:
        if isinstance(leaf, DistributedValues):
            parts = [raw_of(c) for c in leaf.values]
        elif reduce_op == ReduceOp.SUM:
            raise ValueError(f"A non-DistributedValues value {leaf} cannot be reduced with the given "
                             "reduce op ReduceOp.SUM: reduce the PerReplica value `Strategy.run` returned.")
        else:
            parts = [raw_of(leaf)]
        dtype, count = parts[0].dtype, len(parts)
        if axis is not None:
            counts = []
            for i, raw in enumerate(parts):
                axes = _axes_of(axis, raw, "Strategy.reduce")
                parts[i] = backend.array_module(raw).sum(raw, axis=axes).astype(raw.dtype, copy=False)
                counts.append(int(np.prod([raw.shape[a] for a in axes])))
            count = sum(counts)
        total = parts[0].copy()
        for part in parts[1:]:
            total = total + part
        results.append(_mean(total, count, dtype) if reduce_op == ReduceOp.MEAN else total)
    return nest.pack_sequence_as(value, [Tensor(r) for r in results])


def gather_local_replicas(value, axis):
    """`Strategy.gather` with several replicas in this process: each PerReplica leaf's components
    concatenated along `axis` (a leaf that is not a PerReplica counts as one component)."""
    def gather(leaf):
        parts = [raw_of(c) for c in leaf.values] if isinstance(leaf, DistributedValues) else [raw_of(leaf)]
        if parts[0].ndim == 0:
            raise ValueError("gather: the value must have at least one dimension to gather along; "
                             "got a scalar. Reshape it to [1] first.")
        return Tensor(backend.array_module(parts[0]).concatenate(parts, axis=axis))
    return nest.map_structure(gather, value)
