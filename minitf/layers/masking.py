"""Masking: marks the time steps whose features all equal `mask_value` as padding."""
from minitf.layers import keras_ops  # noqa: F401 -- registers the mask op nodes Keras 3 saves in graphs
from minitf.layers.base import Layer
from minitf.layers.build_at_init import build_at_init
from minitf.layers.mask_propagation import set_keras_mask
from minitf.ops import compare as compare_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops import shaping as shaping_ops
from minitf.ops.constant import cast
from minitf.api_export import export

__all__ = ["Masking"]


@export("layers.Masking", "keras.layers.Masking")
class Masking(Layer):
    """Masks the steps of a sequence whose features all equal `mask_value`.

    For input of shape (batch, steps, features), a step is kept when any of its features
    differs from `mask_value`; masked steps are set to zero in the output, and the output
    carries the (batch, steps) boolean mask, which masking-aware layers downstream (the
    recurrent layers) use to skip those steps.

    Args:
        mask_value: the padding value (default 0.0).
        **kwargs: the base Layer's arguments (name, dtype, input_shape ...).
    """

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True
        build_at_init(self)

    def compute_mask(self, inputs, mask=None):
        """True for the steps with any feature different from `mask_value`."""
        return reduce_ops.reduce_any(compare_ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = reduce_ops.reduce_any(compare_ops.not_equal(inputs, self.mask_value), axis=-1,
                                     keepdims=True)
        outputs = inputs * cast(keep, inputs.dtype)
        set_keras_mask(outputs, shaping_ops.squeeze(keep, axis=-1))
        return outputs

    def compute_output_shape(self, input_shape):
        """The input's shape."""
        return input_shape

    def get_config(self):
        """The base config plus mask_value."""
        config = super().get_config()
        config["mask_value"] = self.mask_value
        return config
