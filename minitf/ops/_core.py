"""Helpers shared by the op modules: argument conversion, dtype checks and error wrapping.

Op modules import `record`, `thread_state` and `Tensor` from here so each op reads:
convert inputs -> compute on raw arrays of the inputs' array module -> wrap -> record.
"""
import numpy

from minitf import backend
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.recording import Op, thread_state, record, tracing  # noqa: F401 (re-exported for the op modules)
from minitf.symbolic_tensor import SymbolicArgumentError, SymbolicTensor, out_of_scope_error
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
    if thread_state.active:
        record(COPY_TO_DEVICE, (x,), (y,), lambda g: copy_to_module(g, src))
    return y


def unify(*tensors):
    """The tensors moved to one device (TF's rule: the scope's device, else the GPU).

    Returns them unchanged, as a tuple, when they already share an array module.
    """
    xp = backend.target_module(*(t._value for t in tensors))
    return tuple(copy_to_module(t, xp) for t in tensors)


def is_graph_value(x):
    """True for what an op must not compute on: a symbolic tensor, or a variable while a
    `tf.function` is being traced (its value is read when the graph runs)."""
    kind = type(x)
    if kind is Tensor or kind is float or kind is int:
        return False
    if kind is list or kind is tuple:  # a shape or a list of tensors holding one
        return any(is_graph_value(v) for v in x)
    return kind is SymbolicTensor or (thread_state.graph is not None and isinstance(x, Variable))


def refuse_graph_value(x, op=None):
    """Raise SymbolicArgumentError for a graph value, so the op dispatches the call to the graph."""
    if is_graph_value(x):
        name = _name(op) if op is not None else "an op"
        raise SymbolicArgumentError(f"{name} got the graph value {x!r}: the call is recorded in the "
                                    f"graph being traced instead of computed.")


def graph_call(api, args, kwargs):
    """Hand `api(*args, **kwargs)`, which has a graph value among its arguments, to the graph
    being traced (the guard hot ops use instead of a dispatch wrapper, at no eager cost)."""
    graph = thread_state.graph
    if graph is None:
        for a in args:
            if isinstance(a, SymbolicTensor):
                raise out_of_scope_error(a)
    return graph.call(api, args, kwargs)


def as_tensor(x, dtype=None):
    """`x` as a Tensor (fast path for tensors; variables are read, tape-aware).

    A symbolic tensor, or a variable while a function is traced, raises SymbolicArgumentError (a
    TypeError): the op then hands the call to the graph through the dispatch seam.
    """
    if type(x) is Tensor and dtype is None:
        return x
    if tracing[0]:
        refuse_graph_value(x)
    return convert_to_tensor(x, dtype=dtype)


# dtype families for Op(dtypes=...): the kernels TF registers for each op.
REAL = ("float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64",
         "uint8", "uint16", "uint32", "uint64")
NUMERIC = REAL + ("complex64", "complex128")
FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
SIGNED = ("float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64",
           "complex64", "complex128")


def _kernel_np(op):
    """The numpy dtypes `op` has a kernel for (None: any); a plain name only names the op."""
    return op.np_dtypes if type(op) is Op else None


def check_kernel_dtype(x, op, attr="T"):
    """InvalidArgumentError (TF's wording) when the Op `op` has no kernel for `x`'s dtype."""
    if type(op) is Op:
        op.check_dtype(x, attr)


def check_attr_dtype(t, op_name, attr, allowed):
    """InvalidArgumentError, in TF's words, when tensor `t`'s dtype is not among `allowed` names."""
    if t.dtype.name not in allowed:
        raise errors.invalid_argument(
            op_name, f"Value for attr '{attr}' of {t.dtype.name} is not in the list of allowed values: "
                     f"{', '.join(allowed)}; cast it with tf.cast")


def read(x):
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


def _name(op):
    return op.name if type(op) is Op else op


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
    if tracing[0]:
        refuse_graph_value(x, op_name)
        refuse_graph_value(y, op_name)
    tx, ty = isinstance(x, (Tensor, Variable)), isinstance(y, (Tensor, Variable))
    if hint:
        x = as_tensor(read(x))
        if not ty:
            y = convert_to_tensor(y, dtype_hint=x.dtype)
    elif tx:
        x = read(x)
        if not ty:
            y = _like(y, x)
    elif ty:
        if isinstance(y, Variable) and isinstance(x, (list, tuple)):
            x = as_tensor(x)  # TF converts a list before a variable on its own
            if x.dtype != y.dtype:
                raise ValueError(f"Incompatible type conversion requested to type {x.dtype.name} for "
                                 f"tf.Variable of type {y.dtype.name} in {_name(op_name)}; cast one operand "
                                 f"with tf.cast")
        else:
            x = _like(x, y)
    else:
        x = as_tensor(x)
        y = _like(y, x)
    y = read(y)
    if type(y) is not Tensor:
        y = as_tensor(y)
    if x._value.dtype != y._value.dtype:  # checked before any copy: strings cannot go to a GPU
        name = _name(op_name)
        raise errors.invalid_argument(
            name, f"cannot compute {name} as input #1(zero-based) was expected to be a "
                     f"{x.dtype.name} tensor but is a {y.dtype.name} tensor; cast one operand with tf.cast")
    if type(x._value) is not type(y._value) and array_module(x._value) is not array_module(y._value):
        x, y = unify(x, y)  # operands on two devices: copy as TF does
    allowed = _kernel_np(op_name)
    if allowed is not None and x._value.dtype not in allowed:
        check_kernel_dtype(x, op_name)
    return x, y


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
        values = numpy.asarray(read(axis).numpy())
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
