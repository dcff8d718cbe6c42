"""Tensor indexing (`t[...]`): ints, slices with any step, Ellipsis and tf.newaxis, and tf.slice;
differentiable."""
import numpy as np

from minitf import dispatch
from minitf.errors import errors
from minitf.backend import to_host
from minitf.ops._core import Op, Tensor, Variable, thread_state, array_module, as_tensor, record
from minitf.ops.gather import boolean_mask
from minitf.ops.arg_checks import converted
from minitf.api_export import export

__all__ = ["getitem", "slice_"]


_INDEX_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                "tf.int32/tf.int64 tensors are valid indices")


def _normalize_key(key):
    if isinstance(key, list):
        # TF reads a list like a tuple of indices (t[[0, 1]] is t[0, 1]); all-bool lists end up
        # as a bool index tensor, which its StridedSlice kernel rejects
        if key and all(isinstance(k, (bool, np.bool_)) for k in key):
            raise errors.invalid_argument(
                "StridedSlice", "Value for attr 'Index' of bool is not in the list of allowed values: "
                                "int16, int32, int64; index with integers or use tf.boolean_mask")
        key = tuple(key)
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, (bool, np.bool_)):
            k = int(k)  # inside an index tuple TF takes a bool as the integer it is
        elif isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu":
            k = int(k)
        if isinstance(k, (Tensor, Variable)):
            v = k.numpy()
            if np.ndim(v) != 0 or not np.issubdtype(np.asarray(v).dtype, np.integer):
                raise TypeError(f"{_INDEX_ERROR}, got {k!r}")
            k = int(v)
        elif isinstance(k, slice):
            k = slice(*(int(p) if isinstance(p, (Tensor, Variable, np.integer)) else p
                        for p in (k.start, k.stop, k.step)))
        elif isinstance(k, (np.integer,)):
            k = int(k)
        elif not (k is None or k is Ellipsis or isinstance(k, (int, slice))):
            raise TypeError(f"{_INDEX_ERROR}, got {k!r}")
        out.append(k)
    return tuple(out)


def _is_bool_mask(key):
    if isinstance(key, (bool, np.bool_)):
        return True
    if isinstance(key, (Tensor, Variable)):
        return key.dtype.is_bool
    return isinstance(key, np.ndarray) and key.dtype.kind == "b"


STRIDED_SLICE = Op("StridedSlice", batchable=True)
STRIDED_SLICE_GRAD = Op("StridedSliceGrad", batchable=True)


@dispatch.add_dispatch_support
def getitem(tensor, key):
    """`tensor[key]` with TF's strided-slice semantics; the gradient scatters back."""
    x = as_tensor(tensor)
    if _is_bool_mask(key):  # as TF: a bool key (Python, numpy or tensor) is a boolean mask
        if np.ndim(key.numpy() if isinstance(key, (Tensor, Variable)) else key) == 0:
            raise ValueError("mask cannot be scalar: index with an integer or a bool vector")
        return boolean_mask(x, key)
    key = _normalize_key(key)
    if any(isinstance(k, slice) and k.step == 0 for k in key):
        raise STRIDED_SLICE.invalid(f"slice step cannot be zero (index {key} into shape "
                                    f"{list(x.shape)})")
    try:
        raw = x._value[key]
    except IndexError as e:
        raise STRIDED_SLICE.invalid(f"slice index out of bounds for shape {list(x.shape)}: {e}") from None
    # A full integer index gives a numpy scalar: keep tensors backed by arrays.
    # An object (string) array gives bare bytes: keep its dtype, not numpy's fixed-width 'S'.
    y = Tensor(raw if type(raw) is type(x._value) else array_module(x._value).asarray(raw, dtype=x._value.dtype))
    if thread_state.active and x._value.dtype.kind in "fc":
        shape, out_ndim = x._value.shape, y._value.ndim
        record(STRIDED_SLICE, (x,), (y,), lambda g: _slice_grad(g, shape, key, out_ndim))
    return y


def _slice_grad(g, shape, key, out_ndim):
    """Zeros of `shape` with `g` written at `key` (TF's StridedSliceGrad), itself differentiable."""
    batch = g._value.ndim - out_ndim
    full_key = (slice(None),) * batch + key
    xp = array_module(g._value)
    out = xp.zeros(g._value.shape[:batch] + tuple(shape), dtype=g._value.dtype)
    out[full_key] = g._value
    result = Tensor(out)
    if thread_state.active:
        record(STRIDED_SLICE_GRAD, (g,), (result,),
               lambda u: getitem(u, (slice(None),) * (u._value.ndim - len(shape)) + key))
    return result


SLICE = Op("Slice")


def _int_seq(value):
    return isinstance(value, (list, tuple)) and all(type(v) is int for v in value)


def _slice_bounds(begin, size):
    """tf.slice's begin and size converted as TF converts them (size to begin's dtype), then
    Slice's checks: integer (Index) and 1-D (InvalidArgumentError)."""
    b = converted(begin, "tf.slice", "begin")
    s = converted(size, "tf.slice", "size", None if isinstance(size, (Tensor, Variable)) else b.dtype)
    for t in (b, s):
        if t.dtype.name not in ("int32", "int64"):
            raise SLICE.invalid(f"tf.slice: Value for attr 'Index' of {t.dtype.name} is not in the list of "
                                f"allowed values: int32, int64; pass integer begin and size")
    if b._value.ndim != 1 or s._value.ndim != 1:
        raise SLICE.invalid(f"tf.slice: Expected begin and size arguments to be 1-D tensors, but got shapes "
                            f"{list(b.shape)} and {list(s.shape)} instead.")
    return b, s


@export("slice")
@dispatch.add_dispatch_support
def slice_(input_, begin, size, name=None):
    """tf.slice: the block of `input_` starting at `begin` with extent `size` per dimension (-1: to the end).

    Raises:
      InvalidArgumentError: `begin`/`size` not of length rank, or a block reaching outside the input.
    """
    x = input_ if type(input_) is Tensor else converted(input_, "tf.slice", "input_")
    shape = x._value.shape
    if not (_int_seq(begin) and _int_seq(size)):
        begin, size = _slice_bounds(begin, size)
    begin = [int(b) for b in to_host(as_tensor(begin)._value).reshape(-1)]
    size = [int(n) for n in to_host(as_tensor(size)._value).reshape(-1)]
    if len(begin) != len(shape) or len(size) != len(shape):
        raise SLICE.invalid(f"Expected begin and size arguments to be 1-D tensors of size {len(shape)}, but got "
                            f"shapes [{len(begin)}] and [{len(size)}] instead.")
    key = []
    for i, (b, n, dim) in enumerate(zip(begin, size, shape)):
        if n == -1:
            n = dim - b
        if not 0 <= b <= dim:
            raise SLICE.invalid(f"Expected begin[{i}] in [0, {dim}], but got {b}")
        if not 0 <= n <= dim - b:
            raise SLICE.invalid(f"Expected size[{i}] in [0, {dim - b}], but got {n}")
        key.append(slice(b, b + n))
    return getitem(x, tuple(key))
