"""tf.keras.constraints: projections applied to a weight after each optimizer update.

`constraint(w)` returns the projected tensor. Norms use Keras' epsilon 1e-7 in denominators.
"""

__all__ = ["Constraint", "MaxNorm", "NonNeg", "UnitNorm", "MinMaxNorm", "max_norm", "non_neg",
           "unit_norm", "min_max_norm", "get", "serialize", "deserialize"]

from minitf._keras_objects import Registry
from minitf.convert import convert_to_tensor
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.ops import reduce as reduce_ops
from minitf.api_export import export

_EPSILON = 1e-7
CONSTRAINTS = Registry("constraint", "keras.constraints")


def _norms(w, axis):
    return math_ops.sqrt(reduce_ops.reduce_sum(math_ops.square(w), axis=axis, keepdims=True))


@export("keras.constraints.Constraint")
class Constraint:
    """Base class: `__call__(w)` returns the constrained weight (the identity here)."""

    def __call__(self, w):
        return w

    def get_config(self):
        """The constructor arguments as a dict."""
        return {}

    @classmethod
    def from_config(cls, config):
        """A new constraint from the dict `get_config` produced."""
        return cls(**config)


@export("keras.constraints.MaxNorm", "keras.constraints.max_norm")
class MaxNorm(Constraint):
    """Rescales slices along `axis` whose l2 norm exceeds `max_value` down to it."""

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = math_ops.clip_by_value(norms, 0.0, float(self.max_value))
        return w * (desired / (_EPSILON + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


@export("keras.constraints.NonNeg", "keras.constraints.non_neg")
class NonNeg(Constraint):
    """Sets negative weights to zero."""

    def __call__(self, w):
        w = convert_to_tensor(w)
        return w * constant_ops.cast(w >= 0.0, w.dtype)


@export("keras.constraints.UnitNorm", "keras.constraints.unit_norm")
class UnitNorm(Constraint):
    """Scales slices along `axis` to unit l2 norm."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        return w / (_EPSILON + _norms(w, self.axis))

    def get_config(self):
        return {"axis": self.axis}


@export("keras.constraints.MinMaxNorm", "keras.constraints.min_max_norm")
class MinMaxNorm(Constraint):
    """Moves slice norms into [min_value, max_value]; `rate` < 1 moves only part of the way."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        clipped = math_ops.clip_by_value(norms, float(self.min_value), float(self.max_value))
        desired = self.rate * clipped + (1.0 - self.rate) * norms
        return w * (desired / (_EPSILON + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


max_norm = MaxNorm
non_neg = NonNeg
unit_norm = UnitNorm
min_max_norm = MinMaxNorm
for _cls, _alias in ((MaxNorm, "max_norm"), (NonNeg, "non_neg"), (UnitNorm, "unit_norm"),
                     (MinMaxNorm, "min_max_norm")):
    CONSTRAINTS.register(_cls, aliases=(_alias,))


@export("keras.constraints.serialize")
def serialize(constraint):
    """The config form of a constraint: Keras 3's `{'module', 'class_name', 'config',
    'registered_name'}` (see `minitf._keras_objects.Registry.serialize`)."""
    return CONSTRAINTS.serialize(constraint)


@export("keras.constraints.deserialize")
def deserialize(config, custom_objects=None):
    """A new constraint from a name ('max_norm', 'MaxNorm') or a dict made by `serialize`;
    ValueError for an unknown name."""
    return CONSTRAINTS.deserialize(config, custom_objects)


@export("keras.constraints.get")
def get(identifier):
    """A constraint from None (None), a name, a config dict, a class (instantiated) or a
    callable (as it is); ValueError otherwise."""
    return CONSTRAINTS.get(identifier)
