"""Training data as batches: arrays, `tf.data` datasets and Python generators.

`fit`, `evaluate` and `predict` accept numpy arrays or tensors (also lists and dicts of them),
a `tf.data.Dataset`, or a generator/iterator yielding batches. `DataHandler` turns any of
them into the batches of each epoch, each an `(x,)`, `(x, y)` or `(x, y, sample_weight)`
tuple, as Keras' data adapters do.
"""
import inspect
import math
import warnings

import numpy as np

from minitf import nest
from minitf.data import Dataset

__all__ = ["DataHandler", "unpack_x_y_sample_weight", "pack_x_y_sample_weight",
           "split_validation", "with_class_weight", "concat_outputs", "to_numpy",
           "is_dataset", "is_iterator"]


def to_numpy(value):
    """A tensor's or array-like's value as a numpy array."""
    if hasattr(value, "numpy"):
        return value.numpy()
    return np.asarray(value)


def unpack_x_y_sample_weight(data):
    """Split a batch into `(x, y, sample_weight)`; missing parts are None (Keras' helper)."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`, found a tuple of length {len(data)}.")


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The inverse of `unpack_x_y_sample_weight`: the shortest tuple holding the parts."""
    if y is None:
        return (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def is_dataset(x):
    """Whether `x` is a tf.data.Dataset."""
    return isinstance(x, Dataset)


def is_iterator(x):
    """Whether `x` is a Python generator or iterator (read on across epochs)."""
    return inspect.isgenerator(x) or (hasattr(x, "__next__") and hasattr(x, "__iter__"))


def _num_samples(struct):
    lengths = {len(a) for a in nest.flatten(struct) if a is not None}
    if len(lengths) > 1:
        raise ValueError(f"Data cardinality is ambiguous: the arrays have different numbers of "
                         f"samples {sorted(lengths)}. Make sure all arrays contain the same "
                         "number of samples.")
    return lengths.pop() if lengths else 0


def _as_numpy_struct(struct):
    if struct is None:
        return None
    return nest.map_structure(lambda a: None if a is None else np.asarray(to_numpy(a)),
                                 struct)


def _take(struct, index):
    if struct is None:
        return None
    return nest.map_structure(lambda a: a[index], struct)


def _class_weights_for(y, class_weight):
    y = np.asarray(to_numpy(y))
    if isinstance(y, np.ndarray) and y.ndim == 2 and y.shape[1] > 1:
        labels = np.argmax(y, axis=-1)
    else:
        labels = y.reshape(len(y)).astype(np.int64)
    table = np.ones(int(max(max(class_weight) + 1, labels.max(initial=0) + 1)), np.float32)
    for cls, weight in class_weight.items():
        table[int(cls)] = weight
    return table[labels]


def with_class_weight(data, class_weight):
    """`data` with `sample_weight` multiplied by the weight of each example's class."""
    if not class_weight:
        return data
    x, y, sw = unpack_x_y_sample_weight(data)
    if isinstance(y, (list, tuple, dict)):
        raise ValueError("`class_weight` is only supported for models with a single output.")
    weights = _class_weights_for(y, class_weight)
    if sw is not None:
        weights = weights * np.asarray(to_numpy(sw), np.float32).reshape(weights.shape)
    return (x, y, weights)


class DataHandler:
    """Batches for one `fit`/`evaluate`/`predict` run, epoch by epoch.

    Arrays (numpy, tensors, or lists/dicts of them) are sliced into batches (shuffled each
    epoch when asked); a `tf.data.Dataset` is iterated afresh each epoch; a Python generator
    or iterator is read on across epochs. `steps` is the number of batches per epoch (None
    when unknown).
    """

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None,
                 shuffle=False, class_weight=None, seed=None):
        self._class_weight = class_weight
        # array shuffles draw from numpy's global generator, or from `seed` (workers that must agree)
        self._rng = np.random if seed is None else np.random.RandomState(seed)
        self._iterator = None
        self.exhausted = False
        if is_dataset(x) or is_iterator(x):
            if y is not None:
                raise ValueError("`y` argument is not supported when using a dataset or a "
                                 "generator as input; yield (x, y) pairs from it instead.")
            self._kind = "dataset" if is_dataset(x) else "iterator"
            self._source = x
            steps = None
            if self._kind == "dataset":
                card = int(x.cardinality())
                steps = card if card >= 0 else None
            self.steps = steps_per_epoch if steps_per_epoch is not None else steps
            self._keep_iterator = steps_per_epoch is not None or self._kind == "iterator"
            return
        self._kind = "arrays"
        self._x, self._y = _as_numpy_struct(x), _as_numpy_struct(y)
        self._sw = _as_numpy_struct(sample_weight)
        self._n = _num_samples((self._x, self._y, self._sw))
        self._batch = batch_size or 32
        self._shuffle = shuffle
        per_epoch = int(math.ceil(self._n / self._batch))
        self.steps = steps_per_epoch if steps_per_epoch is not None else per_epoch

    def _array_batches(self):
        while True:
            order = self._rng.permutation(self._n) if self._shuffle else None
            for start in range(0, self._n, self._batch):
                index = slice(start, start + self._batch) if order is None else \
                    order[start:start + self._batch]
                yield pack_x_y_sample_weight(_take(self._x, index), _take(self._y, index),
                                             _take(self._sw, index))
            if self._n == 0:
                return

    def _fresh_iterator(self):
        if self._kind == "arrays":
            return self._array_batches()
        return iter(self._source)

    def epoch_batches(self):
        """Yield the batches of one epoch (each an `(x,)`, `(x, y)` or `(x, y, w)` tuple)."""
        if self._kind == "arrays" or not self._keep_iterator:
            iterator = self._fresh_iterator()
        else:
            if self._iterator is None:
                self._iterator = self._fresh_iterator()
            iterator = self._iterator
        count = 0
        while self.steps is None or count < self.steps:
            try:
                data = next(iterator)
            except StopIteration:
                if self._kind == "dataset" and self._keep_iterator and count == 0 and \
                        self._iterator is not None:
                    self._iterator = iterator = self._fresh_iterator()
                    continue
                if self.steps is not None and self._kind != "arrays":
                    self.exhausted = True
                    warnings.warn("Your input ran out of data; interrupting training. Make "
                                  "sure that your dataset or generator can generate at least "
                                  "`steps_per_epoch * epochs` batches.", stacklevel=4)
                break
            if not isinstance(data, tuple):
                data = tuple(data) if isinstance(data, list) else (data,)
            yield with_class_weight(data, self._class_weight)
            count += 1
        if self._kind == "arrays" and self.steps is not None:
            iterator.close()


def split_validation(x, y, sample_weight, validation_split):
    """((x, y, w) for training, (x, y, w) for validation): the last `validation_split`
    fraction of the arrays (not shuffled) is held out, as Keras does."""
    if is_dataset(x) or is_iterator(x):
        raise ValueError("`validation_split` is only supported for Tensors or NumPy arrays, "
                         f"found {type(x).__name__}; pass `validation_data` instead.")
    x, y, sw = _as_numpy_struct(x), _as_numpy_struct(y), _as_numpy_struct(sample_weight)
    n = _num_samples((x, y, sw))
    split_at = int(math.floor(n * (1.0 - validation_split)))
    if split_at == 0 or split_at == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to "
                         f"split it into a validation and training set as specified by "
                         f"`validation_split={validation_split}`.")
    head, tail = slice(0, split_at), slice(split_at, n)
    return ((_take(x, head), _take(y, head), _take(sw, head)),
            (_take(x, tail), _take(y, tail), _take(sw, tail)))


def concat_outputs(batches):
    """Per-batch outputs joined along the batch axis into numpy arrays (same structure)."""
    if not batches:
        return None
    first = batches[0]
    flat = [nest.flatten(b) for b in batches]
    joined = [np.concatenate([to_numpy(f[i]) for f in flat], axis=0)
              for i in range(len(flat[0]))]
    return nest.pack_sequence_as(first, joined)
