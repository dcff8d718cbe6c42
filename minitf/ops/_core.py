"""Helpers shared by the op modules: argument conversion, dtype checks and error wrapping.

Op modules import `record`, `_state` and `Tensor` from here so each op reads:
convert inputs -> compute on raw arrays of the inputs' array module -> wrap -> record.
"""
import numpy

from minitf import backend, dtypes, errors
from minitf.convert import convert_to_tensor
from minitf.recording import Op, _state, record, register_batchable  # noqa: F401 (re-exported)
from minitf.tensor import Tensor
from minitf.variable import Variable

array_module = backend.array_module


COPY_TO_DEVICE = Op("CopyToDevice", batchable=True)


def copy_to_module(x, xp):
    """Tensor `x` copied to array module `xp` (itself when it is there already), differentiably."""
    src = backend.array_module(x._value)
    if src is xp:
        return x
    y = Tensor(backend.coerce_to_module(x._value, xp))
    if _state.active:
        record(COPY_TO_DEVICE, (x,), (y,), lambda g: copy_to_module(g, src))
    return y


def unify(*tensors):
    """The tensors moved to one device (TF's rule: the scope's device, else the GPU).

    Returns them unchanged, as a tuple, when they already share an array module.
    """
    xp = backend.target_module(*(t._value for t in tensors))
    return tuple(copy_to_module(t, xp) for t in tensors)


def as_tensor(x, dtype=None):
    """`x` as a Tensor (fast path for tensors; variables are read, tape-aware)."""
    if type(x) is Tensor and dtype is None:
        return x
    return convert_to_tensor(x, dtype=dtype)


# dtypes each binary kernel accepts (TF's registered types); ops not listed accept any dtype.
_REAL = ("float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64",
         "uint8", "uint16", "uint32", "uint64")
_NUMERIC = _REAL + ("complex64", "complex128")
_FLOATS = ("float16", "bfloat16", "float32", "float64")
_INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_SIGNED = ("float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64",
           "complex64", "complex128")
KERNEL_DTYPES = {
    "AddV2": frozenset(_NUMERIC + ("string",)), "Sub": frozenset(_NUMERIC), "Mul": frozenset(_NUMERIC),
    "RealDiv": frozenset(_NUMERIC), "FloorDiv": frozenset(_NUMERIC), "FloorMod": frozenset(_REAL),
    "Pow": frozenset(_SIGNED), "Maximum": frozenset(_REAL), "Minimum": frozenset(_REAL),
    "Less": frozenset(_REAL), "LessEqual": frozenset(_REAL), "Greater": frozenset(_REAL),
    "GreaterEqual": frozenset(_REAL),
    "Neg": frozenset(_SIGNED), "Abs": frozenset(_SIGNED), "Sign": frozenset(_SIGNED),
    "Square": frozenset(_NUMERIC),
    "Invert": frozenset(_INTS), "BitwiseAnd": frozenset(_INTS), "BitwiseOr": frozenset(_INTS),
    "BitwiseXor": frozenset(_INTS),
    "SquaredDifference": frozenset(_FLOATS + ("int32", "int64", "complex64", "complex128")),
    "DivNoNan": frozenset(_FLOATS + ("complex64", "complex128")),
    "Xlogy": frozenset(_FLOATS + ("complex64", "complex128")), "Atan2": frozenset(_FLOATS),
    "Floor": frozenset(_FLOATS), "Ceil": frozenset(_FLOATS), "IsNan": frozenset(_FLOATS),
    "IsFinite": frozenset(_FLOATS), "IsInf": frozenset(_FLOATS), "Round": frozenset(_SIGNED),
    "Rint": frozenset(_FLOATS),
    "ClipByValue": frozenset(_REAL), "Relu": frozenset(_REAL), "Softmax": frozenset(_FLOATS),
    "LogSoftmax": frozenset(_FLOATS), "LeakyRelu": frozenset(_FLOATS), "Cumsum": frozenset(_NUMERIC),
    "Cumprod": frozenset(_NUMERIC),
    "ArgMax": frozenset(_REAL + ("bool",)), "ArgMin": frozenset(_REAL + ("bool",)),
}


# the same sets as numpy dtypes, for a cheap membership test on the hot path
_KERNEL_NP = {op: frozenset(dtypes.as_dtype(n)._np for n in names)
              for op, names in KERNEL_DTYPES.items()}


def _kernel_np(op):
    """The numpy dtypes `op` (an Op, or a name during the move to Op declarations) accepts."""
    if type(op) is Op:
        return op.np_dtypes
    return _KERNEL_NP.get(op)


def check_kernel_dtype(x, op_name, attr="T"):
    """InvalidArgumentError (TF's wording) when `op_name` has no kernel for `x`'s dtype."""
    if type(op_name) is Op:
        return op_name.check_dtype(x, attr)
    allowed = _KERNEL_NP.get(op_name)
    if allowed is not None and x._value.dtype not in allowed:
        names = ", ".join(sorted(KERNEL_DTYPES[op_name]))
        raise errors.invalid_argument(
            op_name, f"Value for attr '{attr}' of {x.dtype.name} is not in the list of allowed values: "
                     f"{names}; cast the input with tf.cast")


def check_attr_dtype(t, op_name, attr, allowed):
    """InvalidArgumentError, in TF's words, when tensor `t`'s dtype is not among `allowed` names."""
    if t.dtype.name not in allowed:
        raise errors.invalid_argument(
            op_name, f"Value for attr '{attr}' of {t.dtype.name} is not in the list of allowed values: "
                     f"{', '.join(allowed)}; cast it with tf.cast")


def _read(x):
    return x.value() if isinstance(x, Variable) else x


def _like(value, other):
    """A non-tensor operand converted to `other`'s dtype (TypeError when it cannot hold it)."""
    kind = type(value)
    raw = other._value
    if (kind is float or kind is int) and raw.dtype.itemsize >= 4 and raw.dtype.kind == "f" \
            and -1e38 < value < 1e38:
        # `x * 2.0`, the common case: a Python number that float32/float64 hold without overflow
        return Tensor(array_module(raw).asarray(value, dtype=raw.dtype))
    return as_tensor(value, dtype=other.dtype)


def binary(x, y, op_name, hint=False):
    """Two tensors of one dtype for a binary op, converted the way TF's eager ops do.

    A Python/numpy operand takes the dtype of the other operand when that one is a Tensor or a
    Variable. With `hint=True` (tf.add, tf.truediv) `x` is converted on its own first and `y`
    only tries `x`'s dtype, so `tf.add(2, 2.5)` is a dtype mismatch as in TF.
    """
    if type(x) is Tensor and type(y) is Tensor:
        vx, vy = x._value, y._value
        # fast path: same array type (hence same device) and dtype; anything else is checked below
        if type(vx) is type(vy) and vx.dtype == vy.dtype:
            allowed = _kernel_np(op_name)
            if allowed is not None and vx.dtype not in allowed:
                check_kernel_dtype(x, op_name)
            return x, y
    tx, ty = isinstance(x, (Tensor, Variable)), isinstance(y, (Tensor, Variable))
    if hint:
        x = as_tensor(_read(x))
        if not ty:
            y = convert_to_tensor(y, dtype_hint=x.dtype)
    elif tx:
        x = _read(x)
        if not ty:
            y = _like(y, x)
    elif ty:
        if isinstance(y, Variable) and isinstance(x, (list, tuple)):
            x = as_tensor(x)  # TF converts a list before a variable on its own
            if x.dtype != y.dtype:
                raise ValueError(f"Incompatible type conversion requested to type {x.dtype.name} for "
                                 f"tf.Variable of type {y.dtype.name} in {op_name}; cast one operand "
                                 f"with tf.cast")
        else:
            x = _like(x, y)
    else:
        x = as_tensor(x)
        y = _like(y, x)
    y = _read(y)
    if type(y) is not Tensor:
        y = as_tensor(y)
    if type(x._value) is not type(y._value) and array_module(x._value) is not array_module(y._value):
        x, y = unify(x, y)  # operands on two devices: copy as TF does
    if x._value.dtype != y._value.dtype:
        name = op_name.name if type(op_name) is Op else op_name
        raise errors.invalid_argument(
            name, f"cannot compute {name} as input #1(zero-based) was expected to be a "
                     f"{x.dtype.name} tensor but is a {y.dtype.name} tensor; cast one operand with tf.cast")
    allowed = _kernel_np(op_name)
    if allowed is not None and x._value.dtype not in allowed:
        check_kernel_dtype(x, op_name)
    return x, y


def incompatible_shapes(op_name, error, *tensors):
    """TF's InvalidArgumentError for operands whose shapes do not broadcast."""
    shapes = " vs. ".join(str(list(t._value.shape)) for t in tensors)
    return errors.invalid_argument(op_name, f"Incompatible shapes: {shapes} ({error})")


class shape_errors:  # noqa: N801  (used as a context manager)
    """Turn numpy's broadcasting/shape ValueErrors into TF's InvalidArgumentError naming the op.

    A class rather than @contextmanager: it sits on the hot path of every elementwise op.
    """

    __slots__ = ("op_name", "tensors")

    def __init__(self, op_name, *tensors):
        self.op_name = op_name
        self.tensors = tensors

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and issubclass(exc_type, ValueError) \
                and not isinstance(exc, errors.OpError):
            raise incompatible_shapes(self.op_name, exc, *self.tensors) from None
        return False


def normalize_axis(axis, ndim, op_name):
    """A non-negative axis, or InvalidArgumentError naming the op when out of range."""
    if not -ndim <= axis < max(ndim, 1):
        raise errors.invalid_argument(
            op_name, f"axis {axis} is out of range for a tensor of rank {ndim}; "
                     f"use an axis in [{-ndim}, {ndim})")
    return axis % ndim if ndim else 0


def reduction_axes(axis, ndim, op_name):
    """The sorted tuple of non-negative axes a reduction runs over (None means all of them).

    `axis` may be an int, a list/tuple/array of ints (any shape, flattened) or an integer tensor.
    As in TF: a Python float raises TypeError; float or string axes, axes out of [-ndim, ndim)
    (every axis of a scalar) and repeated axes raise InvalidArgumentError naming the op.
    """
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < ndim:  # the common case, without numpy
        return (axis % ndim,)
    if isinstance(axis, (Tensor, Variable)):
        values = numpy.asarray(_read(axis).numpy())
    elif isinstance(axis, float):
        raise TypeError(f"{op_name}: cannot convert axis {axis!r} to EagerTensor of dtype int32; "
                        f"pass an integer axis")
    else:
        values = numpy.asarray(axis)
    if values.dtype.kind == "b":
        values = values.astype(numpy.int32)
    if values.size and values.dtype.kind not in "iu":
        name = "float" if values.dtype.kind == "f" else "string" if values.dtype.kind in "USO" \
            else values.dtype.name
        raise errors.invalid_argument(
            op_name, f"Value for attr 'Tidx' of {name} is not in the list of allowed values: "
                     f"int32, int64; pass integer axes")
    out = []
    for a in values.reshape(-1).tolist():
        if not -ndim <= a < ndim:
            raise errors.invalid_argument(
                op_name, f"Invalid reduction dimension ({a} for input with {ndim} dimension(s); "
                         f"axes must be in [{-ndim}, {ndim})")
        a %= ndim
        if a in out:
            raise errors.invalid_argument(
                op_name, f"Invalid reduction arguments: Axes contains duplicate dimension: {a}; "
                         f"name each axis once")
        out.append(a)
    return tuple(sorted(out))


def check_float(x, op_name):
    """TypeError-free guard: InvalidArgumentError if `x` is not a floating or complex tensor."""
    if x._value.dtype.kind not in "fc":
        raise errors.invalid_argument(
            op_name, f"{op_name} needs a floating-point tensor, got {x.dtype.name}; cast it with tf.cast")
