"""Parity rows for mixed precision: LossScaleOptimizer's dynamic loss scaling against Keras 3.

Each case runs a few apply_gradients steps with fixed gradients, some holding an inf or NaN,
and returns the variables, the inner optimizer's step count, the loss scale and the growth
counter after them, plus the scaled value of a fixed loss.
"""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case
from parity_table import Table

TABLE = Table()

_INIT = np.array([0.5, -1.0, 2.0], dtype="float32")
_BAD = {"inf": np.inf, "nan": np.nan}


def _lso_case():
    steps = st.lists(st.sampled_from(["ok", "ok", "inf", "nan"]), min_size=1, max_size=6)
    return st.tuples(st.sampled_from(["SGD", "Adam"]), st.sampled_from([1.0, 8.0, 2.0 ** 15]),
                     st.integers(1, 3), steps).map(
        lambda t: Case((t[0], t[1], t[2], tuple(t[3])), {}))


def _lso_call(lib, inner, initial_scale, growth, steps):
    opt = lib.keras.mixed_precision.LossScaleOptimizer(getattr(lib.keras.optimizers, inner)(0.1),
                                                       initial_scale=initial_scale, dynamic_growth_steps=growth)
    v = lib.Variable(_INIT.copy())
    for i, kind in enumerate(steps):
        g = np.array([0.25, -0.5, 1.0], dtype="float32") * (i + 1) * 4.0
        if kind != "ok":
            g[i % 3] = _BAD[kind]
        opt.apply_gradients([(lib.constant(g), v)])
    return [lib.convert_to_tensor(v), int(np.asarray(opt.iterations)), float(np.asarray(opt.dynamic_scale)),
            int(np.asarray(opt.step_counter)), float(np.asarray(opt.scale_loss(lib.constant(1.5))))]


TABLE.add("keras.optimizers.LossScaleOptimizer", _lso_case(), call=_lso_call, rtol=1e-5, atol=1e-6)
