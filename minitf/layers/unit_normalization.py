"""UnitNormalization: scales each example to unit L2 norm along the given axes."""
from minitf.layers.base import Layer
from minitf.layers.build_at_init import build_at_init
from minitf.ops import math as math_ops
from minitf.ops import math_unary
from minitf.ops import reduce as reduce_ops
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["UnitNormalization"]

_EPSILON = 1e-12


@export("layers.UnitNormalization", "keras.layers.UnitNormalization")
class UnitNormalization(Layer):
    """x / ||x||_2 along `axis` (an int or a list of ints), as Keras 3 computes it:
    x * min(rsqrt(sum(x^2)), 1 / 1e-12), so an all-zero slice stays zero (with gradient
    x's upstream gradient times 1e12, as in Keras). Masks pass through;
    the layer has no weights.
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(f"Invalid value for `axis` argument: expected an int or a "
                            f"list/tuple of ints. Received: axis={axis}")
        self.supports_masking = True
        build_at_init(self)

    def call(self, inputs):
        rank = inputs.shape.rank
        if rank == 0:  # Keras normalizes a scalar as a vector of one
            inputs = inputs[None]
        square_sum = reduce_ops.reduce_sum(math_unary.square(inputs), axis=self.axis, keepdims=True)
        # = min(rsqrt(sum), 1 / eps) for sums >= 0, without rsqrt's infinite slope at 0 (TF's
        # RsqrtGrad gives 0 for a zero upstream gradient there; minitf's would give nan)
        inv_norm = math_unary.rsqrt(math_ops.maximum(square_sum, _EPSILON * _EPSILON))
        return inputs * inv_norm

    def _check_axes(self, shape):
        for axis in (self.axis if isinstance(self.axis, list) else [self.axis]):
            if axis >= len(shape) or axis < -len(shape):
                raise ValueError(f"Axis {self.axis} is out of bounds for input shape "
                                 f"{tuple(shape)} (layer {self.name!r}).")

    def compute_output_shape(self, input_shape):
        """The input shape (after checking the axes fit it)."""
        shape = TensorShape(input_shape)
        self._check_axes(shape.as_list())
        return shape

    def get_config(self):
        """axis."""
        config = super().get_config()
        config.update({"axis": self.axis})
        return config
