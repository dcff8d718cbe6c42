"""ThresholdedReLU, as TF 2.21 exports it (Keras 3's deprecated legacy class)."""
from minitf.convert import convert_to_tensor
from minitf.layers.base import Layer
from minitf.ops import compare as compare_ops
from minitf.ops.constant import cast
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["ThresholdedReLU"]


@export("layers.ThresholdedReLU", "keras.layers.ThresholdedReLU")
class ThresholdedReLU(Layer):
    """x where x > theta, else 0 (deprecated in Keras 3: use ReLU(threshold=...) for new code).

    Args:
        theta: the threshold, a non-negative float.
    """
    _keras_module = "keras._legacy.layers"

    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        if theta is None:
            raise ValueError(f"Theta of a Thresholded ReLU layer cannot be None, expecting a float. "
                             f"Received: {theta}")
        if theta < 0:
            raise ValueError(f"The theta value of a Thresholded ReLU layer should be >=0. "
                             f"Received: {theta}")
        self.supports_masking = True
        self.theta = convert_to_tensor(theta, dtype=self.compute_dtype)

    def call(self, inputs):
        return inputs * cast(compare_ops.greater(inputs, self.theta), self.compute_dtype)

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """theta as a Python float."""
        config = super().get_config()
        config["theta"] = float(self.theta)
        return config
