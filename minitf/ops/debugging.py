"""Numeric checks and assertions (tf.debugging).

In eager mode a failed assertion raises InvalidArgumentError at once, with the `message`
argument, the condition, and the first `summarize` values of the tensors involved. Checks
that TF makes statically (ranks, shapes, dtypes) raise ValueError or TypeError as TF does.
The assertions return None, as TF's eager assertions do (assert_all_finite returns its input).
"""
import numpy as np

from minitf import backend, dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops._core import FLOATS, Op, Tensor, thread_state, as_tensor, binary, record
from minitf.ops.compare import EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL, NOT_EQUAL
from minitf.ops.math import SUB
from minitf.api_export import export

__all__ = [
    "check_numerics", "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
    "assert_greater", "assert_greater_equal", "assert_near", "assert_rank", "assert_rank_at_least",
    "assert_rank_in", "assert_shapes", "assert_all_finite", "assert_positive", "assert_negative",
    "assert_non_negative", "assert_non_positive", "assert_type", "assert_integer", "assert_scalar",
    "assert_proper_iterable", "Assert", "is_numeric_tensor",
]
# is_non_decreasing / is_strictly_increasing live here but TF 2 exports them under tf.math only
# (minitf/math.py imports them); TF 2's tf.debugging has no is_nan/is_inf/is_finite either.

_DEFAULT_SUMMARIZE = 3
_NUMERIC_TYPES = ("float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64",
                  "uint8", "uint16", "uint32", "uint64", "complex64", "complex128")


def _host(t):
    return np.asarray(backend.to_host(t._value))


def _prefix(message):
    """TF's `_message_prefix`: 'message.  ' or ''."""
    return f"{message}.  " if message else ""


def _shape_and_dtype(t):
    return f"shape={tuple(t._value.shape)} dtype={t.dtype.name}"


def _pretty(item, summarize):
    """One entry of an eager assertion's message, as TF's `_pretty_print` writes it."""
    if isinstance(item, Tensor):
        arr = _host(item)
        if arr.ndim == 0:
            return str(arr[()])
        flat = arr.reshape(-1)
        lst = [str(v) for v in flat[:summarize]]
        if len(lst) < flat.size:
            lst.append("...")
        return str(lst)
    return str(item)


def _summarize_eager(item, summarize):
    """One data entry of a failed tf.debugging.Assert, as TF's `_summarize_eager` writes it."""
    arr = _host(item if isinstance(item, Tensor) else as_tensor(item))
    if summarize is None:
        summarize = _DEFAULT_SUMMARIZE
    elif summarize < 0:
        summarize = arr.size
    if arr.ndim:
        flat = arr.reshape(-1)
        lst = [str(v) for v in flat[:summarize]]
        if len(lst) < flat.size:
            lst.append("...")
    else:
        lst = [str(arr[()])] if summarize != 0 else []
    return ", ".join(lst)


CHECK_NUMERICS = Op("CheckNumerics", batchable=True, dtypes=FLOATS)


@export("debugging.check_numerics")
@dispatch.stateful_op(abstract=dispatch.returns_first_argument)
def check_numerics(tensor, message, name=None):
    """`tensor` unchanged, or InvalidArgumentError naming `message` if it holds NaN or Inf.

    Only floating-point tensors have a CheckNumerics kernel (bfloat16, float16/32/64); other
    dtypes raise InvalidArgumentError, as in TF.
    """
    x = as_tensor(tensor)
    CHECK_NUMERICS.check_dtype(x)
    v = _host(x)
    has_inf, has_nan = bool(np.isinf(v).any()), bool(np.isnan(v).any())
    if has_inf or has_nan:
        kinds = " and ".join(k for k, bad in (("Inf", has_inf), ("NaN", has_nan)) if bad)
        raise CHECK_NUMERICS.invalid(f"{message} : Tensor had {kinds} values")
    y = Tensor(x._value)
    if thread_state.active:
        record(CHECK_NUMERICS, (x,), (y,), lambda g: check_numerics(
            g, f"Not a number (NaN) or infinity (Inf) values detected in gradient. {message}"))
    return y


def _holds(x, y, op, kernel):
    """`op` applied to the host values of `x` and `y`; shape mismatches as TF's `kernel` (an Op)
    raises them."""
    xv, yv = _host(x), _host(y)
    try:
        np.broadcast_shapes(xv.shape, yv.shape)
    except ValueError as e:
        raise kernel.shape_error(e, x, y) from None
    with np.errstate(invalid="ignore", over="ignore"):
        return xv, yv, np.asarray(op(xv, yv))


def _compare(x, y, op, kernel, symbol, message, summarize, data=None):
    """TF's eager `_binary_assert`: x and y are converted separately, so their dtypes must match
    (and have a `kernel`, the comparison Op)."""
    x, y = as_tensor(x), as_tensor(y)
    x, y = binary(x, y, kernel)
    xv, yv, holds = _holds(x, y, op, kernel)
    if holds.all():
        return None
    summarize = _DEFAULT_SUMMARIZE if summarize is None else summarize
    summarize = 10 ** 9 if summarize < 0 else summarize
    if data is None:
        data = [f"Condition x {symbol} y did not hold."]
        if summarize > 0:
            if xv.shape == yv.shape and xv.ndim:
                mask = ~holds
                indices = np.argwhere(mask)
                n = min(summarize, indices.shape[0])
                data += [f"Indices of first {n} different values:", indices[:n],
                         "Corresponding x values:", xv[mask].reshape(-1)[:n],
                         "Corresponding y values:", yv[mask].reshape(-1)[:n]]
            xf, yf = xv.reshape(-1), yv.reshape(-1)
            nx, ny = min(xf.size, summarize), min(yf.size, summarize)
            data += [f"First {nx} elements of x:", xf[:nx], f"First {ny} elements of y:", yf[:ny]]
        if message is not None:
            data = [message] + data
    raise errors.InvalidArgumentError(None, None, "\n".join(_pretty(d, summarize) for d in data))


@export("assert_equal", "debugging.assert_equal")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def assert_equal(x, y, message=None, summarize=None, name=None):
    """InvalidArgumentError unless x == y everywhere (broadcasting); x and y share one dtype."""
    return _compare(x, y, np.equal, EQUAL, "==", message, summarize)


@export("debugging.assert_none_equal")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def assert_none_equal(x, y, summarize=None, message=None, name=None):
    """InvalidArgumentError unless x != y everywhere."""
    return _compare(x, y, np.not_equal, NOT_EQUAL, "!=", message, summarize)


@export("assert_less", "debugging.assert_less")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def assert_less(x, y, message=None, summarize=None, name=None):
    """InvalidArgumentError unless x < y everywhere."""
    return _compare(x, y, np.less, LESS, "<", message, summarize)


@export("debugging.assert_less_equal")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def assert_less_equal(x, y, message=None, summarize=None, name=None):
    """InvalidArgumentError unless x <= y everywhere."""
    return _compare(x, y, np.less_equal, LESS_EQUAL, "<=", message, summarize)


@export("assert_greater", "debugging.assert_greater")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def assert_greater(x, y, message=None, summarize=None, name=None):
    """InvalidArgumentError unless x > y everywhere."""
    return _compare(x, y, np.greater, GREATER, ">", message, summarize)


@export("debugging.assert_greater_equal")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    """InvalidArgumentError unless x >= y everywhere."""
    return _compare(x, y, np.greater_equal, GREATER_EQUAL, ">=", message, summarize)


def _assert_failed(condition, data, summarize):
    """The InvalidArgumentError of a failed eager tf.debugging.Assert."""
    parts = [repr(d.encode()) if isinstance(d, str) else _summarize_eager(d, summarize) for d in data]
    return errors.InvalidArgumentError(
        None, None, f"Expected '{str(condition)}' to be true. Summarized data: " + "\n".join(parts))


@export("debugging.assert_near")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """InvalidArgumentError unless |x - y| < atol + rtol * |y| everywhere (strictly, as TF).

    `x` must be float16/32/64 or complex (ValueError otherwise, as TF's numpy.finfo lookup);
    `y`, `rtol` and `atol` are converted to its dtype (its real dtype for the tolerances), so a
    tensor of another dtype is a ValueError. Tolerances default to 10 * the dtype's epsilon.
    """
    x = as_tensor(x)
    y = as_tensor(y, dtype=x.dtype)
    real = {"complex64": "float32", "complex128": "float64"}.get(x.dtype.name, x.dtype.name)
    if real not in ("float16", "float32", "float64"):
        raise ValueError(f"assert_near: data type {real} not inexact; assert_near compares "
                         f"float16/32/64 or complex tensors (use assert_equal for {real})")
    eps = np.finfo(np.dtype(real)).eps
    rtol = as_tensor(10 * eps if rtol is None else rtol, dtype=dtypes.as_dtype(real))
    atol = as_tensor(10 * eps if atol is None else atol, dtype=dtypes.as_dtype(real))
    xv, yv, close = _holds(x, y, lambda a, b: np.abs(a - b) < _host(atol) + _host(rtol) * np.abs(b), SUB)
    if close.all():
        return None
    data = [_prefix(message), f"x and y not equal to tolerance rtol = {str(rtol)}, atol = {str(atol)}",
            f"x ({_shape_and_dtype(x)}) = ", x, f"y ({_shape_and_dtype(y)}) = ", y]
    raise _assert_failed(Tensor(backend.default_module().asarray(False)), data, summarize)


def _compare_zero(x, op, kernel, symbol, message, summarize):
    x = as_tensor(x)
    if not (x.dtype.is_integer or x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"Cannot convert 0 to EagerTensor of dtype {x.dtype.name}: "
                        f"sign assertions need a numeric tensor")
    zero = Tensor(backend.array_module(x._value).zeros((), dtype=x._value.dtype))
    data = [_prefix(message), f"Condition x {symbol} 0 did not hold element-wise:",
            f"x ({_shape_and_dtype(x)}) = ", x]
    return _compare(x, zero, op, kernel, symbol, None, summarize, data=data)


@export("debugging.assert_positive")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def assert_positive(x, message=None, summarize=None, name=None):
    """InvalidArgumentError unless x > 0 everywhere (TypeError for bool/string tensors)."""
    return _compare_zero(x, np.greater, GREATER, ">", message, summarize)


@export("debugging.assert_negative")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def assert_negative(x, message=None, summarize=None, name=None):
    """InvalidArgumentError unless x < 0 everywhere (TypeError for bool/string tensors)."""
    return _compare_zero(x, np.less, LESS, "<", message, summarize)


@export("debugging.assert_non_negative")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def assert_non_negative(x, message=None, summarize=None, name=None):
    """InvalidArgumentError unless x >= 0 everywhere (TypeError for bool/string tensors)."""
    return _compare_zero(x, np.greater_equal, GREATER_EQUAL, ">=", message, summarize)


@export("debugging.assert_non_positive")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def assert_non_positive(x, message=None, summarize=None, name=None):
    """InvalidArgumentError unless x <= 0 everywhere (TypeError for bool/string tensors)."""
    return _compare_zero(x, np.less_equal, LESS_EQUAL, "<=", message, summarize)


@export("debugging.assert_all_finite")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def assert_all_finite(x, message, name=None):
    """`x` as a tensor, or InvalidArgumentError naming `message` if it holds NaN or Inf.

    Like check_numerics it needs a floating-point tensor (InvalidArgumentError otherwise).
    """
    x = as_tensor(x)
    check_numerics(x, message)
    return x


def _rank_arg(rank):
    """A rank argument checked as TF does: an int32 tensor (TypeError), a scalar (ValueError)."""
    r = as_tensor(rank)
    if r.dtype.name != "int32":
        raise TypeError(f"tensor must be of type tf.int32; got {r.dtype!r} (pass the rank as a "
                        f"Python int)")
    v = _host(r)
    if v.ndim != 0:
        raise ValueError("Rank must be a scalar.")
    return int(v)


@export("assert_rank", "debugging.assert_rank")
@dispatch.add_dispatch_support
def assert_rank(x, rank, message=None, name=None):
    """ValueError unless `x` has exactly rank `rank` (an int32 scalar)."""
    x = as_tensor(x)
    rank = _rank_arg(rank)
    if x._value.ndim != rank:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank {rank}.  Received rank "
                         f"{x._value.ndim}, shape {x.shape}")


@export("debugging.assert_rank_at_least")
@dispatch.add_dispatch_support
def assert_rank_at_least(x, rank, message=None, name=None):
    """ValueError unless `x` has rank >= `rank` (an int32 scalar)."""
    x = as_tensor(x)
    rank = _rank_arg(rank)
    if x._value.ndim < rank:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank at least {rank}.  Received rank "
                         f"{x._value.ndim}, shape {x.shape}")


@export("debugging.assert_rank_in")
@dispatch.add_dispatch_support
def assert_rank_in(x, ranks, message=None, name=None):
    """ValueError unless the rank of `x` is one of `ranks` (int32 scalars)."""
    x = as_tensor(x)
    ranks = tuple(_rank_arg(r) for r in ranks)
    if x._value.ndim not in ranks:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank in {ranks}.  Received rank "
                         f"{x._value.ndim}, shape {x.shape}")


@export("debugging.assert_scalar")
@dispatch.add_dispatch_support
def assert_scalar(tensor, message=None, name=None):
    """ValueError unless `tensor` is a scalar (rank 0)."""
    x = as_tensor(tensor)
    if x._value.ndim != 0:
        raise ValueError(f"{_prefix(message)}Expected scalar shape, saw shape: {x.shape}.")


def _known_size(symbol):
    """TF's `_has_known_value`: a spec entry that int() accepts is an explicit size."""
    if symbol is None:
        return False
    try:
        int(symbol)
    except (ValueError, TypeError):
        return False
    return True


@export("debugging.assert_shapes")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """ValueError unless each tensor's shape matches its spec, sharing named sizes across tensors.

    `shapes` is a list (or dict) of (tensor, spec) pairs. A spec entry is an explicit size (an int
    or anything int() accepts), None or '.' (any size), or a symbol such as 'N' that must take one
    size everywhere. `...` (Ellipsis) or '*' as the first entry lets any outer dimensions through.
    As in TF, a spec of length 0 or 1 accepts a scalar, which counts as one dimension of size 1.
    """
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _prefix(message)
    checked = []
    for tensor, spec in shapes:
        if spec is None:
            continue
        t = as_tensor(tensor.deref() if hasattr(tensor, "deref") else tensor)
        if not (hasattr(spec, "__iter__") or hasattr(spec, "__getitem__")):
            raise ValueError(f"{prefix}Tensor {_shape_and_dtype(t)}.  Specified shape must be an "
                             f"iterable.  An iterable has the attribute `__iter__` or `__getitem__`.  "
                             f"Received specified shape: {spec}")
        spec = tuple(spec)
        inner = False
        for i, symbol in enumerate(spec):
            if isinstance(symbol, str) and symbol == "*" or symbol is Ellipsis:
                if i != 0:
                    raise ValueError(f"{prefix}Tensor {_shape_and_dtype(t)} specified shape index {i}.  "
                                     f"Symbol `...` or `*` for a variable number of unspecified "
                                     f"dimensions is only allowed as the first entry")
                inner = True
        symbols = (spec[1:] if inner else spec) or (1,)
        actual = tuple(t._value.shape) or (1,)
        rank, ndim = len(symbols), t._value.ndim
        if inner:
            if rank > 1 and ndim < rank:
                raise ValueError(f"{prefix}Tensor  must have rank at least {rank}.  Received rank "
                                 f"{ndim}, shape {t.shape}")
        elif rank == 1 and ndim not in (0, 1):
            raise ValueError(f"{prefix}Tensor  must have rank in (0, 1).  Received rank {ndim}, "
                             f"shape {t.shape}")
        elif rank > 1 and ndim != rank:
            raise ValueError(f"{prefix}Tensor  must have rank {rank}.  Received rank {ndim}, "
                             f"shape {t.shape}")
        checked.append((t, inner, actual, symbols))
    sizes = {}
    for t, inner, actual, symbols in checked:
        for i, symbol in enumerate(symbols):
            if symbol is None or (isinstance(symbol, str) and symbol == "."):
                continue
            dim = i - len(symbols) if inner else i
            if _known_size(symbol) or symbol in sizes:
                if _known_size(symbol):
                    want, how = int(symbol), "Specified explicitly"
                else:
                    want, by, at = sizes[symbol]
                    how = f"Specified by tensor {_shape_and_dtype(by)} dimension {at}"
                if actual[dim] != want:
                    raise ValueError(f"{prefix}{how}.  Tensor {_shape_and_dtype(t)} dimension {dim} must "
                                     f"have size {want}.  Received size {actual[dim]}, shape {t.shape}")
            else:
                sizes[symbol] = (actual[dim], t, dim)


@export("debugging.assert_type")
@dispatch.add_dispatch_support
def assert_type(tensor, tf_type, message=None, name=None):
    """TypeError unless `tensor` has dtype `tf_type`."""
    want = dtypes.as_dtype(tf_type)
    x = as_tensor(tensor)
    if x.dtype != want:
        raise TypeError(f"{_prefix(message)}tensor must be of type {want!r}; got {x.dtype!r}")


@export("debugging.assert_integer")
@dispatch.add_dispatch_support
def assert_integer(x, message=None, name=None):
    """TypeError unless `x` has an integer dtype (bool is not one)."""
    x = as_tensor(x)
    if not x.dtype.is_integer:
        raise TypeError(f'{_prefix(message)}Expected "x" to be integer type.  Found: tensor of '
                        f'dtype {x.dtype}')


@export("debugging.assert_proper_iterable")
def assert_proper_iterable(values):
    """TypeError if `values` is a tensor, array or string, or not iterable at all."""
    if isinstance(values, (Tensor, np.ndarray, str, bytes)):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


@export("Assert", "debugging.Assert")
@dispatch.stateful_op(abstract=dispatch.returns_none)
def Assert(condition, data, summarize=None, name=None):  # noqa: N802 (TF's name)
    """InvalidArgumentError summarizing the first `summarize` entries of each of `data` unless
    `condition` is true.

    As TF's eager Assert, the condition is tested with Python's truth value, so a tensor with
    more than one element raises ValueError (use tf.reduce_all).
    """
    if not condition:
        raise _assert_failed(condition, data, summarize)
    return None


@export("debugging.is_numeric_tensor")
def is_numeric_tensor(tensor):
    """True for a Tensor (not a Variable or Python value) of a numeric dtype."""
    return isinstance(tensor, Tensor) and tensor.dtype.name in _NUMERIC_TYPES


def _monotonic(x, op, kernel):
    x = as_tensor(x)
    flat = Tensor(x._value.reshape(-1))
    if not is_numeric_tensor(flat):
        raise TypeError(f"Expected x to be numeric, instead found: {str(flat)}")
    kernel.check_dtype(flat)
    v = _host(flat)
    return Tensor(backend.array_module(x._value).asarray(bool(np.all(op(v[1:], v[:-1])))))


@export("math.is_non_decreasing")
@dispatch.add_dispatch_support
def is_non_decreasing(x, name=None):
    """True (a bool scalar tensor) if the flattened numeric `x` never decreases (tf.math)."""
    return _monotonic(x, np.greater_equal, GREATER_EQUAL)


@export("math.is_strictly_increasing")
@dispatch.add_dispatch_support
def is_strictly_increasing(x, name=None):
    """True (a bool scalar tensor) if the flattened numeric `x` always increases (tf.math)."""
    return _monotonic(x, np.greater, GREATER)

