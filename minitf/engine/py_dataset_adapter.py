"""Batches of a `tf.keras.utils.PyDataset` for fit/evaluate/predict (Keras 3's PyDatasetAdapter).

Each batch is standardized as Keras 3 does: a dict stays a dict, a numpy array `x` becomes
`(x,)`, a list becomes a tuple, and anything else must be a tuple of 1 to 3 items (ValueError).
With `shuffle` (fit's default) the batch order is shuffled each epoch with Python's `random`,
as Keras does. A dataset made with `workers > 1` (or `use_multiprocessing=True` and
`workers > 0`) is read ahead by a pool of threads, at most `max_queue_size` batches ahead,
handed over in order.
"""
import collections
import itertools
import random
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["PyDatasetBatches"]


def class_weights(y, class_weight):
    """Keras 3's class_weight_to_sample_weights: one weight per example, 1.0 for classes the
    dict does not name (one-hot rows are read by their argmax, values are rounded)."""
    labels = np.asarray(y.numpy() if hasattr(y, "numpy") else y)
    if labels.ndim > 1:
        labels = np.argmax(labels, axis=-1) if labels.shape[-1] != 1 else np.squeeze(labels, axis=-1)
    labels = np.round(labels).astype("int32")
    return np.asarray([class_weight.get(int(c), 1.0) for c in labels.reshape(-1)], dtype="float32")


class PyDatasetBatches:
    """The epochs of one PyDataset: `on_epoch_begin`, the batches, `on_epoch_end`."""

    def __init__(self, py_dataset, class_weight=None, shuffle=False):
        self.py_dataset = py_dataset
        self.class_weight = class_weight
        self.shuffle = shuffle
        workers = py_dataset.workers
        use_multiprocessing = py_dataset.use_multiprocessing
        self._threads = workers if (workers > 1 or (workers > 0 and use_multiprocessing)) else 0
        self._queue_size = max(1, int(py_dataset.max_queue_size or 1))

    @property
    def num_batches(self):
        """Batches per epoch, or None for an endless dataset."""
        return self.py_dataset.num_batches

    def standardize(self, batch):
        """One batch in the form the steps receive (see the module docstring)."""
        if isinstance(batch, dict):
            return batch
        if isinstance(batch, np.ndarray):
            batch = (batch,)
        if isinstance(batch, list):
            batch = tuple(batch)
        if not isinstance(batch, tuple) or len(batch) not in (1, 2, 3):
            raise ValueError("PyDataset.__getitem__() must return a tuple or a dict. If a tuple, it "
                             "must be ordered either (input,) or (inputs, targets) or (inputs, "
                             f"targets, sample_weights). Received: {str(batch)[:100]}... of type "
                             f"{type(batch)}")
        if self.class_weight is not None:
            if len(batch) == 3:
                raise ValueError("You cannot specify `class_weight` and `sample_weight` at the "
                                 "same time.")
            if len(batch) == 2:
                batch = batch + (class_weights(batch[1], self.class_weight),)
        return batch

    def _indices(self):
        count = self.py_dataset.num_batches
        if count is None:
            return itertools.count()
        indices = list(range(count))
        if self.shuffle:
            random.shuffle(indices)
        return indices

    def batches(self):
        """The standardized batches of one pass over the dataset (endless when it is)."""
        if not self._threads:
            for i in self._indices():
                yield self.standardize(self.py_dataset[i])
            return
        pool = ThreadPoolExecutor(max_workers=self._threads, thread_name_prefix="minitf-pydataset")
        try:
            indices = iter(self._indices())
            pending = collections.deque(pool.submit(self.py_dataset.__getitem__, i)
                                        for i in itertools.islice(indices, self._queue_size))
            while pending:
                batch = pending.popleft().result()
                following = next(indices, None)
                if following is not None:
                    pending.append(pool.submit(self.py_dataset.__getitem__, following))
                yield self.standardize(batch)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def on_epoch_begin(self):
        """The dataset's own `on_epoch_begin`."""
        self.py_dataset.on_epoch_begin()

    def on_epoch_end(self):
        """The dataset's own `on_epoch_end`."""
        self.py_dataset.on_epoch_end()
