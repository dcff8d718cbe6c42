"""The argument checks of `fit`, `evaluate` and `predict`, with Keras 3's exception classes.

Keras 3 refuses these arguments deep inside its loops, often with Python's own messages
("'float' object cannot be interpreted as an integer", "'int' object has no attribute
'set_model'"); minitf raises the same classes up front, with messages that name the method, the
argument and what to pass instead.
"""
import math
import numbers

from minitf.nest import nest
from minitf.engine.data_adapter import is_dataset, is_iterator, is_py_dataset

__all__ = ["check_loop_args"]


def check_loop_args(method, x=None, y=None, batch_size=None, steps=None, callbacks=None, epochs=None,
                    validation_split=None, validation_data=None, class_weight=None, extra=None):
    """Refuse what Keras 3's `Model.<method>` refuses, with its exception class.

    `extra` holds keyword arguments the method took through **kwargs (Keras 3's evaluate
    refuses them with ValueError).
    """
    where = f"Model.{method}"
    if extra:
        raise ValueError(f"{where}: arguments not recognized: {extra}")
    if x is None and method in ("evaluate", "predict"):
        # Keras 3 runs no step and fails popping its empty logs: a KeyError
        raise KeyError(f"{where}: x is None, so there is no data to {method}; pass the inputs as x")
    for name, value in (("x", x), ("y", y), ("validation_data", validation_data)):
        _check_data(value, name, where)
    _check_count(batch_size, "batch_size", where)
    _check_count(steps, "steps_per_epoch" if method == "fit" else "steps", where)
    if method == "fit":
        if not isinstance(epochs, numbers.Integral):  # Keras runs range(initial_epoch, epochs)
            raise TypeError(f"{where}: `epochs` must be an integer, not {epochs!r}")
        if validation_split is not None:
            if not isinstance(validation_split, numbers.Real):
                raise TypeError(f"{where}: `validation_split` must be a float in [0, 1), not "
                                f"{validation_split!r}")
            if math.isnan(validation_split):
                raise ValueError(f"{where}: `validation_split` must be a float in [0, 1), not nan")
        if class_weight is not None and not isinstance(class_weight, dict):
            # Keras 3 calls class_weight.get(): an AttributeError
            raise AttributeError(f"{where}: `class_weight` must be a dict mapping class indices to "
                                 f"weights, not {class_weight!r}")
    _check_callbacks(callbacks, where)


def _check_data(value, name, where):
    """Keras 3's ValueError for data no adapter takes: a string or a lone Python scalar, or
    strings inside the arrays."""
    if value is None or is_dataset(value) or is_iterator(value) or is_py_dataset(value):
        return
    leaves = [value] if isinstance(value, (str, bytes)) else nest.flatten(value)
    bad = next((v for v in leaves if isinstance(v, (str, bytes))), None)
    if bad is None and isinstance(value, numbers.Number):
        bad = value
    if bad is not None:
        raise ValueError(f"{where}: unrecognized data type: {name}={_short(value)} (of type "
                         f"{type(value)}); pass numpy arrays or tensors (or a list/dict of them), a "
                         f"tf.data.Dataset, a generator or a PyDataset")


def _check_count(value, name, where):
    """A batch size or step count: None or an integer (TypeError; NaN: ValueError), not negative
    (ValueError, as the shapes Keras 3 builds from it)."""
    if value is None or isinstance(value, numbers.Integral) and value >= 0:
        return
    if isinstance(value, numbers.Integral):
        raise ValueError(f"{where}: `{name}` must be a positive integer, got {value}")
    if isinstance(value, float) and math.isnan(value):
        raise ValueError(f"{where}: `{name}` must be a positive integer, got nan")
    raise TypeError(f"{where}: `{name}` must be a positive integer, not {value!r}")


def _check_callbacks(callbacks, where):
    """Keras 3 calls set_model on each callback: an AttributeError for anything else."""
    if callbacks is None or type(callbacks).__name__ == "CallbackList":
        return
    for c in nest.flatten(callbacks):
        if not hasattr(c, "set_model"):
            raise AttributeError(f"{where}: `callbacks` must be a list of tf.keras.callbacks.Callback "
                                 f"objects, got {c!r}")


def _short(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
