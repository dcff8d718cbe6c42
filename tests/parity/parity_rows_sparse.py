"""Parity rows for tf.sparse. The table keys rows by exported name and tf.sparse is not a scanned
namespace, so the one `SparseTensor` row draws a scenario: a tf.sparse op (named first in the
case) called on SparseTensors built from the case's values at fixed index patterns. Results are
compared in dense form (tf.sparse.to_dense), with gradients with respect to the stored values and
the dense operands where TF defines them."""
import minitf
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, T, V
from parity_strategies import cases, tensors, values
from parity_table import Table

TABLE = Table()
minitf.SparseTensor  # noqa: B018  (loads the lazy class so the coverage scan sees its row)
SCENARIOS = []  # (name, strategy of argument tuples, call(lib, *args))


def _scenario(name, arg_cases, call, grad=0):
    """One family of calls under the `SparseTensor` row. `grad=0` families pass their values as
    plain numpy arrays, so no gradient is taken through ops TF registers none for."""
    strategy = arg_cases if grad else arg_cases.map(_plain)
    SCENARIOS.append((name, strategy, call))


def _plain(case):
    """The case with its tensor markers (T/V) replaced by their numpy values."""
    def strip(x):
        if isinstance(x, (T, V)):
            return np.asarray(x.value)
        if isinstance(x, (list, tuple)):
            return type(x)(strip(o) for o in x)
        return x
    return Case(tuple(strip(a) for a in case.args), {k: strip(v) for k, v in case.kwargs.items()})
FLOAT = ("float32", "float64")
SHAPE = [3, 4]
# index patterns over a [3, 4] tensor: sorted ones, an unsorted one, one with an empty row, none
PATTERNS = ([[0, 1], [1, 0], [1, 3], [2, 2]], [[0, 0], [2, 1], [2, 3]], [[1, 2], [0, 1], [2, 0]],
            [[0, 3]], [])
SORTED = PATTERNS[:2] + PATTERNS[3:]


@st.composite
def sparse_parts(draw, dtypes=FLOAT, patterns=SORTED, variable=True):
    """(indices, values) of a SparseTensor of shape SHAPE: a pattern and one value per index."""
    idx = draw(st.sampled_from(patterns))
    dtype = draw(st.sampled_from(dtypes))
    return idx, draw(tensors((dtype,), shape=(len(idx),), variable=variable))


def _sp(lib, parts, shape=SHAPE):
    idx, vals = parts
    return lib.sparse.SparseTensor(np.asarray(idx, dtype=np.int64).reshape(len(idx), len(shape)), vals, shape)


def _dense(lib, x):
    return lib.sparse.to_dense(x) if isinstance(x, lib.SparseTensor) else x


def same_dtype_parts(draw_patterns=SORTED):
    """Two sparse parts of one float dtype (for binary sparse ops)."""
    @st.composite
    def pair(draw):
        dtype = draw(st.sampled_from(FLOAT))
        a = draw(sparse_parts(dtypes=(dtype,), patterns=draw_patterns))
        b = draw(sparse_parts(dtypes=(dtype,), patterns=draw_patterns))
        return a, b
    return pair()


_scenario("sparse.SparseTensor", cases(sparse_parts()),
          call=lambda lib, p: lib.sparse.to_dense(_sp(lib, p)), grad=1)
_scenario("sparse.to_dense", cases(sparse_parts(patterns=PATTERNS), st.sampled_from([None, 0.5]), st.booleans()),
          call=lambda lib, p, d, v: lib.sparse.to_dense(_sp(lib, p), default_value=d, validate_indices=v), grad=1)
_scenario("sparse.from_dense", cases(tensors(FLOAT, shape=st.sampled_from([(4,), (2, 3), (2, 1, 2)]), variable=True)),
          call=lambda lib, x: lib.sparse.to_dense(lib.sparse.from_dense(x)), grad=1)
_scenario("sparse.add", cases(same_dtype_parts(), st.sampled_from([0, 0.5, 3.0])),
          call=lambda lib, ab, th: lib.sparse.to_dense(lib.sparse.add(_sp(lib, ab[0]), _sp(lib, ab[1]),
                                                                      threshold=th)),
          grad=1)
_scenario("sparse.add(sparse, dense)", cases(sparse_parts(dtypes=("float64",)), tensors(("float64",), shape=(3, 4)),
                                             st.booleans()),
          call=lambda lib, p, d, swap: lib.sparse.add(d, _sp(lib, p)) if swap else lib.sparse.add(_sp(lib, p), d),
          grad=1)
_scenario("sparse.reorder", cases(sparse_parts(patterns=PATTERNS)),
          call=lambda lib, p: lib.sparse.to_dense(lib.sparse.reorder(_sp(lib, p))), grad=1)


@st.composite
def matmul_case(draw):
    dtype = draw(st.sampled_from(FLOAT))
    parts = draw(sparse_parts(dtypes=(dtype,), patterns=PATTERNS))
    adj_a, adj_b = draw(st.booleans()), draw(st.booleans())
    k = SHAPE[0] if adj_a else SHAPE[1]
    n = draw(st.integers(1, 3))
    b = draw(tensors((dtype,), shape=(n, k) if adj_b else (k, n), variable=True))
    return parts, b, adj_a, adj_b


_scenario("sparse.sparse_dense_matmul", cases(matmul_case()),
          call=lambda lib, c: lib.sparse.sparse_dense_matmul(_sp(lib, c[0]), c[1], adjoint_a=c[2], adjoint_b=c[3]),
          grad=1)
_scenario("sparse.reduce_sum", cases(sparse_parts(patterns=PATTERNS), st.sampled_from([None, 0, 1, -1, [0, 1]]),
                                     st.booleans()),
          call=lambda lib, p, ax, kd: lib.sparse.reduce_sum(_sp(lib, p), axis=ax, keepdims=kd), grad=1)
# TF registers no gradient for SparseReduceSumSparse, so this family compares values only
_scenario("sparse.reduce_sum(output_is_sparse=True)",
          cases(sparse_parts(patterns=PATTERNS), st.sampled_from([None, 0, 1, -1, [0, 1]]), st.booleans()),
          call=lambda lib, p, ax, kd: lib.sparse.to_dense(lib.sparse.reduce_sum(_sp(lib, p), axis=ax, keepdims=kd,
                                                                               output_is_sparse=True)))
_scenario("sparse.reduce_max", cases(sparse_parts(dtypes=FLOAT + ("int32",), patterns=PATTERNS, variable=False),
                               st.sampled_from([None, 0, 1, [0, 1]]), st.booleans(), st.booleans()),
          call=lambda lib, p, ax, kd, sp: _dense(lib, lib.sparse.reduce_max(_sp(lib, p), axis=ax, keepdims=kd,
                                                                      output_is_sparse=sp)))
_scenario("sparse.map_values", cases(sparse_parts()),
          call=lambda lib, p: lib.sparse.to_dense(lib.sparse.map_values(lambda v: lib.sin(v) * v + 1.0, _sp(lib, p))),
          grad=1)
_scenario("sparse.transpose", cases(sparse_parts(patterns=PATTERNS), st.sampled_from([None, [1, 0], [0, 1]])),
          call=lambda lib, p, perm: lib.sparse.to_dense(lib.sparse.transpose(_sp(lib, p), perm)), grad=1)
_scenario("sparse.reshape", cases(sparse_parts(patterns=PATTERNS), st.sampled_from([[12], [2, 6], [-1, 3], [4, 4]])),
          call=lambda lib, p, s: lib.sparse.to_dense(lib.sparse.reorder(lib.sparse.reshape(_sp(lib, p), s))), grad=1)
_scenario("sparse.concat", cases(same_dtype_parts(), st.sampled_from([0, 1, -1])),
          call=lambda lib, ab, ax: lib.sparse.to_dense(lib.sparse.concat(ax, [_sp(lib, ab[0]), _sp(lib, ab[1])])))
BOXES = [([0, 0], [2, 2]), ([1, 1], [5, 5]), ([0, 3], [3, 1])]
_scenario("sparse.slice", cases(sparse_parts(), st.sampled_from(BOXES)),
          call=lambda lib, p, box: lib.sparse.to_dense(lib.sparse.slice(_sp(lib, p), box[0], box[1])), grad=1)
_scenario("sparse.retain", cases(sparse_parts(patterns=PATTERNS[:1]), st.lists(st.booleans(), min_size=4, max_size=4)),
          call=lambda lib, p, keep: lib.sparse.to_dense(lib.sparse.retain(_sp(lib, p), keep)), grad=1)
_scenario("sparse.expand_dims", cases(sparse_parts(), st.sampled_from([None, 0, 1, -1, 2])),
          call=lambda lib, p, ax: lib.sparse.to_dense(lib.sparse.expand_dims(_sp(lib, p), ax)), grad=1)
_scenario("sparse.fill_empty_rows", cases(sparse_parts(patterns=PATTERNS), st.sampled_from([0.0, -1.5])),
          call=lambda lib, p, d: [lib.sparse.to_dense(x) if isinstance(x, lib.SparseTensor) else x
                                  for x in lib.sparse.fill_empty_rows(_sp(lib, p), d)], grad=1)
_scenario("sparse.maximum", cases(same_dtype_parts()),
          call=lambda lib, ab: lib.sparse.to_dense(lib.sparse.maximum(_sp(lib, ab[0]), _sp(lib, ab[1]))))
_scenario("sparse.minimum", cases(same_dtype_parts()),
          call=lambda lib, ab: lib.sparse.to_dense(lib.sparse.minimum(_sp(lib, ab[0]), _sp(lib, ab[1]))))
_scenario("sparse.split", cases(sparse_parts(patterns=PATTERNS), st.sampled_from([(2, 1), (3, 0), (4, 1)])),
          call=lambda lib, p, s: [lib.sparse.to_dense(x) for x in lib.sparse.split(sp_input=_sp(lib, p), num_split=s[0],
                                                                           axis=s[1])])
_scenario("sparse.reset_shape", cases(sparse_parts(), st.sampled_from([None, [3, 4], [5, 6], [2, 4]])),
          call=lambda lib, p, s: lib.sparse.to_dense(lib.sparse.reset_shape(_sp(lib, p), s)), grad=1)
_scenario("sparse.eye", cases(st.integers(0, 4), st.sampled_from([None, 2, 5]), st.sampled_from(["float32", "int32"])),
          call=lambda lib, n, m, dt: lib.sparse.to_dense(lib.sparse.eye(n, m, dtype=dt)))


@st.composite
def indicator_case(draw):
    idx = draw(st.sampled_from(SORTED))
    return idx, draw(values("int64", (len(idx),), 0, 5)), draw(st.integers(3, 6))


_scenario("sparse.to_indicator", cases(indicator_case()),
          call=lambda lib, c: lib.sparse.to_indicator(_sp(lib, (c[0], lib.constant(c[1]))), c[2]))
_scenario("sparse.mask", cases(tensors(FLOAT, shape=(3, 2)), st.lists(st.integers(0, 5), max_size=3)),
          call=lambda lib, v, m: lib.sparse.mask(lib.IndexedSlices(v, lib.constant([0, 2, 4]), lib.constant([5, 2])),
                                           lib.constant(m, dtype="int32")).values, grad=1)


@st.composite
def bincount_case(draw):
    dtype = draw(st.sampled_from(["int32", "int64"]))
    x = draw(values(dtype, draw(st.sampled_from([(5,), (2, 3)])), 0, 6))
    kwargs = {"axis": draw(st.sampled_from([0, -1])), "minlength": draw(st.sampled_from([None, 4, 9])),
              "maxlength": draw(st.sampled_from([None, 3])), "binary_output": draw(st.booleans())}
    if not kwargs["binary_output"] and draw(st.booleans()):
        kwargs["weights"] = T(draw(values("float32", x.shape, -2.0, 2.0)))
    return Case((T(x),), kwargs)


_scenario("sparse.bincount", bincount_case(),
          call=lambda lib, x, **k: lib.sparse.to_dense(lib.sparse.bincount(x, **k)))
_UNARY = ["abs", "negative", "sign", "square", "sqrt", "sin", "tan", "tanh", "asin", "atan", "erf", "exp", "cos",
          "floor", "log1p"]  # TF maps the first eleven over the values; the rest refuse a SparseTensor
_scenario("tf.math unary ops on a SparseTensor", cases(sparse_parts(), st.sampled_from(_UNARY)),
          call=lambda lib, p, fn: lib.sparse.to_dense(getattr(lib.math, fn)(_sp(lib, p))), grad=1)


@st.composite
def cwise_case(draw):
    parts = draw(sparse_parts(patterns=PATTERNS))
    dtype = parts[1].value.dtype.name
    shape = draw(st.sampled_from([(3, 4), (4,), (1, 4), (3, 1)]))
    return parts, T(draw(values(dtype, shape, 0.5, 3.0)))


# `st * dense` and `st / dense` (SparseDenseCwiseMul/Div)
_scenario("SparseTensor.__mul__/__truediv__", cases(cwise_case(), st.booleans()),
          call=lambda lib, c, div: lib.sparse.to_dense(_sp(lib, c[0]) / c[1] if div else _sp(lib, c[0]) * c[1]),
          grad=1)


@st.composite
def _any_scenario(draw):
    k = draw(st.integers(0, len(SCENARIOS) - 1))
    name, strategy, _ = SCENARIOS[k]
    case = draw(strategy)
    return Case((name,) + case.args, case.kwargs)


_CALLS = {name: call for name, _, call in SCENARIOS}
TABLE.add("SparseTensor", _any_scenario(), call=lambda lib, name, *a, **k: _CALLS[name](lib, *a, **k), grad=1)
