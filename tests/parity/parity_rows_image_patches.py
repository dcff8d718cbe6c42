"""Parity rows for tf.image.extract_patches: window sizes, strides and rates across space, 'VALID'
and 'SAME' padding, windows larger than the image (an error for 'VALID'), every real dtype with
signed, zero, tied and extreme values, bad attributes, and first and second gradients."""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, T, V
from parity_table import Table

TABLE = Table()

_EXTREMES = {"float32": [np.finfo(np.float32).max, -np.finfo(np.float32).max, np.inf, -np.inf],
             "float64": [np.finfo(np.float64).tiny, -0.0], "int32": [2 ** 31 - 1, -2 ** 31],
             "uint8": [255, 0], "int64": [2 ** 63 - 1, -2 ** 63], "float16": [65504.0, -65504.0]}


@st.composite
def _patch_case(draw):
    dtype = draw(st.sampled_from(sorted(_EXTREMES)))
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 6)), draw(st.integers(1, 6)), draw(st.integers(1, 3)))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    values = rng.integers(-3, 4, size=shape).astype(dtype) if dtype != "uint8" else \
        rng.integers(0, 5, size=shape).astype(dtype)
    flat = values.reshape(-1)
    for i, extreme in enumerate(_EXTREMES[dtype][:flat.size]):
        flat[(i * 7) % flat.size] = extreme
    attrs = [[1, draw(st.integers(1, 3)), draw(st.integers(1, 3)), 1] for _ in range(3)]
    if draw(st.integers(0, 9)) == 0:  # a batch or depth entry TF does not implement, or a short list
        attrs[draw(st.integers(0, 2))] = draw(st.sampled_from([[2, 1, 1, 1], [1, 1, 1, 2], [1, 2, 2]]))
    padding = draw(st.sampled_from(["VALID", "SAME", "same"]))
    wrap = V if dtype.startswith("float") and draw(st.booleans()) else T
    return Case((wrap(values),), {"sizes": attrs[0], "strides": attrs[1], "rates": attrs[2], "padding": padding})


@st.composite
def _smooth_case(draw):
    """float64 values for the gradients (the patches copy pixels: exact on both sides)."""
    shape = (1, draw(st.integers(2, 5)), draw(st.integers(2, 5)), 2)
    values = np.random.default_rng(draw(st.integers(0, 999))).normal(size=shape)
    return Case((T(values),), {"sizes": [1, 2, draw(st.integers(1, 2)), 1], "strides": [1, 1, 2, 1],
                               "rates": [1, draw(st.integers(1, 2)), 1, 1], "padding": draw(st.sampled_from(["VALID", "SAME"]))})


TABLE.add("image.extract_patches", st.one_of(_patch_case(), _smooth_case()), grad=2)
