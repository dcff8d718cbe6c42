"""The batch iterators of tf.keras.preprocessing.image: Iterator, NumpyArrayIterator,
DirectoryIterator and DataFrameIterator (Keras 3's legacy `keras/src/legacy/preprocessing/image.py`).

An iterator is indexable (`it[i]` is batch i of the epoch, `len(it)` batches per epoch,
`on_epoch_end()` reshuffles) and endless under `next(it)`. With a seed, every batch reseeds numpy's
global generator with `seed + batches seen so far`, as Keras does, so the same seed gives Keras'
order and augmentations.

`Model.fit`, `evaluate` and `predict` read an iterator as Keras 3 reads this PyDataset:
`len(iterator)` steps per epoch, batch i is `iterator[i]`, and `on_epoch_end()` follows every
epoch (also as `validation_data`).
"""
import os
import threading
import warnings

import numpy as np

from minitf.keras_core import config as keras_config
from minitf.utils import image_utils
from minitf.api_export import export

__all__ = ["Iterator", "NumpyArrayIterator", "DirectoryIterator", "DataFrameIterator"]


@export("keras.preprocessing.image.Iterator")
class Iterator:
    """The base of the image batch iterators: index order, shuffling and seeding.

    Subclasses implement `_get_batches_of_transformed_samples(index_array)`.

    Args:
        n: the number of samples. batch_size: samples per batch. shuffle: reshuffle each epoch.
        seed: reseeds numpy's generator per batch (see the module docstring).
        workers, use_multiprocessing, max_queue_size: Keras' PyDataset arguments, kept for
            compatibility (minitf reads the batches on the calling thread).
    """

    white_list_formats = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")

    def __init__(self, n, batch_size, shuffle, seed, workers=1, use_multiprocessing=False,
                 max_queue_size=10):
        self.workers = workers
        self.use_multiprocessing = use_multiprocessing
        self.max_queue_size = max_queue_size
        self.n = n
        self.batch_size = batch_size
        self.seed = seed
        self.shuffle = shuffle
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array = None
        self.index_generator = self._flow_index()

    def _set_index_array(self):
        self.index_array = np.arange(self.n)
        if self.shuffle:
            self.index_array = np.random.permutation(self.n)

    def __getitem__(self, idx):
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has length {len(self)}")
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        index_array = self.index_array[self.batch_size * idx:self.batch_size * (idx + 1)]
        return self._get_batches_of_transformed_samples(index_array)

    def __len__(self):
        return (self.n + self.batch_size - 1) // self.batch_size

    @property
    def num_batches(self):
        """Batches per epoch (Keras' PyDataset property)."""
        return len(self)

    def on_epoch_begin(self):
        """Nothing to do at the start of an epoch."""

    def on_epoch_end(self):
        """Draw a new sample order (shuffled when `shuffle`)."""
        self._set_index_array()

    def reset(self):
        """Start the endless `next()` stream from its first batch again."""
        self.batch_index = 0

    def _flow_index(self):
        self.reset()
        while True:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            current_index = 0 if self.n == 0 else (self.batch_index * self.batch_size) % self.n
            if self.n > current_index + self.batch_size:
                self.batch_index += 1
            else:
                self.batch_index = 0
            self.total_batches_seen += 1
            yield self.index_array[current_index:current_index + self.batch_size]

    def __iter__(self):
        return self

    def __next__(self):
        with self.lock:
            index_array = next(self.index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    def _get_batches_of_transformed_samples(self, index_array):
        """The batch of the samples `index_array` (implemented by each iterator)."""
        raise NotImplementedError(f"{type(self).__name__} must implement "
                                  f"_get_batches_of_transformed_samples(index_array)")


def _transform_and_standardize(generator, x):
    params = generator.get_random_transform(x.shape)
    x = generator.apply_transform(x, params)
    return generator.standardize(x)


def _save_batch(batch_x, index_array, data_format, directory, prefix, file_format, hash_range):
    for i, j in enumerate(index_array):
        img = image_utils.array_to_img(batch_x[i], data_format, scale=True)
        fname = f"{prefix}_{j}_{np.random.randint(hash_range)}.{file_format}"
        img.save(os.path.join(directory, fname))


@export("keras.preprocessing.image.NumpyArrayIterator")
class NumpyArrayIterator(Iterator):
    """Batches of augmented images from a rank-4 array `x`, with labels `y` and sample weights.

    `x` may be a pair `(images, other_arrays)`: the other arrays are batched alongside, unchanged.
    With `subset` ('training' or 'validation'), the first `validation_split` fraction of the
    samples (of the generator) is the validation subset.
    """

    def __init__(self, x, y, image_data_generator, batch_size=32, shuffle=False, sample_weight=None,
                 seed=None, data_format=None, save_to_dir=None, save_prefix="", save_format="png",
                 subset=None, ignore_class_split=False, dtype=None):
        data_format = data_format or keras_config.image_data_format()
        self.dtype = dtype or keras_config.floatx()
        if isinstance(x, (tuple, list)):
            x_misc = [np.asarray(x[1])] if not isinstance(x[1], list) else [np.asarray(xx) for xx in x[1]]
            x = x[0]
            for xx in x_misc:
                if len(x) != len(xx):
                    raise ValueError(f"All of the arrays in `x` should have the same length. Found a pair "
                                     f"with: len(x[0]) = {len(x)}, len(x[?]) = {len(xx)}")
        else:
            x_misc = []
        if y is not None and len(x) != len(y):
            raise ValueError(f"`x` (images tensor) and `y` (labels) should have the same length. Found: "
                             f"x.shape = {np.asarray(x).shape}, y.shape = {np.asarray(y).shape}")
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError(f"`x` (images tensor) and `sample_weight` should have the same length. Found: "
                             f"x.shape = {np.asarray(x).shape}, sample_weight.shape = "
                             f"{np.asarray(sample_weight).shape}")
        if subset is not None:
            if subset not in {"training", "validation"}:
                raise ValueError(f"Invalid subset name: {subset}; expected \"training\" or \"validation\".")
            split_idx = int(len(x) * image_data_generator._validation_split)
            if (y is not None and not ignore_class_split
                    and not np.array_equal(np.unique(y[:split_idx]), np.unique(y[split_idx:]))):
                raise ValueError("Training and validation subsets have different number of classes after "
                                 "the split. If your numpy arrays are sorted by the label, you might want "
                                 "to shuffle them.")
            part = slice(None, split_idx) if subset == "validation" else slice(split_idx, None)
            x = x[part]
            x_misc = [np.asarray(xx[part]) for xx in x_misc]
            if y is not None:
                y = y[part]
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = x_misc
        if self.x.ndim != 4:
            raise ValueError(f"Input data in `NumpyArrayIterator` should have rank 4. You passed an array "
                             f"with shape {self.x.shape}")
        channels_axis = 3 if data_format == "channels_last" else 1
        if self.x.shape[channels_axis] not in {1, 3, 4}:
            warnings.warn(f"NumpyArrayIterator is set to use the data format convention \"{data_format}\" "
                          f"(channels on axis {channels_axis}), i.e. expected either 1, 3, or 4 channels on "
                          f"axis {channels_axis}. However, it was passed an array with shape "
                          f"{self.x.shape} ({self.x.shape[channels_axis]} channels).", stacklevel=2)
        self.y = None if y is None else np.asarray(y)
        self.sample_weight = None if sample_weight is None else np.asarray(sample_weight)
        self.image_data_generator = image_data_generator
        self.data_format = data_format
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array),) + self.x.shape[1:], dtype=self.dtype)
        for i, j in enumerate(index_array):
            batch_x[i] = _transform_and_standardize(self.image_data_generator, self.x[j].astype(self.dtype))
        if self.save_to_dir:
            _save_batch(batch_x, index_array, self.data_format, self.save_to_dir, self.save_prefix,
                        self.save_format, 10 ** 4)
        batch_x_miscs = [xx[index_array] for xx in self.x_misc]
        output = (batch_x if not batch_x_miscs else [batch_x] + batch_x_miscs,)
        if self.y is None:
            return output[0]
        output += (self.y[index_array],)
        if self.sample_weight is not None:
            output += (self.sample_weight[index_array],)
        return output


def _iter_valid_files(directory, white_list_formats, follow_links):
    """(root, filename) of the files with an allowed extension under `directory`, sorted."""
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links), key=lambda x: x[0]):
        for fname in sorted(files):
            if fname.lower().endswith(".tiff"):
                warnings.warn('Using ".tiff" files with multiple bands will cause distortion. Please '
                              'verify your output.', stacklevel=3)
            if fname.lower().endswith(white_list_formats):
                yield root, fname


def _list_valid_filenames_in_directory(directory, white_list_formats, split, class_indices, follow_links):
    """(class indices, paths relative to `directory`'s parent) of a class folder's images, only
    the `split` fraction (start, stop) of them when given."""
    dirname = os.path.basename(directory)
    valid_files = list(_iter_valid_files(directory, white_list_formats, follow_links))
    if split:
        start, stop = int(split[0] * len(valid_files)), int(split[1] * len(valid_files))
        valid_files = valid_files[start:stop]
    classes, filenames = [], []
    for root, fname in valid_files:
        classes.append(class_indices[dirname])
        filenames.append(os.path.join(dirname, os.path.relpath(os.path.join(root, fname), directory)))
    return classes, filenames


class BatchFromFilesMixin:
    """Loading, augmenting and labelling batches of image files (DirectoryIterator and
    DataFrameIterator)."""

    def set_processing_attrs(self, image_data_generator, target_size, color_mode, data_format, save_to_dir,
                             save_prefix, save_format, subset, interpolation, keep_aspect_ratio):
        """Store the loading settings; `subset` picks the validation or training fraction."""
        self.image_data_generator = image_data_generator
        self.target_size = tuple(target_size)
        self.keep_aspect_ratio = keep_aspect_ratio
        if color_mode not in {"rgb", "rgba", "grayscale"}:
            raise ValueError(f"Invalid color mode: {color_mode}; expected \"rgb\", \"rgba\", or \"grayscale\".")
        self.color_mode = color_mode
        self.data_format = data_format
        channels = {"rgba": 4, "rgb": 3, "grayscale": 1}[color_mode]
        self.image_shape = self.target_size + (channels,) if data_format == "channels_last" else \
            (channels,) + self.target_size
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        self.interpolation = interpolation
        split = None
        if subset is not None:
            validation_split = self.image_data_generator._validation_split
            if subset == "validation":
                split = (0, validation_split)
            elif subset == "training":
                split = (validation_split, 1)
            else:
                raise ValueError(f"Invalid subset name: {subset};expected \"training\" or \"validation\"")
        self.split = split
        self.subset = subset

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array),) + self.image_shape, dtype=self.dtype)
        filepaths = self.filepaths
        for i, j in enumerate(index_array):
            img = image_utils.load_img(filepaths[j], color_mode=self.color_mode, target_size=self.target_size,
                                       interpolation=self.interpolation, keep_aspect_ratio=self.keep_aspect_ratio)
            x = image_utils.img_to_array(img, data_format=self.data_format)
            if hasattr(img, "close"):
                img.close()
            if self.image_data_generator:
                x = _transform_and_standardize(self.image_data_generator, x)
            batch_x[i] = x
        if self.save_to_dir:
            _save_batch(batch_x, index_array, self.data_format, self.save_to_dir, self.save_prefix,
                        self.save_format, 10 ** 7)
        if self.class_mode == "input":
            batch_y = batch_x.copy()
        elif self.class_mode in {"binary", "sparse"}:
            batch_y = np.empty(len(batch_x), dtype=self.dtype)
            for i, n_observation in enumerate(index_array):
                batch_y[i] = self.classes[n_observation]
        elif self.class_mode == "categorical":
            batch_y = np.zeros((len(batch_x), len(self.class_indices)), dtype=self.dtype)
            for i, n_observation in enumerate(index_array):
                batch_y[i, self.classes[n_observation]] = 1.0
        elif self.class_mode == "multi_output":
            batch_y = [output[index_array] for output in self.labels]
        elif self.class_mode == "raw":
            batch_y = self.labels[index_array]
        else:
            return batch_x
        if self.sample_weight is None:
            return batch_x, batch_y
        return batch_x, batch_y, self.sample_weight[index_array]

    @property
    def filepaths(self):
        """Absolute paths of the image files."""
        return self._filepaths

    @property
    def labels(self):
        """The class (or target) of every sample."""
        return self.classes

    @property
    def sample_weight(self):
        """Per-sample weights, or None."""
        return None


@export("keras.preprocessing.image.DirectoryIterator")
class DirectoryIterator(BatchFromFilesMixin, Iterator):
    """Batches of augmented images read from `directory/<class name>/...` files.

    Classes are the subfolder names (sorted) unless `classes` lists them; class_mode is
    'categorical' (one-hot), 'binary' or 'sparse' (class indices), 'input' (the images) or None.
    """

    allowed_class_modes = {"categorical", "binary", "sparse", "input", None}

    def __init__(self, directory, image_data_generator, target_size=(256, 256), color_mode="rgb",
                 classes=None, class_mode="categorical", batch_size=32, shuffle=True, seed=None,
                 data_format=None, save_to_dir=None, save_prefix="", save_format="png", follow_links=False,
                 subset=None, interpolation="nearest", keep_aspect_ratio=False, dtype=None):
        data_format = data_format or keras_config.image_data_format()
        self.set_processing_attrs(image_data_generator, target_size, color_mode, data_format, save_to_dir,
                                  save_prefix, save_format, subset, interpolation, keep_aspect_ratio)
        self.directory = directory
        self.classes = classes
        if class_mode not in self.allowed_class_modes:
            raise ValueError(f"Invalid class_mode: {class_mode}; expected one of: {self.allowed_class_modes}")
        self.class_mode = class_mode
        self.dtype = dtype or keras_config.floatx()
        if not classes:
            classes = [d for d in sorted(os.listdir(directory)) if os.path.isdir(os.path.join(directory, d))]
        self.num_classes = len(classes)
        self.class_indices = dict(zip(classes, range(len(classes))))
        self.filenames = []
        classes_list = []
        for subdir in classes:
            found, filenames = _list_valid_filenames_in_directory(
                os.path.join(directory, subdir), self.white_list_formats, self.split, self.class_indices,
                follow_links)
            classes_list.append(found)
            self.filenames += filenames
        self.samples = len(self.filenames)
        self.classes = np.zeros((self.samples,), dtype="int32")
        i = 0
        for found in classes_list:
            self.classes[i:i + len(found)] = found
            i += len(found)
        print(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        self._filepaths = [os.path.join(self.directory, fname) for fname in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)


def _column(frame, name):
    """One column of a DataFrame (or of a dict of sequences) as a list."""
    return list(frame[name])


def _valid_filename(filename, white_list_formats):
    return filename.lower().endswith(white_list_formats) and os.path.isfile(filename)


class DataFrameIterator(BatchFromFilesMixin, Iterator):
    """Batches of augmented images whose files and labels a table lists.

    `dataframe` is a pandas DataFrame, or anything indexable by column name (a dict of lists):
    minitf reads its columns as lists and needs no pandas. `x_col` holds file names (relative to
    `directory` when given), `y_col` the labels; class_mode 'categorical' (labels or lists of
    labels), 'binary', 'sparse', 'raw' (y_col values as they are), 'multi_output' (a list of
    y_col columns), 'input' or None; `weight_col` gives sample weights.
    """

    allowed_class_modes = {"binary", "categorical", "input", "multi_output", "raw", "sparse", None}

    def __init__(self, dataframe, directory=None, image_data_generator=None, x_col="filename", y_col="class",
                 weight_col=None, target_size=(256, 256), color_mode="rgb", classes=None,
                 class_mode="categorical", batch_size=32, shuffle=True, seed=None, data_format="channels_last",
                 save_to_dir=None, save_prefix="", save_format="png", subset=None, interpolation="nearest",
                 keep_aspect_ratio=False, dtype="float32", validate_filenames=True):
        self.set_processing_attrs(image_data_generator, target_size, color_mode, data_format, save_to_dir,
                                  save_prefix, save_format, subset, interpolation, keep_aspect_ratio)
        self.directory = directory or ""
        self.class_mode = class_mode
        self.dtype = dtype
        rows = self._rows(dataframe, x_col, y_col, weight_col)
        self._check_params(rows, x_col, y_col, weight_col, classes)
        if validate_filenames:
            rows = self._filter_valid_filepaths(rows, x_col)
        num_classes = 0
        if class_mode not in ["input", "multi_output", "raw", None]:
            rows, classes = self._filter_classes(rows, y_col, classes)
            num_classes = len(classes)
            self.class_indices = dict(zip(classes, range(len(classes))))
        if self.split:
            start, stop = int(self.split[0] * len(rows)), int(self.split[1] * len(rows))
            rows = rows[start:stop]
        if class_mode not in ["input", "multi_output", "raw", None]:
            self.classes = self.get_classes(rows, y_col)
        self.filenames = [r[x_col] for r in rows]
        self._sample_weight = np.array([r[weight_col] for r in rows]) if weight_col else None
        if class_mode == "multi_output":
            self._targets = [np.array([r[col] for r in rows]) for col in y_col]
        if class_mode == "raw":
            self._targets = np.array([r[y_col] for r in rows]) if not isinstance(y_col, list) else \
                np.array([[r[c] for c in y_col] for r in rows])
        self.samples = len(self.filenames)
        validated = "validated" if validate_filenames else "non-validated"
        if class_mode in ["input", "multi_output", "raw", None]:
            print(f"Found {self.samples} {validated} image filenames.")
        else:
            print(f"Found {self.samples} {validated} image filenames belonging to {num_classes} classes.")
        self._filepaths = [os.path.join(self.directory, fname) for fname in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    @staticmethod
    def _rows(frame, x_col, y_col, weight_col):
        """The table's rows as dicts of the columns the iterator reads."""
        names = [x_col] + (list(y_col) if isinstance(y_col, (list, tuple)) else [y_col])
        names += [weight_col] if weight_col else []
        columns = {}
        for name in names:
            try:
                columns[name] = _column(frame, name)
            except (KeyError, TypeError):
                continue  # class_mode None / 'input' need no label column
        length = len(columns[x_col])
        return [{name: col[i] for name, col in columns.items()} for i in range(length)]

    def _check_params(self, rows, x_col, y_col, weight_col, classes):
        if self.class_mode not in self.allowed_class_modes:
            raise ValueError(f"Invalid class_mode: {self.class_mode}; expected one of: {self.allowed_class_modes}")
        if self.class_mode == "multi_output" and not isinstance(y_col, list):
            raise TypeError(f'If class_mode="{self.class_mode}", y_col must be a list. Received '
                            f"{type(y_col).__name__}.")
        if not all(isinstance(r[x_col], str) for r in rows):
            raise TypeError(f"All values in column x_col={x_col} must be strings.")
        if self.class_mode in {"binary", "sparse"} and not all(isinstance(r[y_col], str) for r in rows):
            raise TypeError(f'If class_mode="{self.class_mode}", y_col="{y_col}" column values must be strings.')
        if self.class_mode == "binary":
            if classes and len(set(classes)) != 2:
                raise ValueError(f'If class_mode="binary" there must be 2 classes. {len(set(classes))} '
                                 f"class/es were given.")
            if not classes and len({r[y_col] for r in rows}) != 2:
                raise ValueError(f'If class_mode="binary" there must be 2 classes. Found '
                                 f"{len({r[y_col] for r in rows})} classes.")
        if self.class_mode == "categorical" and \
                not all(isinstance(r[y_col], (str, list, tuple)) for r in rows):
            raise TypeError(f'If class_mode="{self.class_mode}", y_col="{y_col}" column values must be type '
                            f"string, list or tuple.")
        if classes and self.class_mode in {"input", "multi_output", "raw", None}:
            warnings.warn(f'`classes` will be ignored given the class_mode="{self.class_mode}"', stacklevel=3)
        if weight_col and not all(isinstance(r[weight_col], (int, float, np.number)) and
                                  not isinstance(r[weight_col], bool) for r in rows):
            raise TypeError(f"Column weight_col={weight_col} must be numeric.")

    def get_classes(self, rows, y_col):
        """The class index (or list of indices) of every row."""
        labels = []
        for r in rows:
            label = r[y_col]
            labels.append([self.class_indices[lbl] for lbl in label] if isinstance(label, (list, tuple))
                          else self.class_indices[label])
        return labels

    @staticmethod
    def _filter_classes(rows, y_col, classes):
        def keep(labels):
            if isinstance(labels, (list, tuple)):
                return [c for c in labels if c in classes] or None
            if isinstance(labels, str):
                return labels if labels in classes else None
            raise TypeError(f"Expect string, list or tuple but found {type(labels)} in {y_col} column ")
        if classes:
            classes = list(dict.fromkeys(classes))
            rows = [dict(r, **{y_col: keep(r[y_col])}) for r in rows]
            rows = [r for r in rows if r[y_col] is not None]
        else:
            found = set()
            for r in rows:
                found.update(r[y_col] if isinstance(r[y_col], (list, tuple)) else [r[y_col]])
            classes = sorted(found)
        return rows, classes

    def _filter_valid_filepaths(self, rows, x_col):
        valid = [r for r in rows if _valid_filename(os.path.join(self.directory, r[x_col]),
                                                    self.white_list_formats)]
        if len(valid) != len(rows):
            warnings.warn(f'Found {len(rows) - len(valid)} invalid image filename(s) in x_col="{x_col}". '
                          f"These filename(s) will be ignored.", stacklevel=3)
        return valid

    @property
    def labels(self):
        """Targets for 'raw' and 'multi_output', else class indices."""
        if self.class_mode in {"multi_output", "raw"}:
            return self._targets
        return self.classes

    @property
    def sample_weight(self):
        """The weight_col values, or None."""
        return self._sample_weight
