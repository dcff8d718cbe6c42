"""tf.keras.regularizers: penalties on a weight tensor, added to a layer's losses.

`reg(weight)` returns a scalar tensor, differentiable through the tape.
"""

__all__ = ["Regularizer", "L1", "L2", "L1L2", "OrthogonalRegularizer", "l1", "l2", "l1_l2",
           "get", "serialize", "deserialize"]

import numpy as np

from minitf._keras_objects import Registry
from minitf.convert import convert_to_tensor
from minitf.ops import array as array_ops
from minitf.ops import constant as constant_ops
from minitf.ops import linalg as linalg_ops
from minitf.ops import math as math_ops
from minitf.ops import reduce as reduce_ops
from minitf.api_export import export

REGULARIZERS = Registry("regularizer", "keras.regularizers")


def _checked(value, name, who):
    value = float(value if value is not None else 0.0)
    if value != value or value < 0:
        raise ValueError(f"{who}: {name} must be a non-negative number, got {value}.")
    return value


@export("regularizers.Regularizer", "keras.regularizers.Regularizer")
class Regularizer:
    """Base class: subclasses implement `__call__(x)` -> scalar and `get_config()`."""

    def __call__(self, x):
        return constant_ops.constant(0.0)

    def get_config(self):
        """The constructor arguments as a dict."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_config().")

    @classmethod
    def from_config(cls, config):
        """A new regularizer from the dict `get_config` produced."""
        return cls(**config)


@export("regularizers.L1L2", "keras.regularizers.L1L2")
class L1L2(Regularizer):
    """l1 * sum(|x|) + l2 * sum(x^2)."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = _checked(l1, "l1", "L1L2")
        self.l2 = _checked(l2, "l2", "L1L2")

    def __call__(self, x):
        x = convert_to_tensor(x)
        total = array_ops.zeros([], dtype=x.dtype)
        if self.l1:
            total = total + self.l1 * reduce_ops.reduce_sum(math_ops.abs(x))
        if self.l2:
            total = total + self.l2 * reduce_ops.reduce_sum(math_ops.square(x))
        return total

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


@export("regularizers.L1", "regularizers.l1", "keras.regularizers.L1", "keras.regularizers.l1")
class L1(Regularizer):
    """l1 * sum(|x|)."""

    def __init__(self, l1=0.01):
        self.l1 = _checked(l1, "l1", "L1")

    def __call__(self, x):
        return self.l1 * reduce_ops.reduce_sum(math_ops.abs(convert_to_tensor(x)))

    def get_config(self):
        return {"l1": self.l1}


@export("regularizers.L2", "regularizers.l2", "keras.regularizers.L2", "keras.regularizers.l2")
class L2(Regularizer):
    """l2 * sum(x^2) (no factor 1/2, as in Keras)."""

    def __init__(self, l2=0.01):
        self.l2 = _checked(l2, "l2", "L2")

    def __call__(self, x):
        return self.l2 * reduce_ops.reduce_sum(math_ops.square(convert_to_tensor(x)))

    def get_config(self):
        return {"l2": self.l2}


@export("regularizers.OrthogonalRegularizer", "keras.regularizers.OrthogonalRegularizer",
        "keras.regularizers.orthogonal_regularizer", "regularizers.orthogonal_regularizer")
class OrthogonalRegularizer(Regularizer):
    """factor * mean of |off-diagonal entries| of the Gram matrix of l2-normalized rows/columns."""

    def __init__(self, factor=0.01, mode="rows"):
        if mode not in ("rows", "columns"):
            raise ValueError(f"OrthogonalRegularizer: mode must be 'rows' or 'columns', got {mode!r}.")
        self.factor = _checked(factor, "factor", "OrthogonalRegularizer")
        self.mode = mode

    def __call__(self, x):
        x = convert_to_tensor(x)
        if len(x.shape) != 2:
            raise ValueError(f"OrthogonalRegularizer needs a 2-D input, got shape {x.shape}.")
        if self.mode == "columns":
            x = array_ops.transpose(x)
        square_sum = reduce_ops.reduce_sum(math_ops.square(x), axis=1, keepdims=True)
        x = x / math_ops.sqrt(math_ops.maximum(square_sum, 1e-12))
        n = int(x.shape[0])
        gram = linalg_ops.matmul(x, x, transpose_b=True)
        off = math_ops.abs(gram) * constant_ops.constant(1.0 - np.eye(n), dtype=x.dtype)
        return self.factor * reduce_ops.reduce_sum(off) / (n * (n - 1))

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode}


@export("regularizers.l1_l2", "keras.regularizers.l1_l2")
def l1_l2(l1=0.01, l2=0.01):
    """An L1L2 regularizer (note the 0.01 defaults, unlike the class's 0.0)."""
    return L1L2(l1=l1, l2=l2)


# Keras exposes the lower-case names as the classes themselves.
l1 = L1
l2 = L2
orthogonal_regularizer = OrthogonalRegularizer

for _cls, _alias in ((L1, "l1"), (L2, "l2"), (L1L2, "l1_l2"),
                     (OrthogonalRegularizer, "orthogonal_regularizer")):
    REGULARIZERS.register(_cls, aliases=(_alias,))


@export("regularizers.serialize", "keras.regularizers.serialize")
def serialize(regularizer):
    """The config form of a regularizer: Keras 3's `{'module', 'class_name', 'config',
    'registered_name'}` (see `minitf._keras_objects.Registry.serialize`)."""
    return REGULARIZERS.serialize(regularizer)


@export("regularizers.deserialize", "keras.regularizers.deserialize")
def deserialize(config, custom_objects=None):
    """A new regularizer from a name ('l2', 'L1L2') or a dict made by `serialize`;
    ValueError for an unknown name."""
    return REGULARIZERS.deserialize(config, custom_objects)


@export("regularizers.get", "keras.regularizers.get")
def get(identifier):
    """A regularizer from None (None), a name, a config dict, a class (instantiated) or a
    callable (as it is); ValueError otherwise."""
    return REGULARIZERS.get(identifier)
