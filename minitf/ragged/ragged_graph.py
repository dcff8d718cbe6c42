"""RaggedTensors in traced `tf.function` graphs: arguments, intermediate values and results.

As in TF, a ragged argument is traced as its component tensors: a placeholder for `flat_values`
and one for each `row_splits` (outermost first), from which the function sees a
`GraphRaggedTensor`, a RaggedTensor whose parts are graph values. Elementwise ops (and
elementwise math with a scalar) run on the flat values as dense graph nodes, keeping the
partitions, the way TF's ragged dispatch builds them; any other op on a graph ragged tensor
(a reduction along a ragged axis, `to_tensor`, indexing, ...) becomes one node of the graph
that rebuilds the RaggedTensor from its components when the graph runs and calls the op on it.
A ragged result leaves the graph as its components and is rebuilt by the concrete function.
The trace type of a ragged argument is its RaggedTensorSpec (see `ragged_spec`).
"""
import numpy as np

from minitf import dispatch
from minitf.graph.structure import register_composite
from minitf.ops import math as m
from minitf.ragged.ragged_math import OPERATORS, HANDLERS, operand, elementwise_binary, elementwise_unary
from minitf.ragged.ragged_spec import RaggedTensorSpec
from minitf.ragged.ragged_tensor import RaggedTensor
from minitf.recording import thread_state
from minitf.symbolic_tensor import SymbolicTensor, out_of_scope_error
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.variable import Variable

__all__ = ["GraphRaggedTensor", "to_components", "from_components"]


class GraphRaggedTensor(RaggedTensor):
    """A RaggedTensor of a graph being traced: its flat values and row splits are graph values
    (symbolic tensors), so its numbers exist only when the graph runs."""

    __slots__ = ()

    def __init__(self, values, row_splits):  # not RaggedTensor's: it takes host partitions
        self._values = values
        self._row_splits = row_splits
        self._splits_np = None
        self._uniform_row_length = None

    @property
    def shape(self):
        """Static shape: rows (when the row splits' length is known), None for ragged dims."""
        n = self._row_splits.shape[0] if self._row_splits.shape.rank else None
        inner = self._values.shape
        rest = list(inner)[1:] if inner.rank is not None else []
        return TensorShape([None if n is None else n - 1, None] + rest)

    def nrows_int(self):
        raise _no_value("nrows_int")

    def with_values(self, new_values):
        """This tensor's outermost partition over new `values` (graph values)."""
        return GraphRaggedTensor(new_values, self._row_splits)

    def numpy(self):
        raise AttributeError("'RaggedTensor' of a traced graph has no attribute 'numpy': its values "
                             "exist only when the graph runs")

    def to_list(self):
        raise _no_value("to_list")

    def __iter__(self):
        raise TypeError("Iterating over a RaggedTensor of a traced tf.function is not allowed; use "
                        "tf.map_fn, or index rows with x[i]")

    def __repr__(self):
        return f"tf.RaggedTensor(values={self._values!r}, row_splits={self._row_splits!r})"

    __str__ = __repr__


def _no_value(what):
    return TypeError(f"RaggedTensor.{what}() needs the values of a RaggedTensor, which a traced "
                     f"tf.function only has when its graph runs; use tf ops on it instead")


def _record(api, args, kwargs):
    """`api(*args, **kwargs)` as one node of the graph being traced: when the graph runs it gets
    eager RaggedTensors rebuilt from their components."""
    graph = thread_state.graph
    if graph is None:
        for a in args:
            if isinstance(a, GraphRaggedTensor):
                raise out_of_scope_error(a.flat_values)
    return graph.call(api, args, kwargs)


def _is_scalar(value):
    """A Python number, or a tensor or variable of rank 0 (it broadcasts over the flat values)."""
    if isinstance(value, (bool, int, float, complex)):
        return True
    return isinstance(value, (Tensor, Variable)) and value.shape.rank == 0


def _graph_dispatch(cls, api, args, kwargs):
    """GraphRaggedTensor's entry in the dispatch seam: elementwise ops on the flat values (dense
    graph nodes, as TF records them), any other op one node."""
    kind = dispatch.elementwise_kind(api)
    ragged = [isinstance(a, RaggedTensor) for a in args[:2]]
    if api not in HANDLERS and args and ragged[0]:
        if kind == "unary" and not any(isinstance(v, RaggedTensor) for v in (*args[1:], *kwargs.values())):
            return elementwise_unary(api, *args, **kwargs)
    if api not in HANDLERS and kind == "binary" and len(args) >= 2 and sum(ragged) == 1 and \
            _is_scalar(args[1] if ragged[0] else args[0]):
        return elementwise_binary(api, *args, **kwargs)
    return _record(api, args, kwargs)


GraphRaggedTensor.__tf_dispatch__ = classmethod(_graph_dispatch)


def _method_node(name):
    method = getattr(RaggedTensor, name)

    def recorded(self, *args, **kwargs):
        return _record(method, (self,) + args, kwargs)
    recorded.__name__ = name
    recorded.__doc__ = method.__doc__
    return recorded


for _name in ("to_tensor", "row_lengths", "nested_row_lengths", "value_rowids", "row_starts",
              "row_limits", "bounding_shape", "nrows", "to_sparse", "__getitem__"):
    setattr(GraphRaggedTensor, _name, _method_node(_name))


def _graph_operator(name, fn, reflected=False):
    """A Python operator of GraphRaggedTensor: with a scalar, on the flat values (as eagerly);
    with a ragged or dense operand, one node (the partitions must be compared at run time)."""
    eager = getattr(RaggedTensor, name)

    def apply(x, y):
        return elementwise_binary(fn, x, y)
    apply.__name__ = fn.__name__

    def op(self, other):
        if _is_scalar(other):
            return eager(self, other)
        other = operand(other, self)
        return _record(apply, (other, self) if reflected else (self, other), {})
    op.__name__ = name
    return op


for _name, _fn in OPERATORS.items():
    setattr(GraphRaggedTensor, f"__{_name}__", _graph_operator(f"__{_name}__", _fn))
    setattr(GraphRaggedTensor, f"__r{_name}__", _graph_operator(f"__r{_name}__", _fn, reflected=True))
for _name, _fn in (("lt", m.less), ("le", m.less_equal), ("gt", m.greater), ("ge", m.greater_equal),
                   ("eq", m.equal), ("ne", m.not_equal)):
    setattr(GraphRaggedTensor, f"__{_name}__", _graph_operator(f"__{_name}__", _fn))
del _name, _fn


# -- components ------------------------------------------------------------------------------
def to_components(value):
    """[flat_values, row_splits (outermost first)...]: TF's component order."""
    return [value.flat_values] + list(value.nested_row_splits)


def from_components(parts):
    """The RaggedTensor of `parts` (a GraphRaggedTensor when some part is a graph value)."""
    values, splits = parts[0], parts[1:]
    graph = any(isinstance(p, SymbolicTensor) for p in parts)
    for s in reversed(splits):
        if graph:
            values = GraphRaggedTensor(values, s)
        else:
            values = RaggedTensor._make(values, np.asarray(s.numpy()), row_splits_dtype=s.dtype)
    return values


register_composite(RaggedTensor, to_components, from_components)


# -- placeholders ----------------------------------------------------------------------------
def _lengths(nrows, size, pattern):
    """Row lengths of an example: `size` for a uniform dimension, else cycling `pattern`."""
    if size is not None:
        return [size] * nrows
    return [pattern[i % len(pattern)] for i in range(nrows)]


def _spec_example(spec, second):
    """Components of an example value of `spec` (the second example has other sizes)."""
    dims = spec.shape.as_list() if spec.shape.rank is not None else [None] * (spec.ragged_rank + 1)
    nrows = dims[0] if dims[0] is not None else (3 if second else 2)
    splits = []
    for level in range(spec.ragged_rank):
        lengths = _lengths(nrows, dims[level + 1], (3, 1) if second else (2, 1))
        splits.append(np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64))
        nrows = int(splits[-1][-1])
    inner = [d if d is not None else (3 if second else 2) for d in dims[spec.ragged_rank + 1:]]
    flat = np.ones([nrows] + inner, dtype=spec.dtype._np) if spec.dtype.name != "string" else \
        np.full([nrows] + inner, b"", dtype=object)
    return [Tensor(flat)] + [Tensor(s.astype(spec.row_splits_dtype._np)) for s in splits]


def _grown(parts):
    """Components of a second example: the first one's last row one element longer (its other
    sizes kept), or None when it has no rows."""
    flat, splits = parts[0], [np.asarray(s.numpy()) for s in parts[1:]]
    if splits[0].size < 2:
        return None
    grown = [np.concatenate([splits[0][:-1], [splits[0][-1] + 1]])]
    for s in splits[1:]:
        grown.append(np.concatenate([s, [s[-1] + 1]]))
    raw = flat.numpy()
    extra = raw[-1:] if raw.shape[0] else np.ones((1,) + raw.shape[1:], dtype=raw.dtype)
    out_flat = Tensor(np.concatenate([raw, extra]))
    return [out_flat] + [Tensor(g.astype(s.dtype._np)) for g, s in zip(grown, parts[1:])]


def graph_placeholder(spec, graph, value, name):
    """The GraphRaggedTensor a trace of `spec` sees: placeholders for its components (their
    examples: `value`'s components when it is a RaggedTensor, else made from the spec)."""
    if isinstance(value, RaggedTensor) and not isinstance(value, GraphRaggedTensor):
        example_a = to_components(value)
        example_b = _grown(example_a) or _spec_example(spec, True)
    else:
        example_a, example_b = _spec_example(spec, False), _spec_example(spec, True)
    dims = spec.shape.as_list() if spec.shape.rank is not None else None
    flat_shape = TensorShape(None) if dims is None else TensorShape([None] + dims[spec.ragged_rank + 1:])
    shapes = [flat_shape, TensorShape([dims[0] + 1 if dims and dims[0] is not None else None])]
    shapes += [TensorShape([None])] * (spec.ragged_rank - 1)
    dtypes_ = [spec.dtype] + [spec.row_splits_dtype] * spec.ragged_rank
    parts = []
    for shape, dtype, a, b in zip(shapes, dtypes_, example_a, example_b):
        t = graph.placeholder(shape, dtype, name)
        t.example, t.example_b = a, b
        parts.append(t)
    return from_components(parts)


def _spec_components(spec, value):
    """`value`'s component tensors, in the order of `graph_placeholder`'s placeholders."""
    if not isinstance(value, RaggedTensor) or not spec.is_compatible_with(value):
        found = getattr(value, "_type_spec", None) or type(value).__name__
        raise TypeError(f"Binding inputs to tf.function failed due to `Can not cast {found} to "
                        f"{spec!r}`; pass a RaggedTensor of that spec.")
    return to_components(value)


RaggedTensorSpec._graph_placeholder = graph_placeholder
RaggedTensorSpec._to_components = _spec_components
RaggedTensorSpec._from_components = staticmethod(from_components)
