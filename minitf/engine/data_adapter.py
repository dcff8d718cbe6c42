"""Training data as batches: arrays, `tf.data` datasets, Python generators and PyDatasets.

`fit`, `evaluate` and `predict` accept numpy arrays or tensors (also lists and dicts of them),
a `tf.data.Dataset`, a generator/iterator yielding batches, or a `tf.keras.utils.PyDataset` (or
an object that reads like one: `len`, `[i]` and `on_epoch_end`, as `ImageDataGenerator.flow`'s).
`DataHandler` turns any of them into the batches of each epoch exactly as Keras 3's data
adapters hand them to `train_step`/`test_step`/`predict_step`:
- arrays: `pack_x_y_sample_weight(x, y, sample_weight)` of each slice: `x` itself when there
  is no `y` (`(x,)` when `x` is a list or tuple), else `(x, y)` or `(x, y, sample_weight)`;
  lists inside become tuples;
- datasets: each element as the dataset yields it (a lone tensor stays a lone tensor);
- generators: each element as yielded; the first must be a tuple (ValueError otherwise);
- PyDatasets: standardized by minitf.engine.py_dataset_adapter (an array `x` becomes `(x,)`).
"""
import inspect
import math
import warnings

import numpy as np

from minitf.nest import nest
from minitf.data import Dataset
from minitf.engine.py_dataset_adapter import PyDatasetBatches, class_weights
from minitf.sparse.batching import take_rows
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.utils.py_dataset import PyDataset
from minitf.api_export import export

__all__ = ["DataHandler", "unpack_x_y_sample_weight", "pack_x_y_sample_weight",
           "split_validation", "with_class_weight", "concat_outputs", "to_numpy",
           "is_dataset", "is_iterator", "is_py_dataset"]


def to_numpy(value):
    """A tensor's or array-like's value as a numpy array."""
    if hasattr(value, "numpy"):
        return value.numpy()
    return np.asarray(value)


@export("keras.utils.unpack_x_y_sample_weight", "utils.unpack_x_y_sample_weight")
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


@export("keras.utils.pack_x_y_sample_weight", "utils.pack_x_y_sample_weight")
def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """Keras 3's packing of a batch: `x` itself when there is no `y` (`(x,)` when `x` is a list
    or tuple, which would be ambiguous), else `(x, y)` or `(x, y, sample_weight)`."""
    if y is None:
        return (x,) if isinstance(x, (list, tuple)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def lists_to_tuples(struct):
    """`struct` with every list turned into a tuple (Keras' data adapters do this)."""
    if isinstance(struct, (list, tuple)):
        return tuple(lists_to_tuples(v) for v in struct)
    if isinstance(struct, dict):
        return {k: lists_to_tuples(v) for k, v in struct.items()}
    return struct


def is_dataset(x):
    """Whether `x` is a tf.data.Dataset."""
    return isinstance(x, Dataset)


def is_iterator(x):
    """Whether `x` is a Python generator or iterator (read on across epochs)."""
    return inspect.isgenerator(x) or (hasattr(x, "__next__") and hasattr(x, "__iter__"))


def is_py_dataset(x):
    """Whether `x` is a `tf.keras.utils.PyDataset` (also spelled `Sequence`) or reads like one:
    `len(x)` batches, `x[i]` the batch at `i` and `x.on_epoch_end()` (Keras' legacy image
    iterators, which are PyDatasets in Keras 3, or a Sequence from another library)."""
    return isinstance(x, PyDataset) or all(
        callable(getattr(type(x), name, None)) for name in ("__len__", "__getitem__", "on_epoch_end"))


class _PyDatasetView(PyDataset):
    """A PyDataset over an object that only reads like one (see `is_py_dataset`), read on the
    calling thread (an image iterator reseeds numpy's global generator for every batch)."""

    def __init__(self, source):
        super().__init__()
        self.source = source

    def __len__(self):
        return len(self.source)

    def __getitem__(self, index):
        return self.source[index]

    def on_epoch_begin(self):
        """The source's `on_epoch_begin`, when it has one."""
        begin = getattr(self.source, "on_epoch_begin", None)
        if callable(begin):
            begin()

    def on_epoch_end(self):
        """The source's `on_epoch_end`."""
        self.source.on_epoch_end()


def _num_samples(struct):
    lengths = {a._dims[0] if isinstance(a, SparseTensor) else len(a) for a in nest.flatten(struct) if a is not None}
    if len(lengths) > 1:
        raise ValueError(f"Data cardinality is ambiguous: the arrays have different numbers of "
                         f"samples {sorted(lengths)}. Make sure all arrays contain the same "
                         "number of samples (x, y and sample_weight of Model.fit/evaluate/predict).")
    return lengths.pop() if lengths else 0


def _as_numpy_struct(struct):
    if struct is None:
        return None
    return lists_to_tuples(nest.map_structure(  # a SparseTensor stays one, cut by rows
        lambda a: None if a is None else a if isinstance(a, SparseTensor) else np.asarray(to_numpy(a)), struct))


def _take(struct, index):
    if struct is None:
        return None
    return nest.map_structure(lambda a: take_rows(a, index) if isinstance(a, SparseTensor) else a[index], struct)


def with_class_weight(data, class_weight):
    """`data` with the `sample_weight` of each example the weight of its class (Keras 3's
    class_weight_to_sample_weights); a batch without targets is left as it is."""
    if not class_weight:
        return data
    x, y, sw = unpack_x_y_sample_weight(data)
    if y is None:
        return data
    if sw is not None:
        raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
    if isinstance(y, (list, tuple, dict)):
        raise ValueError("`class_weight` is only supported for Models with a single output.")
    return (x, y, class_weights(y, class_weight))


class DataHandler:
    """Batches for one `fit`/`evaluate`/`predict` run, epoch by epoch (see the module docstring).

    Arrays (numpy, tensors, or lists/dicts of them) are sliced into batches (shuffled each
    epoch when asked); a `tf.data.Dataset` is iterated afresh each epoch; a Python generator
    or iterator is read on across epochs; a PyDataset is read afresh each epoch (its batch
    order shuffled when asked), between its `on_epoch_begin` and `on_epoch_end`. `steps` is
    the number of batches per epoch (None when unknown).
    """

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None,
                 shuffle=False, class_weight=None, seed=None):
        self._class_weight = class_weight
        # array shuffles draw from numpy's global generator, or from `seed` (workers that must agree)
        self._rng = np.random if seed is None else np.random.RandomState(seed)
        self._iterator = None
        self._checked_first = False
        self.exhausted = False
        if is_dataset(x) or is_iterator(x) or is_py_dataset(x):
            if y is not None:
                raise ValueError("`y` argument is not supported when using a dataset, a generator "
                                 "or a PyDataset as input; yield (x, y) pairs from it instead.")
            if sample_weight is not None:
                raise ValueError("`sample_weight` argument is not supported when using a dataset, "
                                 "a generator or a PyDataset as input; yield (x, y, sample_weight) "
                                 "from it instead.")
            steps = None
            if is_py_dataset(x):
                self._kind = "pydataset"
                self._source = PyDatasetBatches(x if isinstance(x, PyDataset) else _PyDatasetView(x),
                                                class_weight, shuffle)
                self._class_weight = None  # the PyDataset batches carry their class weights
                steps = self._source.num_batches
            elif is_dataset(x):
                self._kind = "dataset"
                self._source = x
                card = int(x.cardinality())
                steps = card if card >= 0 else None
            else:
                self._kind = "iterator"
                self._source = x
            self.steps = steps_per_epoch if steps_per_epoch is not None else steps
            self._keep_iterator = steps_per_epoch is not None or self._kind == "iterator"
            return
        self._kind = "arrays"
        self._x, self._y = _as_numpy_struct(x), _as_numpy_struct(y)
        self._sw = _as_numpy_struct(sample_weight)
        if class_weight and self._sw is not None:
            raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
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
        if self._kind == "pydataset":
            return self._source.batches()
        return iter(self._source)

    def _check_generator_batch(self, data):
        """Keras 3 looks at a generator's first batch: it must be a tuple."""
        self._checked_first = True
        if not isinstance(data, tuple):
            raise ValueError("When passing a Python generator to a Keras model, the generator must "
                             "return a tuple, either (input,) or (inputs, targets) or (inputs, "
                             f"targets, sample_weights). Received: {data}")

    def epoch_batches(self):
        """Yield the batches of one epoch, each as `train_step(data)` receives it."""
        if self._kind == "arrays" or not self._keep_iterator:
            iterator = self._fresh_iterator()
        else:
            if self._iterator is None:
                self._iterator = self._fresh_iterator()
            iterator = self._iterator
        if self._kind == "pydataset":
            self._source.on_epoch_begin()
        count = 0
        while self.steps is None or count < self.steps:
            try:
                data = next(iterator)
            except StopIteration:
                if self._kind == "iterator" and not self._checked_first:
                    raise ValueError("When passing a Python generator to a Keras model, the "
                                     "generator must yield at least one batch. Received an empty "
                                     "generator.") from None
                if self._kind in ("dataset", "pydataset") and self._keep_iterator and count == 0 \
                        and self._iterator is not None:
                    self._iterator = iterator = self._fresh_iterator()
                    continue
                if self.steps is not None and self._kind != "arrays":
                    self.exhausted = True
                    warnings.warn("Your input ran out of data; interrupting training. Make "
                                  "sure that your dataset or generator can generate at least "
                                  "`steps_per_epoch * epochs` batches.", stacklevel=4)
                break
            if self._kind == "iterator" and not self._checked_first:
                self._check_generator_batch(data)
            yield with_class_weight(data, self._class_weight) if self._class_weight else data
            count += 1
        if self._kind == "arrays" and self.steps is not None:
            iterator.close()
        if self._kind == "pydataset":
            self._source.on_epoch_end()


def split_validation(x, y, sample_weight, validation_split):
    """((x, y, w) for training, (x, y, w) for validation): the last `validation_split`
    fraction of the arrays (not shuffled) is held out, as Keras does."""
    if is_dataset(x) or is_iterator(x) or is_py_dataset(x):
        raise ValueError("`validation_split` is only supported for Tensors or NumPy arrays, "
                         f"found {type(x).__name__}; pass `validation_data` instead.")
    x, y, sw = _as_numpy_struct(x), _as_numpy_struct(y), _as_numpy_struct(sample_weight)
    n = _num_samples((x, y, sw))
    split_at = int(math.floor(n * (1.0 - validation_split)))
    if split_at == 0 or split_at == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to "
                         f"split it into a validation and training set as specified by "
                         f"`validation_split={validation_split}` (in Model.fit).")
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
