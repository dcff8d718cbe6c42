"""keras.ops core: Keras' tensor conversion, casts, shapes, slices and scatters.

Every public function of keras.ops goes through `keras_op`: called on concrete values it runs
eagerly and returns minitf tensors (as Keras on TensorFlow returns tf tensors); called with a
symbolic KerasTensor anywhere among its arguments it becomes a node of the functional graph, a
Lambda-like layer whose output shape is found by a dry run (as Keras' ops record an Operation).
"""
import functools

import numpy as np

from minitf.dtypes import dtypes as tf_dtypes
from minitf.nest import nest
from minitf.backend import array_module
from minitf.keras_core import keras_tensor
from minitf.keras_ops.dtypes import FLOAT_TYPES, INT_TYPES, is_int_dtype, standardize_dtype
from minitf.ops import array as array_ops
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.ops import shaping as shaping_ops
from minitf.ops.gather import tensor_scatter_nd_add, tensor_scatter_nd_max, tensor_scatter_nd_min
from minitf.recording import thread_state
from minitf.symbolic_tensor import SymbolicTensor
from minitf.tensor import Tensor
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["keras_op", "convert", "convert_to_tensor", "convert_to_numpy", "is_tensor", "shape",
           "dtype", "cast", "saturate_cast", "stop_gradient", "unstack", "slice", "slice_update",
           "scatter", "scatter_update", "canonical_axis", "axis_tuple", "np_dtype"]


# -- symbolic calls ---------------------------------------------------------------------------

def _symbolic(value):
    if isinstance(value, keras_tensor.KerasTensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(_symbolic(v) for v in value)
    if isinstance(value, dict):
        return any(_symbolic(v) for v in value.values())
    return False


def _symbolic_call(fn, args, kwargs):
    """`fn(*args, **kwargs)` recorded as a layer of the functional graph."""
    if not keras_tensor._operator_layer:
        raise TypeError(f"keras.ops.{fn.__name__} on a KerasTensor needs minitf.layers loaded "
                        f"(import minitf.keras.layers first).")
    flat = nest.flatten((args, kwargs))
    slots = [i for i, v in enumerate(flat) if isinstance(v, keras_tensor.KerasTensor)]
    inputs = [flat[i] for i in slots]

    def call(values):
        values = values if isinstance(values, (list, tuple)) else [values]
        filled = list(flat)
        for i, v in zip(slots, values):
            filled[i] = v
        a, k = nest.pack_sequence_as((args, kwargs), filled)
        return fn(*a, **k)
    layer = keras_tensor._operator_layer[0](call, name=None)
    return layer(inputs[0] if len(inputs) == 1 else inputs)


def keras_op(fn):
    """Decorator: `fn` runs eagerly on values, and records a graph node on KerasTensors."""
    @functools.wraps(fn)
    def op(*args, **kwargs):
        if _symbolic(args) or _symbolic(kwargs):
            return _symbolic_call(fn, args, kwargs)
        graph = thread_state.graph
        if graph is None:
            return fn(*args, **kwargs)
        try:
            with graph.provisional():
                return fn(*args, **kwargs)
        except (TypeError, AttributeError):
            # inside a traced function, an op computing on the host (it read a graph tensor's
            # value) becomes one node of the graph, run each time the graph runs
            return graph.call(op, args, kwargs)
    return op


# -- conversion -------------------------------------------------------------------------------

def _is_tensor_like(x):
    return isinstance(x, (Tensor, Variable)) or constant_ops.is_tensor(x)


def convert(x, dtype=None):
    """Keras' `convert_to_tensor` on the TF backend, always giving a Tensor (variables read).

    Python data converts as `tf.convert_to_tensor` does (floats to float32, ints to int32); a
    tensor of another dtype is cast; ints and bools requested of Python floats are cast too.
    """
    if dtype is not None:
        dtype = standardize_dtype(dtype)
    if not _is_tensor_like(x):
        if dtype == "bool" or (dtype is not None and is_int_dtype(dtype)):
            return constant_ops.cast(constant_ops.convert_to_tensor(x), dtype)
        return constant_ops.convert_to_tensor(x, dtype=dtype)
    if isinstance(x, Variable):
        x = x.value()
    elif type(x) is not Tensor:
        x = constant_ops.convert_to_tensor(x)
    if dtype is not None and x.dtype.name != dtype:
        return constant_ops.cast(x, dtype)
    return x


def np_dtype(dtype):
    """The numpy dtype of a Keras dtype name."""
    return tf_dtypes.as_dtype(dtype).as_numpy_dtype


def canonical_axis(axis, ndim):
    """`axis` made non-negative; ValueError outside [-ndim, ndim)."""
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % ndim if ndim else 0


def axis_tuple(axis):
    """`axis` as a tuple (None stays None)."""
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return tuple(int(a) for a in axis)
    return (int(axis),)


@export("keras.ops.convert_to_tensor")
@keras_op
def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """`x` as a tensor of `dtype` (tensors and variables of that dtype pass through)."""
    if dtype is not None:
        dtype = standardize_dtype(dtype)
    if _is_tensor_like(x) and (dtype is None or x.dtype.name == dtype):
        return x
    return convert(x, dtype)


@export("keras.ops.convert_to_numpy")
def convert_to_numpy(x):
    """`x` as a numpy array (KerasTensors have no value: TypeError)."""
    if isinstance(x, keras_tensor.KerasTensor):
        return x.numpy()
    if isinstance(x, SymbolicTensor):
        return np.array(x)  # TF's NotImplementedError: a graph tensor has no value to convert
    if _is_tensor_like(x):
        return np.array(x.numpy())
    return np.array(x)


@export("keras.ops.is_tensor")
def is_tensor(x):
    """Whether `x` is a backend tensor (a minitf Tensor or Variable)."""
    return constant_ops.is_tensor(x)


@export("keras.ops.shape")
def shape(x):
    """The shape of `x` as a tuple: ints where known, and, as Keras 3's TF backend, a scalar
    tensor of the runtime size for a dimension a traced graph value leaves unknown (None on a
    KerasTensor)."""
    if isinstance(x, keras_tensor.KerasTensor):
        return tuple(x.shape.as_list())
    if not _is_tensor_like(x):
        x = constant_ops.convert_to_tensor(x)
    dims = x.shape.as_list() if hasattr(x.shape, "as_list") else list(x.shape)
    if dims is None:
        raise ValueError(f"All tensors passed to `ops.shape` must have a statically known rank. "
                         f"Received: x={x} with unknown rank.")
    if any(d is None for d in dims):
        dynamic = shaping_ops.shape(x)
        return tuple(dynamic[i] if d is None else int(d) for i, d in enumerate(dims))
    return tuple(int(d) for d in dims)


@export("keras.ops.dtype")
def dtype(x):
    """The Keras dtype name of `x`."""
    return standardize_dtype(x.dtype)


@export("keras.ops.cast")
@keras_op
def cast(x, dtype):
    """`x` cast elementwise to `dtype`."""
    dtype = standardize_dtype(dtype)
    return constant_ops.cast(convert(x), dtype)


def _limits(name):
    if name == "bool":
        return 0, 1
    info = np.iinfo(name) if "int" in name else np.finfo(name)
    return info.min, info.max


@export("keras.ops.saturate_cast")
@keras_op
def saturate_cast(x, dtype):
    """`x` cast to `dtype`, clipped first to the range both dtypes can hold."""
    dtype = standardize_dtype(dtype)
    x = convert(x)
    in_dtype = x.dtype.name
    in_min, in_max = _limits(in_dtype)
    out_min, out_max = _limits(dtype)
    with np.errstate(over="ignore"):
        low = np.asarray(np.maximum(in_min, out_min)).astype(in_dtype)
        if low < out_min:
            low = np.nextafter(low, 0, dtype=in_dtype)
        high = np.asarray(np.minimum(in_max, out_max)).astype(in_dtype)
        if high > out_max:
            high = np.nextafter(high, 0, dtype=in_dtype)
    if in_dtype == "bool":
        x = constant_ops.cast(x, "int32")
        low, high = low.astype("int32"), high.astype("int32")
    x = math_ops.clip_by_value(x, constant_ops.constant(low, dtype=x.dtype), constant_ops.constant(high, dtype=x.dtype))
    return constant_ops.cast(x, dtype)


@export("keras.ops.stop_gradient")
@keras_op
def stop_gradient(variable):
    """`variable` with no gradient flowing back through it."""
    return constant_ops.stop_gradient(variable)


@export("keras.ops.unstack")
@keras_op
def unstack(x, num=None, axis=0):
    """The slices of `x` along `axis`, as a list."""
    return array_ops.unstack(convert(x), num=num, axis=axis)


@export("keras.ops.slice")
@keras_op
def slice(inputs, start_indices, shape):  # noqa: A001 (Keras' name)
    """The block of `inputs` starting at `start_indices` with size `shape` (-1: to the end)."""
    return array_ops.slice(inputs, start_indices, shape)


def _ints(values):
    return [int(v) for v in (values.numpy().reshape(-1) if _is_tensor_like(values) else values)]


@export("keras.ops.slice_update")
@keras_op
def slice_update(inputs, start_indices, updates):
    """`inputs` with the block at `start_indices` replaced by `updates`.

    As XLA's dynamic_update_slice, the start indices are clamped so the block fits.
    """
    inputs, updates = convert(inputs), convert(updates)
    starts = _ints(start_indices)
    in_shape, up_shape = list(inputs.shape), list(updates.shape)
    if len(starts) != len(in_shape) or len(up_shape) != len(in_shape):
        raise ValueError(f"slice_update: `start_indices` ({starts}) and `updates` (shape "
                         f"{up_shape}) must both have one entry per dimension of `inputs` "
                         f"(shape {in_shape}).")
    if any(u > d for u, d in zip(up_shape, in_shape)):
        raise ValueError(f"slice_update: `updates` of shape {up_shape} does not fit in `inputs` "
                         f"of shape {in_shape}.")
    starts = [min(max(s, 0), d - u) for s, d, u in zip(starts, in_shape, up_shape)]
    grids = np.meshgrid(*[np.arange(s, s + u) for s, u in zip(starts, up_shape)], indexing="ij")
    index = np.stack(grids, axis=-1).astype(np.int32) if grids else np.zeros((0,), np.int32)
    if updates.dtype != inputs.dtype:
        updates = constant_ops.cast(updates, inputs.dtype)
    return array_ops.tensor_scatter_nd_update(inputs, index, updates)


@export("keras.ops.scatter")
@keras_op
def scatter(indices, values, shape):
    """A zero tensor of `shape` with `values` added at `indices` (duplicates sum)."""
    return array_ops.scatter_nd(indices, values, shape)


def _scatter_mul(inputs, indices, updates):
    result = inputs
    for i in range(int(indices.shape[0])):
        idx = indices[i:i + 1]
        current = array_ops.gather_nd(result, idx)
        result = array_ops.tensor_scatter_nd_update(result, idx, current * updates[i:i + 1])
    return result


@export("keras.ops.scatter_update")
@keras_op
def scatter_update(inputs, indices, updates, reduction=None):
    """`inputs` with `updates` written at `indices`; `reduction` ('add', 'max', 'min', 'mul')
    combines them with the values there instead of replacing them."""
    if reduction is not None:
        reduction = reduction.lower()
        if reduction not in ("add", "max", "min", "mul"):
            raise ValueError(f"Invalid reduction: {reduction}. Supported values are: None, "
                             f"'add', 'max', 'min', 'mul'.")
    if reduction is None:
        return array_ops.tensor_scatter_nd_update(inputs, indices, updates)
    if reduction == "mul":
        inputs, updates = convert(inputs), convert(updates)
        return _scatter_mul(inputs, convert(indices), updates)
    fn = {"add": tensor_scatter_nd_add, "max": tensor_scatter_nd_max,
          "min": tensor_scatter_nd_min}[reduction]
    return fn(inputs, indices, updates)


def float_or_int_info(dtype):
    """numpy finfo/iinfo for a Keras dtype name."""
    if dtype in FLOAT_TYPES:
        return np.finfo(np_dtype(dtype))
    if dtype in INT_TYPES:
        return np.iinfo(dtype)
    raise ValueError(f"No numeric limits for dtype {dtype}")


def xp_of(x):
    """The array module of tensor `x`."""
    return array_module(x._value)
