"""tf.* ops on RaggedTensor: elementwise math (with broadcasting against scalars and dense
tensors), reductions along an axis, and the Python operators.

Elementwise ops run on `flat_values` and keep the partitions, so gradients are those of the
dense op. A dense operand is first gathered to one value per flat value (its rows repeat along
the ragged dimensions), which is differentiable too. Reductions along a ragged axis pad the rows
with the reduction's identity (0 for sums, the lowest value for max, ...) through `to_tensor`
and reduce the dense result, so their gradients flow back through the padding.
"""
import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops import constant
from minitf.ops import math as m
from minitf.ops import reduce as r
from minitf.ops._core import Tensor, Variable, as_tensor
from minitf.ops.gather import gather, where
from minitf.ops.shaping import reshape
from minitf.ragged.ragged_tensor import RaggedTensor, flat_coords, concat_axis0, gather_rows

__all__ = ["elementwise_binary", "elementwise_unary", "reduce", "register", "HANDLERS", "HANDLERS_BY_NAME"]

HANDLERS = {}  # public tf.* function -> its RaggedTensor implementation


def register(*apis):
    """Decorator: `fn` serves these tf.* functions when one of their arguments is ragged."""
    def deco(fn):
        for api in apis:
            HANDLERS[api] = fn
        return fn
    return deco


# Handlers for ops of modules that themselves import RaggedTensor (tf.strings), keyed by
# (module, name) so that this package need not import them back.
HANDLERS_BY_NAME = {}


def _tf_dispatch(cls, api, args, kwargs):
    """RaggedTensor's entry in the dispatch seam (minitf.dispatch)."""
    handler = HANDLERS.get(api) or HANDLERS_BY_NAME.get((getattr(api, "__module__", None),
                                                         getattr(api, "__name__", None)))
    if handler is not None:
        return handler(api, *args, **kwargs)
    kind = dispatch.elementwise_kind(api)
    if kind == "unary":
        return elementwise_unary(api, *args, **kwargs)
    if kind == "binary":
        return elementwise_binary(api, *args, **kwargs)
    if kind == "list":
        return _elementwise_list(api, *args, **kwargs)
    return NotImplemented


RaggedTensor.__tf_dispatch__ = classmethod(_tf_dispatch)


def elementwise_unary(api, x, *args, **kwargs):
    """`api(x, ...)` applied to the flat values of ragged `x`."""
    if not isinstance(x, RaggedTensor):
        return NotImplemented
    return x.with_flat_values(api(x.flat_values, *args, **kwargs))


def splits_mismatch(x, y):
    """TF's InvalidArgumentError for two row partitions (int vectors) that should be equal."""
    if x.shape != y.shape:
        return errors.InvalidArgumentError(
            None, None, f"Condition x == y did not hold.\nx has {x.size} elements and y has {y.size}: "
                        f"the operands have different numbers of rows")
    bad = np.nonzero(x != y)[0]
    return errors.InvalidArgumentError(
        None, None, f"Condition x == y did not hold.\nIndices of first {min(bad.size, 3)} different "
                    f"values:\n{bad[:3].reshape(-1, 1)}\nCorresponding x values:\n{x[bad[:3]]}\n"
                    f"Corresponding y values:\n{y[bad[:3]]}\nFirst 3 elements of x:\n{x[:3]}\n"
                    f"First 3 elements of y:\n{y[:3]}")


def same_partitions(a, b):
    """InvalidArgumentError, in TF's words, when two ragged tensors' rows differ."""
    sa, sb = a.nested_row_splits, b.nested_row_splits
    if len(sa) != len(sb):
        raise errors.InvalidArgumentError(
            None, None, f"Ragged tensors of ragged_rank {len(sa)} and {len(sb)} cannot be combined "
                        f"elementwise; give both the same ragged_rank")
    for x, y in zip(sa, sb):
        x, y = x.numpy(), y.numpy()
        if x.shape != y.shape or (x != y).any():
            raise splits_mismatch(x, y)


def _dense_for(rt, y):
    """Dense `y` as an operand of `rt.flat_values`: its entries repeated along the ragged rows."""
    flat = rt.flat_values
    inner_rank = flat.shape.rank - 1
    if y.shape.rank <= inner_rank:
        return y  # broadcasts against the uniform inner dimensions directly
    outer_rank = rt.ragged_rank + 1
    ys = [1] * (outer_rank + inner_rank - y.shape.rank) + list(y.shape)
    y_outer, y_inner = ys[:outer_rank], ys[outer_rank:]
    coords = flat_coords(rt)
    levels = [rt.nrows_int()] + [None] * rt.ragged_rank
    lengths = [np.diff(s.numpy()) for s in rt.nested_row_splits]
    picks = []
    for d, (size, c) in enumerate(zip(y_outer, coords)):
        if size == 1:
            picks.append(np.zeros_like(c))
            continue
        ok = size == levels[0] if d == 0 else bool(lengths[d - 1].size) and (lengths[d - 1] == size).all()
        if not ok:  # TF compares the dense operand's row splits with the ragged ones
            splits = rt.nested_row_splits[d - 1].numpy() if d else np.asarray([rt.nrows_int()])
            dense = np.arange(splits.size) * size if d else np.asarray([size])
            raise splits_mismatch(dense, splits)
        picks.append(c)
    linear = np.ravel_multi_index(picks, y_outer) if picks else np.zeros(0, np.int64)
    y2 = reshape(y, [int(np.prod(y_outer))] + y_inner)
    return gather(y2, Tensor(np.asarray(linear, dtype=np.int64)))


def operand(value, like):
    if isinstance(value, (RaggedTensor, Tensor, Variable)):
        return value
    try:
        return convert_to_tensor(value, dtype_hint=like.dtype)
    except (TypeError, ValueError):
        return value  # let the op itself raise its error


def elementwise_binary(api, x, y, *args, **kwargs):
    """`api(x, y)` where one or both operands are ragged (TF's broadcasting rules)."""
    rx, ry = isinstance(x, RaggedTensor), isinstance(y, RaggedTensor)
    if rx and ry:
        same_partitions(x, y)
        return x.with_flat_values(api(x.flat_values, y.flat_values, *args, **kwargs))
    if rx:
        y = operand(y, x)
        fy = _dense_for(x, y) if isinstance(y, (Tensor, Variable)) and _rank(y) else y
        return x.with_flat_values(api(x.flat_values, fy, *args, **kwargs))
    if ry:
        x = operand(x, y)
        fx = _dense_for(y, x) if isinstance(x, (Tensor, Variable)) and _rank(x) else x
        return y.with_flat_values(api(fx, y.flat_values, *args, **kwargs))
    return NotImplemented


def _rank(t):
    return t.shape.rank


def _elementwise_list(api, inputs, *args, **kwargs):
    """`api([a, b, ...])` whose inputs combine elementwise (tf.strings.join, tf.add_n)."""
    rts = [v for v in inputs if isinstance(v, RaggedTensor)]
    if not rts:
        return NotImplemented
    for other in rts[1:]:
        same_partitions(rts[0], other)
    flat = [v.flat_values if isinstance(v, RaggedTensor) else v for v in inputs]
    return rts[0].with_flat_values(api(flat, *args, **kwargs))


# -- reductions -----------------------------------------------------------------------------

def _identity(kind, dtype):
    if kind in ("sum", "mean"):
        return 0
    if kind == "prod":
        return 1
    if kind == "any":
        return False
    if kind == "all":
        return True
    np_type = dtype._np
    # TF's segment max/min start from the dtype's lowest/highest finite value, not -inf/inf
    info = np.finfo(np_type) if np_type.kind == "f" else np.iinfo(np_type)
    return info.min if kind == "max" else info.max


_DENSE = {"sum": r.reduce_sum, "mean": r.reduce_sum, "prod": r.reduce_prod, "max": r.reduce_max,
          "min": r.reduce_min, "any": r.reduce_any, "all": r.reduce_all}


def _axis_list(axis, rank):
    if isinstance(axis, (Tensor, Variable)):
        axis = axis.numpy().tolist()
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    out = []
    for a in axes:
        a = int(a)
        if not -rank <= a < rank:
            raise ValueError(f"axis={a} out of bounds: expected {-rank}<=axis<{rank}")
        out.append(a % rank)
    return sorted(set(out))


def reduce(kind, rt, axis=None, keepdims=False):
    """tf.reduce_<kind>(rt, axis): a Tensor when no ragged dimension is left, else ragged."""
    if keepdims:
        raise NotImplementedError("keepdims=True is not supported for RaggedTensor reductions in minitf")
    flat = rt.flat_values
    if axis is None:
        if kind == "mean":
            return r.reduce_mean(flat)
        return _DENSE[kind](flat)
    axes = _axis_list(axis, rt.shape.rank)
    if len(axes) > 1:  # one axis at a time, the innermost first
        out = rt
        for a in reversed(axes):
            out = reduce(kind, out, a) if isinstance(out, RaggedTensor) else _dense_reduce(kind, out, a)
        return out
    a = axes[0]
    if a > rt.ragged_rank:  # a uniform inner dimension: reduce the flat values
        return rt.with_flat_values(_dense_reduce(kind, flat, a - rt.ragged_rank))
    if a >= 2:  # inside the rows: reduce the values tensor one level down
        return rt.with_values(reduce(kind, rt.values, a - 1))
    if rt.ragged_rank > 1:
        # reduce over rows of ragged rows: pad the outer rows to a dense ragged of rows
        return _reduce_nested(kind, rt, a)
    shape = None
    if kind in ("max", "min") and int(rt.bounding_shape()[a]) == 0:
        # an all-empty axis still reduces to the identity (TF's lowest/highest value), not to -inf/inf
        shape = [1 if d == a else None for d in range(rt.shape.rank)]
    padded = rt.to_tensor(default_value=_identity(kind, rt.dtype), shape=shape)
    total = _DENSE[kind](padded, axis=a)
    if kind != "mean":
        return total
    # count the values behind each result; empty rows give nan as in TF (0/0), without dividing by 0
    ones = rt.with_flat_values(Tensor(np.ones(flat.shape, dtype=np.int64)))
    count = np.asarray(r.reduce_sum(ones.to_tensor(), axis=a).numpy())
    mean = m.truediv(total, Tensor(np.maximum(count, 1).astype(total.dtype._np)))
    if not (count == 0).any():
        return mean
    return where(Tensor(count == 0), Tensor(np.full(count.shape, np.nan, mean.dtype._np)), mean)


def _dense_reduce(kind, t, axis):
    return r.reduce_mean(t, axis=axis) if kind == "mean" else _DENSE[kind](t, axis=axis)


def _reduce_nested(kind, rt, axis):
    """Reduce axis 0 or 1 of a tensor with ragged_rank > 1, whose result is still ragged: row i
    of the result reduces the rows of rt[i] (axis 1), or row j the j-th rows of all rt[i] (axis 0)."""
    if axis == 1:
        s = rt._splits_np
        inner = rt.values
        out_rows, out_lens = [], []
        for i in range(s.size - 1):
            idx = np.arange(s[i], s[i + 1])
            reduced = _reduce_rows(kind, gather_rows(inner, idx)) if idx.size else None
            out_rows.append(reduced)
            out_lens.append(0 if reduced is None else _length(reduced))
        from_parts = [p for p in out_rows if p is not None]
        return _stack_rows(from_parts, out_lens, rt)
    # axis 0: every row of rt stacked position by position
    inner = rt.values
    n = rt.nrows_int()
    s = rt._splits_np
    width = int(np.diff(s).max()) if n else 0
    parts, lens = [], []
    for j in range(width):
        idx = np.asarray([s[i] + j for i in range(n) if s[i] + j < s[i + 1]], dtype=np.int64)
        red = _reduce_rows(kind, gather_rows(inner, idx))
        parts.append(red)
        lens.append(_length(red))
    return _stack_rows(parts, lens, rt)


def _reduce_rows(kind, rows):
    """Rows (a Tensor or a RaggedTensor) reduced position by position over axis 0."""
    return reduce(kind, rows, 0) if isinstance(rows, RaggedTensor) else _dense_reduce(kind, rows, 0)


def _length(value):
    return value.nrows_int() if isinstance(value, RaggedTensor) else value.shape[0]


def _stack_rows(parts, lens, like):
    splits = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    if not parts:
        empty = like.values[0:0] if not isinstance(like.values, RaggedTensor) else like.values
        return RaggedTensor._make(empty, splits)
    return RaggedTensor._make(concat_axis0(parts), splits)


def _reducer(kind):
    def handler(api, input_tensor, axis=None, keepdims=False, name=None):
        if not isinstance(input_tensor, RaggedTensor):
            return NotImplemented
        return reduce(kind, input_tensor, axis, keepdims)
    return handler


for _kind, _api in (("sum", r.reduce_sum), ("mean", r.reduce_mean), ("max", r.reduce_max),
                    ("min", r.reduce_min), ("prod", r.reduce_prod), ("any", r.reduce_any),
                    ("all", r.reduce_all)):
    HANDLERS[_api] = _reducer(_kind)


# -- Python operators -----------------------------------------------------------------------

def _binary_operator(fn, reflected=False):
    def op(self, other):
        if reflected:
            return elementwise_binary(fn, operand(other, self), self)
        return elementwise_binary(fn, self, operand(other, self))
    return op


def _bool_or(fn_bool, fn_int):
    def fn(x, y):
        return fn_bool(x, y) if as_tensor(x).dtype == dtypes.bool else fn_int(x, y)
    return fn


OPERATORS = {"add": m.add, "sub": m.subtract, "mul": m.multiply, "truediv": m.truediv,
              "floordiv": m.floordiv, "mod": m.floormod, "pow": m.pow,
              "and": _bool_or(m.logical_and, m.bitwise_and), "or": _bool_or(m.logical_or, m.bitwise_or),
              "xor": _bool_or(m.logical_xor, m.bitwise_xor)}
for _name, _fn in OPERATORS.items():
    setattr(RaggedTensor, f"__{_name}__", _binary_operator(_fn))
    setattr(RaggedTensor, f"__r{_name}__", _binary_operator(_fn, reflected=True))
for _name, _fn in (("lt", m.less), ("le", m.less_equal), ("gt", m.greater), ("ge", m.greater_equal),
                   ("eq", m.equal), ("ne", m.not_equal)):
    setattr(RaggedTensor, f"__{_name}__", _binary_operator(_fn))
RaggedTensor.__neg__ = lambda self: self.with_flat_values(m.negative(self.flat_values))
RaggedTensor.__abs__ = lambda self: self.with_flat_values(m.abs(self.flat_values))
RaggedTensor.__pos__ = lambda self: self
RaggedTensor.__invert__ = lambda self: self.with_flat_values(
    m.logical_not(self.flat_values) if self.dtype == dtypes.bool else m.invert(self.flat_values))
del _name, _fn, _kind, _api


@register(constant.cast)
def _cast(api, x, dtype, name=None):
    """tf.cast of a RaggedTensor: its flat values cast, its partitions kept."""
    return elementwise_unary(api, x, dtype)
