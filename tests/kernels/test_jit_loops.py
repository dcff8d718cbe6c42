"""The numba loops (minitf/kernels/jit.py users) against the numpy code they stand in for, bit
for bit: Philox blocks, uint32 -> float32 uniforms, and the select behind tf.where."""
import numpy as np
import pytest

import minitf as tf
from minitf.kernels import jit, numpy as host_kernels
from minitf.ops import philox
from minitf.optimizers import rules

pytest.importorskip("numba")


@pytest.fixture
def numba_off(monkeypatch):
    def switch(on):
        monkeypatch.setattr(jit, "_found", [on])
    return switch


@pytest.mark.parametrize("key, counter, n, start", [
    (0, (0, 0), 300, 0),
    (2 ** 64 - 1, (2 ** 64 - 5, 7), 1000, 3),                          # the low word carries into the high
    (123456789, (2 ** 64 - 300, 2 ** 64 - 1), 5000, 2 ** 64 - 10),     # the 128-bit counter wraps to 0
    (5, (1, 2), philox._LOOP_MIN_BLOCKS, 0),
    (7, (3, 4), 1025, 511),                                            # chunks of 512 and one more
    (9, (2 ** 64 - 600, 0), 1024, 0),                                  # a carry inside the second chunk
])
def test_philox_blocks_and_streams(numba_off, key, counter, n, start):
    numba_off(False)
    want, want_stream = philox.blocks(key, counter, n, start), philox.stream(key, counter, n, start)
    numba_off(True)
    got, got_stream = philox.blocks(key, counter, n, start), philox.stream(key, counter, n, start)
    assert got.dtype == np.uint32 and np.array_equal(got, want)
    assert all(np.array_equal(a, b) for a, b in zip(got_stream, want_stream))


def test_unit_floats(numba_off):
    words = np.random.default_rng(0).integers(0, 2 ** 32, 50_000, dtype=np.uint64).astype(np.uint32)
    words[:5] = [0, 2 ** 32 - 1, 0x7FFFFF, 0x800000, 0x3F800000]
    numba_off(False)
    want = philox.uint32_to_float(words)
    numba_off(True)
    got = philox.uint32_to_float(words)
    assert got.dtype == np.float32 and np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_seeded_draws_are_the_same_with_and_without_numba(numba_off):
    results = []
    for on in (False, True):
        numba_off(on)
        tf.keras.utils.set_random_seed(3)
        x = tf.ones((64, 14, 14, 8))
        results.append([tf.nn.dropout(x, 0.3).numpy(), tf.random.uniform((40_000,)).numpy(),
                        tf.random.stateless_uniform((9_000,), seed=(1, 2)).numpy(),
                        tf.random.normal((5_000,), seed=4).numpy()])
    for a, b in zip(*results):
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8])
def test_select_is_numpy_where(numba_off, dtype):
    rng = np.random.default_rng(1)
    cond = rng.random((64, 130)) < 0.5
    if np.dtype(dtype).kind == "f":
        x = rng.normal(size=cond.shape).astype(dtype)
        y = rng.normal(size=cond.shape).astype(dtype)
        x.reshape(-1)[:6] = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0]
        y.reshape(-1)[:6] = [-0.0, 0.0, np.nan, 1.0, np.nan, -0.0]
    else:
        x = rng.integers(0, 100, cond.shape).astype(dtype)
        y = rng.integers(0, 100, cond.shape).astype(dtype)
    numba_off(True)
    got = host_kernels.select(cond, x, y)
    want = np.where(cond, x, y)
    assert got.dtype == want.dtype and np.array_equal(got.view(np.uint8), want.view(np.uint8))
    # a single value for y (a Dropout's zero), 0-d or of x's rank, takes the loop too
    for value in (np.asarray(y.reshape(-1)[0]), y.reshape(-1)[:1].reshape(1, 1), np.asarray(-0.0).astype(dtype)):
        got, want = host_kernels.select(cond, x, value), np.where(cond, x, value)
        assert got.shape == want.shape and np.array_equal(got.view(np.uint8), want.view(np.uint8))
    # broadcasting to more axes, other broadcasting and non-contiguous operands take numpy.where
    assert host_kernels.select(cond, x, y[:1, :1].reshape(1, 1, 1)).shape == (1,) + cond.shape
    assert np.array_equal(host_kernels.select(cond, x, y[0]), np.where(cond, x, y[0]), equal_nan=True)
    assert np.array_equal(host_kernels.select(cond.T, x.T, y.T), np.where(cond.T, x.T, y.T), equal_nan=True)


def _adam_run(numba_off, on, dtype, amsgrad=False, learning_rate=1e-2):
    numba_off(on)
    rng = np.random.default_rng(0)
    shapes = [(300, 70), (70,), (200_000,)]  # the last one is cut into blocks
    variables = [tf.Variable(rng.normal(size=s).astype(dtype)) for s in shapes]
    optimizer = tf.keras.optimizers.Adam(learning_rate, amsgrad=amsgrad)
    for k in range(4):
        grads = [tf.constant(rng.normal(size=s).astype(dtype) * (k + 1)) for s in shapes]
        grads[0] = tf.constant(np.asarray(grads[0].numpy().T.copy().T))  # any layout of a gradient
        optimizer.apply_gradients(zip(grads, variables))
    return [np.atleast_1d(v.numpy()) for v in variables + list(optimizer.variables)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_steps_are_the_numpy_rule_bit_for_bit(numba_off, dtype, amsgrad):
    want = _adam_run(numba_off, False, dtype, amsgrad)
    got = _adam_run(numba_off, True, dtype, amsgrad)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))


def test_adam_takes_the_loop_only_where_numpy_computes_in_the_arrays_dtype(numba_off):
    numba_off(True)
    w, g = np.ones(4096, np.float32), np.ones(4096, np.float32)
    slots = {"m": np.zeros(4096, np.float32), "v": np.zeros(4096, np.float32)}
    python_constants = {"alpha": 0.1, "one_minus_b1": 0.1, "one_minus_b2": 0.001, "epsilon": 1e-7}
    assert host_kernels._compiled_rule(rules.adam, [(g, w, slots)], python_constants) is not rules.adam
    wide = dict(python_constants, alpha=np.float64(0.1))  # numpy would multiply in float64
    assert host_kernels._compiled_rule(rules.adam, [(g, w, slots)], wide) is rules.adam
    amsgrad = dict(slots, vhat=np.zeros(4096, np.float32))
    assert host_kernels._compiled_rule(rules.adam, [(g, w, amsgrad)], python_constants) is rules.adam
    assert host_kernels._compiled_rule(rules.sgd, [(g, w, {})], {"lr": 0.1, "momentum": 0.0,
                                                                  "nesterov": False}) is rules.sgd


def test_loops_from_source_files_are_cached_on_disk_and_generated_ones_are_not():
    from numba.core.caching import NullCache
    assert not isinstance(jit.compiled(philox._blocks_loop)._cache, NullCache)
    namespace = {}
    exec("def kernel(x):\n    return x + 1\n", namespace)  # noqa: S102 (as fusion makes its kernels)
    generated = jit.compiled(namespace["kernel"])
    assert isinstance(generated._cache, NullCache) and generated(1) == 2


def test_a_loop_compiles_uncached_where_numba_has_nowhere_to_cache(monkeypatch):
    import numba
    njit = numba.njit

    def no_locator(*args, cache=False, **kwargs):
        if cache:  # what numba raises when neither the package nor the user's cache is writable
            raise RuntimeError("cannot cache function: no locator available")
        return njit(*args, **kwargs)
    monkeypatch.setattr(numba, "njit", no_locator)
    loop = jit.compiled(host_kernels._select_loop)
    out = np.empty(3)
    loop(np.array([True, False, True]), np.ones(3), np.zeros(3), out)
    np.testing.assert_array_equal(out, [1.0, 0.0, 1.0])
