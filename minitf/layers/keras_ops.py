"""The Keras 3 operations that appear as nodes of saved functional models because of masks.

Keras 3 computes a symbolic mask with ops on KerasTensors, so a functional model with
`Embedding(mask_zero=True)` or `Masking` saves `NotEqual` (and `Any`) nodes from
'keras.src.ops.numpy' next to its layers, and passes their outputs to later layers as `mask=`.
These layer classes let minitf rebuild such graphs; minitf itself propagates masks without
recording them as nodes.
"""
from minitf.layers.base import Layer
from minitf.ops import compare as compare_ops
from minitf.ops import reduce as reduce_ops

__all__ = ["NotEqual", "Any"]


class NotEqual(Layer):
    """`x != y` elementwise (Keras' ops.not_equal as a graph node)."""

    def __init__(self, name=None, **kwargs):
        kwargs.pop("trainable", None)
        kwargs.pop("dtype", None)
        super().__init__(name=name, **kwargs)
        self._autocast = False

    def call(self, x, y=0):
        """The boolean result of x != y (`x` may be the pair [x, y], as rebuilt graphs pass it)."""
        if isinstance(x, (list, tuple)):
            x, y = x
        return compare_ops.not_equal(x, y)

    def get_config(self):
        """Just the name, as Keras writes it."""
        return {"name": self.name}


class Any(Layer):
    """Logical OR over `axis` (Keras' ops.any as a graph node)."""

    def __init__(self, axis=None, keepdims=False, name=None, **kwargs):
        kwargs.pop("trainable", None)
        kwargs.pop("dtype", None)
        super().__init__(name=name, **kwargs)
        self.axis = axis
        self.keepdims = keepdims
        self._autocast = False

    def call(self, x):
        """Whether any entry along `axis` is true."""
        return reduce_ops.reduce_any(x, axis=self.axis, keepdims=self.keepdims)

    def get_config(self):
        """name, axis and keepdims, as Keras writes them."""
        return {"name": self.name, "axis": self.axis, "keepdims": self.keepdims}
