"""Layers that return their inputs unchanged: Identity, ActivityRegularization."""
from minitf.layers.base import Layer
from minitf.layers.build_at_init import build_at_init
from minitf.regularizers import regularizers
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Identity", "ActivityRegularization"]


@export("layers.Identity", "keras.layers.Identity")
class Identity(Layer):
    """Returns its inputs as they are: a placeholder where a model needs a layer but no
    computation (any structure of tensors passes through, masks included)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        build_at_init(self)

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return input_shape


@export("layers.ActivityRegularization", "keras.layers.ActivityRegularization")
class ActivityRegularization(Layer):
    """Returns its inputs unchanged and adds l1 * sum(|x|) + l2 * sum(x^2), divided by the batch
    size, to the layer's losses on every call.

    Args:
        l1: the L1 factor (non-negative).
        l2: the L2 factor (non-negative).
    """

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.supports_masking = True
        self.l1 = l1
        self.l2 = l2
        build_at_init(self)

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """l1 and l2 (the regularizer they make is not part of the config)."""
        config = super().get_config()
        config.pop("activity_regularizer", None)
        config.update({"l1": self.l1, "l2": self.l2})
        return config
