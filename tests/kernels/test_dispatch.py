"""The kernel seam: one dispatch by array module, the same functions on each side."""
import numpy as np
import pytest

from minitf import kernels
from minitf.kernels import cupy as device_kernels
from minitf.kernels import numpy as numpy_kernels

SHARED = ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "depthwise_conv2d",
          "depthwise_backprop_input", "depthwise_backprop_filter", "max_pool", "max_pool_winners",
          "max_pool_grad", "max_pool_grad_grad", "avg_pool", "avg_pool_grad", "update_variables",
          "argsort_stable", "scatter_at"]


def test_for_module_picks_numpy_or_device_kernels():
    assert kernels.for_module(np) is numpy_kernels
    assert kernels.for_module(object()) is device_kernels


def test_both_sides_offer_the_same_kernels():
    for name in SHARED:
        assert callable(getattr(numpy_kernels, name)), name
        assert callable(getattr(device_kernels, name)), name


def test_argsort_stable_keeps_ties_in_order():
    v = np.array([[3, 1, 3, 1, 2]])
    np.testing.assert_array_equal(numpy_kernels.argsort_stable(v), [[1, 3, 4, 0, 2]])
    np.testing.assert_array_equal(device_kernels.argsort_stable(v), np.argsort(v, axis=-1))


@pytest.mark.parametrize("amsgrad", [False, True])
def test_optimizer_updates_match_on_both_sides(amsgrad):
    # the numpy side runs the rule in cache blocks, the device side on the whole arrays
    from minitf.optimizers import rules
    rng = np.random.default_rng(1)
    arrays = [rng.normal(size=300_000).astype(np.float32) for _ in range(5)]
    constants = {"alpha": 1e-3, "one_minus_b1": 0.1, "one_minus_b2": 0.001, "epsilon": 1e-7}
    outs = []
    for module in (numpy_kernels, device_kernels):
        g, m, v, w, vhat = (a.copy() for a in arrays)
        slots = {"m": m, "v": np.abs(v), "vhat": np.abs(vhat)} if amsgrad else {"m": m, "v": np.abs(v)}
        module.update_variables(rules.adam, [(g, w, slots)], constants)
        outs.append([w] + list(slots.values()))
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(outs[0][0], arrays[3])


@pytest.mark.parametrize("how", ["add", "subtract", "multiply", "maximum", "minimum"])
def test_device_scatter_gives_numpys_result(fake_gpu, how):
    # the device kernel rewrites subtract as an add and sends what it cannot scatter to the host
    rng = np.random.default_rng(0)
    base, values = rng.normal(size=(4, 3)), rng.normal(size=(3, 3))
    indices = np.array([2, 0, 2])
    expected = base.copy()
    getattr(np, how).at(expected, indices, values)
    buf = fake_gpu.asarray(base)
    kernels.for_module(fake_gpu).scatter_at(buf, indices, fake_gpu.asarray(values), how)
    np.testing.assert_allclose(buf.get(), expected, rtol=1e-12)
