"""TensorArray inside a traced function: a graph value whose methods are nodes.

When the graph runs, the value is an eager `TensorArray` made by the node that created it, so
every call of the function starts with a fresh array, as in TF. Its methods record nodes that
act on that run's array; `write`, `unstack`, `scatter` and `split` return a new graph value for
the updated array, so a TensorArray can be a loop variable (`ta = ta.write(i, x)` in a loop
body traced once). While tracing, the array knows its dtype, and its element shape as far as
the writes so far tell (`infer_shape`).
"""
from minitf.dtypes import dtypes
from minitf.ops.tensor_array import TensorArray
from minitf.symbolic_tensor import GraphObject
from minitf.tensor import next_id
from minitf.tensor_shape import TensorShape
from minitf.tensor_spec import TensorSpec

__all__ = ["SymbolicTensorArray", "new_tensor_array"]


def _create(*args, **kwargs):
    return TensorArray(*args, **kwargs)


def _method(name):
    def call(array, *args, **kwargs):
        return getattr(TensorArray, name)(array, *args, **kwargs)
    call.__name__ = name
    return call


_CALLS = {name: _method(name) for name in ("write", "read", "stack", "gather", "concat", "unstack",
                                           "scatter", "split", "size", "close")}


class SymbolicTensorArray(TensorArray, GraphObject):
    """A TensorArray of a graph being traced (TF's graph-mode TensorArray).

    Attributes:
      graph, op, value_index: the node that produces it, as for symbolic tensors.
    """

    def __init__(self, *args, **kwargs):
        """Made by `new_tensor_array` or by a node; the constructor call itself does nothing."""

    @classmethod
    def _make(cls, graph, op, value_index, dtype, element_shape, dynamic_size, infer_shape, size):
        ta = object.__new__(cls)
        ta._id = next_id()
        ta.graph, ta.op, ta.value_index = graph, op, value_index
        ta._dtype = dtypes.as_dtype(dtype)
        ta._element_shape = TensorShape(element_shape)
        ta._dynamic_size = dynamic_size
        ta._infer_shape = infer_shape
        ta._static_size = size
        ta.example = None
        return ta

    @property
    def name(self):
        """`"<op name>:<output index>"`, as for graph tensors."""
        return f"{self.op.name}:{self.value_index}"

    @property
    def handle(self):
        """The array itself stands for TF's resource handle."""
        return self

    def _like(self, op, index=0, element_shape=None):
        return SymbolicTensorArray._make(self.graph if op is None else op.graph, op, index,
                                         self._dtype, element_shape or self._element_shape,
                                         self._dynamic_size, self._infer_shape, self._static_size)

    def _updated(self, name, args, element_shape=None):
        """A node updating the array in place when the graph runs; a new graph value for it."""
        spec = self._like(None, element_shape=element_shape)
        out = self._graph().call(_CALLS[name], (self,) + tuple(args), {}, stateful=True,
                                 abstract=lambda *a, **k: spec, op_type=f"TensorArray{name.title()}V3",
                                 name=f"TensorArray{name.title()}")
        return out

    def _graph(self):
        from minitf.recording import active_graph  # lazy: recording knows no graph package
        graph = active_graph()
        return graph if graph is not None else self.graph

    def _read_node(self, name, args, shape):
        return self._graph().call(_CALLS[name], (self,) + tuple(args), {},
                                  abstract=lambda *a, **k: TensorSpec(shape, self._dtype),
                                  op_type=f"TensorArray{name.title()}V3",
                                  name=f"TensorArray{name.title()}")

    def write(self, index, value, name=None):
        """A new graph value: this array with `value` at `index`."""
        shape = self._element_shape
        value_shape = getattr(value, "shape", None)
        if self._infer_shape and value_shape is not None and shape.is_compatible_with(value_shape):
            shape = shape.merge_with(value_shape)
        return self._updated("write", (index, value), shape)

    def unstack(self, value, name=None):
        """A new graph value: this array holding the slices of `value`."""
        value_shape = getattr(value, "shape", TensorShape(None))
        element = TensorShape(value_shape.as_list()[1:]) if value_shape.rank else TensorShape(None)
        return self._updated("unstack", (value,), element)

    def scatter(self, indices, value, name=None):
        """A new graph value: this array with the slices of `value` at `indices`."""
        return self._updated("scatter", (indices, value))

    def split(self, value, lengths, name=None):
        """A new graph value: this array holding pieces of `value`."""
        return self._updated("split", (value, lengths))

    def read(self, index, name=None):
        """The element at `index` when the graph runs."""
        return self._read_node("read", (index,), self._element_shape)

    def stack(self, name=None):
        """All elements stacked along a new first axis, when the graph runs."""
        return self._read_node("stack", (), TensorShape([self._static_size]).concatenate(self._element_shape))

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked."""
        count = indices.shape[0] if hasattr(indices, "shape") and indices.shape.rank else None
        return self._read_node("gather", (indices,), TensorShape([count]).concatenate(self._element_shape))

    def concat(self, name=None):
        """All elements joined along their first axis."""
        rest = self._element_shape.as_list()[1:] if self._element_shape.rank else None
        return self._read_node("concat", (), TensorShape(None if rest is None else [None] + rest))

    def size(self, name=None):
        """The number of elements, an int32 scalar, when the graph runs."""
        return self._graph().call(_CALLS["size"], (self,), {},
                                  abstract=lambda *a, **k: TensorSpec([], dtypes.int32),
                                  op_type="TensorArraySizeV3", name="TensorArraySize")

    def close(self, name=None):
        """A node emptying the array."""
        self._graph().call(_CALLS["close"], (self,), {}, stateful=True,
                           abstract=lambda *a, **k: None, op_type="TensorArrayCloseV3")

    def __repr__(self):
        return f"<tf.TensorArray '{self.name}' dtype={self._dtype.name}>"


def new_tensor_array(graph, dtype, size=None, dynamic_size=None, clear_after_read=None,
                     tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                     element_shape=None, colocate_with_first_write_call=True, name=None):
    """`tf.TensorArray(...)` while tracing: a node making a fresh array each time the graph runs."""
    static_size = size if isinstance(size, int) else None
    spec = SymbolicTensorArray._make(graph, None, 0, dtype, element_shape, bool(dynamic_size),
                                     infer_shape, static_size)
    return graph.call(_create, (dtype, size), {
        "dynamic_size": dynamic_size, "clear_after_read": clear_after_read,
        "infer_shape": infer_shape, "element_shape": element_shape},
        stateful=True, abstract=lambda *a, **k: spec, op_type="TensorArrayV3", name="TensorArray")
