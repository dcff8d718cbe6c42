"""Rows for keras.ops' array functions: reductions and quantiles (with the NaN-ignoring ones),
shape manipulation, creation, indexing, sorting, counting and the numpy-like products."""
import numpy as np
from hypothesis import strategies as st

from parity_kops import (EVERY, NUMERIC, an_axis, extremes, matrices, maybe_axis, operand,
                         reduction, tensor_then)
from parity_oracle import Case, T, V
from parity_strategies import FLOATS, OMIT, axes, maybe, nonempty_shapes, tensors, values
from parity_table import Table

TABLE = Table()
add = TABLE.add
P = "keras.ops."
_DTYPES = st.sampled_from(["float32", "float64", "float16", "int32", "int8", "uint8", "int64",
                           "bool"])


def with_nans(dtypes=FLOATS):
    """A float T with some elements NaN (sometimes a whole row)."""
    @st.composite
    def make(draw):
        dtype = draw(st.sampled_from(dtypes))
        shape = draw(nonempty_shapes)
        a = draw(values(dtype, shape))
        if a.dtype.kind == "f" and a.size:
            mask = draw(values("bool", shape))
            a = np.where(mask, np.nan, a).astype(a.dtype)
        return T(a)
    return make()


@st.composite
def nan_reduction(draw, keepdims=True):
    x = draw(st.one_of(with_nans(), tensors(EVERY, shape=nonempty_shapes)))
    kwargs = {"axis": draw(axes(np.ndim(x.value), allow_list=False))}
    if keepdims and draw(st.booleans()):
        kwargs["keepdims"] = True
    return Case((x,), kwargs)


# -- reductions ---------------------------------------------------------------------------------

for _name in ("sum", "mean", "prod"):
    add(P + _name, st.one_of(reduction(), extremes().map(lambda x: Case((x,)))), grad=1)
for _name in ("max", "min"):
    add(P + _name, st.one_of(reduction(), reduction(extra={"initial": st.sampled_from([0, 1.5, -2])})),
        grad=1)
for _name in ("amax", "amin", "ptp"):
    add(P + _name, reduction(), grad=1)
add(P + "std", reduction(), grad=1)
add(P + "var", reduction(), grad=1)
for _name in ("any", "all", "count_nonzero"):
    add(P + _name, reduction(keepdims=_name != "count_nonzero"))
for _name in ("argmax", "argmin"):
    add(P + _name, st.one_of(reduction(nonempty=True, axis_list=False),
                             st.just(Case((T(np.array([0.0, -0.0, 0.0], np.float32)),)))))
for _name in ("cumsum", "cumprod"):
    add(P + _name, reduction(keepdims=False, axis_list=False,
                             extra={"dtype": maybe(st.sampled_from([None, "float32", "int32"]))}),
        grad=1)
add(P + "average", st.one_of(
    reduction(keepdims=False, axis_list=False),
    tensor_then(dtypes=NUMERIC, shape=st.sampled_from([(2, 3), (4,)]), axis=lambda a: st.just(-1),
                weights=lambda a: st.just(T(np.linspace(0.5, 2.0, a.shape[-1]).astype("float32"))))),
    grad=1)
_QS = st.sampled_from([0.5, 0.0, 1.0, 0.25, [0.1, 0.9], [0.5]])
_METHODS = maybe(st.sampled_from(["linear", "lower", "higher", "midpoint", "nearest"]))
add(P + "quantile", reduction(NUMERIC, nonempty=True, extra={"q": _QS, "method": _METHODS}),
    grad=1)
add(P + "percentile", reduction(NUMERIC, nonempty=True, extra={
    "q": st.sampled_from([50, 0, 100, 25.5, [10, 90]]), "method": _METHODS}), grad=1)
add(P + "median", reduction(NUMERIC, nonempty=True), grad=1)
for _name in ("nanmax", "nanmin", "nanmean", "nansum", "nanprod", "nanvar", "nanstd"):
    add(P + _name, nan_reduction(), grad=1 if _name not in ("nanmax", "nanmin") else 0)
for _name in ("nanargmax", "nanargmin"):
    add(P + _name, nan_reduction())
for _name in ("nancumsum", "nancumprod"):
    add(P + _name, nan_reduction(keepdims=False), grad=1)
add(P + "nanmedian", nan_reduction(), grad=0)
add(P + "nanquantile", st.tuples(with_nans(), st.sampled_from([0.5, 0.25, [0.1, 0.9]])).map(Case))
add(P + "nanpercentile", st.tuples(with_nans(), st.sampled_from([50, 25, [10, 90]])).map(Case))

# -- shapes ---------------------------------------------------------------------------------------

add(P + "reshape", tensor_then(lambda a: st.one_of(
    st.just(list(a.shape[::-1])), st.just(-1), st.just((a.size, -1) if a.size else (0, -1)),
    st.lists(st.integers(-2, 4), max_size=3))), grad=2)
add(P + "transpose", tensor_then(axes=lambda a: maybe(st.one_of(
    st.permutations(range(a.ndim)).map(tuple), st.lists(st.integers(-2, 3), max_size=3)))),
    grad=2)
add(P + "moveaxis", tensor_then(lambda a: an_axis(a), lambda a: an_axis(a),
                                shape=nonempty_shapes), grad=1)
add(P + "swapaxes", tensor_then(lambda a: an_axis(a), lambda a: an_axis(a),
                                shape=nonempty_shapes), grad=1)
add(P + "expand_dims", tensor_then(lambda a: st.one_of(st.integers(-a.ndim - 1, a.ndim),
                                                       st.just((0, -1)))), grad=1)
add(P + "squeeze", st.tuples(tensors(EVERY, shape=st.sampled_from([(1, 2, 1), (1,), (), (2, 3)])),
                             st.sampled_from([None, 0, -1, (0, 2), 1])).map(Case), grad=1)
for _name in ("ravel", "copy", "size"):
    add(P + _name, tensor_then(), grad=1 if _name != "size" else 0)
add(P + "ndim", tensor_then())
add(P + "array", st.one_of(tensor_then(), st.tuples(
    st.sampled_from([[1, 2], [1.5, 2], 3, [[True]]]), _DTYPES).map(Case)))
add(P + "broadcast_to", tensor_then(lambda a: st.one_of(st.just([2] + list(a.shape)),
                                                        st.lists(st.integers(0, 3), max_size=3))),
    grad=1)


@st.composite
def joined(draw, same_rank=True):
    dtype = draw(st.sampled_from(NUMERIC))
    n = draw(st.integers(1, 3))
    shape = draw(st.sampled_from([(2, 3), (3,), (1, 2, 2)]))
    xs = [T(draw(values(draw(st.sampled_from([dtype, dtype, "int32", "float64"])), shape)))
          for _ in range(n)]
    return xs


add(P + "concatenate", st.tuples(joined(), st.sampled_from([0, -1, 1])).map(Case), grad=1)
add(P + "stack", st.tuples(joined(), st.sampled_from([0, -1, 1])).map(Case), grad=1)
for _name in ("hstack", "vstack", "dstack"):
    add(P + _name, joined().map(lambda xs: Case((xs,))), grad=1)
add(P + "append", st.one_of(
    st.tuples(operand(NUMERIC), operand(NUMERIC)).map(Case),
    st.tuples(tensors(NUMERIC, shape=(2, 3)), tensors(NUMERIC, shape=(2, 3)),
              st.sampled_from([0, 1])).map(Case)), grad=1)
_SPLITTABLE = st.sampled_from([(4, 6), (6,), (2, 4, 4)])
add(P + "split", tensor_then(lambda a: st.one_of(st.sampled_from([1, 2]), st.just([1, 3])),
                             lambda a: st.sampled_from([0, -1]), shape=_SPLITTABLE), grad=1)
add(P + "array_split", tensor_then(lambda a: st.integers(1, 4), lambda a: st.sampled_from([0, -1]),
                                   shape=_SPLITTABLE), grad=1)
for _name in ("hsplit", "vsplit", "dsplit"):
    add(P + _name, tensor_then(lambda a: st.sampled_from([1, 2, [1]]),
                               shape=st.sampled_from([(4, 4, 2), (2, 6, 4)])), grad=1)
add(P + "tile", tensor_then(lambda a: st.one_of(st.integers(1, 3), st.lists(st.integers(0, 3),
                                                                         max_size=3))), grad=1)
add(P + "repeat", tensor_then(lambda a: st.integers(0, 3), lambda a: maybe_axis(a)), grad=1)
add(P + "flip", tensor_then(axis=lambda a: maybe(st.one_of(an_axis(a, True), st.just((0,)))),
                            shape=nonempty_shapes), grad=1)
add(P + "fliplr", tensors(EVERY, shape=st.sampled_from([(2, 3), (2, 2, 2)]), variable=True)
    .map(lambda x: Case((x,))), grad=1)
add(P + "flipud", tensors(EVERY, shape=st.sampled_from([(2, 3), (3,)]), variable=True)
    .map(lambda x: Case((x,))), grad=1)
add(P + "roll", tensor_then(lambda a: st.integers(-3, 3), axis=lambda a: maybe_axis(a)), grad=1)
add(P + "rot90", tensor_then(k=lambda a: maybe(st.integers(-2, 5)),
                             axes=lambda a: maybe(st.sampled_from([(0, 1), (1, 0), (-1, -2)])),
                             shape=st.sampled_from([(2, 3), (2, 3, 2), (3,)])), grad=1)
add(P + "pad", tensor_then(lambda a: st.one_of(
    st.just([(1, 2)] * a.ndim), st.integers(0, 2), st.just([(1,)] * a.ndim), st.just((1, 0))),
    mode=lambda a: maybe(st.sampled_from(["constant", "reflect", "symmetric"])),
    shape=st.sampled_from([(3, 4), (4,), (3, 3, 2)])), grad=1)
add(P + "get_item", tensor_then(lambda a: st.sampled_from([0, -1, (slice(None), 0),
                                                           slice(1, None)]),
                                shape=st.sampled_from([(3, 2), (3, 4, 2)])), grad=1)
add(P + "view", tensor_then(lambda a: st.sampled_from(["int32", "float32", "uint8", "int16"]),
                            dtypes=("float32", "int32", "int16", "uint8"),
                            shape=st.sampled_from([(2, 4), (4,), (3, 8)]), variable=False))

# -- creation --------------------------------------------------------------------------------------

_SHAPE = st.sampled_from([(2, 3), (0,), (), [3], (1, 2, 2)])
for _name in ("ones", "zeros", "empty"):
    add(P + _name, st.tuples(_SHAPE).map(Case) | st.tuples(_SHAPE, _DTYPES).map(Case))
add(P + "full", st.tuples(_SHAPE, st.sampled_from([1, 2.5, True, -3]),
                          maybe(_DTYPES)).map(lambda t: Case(t[:2], {} if t[2] is OMIT else
                                                             {"dtype": t[2]})))
for _name in ("ones_like", "zeros_like", "empty_like"):
    add(P + _name, tensor_then(dtype=lambda a: maybe(_DTYPES)))
add(P + "full_like", tensor_then(lambda a: st.sampled_from([1, 2.5, -3]),
                                 dtype=lambda a: maybe(_DTYPES)), grad=0)
add(P + "arange", st.one_of(
    st.tuples(st.integers(-3, 6)), st.tuples(st.integers(-3, 3), st.integers(-3, 6)),
    st.tuples(st.sampled_from([0, 0.5, -1.0]), st.sampled_from([3, 2.5]),
              st.sampled_from([1, 0.5, 2]))).map(Case)
    | st.tuples(st.integers(0, 5), st.just(None), st.just(None), _DTYPES.filter(
        lambda d: d != "bool")).map(Case))
add(P + "linspace", st.builds(lambda a, b, kw: Case((a, b), kw), st.sampled_from([0, -1.0, 2]),
                              st.sampled_from([1.0, 5, -3.0]), st.fixed_dictionaries(
                                  {}, optional={"num": st.integers(0, 6), "endpoint": st.booleans(),
                                                "retstep": st.booleans(),
                                                "dtype": st.sampled_from(["float32", "float64",
                                                                          "int32"])})))
add(P + "logspace", st.builds(lambda a, b, kw: Case((a, b), kw), st.sampled_from([0, -1.0, 1]),
                              st.sampled_from([1.0, 2, -2.0]), st.fixed_dictionaries(
                                  {}, optional={"num": st.integers(0, 5), "endpoint": st.booleans(),
                                                "base": st.sampled_from([10, 2.0])})))
add(P + "geomspace", st.builds(lambda a, b, kw: Case((a, b), kw), st.sampled_from([1, 0.5, -2.0]),
                               st.sampled_from([8.0, 2, -16.0]), st.fixed_dictionaries(
                                   {}, optional={"num": st.integers(1, 5),
                                                 "endpoint": st.booleans()})))
add(P + "eye", st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(-2, 2),
                         maybe(_DTYPES)).map(lambda t: Case(t[:3], {} if t[3] is OMIT
                                                            else {"dtype": t[3]})))
add(P + "identity", st.tuples(st.integers(0, 4)).map(Case) |
    st.tuples(st.integers(0, 3), _DTYPES).map(Case))
add(P + "tri", st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(-5, 5)).map(Case))
for _name in ("tril", "triu"):
    add(P + _name, tensor_then(k=lambda a: maybe(st.integers(-3, 3)),
                               shape=st.sampled_from([(3, 4), (2, 3, 3), (4, 2)])), grad=1)
add(P + "meshgrid", st.tuples(tensors(NUMERIC, shape=st.sampled_from([(2,), (3,)])),
                              tensors(NUMERIC, shape=st.sampled_from([(2,), (4,)])),
                              maybe(st.sampled_from(["xy", "ij"]))).map(
    lambda t: Case(t[:2], {} if t[2] is OMIT else {"indexing": t[2]})), grad=1)
for _name in ("bartlett", "blackman", "hamming", "hanning"):
    add(P + _name, st.tuples(st.integers(1, 8)).map(Case))
add(P + "kaiser", st.tuples(st.integers(1, 8), st.sampled_from([0.0, 3.0, 8.6])).map(Case))
add(P + "vander", tensor_then(N=lambda a: maybe(st.integers(0, 4)),
                              increasing=lambda a: maybe(st.booleans()),
                              dtypes=NUMERIC, shape=st.sampled_from([(3,), (4,)])), grad=1)
add(P + "diag", tensor_then(k=lambda a: maybe(st.integers(-2, 2)),
                            shape=st.sampled_from([(3,), (3, 4), (2, 2), (2,)])), grad=1)
add(P + "diagflat", tensor_then(k=lambda a: maybe(st.integers(-2, 2)),
                                shape=st.sampled_from([(3,), (2, 2)])), grad=1)
add(P + "diagonal", tensor_then(offset=lambda a: maybe(st.integers(-2, 2)),
                                axis1=lambda a: maybe(st.sampled_from([0, 1])),
                                axis2=lambda a: maybe(st.sampled_from([1, -1])),
                                shape=st.sampled_from([(3, 4), (2, 3, 4), (4, 2)])), grad=1)
add(P + "trace", tensor_then(offset=lambda a: maybe(st.integers(-1, 1)),
                             shape=st.sampled_from([(3, 4), (2, 3, 3), (4, 4)])), grad=1)

# -- indexing, sorting, counting -----------------------------------------------------------------


def _indices(a, axis=None):
    n = a.size if axis is None else a.shape[axis]
    return st.lists(st.integers(-n, n - 1) if n else st.just(0), min_size=1, max_size=4).map(
        lambda v: T(np.array(v, np.int32)))


add(P + "take", st.one_of(
    tensor_then(lambda a: _indices(a), shape=nonempty_shapes),
    tensor_then(lambda a: _indices(a, 0), lambda a: st.just(0), shape=st.sampled_from([(3, 2)]))),
    grad=1)


@st.composite
def along(draw):
    x = draw(tensors(NUMERIC, shape=st.sampled_from([(3, 4), (2, 3, 2)]), variable=True))
    a = np.asarray(x.value)
    axis = draw(st.integers(-a.ndim, a.ndim - 1))
    shape = list(a.shape)
    shape[axis] = draw(st.integers(1, 3))
    idx = draw(values("int64", tuple(shape), 0, a.shape[axis] - 1))
    return Case((x, T(idx)), {"axis": axis})


add(P + "take_along_axis", along(), grad=1)
add(P + "nonzero", tensor_then())
add(P + "searchsorted", st.tuples(st.sampled_from([T(np.array([1.0, 2.0, 2.0, 3.5], np.float32)),
                                                   T(np.array([0, 3, 7], np.int32))]),
                                  tensors(("float32", "int32"), shape=st.sampled_from([(3,), ()])),
                                  maybe(st.sampled_from(["left", "right"]))).map(
    lambda t: Case(t[:2], {} if t[2] is OMIT else {"side": t[2]})))
add(P + "digitize", tensor_then(lambda a: st.sampled_from([[0.0, 1.5, 3.0], [-2, 0, 2], [1.0]])))
add(P + "sort", st.one_of(reduction(keepdims=False, axis_list=False, nonempty=True),
                          extremes().map(lambda x: Case((x,)))), grad=1)
add(P + "argsort", reduction(NUMERIC + ("bool",), keepdims=False, axis_list=False,
                             nonempty=True))
add(P + "argpartition", tensor_then(lambda a: st.integers(0, max(a.shape[-1] - 1, 0)),
                                    dtypes=("int32", "int8"),
                                    shape=st.sampled_from([(5,), (6,)])))
add(P + "unique", tensor_then(dtypes=("int32", "float32", "int8"), shape=st.sampled_from([(6,), (2, 3)]),
                              sorted=lambda a: maybe(st.booleans()),
                              return_index=lambda a: maybe(st.booleans()),
                              return_inverse=lambda a: maybe(st.booleans()),
                              return_counts=lambda a: maybe(st.booleans())))
add(P + "bincount", st.tuples(tensors(("int32", "int64"), shape=st.sampled_from([(5,), (2, 3)]),
                                      low=0, high=5),
                              st.sampled_from([None, T(np.array([0.5, 1.0, 2.0, 1.0, 3.0],
                                                                np.float32))]),
                              st.sampled_from([0, 7])).map(
    lambda t: Case(t) if t[1] is None or np.shape(t[0].value) == (5,) else Case((t[0],))))
add(P + "histogram", tensor_then(bins=lambda a: maybe(st.integers(1, 5)),
                                 range=lambda a: maybe(st.sampled_from([(0.0, 2.0), (-1.0, 3.0)])),
                                 dtypes=FLOATS, shape=st.sampled_from([(6,), (3,)])))
add(P + "isin", st.tuples(operand(NUMERIC), tensors(NUMERIC, shape=st.sampled_from([(3,), (2, 2)])),
                          st.booleans(), st.booleans()).map(
    lambda t: Case(t[:2], {"assume_unique": t[2], "invert": t[3]})))
add(P + "unravel_index", st.tuples(st.one_of(st.just(T(np.array([0, 5, 7], np.int32))),
                                             st.just(T(np.array([[0, 5], [7, 1]], np.int64)))),
                                   st.sampled_from([(2, 4), (8,), (2, 2, 2)])).map(Case))

# -- products -------------------------------------------------------------------------------------


@st.composite
def product_pair(draw, inner=True):
    dtype = draw(st.sampled_from(NUMERIC))
    other = draw(st.sampled_from([dtype, dtype, "float32", "int32"]))
    k = draw(st.integers(1, 3))
    s1 = draw(st.sampled_from([(2, k), (k,), (2, 2, k), ()]))
    s2 = draw(st.sampled_from([(k, 3), (k,), (2, k, 2)]))
    return Case((T(draw(values(dtype, s1, -3, 3))), T(draw(values(other, s2, -3, 3)))))


for _name in ("matmul", "dot"):
    add(P + _name, product_pair(), grad=1)
add(P + "tensordot", st.tuples(tensors(NUMERIC, shape=(2, 3)), tensors(NUMERIC, shape=(3, 2)),
                               st.sampled_from([1, [[1], [0]], 0])).map(Case), grad=1)
add(P + "einsum", st.one_of(
    st.tuples(st.just("ij,jk->ik"), tensors(NUMERIC, shape=(2, 3)), tensors(NUMERIC, shape=(3, 2))),
    st.tuples(st.just("abc,cd->abd"), tensors(FLOATS, shape=(2, 2, 3)), tensors(FLOATS, shape=(3, 2))),
    st.tuples(st.just("ii->i"), tensors(NUMERIC, shape=(3, 3))),
    st.tuples(st.just("i,i"), tensors(NUMERIC, shape=(3,)), tensors(NUMERIC, shape=(3,)))).map(Case),
    grad=1)
for _name in ("inner", "outer", "vdot", "kron"):
    add(P + _name, st.tuples(tensors(NUMERIC, shape=st.sampled_from([(3,), (2, 3)])),
                             tensors(NUMERIC, shape=st.sampled_from([(3,), (2, 3)]))).map(Case),
        grad=1)
add(P + "cross", st.tuples(tensors(NUMERIC, shape=st.sampled_from([(3,), (2, 3), (2, 2)])),
                           tensors(NUMERIC, shape=st.sampled_from([(3,), (2, 3), (1, 2)]))).map(Case),
    grad=1)
add(P + "correlate", st.tuples(tensors(NUMERIC, shape=st.sampled_from([(5,), (3,)])),
                               tensors(NUMERIC, shape=st.sampled_from([(2,), (3,)])),
                               st.sampled_from(["valid", "same", "full"])).map(Case), grad=1)
add(P + "trapezoid", st.one_of(
    tensor_then(dtypes=NUMERIC, shape=st.sampled_from([(4,), (2, 3)]),
                dx=lambda a: maybe(st.sampled_from([0.5, 2]))),
    st.tuples(tensors(FLOATS, shape=(2, 3)), st.just(T(np.array([0.0, 1.0, 3.0], np.float32)))
              ).map(lambda t: Case((t[0],), {"x": t[1]}))), grad=1)
add(P + "diff", tensor_then(n=lambda a: maybe(st.integers(0, 2)),
                            axis=lambda a: maybe(st.sampled_from([0, -1])),
                            shape=st.sampled_from([(4,), (3, 4)])), grad=1)
add(P + "corrcoef", tensor_then(dtypes=NUMERIC, shape=st.sampled_from([(2, 4), (3, 5)])), grad=1)
add(P + "slogdet", matrices(("float32", "float64"), rows=(2, 2), cols=(2, 2), batch=True)
    .map(lambda x: Case((x,))), grad=1)
add(P + "vectorize", st.tuples(tensors(FLOATS, shape=st.sampled_from([(), (3,), (1, 1)]))).map(Case),
    call=lambda lib, x: lib.keras.ops.vectorize(lambda v: v * 2.0 + 1.0)(x))

# -- differences kept on purpose --------------------------------------------------------------


def _off_diagonal_eye(case, verdict):
    if len(case.args) < 3:
        return False
    n, m, k = case.args[:3]
    return k != 0 and n != m


TABLE.known(P + "eye", lambda c, v: v.kind in ("value_mismatch", "tf_raises") and _off_diagonal_eye(c, v),
            "INTENTIONAL: Keras 3.15 on TF builds eye(N, M, k) with k != 0 and N != M from a "
            "padded square eye of the wrong size (eye(2, 4, k=1) has shape (3, 5)); minitf gives "
            "numpy's N x M matrix")


def _rot90_half_turn(case, verdict):
    k = case.kwargs.get("k", 1)
    return verdict.kind == "value_mismatch" and k % 4 == 2


TABLE.known(P + "rot90", _rot90_half_turn,
            "INTENTIONAL: Keras 3.15's TF rot90 with k = 2 on a non-square plane reshapes with "
            "the swapped sizes and scrambles the elements (rot90([[0, 1, 2], [3, 4, 5]], 2) gives "
            "[[1, 3, 5], [0, 2, 4]]); minitf gives numpy's rotation")


def _has_variable(case):
    return any(isinstance(a, V) for a in case.args) or any(isinstance(a, V) for a in case.kwargs.values())


for _name in list(TABLE.rows):
    TABLE.known(_name, lambda c, v: "has no attribute 'ndim'" in v.detail and _has_variable(c),
                "INTENTIONAL: Keras' TF backend reads `x.ndim`, which a plain tf.Variable lacks "
                "(AttributeError; Keras' own variables have it); minitf accepts variables")


def _overflowing_product(case, verdict):
    x = case.args[0] if case.args else None
    a = np.asarray(getattr(x, "value", 0))
    return verdict.kind == "value_mismatch" and a.dtype.kind == "f" and bool(
        np.any(np.abs(a) >= np.finfo(a.dtype).max / 2))


TABLE.known(P + "prod", _overflowing_product,
            "INTENTIONAL: a product of the dtype's extremes with a 0: inf * 0 appears or not "
            "depending on the multiplication order (TF's tree reduction gives NaN, minitf's "
            "sequential product 0)")


def _singular(case, verdict):
    a = np.asarray(case.args[0].value, dtype=np.float64)
    return verdict.kind in ("value_mismatch", "tf_raises", "minitf_raises") and bool(
        np.any(np.linalg.matrix_rank(a) < a.shape[-1]))


TABLE.known(P + "slogdet", _singular,
            "INTENTIONAL: an exactly singular matrix: whether the LU rounding leaves an exact zero "
            "pivot differs (TF: sign 0, log|det| -inf and no gradient; minitf, like numpy: a tiny "
            "determinant and its huge gradient)")


def _half_overflow(case, verdict):
    a = np.asarray(getattr(case.args[0], "value", 0)) if case.args else np.zeros(0)
    return verdict.kind == "value_mismatch" and a.dtype == np.float16 and bool(
        np.any(np.abs(a) >= 32768))


TABLE.known(P + "sum", _half_overflow,
            "INTENTIONAL: a float16 sum whose partial sums overflow: TF's kernel accumulates in "
            "float16 and reaches inf; minitf's reduce_sum accumulates more precisely")
