"""tf.keras.activations: elementwise activation functions and lookup by name.

Every function takes a tensor (or anything convertible) and returns a tensor of the same shape,
differentiable through the tape. Formulas follow Keras 3 (the `tf.keras` of TF >= 2.16); where
Keras 2 differed, the docstring says so. `get` turns a name, a callable or None into a function.

As in Keras 3, inputs are not cast: relu and relu6 keep an integer dtype, and the activations
built on a floating-point kernel (sigmoid, elu, softmax, ...) reject integers with that kernel's
error. Only tanh, exponential and leaky_relu turn integers into float32, as TF's ops do.
"""
import math as _math

__all__ = ["relu", "sigmoid", "tanh", "softmax", "linear", "elu", "selu", "softplus", "softsign",
           "swish", "silu", "gelu", "leaky_relu", "exponential", "hard_sigmoid", "hard_silu",
           "hard_swish", "log_softmax", "relu6", "mish", "get", "serialize", "deserialize"]

# SELU's constants (Klambauer et al., 2017), the values Keras uses.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _tf():
    import minitf
    return minitf


def _nn_op(name):
    """tf.nn.<name> when that op exists, else None (activations then compose basic ops)."""
    return getattr(_tf().nn, name, None)


def _float(x):
    """x as a tensor, integers cast to float32 (for the activations whose TF op does that)."""
    tf = _tf()
    x = tf.convert_to_tensor(x)
    if not x.dtype.is_floating:
        x = tf.cast(x, tf.float32)
    return x


def _tensor(x):
    """x as a tensor of its own dtype (Keras 3 converts without casting)."""
    return _tf().convert_to_tensor(x)


def _python_constant(value, x, what):
    """`value` in x's dtype; a fraction into an integer tensor is Keras 3's TypeError."""
    if not x.dtype.is_floating and float(value) != int(value):
        raise TypeError(f"Cannot convert {float(value)!r} to EagerTensor of dtype {x.dtype.name}: "
                        f"{what} needs a floating-point input; cast x with tf.cast(x, tf.float32)")
    return _tf().cast(value, x.dtype)


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
        from minitf import errors
        raise errors.invalid_argument(op_name, f"{name} needs a floating-point tensor, got "
                                               f"{x.dtype.name}; cast it with tf.cast(x, tf.float32)")


def _plain_relu(x):
    op = _nn_op("relu")
    if op is not None:
        return op(x)
    return _tf().maximum(x, 0.0)


def _stable_shift(x, axis):
    """x minus its (constant) maximum along `axis`: softmax and log-softmax do not change."""
    from minitf.backend import array_module
    from minitf.tensor import Tensor
    xp = array_module(x._value)
    return x - Tensor(xp.max(x._value, axis=axis, keepdims=True))


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Rectified linear unit with Keras' options.

    Gives x above `threshold` (0 below), capped at `max_value` when given; with a non-zero
    `negative_slope`, values below the threshold become negative_slope * (x - threshold).
    Integer inputs keep their dtype (threshold and max_value are cast to it, as Keras 3 does);
    only negative_slope alone (a leaky relu) turns them into float32.
    """
    tf = _tf()
    x = _tensor(x)
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return leaky_relu(x, negative_slope=negative_slope)
        slope = _python_constant(negative_slope, x, "relu(negative_slope=...)")
        negative_part = _plain_relu(tf.cast(threshold, x.dtype) - x) if threshold != 0 \
            else _plain_relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        x = tf.where(tf.greater(x, tf.cast(threshold, x.dtype)), x, tf.zeros_like(x))
    elif max_value == 6:
        x = _tf().nn.relu6(x)
        clip_max = False
    else:
        x = _plain_relu(x)
    if clip_max:
        x = tf.clip_by_value(x, tf.cast(0.0, x.dtype), tf.cast(max_value, x.dtype))
    if negative_slope != 0.0:
        x = x - slope * negative_part
    return x


def relu6(x):
    """min(max(x, 0), 6); integer inputs keep their dtype."""
    return _tf().nn.relu6(_tensor(x))


def leaky_relu(x, negative_slope=0.2):
    """x for x >= 0, negative_slope * x otherwise (Keras 3's default slope is 0.2).

    Integer inputs become float32 (TF's leaky_relu casts them); booleans raise.
    """
    tf = _tf()
    x = _tensor(x)
    op = _nn_op("leaky_relu")
    if op is not None:
        return op(x, alpha=negative_slope)
    return tf.where(tf.greater_equal(x, 0.0), x, x * negative_slope)


def sigmoid(x):
    """1 / (1 + exp(-x)); integer inputs raise InvalidArgumentError (TF's Sigmoid kernel)."""
    return _tf().sigmoid(_tensor(x))


def tanh(x):
    """Hyperbolic tangent."""
    return _tf().tanh(_float(x))


def linear(x):
    """The identity: returns x unchanged (the activation used when none is given)."""
    return x


def exponential(x):
    """exp(x)."""
    return _tf().exp(_float(x))


def softplus(x):
    """log(exp(x) + 1), computed stably; integer inputs raise InvalidArgumentError."""
    return _tf().math.softplus(_tensor(x))


def softsign(x):
    """x / (|x| + 1); integer inputs raise InvalidArgumentError (TF's Softsign kernel)."""
    return _tf().nn.softsign(_tensor(x))


def elu(x, alpha=1.0):
    """x for x > 0, alpha * (exp(x) - 1) otherwise; integer inputs raise InvalidArgumentError."""
    tf = _tf()
    x = _tensor(x)
    res = tf.nn.elu(x)
    if alpha == 1:
        return res
    # Keras 3's formula: elu(x) is exp(x) - 1 where x <= 0, so scale it there
    return tf.where(tf.greater(x, tf.zeros_like(x)), res, alpha * res)


def selu(x):
    """Scaled ELU: scale * elu(x, alpha) with Klambauer et al.'s constants."""
    return _tf().nn.selu(_tensor(x))


def silu(x):
    """x * sigmoid(x) (also called swish); integer inputs raise InvalidArgumentError.

    Its __name__ is 'silu', so serialize() gives 'silu' for swish too, as Keras 3 does.
    """
    x = _tensor(x)
    return x * _tf().sigmoid(x)


swish = silu


def gelu(x, approximate=False):
    """Gaussian error linear unit: x * Phi(x), exact (erf) or with the tanh approximation.

    Integer inputs raise ValueError, as TF's gelu does.
    """
    tf = _tf()
    x = _tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"gelu: `features.dtype` must be a floating point tensor. Received: "
                         f"features.dtype={x.dtype.name}; cast it with tf.cast(x, tf.float32)")
    if approximate:
        c = _math.sqrt(2.0 / _math.pi)
        return 0.5 * x * (1.0 + tf.tanh(c * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1.0 + tf.math.erf(x * (1.0 / _math.sqrt(2.0))))


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


def hard_silu(x):
    """x * hard_sigmoid(x) (also called hard swish); integer inputs raise TypeError."""
    x = _tensor(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def mish(x):
    """x * tanh(softplus(x)); integer inputs raise InvalidArgumentError (TF's Softplus)."""
    tf = _tf()
    x = _tensor(x)
    return x * tf.tanh(tf.math.softplus(x))


def softmax(x, axis=-1):
    """exp(x) normalized to sum to 1 along `axis` (an int, a tuple of ints, or None for all
    axes), computed without overflow. Integer inputs raise InvalidArgumentError."""
    tf = _tf()
    x = _tensor(x)
    op = _nn_op("softmax")
    if op is not None and isinstance(axis, int):
        return op(x, axis=axis)
    _check_float(x, "softmax", "Softmax")
    if axis is not None:
        axis = _softmax_axes(x, axis, "softmax")
    e = tf.exp(_stable_shift(x, axis))
    return e / tf.reduce_sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    """log(softmax(x)) along `axis` (an int, a tuple of ints, or None for all axes), computed
    stably. Integer inputs raise InvalidArgumentError."""
    tf = _tf()
    x = _tensor(x)
    op = _nn_op("log_softmax")
    if op is not None and isinstance(axis, int):
        return op(x, axis=axis)
    _check_float(x, "log_softmax", "LogSoftmax")
    if axis is not None:
        axis = _softmax_axes(x, axis, "log_softmax")
    shifted = _stable_shift(x, axis)
    return shifted - tf.math.log(tf.reduce_sum(tf.exp(shifted), axis=axis, keepdims=True))


_BY_NAME = {name: globals()[name] for name in __all__
            if name not in ("get", "serialize", "deserialize")}


def serialize(activation):
    """The name of a built-in activation, or {'class_name', 'config'} for an object with get_config."""
    name = getattr(activation, "__name__", None)
    if name in _BY_NAME and _BY_NAME[name] is activation:
        return name
    for key, fn in _BY_NAME.items():
        if fn is activation:
            return key
    if hasattr(activation, "get_config"):
        return {"class_name": type(activation).__name__, "config": activation.get_config()}
    raise ValueError(f"Cannot serialize activation {activation!r}: it is not a built-in activation "
                     "and has no get_config(); pass a built-in name such as 'relu'.")


def deserialize(config, custom_objects=None):
    """The activation function named by `config` (a string, or a dict from `serialize`)."""
    if isinstance(config, dict):
        name = config.get("class_name")
        inner = config.get("config")
        if name == "function" and isinstance(inner, str):
            name = inner
        cls = (custom_objects or {}).get(name)
        if cls is not None and isinstance(cls, type):
            return cls(**(inner or {}))
        config = name
    if custom_objects and config in custom_objects:
        return custom_objects[config]
    if isinstance(config, str) and config in _BY_NAME:
        return _BY_NAME[config]
    raise ValueError(f"Unknown activation function: {config!r}. Use one of {sorted(_BY_NAME)} "
                     "or pass a callable.")


def get(identifier):
    """An activation function from None (linear), a name, a serialized dict or a callable."""
    if identifier is None:
        return linear
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier!r}")
