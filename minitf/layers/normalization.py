"""BatchNormalization and LayerNormalization."""
import warnings

from minitf import constraints
from minitf.initializers import initializers
from minitf.regularizers import regularizers
from minitf import dispatch
from minitf.distribute.strategy import get_replica_context
from minitf.layers import layer_utils
from minitf.layers.base import InputSpec, Layer
from minitf.ops import array as array_ops
from minitf.ops import math as math_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.constant import cast, stop_gradient
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["BatchNormalization", "LayerNormalization"]


def _axes_list(axis, rank, name):
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        if not -rank <= a < rank:
            # IndexError, as Keras 3 (which indexes the input shape with the axis unchecked)
            raise IndexError(f"Layer {name!r}: axis {a} is out of range for an input of rank "
                             f"{rank}; use an axis in [{-rank}, {rank}).")
        out.append(a % rank)
    return sorted(out)


def _batch_norm_numbers(axis, momentum, epsilon):
    """Keras 3's int(axis), float(momentum) and float(epsilon), their errors naming the argument."""
    out = []
    for label, value, kind in (("axis", axis, int), ("momentum", momentum, float), ("epsilon", epsilon, float)):
        try:
            out.append(kind(value))
        except (TypeError, ValueError) as e:
            raise type(e)(f"BatchNormalization: argument `{label}` must be {'an int' if kind is int else 'a float'}"
                          f", got {value!r}") from None
    return out


def _synchronized_moments(inputs, axes):
    """Keras' synchronized batch statistics: the mean and variance over the batches of every
    replica in sync, from one all-reduce of the sums, the sums of squares and the counts
    (var = E[x^2] - E[x]^2, floored at 0); gradients flow through the all-reduce. In
    cross-replica context, this batch's own statistics."""
    context = get_replica_context()
    if context is None:
        mean = reduce_ops.reduce_mean(inputs, axis=axes, keepdims=True)
        return mean, reduce_ops.reduce_mean(math_ops.square(inputs - mean), axis=axes, keepdims=True)
    local = [reduce_ops.reduce_sum(inputs, axis=axes, keepdims=True),
             reduce_ops.reduce_sum(math_ops.square(inputs), axis=axes, keepdims=True),
             reduce_ops.reduce_sum(array_ops.ones_like(inputs), axis=axes, keepdims=True)]
    total, total_squares, count = context.all_reduce("SUM", local)
    mean = math_ops.divide_no_nan(total, count)
    variance = math_ops.maximum(math_ops.divide_no_nan(total_squares, count) - math_ops.square(mean), 0.0)
    return mean, variance


def _normalize(x, mean, variance, offset, scale, epsilon):
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, in the order Keras 3 computes it
    (tf.nn.batch_normalization): x * inv + (offset - mean * inv) with inv = rsqrt(variance +
    epsilon) * scale, so one pass over x fewer than subtracting the mean first."""
    inv = math_ops.rsqrt(variance + epsilon)
    if scale is not None:
        inv = inv * scale
    shift = offset - mean * inv if offset is not None else -(mean * inv)
    return x * inv + shift


@export("layers.BatchNormalization", "keras.layers.BatchNormalization")
class BatchNormalization(Layer):
    """Normalizes with batch statistics when training and moving statistics at inference.

    Training (`training=True` on a trainable layer) uses the batch mean and (biased)
    variance over every axis but `axis`, and updates
    `moving = moving * momentum + batch * (1 - momentum)`. Otherwise, and always when the
    layer is frozen (`trainable=False`, as in Keras 2.x/3), it uses the moving statistics.

    Under a tf.distribute strategy each replica normalizes with its own batch's statistics;
    `synchronized=True` uses the statistics of every replica's batch together (one all-reduce
    per call, which every replica must make), as Keras 3 does with TensorFlow.
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, synchronized=False, **kwargs):
        if kwargs.pop("renorm", False):
            raise NotImplementedError("BatchNormalization(renorm=True) (batch renormalization) is not available "
                                      "in minitf; use renorm=False (the default).")
        for key in ("fused", "virtual_batch_size", "adjustment", "renorm_clipping", "renorm_momentum"):
            kwargs.pop(key, None)  # Keras 2/3 options without effect here (renorm is off)
        super().__init__(**kwargs)
        self.axis, self.momentum, self.epsilon = _batch_norm_numbers(axis, momentum, epsilon)
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.synchronized = synchronized

    def _check_inputs(self, inputs):
        if inputs is None:  # Keras 3 builds from the shape of None: a TypeError
            raise TypeError(f"BatchNormalization {self.name!r}: inputs=None has no shape; pass a tensor")
        super()._check_inputs(inputs)

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        rank = shape.rank
        self._axes = _axes_list(self.axis, rank, self.name)
        param_shape = [shape[a] for a in self._axes]
        if any(d is None for d in param_shape):
            raise ValueError(f"Layer {self.name!r}: axis {self.axis} of input shape {shape} "
                             f"must be defined.")
        self._reduction_axes = [a for a in range(rank) if a not in self._axes]
        param_shape = tuple(param_shape)
        self.gamma = self.add_weight("gamma", param_shape, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint) if self.scale else None
        self.beta = self.add_weight("beta", param_shape, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint) if self.center else None
        self.moving_mean = self.add_weight("moving_mean", param_shape, trainable=False,
                                           initializer=self.moving_mean_initializer)
        self.moving_variance = self.add_weight("moving_variance", param_shape, trainable=False,
                                               initializer=self.moving_variance_initializer)
        self.input_spec = InputSpec(ndim=rank, axes={a: shape[a] for a in self._axes})
        self.built = True

    def _broadcast(self, v, rank):
        """A parameter of shape param_shape, reshaped to broadcast against the input."""
        if v is None:
            return None
        if self._axes == [rank - 1]:
            return v
        shape = [1] * rank
        for a in self._axes:
            shape[a] = -1 if len(self._axes) == 1 else int(v.shape[self._axes.index(a)])
        return array_ops.reshape(v, shape)

    def call(self, inputs, training=None):
        inputs = layer_utils.as_floating(inputs, self.compute_dtype)  # Keras casts int inputs
        rank = inputs.shape.rank
        dtype = inputs.dtype
        gamma = None if self.gamma is None else cast(self.gamma, dtype)
        beta = None if self.beta is None else cast(self.beta, dtype)
        gamma, beta = self._broadcast(gamma, rank), self._broadcast(beta, rank)
        if bool(training) and self.trainable and self.synchronized:
            mean, variance = _synchronized_moments(inputs, self._reduction_axes)
            self._update_moving(mean, variance)
            return _normalize(inputs, mean, variance, beta, gamma, self.epsilon)
        if bool(training) and self.trainable:
            mean = reduce_ops.reduce_mean(inputs, axis=self._reduction_axes, keepdims=True)
            variance = reduce_ops.reduce_mean(math_ops.square(inputs - mean),
                                      axis=self._reduction_axes, keepdims=True)
            self._update_moving(mean, variance)
            return _normalize(inputs, mean, variance, beta, gamma, self.epsilon)
        mean = self._broadcast(cast(self.moving_mean, dtype), rank)
        variance = self._broadcast(cast(self.moving_variance, dtype), rank)
        return _normalize(inputs, mean, variance, beta, gamma, self.epsilon)

    @dispatch.stateful_op(abstract=dispatch.returns_none)
    def _update_moving(self, mean, variance):
        """moving -= (moving - batch) * (1 - momentum); not recorded on any tape (traced: a node
        updating the moving statistics each time the graph runs)."""
        decay = 1.0 - self.momentum
        for moving, batch in ((self.moving_mean, mean), (self.moving_variance, variance)):
            value = cast(array_ops.reshape(stop_gradient(batch), moving.shape.as_list()),
                            moving.dtype)._value
            moving.assign(moving._value - (moving._value - value) * decay)

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """axis, momentum, epsilon, center, scale, the initializers, regularizers, constraints."""
        config = super().get_config()
        config.update({"axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon,
                       "center": self.center, "scale": self.scale,
                       **layer_utils.weight_options_config(self, "beta", "gamma"),
                       "moving_mean_initializer": layer_utils.serialize(self.moving_mean_initializer, "initializers"),
                       "moving_variance_initializer": layer_utils.serialize(self.moving_variance_initializer,
                                                                  "initializers"),
                       "synchronized": self.synchronized})
        return config


@export("layers.LayerNormalization", "keras.layers.LayerNormalization")
class LayerNormalization(Layer):
    """Normalizes each example over `axis` (default the last), then scales and shifts."""

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None,
                 beta_constraint=None, gamma_constraint=None, **kwargs):
        rms_scaling = bool(kwargs.pop("rms_scaling", False))
        if rms_scaling:
            warnings.warn("LayerNormalization(rms_scaling=True) is deprecated in Keras 3: it scales the inputs by "
                          "their variance, not their root mean square (kept as Keras computes it).", stacklevel=2)
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = float(epsilon)
        self.center = center
        self.scale = scale
        self.rms_scaling = rms_scaling
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self._autocast = False

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        self._axes = _axes_list(self.axis, shape.rank, self.name)
        param_shape = tuple(shape[a] for a in self._axes)
        self.gamma = self.add_weight("gamma", param_shape, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint) if self.scale or self.rms_scaling else None
        self.beta = self.add_weight("beta", param_shape, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint) if self.center and not self.rms_scaling else None
        self.built = True

    def _broadcast(self, v, rank, dtype):
        if v is None:
            return None
        shape = [1] * rank
        for i, a in enumerate(self._axes):
            shape[a] = int(v.shape[i])
        return array_ops.reshape(cast(v, dtype), shape)

    def call(self, inputs):
        original = inputs.dtype
        # Keras 3 does not autocast LayerNormalization inputs: layer_normalization computes in
        # at least float32 (float64 stays), casts the result back to the input's dtype
        # (integers truncate, float16 rounds), then the layer casts to its compute dtype
        if not original.is_floating or original.size < 4:
            inputs = cast(inputs, "float32")
        rank = inputs.shape.rank
        mean = reduce_ops.reduce_mean(inputs, axis=self._axes, keepdims=True)
        variance = reduce_ops.reduce_mean(math_ops.square(inputs - mean), axis=self._axes, keepdims=True)
        if self.rms_scaling:  # Keras' deprecated form: divides by the variance's root, no centring
            out = inputs * math_ops.rsqrt(variance + self.epsilon) * self._broadcast(self.gamma, rank, inputs.dtype)
        else:
            out = _normalize(inputs, mean, variance, self._broadcast(self.beta, rank, inputs.dtype),
                             self._broadcast(self.gamma, rank, inputs.dtype), self.epsilon)
        if out.dtype != original:
            out = cast(out, original)
        return cast(out, self.compute_dtype) if out.dtype != self.compute_dtype else out

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """axis, epsilon, center, scale, rms_scaling, the initializers, regularizers, constraints."""
        config = super().get_config()
        config.update({"axis": self.axis, "epsilon": self.epsilon, "center": self.center,
                       "scale": self.scale, "rms_scaling": self.rms_scaling,
                       **layer_utils.weight_options_config(self, "beta", "gamma")})
        return config
