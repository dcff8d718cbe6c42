"""Transformation nodes of tf.data pipelines: map, filter, batch, unbatch, shuffle, repeat,
take, skip and take_while. Each wraps one input node and pulls its elements lazily.

Prefetch and cache, which hold elements in buffers, are in `buffering.py`.
"""
import collections
import concurrent.futures
import math
import os
import sys

import numpy as np

from minitf import backend
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.data import composite_elements as composite, shuffle_order, structure as st
from minitf.data.pipeline import (AUTOTUNE, INFINITE_CARDINALITY as _INF, UNKNOWN_CARDINALITY as _UNK,
                                  IterContext, Node, call_with_element)
from minitf.function import TensorSpec
from minitf.ops.arg_checks import converted
from minitf.ops.random import get_seed
from minitf.ragged.ragged_spec import RaggedTensorSpec
from minitf.ragged.ragged_tensor import RaggedTensor
from minitf.sparse import batching as sparse_batching
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.tensor import Tensor

__all__ = ["UnaryDataset", "IdentityDataset", "MapDataset", "FilterDataset", "TakeWhileDataset",
           "BatchDataset", "UnbatchDataset", "ShuffleDataset", "RepeatDataset", "TakeDataset",
           "SkipDataset"]


class UnaryDataset(Node):
    """A node with one input; by default it keeps the input's cardinality and element spec."""

    def __init__(self, input_node):
        super().__init__((input_node,))
        self._input = input_node

    def _cardinality(self):
        return self._input._cardinality()

    def _compute_spec(self):
        return self._input.element_spec


class IdentityDataset(UnaryDataset):
    """The input's elements unchanged (`with_options` needs a new dataset with the same ones)."""

    def _generate(self, ctx):
        return self._input._generate(ctx)


def _int64_scalar(value, method, arg, op):
    """A size argument of a tf.data transformation, converted as TF converts it (an int64
    scalar: TypeError for a float or string, ValueError for None, InvalidArgumentError naming
    the op when it is not a scalar)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    t = converted(value, f"Dataset.{method}", arg, dtypes.int64)
    if t._value.ndim:
        raise errors.invalid_argument(op, f"Dataset.{method}: {arg} must be a scalar, got shape {list(t.shape)}")
    return int(t.numpy())


def _bool_arg(value, method, arg):
    """A flag TF converts to a bool tensor (TypeError for what is not a bool)."""
    if isinstance(value, (bool, np.bool_)) or isinstance(value, Tensor):
        return bool(value)
    return bool(converted(value, f"Dataset.{method}", arg, dtypes.bool).numpy())


class MapDataset(UnaryDataset):
    def __init__(self, input_node, fn, num_parallel_calls):
        super().__init__(input_node)
        if not callable(fn):  # TF's ValueError
            raise ValueError(f"Dataset.map: argument `func` must be a callable. Received func={fn!r} "
                             f"(of type {type(fn)})")
        self._fn = fn
        if num_parallel_calls is not None:
            num_parallel_calls = _int64_scalar(num_parallel_calls, "map", "num_parallel_calls",
                                               "ParallelMapDatasetV2")
            if num_parallel_calls != AUTOTUNE and num_parallel_calls <= 0:
                raise errors.invalid_argument("ParallelMapDatasetV2", f"Dataset.map: num_parallel_calls "
                                              f"must be greater than zero (or tf.data.AUTOTUNE), got "
                                              f"{num_parallel_calls}")
        if num_parallel_calls == AUTOTUNE:
            num_parallel_calls = os.cpu_count() or 1
        self._workers = int(num_parallel_calls) if num_parallel_calls else 1

    def _apply(self, element):
        try:
            return st.normalize(call_with_element(self._fn, element))
        except TypeError as e:  # TF reports the mapped function's errors "in user code"
            if type(e) is not TypeError or str(e).startswith("Dataset.map"):
                raise
            raise TypeError(f"Dataset.map: in user code: {e}") from e

    def _generate(self, ctx):
        if self._workers <= 1:
            for element in self._input._generate(ctx):
                yield self._apply(element)
            return
        # order-preserving parallel map: keep up to `workers` calls in flight
        with concurrent.futures.ThreadPoolExecutor(self._workers) as pool:
            pending = collections.deque()
            for element in self._input._generate(ctx):
                pending.append(pool.submit(self._apply, element))
                if len(pending) >= self._workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()

    def _compute_spec(self):
        # TF's spec is its trace's (a batched input's first dimension stays None); where minitf
        # cannot trace the function, or the trace disagrees with a real element, the spec of
        # the function's result on the first element
        traced = self._trace()
        for element in self._input._generate(IterContext()):
            first = st.spec_of(self._apply(element))
            return traced if traced is not None and _describes(traced, first) else first
        if traced is None:
            raise ValueError("Cannot infer the element_spec of a map over an empty dataset.")
        return traced

    def _trace(self):
        """The spec of a trace of the function on the input's spec (None where it fails)."""
        if "_traced" not in self.__dict__:
            self._traced = composite.traced_spec(self._fn, self._input._traced_spec())
        return self._traced

    def _traced_spec(self):
        traced = self._trace()
        return traced if traced is not None else self.element_spec


def _describes(traced, actual):
    """Whether the traced spec `traced` describes an element of spec `actual`: the same
    structure of TensorSpecs with the same dtypes, each traced shape compatible with the real one."""
    if not st.same_structure(traced, actual):
        return False
    return all(type(t) is TensorSpec and type(a) is TensorSpec and t.is_compatible_with(a)
               for t, a in zip(st.flatten(traced), st.flatten(actual)))


def _check_predicate_result(value, what):
    t = st.to_tensor(value) if not isinstance(value, Tensor) else value
    if t.dtype != dtypes.bool or t.ndim != 0:
        raise ValueError(f"Invalid `predicate` of {what}: it must return a tf.bool scalar tensor, "
                         f"but returned dtype {t.dtype.name} with shape {t.shape}.")
    return bool(t.numpy())


class FilterDataset(UnaryDataset):
    def __init__(self, input_node, predicate):
        super().__init__(input_node)
        self._predicate = predicate

    def _generate(self, ctx):
        for element in self._input._generate(ctx):
            if _check_predicate_result(call_with_element(self._predicate, element), "filter"):
                yield element

    def _cardinality(self):
        return _UNK


class TakeWhileDataset(FilterDataset):
    def _generate(self, ctx):
        for element in self._input._generate(ctx):
            if not _check_predicate_result(call_with_element(self._predicate, element),
                                           "take_while"):
                return
            yield element


def _stack(tensors):
    if isinstance(tensors[0], SparseTensor):  # TF stacks sparse rows into [batch, largest dims]
        return sparse_batching.batch(tensors)
    raws = [t._value for t in tensors]
    xp = backend.array_module(raws[0])
    shapes = {r.shape for r in raws}
    if len(shapes) > 1:
        raise ValueError(f"Cannot batch tensors with different shapes in component 0: got "
                         f"{sorted(shapes)}. Use padded_batch, or make the shapes equal.")
    return Tensor(xp.stack(raws))


def _pad_stack(tensors, padded_shape, padding_value):
    raws = [t._value for t in tensors]
    xp = backend.array_module(raws[0])
    rank = raws[0].ndim
    target = [max(r.shape[i] for r in raws) for i in range(rank)]
    if padded_shape is not None:
        for i, d in enumerate(list(padded_shape)):
            d = None if d is None or (isinstance(d, int) and d < 0) else int(d)
            if d is not None:
                if d < target[i]:
                    raise ValueError(f"padded_batch: an element has size {target[i]} in "
                                     f"dimension {i}, larger than the padded shape {d}.")
                target[i] = d
    fill = 0 if padding_value is None else (
        padding_value.numpy() if isinstance(padding_value, Tensor) else padding_value)
    out = xp.full([len(raws)] + target, fill, dtype=raws[0].dtype)
    for k, r in enumerate(raws):
        out[(k,) + tuple(slice(0, s) for s in r.shape)] = r
    return Tensor(out)


class BatchDataset(UnaryDataset):
    def __init__(self, input_node, batch_size, drop_remainder, padded=False,
                 padded_shapes=None, padding_values=None):
        super().__init__(input_node)
        batch_size = _int64_scalar(batch_size, "batch", "batch_size", "BatchDatasetV2")
        if batch_size <= 0:  # TF's kernel: InvalidArgumentError (a ValueError in minitf)
            raise errors.invalid_argument("BatchDatasetV2", f"Dataset.batch: `batch_size` must be greater "
                                                            f"than zero, got {batch_size}.")
        self._batch_size = batch_size
        self._drop = _bool_arg(drop_remainder, "batch", "drop_remainder")
        self._padded = padded
        self._padded_shapes = padded_shapes
        self._padding_values = padding_values

    def _combine(self, elements):
        template = elements[0]
        columns = list(zip(*[st.flatten(e) for e in elements]))
        if not self._padded:
            specs = st.flatten(self._input.element_spec)
            return st.pack(template, [composite.join_ragged(c, s) if isinstance(s, RaggedTensorSpec)
                                      else _stack(c) for c, s in zip(columns, specs)])
        n = len(columns)
        shapes = ([None] * n if self._padded_shapes is None
                  else _flatten_like(template, self._padded_shapes, n))
        values = ([None] * n if self._padding_values is None
                  else _flatten_like(template, self._padding_values, n))
        return st.pack(template, [_pad_stack(c, s, v) for c, s, v in zip(columns, shapes, values)])

    def _generate(self, ctx):
        buffer = []
        for element in self._input._generate(ctx):
            buffer.append(element)
            if len(buffer) == self._batch_size:
                yield self._combine(buffer)
                buffer = []
        if buffer and not self._drop:
            yield self._combine(buffer)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._batch_size if self._drop else math.ceil(n / self._batch_size)

    def _compute_spec(self):
        inner = self._input.element_spec
        if self._padded:
            inner = st.map_leaves(lambda s: TensorSpec([None] * (s.shape.rank or 0), s.dtype)
                                  if s.shape.rank is not None else s, inner)
        return st.spec_with_leading(inner, self._batch_size if self._drop else None)


def _flatten_like(template, values, n):
    """Leaves of per-component `values` (shapes or scalars) matching `template`'s n leaves."""
    if n == 1 and not st.is_nested(template):
        return [values]
    if isinstance(values, list):
        values = tuple(values)
    if st.is_nested(values):
        out = []
        if isinstance(values, dict):
            return [values[k] for k in sorted(values)]
        for v in values:
            out.append(v)
        if len(out) == n:
            return out
    return [values] * n


class UnbatchDataset(UnaryDataset):
    def _generate(self, ctx):
        for element in self._input._generate(ctx):
            leaves = st.flatten(element)
            for t in leaves:
                if composite.rank_of(t) == 0:
                    raise ValueError("Cannot unbatch an input with scalar components.")
            n = {composite.leading_size(t) for t in leaves}
            if len(n) > 1:
                raise ValueError(f"unbatch: components have different first dimensions {sorted(n)}.")
            rows = [composite.rows_of(t) if isinstance(t, (SparseTensor, RaggedTensor)) else None
                    for t in leaves]
            for i in range(n.pop() if n else 0):
                yield st.pack(element, [r[i] if r is not None else Tensor(t._value[i, ...])
                                        for t, r in zip(leaves, rows)])

    def _cardinality(self):
        return _UNK

    def _compute_spec(self):
        return st.spec_without_leading(self._input.element_spec)


def _seed_int(*parts):
    """A 63-bit seed (fits an int64 Variable) derived from non-negative integer parts."""
    state = np.random.SeedSequence([int(p) & 0xFFFFFFFFFFFFFFFF for p in parts])
    return int(state.generate_state(1, np.uint64)[0] >> np.uint64(1))


def resolve_seed(seed):
    """The base seed of a shuffle: from (global seed, op seed) as TF, else fresh entropy."""
    global_seed, op_seed = get_seed(seed)
    if global_seed is None:  # neither seed set (get_seed supplies TF's default global seed)
        return _seed_int(np.random.SeedSequence().entropy)
    return _seed_int(global_seed, 0 if op_seed is None else op_seed)


class ShuffleDataset(UnaryDataset):
    """A random permutation through a buffer of `buffer_size` elements, in TF's order
    (`minitf.data.shuffle_order`).

    Its seeds are fixed at construction. When reshuffling each iteration, every iteration takes
    the next index of the dataset's seed sequence: an iterator reserves one when it is created
    (its key), and a `repeat` above the shuffle enters it again with the following indices, as
    TF's seed generator hands them out. (Two live iterators whose repeats re-enter the shuffle
    in turn draw in another order than TF's, which interleaves their indices.)
    """

    shuffles = True

    def __init__(self, input_node, buffer_size, seed, reshuffle):
        super().__init__(input_node)
        buffer_size = _int64_scalar(buffer_size, "shuffle", "buffer_size", "ShuffleDatasetV3")
        if buffer_size == AUTOTUNE:
            buffer_size = 1024
        if buffer_size == _UNK:  # TF: the whole dataset
            buffer_size = sys.maxsize
        if buffer_size <= 0:  # TF's kernel: InvalidArgumentError (a ValueError in minitf)
            raise errors.invalid_argument("ShuffleDatasetV3", f"Dataset.shuffle: buffer_size must be greater "
                                                              f"than zero or UNKNOWN_CARDINALITY, got {buffer_size}.")
        self._buffer_size = buffer_size
        if not isinstance(reshuffle, (bool, np.bool_)):  # TF's bool attr
            raise TypeError(f"Dataset.shuffle: expected a bool for argument `reshuffle_each_iteration`, not "
                            f"{reshuffle!r}")
        try:
            self._base_seed = shuffle_order.pack(*shuffle_order.seed_pair(seed))
        except TypeError as e:
            raise TypeError(f"Dataset.shuffle: {e}") from None
        self._reshuffle = bool(reshuffle)
        self._keys_issued = 0

    def _next_key(self):
        """The iteration key of a new iterator: the next index of the seed sequence when
        reshuffling each iteration."""
        if not self._reshuffle:
            return 0
        key = self._keys_issued
        self._keys_issued += 1
        return key

    def _generate(self, ctx):
        owned = id(self) in ctx.shuffle_state  # else a probe (an element spec): no index is used up
        packed, key = ctx.shuffle_state.get(id(self), (self._base_seed, 0))
        seed, seed2 = shuffle_order.unpack(packed)
        entry = ctx.enter(self)
        if self._reshuffle:
            index = key + entry
            if owned:
                self._keys_issued = max(self._keys_issued, index + 1)
            seed, seed2 = shuffle_order.iteration_seeds(seed, seed2, index)
        yield from shuffle_order.buffered_shuffle(self._input._generate(ctx), self._buffer_size,
                                                  shuffle_order.Draws(seed, seed2))


class RepeatDataset(UnaryDataset):
    def __init__(self, input_node, count):
        super().__init__(input_node)
        self._count = -1 if count is None else int(count)

    def _generate(self, ctx):
        epoch = 0
        while self._count < 0 or epoch < self._count:
            produced = False
            for element in self._input._generate(ctx):
                produced = True
                yield element
            if not produced:
                return  # an empty input repeated forever is still empty
            epoch += 1

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:  # as TF: forever is infinite unless known to be empty
            return 0 if n == 0 else _INF
        if n < 0:
            return 0 if self._count == 0 else n
        return n * self._count


class TakeDataset(UnaryDataset):
    def __init__(self, input_node, count):
        super().__init__(input_node)
        self._count = int(count)

    def _generate(self, ctx):
        if self._count == 0:
            return
        for i, element in enumerate(self._input._generate(ctx)):
            yield element
            if self._count >= 0 and i + 1 >= self._count:
                return

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return n
        if n == _INF:
            return self._count
        return n if n == _UNK else min(n, self._count)


class SkipDataset(UnaryDataset):
    def __init__(self, input_node, count):
        super().__init__(input_node)
        self._count = int(count)

    def _generate(self, ctx):
        if self._count < 0:
            return
        for i, element in enumerate(self._input._generate(ctx)):
            if i >= self._count:
                yield element

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return 0 if n >= 0 else n
        return n if n < 0 else max(0, n - self._count)


class ShardDataset(UnaryDataset):
    """Every `num_shards`-th element of the input, starting at element `index`."""

    def __init__(self, input_node, num_shards, index):
        super().__init__(input_node)
        self._num_shards, self._index = num_shards, index

    def _generate(self, ctx):
        for i, element in enumerate(self._input._generate(ctx)):
            if i % self._num_shards == self._index:
                yield element

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._num_shards + (1 if self._index < n % self._num_shards else 0)
