"""tf.train.ExponentialMovingAverage: shadow variables that follow trained variables with an
exponential decay, named and updated as TF 2 names and updates them in eager mode.

Each variable gets one shadow the first time `apply` sees it, a non-trainable copy of its value
named `<variable name>/<ema name>` (uniquified with _1, _2, ... as TF's variable scopes count the
names across the process). Every `apply` then runs shadow -= (1 - decay) * (shadow - variable),
where decay is min(decay, (1 + num_updates) / (10 + num_updates)) when num_updates is given and
(1 - decay) is computed in float32 before the cast to the variable's dtype, as TF computes it.
As in TF the object itself is not trackable: checkpoint the shadows (`average(var)`) directly.
"""
import threading
import weakref

import numpy as np

from minitf.dtypes import dtypes
from minitf.ops.constant import constant
from minitf.tensor import Tensor
from minitf.variable import Variable, name_scope_stack, set_name_scope_stack
from minitf.api_export import export

__all__ = ["ExponentialMovingAverage"]

_FLOAT_TYPES = ("float16", "bfloat16", "float32", "float64")
_names = {"lock": threading.Lock(), "used": {}}  # shadow base name -> times used (TF's scope counts)
# every variable any EMA has averaged (TF's MOVING_AVERAGE_VARIABLES collection), by id
_averaged = weakref.WeakValueDictionary()


def _unique(base):
    """`base`, then base_1, base_2, ... for later shadows of the same name."""
    with _names["lock"]:
        count = _names["used"].get(base, 0)
        _names["used"][base] = count + 1
    return base if count == 0 else f"{base}_{count}"


def _number(value):
    """A Python float from a scalar, tensor or variable (read at each call, so a decay variable
    can be changed between applies)."""
    if isinstance(value, (Tensor, Variable)):
        return float(np.asarray(value.numpy()))
    return float(value)


@export("train.ExponentialMovingAverage")
class ExponentialMovingAverage:
    """Moving averages of variables with exponential decay.

    Args:
      decay: the decay (a float, or a scalar tensor/variable read at every apply); values close
        to 1 (0.999, 0.9999) average over long windows.
      num_updates: optional count of updates (e.g. the optimizer's iterations): the decay is then
        min(decay, (1 + num_updates) / (10 + num_updates)), so early averages move faster.
      zero_debias: accepted as in TF, where it only affects averages of tensors; eager TF (and
        minitf) averages variables only, so it changes nothing.
      name: the shadow variables' name suffix and this object's `name`.
    """

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}  # variable id -> (variable, shadow)

    @property
    def name(self):
        """The name given at construction (the shadows' suffix)."""
        return self._name

    def _current_decay(self):
        decay = np.float32(_number(self._decay))
        if self._num_updates is not None:
            n = np.float32(_number(self._num_updates))
            decay = min(decay, np.float32((np.float32(1.0) + n) / (np.float32(10.0) + n)))
        return np.float32(1.0) - decay

    def apply(self, var_list=None):
        """Create the shadows of new variables in `var_list` (copies of their current values) and
        move every shadow toward its variable. Returns None (TF's eager group).

        Raises:
          TypeError: a tensor that is not a variable, or a variable that is not floating point.
        """
        var_list = [] if var_list is None else list(var_list)
        for v in var_list:
            if not isinstance(v, Variable):
                raise TypeError("tf.train.ExponentialMovingAverage does not support non-Variable tensors "
                                "when eager execution is enabled.")
        for v in var_list:
            if v.dtype.name not in _FLOAT_TYPES:
                raise TypeError(f"The variables must be half, float, or double: {v.name}")
        for v in var_list:
            if v._id not in self._averages:
                self._averages[v._id] = (v, self._make_shadow(v))
                _averaged[v._id] = v
        one_minus_decay = self._current_decay()
        for v in var_list:
            shadow = self._averages[v._id][1]
            step = constant(one_minus_decay, dtype=dtypes.float32)
            if shadow.dtype != dtypes.float32:
                step = constant(np.asarray(one_minus_decay).astype(shadow.dtype.as_numpy_dtype))
            shadow.assign_sub((shadow.read_value() - v.read_value()) * step)
        return None

    def _make_shadow(self, var):
        name = _unique(var.name.split(":")[0] + "/" + self._name)
        saved = name_scope_stack()
        set_name_scope_stack([])  # the shadow's name is the variable's, whatever scope apply runs in
        try:
            return Variable(var.read_value(), trainable=False, name=name)
        finally:
            set_name_scope_stack(saved)

    def average(self, var):
        """The shadow variable of `var`, or None when `apply` has not seen it."""
        entry = self._averages.get(getattr(var, "_id", None))
        return entry[1] if entry is not None else None

    def average_name(self, var):
        """The name of `var`'s shadow (without ':0'): its actual name once created, else the name
        a shadow would get, `<variable name>/<ema name>`."""
        shadow = self.average(var)
        if shadow is not None:
            return shadow.name.split(":")[0]
        return var.name.split(":")[0] + "/" + self._name

    def variables_to_restore(self, moving_avg_variables=None):
        """{shadow name: variable} to restore averages into the model's variables by name.

        With no argument: every variable any ExponentialMovingAverage has averaged (TF's
        moving-average collection; eager TF has no trainable or global collections to add).
        """
        if moving_avg_variables is None:
            moving_avg_variables = list(_averaged.values())
        seen, out = set(), {}
        for v in moving_avg_variables:
            if v._id in seen:
                continue
            seen.add(v._id)
            out[self.average_name(v)] = v
        return out
