"""Hypothesis strategies for the parity table: dtypes, shapes, arrays, axes and operands.

Everything a case holds is library-neutral (see parity_oracle): numpy arrays behind `T`/`V`,
Python scalars and lists as they are. Shapes stay small (at most 4 dims of at most 4) and include
scalars and zero-size dimensions; values stay in ranges every dtype can hold.
"""
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from parity_oracle import Case, D, T, V

FLOATS = ("float16", "float32", "float64")
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8",)
INTS = SIGNED + UNSIGNED
ALL_DTYPES = FLOATS + INTS + ("bool",)
# dtypes some ops have no kernel for: TF's answer is an error, minitf's must be the same one
ODD_DTYPES = ("uint16", "uint32", "uint64", "complex64")

shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)
nonempty_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)


def values(dtype, shape, low=-4.0, high=4.0):
    """An array of `dtype` and `shape` with elements in [low, high] (clipped to the dtype)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return hnp.arrays(dt, shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(int(np.ceil(low)), info.min), min(int(np.floor(high)), info.max)
        return hnp.arrays(dt, shape, elements=st.integers(lo, max(lo, hi)))
    if dt.kind == "c":
        return hnp.arrays(dt, shape, elements=st.complex_numbers(max_magnitude=high))
    # grid values: exactly representable in float16, away from kinks of abs/relu/floor
    grid = st.integers(int(low * 8), int(high * 8)).map(lambda i: i / 8 + 1 / 64)
    return hnp.arrays(dt, shape, elements=grid.filter(lambda v: low <= v <= high))


@st.composite
def tensors(draw, dtypes=FLOATS, shape=None, low=-4.0, high=4.0, variable=False):
    """A T (or sometimes V when `variable`) of one of `dtypes`; `shape` may be a strategy."""
    dtype = draw(st.sampled_from(dtypes))
    if shape is None:
        shape = draw(shapes)
    elif isinstance(shape, st.SearchStrategy):
        shape = draw(shape)
    array = draw(values(dtype, shape, low, high))
    if variable and np.dtype(dtype).kind == "f" and draw(st.booleans()):
        return V(array)
    return T(array)


def broadcast_pair(shape):
    """A shape that broadcasts with `shape` (or, rarely, one that does not)."""
    @st.composite
    def pick(draw):
        if draw(st.integers(0, 9)) == 0:
            return draw(shapes)  # usually incompatible: the error class is compared
        dims = list(shape)
        keep = draw(st.integers(0, len(dims)))
        dims = dims[len(dims) - keep:]
        return tuple(1 if draw(st.booleans()) else d for d in dims)
    return pick()


@st.composite
def operand_pairs(draw, dtypes=FLOATS, low=-4.0, high=4.0, mixed_dtypes=True):
    """Two operands for a binary op: tensors/variables of one dtype, broadcasting shapes,
    sometimes a Python scalar or list on either side, sometimes two different dtypes."""
    dtype = draw(st.sampled_from(dtypes))
    shape_x = draw(shapes)
    x = draw(values(dtype, shape_x, low, high))
    other_dtype = dtype
    if mixed_dtypes and draw(st.integers(0, 7)) == 0:
        other_dtype = draw(st.sampled_from(ALL_DTYPES))
    y = draw(values(other_dtype, draw(broadcast_pair(shape_x)), low, high))
    kind = draw(st.sampled_from(["tt", "tt", "tt", "vt", "tv", "st", "ts", "lt", "tl"]))
    is_float = np.dtype(dtype).kind == "f"

    def python(array):
        scalar = array.reshape(-1)[0].item() if array.size else 1
        return scalar

    def wrap(array, how):
        if how == "v" and is_float and array.dtype == np.dtype(dtype):
            return V(array)
        return T(array)
    if kind == "st":
        return python(y), wrap(x, "t")
    if kind == "ts":
        return wrap(x, "t"), python(y)
    if kind == "lt" and x.ndim <= 2:
        return y.astype(dtype).tolist(), wrap(x, "t")
    if kind == "tl" and y.ndim <= 2:
        return wrap(x, "t"), y.astype(dtype).tolist()
    return wrap(x, kind[0]), wrap(y, kind[1] if len(kind) > 1 else "t")


@st.composite
def axes(draw, ndim, allow_none=True, allow_list=True):
    """An axis argument for a tensor of rank `ndim`: None, an int (maybe negative or out of
    range) or a list (maybe with duplicates)."""
    choice = draw(st.integers(0, 9))
    if allow_none and choice == 0:
        return None
    single = st.integers(-ndim - 1, ndim) if ndim else st.integers(-1, 1)
    if allow_list and choice >= 7:
        return draw(st.lists(single, min_size=0, max_size=3))
    return draw(single)


def cases(*arg_strategies, **kwarg_strategies):
    """A strategy of Case from one strategy per argument (keyword strategies may yield
    `OMIT` to leave the keyword out)."""
    @st.composite
    def make(draw):
        args = tuple(draw(s) for s in arg_strategies)
        kwargs = {}
        for key, s in kwarg_strategies.items():
            value = draw(s)
            if value is not OMIT:
                kwargs[key] = value
        return Case(args, kwargs)
    return make()


OMIT = object()


def maybe(strategy):
    """A keyword strategy that sometimes leaves the keyword out."""
    return st.one_of(st.just(OMIT), strategy)


dtype_args = st.sampled_from(ALL_DTYPES + ODD_DTYPES).map(D)
