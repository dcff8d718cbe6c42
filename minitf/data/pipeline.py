"""The plan behind a tf.data.Dataset: a graph of nodes, each producing elements on demand.

A `tf.data.Dataset` is a thin handle on one `Node`. A node knows three things:

- `_generate(ctx)`: a Python generator over its elements, pulling from its input nodes;
- `_cardinality()`: how many elements it has (or INFINITE_CARDINALITY / UNKNOWN_CARDINALITY);
- `_compute_spec()`: the TensorSpec structure of one element (cached as `element_spec`).

Node classes are named after TF's dataset kernels (`RangeDataset`, `MapDataset`, ...). Sources
live in `sources.py`, element-wise transformations in `transformations.py`, prefetch and cache
in `buffering.py`. None of them knows about `Dataset`: the public class sits on top and only
wraps nodes, so imports flow one way (nodes -> dataset).

Every iteration gets an `IterContext`, which carries what makes it reproducible: for each
shuffle node a base seed and an iteration key. The checkpointable `Iterator` keeps those and
its position in Variables, so a restored iterator replays the same sequence.
"""
import collections

from minitf.data import structure as st
from minitf.api_export import export_value

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "IterContext", "Node",
           "shuffle_nodes", "call_with_element", "END"]

AUTOTUNE = -1
export_value("AUTOTUNE", "data.AUTOTUNE", "data.experimental.AUTOTUNE")
INFINITE_CARDINALITY = -1
export_value("INFINITE_CARDINALITY", "data.INFINITE_CARDINALITY",
             "data.experimental.INFINITE_CARDINALITY")
UNKNOWN_CARDINALITY = -2
export_value("UNKNOWN_CARDINALITY", "data.UNKNOWN_CARDINALITY",
             "data.experimental.UNKNOWN_CARDINALITY")

END = object()  # marks the end of a stream where None could be an element


class IterContext:
    """Per-iteration state: shuffle seeds/keys and how many times each node was entered."""

    __slots__ = ("shuffle_state", "entries")

    def __init__(self, shuffle_state=None):
        self.shuffle_state = shuffle_state if shuffle_state is not None else {}  # id -> (seed, key)
        self.entries = collections.Counter()

    def enter(self, node):
        """How many times `node` was entered before (0 the first time) in this iteration."""
        count = self.entries[id(node)]
        self.entries[id(node)] += 1
        return count


class Node:
    """One step of a pipeline: a source, or a transformation of the nodes in `_inputs`."""

    shuffles = False  # True for nodes whose order depends on a seed (see `shuffle_nodes`)

    def __init__(self, inputs=()):
        self._inputs = tuple(inputs)
        self._spec_cache = None

    def _generate(self, ctx):
        raise NotImplementedError

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _compute_spec(self):
        """The element spec; by default, that of the first element of a fresh iteration."""
        for element in self._generate(IterContext()):
            return st.spec_of(element)
        raise ValueError("Cannot infer the element_spec of an empty dataset.")

    def _traced_spec(self):
        """The spec TF would trace for this node's elements (unknown sizes as None) where it
        differs from `element_spec`, which minitf reads off the first element."""
        return self.element_spec

    @property
    def element_spec(self):
        """The structure of TensorSpecs describing one element (computed once)."""
        if self._spec_cache is None:
            self._spec_cache = self._compute_spec()
        return self._spec_cache


def shuffle_nodes(node):
    """The shuffle nodes of the pipeline ending at `node`, each once, in a fixed order."""
    seen, out, stack = set(), [], [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if current.shuffles:
            out.append(current)
        stack.extend(reversed(current._inputs))
    return out


def call_with_element(fn, element):
    """Call a user function as tf.data does: a tuple element is unpacked into arguments."""
    if isinstance(element, tuple) and not hasattr(element, "_fields"):
        return fn(*element)
    return fn(element)

