"""Learning-rate schedules (tf.keras.optimizers.schedules), Keras 3 formulas.

A schedule maps the optimizer's step (its `iterations` before the update) to a learning rate.
Calling it returns a float32 tensor; optimizers use `_value_at(step)` for a Python float.
"""
import math

import numpy as np  # Python-side: an array of steps given to a schedule

from minitf._keras_objects import Registry
from minitf.ops.constant import constant
from minitf.api_export import export

__all__ = ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay",
           "InverseTimeDecay", "PolynomialDecay", "CosineDecay", "CosineDecayRestarts",
           "serialize", "deserialize"]


@export("optimizers.schedules.LearningRateSchedule",
        "keras.optimizers.schedules.LearningRateSchedule")
class LearningRateSchedule:
    """Base class: subclasses implement `_value_at(step) -> float` and `get_config()`."""

    def __call__(self, step):
        steps = np.asarray(getattr(step, "_value", step))
        if steps.ndim:  # an array of steps (plotting a schedule): one rate per step, as Keras
            rates = [self._value_at(float(s)) for s in steps.reshape(-1).tolist()]
            return constant(np.asarray(rates, dtype=np.float32).reshape(steps.shape), dtype="float32")
        return constant(self._value_at(float(_to_float(step))), dtype="float32")

    def _value_at(self, step):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__.")

    def get_config(self):
        """The constructor arguments as a dict."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_config.")

    @classmethod
    def from_config(cls, config):
        """Rebuild the schedule from `get_config()` output."""
        return cls(**config)


def _to_float(step):
    raw = getattr(step, "_value", step)
    return float(raw)


@export("optimizers.schedules.ExponentialDecay", "keras.optimizers.schedules.ExponentialDecay")
class ExponentialDecay(LearningRateSchedule):
    """`initial_learning_rate * decay_rate ** (step / decay_steps)` (floored exponent if staircase)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name="ExponentialDecay"):
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def _value_at(self, step):
        p = step / self.decay_steps
        if self.staircase:
            p = math.floor(p)
        return self.initial_learning_rate * self.decay_rate ** p

    def get_config(self):
        """Constructor arguments."""
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


@export("optimizers.schedules.PiecewiseConstantDecay",
        "keras.optimizers.schedules.PiecewiseConstantDecay")
class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[0]` while step <= boundaries[0], `values[i]` for boundaries[i-1] < step <= boundaries[i],
    `values[-1]` after the last boundary."""

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of values. "
                             f"Received: boundaries={boundaries} of length {len(boundaries)}, and "
                             f"values={values} of length {len(values)}.")
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def _value_at(self, step):
        for boundary, value in zip(self.boundaries, self.values):
            if step <= boundary:
                return value
        return self.values[-1]

    def get_config(self):
        """Constructor arguments."""
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


@export("optimizers.schedules.InverseTimeDecay", "keras.optimizers.schedules.InverseTimeDecay")
class InverseTimeDecay(LearningRateSchedule):
    """`initial_learning_rate / (1 + decay_rate * step / decay_steps)` (floored if staircase)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name="InverseTimeDecay"):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def _value_at(self, step):
        p = step / self.decay_steps
        if self.staircase:
            p = math.floor(p)
        return self.initial_learning_rate / (1 + self.decay_rate * p)

    def get_config(self):
        """Constructor arguments."""
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


@export("optimizers.schedules.PolynomialDecay", "keras.optimizers.schedules.PolynomialDecay")
class PolynomialDecay(LearningRateSchedule):
    """`(initial - end) * (1 - step / decay_steps) ** power + end`, step capped at decay_steps;
    with `cycle`, decay_steps grows to the next multiple of itself past step."""

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle=False, name="PolynomialDecay"):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def _value_at(self, step):
        decay_steps = float(self.decay_steps)
        if self.cycle:
            multiplier = 1.0 if step == 0 else math.ceil(step / decay_steps)
            decay_steps *= multiplier
        else:
            step = min(step, decay_steps)
        frac = step / decay_steps
        return ((self.initial_learning_rate - self.end_learning_rate) * (1 - frac) ** self.power
                + self.end_learning_rate)

    def get_config(self):
        """Constructor arguments."""
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "end_learning_rate": self.end_learning_rate, "power": self.power,
                "cycle": self.cycle, "name": self.name}


def _cosine(step, decay_steps, alpha, start):
    cosine = 0.5 * (1.0 + math.cos(math.pi * step / decay_steps))
    return start * ((1 - alpha) * cosine + alpha)


@export("optimizers.schedules.CosineDecay", "keras.optimizers.schedules.CosineDecay")
class CosineDecay(LearningRateSchedule):
    """Optional linear warmup from `initial_learning_rate` to `warmup_target` over
    `warmup_steps`, then cosine decay over `decay_steps` down to `alpha` times the start:
    `start * ((1 - alpha) * 0.5 * (1 + cos(pi * s / decay_steps)) + alpha)`, s capped."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay",
                 warmup_target=None, warmup_steps=0):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def _value_at(self, step):
        if self.warmup_target is None:
            step = min(step, self.decay_steps)
            return _cosine(step, self.decay_steps, self.alpha, self.initial_learning_rate)
        step = min(step, self.decay_steps + self.warmup_steps)
        if step < self.warmup_steps:
            frac = step / self.warmup_steps
            return (self.warmup_target - self.initial_learning_rate) * frac + self.initial_learning_rate
        return _cosine(step - self.warmup_steps, self.decay_steps, self.alpha, self.warmup_target)

    def get_config(self):
        """Constructor arguments."""
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "alpha": self.alpha, "name": self.name, "warmup_target": self.warmup_target,
                "warmup_steps": self.warmup_steps}


@export("optimizers.schedules.CosineDecayRestarts",
        "keras.optimizers.schedules.CosineDecayRestarts")
class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): period i lasts `first_decay_steps * t_mul**i`
    steps and starts from `initial_learning_rate * m_mul**i`."""

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0,
                 name="SGDRDecay"):
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name

    def _value_at(self, step):
        frac = step / self.first_decay_steps
        t_mul = self._t_mul
        if t_mul == 1.0:
            i_restart = math.floor(frac)
            frac -= i_restart
        else:
            i_restart = math.floor(math.log(1.0 - frac * (1.0 - t_mul)) / math.log(t_mul))
            sum_r = (1.0 - t_mul ** i_restart) / (1.0 - t_mul)
            frac = (frac - sum_r) / t_mul ** i_restart
        m_fac = self._m_mul ** i_restart
        cosine = 0.5 * m_fac * (1.0 + math.cos(math.pi * frac))
        return self.initial_learning_rate * ((1 - self.alpha) * cosine + self.alpha)

    def get_config(self):
        """Constructor arguments."""
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self._t_mul,
                "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


SCHEDULES = Registry("learning rate schedule", "keras.optimizers.schedules", accept_callables=False)
for _cls in (ExponentialDecay, PiecewiseConstantDecay, InverseTimeDecay, PolynomialDecay, CosineDecay,
             CosineDecayRestarts):
    SCHEDULES.register(_cls)


@export("optimizers.schedules.serialize", "keras.optimizers.schedules.serialize")
def serialize(schedule):
    """Keras 3's dict `{'module', 'class_name', 'config', 'registered_name'}` for a schedule."""
    return SCHEDULES.serialize(schedule)


@export("optimizers.schedules.deserialize", "keras.optimizers.schedules.deserialize")
def deserialize(config, custom_objects=None):
    """A new schedule from `serialize()` output; custom classes come from `custom_objects`.
    ValueError for an unknown class name."""
    return SCHEDULES.deserialize(config, custom_objects)
