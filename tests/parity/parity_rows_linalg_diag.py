"""Rows for the diagonal ops tf.linalg.diag, diag_part and set_diag (MatrixDiagV3,
MatrixDiagPartV3, MatrixSetDiagV3): one diagonal or a band k=(low, high), the four alignments,
num_rows/num_cols, padding_value, batch dimensions, every dtype TF has a kernel for, the
dtype extremes, and the bad k / sizes / shapes TF rejects (the error class is compared)."""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, T, V
from parity_strategies import ALL_DTYPES, FLOATS, values
from parity_table import Table

TABLE = Table()
add = TABLE.add

DTYPES = FLOATS * 3 + ALL_DTYPES + ("uint16", "uint32", "uint64", "complex64", "complex128")
ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")
_RARELY = st.sampled_from([False] * 9 + [True])


def _padding(draw, dtype):
    kind = np.dtype(dtype).kind
    if kind == "b":
        return draw(st.sampled_from([True, False, 1, 0]))
    if kind in "iu":
        info = np.iinfo(dtype)
        return draw(st.sampled_from([int(info.min), int(info.max), 7]))
    if kind == "c":
        return draw(st.sampled_from([1 - 2j, 0j]))
    return draw(st.sampled_from([-1.5, 9.0, -0.0]))


def _tensor(draw, dtype, shape):
    array = draw(values(dtype, shape))
    if np.dtype(dtype).kind == "f" and draw(st.booleans()):
        return V(array)
    return T(array)


def _k(draw, lower, upper):
    """k as TF takes it: an int, a pair (a list or tuple), rarely a pair with low == high."""
    if lower == upper and draw(st.booleans()):
        return lower
    return draw(st.sampled_from([(lower, upper), [lower, upper]]))


def _band(draw, lo=-2, hi=2):
    """(lower, upper) with lower in [lo, hi] and upper <= hi, or rarely upper = lower - 1."""
    hi = max(lo, hi)
    lower = draw(st.integers(lo, hi))
    upper = lower + draw(st.sampled_from([0, 0, 0, 1, 1, 2, 2, -1]))  # -1: low > high, an error
    return lower, min(upper, max(hi, lower))


@st.composite
def diag_cases(draw):
    dtype = draw(st.sampled_from(DTYPES))
    lower, upper = _band(draw)
    band = lower != upper
    max_len = draw(st.integers(0, 3))
    batch = draw(st.sampled_from([(), (), (2,), (2, 1)]))
    shape = batch + ((max(upper - lower + 1, 1),) if band else ()) + (max_len,)
    if band and upper > lower and draw(_RARELY):
        shape = shape[:-2] + (shape[-2] + 1, max_len)  # the wrong number of diagonals
    kwargs = {"k": _k(draw, lower, upper)}
    min_rows, min_cols = max_len - min(upper, 0), max_len + max(lower, 0)
    sizes = draw(st.sampled_from(["none", "none", "none", "rows", "cols", "both", "both", "small", "inconsistent"]))
    extra = draw(st.integers(0, 2))
    if sizes == "rows":
        kwargs["num_rows"] = min_rows + extra
    elif sizes == "cols":
        kwargs["num_cols"] = min_cols + extra
    elif sizes == "both":
        kwargs.update(num_rows=min_rows, num_cols=min_cols + extra) if draw(st.booleans()) else \
            kwargs.update(num_rows=min_rows + extra, num_cols=min_cols)
    elif sizes == "small":
        kwargs["num_rows" if draw(st.booleans()) else "num_cols"] = max(min_rows, min_cols) - 1
    elif sizes == "inconsistent":
        kwargs.update(num_rows=min_rows + 1, num_cols=min_cols + 1)
    if draw(st.booleans()):
        kwargs["padding_value"] = _padding(draw, dtype)
    if draw(st.booleans()):
        kwargs["align"] = draw(st.sampled_from(ALIGNS))
    return Case((_tensor(draw, dtype, shape),), kwargs)


@st.composite
def diag_part_cases(draw):
    dtype = draw(st.sampled_from(DTYPES))
    rows, cols = draw(st.integers(0, 4)), draw(st.integers(0, 4))
    batch = draw(st.sampled_from([(), (), (2,), (2, 1)]))
    reach = draw(st.sampled_from([0, 0, 0, 1]))  # 1: some k outside (-rows, cols), an error
    lower, upper = _band(draw, min(0, 1 - reach - rows), max(0, cols - 1 + reach))
    kwargs = {"k": _k(draw, lower, upper)}
    if draw(st.booleans()):
        kwargs["padding_value"] = _padding(draw, dtype)
    if draw(st.booleans()):
        kwargs["align"] = draw(st.sampled_from(ALIGNS))
    return Case((_tensor(draw, dtype, batch + (rows, cols)),), kwargs)


@st.composite
def set_diag_cases(draw):
    dtype = draw(st.sampled_from(DTYPES))
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    batch = draw(st.sampled_from([(), (), (2,), (2, 1)]))
    reach = draw(st.sampled_from([0, 0, 0, 1]))  # 1: some k outside (-rows, cols), an error
    lower, upper = _band(draw, min(0, 1 - reach - rows), max(0, cols - 1 + reach))
    num_diags = upper - lower + 1
    max_len = max(0, min(rows + min(upper, 0), cols - max(lower, 0)))
    shape = batch + ((num_diags,) if num_diags > 1 else ()) + (max_len,)
    if draw(_RARELY):
        shape = shape[:-1] + (max_len + 1,)  # a diagonal too long: an error
    kwargs = {"k": _k(draw, lower, upper)}
    if draw(st.booleans()):
        kwargs["align"] = draw(st.sampled_from(ALIGNS))
    return Case((_tensor(draw, dtype, batch + (rows, cols)), _tensor(draw, dtype, shape)), kwargs)


def _extremes(dtype):
    if dtype == "bool":
        return np.array([True, False, True])
    kind = np.dtype(dtype).kind
    info = np.iinfo(dtype) if kind in "iu" else np.finfo(dtype)
    tiny = 0 if kind in "iu" else info.tiny
    return np.array([info.min, info.max, tiny], dtype=dtype)


_EXTREME_DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
                   "uint32", "uint64", "bool")
DIAG_EXTREMES = [Case((T(_extremes(d)),), {"k": (-1, 0) if i % 2 else 1, "align": ALIGNS[i % 4]})
                 for i, d in enumerate(_EXTREME_DTYPES) if i % 2 == 0] + \
    [Case((T(np.stack([_extremes(d), _extremes(d)[::-1]])),), {"k": (-1, 0), "align": ALIGNS[i % 4],
                                                                "padding_value": _extremes(d)[1].item()})
     for i, d in enumerate(_EXTREME_DTYPES)] + [
    Case((T(np.array([1, 2], "int8")),), {"k": 1}),  # the report: [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    Case((T(np.array([1, 2], "int8")),), {"k": -1, "num_rows": 3, "num_cols": 4}),
    Case((T(np.array([1.0, 2.0], "float32")),), {"k": 0.5}),  # TypeError: k is int32
    Case((T(np.array([1.0, 2.0], "float32")),), {"k": [0, 1, 2]}),
    Case((T(np.array([1.0, 2.0], "float32")),), {"align": "right_left"}),
    Case((T(np.array([1.0, 2.0], "float32")),), {"padding_value": 0.5 + 0j}),
    Case((T(np.float32(1.0)),)),
]
DIAG_PART_EXTREMES = [
    Case((T(np.arange(9, dtype="int32").reshape(3, 3)),), {"k": 1}),  # the report: [1, 5]
    Case((T(np.arange(12, dtype="int64").reshape(3, 4)),), {"k": (-1, 2), "align": "LEFT_LEFT",
                                                           "padding_value": -2 ** 63}),
    Case((T(np.array([1.0, 2.0], "float32")),)),  # rank 1
    Case((T(np.zeros((2, 2), "float32")),), {"k": [[0]]}),
    Case((T(np.zeros((2, 2), "float32")),), {"padding_value": T(np.zeros(2, "float32"))}),
] + [Case((T(np.stack([_extremes(d), _extremes(d)[::-1], _extremes(d)])),),
          {"k": (-1, 1), "align": ALIGNS[i % 4], "padding_value": _extremes(d)[0].item()})
     for i, d in enumerate(_EXTREME_DTYPES)]
SET_DIAG_EXTREMES = [
    Case((T(np.arange(9, dtype="int32").reshape(3, 3)), [7, 8]), {"k": 1}),
    Case((T(np.zeros((3, 3), "float32")), T(np.array([1, 2, 3], "int32")))),  # dtypes differ
    Case((T(np.zeros((2, 3, 3), "float32")), T(np.zeros((3, 3), "float32")))),  # batch differs
    Case((T(np.zeros(3, "float32")), T(np.zeros(3, "float32")))),  # rank 1
] + [Case((T(np.zeros((3, 3), d)), T(np.stack([_extremes(d)[:2], _extremes(d)[1:]]))),
          {"k": (1, 2), "align": ALIGNS[i % 4]})
     for i, d in enumerate(_EXTREME_DTYPES)]

add("linalg.diag", st.one_of(diag_cases(), st.sampled_from(DIAG_EXTREMES)), grad=1, examples=80)
add("linalg.diag_part", st.one_of(diag_part_cases(), st.sampled_from(DIAG_PART_EXTREMES)), grad=1, examples=80)
add("linalg.set_diag", st.one_of(set_diag_cases(), st.sampled_from(SET_DIAG_EXTREMES)), grad=1, examples=80)
