"""tf.data.Dataset: lazy input pipelines of tensor structures, iterated eagerly.

A Dataset is a handle on the last node of a pipeline plan (see `pipeline.py`). Building a
pipeline (`Dataset.range(10).map(f).batch(4)`) only creates nodes; elements are produced when
the dataset is iterated, one at a time, each node pulling from its input. Every method returns
a new Dataset and leaves the one it was called on unchanged, so a pipeline can be shared.
"""
import glob
import os

import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.data import structure as st
from minitf.data.buffering import CacheDataset, PrefetchDataset
from minitf.data.combinators import (CounterDataset, DirectedInterleaveDataset, InterleaveDataset,
                                     RejectionResampleDataset, WindowDataset)
from minitf.data.iterator import Iterator
from minitf.data.options import Options
from minitf.data.pipeline import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from minitf.data.ragged_batching import DenseToRaggedDataset
from minitf.data.sources import (ConcatenateDataset, GeneratorDataset, RangeDataset, SliceDataset,
                                 TensorsDataset, ZipDataset)
from minitf.data.transformations import (BatchDataset, FilterDataset, IdentityDataset, MapDataset,
                                         RepeatDataset, ShardDataset, ShuffleDataset, SkipDataset,
                                         TakeDataset, TakeWhileDataset, UnbatchDataset)
from minitf.function import TensorSpec
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["Dataset", "Iterator", "Options", "AUTOTUNE", "INFINITE_CARDINALITY",
           "UNKNOWN_CARDINALITY"]


@export("data.Dataset")
class Dataset:
    """A sequence of elements, each a structure of tensors, produced lazily on iteration.

    An element is a single tensor, or tuples and dicts of them (nested as deep as needed;
    unlike `tf.nest`, a Python list is read as one tensor). A pipeline has three stages:

    1. a source: `from_tensor_slices`, `from_tensors`, `range`, `from_generator`, `zip`;
    2. transformations, each returning a new Dataset: `map`, `filter`, `shuffle`, `batch`,
       `repeat`, `take`, `skip`, `cache`, `prefetch`, ...;
    3. consumption: a `for` loop, `iter()` (a checkpointable `tf.data.Iterator`),
       `as_numpy_iterator()`, `reduce()`, or passing the dataset to `Model.fit`.

    Nothing is computed while the pipeline is built. Elements flow one at a time, so a dataset
    can be larger than memory or infinite (`repeat()` with no count).

    Example:

    >>> ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3, 4], [0, 1, 0, 1]))
    >>> ds = ds.map(lambda x, y: (x * 10, y)).shuffle(4, seed=1).batch(2)
    >>> for features, labels in ds:
    ...     print(features.shape, labels.shape)
    (2,) (2,)
    (2,) (2,)

    The shape and dtype of an element are described by `element_spec`; the number of elements
    by `cardinality()` (INFINITE_CARDINALITY or UNKNOWN_CARDINALITY when it cannot be counted).
    """

    _is_tf_dataset = True  # lets structure.py keep datasets as element leaves (window)

    def __init__(self, node, options=None):
        # Not called by users: sources and transformations build datasets around plan nodes.
        self._node = node
        self._options = options if options is not None else Options()

    def _then(self, node):
        """A dataset after this one in the pipeline: `node`, with this dataset's options."""
        return Dataset(node, self._options)

    # --- sources ---
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """Creates a dataset with one element per row of `tensors`.

        `tensors` is sliced along its first dimension: a (N, ...) array gives N elements of
        shape (...). For a tuple or dict of arrays, slice i of every component forms element i,
        which is how features and labels are paired:

        >>> ds = tf.data.Dataset.from_tensor_slices(({"age": [31, 42]}, [0, 1]))
        >>> for features, label in ds:
        ...     print(int(features["age"]), int(label))
        31 0
        42 1

        A Python list is one tensor (`[1, 2, 3]` gives three scalars), not a structure.

        Args:
            tensors: A tensor, array, list of numbers, or a tuple/dict structure of them. Every
                component needs rank >= 1 and the same size in the first dimension.
            name: Unused; accepted for TF compatibility.

        Returns:
            A `Dataset` with as many elements as `tensors` has rows.

        Raises:
            ValueError: If a component is a scalar, or the components' first dimensions differ.
        """
        return Dataset(SliceDataset(tensors))

    @staticmethod
    def from_tensors(tensors, name=None):
        """Creates a dataset with exactly one element: `tensors`, whole.

        Unlike `from_tensor_slices`, nothing is sliced: `from_tensors([[1, 2], [3, 4]])` has one
        element of shape (2, 2). Useful with `repeat()` to feed the same batch many times.

        Args:
            tensors: A tensor, array or nested tuple/dict structure of them.
            name: Unused; accepted for TF compatibility.

        Returns:
            A `Dataset` of cardinality 1.
        """
        return Dataset(TensorsDataset(tensors))

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        """Creates a dataset whose elements are yielded by a Python generator.

        `generator(*args)` is called anew at the start of every iteration, so the dataset can
        be iterated many times. Each yielded value is converted to tensors and checked against
        `output_signature`: its structure must match, its shapes must be compatible, and
        integer values are cast to a declared float dtype (not the other way around).

        Args:
            generator: A callable returning an iterable (usually a generator function).
            output_types: Deprecated form of `output_signature`: a structure of dtypes.
            output_shapes: Deprecated, with `output_types`: a structure of shapes.
            args: A tuple of arguments passed to `generator`.
            output_signature: A structure of `tf.TensorSpec` describing one element.
            name: Unused; accepted for TF compatibility.

        Returns:
            A `Dataset` of unknown cardinality.

        Raises:
            TypeError: If `generator` is not callable, or no signature is given, or both forms
                of signature are given. While iterating, if an element has the wrong structure.
            ValueError: While iterating, if an element's shape does not fit the signature.
        """
        return Dataset(GeneratorDataset(generator, output_types, output_shapes, args,
                                        output_signature))

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """A dataset of the paths (0-d tf.string) matching `file_pattern`, a glob pattern or a list
        of them, found once, when this is called.

        The paths of all patterns are sorted together (a path matched twice appears twice) and,
        unless `shuffle=False`, shuffled anew on every iteration, reproducibly from `seed` and the
        global seed as `Dataset.shuffle` is. Pass `shuffle=False` for a fixed order.

        Raises:
          InvalidArgumentError: no file matches any of the patterns (the message names them).
        """
        patterns = getattr(file_pattern, "numpy", lambda: file_pattern)()
        patterns = getattr(patterns, "tolist", lambda: patterns)()
        patterns = [os.fsdecode(p) for p in ([patterns] if isinstance(patterns, (str, bytes, os.PathLike))
                                             else patterns)]
        paths = sorted(path for p in patterns for path in glob.glob(p))
        if not paths:
            raise errors.InvalidArgumentError(None, None, f"No files matched pattern: {', '.join(patterns)} "
                                                          f"(list_files; check the directory and the wildcards)")
        dataset = Dataset.from_tensor_slices(np.array([p.encode() for p in paths], dtype=object))
        if shuffle is None or shuffle:
            dataset = dataset.shuffle(len(paths), seed=seed)
        return dataset

    @staticmethod
    def range(*args, output_type=dtypes.int64, name=None):
        """Creates a dataset of scalars counting like Python's `range`.

        `range(stop)`, `range(start, stop)` and `range(start, stop, step)` are accepted; the
        stop value is excluded and `step` may be negative:

        >>> [int(x) for x in tf.data.Dataset.range(1, 8, 3)]
        [1, 4, 7]

        Args:
            *args: One to three integers: (stop), (start, stop) or (start, stop, step).
            output_type: The dtype of the elements (default int64).
            name: Unused; accepted for TF compatibility.

        Returns:
            A `Dataset` of scalar tensors.

        Raises:
            ValueError: If not given 1 to 3 arguments.
        """
        return Dataset(RangeDataset(args, output_type))

    @staticmethod
    def zip(*datasets, name=None):
        """Elements of several datasets paired up: `zip((a, b))` or `zip(a, b)` -> (ea, eb).

        The result stops with the shortest input. A dict of datasets gives dict elements.

        Raises:
            TypeError: If a leaf of `datasets` is not a Dataset.
        """
        if len(datasets) == 1:
            datasets = datasets[0]
        if isinstance(datasets, list):
            datasets = tuple(datasets)
        leaves = st.flatten(datasets)
        for d in leaves:
            if not isinstance(d, Dataset):
                raise TypeError(f"Dataset.zip expects a (nested) structure of datasets, got "
                                f"{type(d).__name__}.")
        return Dataset(ZipDataset(st.pack(datasets, [d._node for d in leaves])))

    @staticmethod
    def counter(start=0, step=1, dtype=dtypes.int64, name=None):
        """An infinite dataset of scalars `start`, `start + step`, ... of `dtype` (default int64)."""
        return Dataset(CounterDataset(start, step, dtype))

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Elements drawn at random from `datasets`, input i with probability `weights[i]`
        (uniform when None). An exhausted input is skipped from then on (or ends the output
        when `stop_on_empty_dataset`). The draws are reproducible from `seed` and the global
        seed, and repeat on every iteration unless `rerandomize_each_iteration`; they are not
        TF's Philox draws, only their distribution matches.

        Raises:
            ValueError: `datasets` is empty, or `weights` has a different length.
            TypeError: the datasets' element specs are incompatible.
        """
        datasets = _check_datasets(datasets)
        if weights is None:
            weights = [1.0] * len(datasets)
        weights = np.asarray(getattr(weights, "numpy", lambda: weights)(), dtype=np.float64).reshape(-1)
        if len(weights) != len(datasets):
            raise ValueError(f"Invalid `weights`. `weights` should have the same length as `datasets` but got "
                             f"`len(weights)={len(weights)}` vs. `len(datasets)={len(datasets)}`.")
        if (weights < 0).any():
            raise ValueError(f"Invalid `weights`: they must be non-negative, got {weights.tolist()}.")
        if not weights.any():
            return datasets[0].take(0)
        # as TF: inputs of weight 0 are left out, and a single input is returned as is
        datasets, weights = [d for d, w in zip(datasets, weights) if w > 0], weights[weights > 0]
        if len(datasets) == 1:
            return datasets[0]
        return Dataset(DirectedInterleaveDataset([d._node for d in datasets], stop_on_empty_dataset,
                                                 weights=weights, seed=seed,
                                                 rerandomize=bool(rerandomize_each_iteration)))

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """The elements of `datasets` in the order named by `choice_dataset`'s scalar int64
        elements (an index into `datasets` each). By default the output ends when a chosen
        input is exhausted; with `stop_on_empty_dataset=False` that choice is skipped.

        Raises:
            ValueError: `datasets` is empty. TypeError: incompatible element specs, or
            `choice_dataset` is not a dataset of scalar int64. InvalidArgumentError (while
            iterating): a choice is out of range.
        """
        datasets = _check_datasets(datasets)
        spec = getattr(choice_dataset, "element_spec", None)
        if not (isinstance(choice_dataset, Dataset) and spec == TensorSpec([], dtypes.int64)):
            raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` "
                            f"tensors but are {spec!r}.")
        return Dataset(DirectedInterleaveDataset([d._node for d in datasets], stop_on_empty_dataset,
                                                 choice=choice_dataset._node))

    # --- transformations ---
    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                   deterministic=None, name=None):
        """Maps each element to a dataset with `map_func` and interleaves their elements:
        `cycle_length` datasets are open at once (default: the CPU count, as TF), and
        `block_length` consecutive elements (default 1) are taken from each in turn. An
        exhausted dataset is replaced by the next input element's. The order is TF's
        deterministic order whatever `num_parallel_calls` and `deterministic` say.

        Raises:
            TypeError: (while iterating) `map_func` does not return a Dataset.
            InvalidArgumentError: `cycle_length` or `block_length` is not positive.
        """
        return self._then(InterleaveDataset(self._node, map_func, cycle_length, block_length, Dataset))

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None, name=None):
        """Resamples toward the class distribution `target_dist`, where `class_func(element)` is
        an element's int class: elements become `(class, element)` pairs, mixing the input as is
        with a filtered second pass as TF does (the input distribution is `initial_dist`, or
        estimated on the fly). Reproducible from `seed`, but not TF's random draws."""
        return self._then(RejectionResampleDataset(self._node, class_func, target_dist, initial_dist, seed))

    def flat_map(self, map_func, name=None):
        """Maps each element to a dataset with `map_func` and chains their elements in order."""
        return self._then(InterleaveDataset(self._node, map_func, 1, 1, Dataset, op="flat_map"))

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """A dataset of windows: each element is this dataset's element structure with a
        Dataset per component, holding `size` elements taken every `stride` input elements;
        a new window starts every `shift` elements (default `size`). Windows at the end are
        shorter unless `drop_remainder`. Use `flat_map(lambda w: w.batch(size))` to get tensors.

        Raises:
            InvalidArgumentError: `size`, `shift` or `stride` is not positive.
        """
        return self._then(WindowDataset(self._node, size, shift, stride, drop_remainder, Dataset))

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Applies `map_func` to every element.

        A tuple element is unpacked into positional arguments (`lambda x, y: ...` for
        `(features, labels)` pairs); any other element is passed as one argument. The function
        runs eagerly on tensors (minitf does not trace it) and may return any element
        structure; lists it returns become tuples.

        Args:
            map_func: A function from one element to a new element.
            num_parallel_calls: How many elements to process at once on a thread pool
                (`tf.data.AUTOTUNE`: one per CPU). Output order is always kept.
            deterministic: Unused (order is always kept).
            name: Unused; accepted for TF compatibility.

        Returns:
            A `Dataset` of the transformed elements, with the same cardinality.
        """
        return self._then(MapDataset(self._node, map_func, num_parallel_calls))

    def filter(self, predicate, name=None):
        """Keep the elements for which `predicate` returns a true scalar bool.

        Raises:
            ValueError: While iterating, if `predicate` returns anything but a bool scalar.
        """
        return self._then(FilterDataset(self._node, predicate))

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None,
              name=None):
        """Stacks consecutive elements into batches.

        Each component of `batch_size` consecutive elements is stacked along a new first
        dimension, so elements of shape (28, 28) become batches of shape (batch_size, 28, 28).
        The last batch is smaller when the count does not divide evenly, unless
        `drop_remainder` drops it (then the batch dimension is known statically).

        Args:
            batch_size: Number of elements per batch (> 0).
            drop_remainder: Whether to drop a last, smaller batch.
            num_parallel_calls: Unused; accepted for TF compatibility.
            deterministic: Unused; accepted for TF compatibility.
            name: Unused; accepted for TF compatibility.

        Returns:
            A `Dataset` of batches.

        Raises:
            ValueError: If `batch_size` is not positive. While iterating, if elements in one
                batch have different shapes (use `padded_batch` for those).
        """
        return self._then(BatchDataset(self._node, batch_size, drop_remainder))

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """Like `batch`, padding each component to `padded_shapes` (default: the batch maximum).

        Raises:
            ValueError: If `batch_size` is not positive, or (while iterating) an element is
                larger than its padded shape.
        """
        return self._then(BatchDataset(self._node, batch_size, drop_remainder, padded=True,
                                       padded_shapes=padded_shapes, padding_values=padding_values))

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=dtypes.int64, name=None):
        """Like `batch`, joining components whose shape is partly unknown into RaggedTensors."""
        node = DenseToRaggedDataset(self._node, row_splits_dtype)
        return self._then(BatchDataset(self._then(node)._node, batch_size, drop_remainder))

    def unbatch(self, name=None):
        """Split each element along its first dimension into several elements."""
        return self._then(UnbatchDataset(self._node))

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        """Randomly shuffles the elements through a buffer.

        The first `buffer_size` elements fill a buffer; each output is drawn at random from
        it and its slot refilled with the next input. A buffer at least as large as the
        dataset gives a uniform permutation; a small one only mixes nearby elements, so
        shuffle before `batch` and `repeat` (to mix across epochs).

        The order is reproducible from `seed` together with the global seed
        (`tf.random.set_seed`), and it is TF's: the same seeds visit the elements in the order
        TF 2.21 does. With `reshuffle_each_iteration` (the default) every iteration, and every
        epoch of a `repeat()` placed after it, gets a new order.

        Args:
            buffer_size: Number of elements in the buffer (> 0; AUTOTUNE picks 1024).
            seed: An optional int, the op-level seed.
            reshuffle_each_iteration: Whether each iteration uses a different order
                (default True).
            name: Unused; accepted for TF compatibility.

        Returns:
            A `Dataset` with the same elements in a random order.

        Raises:
            ValueError: If `buffer_size` is not positive.
        """
        return self._then(ShuffleDataset(self._node, buffer_size, seed,
                                         True if reshuffle_each_iteration is None
                                         else reshuffle_each_iteration))

    def repeat(self, count=None, name=None):
        """Repeats the dataset, epoch after epoch.

        Each repetition iterates the input again, so a `shuffle` before `repeat` reshuffles
        every epoch. An empty dataset repeated forever stays empty (it does not hang).

        Args:
            count: Number of repetitions; None or -1 repeats forever.
            name: Unused; accepted for TF compatibility.

        Returns:
            A `Dataset` of cardinality `count` times the input's (infinite when count is None).
        """
        return self._then(RepeatDataset(self._node, count))

    def take(self, count, name=None):
        """Keeps at most the first `count` elements.

        Handy to look at a few elements of a large dataset, or to bound an infinite one:
        `ds.repeat().take(100)`. Stops pulling from the input once `count` are produced.

        Args:
            count: Number of elements to keep; -1 keeps all of them.
            name: Unused; accepted for TF compatibility.

        Returns:
            A `Dataset` of at most `count` elements.
        """
        return self._then(TakeDataset(self._node, count))

    def skip(self, count, name=None):
        """All but the first `count` elements (nothing when -1)."""
        return self._then(SkipDataset(self._node, count))

    def shard(self, num_shards, index, name=None):
        """The elements whose position modulo `num_shards` is `index`: one of `num_shards` disjoint
        parts that together hold every element once (each worker of a job reads its own).

        Raises:
          InvalidArgumentError: `num_shards` below 1, or `index` outside [0, num_shards).
        """
        num_shards, index = (int(v.numpy()) if isinstance(v, Tensor) else int(v) for v in (num_shards, index))
        if num_shards < 1:
            raise errors.InvalidArgumentError(None, None, f"Dataset.shard: number of shards must be greater "
                                              f"than zero, got num_shards={num_shards}")
        if not 0 <= index < num_shards:
            raise errors.InvalidArgumentError(None, None, f"Dataset.shard: index must be between 0 and "
                                              f"{num_shards - 1} (num_shards - 1), got index={index}")
        return self._then(ShardDataset(self._node, num_shards, index))

    def take_while(self, predicate, name=None):
        """Elements up to (excluding) the first for which `predicate` is False."""
        return self._then(TakeWhileDataset(self._node, predicate))

    def prefetch(self, buffer_size, name=None):
        """Prepares later elements while the current one is being used.

        A background thread iterates the input and keeps up to `buffer_size` elements ready,
        so the work of the pipeline (a slow `map`, file reads) overlaps with the consumer's
        (a training step). Put it last in the pipeline. Errors raised by the input are
        re-raised in the consumer; leaving the loop early stops the thread.

        Args:
            buffer_size: Maximum number of elements kept ready; `tf.data.AUTOTUNE` picks a
                small buffer, 0 turns prefetching off.
            name: Unused; accepted for TF compatibility.

        Returns:
            A `Dataset` with the same elements.

        Raises:
            ValueError: If `buffer_size` is negative and not AUTOTUNE.
        """
        return self._then(PrefetchDataset(self._node, buffer_size))

    def cache(self, filename="", name=None):
        """Remembers the elements of the first complete iteration and replays them afterwards.

        Later iterations skip the work upstream (decoding, expensive maps). Only a complete
        pass is cached: stopping early (e.g. after `take`) caches nothing. With a `filename`,
        the elements are written to '<filename>.minitf-cache.npz' and reused by later runs;
        delete that file when the input changes. Place `cache` before `shuffle` so each epoch
        still gets a new order.

        Args:
            filename: Where to store the cache; empty keeps it in memory.
            name: Unused; accepted for TF compatibility.

        Returns:
            A `Dataset` with the same elements.
        """
        return self._then(CacheDataset(self._node, filename))

    def enumerate(self, start=0, name=None):
        """Pair each element with its int64 index: (index, element)."""
        return Dataset.zip((Dataset.range(start, np.iinfo(np.int64).max), self))

    def concatenate(self, dataset, name=None):
        """This dataset's elements followed by those of `dataset` (same structure and dtypes).

        Raises:
            TypeError: If `dataset` is not a Dataset, or its elements are incompatible.
        """
        if not isinstance(dataset, Dataset):
            raise TypeError(f"concatenate expects a Dataset, got {type(dataset).__name__}.")
        return Dataset(ConcatenateDataset(self._node, dataset._node))

    def apply(self, transformation_func):
        """`transformation_func(self)`, which must return a Dataset."""
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError(f"`transformation_func` must return a tf.data.Dataset object, got "
                            f"{type(result).__name__}.")
        return result

    def with_options(self, options, name=None):
        """This dataset with `options` merged into its options."""
        return Dataset(IdentityDataset(self._node), self._options.merge(options))

    def options(self):
        """The options of this dataset."""
        return self._options

    # --- consumption ---
    def reduce(self, initial_state, reduce_func, name=None):
        """Fold the elements into a state: state = reduce_func(state, element)."""
        state = st.normalize(initial_state)
        for element in self:
            state = st.normalize(reduce_func(state, element))
        return state

    def as_numpy_iterator(self):
        """An iterator over the elements as numpy values (same structure)."""
        return (st.to_numpy(element) for element in self)

    def __iter__(self):
        return Iterator(self)

    def cardinality(self):
        """The number of elements as an int64 scalar tensor, or INFINITE/UNKNOWN_CARDINALITY."""
        return Tensor(np.asarray(self._node._cardinality(), dtype=np.int64))

    def __len__(self):
        n = self._node._cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True

    @property
    def element_spec(self):
        """The structure of TensorSpecs describing one element."""
        return self._node.element_spec

    def __repr__(self):
        return f"<{type(self._node).__name__} element_spec={self.element_spec!r}>"


def _check_datasets(datasets):
    """`datasets` as a list of Datasets with compatible element specs (sample/choose_from_datasets)."""
    datasets = list(datasets) if not isinstance(datasets, Dataset) else [datasets]
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    for d in datasets:
        if not isinstance(d, Dataset):
            raise TypeError(f"Invalid `datasets`: expected a list of tf.data.Dataset, got {type(d).__name__}.")
    first = datasets[0].element_spec
    for d in datasets[1:]:
        try:
            ok = st.same_structure(first, d.element_spec)
            if ok:
                st.relax_spec(first, d.element_spec)
        except TypeError:
            ok = False
        if not ok:
            specs = "\n".join(f"Dataset {i} element_spec={x.element_spec}." for i, x in enumerate(datasets))
            raise TypeError(f"Invalid `datasets`. `datasets` must have compatible element specs.\n {specs}")
    return datasets
