"""Shared strategies for the keras.ops / keras.random / keras.backend parity rows.

Keras' dtype rules are the point of many rows, so operands come in every common dtype, as
Python scalars (weak types) and as lists, and sometimes in two different dtypes. Values sit on
the grid of parity_strategies (never exactly on a kink); `extremes` adds the dtype's own limits.
"""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, T
from parity_strategies import (ALL_DTYPES, FLOATS, OMIT, axes, maybe, nonempty_shapes,
                               operand_pairs, shapes, tensors, values)

NUMERIC = FLOATS + ("int8", "int16", "int32", "int64", "uint8")
EVERY = NUMERIC + ("bool",)


def extremes(dtypes=NUMERIC):
    """A T holding the dtype's min, max, 0 and small values of both signs."""
    @st.composite
    def make(draw):
        dtype = draw(st.sampled_from(dtypes))
        dt = np.dtype(dtype)
        if dt.kind == "f":
            info = np.finfo(dt)
            pool = [info.min, info.max, 0.0, -0.0, 1.5, -2.25, info.tiny]
        elif dt.kind == "b":
            pool = [True, False]
        else:
            info = np.iinfo(dt)
            pool = [info.min, info.max, 0, 1, info.max - 1]
            pool += [-1, -7] if dt.kind == "i" else [7]
        return T(np.array(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6)), dtype=dt))
    return make()


def operand(dtypes=EVERY, low=-4.0, high=4.0, variable=True):
    """A tensor (sometimes a variable), or a Python scalar or list of the same values."""
    @st.composite
    def make(draw):
        x = draw(tensors(dtypes, low=low, high=high, variable=variable))
        kind = draw(st.integers(0, 9))
        a = np.asarray(x.value)
        if kind == 0 and a.ndim <= 2 and a.dtype.kind in "fb" and a.size:
            return a.tolist()
        if kind == 1 and a.size and a.dtype.kind in "fb":
            return a.reshape(-1)[0].item()
        return x
    return make()


def unary_cases(dtypes=EVERY, low=-4.0, high=4.0, extreme=False):
    s = operand(dtypes, low, high)
    if extreme:
        s = st.one_of(s, s, s, extremes(tuple(d for d in dtypes if d != "bool") or NUMERIC))
    return s.map(lambda x: Case((x,)))


def pair_cases(dtypes=EVERY, low=-4.0, high=4.0):
    return operand_pairs(dtypes, low=low, high=high).map(lambda p: Case(p))


@st.composite
def reduction(draw, dtypes=EVERY, keepdims=True, nonempty=False, axis_list=True, extra=None):
    """(x, axis=..., keepdims=...) with x of any rank and axis None, an int or a list."""
    x = draw(tensors(dtypes, shape=draw(nonempty_shapes if nonempty else shapes), variable=True))
    kwargs = {}
    axis = draw(axes(np.ndim(x.value), allow_list=axis_list))
    if axis is not None or draw(st.booleans()):
        kwargs["axis"] = axis
    if keepdims and draw(st.booleans()):
        kwargs["keepdims"] = draw(st.booleans())
    for key, strategy in (extra or {}).items():
        value = draw(strategy)
        if value is not OMIT:
            kwargs[key] = value
    return Case((x,), kwargs)


def tensor_then(*others, dtypes=EVERY, shape=None, variable=True, **kw_strategies):
    """Case(x, *others(x)) with keyword strategies that may depend on x."""
    @st.composite
    def make(draw):
        x = draw(tensors(dtypes, shape=shape, variable=variable))
        a = np.asarray(x.value)
        args = (x,) + tuple(draw(o(a)) for o in others)
        kwargs = {}
        for key, fn in kw_strategies.items():
            value = draw(fn(a))
            if value is not OMIT:
                kwargs[key] = value
        return Case(args, kwargs)
    return make()


def an_axis(a, allow_none=False):
    return axes(a.ndim, allow_none=allow_none, allow_list=False) if a.ndim else \
        st.sampled_from([0, -1] + ([None] if allow_none else []))


def maybe_axis(a):
    return maybe(an_axis(a, allow_none=True))


def matrices(dtypes=FLOATS, rows=(1, 4), cols=(1, 4), batch=False, variable=True):
    """A T of shape ([b,] m, n)."""
    @st.composite
    def make(draw):
        shape = [draw(st.integers(*rows)), draw(st.integers(*cols))]
        if batch and draw(st.booleans()):
            shape = [draw(st.integers(1, 3))] + shape
        return draw(tensors(dtypes, shape=tuple(shape), variable=variable))
    return make()


def spd(dtypes=("float32", "float64")):
    """A symmetric positive-definite matrix (maybe batched)."""
    @st.composite
    def make(draw):
        n = draw(st.integers(1, 4))
        dtype = draw(st.sampled_from(dtypes))
        a = draw(values(dtype, (n, n), -2.0, 2.0)).astype(np.float64)
        m = a @ a.T + n * np.eye(n)
        if draw(st.booleans()):
            m = np.stack([m, m + np.eye(n)])
        return T(m.astype(dtype))
    return make()


def bits(x):
    """A tensor as (dtype name, shape, exact bit pattern), floats compared with no tolerance."""
    a = np.asarray(x.numpy())
    if a.dtype.kind == "f":
        a = a.view(f"u{a.itemsize}")
    return [x.dtype.name, list(a.shape), a]


__all__ = ["ALL_DTYPES", "EVERY", "NUMERIC", "extremes", "operand", "unary_cases", "pair_cases",
           "reduction", "tensor_then", "an_axis", "maybe_axis", "matrices", "spd", "bits"]
