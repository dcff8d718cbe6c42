"""Nodes of tf.data pipelines that combine datasets: interleave (and flat_map), window (datasets
of datasets), the directed interleave behind sample_from_datasets / choose_from_datasets, and
the endless counter.

These nodes create or consume `Dataset` objects, but `Dataset` sits above them (dataset.py
imports this module), so the class is passed in as `dataset_type` where one is needed.
"""
import os

import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.data import structure as st
from minitf.data.pipeline import (AUTOTUNE, END as _END, INFINITE_CARDINALITY as _INF, UNKNOWN_CARDINALITY as _UNK,
                                  IterContext, Node, call_with_element)
from minitf.data.transformations import resolve_seed
from minitf.function import TensorSpec
from minitf.tensor import Tensor

__all__ = ["InterleaveDataset", "WindowDataset", "DirectedInterleaveDataset", "CounterDataset",
           "RejectionResampleDataset"]


def _positive(value, what, op):
    value = int(value)
    if value <= 0:
        raise errors.InvalidArgumentError(None, None, f"{what} must be greater than zero, got {value} ({op}).")
    return value


class InterleaveDataset(Node):
    """TF's (deterministic) interleave: a cycle of `cycle_length` open datasets, made by
    `map_func` from the input elements, read `block_length` elements at a time, slot by slot.

    An exhausted slot is refilled in place from the next input element before moving on, which
    is the order of TF's InterleaveDataset kernel (its parallel form gives the same order when
    deterministic).
    """

    def __init__(self, input_node, map_func, cycle_length, block_length, dataset_type, op="interleave"):
        super().__init__((input_node,))
        self._input = input_node
        self._fn = map_func
        if cycle_length is None or int(cycle_length) == AUTOTUNE:
            cycle_length = os.cpu_count() or 1  # TF: the number of schedulable CPU cores
        self._cycle = _positive(cycle_length, "cycle_length", op)
        self._block = _positive(1 if block_length is None else block_length, "block_length", op)
        self._dataset_type = dataset_type
        self._op = op

    def _open(self, element):
        result = call_with_element(self._fn, element)
        if not isinstance(result, self._dataset_type):
            raise TypeError(f"The `map_func` argument of {self._op} must return a `Dataset` object, got "
                            f"{type(result).__name__}: {result!r}. Wrap tensors with "
                            f"tf.data.Dataset.from_tensors or from_tensor_slices.")
        return result

    def _generate(self, ctx):
        inputs = self._input._generate(ctx)
        slots = [None] * self._cycle
        index = block = is_open = 0
        input_done = False
        while not input_done or is_open:
            if slots[index] is not None:
                element = next(slots[index], _END)
                if element is not _END:
                    yield element
                    block += 1
                    if block == self._block:
                        block, index = 0, (index + 1) % self._cycle
                    continue
                slots[index] = None
                is_open -= 1
                block, index = 0, (index + 1) % self._cycle
            elif not input_done:
                element = next(inputs, _END)
                if element is _END:
                    input_done = True
                else:
                    slots[index] = self._open(element)._node._generate(ctx)
                    is_open += 1
            else:
                block, index = 0, (index + 1) % self._cycle

    def _compute_spec(self):
        for element in self._input._generate(IterContext()):
            return self._open(element).element_spec
        raise ValueError(f"Cannot infer the element_spec of {self._op} over an empty dataset.")



class _VariantDataset(Node):
    """One window of a component: its buffered elements (TF's windows are materialized too)."""

    def __init__(self, elements, spec):
        super().__init__()
        self._elements = elements
        self._spec = spec

    def _generate(self, ctx):
        yield from self._elements

    def _cardinality(self):
        return len(self._elements)

    def _compute_spec(self):
        return self._spec


class WindowDataset(Node):
    """Windows of `size` input elements taken every `stride`, a new window every `shift`
    elements; each output element is the input's structure with a dataset per component."""

    def __init__(self, input_node, size, shift, stride, drop_remainder, dataset_type):
        super().__init__((input_node,))
        self._input = input_node
        op = "Dataset.window"
        self._size = _positive(size, "Window size", op)
        self._shift = _positive(self._size if shift is None else shift, "Window shift", op)
        self._stride = _positive(stride, "Window stride", op)
        self._drop = bool(drop_remainder)
        self._dataset_type = dataset_type

    def _window(self, elements):
        spec = self._input.element_spec
        columns = list(zip(*[st.flatten(e) for e in elements]))
        return st.pack(spec, [self._dataset_type(_VariantDataset(list(column), leaf))
                              for column, leaf in zip(columns, st.flatten(spec))])

    def _generate(self, ctx):
        inputs = self._input._generate(ctx)
        target = (self._size - 1) * self._stride + 1
        buffer, done = [], False
        while True:
            while not done and len(buffer) < target:
                element = next(inputs, _END)
                if element is _END:
                    done = True
                else:
                    buffer.append(element)
            if not buffer or (self._drop and len(buffer) < target):
                return
            yield self._window(buffer[::self._stride][:self._size])
            if self._shift <= len(buffer):
                buffer = buffer[self._shift:]
            else:  # the next window starts past the buffered elements: skip the gap
                for _ in range(self._shift - len(buffer)):
                    if next(inputs, _END) is _END:
                        done = True
                        break
                buffer = []

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        if self._drop:
            target = (self._size - 1) * self._stride + 1
            return 0 if n < target else (n - target) // self._shift + 1
        return -(-n // self._shift)

    def _compute_spec(self):
        return st.map_leaves(st.DatasetSpec, self._input.element_spec)


class DirectedInterleaveDataset(Node):
    """Elements of `datasets` in the order picked by a selector: random indices drawn with
    `weights` (sample_from_datasets) or the int64 elements of a choice dataset.

    An exhausted input ends the output when `stop_on_empty`; otherwise it is dropped and the
    selector is asked again, until every input is exhausted (TF's DirectedInterleave kernel).
    The random selector's sequence is reproducible from the seed (global and op seed, as
    `shuffle`) and is the same for every iteration unless `rerandomize` is set. The sequence is
    not TF's: TF draws from its Philox generator.
    """

    def __init__(self, nodes, stop_on_empty, weights=None, seed=None, rerandomize=False, choice=None):
        super().__init__(tuple(nodes) + (() if choice is None else (choice,)))
        self._nodes = list(nodes)
        self._stop = bool(stop_on_empty)
        self._choice = choice
        if choice is None:
            self.shuffles = True  # the Iterator saves the seed and key of a random selector
            w = np.asarray(weights, dtype=np.float64)
            self._p = w / w.sum()
            self._base_seed = resolve_seed(seed)
            self._rerandomize = bool(rerandomize)
            self._keys_issued = 0

    def _next_key(self):
        """The iteration key of a new iterator: a fresh one only when rerandomizing."""
        if not self._rerandomize:
            return 0
        self._keys_issued += 1
        return self._keys_issued - 1

    def _selector(self, ctx):
        if self._choice is not None:
            for index in self._choice._generate(ctx):
                yield int(index.numpy())
            return
        base, key = ctx.shuffle_state.get(id(self), (self._base_seed, 0))
        epoch = ctx.enter(self) if self._rerandomize else 0
        rng = np.random.default_rng([base, key, epoch])
        while True:
            yield int(rng.choice(len(self._p), p=self._p))

    def _generate(self, ctx):
        inputs = [node._generate(ctx) for node in self._nodes]
        active = len(inputs)
        for index in self._selector(ctx):
            if not 0 <= index < len(inputs):
                raise errors.InvalidArgumentError(None, None, f"Selector index out of range: {index} >= "
                                                              f"{len(inputs)} (choose_from_datasets)")
            if inputs[index] is None:
                continue
            element = next(inputs[index], _END)
            if element is not _END:
                yield element
                continue
            if self._stop:
                return
            inputs[index] = None
            active -= 1
            if active == 0:
                return

    def _cardinality(self):
        cards = [node._cardinality() for node in self._nodes]
        if self._choice is None and (all(c == _INF for c in cards) or (not self._stop and _INF in cards)):
            return _INF  # an endless random selector never runs out while an infinite input is left
        return _UNK

    def _compute_spec(self):
        spec = self._nodes[0].element_spec
        for node in self._nodes[1:]:
            spec = st.relax_spec(spec, node.element_spec)
        return spec


class CounterDataset(Node):
    """`start`, `start + step`, ... forever, as scalars of `dtype` (tf.data.Dataset.counter)."""

    def __init__(self, start, step, dtype):
        super().__init__()
        self._start, self._step = int(start), int(step)
        self._dtype = dtypes.as_dtype(dtype)

    def _generate(self, ctx):
        value = self._start
        while True:
            yield Tensor(np.asarray(value, dtype=self._dtype._np))
            value += self._step

    def _cardinality(self):
        return _INF

    def _compute_spec(self):
        return TensorSpec([], self._dtype)


def _mixing(initial, target):
    """TF's acceptance probabilities with mixing: per-class acceptance of the filtered stream and
    the probability `m` of taking an element of the original stream instead."""
    ratio = target / (initial + np.finfo(np.float32).tiny)
    m = ratio.min()
    with np.errstate(divide="ignore", invalid="ignore"):
        return ((ratio - m) / (ratio.max() - m)).astype(np.float32), np.float32(m)


class RejectionResampleDataset(Node):
    """`(class, element)` pairs resampled toward `target` as TF's `rejection_resample`: with
    probability m an element of the input as is, otherwise the next element of a second pass
    over the input kept with its class's acceptance probability. Without `initial`, the class
    distribution is estimated as TF does (counts smoothed by 10, updated every 32 elements).
    The random draws are reproducible from the seed but are not TF's Philox draws.
    """

    shuffles = True

    def __init__(self, input_node, class_func, target, initial, seed):
        super().__init__((input_node,))
        self._input = input_node
        self._fn = class_func
        self._target = np.asarray(target, dtype=np.float32).reshape(-1)
        self._initial = None if initial is None else np.asarray(initial, dtype=np.float32).reshape(-1)
        self._static_m = None
        if self._initial is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                self._static_m = float(np.min(self._target / self._initial))
        self._base_seed = resolve_seed(seed)

    def _next_key(self):
        return 0

    def _class(self, element):
        value = call_with_element(self._fn, element)
        return int(getattr(value, "numpy", lambda: value)())

    def _dists(self, ctx):
        """The estimated class distribution in force for each successive element."""
        if self._initial is not None:
            while True:
                yield self._initial
        counts = np.full(len(self._target), 10, dtype=np.int64)
        batch = []
        for element in self._input._generate(ctx):
            batch.append(self._class(element))
            if len(batch) == 32:
                counts += np.bincount(batch, minlength=len(counts))[:len(counts)]
                yield from [(counts / counts.sum()).astype(np.float32)] * len(batch)
                batch = []
        if batch:
            counts += np.bincount(batch, minlength=len(counts))[:len(counts)]
            yield from [(counts / counts.sum()).astype(np.float32)] * len(batch)

    def _pair(self, element):
        data = element[0] if isinstance(element, tuple) and len(element) == 1 else element
        return st.normalize((call_with_element(self._fn, element), data))

    def _filtered(self, ctx, rng):
        for dist, element in zip(self._dists(ctx), self._input._generate(ctx)):
            accept, _ = _mixing(dist, self._target)
            cls = self._class(element)
            if rng.random(dtype=np.float32) < accept[cls]:
                yield self._pair(element)

    def _generate(self, ctx):
        base, key = ctx.shuffle_state.get(id(self), (self._base_seed, 0))
        if self._static_m == 1:
            yield from (self._pair(e) for e in self._input._generate(ctx))
            return
        filtered = self._filtered(ctx, np.random.default_rng([base, key, 1]))
        if self._static_m == 0:
            yield from filtered
            return
        original = self._input._generate(ctx)
        rng = np.random.default_rng([base, key, 0])
        for dist in self._dists(ctx):
            _, m = _mixing(dist, self._target)
            source = original if rng.random() < m else filtered
            element = next(source, _END)
            if element is _END:
                return  # as TF: stop_on_empty_dataset=True
            yield self._pair(element) if source is original else element

    def _compute_spec(self):
        for element in self._input._generate(IterContext()):
            return st.spec_of(self._pair(element))
        raise ValueError("Cannot infer the element_spec of rejection_resample over an empty dataset.")
