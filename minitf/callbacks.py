"""tf.keras.callbacks: hooks that `fit`, `evaluate` and `predict` call as they run.

A callback overrides any of the `on_*` methods; `fit` gives it the model (`set_model`) and
the run's parameters (`set_params`: verbose, epochs, steps). Epoch-end `logs` hold Python
floats ('loss', metric names, 'val_'-prefixed validation results).
"""
import csv
import math
import os
import sys
import time
import warnings

import numpy as np

__all__ = ["Callback", "CallbackList", "History", "ProgbarLogger", "ModelCheckpoint",
           "EarlyStopping", "LearningRateScheduler", "ReduceLROnPlateau", "CSVLogger",
           "TerminateOnNaN", "LambdaCallback", "plot_history"]

_BATCH_HOOKS = ("on_train_batch_begin", "on_train_batch_end", "on_test_batch_begin",
                "on_test_batch_end", "on_predict_batch_begin", "on_predict_batch_end")


class Callback:
    """Base class: every hook does nothing; `self.model` and `self.params` are set by fit."""

    def __init__(self):
        self.validation_data = None
        self.model = None
        self.params = {}

    def set_params(self, params):
        """Receive the run's parameters (verbose, epochs, steps)."""
        self.params = params

    def set_model(self, model):
        """Receive the model being trained."""
        self.model = model

    def on_batch_begin(self, batch, logs=None):
        """Alias of `on_train_batch_begin` (kept from Keras 1)."""

    def on_batch_end(self, batch, logs=None):
        """Alias of `on_train_batch_end` (kept from Keras 1)."""

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of each training epoch (0-based `epoch`)."""

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of each epoch with that epoch's logs (incl. val_ entries)."""

    def on_train_batch_begin(self, batch, logs=None):
        """Called before each training batch."""
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        """Called after each training batch with the running metric results."""
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        """Called before each evaluation batch."""

    def on_test_batch_end(self, batch, logs=None):
        """Called after each evaluation batch."""

    def on_predict_batch_begin(self, batch, logs=None):
        """Called before each prediction batch."""

    def on_predict_batch_end(self, batch, logs=None):
        """Called after each prediction batch; `logs['outputs']` holds the batch outputs."""

    def on_train_begin(self, logs=None):
        """Called once when `fit` starts."""

    def on_train_end(self, logs=None):
        """Called once when `fit` ends."""

    def on_test_begin(self, logs=None):
        """Called when evaluation (or fit's validation) starts."""

    def on_test_end(self, logs=None):
        """Called when evaluation ends, with its logs."""

    def on_predict_begin(self, logs=None):
        """Called when `predict` starts."""

    def on_predict_end(self, logs=None):
        """Called when `predict` ends."""

    def _implements_batch_hooks(self):
        cls = type(self)
        return any(getattr(cls, name) is not getattr(Callback, name)
                   for name in _BATCH_HOOKS + ("on_batch_begin", "on_batch_end"))


class CallbackList:
    """A list of callbacks called together; adds History and the progress bar when asked."""

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
                 **params):
        self.callbacks = list(callbacks) if callbacks else []
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
        if add_history:
            history = next((c for c in self.callbacks if isinstance(c, History)), None)
            if history is None:
                history = History()
                self.callbacks.append(history)
        self.model = None
        self.params = {}
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)
        self._batch_callbacks = [c for c in self.callbacks if c._implements_batch_hooks()]

    def append(self, callback):
        """Add a callback."""
        self.callbacks.append(callback)
        if callback._implements_batch_hooks():
            self._batch_callbacks.append(callback)

    def set_params(self, params):
        """Pass the run parameters to every callback."""
        self.params = params
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        """Pass the model to every callback."""
        self.model = model
        for c in self.callbacks:
            c.set_model(model)

    def __iter__(self):
        return iter(self.callbacks)

    def _call(self, hook, *args):
        for c in self.callbacks:
            getattr(c, hook)(*args)

    def _call_batch(self, hook, batch, logs):
        for c in self._batch_callbacks:
            getattr(c, hook)(batch, logs)

    def on_train_begin(self, logs=None):
        """Dispatch `on_train_begin`."""
        self._call("on_train_begin", logs)

    def on_train_end(self, logs=None):
        """Dispatch `on_train_end`."""
        self._call("on_train_end", logs)

    def on_epoch_begin(self, epoch, logs=None):
        """Dispatch `on_epoch_begin`."""
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch, logs=None):
        """Dispatch `on_epoch_end`."""
        self._call("on_epoch_end", epoch, logs)

    def on_train_batch_begin(self, batch, logs=None):
        """Dispatch `on_train_batch_begin` (only to callbacks that use batch hooks)."""
        if self._batch_callbacks:
            self._call_batch("on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        """Dispatch `on_train_batch_end`."""
        if self._batch_callbacks:
            self._call_batch("on_train_batch_end", batch, logs)

    def on_test_begin(self, logs=None):
        """Dispatch `on_test_begin`."""
        self._call("on_test_begin", logs)

    def on_test_end(self, logs=None):
        """Dispatch `on_test_end`."""
        self._call("on_test_end", logs)

    def on_test_batch_begin(self, batch, logs=None):
        """Dispatch `on_test_batch_begin`."""
        if self._batch_callbacks:
            self._call_batch("on_test_batch_begin", batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        """Dispatch `on_test_batch_end`."""
        if self._batch_callbacks:
            self._call_batch("on_test_batch_end", batch, logs)

    def on_predict_begin(self, logs=None):
        """Dispatch `on_predict_begin`."""
        self._call("on_predict_begin", logs)

    def on_predict_end(self, logs=None):
        """Dispatch `on_predict_end`."""
        self._call("on_predict_end", logs)

    def on_predict_batch_begin(self, batch, logs=None):
        """Dispatch `on_predict_batch_begin`."""
        if self._batch_callbacks:
            self._call_batch("on_predict_batch_begin", batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        """Dispatch `on_predict_batch_end`."""
        if self._batch_callbacks:
            self._call_batch("on_predict_batch_end", batch, logs)


class History(Callback):
    """Records each epoch's logs: `history.history['loss']` is the list of epoch losses."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        if self.model is not None:
            object.__setattr__(self.model, "history", self)


def _format_value(value):
    try:
        return f"{float(value):.4f}"
    except (TypeError, ValueError):
        return str(value)


def _format_logs(logs):
    return {k: _format_value(v) for k, v in (logs or {}).items() if k not in ("outputs",)}


class ProgbarLogger(Callback):
    """Progress output: a tqdm bar per epoch on stderr (verbose=1) or one line per epoch on
    stdout (verbose=2). The bar redraws at most ten times a second to stay cheap."""

    def __init__(self, count_mode="steps", stateful_metrics=None):
        super().__init__()
        self._bar = None
        self._last_postfix = 0.0
        self._epoch_start = 0.0
        self._in_fit = False

    def _verbose(self):
        return self.params.get("verbose", 1)

    def _open_bar(self, desc):
        from tqdm.auto import tqdm
        self._bar = tqdm(total=self.params.get("steps"), desc=desc, file=sys.stderr,
                         mininterval=0.1, unit="step", leave=True, dynamic_ncols=True)
        self._last_postfix = time.monotonic()

    def _advance(self, logs):
        bar = self._bar
        if bar is None:
            return
        bar.update(1)
        now = time.monotonic()
        if logs and now - self._last_postfix >= 0.1:
            self._last_postfix = now
            bar.set_postfix(_format_logs(logs), refresh=False)

    def _close_bar(self, logs):
        if self._bar is None:
            return
        if logs:
            self._bar.set_postfix(_format_logs(logs), refresh=False)
        self._bar.close()
        self._bar = None

    def on_train_begin(self, logs=None):
        self._in_fit = True

    def on_train_end(self, logs=None):
        self._in_fit = False

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch_start = time.monotonic()
        epochs = self.params.get("epochs")
        if self._verbose() == 1:
            self._open_bar(f"Epoch {epoch + 1}/{epochs}")
        elif self._verbose() == 2:
            print(f"Epoch {epoch + 1}/{epochs}", file=sys.stdout)

    def on_train_batch_end(self, batch, logs=None):
        self._advance(logs)

    def on_epoch_end(self, epoch, logs=None):
        if self._verbose() == 1:
            self._close_bar(logs)
        elif self._verbose() == 2:
            seconds = time.monotonic() - self._epoch_start
            parts = [f"{k}: {v}" for k, v in _format_logs(logs).items()]
            steps = self.params.get("steps")
            prefix = f"{steps}/{steps} - " if steps else ""
            print(prefix + f"{seconds:.0f}s - " + " - ".join(parts), file=sys.stdout)

    def on_test_begin(self, logs=None):
        if not self._in_fit and self._verbose() == 1:
            self._open_bar("Evaluate")

    def on_test_batch_end(self, batch, logs=None):
        if not self._in_fit:
            self._advance(logs)

    def on_test_end(self, logs=None):
        if self._in_fit:
            return
        if self._verbose() == 1:
            self._close_bar(logs)
        elif self._verbose() == 2:
            print(" - ".join(f"{k}: {v}" for k, v in _format_logs(logs).items()))

    def on_predict_begin(self, logs=None):
        if self._verbose() == 1:
            self._open_bar("Predict")

    def on_predict_batch_end(self, batch, logs=None):
        self._advance(None)

    def on_predict_end(self, logs=None):
        self._close_bar(None)


def _monitor_op(mode, monitor, who):
    """np.less or np.greater from 'min'/'max'/'auto' ('auto': max for accuracy-like)."""
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{who} mode {mode} is unknown, fallback to auto mode.", stacklevel=3)
        mode = "auto"
    if mode == "auto":
        mode = "max" if ("acc" in monitor or monitor.startswith("fmeasure")
                         or "auc" in monitor) else "min"
    return np.greater if mode == "max" else np.less


class ModelCheckpoint(Callback):
    """Save the model (or its weights) every epoch or every `save_freq` batches.

    `filepath` may hold format fields filled from the epoch (1-based) and the logs, e.g.
    'ckpt-{epoch:02d}-{val_loss:.2f}.weights.h5'. With `save_best_only` a file is written
    only when `monitor` improves (`mode` 'min', 'max', or 'auto').
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


class CSVLogger(Callback):
    """Write one CSV row per epoch: 'epoch' then the log keys in sorted order.

    As in Keras, when the first epoch's logs hold no 'val_' key, a 'val_<key>' column is
    added for every key (written as 'NA' until validation logs appear).
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename = os.fspath(filename)
        self.sep = separator
        self.append = append
        self.keys = None
        self._file = None
        self._writer = None
        self._append_header = True

    def on_train_begin(self, logs=None):
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as existing:
                    self._append_header = not bool(len(existing.readline()))
            mode = "a"
        else:
            mode = "w"
        self._file = open(self.filename, mode, newline="")
        self._writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            # Keras reserves val_ columns (filled with 'NA') when the first epoch has none.
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys += [f"val_{k}" for k in self.keys]
        if self._writer is None:
            self._writer = csv.DictWriter(self._file, fieldnames=["epoch"] + self.keys,
                                          delimiter=self.sep)
            if self._append_header:
                self._writer.writeheader()
        row = {"epoch": epoch}
        row.update({k: _csv_value(logs.get(k, "NA")) for k in self.keys})
        self._writer.writerow(row)
        self._file.flush()

    def on_train_end(self, logs=None):
        if self._file is not None:
            self._file.close()
            self._file = None
        self._writer = None


def _csv_value(value):
    if isinstance(value, str):
        return value
    try:
        return float(value.numpy() if hasattr(value, "numpy") else value)
    except (TypeError, ValueError):
        return value


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


class LambdaCallback(Callback):
    """A callback from plain functions: `on_epoch_end=lambda epoch, logs: ...`, etc.

    The batch and epoch hooks take `(index, logs)`, the train hooks take `(logs)`.
    """

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None,
                 on_batch_end=None, on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        hooks = dict(kwargs, on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_batch_begin=on_batch_begin, on_batch_end=on_batch_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end)
        for name, fn in hooks.items():
            if fn is None:
                continue
            if not name.startswith("on_") or not hasattr(Callback, name):
                raise TypeError(f"LambdaCallback got an unknown hook {name!r}.")
            setattr(self, name, fn)

    def _implements_batch_hooks(self):
        names = _BATCH_HOOKS + ("on_batch_begin", "on_batch_end")
        return any(name in self.__dict__ for name in names)


# -- plotting ---------------------------------------------------------------------------------

_COLORS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189),
           (140, 86, 75), (227, 119, 194), (127, 127, 127)]


def plot_history(history, path, keys=None, size=(640, 400)):
    """Draw the per-epoch curves of a `History` (or its dict) into a PNG file at `path`.

    `keys` picks the series (default: every series whose name contains 'loss'). Needs
    Pillow: `pip install pillow` (or minitf's 'examples' extra).
    """
    try:
        from PIL import Image, ImageDraw
    except ImportError as error:
        raise ImportError("plot_history needs Pillow: run `pip install pillow` "
                          "(or `pip install minitf[examples]`).") from error
    series = history.history if hasattr(history, "history") else dict(history)
    keys = keys or [k for k in series if "loss" in k] or list(series)
    curves = {k: [float(v) for v in series[k]] for k in keys if series.get(k)}
    if not curves:
        raise ValueError(f"plot_history: no data for keys {keys}; the history holds "
                         f"{sorted(series)}.")
    width, height = size
    left, right, top, bottom = 60, 20, 20, 40
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.line([(left, top), (left, height - bottom), (width - right, height - bottom)],
              fill="black", width=1)
    finite = [v for vals in curves.values() for v in vals if math.isfinite(v)]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    if high == low:
        high = low + 1.0
    epochs = max(len(v) for v in curves.values())

    def point(i, v):
        x = left + (width - left - right) * (i / max(epochs - 1, 1))
        y = top + (height - top - bottom) * (1.0 - (v - low) / (high - low))
        return (x, y)

    draw.text((4, top), f"{high:.3g}", fill="black")
    draw.text((4, height - bottom - 10), f"{low:.3g}", fill="black")
    draw.text((width - right - 60, height - bottom + 8), f"epoch {epochs}", fill="black")
    for n, (key, values) in enumerate(curves.items()):
        color = _COLORS[n % len(_COLORS)]
        points = [point(i, v) for i, v in enumerate(values) if math.isfinite(v)]
        if len(points) > 1:
            draw.line(points, fill=color, width=2)
        elif points:
            x, y = points[0]
            draw.ellipse([x - 2, y - 2, x + 2, y + 2], fill=color)
        draw.text((left + 10 + 110 * n, height - bottom + 22), key, fill=color)
    image.save(path, format="PNG")
    return path
