"""GroupNormalization (Keras 3): normalization over groups of channels of each example."""
from minitf import constraints
from minitf.initializers import initializers
from minitf.regularizers import regularizers
from minitf.convert import convert_to_tensor
from minitf.layers import layer_utils
from minitf.layers.base import InputSpec, Layer
from minitf.ops import array as array_ops
from minitf.ops import math as math_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.constant import cast
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["GroupNormalization"]


@export("layers.GroupNormalization", "keras.layers.GroupNormalization")
class GroupNormalization(Layer):
    """Splits the channels (`axis`) into `groups` groups and normalizes each group of each
    example by its own mean and variance, then scales by `gamma` and shifts by `beta` (one per
    channel). `groups=1` is layer normalization over all non-batch axes, `groups=-1` (one
    channel per group) instance normalization.

    Example:

    ```python
    gn = tf.keras.layers.GroupNormalization(groups=4)
    y = gn(tf.random.normal((2, 8, 8, 16)))   # 4 groups of 4 channels
    ```

    Args:
        groups: the number of groups (a positive divisor of the channel count), or -1.
        axis: the channel axis (default the last).
        epsilon: added to the variance.
        center, scale: whether to learn `beta` / `gamma`.
        beta_initializer, gamma_initializer, beta_regularizer, gamma_regularizer,
        beta_constraint, gamma_constraint: for the two weights.
        **kwargs: the Layer arguments.

    Raises:
        ValueError: `groups` not a positive int (or -1); (when building) an unknown channel
            count, or one that `groups` does not divide.
    """

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        if not isinstance(groups, int) or isinstance(groups, bool) or (groups <= 0 and groups != -1):
            raise ValueError(f"Received an invalid value for argument `groups`, expected a positive integer "
                             f"(or `-1` for instance normalization). Received: groups={groups}")
        super().__init__(**kwargs)
        self.groups = groups
        self.axis = axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self._autocast = False  # as Keras: statistics in at least float32, whatever the input

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        rank = shape.rank
        if not isinstance(self.axis, int) or not -rank <= self.axis < rank:
            raise ValueError(f"GroupNormalization {self.name!r}: axis {self.axis} is out of bounds for input "
                             f"shape {shape}; give an int axis in [{-rank}, {rank}).")
        dim = shape[self.axis]
        if dim is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                             f"received an input with shape {shape}.")
        if self.groups == -1:
            self.groups = dim
        if dim < self.groups:
            raise ValueError(f"Number of groups ({self.groups}) cannot be more than the number of channels "
                             f"({dim}).")
        if dim % self.groups != 0:
            raise ValueError(f"Number of groups ({self.groups}) must be a multiple of the number of channels "
                             f"({dim}).")
        self.input_spec = InputSpec(ndim=rank, axes={self.axis: dim})
        # gamma first, as Keras creates them (the weight files depend on the order)
        self.gamma = self.add_weight("gamma", (dim,), initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint) if self.scale else None
        self.beta = self.add_weight("beta", (dim,), initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint) if self.center else None
        self.built = True

    def call(self, inputs):
        original = inputs.dtype
        x = inputs
        if not x.dtype.is_floating or x.dtype.size < 4:  # float16 statistics overflow: use float32
            x = cast(x, "float32")
        shape = x.shape.as_list()
        rank = len(shape)
        axis = self.axis % rank
        # [..., C, ...] -> [..., groups, C / groups, ...]; the statistics cover all but batch and groups
        grouped_shape = [-1] + shape[1:axis] + [self.groups, shape[axis] // self.groups] + shape[axis + 1:]
        grouped = array_ops.reshape(x, grouped_shape)
        reduce_axes = [a for a in range(1, rank + 1) if a != axis]
        mean = reduce_ops.reduce_mean(grouped, axis=reduce_axes, keepdims=True)
        variance = reduce_ops.reduce_mean(math_ops.square(grouped - mean), axis=reduce_axes, keepdims=True)
        param_shape = [1] * (rank + 1)
        param_shape[axis], param_shape[axis + 1] = self.groups, shape[axis] // self.groups
        # Keras' arrangement: x * inv + (beta - mean * inv), inv = gamma / sqrt(var + eps)
        inv = math_ops.rsqrt(variance + convert_to_tensor(self.epsilon, dtype=x.dtype))
        if self.gamma is not None:
            inv = inv * array_ops.reshape(cast(self.gamma, x.dtype), param_shape)
        res = -mean * inv
        if self.beta is not None:
            res = res + array_ops.reshape(cast(self.beta, x.dtype), param_shape)
        out = array_ops.reshape(grouped * inv + res, [-1] + shape[1:])
        if out.dtype != original:
            out = cast(out, original)
        return cast(out, self.compute_dtype) if out.dtype != self.compute_dtype else out

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """groups, axis, epsilon, center, scale, the initializers, regularizers, constraints."""
        config = super().get_config()
        config.update({
            "groups": self.groups, "axis": self.axis, "epsilon": self.epsilon, "center": self.center,
            "scale": self.scale, **layer_utils.weight_options_config(self, "beta", "gamma"),
        })
        return config
