"""tf.experimental.Optional: a value that may be absent, what `get_next_as_optional` returns so a
loop can stop at the end of a dataset without catching OutOfRangeError.

Eagerly an Optional holds its flag as a bool Tensor and its value as a structure of Tensors.
Inside tf.function it holds symbolic tensors: the flag and a value that is zeros of the element
spec when there is none (unknown dimensions 0), and `get_value` adds a node that raises when
the graph runs without a value, as TF's OptionalGetValue.
"""
import numpy as np

from minitf.data import structure as st
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.function import TensorSpec
from minitf.recording import active_graph
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["Optional", "OptionalSpec", "next_as_optional", "get_next_as_optional"]

_NO_VALUE = "The given optional does not have a value."


@export("OptionalSpec")
class OptionalSpec:
    """The type of an Optional: the spec structure of the value it may hold."""

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @property
    def value_type(self):
        """The class of the values this spec describes."""
        return Optional

    @staticmethod
    def from_value(value):
        """The spec of the Optional `value`."""
        return OptionalSpec(value.element_spec)

    def __eq__(self, other):
        return isinstance(other, OptionalSpec) and self._element_spec == other._element_spec

    def __hash__(self):
        return hash(repr(self._element_spec))

    def __repr__(self):
        return f"OptionalSpec({self._element_spec!r},)"


@export("experimental.Optional", "data.experimental.Optional")
class Optional:
    """A value that may be absent. Build one with `Optional.from_value` or `Optional.empty`; ask
    `has_value()` before `get_value()`, which raises InvalidArgumentError when there is none."""

    def __init__(self, has_value, value, element_spec):
        self._has_value = has_value
        self._value = value
        self._element_spec = element_spec

    @staticmethod
    def from_value(value):
        """An Optional holding `value` (a structure of tensors or values convertible to them)."""
        value = st.normalize(value)
        return Optional(_flag(True), value, st.spec_of(value, exact=True))

    @staticmethod
    def empty(element_spec):
        """An Optional with no value, whose value would have the spec structure `element_spec`."""
        return Optional(_flag(False), None, element_spec)

    @property
    def element_spec(self):
        """The spec structure of the value (given even when there is none)."""
        return self._element_spec

    @property
    def _type_spec(self):
        return OptionalSpec(self._element_spec)

    def has_value(self, name=None):
        """A scalar bool tensor: whether there is a value."""
        return self._has_value

    def get_value(self, name=None):
        """The value; InvalidArgumentError (when the graph runs, inside tf.function) if there is
        none."""
        graph = active_graph()
        if graph is not None and not _is_eager(self._has_value):
            return graph.call(_checked_value, (self._has_value, self._value), {}, stateful=True,
                              abstract=lambda flag, value: value, op_type="OptionalGetValue",
                              name="OptionalGetValue")
        return _checked_value(self._has_value, self._value)

    def __repr__(self):
        return f"<minitf.experimental.Optional has_value={self._has_value!r} element_spec={self._element_spec!r}>"


def _flag(value):
    return Tensor(np.asarray(value, dtype=np.bool_))


def _is_eager(t):
    return type(t) is Tensor


def _checked_value(has_value, value):
    if not bool(np.asarray(has_value._value if isinstance(has_value, Tensor) else has_value)):
        raise errors.InvalidArgumentError(None, "OptionalGetValue", _NO_VALUE)
    return value


def _filler(element_spec):
    """Zeros of `element_spec` (unknown dimensions 0): the value slot of an empty Optional in a
    graph, which must have the structure and dtypes of a real value. (Graphs hold dense elements
    only: tracing refuses a ragged or sparse element spec before a graph could run this.)"""

    def zeros(spec):
        if spec.shape.rank is None:
            return Tensor(np.zeros((0,), dtype=spec.dtype.as_numpy_dtype))
        dims = [0 if d is None else d for d in spec.shape.as_list()]
        return Tensor(np.zeros(dims, dtype=spec.dtype.as_numpy_dtype))

    return st.map_leaves(zeros, element_spec)


def next_as_optional(take_next, element_spec, iterator):
    """An Optional of `take_next()` (which raises StopIteration at the end); inside tf.function, a
    stateful node that takes the next element each time the graph runs. `iterator` is the
    object the node holds on to (it is what the node's call receives)."""
    graph = active_graph()
    if graph is None:
        try:
            return Optional(_flag(True), take_next(), element_spec)
        except StopIteration:
            return Optional.empty(element_spec)

    def run(_iterator):
        try:
            return _flag(True), take_next()
        except StopIteration:
            return _flag(False), _filler(element_spec)

    flag, value = graph.call(run, (iterator,), {}, stateful=True,
                             abstract=lambda _iterator: (TensorSpec([], dtypes.bool), element_spec),
                             op_type="IteratorGetNextAsOptional", name="IteratorGetNextAsOptional")
    return Optional(flag, value, element_spec)


@export("data.experimental.get_next_as_optional")
def get_next_as_optional(iterator):
    """`iterator.get_next_as_optional()` (TF's older spelling)."""
    return iterator.get_next_as_optional()
