"""tf.keras.utils.PyDataset (alias `Sequence`): a dataset written as Python `__getitem__`/`__len__`.

`fit`, `evaluate` and `predict` read a PyDataset batch by batch (minitf.engine.py_dataset_adapter);
the `workers`, `use_multiprocessing` and `max_queue_size` given to its constructor say how.
"""
import itertools
import warnings
from minitf.api_export import export

__all__ = ["PyDataset", "Sequence"]


@export("utils.PyDataset", "utils.Sequence", "keras.utils.PyDataset", "keras.utils.Sequence")
class PyDataset:
    """Base class for a dataset produced by Python code, one whole batch per index.

    Subclasses implement `__getitem__(index)` (the batch at `index`: `x`, `(x,)`, `(x, y)` or
    `(x, y, sample_weight)`, or a dict) and `__len__()` (the number of batches), or the
    `num_batches` property (None for an endless dataset); `on_epoch_begin()` and
    `on_epoch_end()` run at the start and end of every epoch of `fit`/`evaluate`/`predict`.

    Example:

    ```python
    class Batches(tf.keras.utils.PyDataset):
        def __init__(self, x, y, batch_size, **kwargs):
            super().__init__(**kwargs)
            self.x, self.y, self.batch_size = x, y, batch_size

        def __len__(self):
            return math.ceil(len(self.x) / self.batch_size)

        def __getitem__(self, index):
            part = slice(index * self.batch_size, (index + 1) * self.batch_size)
            return self.x[part], self.y[part]

    model.fit(Batches(x, y, 32, workers=4), epochs=3)
    ```

    Args:
        workers: how many batches are read at once while training (threads). With 1 (and no
            multiprocessing) batches are read one after the other, when needed.
        use_multiprocessing: accepted as Keras accepts it. minitf reads the batches in a pool
            of `workers` threads either way (Keras would fork processes): `__getitem__` that
            releases the GIL (file reads, numpy) runs in parallel, pure Python does not.
        max_queue_size: how many batches may be read ahead of training (default 10).

    These three settings only concern `fit`/`evaluate`/`predict`; iterating over the dataset
    yourself reads the batches in order, one at a time.
    """

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    def _warn_if_super_not_called(self):
        missing = False
        for name, default in (("_workers", 1), ("_use_multiprocessing", False), ("_max_queue_size", 10)):
            if not hasattr(self, name):
                setattr(self, name, default)
                missing = True
        if missing:
            warnings.warn("Your `PyDataset` class should call `super().__init__(**kwargs)` in its "
                          "constructor. `**kwargs` can include `workers`, `use_multiprocessing`, "
                          "`max_queue_size`. Do not pass these arguments to `fit()`, as they will "
                          "be ignored.", stacklevel=3)

    @property
    def workers(self):
        """How many batches are read at once (threads) while training."""
        self._warn_if_super_not_called()
        return self._workers

    @workers.setter
    def workers(self, value):
        self._workers = value

    @property
    def use_multiprocessing(self):
        """Keras' multiprocessing switch (minitf reads with threads either way)."""
        self._warn_if_super_not_called()
        return self._use_multiprocessing

    @use_multiprocessing.setter
    def use_multiprocessing(self, value):
        self._use_multiprocessing = value

    @property
    def max_queue_size(self):
        """How many batches may be read ahead of training."""
        self._warn_if_super_not_called()
        return self._max_queue_size

    @max_queue_size.setter
    def max_queue_size(self, value):
        self._max_queue_size = value

    def __getitem__(self, index):
        """The batch at position `index` (subclasses implement it)."""
        del index
        raise NotImplementedError

    def __iter__(self):
        """The batches in order (endlessly when `num_batches` is None)."""
        index_range = None
        try:
            count = self.num_batches
            if count is not None:
                index_range = range(count)
        except NotImplementedError:
            pass
        for index in index_range if index_range is not None else itertools.count():
            yield self[index]

    @property
    def num_batches(self):
        """The number of batches (`len(self)`), or None for an endless dataset."""
        if hasattr(self, "__len__"):
            return len(self)
        raise NotImplementedError("You need to implement the `num_batches` property:\n\n"
                                  "@property\ndef num_batches(self):\n  return ...")

    def on_epoch_begin(self):
        """Called at the beginning of every epoch (does nothing unless overridden)."""

    def on_epoch_end(self):
        """Called at the end of every epoch (does nothing unless overridden)."""


Sequence = PyDataset  # Keras 3 binds both names to one class
