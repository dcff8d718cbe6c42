"""The Callback base class and the simplest callbacks: History (the per-epoch logs fit
returns) and LambdaCallback (hooks from plain functions)."""
from minitf.api_export import export
__all__ = ["Callback", "History", "LambdaCallback"]

_BATCH_HOOKS = ("on_train_batch_begin", "on_train_batch_end", "on_test_batch_begin",
                "on_test_batch_end", "on_predict_batch_begin", "on_predict_batch_end")


@export("callbacks.Callback", "keras.callbacks.Callback")
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


@export("callbacks.History", "keras.callbacks.History")
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


@export("callbacks.LambdaCallback", "keras.callbacks.LambdaCallback")
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
