"""PReLU: a leaky ReLU whose negative slope `alpha` is learned, per element or shared."""
from minitf import constraints
from minitf.initializers import initializers
from minitf.regularizers import regularizers
from minitf.layers import layer_utils
from minitf.layers.base import InputSpec, Layer
from minitf.ops import nn as nn_ops
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["PReLU"]


@export("layers.PReLU", "keras.layers.PReLU")
class PReLU(Layer):
    """Parametric ReLU: `x` for x >= 0 and `alpha * x` below, with `alpha` a trained weight.

    `alpha` has the input's shape without the batch axis; the axes in `shared_axes`
    (1-based, counting the batch as 0) get one value shared over the whole axis (e.g.
    shared_axes=[1, 2] for one slope per channel of an image). Masks pass through.

    Args:
        alpha_initializer: initializer of alpha (default zeros: a plain ReLU at first).
        alpha_regularizer, alpha_constraint: regularizer and constraint of alpha.
        shared_axes: an int or a list of ints.
    """

    def __init__(self, alpha_initializer="Zeros", alpha_regularizer=None, alpha_constraint=None,
                 shared_axes=None, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif not isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [shared_axes]
        else:
            self.shared_axes = list(shared_axes)

    def build(self, input_shape):
        """alpha of the input's per-example shape, with ones on the shared axes."""
        shape = TensorShape(input_shape).as_list()
        param_shape = list(shape[1:])
        for i in self.shared_axes or ():
            try:
                param_shape[i - 1] = 1  # as Keras indexes it (a negative axis counts from the end)
            except IndexError:
                raise IndexError(f"Layer {self.name!r}: shared axis {i} is out of range for inputs "
                                 f"of shape {tuple(shape)}; use axes 1..{len(shape) - 1}.") from None
        if any(d is None for d in param_shape):
            raise ValueError(f"Layer {self.name!r} needs every non-shared axis of its input "
                             f"defined to size alpha; got input shape {tuple(shape)}. Share the "
                             f"unknown axes with `shared_axes`.")
        self.alpha = self.add_weight(name="alpha", shape=param_shape,
                                     initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)
        axes = {i: shape[i] for i in range(1, len(shape)) if i not in (self.shared_axes or ())} \
            if self.shared_axes else {}
        self.input_spec = InputSpec(ndim=len(shape), axes=axes)
        self.built = True

    def call(self, inputs):
        # Keras' formula step by step: relu(x) - alpha * relu(-x)
        return nn_ops.relu(inputs) + (-self.alpha) * nn_ops.relu(-inputs)

    def compute_output_shape(self, input_shape):
        """The input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """The initializer, regularizer and constraint of alpha, and shared_axes."""
        config = super().get_config()
        config.update({"alpha_initializer": layer_utils.serialize(self.alpha_initializer, "initializers"),
                       "alpha_regularizer": layer_utils.serialize(self.alpha_regularizer, "regularizers"),
                       "alpha_constraint": layer_utils.serialize(self.alpha_constraint, "constraints"),
                       "shared_axes": self.shared_axes})
        return config
