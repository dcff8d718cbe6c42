"""Making tensors from sizes and values: zeros/ones/fill (and the _like forms), one_hot, range,
linspace, eye, meshgrid and sequence_mask. None of them is differentiable.
"""
import numpy as np

from minitf import backend, dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops._core import Tensor, Variable, array_module, as_tensor, check_attr_dtype
from minitf.ops.constant import convert_to_tensor
from minitf.ops.arg_checks import converted, dtype_arg, int_input, named, python_int
from minitf.tensor_shape import TensorShape
from minitf.ops.shaping import int_list, scalar_int, shape_arg, broadcast_to, reshape
from minitf.symbolic_tensor import is_symbolic
from minitf.api_export import export

__all__ = ["zeros", "ones", "zeros_like", "ones_like", "fill", "one_hot", "range", "linspace", "eye",
           "meshgrid", "sequence_mask"]

# This module defines tf.range, which shadows the builtin inside it.


def _fill_dims(shape, op_name="Fill", func="tf.fill", arg="dims", dtype=None):
    """The shape of a filled tensor: integer, non-negative sizes (TypeError / InvalidArgumentError).

    Anything but ints goes the way TF takes it: converted (with `dtype` int32 for tf.zeros and
    tf.ones, whose wrappers convert so), then Fill's checks of a 1-D int32/int64 `dims`.
    """
    if isinstance(shape, (list, tuple)) and any(_is_size_tensor(d) for d in shape) \
            and all(type(d) is int or _is_size_tensor(d) for d in shape):
        shape = [d if type(d) is int else int(d.numpy()) for d in shape]  # TF reads them as a TensorShape
    if type(shape) is int or isinstance(shape, (list, tuple)) and all(type(d) is int for d in shape):
        dims = shape_arg(shape)
    elif isinstance(shape, TensorShape):
        dims = shape_arg(shape.as_list())
    else:
        convert = None if isinstance(shape, (Tensor, Variable)) else dtype
        dims = tuple(int(d) for d in int_input(shape, func, op_name, arg, rank=1, attr="index_type",
                                                dtype=convert))
    if dims and min(dims) < 0:
        bad = next(d for d in dims if d < 0)
        raise errors.invalid_argument(op_name, f"{func}: Dimension {bad} must be >= 0 (shape {list(dims)})")
    return dims


def _is_size_tensor(d):
    """An eager integer scalar (of any integer dtype), which a shape list may hold."""
    return isinstance(d, (Tensor, Variable)) and not is_symbolic(d) and d.dtype.is_integer \
        and d.shape.rank == 0


def _filled(xp, dims, dtype, one):
    """xp.zeros / xp.ones of `dtype`; string tensors are filled with b'' (ones has no string kernel)."""
    if dtype is dtypes.string:
        if one:
            raise TypeError("Cannot convert 1 to EagerTensor of dtype string; tf.ones has no string form, "
                            "use tf.fill(dims, 'text')")
        out = np.empty(dims, dtype=object)
        out.fill(b"")
        return out
    return (xp.ones if one else xp.zeros)(dims, dtype=dtype._np)


@export("zeros")
@dispatch.add_dispatch_support
def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros of the given shape and dtype (b'' for strings)."""
    dtype = dtype_arg(dtype, "tf.zeros")
    return Tensor(_filled(backend.default_module(), _fill_dims(shape, "Fill", "tf.zeros", "shape", "int32"),
                          dtype, one=False))


@export("ones")
@dispatch.add_dispatch_support
def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones of the given shape and dtype."""
    dtype = dtype_arg(dtype, "tf.ones")
    return Tensor(_filled(backend.default_module(), _fill_dims(shape, "Fill", "tf.ones", "shape", "int32"),
                          dtype, one=True))


@dispatch.add_dispatch_support
def zeros_like(input, dtype=None, name=None):  # noqa: A002
    """Zeros with the shape (and dtype, unless given) of `input`, on its device (b'' for strings)."""
    x = as_tensor(input)
    xp = array_module(x._value)
    target = dtypes.as_dtype(dtype) if dtype else x.dtype
    return Tensor(_filled(xp, x._value.shape, target, one=False))


@dispatch.add_dispatch_support
def ones_like(input, dtype=None, name=None):  # noqa: A002
    """Ones with the shape (and dtype, unless given) of `input`, on its device."""
    x = as_tensor(input)
    xp = array_module(x._value)
    target = dtypes.as_dtype(dtype) if dtype else x.dtype
    if target is dtypes.string:
        raise errors.invalid_argument("OnesLike", "Value for attr 'T' of string is not in the list of "
                                                  "allowed values (numeric and bool types)")
    return Tensor(xp.ones(x._value.shape, dtype=target._np))


@export("fill")
@dispatch.add_dispatch_support
def fill(dims, value, name=None):
    """A tensor of shape `dims` filled with the scalar `value` (dtype inferred from it)."""
    v = converted(value, "tf.fill", "value")
    if v._value.ndim != 0:
        raise errors.invalid_argument("Fill", f"value must be a scalar, got shape {list(v.shape)}")
    dims = _fill_dims(dims)
    if v._value.dtype == object:
        out = np.empty(dims, dtype=object)
        out.fill(v._value[()])
        return Tensor(out)
    xp = array_module(v._value)
    return Tensor(xp.full(dims, v._value, dtype=v._value.dtype))


def eye_like_seed(target, n, shape):
    """n one-hot cotangents for `target`, reshaped to `shape` (used by jacobians)."""
    xp = array_module(target._value)
    return Tensor(xp.eye(n, dtype=target._value.dtype).reshape(shape))

@export("one_hot")
@dispatch.add_dispatch_support
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot vectors of length `depth` for each index (out-of-range indices give all
    `off_value`); the new dimension goes at `axis` (last by default). dtype float32 unless set
    or implied by on_value/off_value."""
    # TF's dtype rules: on/off values fix the dtype, which must agree with each other and `dtype`
    if dtype is not None:
        dtype = dtype_arg(dtype, "tf.one_hot")
    try:
        on = None if on_value is None else convert_to_tensor(on_value, dtype_hint=dtype)
        off = None if off_value is None else convert_to_tensor(off_value, dtype_hint=dtype)
    except (TypeError, ValueError) as e:
        raise named(e, "tf.one_hot", "on_value/off_value") from None
    if on is not None or off is not None:
        for label, t in (("on_value", on), ("off_value", off)):
            if t is not None and dtype is not None and t.dtype != dtype:
                raise TypeError(f"tf.one_hot: dtype {t.dtype!r} of {label} does not match dtype "
                                f"parameter {dtype!r}")
        if dtype is None:
            dtype = on.dtype if on is not None else off.dtype
    elif dtype is None:
        dtype = dtypes.float32
    on = converted(1, "tf.one_hot", "on_value (default 1)", dtype) if on is None else on
    off = converted(0, "tf.one_hot", "off_value (default 0)", dtype) if off is None else off
    if on.dtype != off.dtype:
        raise TypeError(f"tf.one_hot: dtype {on.dtype!r} of on_value does not match dtype {off.dtype!r} "
                        f"of off_value")
    for label, t in (("on_value", on), ("off_value", off)):
        if t._value.ndim:
            raise errors.invalid_argument("OneHot", f"{label} must be a scalar, but got: {list(t.shape)}")
    if isinstance(indices, (Tensor, Variable)):
        idx = as_tensor(indices)
    else:  # Python data converts as int64 (the op's default index type) where it can
        try:
            idx = as_tensor(indices, dtype=dtypes.int64)
        except (TypeError, ValueError):
            idx = converted(indices, "tf.one_hot", "indices")
    check_attr_dtype(idx, "OneHot", "TI", ("uint8", "int8", "int32", "int64"))
    if isinstance(depth, (Tensor, Variable)):
        depth = as_tensor(depth, dtype=dtypes.int32)  # ValueError for an int64 depth, as TF
    elif isinstance(depth, float):
        raise TypeError(f"one_hot: cannot convert depth {depth!r} to EagerTensor of dtype int32")
    elif type(depth) is not int:  # TF converts depth to an int32 scalar
        depth = int(int_input(depth, "tf.one_hot", "OneHot", "depth", rank=0, dtype=dtypes.int32))
    depth = scalar_int(depth)
    if depth < 0:
        raise errors.invalid_argument("OneHot", f"depth must be non-negative, got {depth}")
    xp = array_module(idx._value)
    nd = idx._value.ndim
    axis = nd if axis is None or axis == -1 else scalar_int(axis)
    if not 0 <= axis <= nd:
        raise errors.invalid_argument("OneHot", f"Expected axis to be -1 or between [0, {nd}), got {axis}")
    hot = xp.expand_dims(idx._value, -1) == xp.arange(depth)
    hot = xp.moveaxis(hot, -1, axis)
    return Tensor(xp.where(hot, on._value, off._value).astype(dtype._np))


@export("range")
@dispatch.add_dispatch_support
def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 (TF's name)
    """Numbers from `start` up to (not including) `limit` in steps of `delta` (range(n) counts
    from 0). int32 for integer arguments, float32 when any is a float, unless `dtype` is given."""
    if limit is None:
        start, limit = 0, start
    args = [start, limit, delta]
    if not all(type(a) is int or type(a) is float for a in args):
        args = _range_args(args, dtype)  # the slow path: TF's conversions and checks
    vals = [a.numpy() if isinstance(a, Tensor) else a for a in args]
    if dtype is None:
        tensor_dtypes = [a.dtype for a in args if isinstance(a, Tensor)]
        if any(d.is_floating for d in tensor_dtypes):
            dtype = next(d for d in tensor_dtypes if d.is_floating)
        elif any(isinstance(v, (float, np.floating)) for v in vals):
            dtype = dtypes.float32
        elif tensor_dtypes:
            dtype = tensor_dtypes[0]
        else:
            dtype = dtypes.int32
    dtype = dtypes.as_dtype(dtype)
    _check_range_dtype(dtype, args)
    s, lim, d = (float(v) if dtype.is_floating else int(v) for v in vals)
    if d == 0:
        raise errors.invalid_argument("Range", f"Requires delta != 0: {d}")
    if (d > 0 and not s <= lim) or (d < 0 and not s >= lim):
        raise errors.invalid_argument(
            "Range", f"Requires start <= limit when delta > 0 (or start >= limit when delta < 0): "
                     f"start={s}, limit={lim}, delta={d}")
    if dtype.is_floating and not abs((lim - s) / d) <= np.iinfo(np.int64).max:
        raise errors.invalid_argument(
            "Range", f"Requires ((limit - start) / delta) <= {np.iinfo(np.int64).max}: start={s}, "
                     f"limit={lim}, delta={d}; pass finite bounds")
    xp = backend.default_module()
    return Tensor(xp.arange(s, lim, d).astype(dtype._np))


_RANGE_INFERRED = ("int32", "int64", "float16", "bfloat16", "float32", "float64")


def _range_args(args, dtype):
    """tf.range's arguments as scalar tensors, converted as TF converts them (with `dtype` when
    given); TF's AssertionError when no dtype is given and one is not a number type, its
    InvalidArgumentError when one is not a scalar (a 1-element vector passes, as in TF)."""
    out = []
    for label, a in zip(("start", "limit", "delta"), args):
        if type(a) is int or type(a) is float:
            out.append(a)
            continue
        t = converted(a, "tf.range", label, None if isinstance(a, (Tensor, Variable)) else dtype)
        if dtype is None and t.dtype.name not in _RANGE_INFERRED:
            raise AssertionError(f"tf.range: `{label}`={a!r} has dtype {t.dtype.name}; the arguments "
                                 f"must be numbers (int32, int64 or a float type)")
        if t._value.size != 1 or t._value.ndim > 1:
            raise errors.invalid_argument("Range", f"{label} must be a scalar, not shape {list(t.shape)}")
        out.append(t if t._value.ndim == 0 else Tensor(t._value.reshape(())))
    return out


_RANGE_KERNELS = frozenset(("bfloat16", "float16", "float32", "float64", "int32", "int64"))
_RANGE_DECLARED = frozenset(("int8", "int16", "uint16", "uint32", "uint64"))  # no CPU kernel


def _check_range_dtype(dtype, args):
    """TF's errors for range: Python values must convert to `dtype`, which needs a Range kernel."""
    for a in args:
        if isinstance(a, (Tensor, Variable)):
            continue
        if (isinstance(a, float) and not dtype.is_floating) or dtype.is_bool or dtype is dtypes.string:
            raise TypeError(f"Cannot convert {a!r} to EagerTensor of dtype {dtype.name} in range; use "
                            f"a numeric dtype matching the arguments")
    if dtype.name in _RANGE_KERNELS:
        return
    if dtype.name in _RANGE_DECLARED:
        raise errors.NotFoundError(None, None, f"Could not find a Range kernel for Tidx={dtype.name}; use "
                                               f"int32/int64 and tf.cast. [Op:Range]")
    raise errors.invalid_argument("Range", f"Value for attr 'Tidx' of {dtype.name} is not in the list of "
                                           f"allowed values; use int32, int64 or a float type")


@export("linspace")
@dispatch.add_dispatch_support
def linspace(start, stop, num, name=None, axis=0):
    """`num` evenly spaced values from `start` to `stop`, both included, in start's float dtype
    (integer starts give float64, or float32 for 8/16-bit integers, as TF)."""
    a = as_tensor(start)
    b = convert_to_tensor(stop, dtype=a.dtype)  # TF: stop must convert to start's dtype
    if a.dtype.is_integer:  # as TF's integer division: int8/16 -> float32, int32/64 -> float64
        dtype = dtypes.float32 if a.dtype.size <= 2 else dtypes.float64
    else:
        dtype = a.dtype if a.dtype.is_floating else dtypes.float32
    num = scalar_int(num)
    if num < 0:
        raise errors.invalid_argument("LinSpace", f"Requires num >= 0: {num}")
    xp = array_module(a._value)
    out = xp.linspace(a._value.astype(dtype._np), b._value.astype(dtype._np), num, axis=axis)
    return Tensor(xp.asarray(out, dtype=dtype._np))


@export("eye", "linalg.eye")
@dispatch.add_dispatch_support
def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """An identity matrix [num_rows, num_columns], optionally tiled to batch_shape + that."""
    dtype = dtype_arg(dtype, "tf.eye")
    if type(num_rows) is not int or not (num_columns is None or type(num_columns) is int):
        _check_eye_sizes(num_rows, num_rows if num_columns is None else num_columns)
    n = scalar_int(num_rows)
    m = n if num_columns is None else scalar_int(num_columns)
    if min(n, m) < 0:
        raise errors.invalid_argument("Fill", f"tf.eye: Dimension {min(n, m)} must be >= 0 (num_rows={n}, "
                                              f"num_columns={m})")
    xp = backend.default_module()
    out = xp.eye(n, m, dtype=dtype._np)
    if batch_shape is not None:
        if not isinstance(batch_shape, (Tensor, Variable)):  # TF converts batch_shape + [diagonal size]
            try:
                sizes = list(batch_shape) + [min(n, m)]
            except TypeError:
                raise TypeError(f"tf.eye: `batch_shape` must be a list of sizes, not {batch_shape!r}") from None
            _fill_dims(sizes, "Fill", "tf.eye", "batch_shape", "int32")
        batch = tuple(int_list(batch_shape))
        out = xp.ascontiguousarray(xp.broadcast_to(out, batch + (n, m)))
    return Tensor(out)


def _check_eye_sizes(rows, columns):
    """TF's TypeError for sizes of tf.eye that are neither integers nor tensors."""
    for v in (rows, columns):
        if not isinstance(v, (Tensor, Variable, int, np.integer)):
            raise TypeError(f"tf.eye: arguments `num_rows` and `num_columns` must be positive integer "
                            f"values. Received: num_rows={rows!r}, num_columns={columns!r}")


@export("meshgrid")
@dispatch.add_dispatch_support
def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D tensors; indexing 'xy' (default, Cartesian) or 'ij' (matrix)."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid: unexpected keyword arguments {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    tensors = [reshape(as_tensor(a), (-1,)) for a in args]
    n = len(tensors)
    sizes = [t._value.shape[0] for t in tensors]
    if indexing == "xy" and n >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, t in enumerate(tensors):
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        view = [1] * n
        view[pos] = -1
        out.append(broadcast_to(reshape(t, view), sizes))
    return out


@export("sequence_mask")
@dispatch.add_dispatch_support
def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """mask[..., j] = j < lengths[...]: a [*lengths.shape, maxlen] mask (maxlen defaults to
    max(lengths))."""
    lens = as_tensor(lengths)
    xp = array_module(lens._value)
    if maxlen is None:
        maxlen = int(lens._value.max()) if lens._value.size else 0
    maxlen = scalar_int(maxlen)
    if maxlen < 0:
        raise errors.invalid_argument("SequenceMask", f"maxlen must be non-negative, got {maxlen}")
    mask = xp.arange(maxlen) < xp.expand_dims(lens._value, -1)
    return Tensor(mask.astype(dtypes.as_dtype(dtype)._np))
