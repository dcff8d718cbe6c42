"""RMSNormalization: x * rsqrt(mean(x^2) + epsilon) * scale over the chosen axes."""
from minitf.keras_ops import nn_misc
from minitf.layers.base import Layer
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["RMSNormalization"]


@export("layers.RMSNormalization", "keras.layers.RMSNormalization")
class RMSNormalization(Layer):
    """Root-mean-square normalization (Zhang & Sennrich): divides by the root mean square over
    `axis` (no centring) and multiplies by a learned `scale` (initialized to ones).

    Args:
        axis: an int or a list of ints; `build` turns it into a sorted list, as Keras 3 does.
        epsilon: added to the mean square before the root.
    """

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = epsilon

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        if isinstance(self.axis, (list, tuple)):
            self.axis = sorted(self.axis)
            scale_shape = tuple(shape[d] for d in self.axis)
        else:
            scale_shape = (shape[self.axis],)
            self.axis = [self.axis]
        self.scale = self.add_weight(name="scale", shape=scale_shape, initializer="ones")
        self.built = True

    def call(self, x):
        return nn_misc.rms_normalization(x, scale=self.scale, axis=self.axis, epsilon=self.epsilon)

    def compute_output_shape(self, input_shape):
        """Same as the input shape; ValueError for an axis outside it."""
        axes = [self.axis] if isinstance(self.axis, int) else self.axis
        rank = len(TensorShape(input_shape))
        for axis in axes:
            if axis >= rank or axis < -rank:
                raise ValueError(f"Axis {axis} is out of bounds for input shape {input_shape}. "
                                 f"Received: axis={self.axis}")
        return TensorShape(input_shape)

    def get_config(self):
        """axis and epsilon."""
        config = super().get_config()
        config.update({"axis": self.axis, "epsilon": self.epsilon})
        return config
