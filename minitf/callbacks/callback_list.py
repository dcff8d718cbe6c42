"""CallbackList: the callbacks of one fit/evaluate/predict run, called together."""
from minitf.callbacks.callback import History
from minitf.nest import nest
from minitf.callbacks.progress import ProgbarLogger
from minitf.api_export import export

__all__ = ["CallbackList", "pythonify_logs"]


def pythonify_logs(logs):
    """`logs` as callbacks and fit/evaluate's results see them, as Keras 3 makes them: keys in
    sorted order, a nested dict's entries (sorted) in place of its key, tensors and numbers as
    Python floats (other values, like predict's outputs, kept)."""
    result = {}
    for key, value in sorted((logs or {}).items()):
        if isinstance(value, dict):
            result.update(pythonify_logs(value))
            continue
        if getattr(value, "ndim", 0) == 0:  # arrays of outputs stay arrays, even of one element
            try:
                value = float(value)
            except (TypeError, ValueError):
                pass
        result[key] = value
    return result


@export("callbacks.CallbackList", "keras.callbacks.CallbackList")
class CallbackList:
    """A list of callbacks called together; adds History and the progress bar when asked. Every
    hook hands its callbacks the logs in `pythonify_logs` form."""

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
                 **params):
        self.callbacks = nest.flatten(callbacks) if callbacks else []  # one callback, or nested lists
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
        *args, logs = args
        logs = pythonify_logs(logs)
        for c in self.callbacks:
            getattr(c, hook)(*args, logs)

    def _call_batch(self, hook, batch, logs):
        logs = pythonify_logs(logs)
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
