"""The Dot merge layer and its functional form `dot`: batchwise dot products of two inputs."""
from minitf.keras_ops import legacy as keras_legacy
from minitf.keras_ops import nn_misc
from minitf.layers.base import Layer
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Dot", "dot"]


def _pair_of_shapes(layer, input_shape):
    if not isinstance(input_shape, (list, tuple)) or len(input_shape) != 2 or \
            not all(isinstance(s, (list, tuple, TensorShape)) for s in input_shape):
        raise ValueError(f"A `Dot` layer should be called on a list of 2 inputs. "
                         f"Received: input_shape={input_shape}")
    return [TensorShape(s).as_list() for s in input_shape]


@export("layers.Dot", "keras.layers.Dot")
class Dot(Layer):
    """The dot product of two inputs along one axis each, batch by batch (Keras' batch_dot).

    Inputs of shapes (b, 3, 5) and (b, 10, 3) with `axes=(1, 2)` give (b, 5, 10); a result of
    rank 1 becomes (b, 1).

    Args:
        axes: an int (the same axis of both inputs) or a pair of ints; axis 0 (the batch) is
            not allowed.
        normalize: if True, L2-normalize both inputs along their axes first, so the result is
            the cosine similarity.
    """

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError(f"Invalid type for argument `axes`: it should be a list or an int. "
                                f"Received: axes={axes}")
            if len(axes) != 2:
                raise ValueError(f"Invalid format for argument `axes`: it should contain two "
                                 f"elements. Received: axes={axes}")
            if not isinstance(axes[0], int) or not isinstance(axes[1], int):
                raise ValueError(f"Invalid format for argument `axes`: list elements should be "
                                 f"integers. Received: axes={axes}")
        self.axes = axes
        self.normalize = normalize
        self.supports_masking = True

    def _axes_for(self, rank1, rank2):
        if isinstance(self.axes, int):
            if self.axes < 0:
                return [self.axes % rank1, self.axes % rank2]
            return [self.axes] * 2
        return [a % r if a < 0 else a for a, r in zip(self.axes, (rank1, rank2))]

    def build(self, input_shape):
        shape1, shape2 = _pair_of_shapes(self, input_shape)
        axes = self._axes_for(len(shape1), len(shape2))
        if shape1[axes[0]] != shape2[axes[1]]:
            raise ValueError(f"Incompatible input shapes: axis values {shape1[axes[0]]} (at axis "
                             f"{axes[0]}) != {shape2[axes[1]]} (at axis {axes[1]}). Full input "
                             f"shapes: {tuple(shape1)}, {tuple(shape2)}")
        self.built = True

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
            raise ValueError(f"A `Dot` layer should be called on exactly 2 inputs. "
                             f"Received: inputs={inputs}")
        x1, x2 = inputs
        axes = self._axes_for(x1.shape.rank, x2.shape.rank)
        if self.normalize:
            x1 = nn_misc.normalize(x1, axis=axes[0])
            x2 = nn_misc.normalize(x2, axis=axes[1])
        return keras_legacy.batch_dot(x1, x2, axes)

    def compute_output_shape(self, input_shape):
        """Both shapes less their dot axes, the second less its batch axis too."""
        shape1, shape2 = _pair_of_shapes(self, input_shape)
        axes = self._axes_for(len(shape1), len(shape2))
        shape1.pop(axes[0])
        shape2.pop(axes[1])
        shape2.pop(0)
        out = shape1 + shape2
        if len(out) == 1:
            out += [1]
        return TensorShape(out)

    def compute_mask(self, inputs, mask=None):
        """None: the dot product keeps no mask."""
        return None

    def get_config(self):
        """axes and normalize."""
        config = super().get_config()
        config.update({"axes": self.axes, "normalize": self.normalize})
        return config


@export("layers.dot", "keras.layers.dot")
def dot(inputs, axes=-1, **kwargs):
    """Functional form of `Dot`: Dot(axes=axes, **kwargs)(inputs)."""
    return Dot(axes=axes, **kwargs)(inputs)
