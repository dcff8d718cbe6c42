"""Reordering elements: roll, reverse, sort, argsort and unique, with gradients."""
import collections

import numpy as np

from minitf import backend, dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops._core import Op, Tensor, thread_state, array_module, as_tensor, normalize_axis, record
from minitf.ops.constant import identity
from minitf.ops.shaping import batch_ndim, int_list, scalar_int
from minitf.api_export import export

__all__ = ["roll", "reverse", "sort", "argsort", "unique"]

_Unique = collections.namedtuple("Unique", ["y", "idx"])


ROLL = Op("Roll", batchable=True)


@export("roll")
@dispatch.add_dispatch_support
def roll(input, shift, axis, name=None):  # noqa: A002
    """Elements shifted cyclically by `shift` along `axis` (both may be lists)."""
    x = as_tensor(input)
    shifts, axes = int_list(shift), int_list(axis)
    if len(shifts) != len(axes):
        raise errors.invalid_argument("Roll", f"shift and axis must have the same size, got "
                                              f"{len(shifts)} and {len(axes)}")
    nd = x._value.ndim
    if nd == 0:
        raise errors.invalid_argument("Roll", "input must be 1-D or higher, got a scalar")
    axes = [normalize_axis(a, nd, "Roll") for a in axes]
    xp = array_module(x._value)
    y = Tensor(xp.roll(x._value, shifts, axes) if axes else x._value)
    if thread_state.active:
        def grad(g):
            b = batch_ndim(g, nd)
            return roll(g, [-s for s in shifts], [a + b for a in axes])
        record(ROLL, (x,), (y,), grad)
    return y


REVERSE = Op("ReverseV2", batchable=True)


@dispatch.add_dispatch_support
def reverse(tensor, axis, name=None):
    """`tensor` with the order of elements reversed along each axis in `axis`."""
    x = as_tensor(tensor)
    nd = x._value.ndim
    if nd == 0 or x._value.size == 0:  # TF hands these back without looking at `axis`
        return identity(x)
    axes = [normalize_axis(a, nd, "ReverseV2") for a in int_list(axis)]
    if len(set(axes)) != len(axes):
        raise errors.invalid_argument("ReverseV2", f"axis {axes} specifies a dimension more than once")
    xp = array_module(x._value)
    y = Tensor(xp.flip(x._value, tuple(axes)) if axes else x._value)
    if thread_state.active:
        record(REVERSE, (x,), (y,),
               lambda g: reverse(g, [a + batch_ndim(g, nd) for a in axes]))
    return y


def _argsort_raw(xp, v, axis, descending, stable):
    kind = "stable" if stable or descending else None
    if not descending:
        return xp.argsort(v, axis=axis, kind=kind)
    n = v.shape[axis]
    return n - 1 - xp.flip(xp.argsort(xp.flip(v, axis), axis=axis, kind=kind), axis)


def _check_direction(direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Unknown direction {direction!r}; use 'ASCENDING' or 'DESCENDING'.")
    return direction == "DESCENDING"


def _check_sortable(x):
    """sort/argsort run TF's TopKV2: at least 1-D, real numbers only."""
    if x._value.ndim == 0:
        raise errors.invalid_argument("TopKV2", "input must be at least 1-D to sort")
    if x._value.dtype.kind not in "fiu":
        raise errors.invalid_argument("TopKV2", f"Value for attr 'T' of {x.dtype.name} is not in the list "
                                                f"of allowed values (real number types)")


@export("argsort")
@dispatch.add_dispatch_support
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """Indices (int32) that sort `values` along `axis`."""
    x = as_tensor(values)
    descending = _check_direction(direction)
    _check_sortable(x)
    axis = normalize_axis(scalar_int(axis), x._value.ndim, "TopKV2")
    xp = array_module(x._value)
    return Tensor(_argsort_raw(xp, x._value, axis, descending, stable).astype("int32"))


PERMUTE_ALONG = Op("PermuteAlong", batchable=True)


def _permute_along(x, perm, inverse, axis):
    """x reordered along `axis` by a per-slice permutation; the gradient applies the inverse."""
    xp = array_module(x._value)
    lead = x._value.ndim - perm.ndim
    y = Tensor(xp.take_along_axis(x._value, perm.reshape((1,) * lead + perm.shape), axis=lead + axis))
    if thread_state.active:
        record(PERMUTE_ALONG, (x,), (y,), lambda g: _permute_along(g, inverse, perm, axis))
    return y


@export("sort")
@dispatch.add_dispatch_support
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """`values` sorted along `axis`; the gradient routes each entry back to where it came from."""
    x = as_tensor(values)
    descending = _check_direction(direction)
    _check_sortable(x)
    axis = normalize_axis(scalar_int(axis), x._value.ndim, "TopKV2")
    xp = array_module(x._value)
    perm = _argsort_raw(xp, x._value, axis, descending, stable=True)
    inverse = xp.argsort(perm, axis=axis)
    return _permute_along(x, perm, inverse, axis)


@export("unique")
@dispatch.add_dispatch_support
def unique(x, out_idx=dtypes.int32, name=None):
    """(y, idx): the distinct values of 1-D `x` in order of first appearance, and for each
    element of x its position in y."""
    t = as_tensor(x)
    if t._value.ndim != 1:
        raise errors.invalid_argument("Unique", f"unique expects a 1D vector, got shape {list(t.shape)}")
    host = backend.to_host(t._value)
    _, first, inverse = np.unique(host, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank_of = np.empty_like(order)
    rank_of[order] = np.arange(order.size)
    xp = array_module(t._value)
    y = Tensor(t._value[xp.asarray(np.sort(first))])
    idx = Tensor(xp.asarray(rank_of[inverse.reshape(-1)].astype(dtypes.as_dtype(out_idx)._np)))
    return _Unique(y, idx)
