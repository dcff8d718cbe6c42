"""tf.keras.callbacks: hooks that `fit`, `evaluate` and `predict` call as they run.

A callback overrides any of the `on_*` methods; `fit` gives it the model (`set_model`) and
the run's parameters (`set_params`: verbose, epochs, steps). Epoch-end `logs` hold Python
floats ('loss', metric names, 'val_'-prefixed validation results).

The package splits by concern: `callback` (the base class, History, LambdaCallback),
`callback_list`, `progress` (progress bar, CSV log, plots) and `training` (checkpoints,
early stopping, learning-rate control).
"""
from minitf.callbacks.callback import Callback, History, LambdaCallback
from minitf.callbacks.callback_list import CallbackList
from minitf.callbacks.progress import CSVLogger, ProgbarLogger, plot_history
from minitf.callbacks.training import (EarlyStopping, LearningRateScheduler, ModelCheckpoint,
                                       ReduceLROnPlateau, TerminateOnNaN)
from minitf.callbacks.tensorboard import TensorBoard

__all__ = ["Callback", "CallbackList", "History", "ProgbarLogger", "ModelCheckpoint",
           "EarlyStopping", "LearningRateScheduler", "ReduceLROnPlateau", "CSVLogger",
           "TerminateOnNaN", "LambdaCallback", "plot_history", "TensorBoard"]
