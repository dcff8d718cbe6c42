"""tf.nn.dropout's seeded masks and values equal TensorFlow 2.21's bit for bit: the mask is the
RandomUniform draw of TF's dropout (in x's dtype, kept where >= rate), under TF's seed rules
(global seed, op seed, both, successive calls, rate=0 still taking an op seed), with
noise_shape, float16/float32/float64, a Python rate (x * (1 / (1 - rate))) and a tensor rate
(x / (1 - rate)); gradients too."""
import numpy as np
import pytest

import minitf as mt

tf = pytest.importorskip("tensorflow")


@pytest.fixture(autouse=True)
def _reset_seeds():
    yield
    tf.random.set_seed(None)
    mt.random.set_seed(None)


def _bits(y):
    a = np.asarray(y.numpy())
    return a.view(f"u{a.itemsize}")


def _run(lib, program):
    return [_bits(y) for y in program(lib)]


def _same(program):
    want, got = _run(tf, program), _run(mt, program)
    assert len(want) == len(got)
    for i, (w, g) in enumerate(zip(want, got)):
        assert w.shape == g.shape, f"call {i}: shape {g.shape} != TF's {w.shape}"
        np.testing.assert_array_equal(g, w, err_msg=f"call {i} differs from TF")


def test_the_reported_case():
    def program(lib):
        lib.random.set_seed(3)
        return [lib.nn.dropout(lib.ones([6]), 0.5, seed=1)]
    _same(program)
    mt.random.set_seed(3)
    assert mt.nn.dropout(mt.ones([6]), 0.5, seed=1).numpy().tolist() == [2, 2, 2, 0, 0, 2]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("global_seed,op_seed", [(3, 1), (0, 0), (123, None), (None, 7), (2 ** 31, 5)])
def test_successive_calls_match_tf(dtype, global_seed, op_seed):
    x_values = np.linspace(-3, 3, 35).reshape(5, 7)

    def program(lib):
        lib.random.set_seed(global_seed)
        x = lib.constant(x_values, dtype=dtype)
        out = []
        for rate, shape in [(0.5, None), (0.3, None), (0.5, [5, 1]), (0.1, [1, 7]), (0.9, None),
                            (0.5, None), (0.0, None), (0.5, [None, 1]), (0.25, None)]:
            out.append(lib.nn.dropout(x, rate, noise_shape=shape, seed=op_seed))
        return out
    _same(program)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_rates_shapes_and_tensor_rates_match_tf(dtype):
    def program(lib):
        lib.random.set_seed(11)
        out = []
        for i, (shape, rate) in enumerate([((), 0.5), ((1,), 0.2), ((4, 3, 2), 0.7), ((257,), 0.5),
                                           ((2, 3), 1 / 3), ((8,), 0.999)]):
            x = lib.constant(np.arange(np.prod(shape), dtype=np.float64).reshape(shape) * 0.37 - 1.1, dtype=dtype)
            out.append(lib.nn.dropout(x, rate, seed=i))
            out.append(lib.nn.dropout(x, lib.constant(rate, dtype=dtype), seed=i))  # x / (1 - rate)
        out.append(lib.nn.dropout(lib.ones([4], dtype), 0.5, noise_shape=[3, 4], seed=2))  # broadcasts up
        out.append(lib.nn.dropout(lib.ones([4], dtype), 0.5, noise_shape=lib.constant([4], lib.int64), seed=2))
        return out
    _same(program)


def test_non_finite_inputs_and_gradients_match_tf():
    x_values = np.array([np.nan, -np.inf, np.inf, -1.5, -0.0, 2.0, 3.0, np.nan], dtype=np.float32)

    def program(lib):
        lib.random.set_seed(9)
        x = lib.constant(x_values)
        with lib.GradientTape() as tape:
            tape.watch(x)
            y = lib.nn.dropout(x, 0.4, seed=4)
        return [y, tape.gradient(y, x)]
    _same(program)


def test_unseeded_calls_draw_fresh_masks():
    x = mt.ones([400])
    a, b = (mt.nn.dropout(x, 0.5).numpy() for _ in range(2))
    assert not np.array_equal(a, b)
    assert set(np.unique(a)) == {0.0, 2.0}
