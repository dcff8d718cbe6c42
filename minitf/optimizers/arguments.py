"""Argument checks of the Keras optimizers' constructors, with Keras 3's exception classes."""
import numpy as np

__all__ = ["learning_rate_float", "check_name"]


def learning_rate_float(value, optimizer):
    """A numeric learning rate as a float; Keras 3's ValueError for anything else."""
    raw = None if value is None or isinstance(value, (str, bytes, bool, dict)) else np.asarray(value)
    if raw is None or raw.ndim or raw.dtype.kind not in "iuf":
        raise ValueError(f"{type(optimizer).__name__}: argument `learning_rate` should be float, or an "
                         f"instance of LearningRateSchedule, or a callable (that takes in the current "
                         f"iteration value and returns the corresponding learning rate value). Received "
                         f"instead: learning_rate={value!r}")
    return float(raw)


def check_name(name, optimizer):
    """Keras 3's ValueError for a name that is not a string or holds '/'."""
    if not isinstance(name, str) or "/" in name:
        raise ValueError(f"{type(optimizer).__name__}: argument `name` must be a string and cannot "
                         f"contain character `/`. Received: name={name!r}")
