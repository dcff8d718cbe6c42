"""tf.keras.activations: elementwise activation functions and lookup by name.

Every function takes a tensor (or anything convertible) and returns a tensor of the same shape,
differentiable through the tape. Formulas follow Keras 3 (the `tf.keras` of TF >= 2.16); where
Keras 2 differed, the docstring says so. `get` turns a name, a callable or None into a function.

As in Keras 3, inputs are not cast: relu and relu6 keep an integer dtype, and the activations
built on a floating-point kernel (sigmoid, elu, softmax, ...) reject integers with that kernel's
error. Only tanh, exponential and leaky_relu turn integers into float32, as TF's ops do.
"""
import math as _math

from minitf.errors import errors
from minitf._keras_objects import Registry
from minitf.convert import convert_to_tensor
from minitf.ops import array as array_ops
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.ops import nn as nn_ops
from minitf.ops import reduce as reduce_ops
from minitf.activations import ops_backed
from minitf.activations.ops_backed import (  # noqa: F401 (keras.activations' names are this module's too)
    celu, glu, hard_shrink, hard_tanh, log_sigmoid, soft_shrink, sparse_plus, sparse_sigmoid, sparsemax,
    squareplus, tanh_shrink, threshold)
from minitf.api_export import export

__all__ = ["relu", "sigmoid", "tanh", "softmax", "linear", "elu", "selu", "softplus", "softsign",
           "swish", "silu", "gelu", "leaky_relu", "exponential", "hard_sigmoid", "hard_silu",
           "hard_swish", "log_softmax", "relu6", "mish", "get", "serialize", "deserialize"]

# SELU's constants (Klambauer et al., 2017), the values Keras uses.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _float(x):
    """x as a tensor, integers cast to float32 (for the activations whose TF op does that)."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        x = constant_ops.cast(x, "float32")
    return x


_tensor = convert_to_tensor  # x as a tensor of its own dtype (Keras 3 converts without casting)


def _python_constant(value, x, what):
    """`value` in x's dtype; a fraction into an integer tensor is Keras 3's TypeError."""
    if not x.dtype.is_floating and float(value) != int(value):
        raise TypeError(f"Cannot convert {float(value)!r} to EagerTensor of dtype {x.dtype.name}: "
                        f"{what} needs a floating-point input; cast x with tf.cast(x, tf.float32)")
    return constant_ops.cast(value, x.dtype)


def _softmax_axes(x, axis, name):
    """A tuple `axis` checked against x's rank (Keras 3 raises ValueError), non-negative.
    A list is a TypeError, as in Keras 3."""
    if not isinstance(axis, tuple):
        raise TypeError(f"{name}: axis must be an int or a tuple of ints, got {type(axis).__name__} "
                        f"{axis!r}; pass tuple({axis!r})")
    ndim = x.shape.rank
    for a in axis:
        if not -ndim <= a < ndim:
            raise ValueError(f"{name}: axis {a} is out of bounds for an array with dimension "
                             f"{ndim}; use axes in [{-ndim}, {ndim})")
    return tuple(a % ndim for a in axis)


def _check_float(x, name, op_name):
    """Integer input raises TF's kernel error, as Keras 3 (which does not cast) does."""
    if not x.dtype.is_floating:
        raise errors.invalid_argument(op_name, f"{name} needs a floating-point tensor, got "
                                               f"{x.dtype.name}; cast it with tf.cast(x, tf.float32)")


def _scalar_on_last_axis(x, axis, op_name):
    """Keras 3 on a 0-d tensor with axis=-1: TF's kernel error, InvalidArgumentError for every
    float dtype (tf.nn.softmax's eager oneDNN kernel raises AbortedError instead)."""
    if axis == -1 and x.shape.rank == 0 and x.dtype.is_floating:
        raise errors.invalid_argument(op_name, "logits must have >= 1 dimension, got []; "
                                               "reshape it to [1] or apply it to a vector")


def _stable_shift(x, axis):
    """x minus its (constant) maximum along `axis`: softmax and log-softmax do not change."""
    return x - constant_ops.stop_gradient(reduce_ops.reduce_max(x, axis=axis, keepdims=True))


@export("activations.relu", "keras.activations.relu")
def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Rectified linear unit with Keras' options.

    Gives x above `threshold` (0 below), capped at `max_value` when given; with a non-zero
    `negative_slope`, values below the threshold become negative_slope * (x - threshold).
    Integer inputs keep their dtype (threshold and max_value are cast to it, as Keras 3 does);
    only negative_slope alone (a leaky relu) turns them into float32.
    """
    x = _tensor(x)
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return leaky_relu(x, negative_slope=negative_slope)
        slope = _python_constant(negative_slope, x, "relu(negative_slope=...)")
        negative_part = nn_ops.relu(constant_ops.cast(threshold, x.dtype) - x) if threshold != 0 \
            else nn_ops.relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        x = array_ops.where(x > constant_ops.cast(threshold, x.dtype), x, array_ops.zeros_like(x))
    elif max_value == 6:
        x = nn_ops.relu6(x)
        clip_max = False
    else:
        x = nn_ops.relu(x)
    if clip_max:
        x = math_ops.clip_by_value(x, constant_ops.cast(0.0, x.dtype),
                                   constant_ops.cast(max_value, x.dtype))
    if negative_slope != 0.0:
        x = x - slope * negative_part
    return x


@export("activations.relu6", "keras.activations.relu6")
def relu6(x):
    """min(max(x, 0), 6); integer inputs keep their dtype."""
    return nn_ops.relu6(_tensor(x))


@export("activations.leaky_relu", "keras.activations.leaky_relu")
def leaky_relu(x, negative_slope=0.2):
    """x for x >= 0, negative_slope * x otherwise (Keras 3's default slope is 0.2).

    Integer inputs become float32 (TF's leaky_relu casts them); booleans raise.
    """
    return nn_ops.leaky_relu(_tensor(x), alpha=negative_slope)


@export("activations.sigmoid", "keras.activations.sigmoid")
def sigmoid(x):
    """1 / (1 + exp(-x)); integer inputs raise InvalidArgumentError (TF's Sigmoid kernel)."""
    return math_ops.sigmoid(_tensor(x))


@export("activations.tanh", "keras.activations.tanh")
def tanh(x):
    """Hyperbolic tangent."""
    return math_ops.tanh(_float(x))


@export("activations.linear", "keras.activations.linear")
def linear(x):
    """The identity: returns x unchanged (the activation used when none is given)."""
    return x


@export("activations.exponential", "keras.activations.exponential")
def exponential(x):
    """exp(x)."""
    return math_ops.exp(_float(x))


@export("activations.softplus", "keras.activations.softplus")
def softplus(x):
    """log(exp(x) + 1), computed stably; integer inputs raise InvalidArgumentError."""
    return math_ops.softplus(_tensor(x))


@export("activations.softsign", "keras.activations.softsign")
def softsign(x):
    """x / (|x| + 1); integer inputs raise InvalidArgumentError (TF's Softsign kernel)."""
    return nn_ops.softsign(_tensor(x))


@export("activations.elu", "keras.activations.elu")
def elu(x, alpha=1.0):
    """x for x > 0, alpha * (exp(x) - 1) otherwise; integer inputs raise InvalidArgumentError."""
    x = _tensor(x)
    res = nn_ops.elu(x)
    if alpha == 1:
        return res
    # Keras 3's formula: elu(x) is exp(x) - 1 where x <= 0, so scale it there
    return array_ops.where(x > array_ops.zeros_like(x), res, alpha * res)


@export("activations.selu", "keras.activations.selu")
def selu(x):
    """Scaled ELU: scale * elu(x, alpha) with Klambauer et al.'s constants."""
    return nn_ops.selu(_tensor(x))


@export("activations.silu", "activations.swish", "keras.activations.silu",
        "keras.activations.swish")
def silu(x):
    """x * sigmoid(x) (also called swish); integer inputs raise InvalidArgumentError.

    Its __name__ is 'silu', so serialize() gives 'silu' for swish too, as Keras 3 does.
    """
    x = _tensor(x)
    return x * math_ops.sigmoid(x)


swish = silu


@export("activations.gelu", "keras.activations.gelu")
def gelu(x, approximate=False):
    """Gaussian error linear unit: x * Phi(x), exact (erf) or with the tanh approximation.

    Integer inputs raise ValueError, as TF's gelu does.
    """
    x = _tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"gelu: `features.dtype` must be a floating point tensor. Received: "
                         f"features.dtype={x.dtype.name}; cast it with tf.cast(x, tf.float32)")
    if approximate:
        c = _math.sqrt(2.0 / _math.pi)
        return 0.5 * x * (1.0 + math_ops.tanh(c * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1.0 + math_ops.erf(x * (1.0 / _math.sqrt(2.0))))


@export("activations.hard_sigmoid", "keras.activations.hard_sigmoid")
def hard_sigmoid(x):
    """Piecewise-linear sigmoid, Keras 3's formula relu6(x + 3) / 6.

    Keras 2 (tf.keras before TF 2.16) used clip(0.2 * x + 0.5, 0, 1) instead; minitf follows
    Keras 3, the Keras current TF ships. Integer inputs raise TypeError (Keras 3 builds the
    constant 3.0 in the input's dtype).
    """
    x = _tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"Cannot convert 3.0 to EagerTensor of dtype {x.dtype.name}: hard_sigmoid "
                        "needs a floating-point input; cast it with tf.cast(x, tf.float32)")
    return relu6(x + 3.0) / 6.0


@export("activations.hard_silu", "activations.hard_swish", "keras.activations.hard_silu",
        "keras.activations.hard_swish")
def hard_silu(x):
    """x * hard_sigmoid(x) (also called hard swish); integer inputs raise TypeError."""
    x = _tensor(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@export("activations.mish", "keras.activations.mish")
def mish(x):
    """x * tanh(softplus(x)); integer inputs raise InvalidArgumentError (TF's Softplus)."""
    x = _tensor(x)
    return x * math_ops.tanh(math_ops.softplus(x))


@export("activations.softmax", "keras.activations.softmax")
def softmax(x, axis=-1):
    """exp(x) normalized to sum to 1 along `axis` (an int, a tuple of ints, or None for all
    axes), computed without overflow. Integer inputs raise InvalidArgumentError."""
    x = _tensor(x)
    if isinstance(axis, int):
        _scalar_on_last_axis(x, axis, "Softmax")
        return nn_ops.softmax(x, axis=axis)
    _check_float(x, "softmax", "Softmax")
    if axis is not None:
        axis = _softmax_axes(x, axis, "softmax")
    e = math_ops.exp(_stable_shift(x, axis))
    return e / reduce_ops.reduce_sum(e, axis=axis, keepdims=True)


@export("activations.log_softmax", "keras.activations.log_softmax")
def log_softmax(x, axis=-1):
    """log(softmax(x)) along `axis` (an int, a tuple of ints, or None for all axes), computed
    stably. Integer inputs raise InvalidArgumentError."""
    x = _tensor(x)
    if isinstance(axis, int):
        _scalar_on_last_axis(x, axis, "LogSoftmax")
        return nn_ops.log_softmax(x, axis=axis)
    _check_float(x, "log_softmax", "LogSoftmax")
    if axis is not None:
        axis = _softmax_axes(x, axis, "log_softmax")
    shifted = _stable_shift(x, axis)
    return shifted - math_ops.log(reduce_ops.reduce_sum(math_ops.exp(shifted), axis=axis, keepdims=True))


ACTIVATIONS = Registry("activation function", "keras.activations", default=linear,
                       instantiate=False, functions_as_names=True)
for _name in __all__:
    if _name not in ("get", "serialize", "deserialize"):
        ACTIVATIONS.register(globals()[_name], name=_name)
for _name in ops_backed.__all__:  # Keras 3's activations that forward to keras.ops
    ACTIVATIONS.register(getattr(ops_backed, _name), name=_name)


@export("activations.serialize", "keras.activations.serialize")
def serialize(activation):
    """The config form of an activation, as `tf.keras.activations.serialize`.

    Args:
        activation: a built-in activation function, or an object with `get_config()`.

    Returns:
        The built-in's name ('relu'; an alias gives the function's own name, so `swish`
        is 'silu' as in Keras 3), or Keras 3's object dict.

    Raises:
        ValueError: for a function that is neither built in nor has `get_config()`.
    """
    return ACTIVATIONS.serialize(activation)


@export("activations.deserialize", "keras.activations.deserialize")
def deserialize(config, custom_objects=None):
    """The activation a name or a `serialize` dict stands for.

    Args:
        config: a name ('relu'), `{'class_name': 'function', 'config': 'relu'}` or an
            object dict.
        custom_objects: optional `{name: function or class}` searched first.

    Returns:
        The activation function (or a new object for a class dict).

    Raises:
        ValueError: when the name is unknown.
    """
    return ACTIVATIONS.deserialize(config, custom_objects)


@export("activations.get", "keras.activations.get")
def get(identifier):
    """An activation function from an identifier, as `tf.keras.activations.get`.

    Args:
        identifier: None (gives `linear`), a name, a serialized dict or a callable
            (returned as it is).

    Returns:
        The activation function.

    Raises:
        ValueError: when the identifier cannot be interpreted.
    """
    return ACTIVATIONS.get(identifier)
