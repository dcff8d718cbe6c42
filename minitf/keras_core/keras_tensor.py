"""KerasTensor: the symbolic placeholder (shape + dtype) that flows through the functional API.

This module sits below the layers (as Keras 3 keeps it in backend/common/keras_tensor.py):
it knows nothing about Layer. A layer called on KerasTensors records a `Node`
(minitf.keras_core.node) instead of computing; `Model(inputs, outputs)` walks those nodes back.

Python operators on a KerasTensor (`x + 1`, `x[:, 0]`) become calls of an operator layer.
That layer class (Lambda) lives above this module, so minitf.layers.core hands it over with
`set_operator_layer` when it loads; importing KerasTensor never imports the layers.
"""
from minitf.dtypes import dtypes
from minitf.nest import nest
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["KerasTensor", "is_keras_tensor", "any_symbolic", "set_operator_layer"]

_operator_layer = []  # [the layer class wrapping Python operators] once layers.core has loaded


def set_operator_layer(layer_class):
    """Use `layer_class(function)` for Python operators on KerasTensors.

    Args:
        layer_class: a Layer class taking a function of its inputs (minitf's Lambda).
    """
    _operator_layer[:] = [layer_class]


def is_keras_tensor(x):
    """Whether `x` is a symbolic KerasTensor."""
    return isinstance(x, KerasTensor)


def any_symbolic(structure):
    """Whether any leaf of a (nested) structure is a KerasTensor."""
    if isinstance(structure, KerasTensor):
        return True
    if isinstance(structure, (list, tuple, dict)):
        return any(isinstance(x, KerasTensor) for x in nest.flatten(structure))
    return False


@export("models.KerasTensor", "keras.models.KerasTensor")
class KerasTensor:
    """A symbolic tensor: `Input(...)` and layers called on symbolic tensors return these.

    It has no value, only a shape (batch dimension usually None), a dtype and a name, and
    remembers the node (layer call) that produced it, from which `Model(inputs, outputs)`
    recovers the graph.
    """

    __array_priority__ = 100
    _keras_mask = None  # a KerasTensor standing for the mask, set by minitf.layers.mask_propagation

    def __init__(self, shape, dtype="float32", name=None, node=None, index=0):
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name
        self._node = node
        self._index = index

    @property
    def shape(self):
        """The symbolic shape (a TensorShape; None for unknown dimensions)."""
        return self._shape

    def get_shape(self):
        """Alias of `shape`."""
        return self._shape

    @property
    def dtype(self):
        """The element type."""
        return self._dtype

    @property
    def name(self):
        """The name of the layer output this tensor stands for."""
        return self._name

    @property
    def ndim(self):
        """The rank."""
        return self._shape.rank

    @property
    def node(self):
        """The Node (layer call) that produced this tensor."""
        return self._node

    @property
    def _keras_history(self):
        return (self._node.layer if self._node else None, 0, self._index)

    def __hash__(self):
        return id(self)

    def __len__(self):
        raise TypeError("A KerasTensor is symbolic and has no length; use .shape instead.")

    def __iter__(self):
        raise TypeError(f"Iterating over a symbolic KerasTensor {self._name!r} is not allowed.")

    def __bool__(self):
        raise TypeError("A symbolic KerasTensor cannot be used as a Python bool.")

    def numpy(self):
        """Not available: a KerasTensor has no value."""
        raise TypeError(f"KerasTensor {self._name!r} is symbolic and has no value. Build a "
                        f"Model from it and call the model on data instead.")

    # Operators on symbolic tensors become Lambda-like layers, as in Keras' TFOpLambda.
    def _op(self, fn, *others):
        if not _operator_layer:
            raise TypeError("Python operators on a KerasTensor need minitf.layers loaded.")
        layer_class = _operator_layer[0]
        if others and any(isinstance(o, KerasTensor) for o in others):
            return layer_class(lambda xs: fn(*xs))([self, *others])
        return layer_class(lambda x: fn(x, *others))(self)

    def __add__(self, other):
        return self._op(lambda a, b: a + b, other)

    def __radd__(self, other):
        return self._op(lambda a, b: b + a, other)

    def __sub__(self, other):
        return self._op(lambda a, b: a - b, other)

    def __rsub__(self, other):
        return self._op(lambda a, b: b - a, other)

    def __mul__(self, other):
        return self._op(lambda a, b: a * b, other)

    def __rmul__(self, other):
        return self._op(lambda a, b: b * a, other)

    def __truediv__(self, other):
        return self._op(lambda a, b: a / b, other)

    def __neg__(self):
        return self._op(lambda a: -a)

    def __getitem__(self, key):
        return self._op(lambda a: a[key])

    def __repr__(self):
        shape = self._shape.as_list() if self._shape.rank is not None else None
        return (f"<KerasTensor: shape={shape} dtype={self._dtype.name} (created by layer "
                f"'{self._node.layer.name if self._node else None}')>")
