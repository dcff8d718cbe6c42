"""Callbacks that steer training: ModelCheckpoint, EarlyStopping, LearningRateScheduler,
ReduceLROnPlateau and TerminateOnNaN."""
import math
import os
import warnings

import numpy as np

from minitf.callbacks.callback import Callback
from minitf.distribution_context import is_chief
from minitf.api_export import export

__all__ = ["ModelCheckpoint", "EarlyStopping", "LearningRateScheduler", "ReduceLROnPlateau",
           "TerminateOnNaN"]


def _monitor_op(mode, monitor, who):
    """np.less or np.greater from 'min'/'max'/'auto' ('auto': max for accuracy-like)."""
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{who} mode {mode} is unknown, fallback to auto mode.", stacklevel=3)
        mode = "auto"
    if mode == "auto":
        mode = "max" if ("acc" in monitor or monitor.startswith("fmeasure")
                         or "auc" in monitor) else "min"
    return np.greater if mode == "max" else np.less


@export("callbacks.ModelCheckpoint", "keras.callbacks.ModelCheckpoint")
class ModelCheckpoint(Callback):
    """Save the model (or its weights) every epoch or every `save_freq` batches.

    `filepath` may hold format fields filled from the epoch (1-based) and the logs, e.g.
    'ckpt-{epoch:02d}-{val_loss:.2f}.weights.h5'. As in Keras 3 it must end in '.weights.h5'
    with `save_weights_only=True` (weights and optimizer state) and in '.keras' otherwise (the
    whole model; '.h5' is accepted by the check, but minitf does not write Keras 2's whole-model
    HDF5). With `save_best_only` a file is written only when `monitor` improves (`mode` 'min',
    'max', or 'auto').

    Raises:
      ValueError: a filepath whose ending does not match `save_weights_only`.
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch", options=None,
                 initial_value_threshold=None, **kwargs):
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        if save_weights_only and not self.filepath.endswith(".weights.h5"):
            raise ValueError(f"When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided "
                             f"must end in `.weights.h5` (Keras weights format). Received: "
                             f"filepath={self.filepath}")
        if not save_weights_only and not self.filepath.endswith((".keras", ".h5")):
            raise ValueError(f"The filepath provided must end in `.keras` (Keras model format). Received: "
                             f"filepath={self.filepath}")
        self.save_freq = save_freq
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected 'epoch' or an "
                             "integer number of batches.")
        self.monitor_op = _monitor_op(mode, monitor, "ModelCheckpoint")
        if initial_value_threshold is not None:
            self.best = float(initial_value_threshold)
        else:
            self.best = np.inf if self.monitor_op is np.less else -np.inf
        self._current_epoch = 0
        self._batches_seen = 0

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        self._batches_seen += 1
        if self._batches_seen % self.save_freq == 0:
            self._save(self._current_epoch, batch, _float_logs(logs))

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, None, logs or {})

    def _file_path(self, epoch, batch, logs):
        try:
            if batch is None or "batch" not in self.filepath:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as error:
            raise KeyError(f'ModelCheckpoint: failed to format filepath "{self.filepath}": '
                           f"the key {error} is not in the logs {sorted(logs)}.") from error

    def _save(self, epoch, batch, logs):
        if not is_chief():  # workers of a tf.distribute job other than the chief write nothing
            return
        path = self._file_path(epoch, batch, logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                warnings.warn(f"Can save best model only with {self.monitor} available, "
                              "skipping.", stacklevel=2)
                return
            if not self.monitor_op(current, self.best):
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from "
                          f"{self.best:.5f}")
                return
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to "
                      f"{current:.5f}, saving model to {path}")
            self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only or not hasattr(self.model, "save"):
            self.model.save_weights(path, overwrite=True)
        else:
            self.model.save(path, overwrite=True)


def _float_logs(logs):
    out = {}
    for key, value in (logs or {}).items():
        try:
            out[key] = float(value.numpy() if hasattr(value, "numpy") else value)
        except (TypeError, ValueError):
            pass
    return out


def _get_weights(model):
    return [np.array(w, copy=True) for w in model.get_weights()]


@export("callbacks.EarlyStopping", "keras.callbacks.EarlyStopping")
class EarlyStopping(Callback):
    """Stop training when `monitor` has stopped improving for `patience` epochs.

    An improvement is a change of more than `min_delta` in the right direction (`mode`).
    With `baseline`, training stops unless `monitor` beats it within `patience` epochs.
    `restore_best_weights` puts back the weights of the best epoch when it stops.
    Epochs before `start_from_epoch` are not watched.
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False, start_from_epoch=0):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.monitor_op = _monitor_op(mode, monitor, "EarlyStopping")
        if self.monitor_op is np.less:
            self.min_delta *= -1
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = np.inf if self.monitor_op is np.less else -np.inf
        self.best_weights = None
        self.best_epoch = 0

    def _is_improvement(self, value, reference):
        return bool(self.monitor_op(value - self.min_delta, reference))

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(f"Early stopping conditioned on metric `{self.monitor}` which is not "
                          f"available. Available metrics are: {','.join(logs or {})}",
                          stacklevel=2)
            return
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = _get_weights(self.model)
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = _get_weights(self.model)
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                if self.verbose > 0:
                    print("Restoring model weights from the end of the best epoch: "
                          f"{self.best_epoch + 1}.")
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")


def _current_lr(optimizer):
    lr = optimizer.learning_rate
    if hasattr(lr, "numpy"):
        return float(lr.numpy())
    if callable(lr):
        raise TypeError("The optimizer's learning rate is a schedule; a callback cannot "
                        "overwrite it. Use a float learning rate.")
    return float(lr)


def _set_lr(optimizer, value):
    if not isinstance(value, (float, int, np.floating, np.integer)):
        value = float(value.numpy() if hasattr(value, "numpy") else value)
    optimizer.learning_rate = float(value)


@export("callbacks.LearningRateScheduler", "keras.callbacks.LearningRateScheduler")
class LearningRateScheduler(Callback):
    """Set the optimizer's learning rate at each epoch start to `schedule(epoch, lr)`."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        if not hasattr(self.model.optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        lr = _current_lr(self.model.optimizer)
        try:
            lr = self.schedule(epoch, lr)
        except TypeError:  # one-argument schedules (Keras 1 style)
            lr = self.schedule(epoch)
        value = float(lr.numpy() if hasattr(lr, "numpy") else lr)
        if not math.isfinite(value):
            raise ValueError(f'The output of the "schedule" function should be a finite float, '
                             f"got {lr!r}.")
        _set_lr(self.model.optimizer, value)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {value}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = _current_lr(self.model.optimizer)


@export("callbacks.ReduceLROnPlateau", "keras.callbacks.ReduceLROnPlateau")
class ReduceLROnPlateau(Callback):
    """Multiply the learning rate by `factor` when `monitor` stalls for `patience` epochs.

    After a reduction, `cooldown` epochs pass before waiting starts again; the rate never
    goes below `min_lr`. An improvement must beat the best value by more than `min_delta`.
    """

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0, **kwargs):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0. "
                             f"Got {factor}")
        self.monitor = monitor
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.mode = mode
        self._reset()

    def _reset(self):
        op = _monitor_op(self.mode, self.monitor, "ReduceLROnPlateau")
        if op is np.less:
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self):
        """Whether a reduction happened less than `cooldown` epochs ago."""
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["learning_rate"] = _current_lr(self.model.optimizer)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Learning rate reduction is conditioned on metric `{self.monitor}` "
                          f"which is not available. Available metrics are: {','.join(logs)}.",
                          stacklevel=2)
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = logs["learning_rate"]
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    _set_lr(self.model.optimizer, new_lr)
                    if self.verbose > 0:
                        print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning "
                              f"rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


@export("callbacks.TerminateOnNaN", "keras.callbacks.TerminateOnNaN")
class TerminateOnNaN(Callback):
    """Stop training as soon as a batch's loss is NaN or infinite."""

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is None:
            return
        value = float(loss.numpy() if hasattr(loss, "numpy") else loss)
        if math.isnan(value) or math.isinf(value):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True
