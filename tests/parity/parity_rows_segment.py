"""Parity rows for tf.math's segment reductions (sorted and unsorted) and tf.searchsorted.

Data is drawn from a few values with ties, zeros and both signs (where max/min/prod gradients
are decided by TF's tie and zero rules), and from each integer dtype's extremes (wrapping sums
and products); ids cover empty segments, negative and out-of-range ids and unsorted ids.
"""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, D, T, V
from parity_table import Table

TABLE = Table()
add = TABLE.add

DATA_DTYPES = ("float16", "float32", "float64", "int8", "int32", "int64", "uint8")
REJECTED = ("bool", "complex64")
TIES = [-2.5, -1.0, 0.0, 0.0, 1.0, 1.0, 2.0, 3.5]


@st.composite
def segment_data(draw, rows, dtypes=DATA_DTYPES, rejected=REJECTED):
    """A T (or V) of `rows` leading entries and maybe a trailing dimension: tied values, zeros and
    both signs, or the dtype's extremes for integers."""
    dtype = draw(st.sampled_from(dtypes + rejected))
    tail = draw(st.sampled_from([(), (2,)]))
    shape = (rows,) + tail if isinstance(rows, int) else tuple(rows) + tail
    size = int(np.prod(shape, dtype=np.int64))
    kind = np.dtype(dtype).kind
    pool = list(TIES)
    if kind in "iu":
        info = np.iinfo(dtype)
        pool = [int(v) for v in pool if float(v).is_integer()] + [int(info.min), int(info.max)]
        if kind == "u":
            pool = [v for v in pool if v >= 0]
    elif kind == "b":
        pool = [True, False]
    vals = draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size))
    array = np.asarray(vals).astype(dtype).reshape(shape)
    if kind == "f" and draw(st.booleans()):
        return V(array)
    return T(array)


SORTED_IDS = [[0, 0, 1, 1], [0, 1, 1, 3], [0, 0, 0, 0], [1, 1, 2, 2], [0, 1, 2, 3],
              [0, 2, 1, 1], [-1, 0, 0, 1], [0, 0, 1]]


@st.composite
def sorted_cases(draw):
    ids = draw(st.sampled_from(SORTED_IDS))
    dtype = draw(st.sampled_from(["int32", "int64", "int32", "int16"]))
    return Case((draw(segment_data(4)), T(np.asarray(ids, dtype=dtype))))


for _name in ("segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod"):
    add(f"math.{_name}", sorted_cases(), grad=2 if _name in ("segment_sum", "segment_mean") else 1)


UNSORTED_IDS = [[3, 0, -1, 3], [0, 0, 0, 0], [1, -1, -1, 1], [4, 0, 0, 0], [2, 0, 1, 2],
                [[0, 1], [1, -1]], [[2, 2], [0, 0]], [0, 1, 1]]


@st.composite
def unsorted_cases(draw, dtypes=DATA_DTYPES, rejected=REJECTED):
    ids = np.asarray(draw(st.sampled_from(UNSORTED_IDS)))
    rows = ids.shape if ids.ndim == 2 else 4
    dtype = draw(st.sampled_from(["int32", "int64", "int16"]))
    num = draw(st.sampled_from([4, 4, 5, 3, 0, -1, T(np.asarray(4, "int64"))]))
    return Case((draw(segment_data(rows, dtypes, rejected)), T(ids.astype(dtype)), num))


for _name in ("unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
              "unsorted_segment_prod"):
    add(f"math.{_name}", unsorted_cases(), grad=2 if _name == "unsorted_segment_sum" else 1)
add("math.unsorted_segment_mean", unsorted_cases(), grad=2)
add("math.unsorted_segment_sqrt_n", unsorted_cases(("float16", "float32", "float64", "int32"),
                                                   ("complex64",)), grad=2)


@st.composite
def searchsorted_cases(draw):
    """A sorted sequence with repeated entries and values equal to some of them (ties on both
    sides), both signs, zero and the dtype's extremes; leading shapes that match or not."""
    dtype = draw(st.sampled_from(DATA_DTYPES + ("uint16", "bool", "complex64")))
    lead = draw(st.sampled_from([(), (2,), (1, 2), (3,)]))
    n, m = draw(st.integers(0, 5)), draw(st.integers(0, 3))
    kind = np.dtype(dtype).kind
    pool = [-3.0, -1.0, 0.0, 0.0, 2.0, 2.0, 5.0]
    if kind in "iu":
        info = np.iinfo(dtype)
        pool = [int(v) for v in pool] + [int(info.min), int(info.max)]
    if kind == "u":
        pool = [v for v in pool if v >= 0]
    rows = int(np.prod(lead, dtype=np.int64))
    seq = np.sort(np.asarray(draw(st.lists(st.sampled_from(pool), min_size=rows * n, max_size=rows * n)),
                             dtype=np.float64).reshape(lead + (n,)), axis=-1).astype(dtype)
    v_lead = draw(st.sampled_from([lead, lead, (rows,), (2, 2)]))
    size = int(np.prod(v_lead, dtype=np.int64)) * m
    vals = np.asarray(draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size)),
                      dtype=np.float64).reshape(v_lead + (m,)).astype(dtype)
    kwargs = {}
    if draw(st.booleans()):
        kwargs["side"] = draw(st.sampled_from(["left", "right", "right", "middle"]))
    if draw(st.booleans()):
        kwargs["out_type"] = D(draw(st.sampled_from(["int32", "int64", "int64", "float32"])))
    return Case((T(seq), T(vals)), kwargs)


add("searchsorted", searchsorted_cases())
