"""Buffering nodes of tf.data pipelines: `prefetch` (a producer thread fills a bounded queue)
and `cache` (the first complete pass is kept in memory, or in a file for later runs).
"""
import json
import os
import queue
import threading

import numpy as np

from minitf.data import structure as st
from minitf.data.pipeline import AUTOTUNE, END as _END
from minitf.data.transformations import UnaryDataset
from minitf.tensor import Tensor

__all__ = ["PrefetchDataset", "CacheDataset"]

_AUTOTUNE_PREFETCH = 2  # the buffer size AUTOTUNE chooses


class PrefetchDataset(UnaryDataset):
    """The input's elements, produced up to `buffer_size` ahead by a background thread."""

    def __init__(self, input_node, buffer_size):
        super().__init__(input_node)
        buffer_size = int(buffer_size)
        self._buffer_size = _AUTOTUNE_PREFETCH if buffer_size == AUTOTUNE else buffer_size
        if self._buffer_size < 0:
            raise ValueError(f"prefetch: buffer_size must be >= 0 or AUTOTUNE, got {buffer_size}.")

    def _generate(self, ctx):
        if self._buffer_size == 0:
            yield from self._input._generate(ctx)
            return
        items = queue.Queue(maxsize=self._buffer_size)
        stop = threading.Event()
        producer = threading.Thread(target=self._produce, args=(ctx, items, stop),
                                    name="minitf-prefetch", daemon=True)
        producer.start()
        try:
            while True:
                kind, value = items.get()
                if kind is _END:
                    return
                if kind == "error":
                    raise value
                yield value
        finally:
            stop.set()  # the consumer left (done, error or abandoned): let the thread end

    def _produce(self, ctx, items, stop):
        def put(item):
            while not stop.is_set():
                try:
                    items.put(item, timeout=0.05)
                    return True
                except queue.Full:
                    continue
            return False

        try:
            for element in self._input._generate(ctx):
                if not put(("value", element)):
                    return
        except BaseException as e:  # handed to the consumer, raised there
            put(("error", e))
            return
        put((_END, None))


class CacheDataset(UnaryDataset):
    """The input's elements, replayed from memory (or a '.minitf-cache.npz' file) after the first
    complete pass."""

    def __init__(self, input_node, filename):
        super().__init__(input_node)
        self._filename = os.fspath(filename) if filename else ""
        self._elements = None

    def _cache_path(self):
        return self._filename + ".minitf-cache.npz"

    def _load_file(self):
        path = self._cache_path()
        if not self._filename or not os.path.exists(path):
            return None
        with np.load(path, allow_pickle=False) as f:
            n, per = int(f["count"]), int(f["leaves"])
            template = _structure_from_json(str(f["structure"]))
            flat = [Tensor(f[f"e{i}_{j}"]) for i in range(n) for j in range(per)]
        return [st.pack(template, flat[i * per:(i + 1) * per]) for i in range(n)]

    def _store(self, elements):
        self._elements = elements
        if not self._filename:
            return
        arrays = {"count": np.int64(len(elements)),
                  "leaves": np.int64(len(st.flatten(elements[0])) if elements else 0),
                  "structure": np.str_(_structure_to_json(elements[0] if elements else None))}
        for i, e in enumerate(elements):
            for j, t in enumerate(st.flatten(e)):
                arrays[f"e{i}_{j}"] = np.asarray(t)
        tmp = f"{self._cache_path()}.tmp{os.getpid()}"
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, self._cache_path())

    def _generate(self, ctx):
        if self._elements is None:
            self._elements = self._load_file()
        if self._elements is not None:
            yield from self._elements
            return
        seen = []
        for element in self._input._generate(ctx):
            seen.append(element)
            yield element
        self._store(seen)  # only a complete first pass is cached, as TF


def _structure_to_json(element):
    """The nesting of `element` (tuples and dicts, leaves as 0) as JSON, for the cache file."""

    def encode(e):
        if isinstance(e, dict):
            return {"dict": [[k, encode(v)] for k, v in e.items()]}
        if isinstance(e, tuple):
            return {"tuple": [encode(v) for v in e]}
        return 0
    return json.dumps(encode(element))


def _structure_from_json(text):
    """A template structure (leaves 0) from `_structure_to_json`'s text."""

    def decode(e):
        if isinstance(e, dict) and "dict" in e:
            return {k: decode(v) for k, v in e["dict"]}
        if isinstance(e, dict):
            return tuple(decode(v) for v in e["tuple"])
        return 0
    return decode(json.loads(text))
