"""pearson_correlation, concordance_correlation and their metrics: values against numpy
formulas, gradients (float64 finite differences), configs, tf.function and fit()."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

M = tf.keras.metrics
RNG = np.random.default_rng(0)
Y = RNG.normal(size=(4, 5))
P = Y * 0.7 + RNG.normal(scale=0.5, size=(4, 5))


def _pearson(y, p, axis=-1):
    return np.mean(((y - y.mean(axis, keepdims=True)) / y.std(axis, keepdims=True))
                   * ((p - p.mean(axis, keepdims=True)) / p.std(axis, keepdims=True)), axis)


def _concordance(y, p, axis=-1):
    ym, pm = y.mean(axis, keepdims=True), p.mean(axis, keepdims=True)
    norm = y.var(axis, keepdims=True) + p.var(axis, keepdims=True) + (ym - pm) ** 2
    return np.mean(2 * (y - pm) * (p - pm) / (norm + 1e-7), axis)  # Keras 3's numerator


@pytest.mark.parametrize("axis", [-1, 0])
def test_functions_match_formulas(axis):
    np.testing.assert_allclose(M.pearson_correlation(Y, P, axis=axis).numpy(), _pearson(Y, P, axis), rtol=1e-10)
    np.testing.assert_allclose(M.concordance_correlation(Y, P, axis=axis).numpy(), _concordance(Y, P, axis),
                               rtol=1e-10)
    np.testing.assert_allclose(M.pearson_correlation(Y, Y).numpy(), np.ones(4), rtol=1e-12)
    np.testing.assert_allclose(M.pearson_correlation(Y, -2 * Y + 1).numpy(), -np.ones(4), rtol=1e-12)


def test_constant_input_gives_nan_and_int_labels_cast():
    assert np.isnan(M.pearson_correlation([[1.0, 1.0, 1.0]], [[1.0, 2.0, 3.0]]).numpy()).all()
    out = M.concordance_correlation(np.array([[1, 2, 3]], "int32"), np.array([[1.0, 2.0, 3.5]], "float32"))
    assert out.dtype == tf.float32 and out.shape == (1,)


@pytest.mark.parametrize("fn", ["pearson_correlation", "concordance_correlation"])
@pytest.mark.parametrize("axis", [-1, 0])
def test_gradients(fn, axis):
    f = getattr(M, fn)
    assert_gradients_close(lambda a, b: f(a, b, axis=axis), [Y, P], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls, fn", [(M.PearsonCorrelation, _pearson), (M.ConcordanceCorrelation, _concordance)])
def test_metrics_average_over_batches(cls, fn):
    m = cls()
    y32, p32 = Y.astype("float32"), P.astype("float32")
    m.update_state(y32[:3], p32[:3])
    m.update_state(y32[3:], p32[3:], sample_weight=[2.0])
    values = fn(Y, P)
    np.testing.assert_allclose(m.result().numpy(), (values[:3].sum() + 2 * values[3]) / 5, rtol=1e-5)
    config = cls(axis=0, name="c").get_config()
    assert config == {"name": "c", "dtype": "float32", "axis": 0}
    assert cls.from_config(config).get_config() == config


def test_tf_function_and_fit():
    m = M.PearsonCorrelation()

    @tf.function
    def step(y, p):
        m.update_state(y, p)
        return m.result()

    out = step(tf.constant(Y, tf.float32), tf.constant(P, tf.float32))
    np.testing.assert_allclose(out.numpy(), _pearson(Y, P).mean(), rtol=1e-5)

    x = RNG.normal(size=(32, 3)).astype("float32")
    y = (x @ RNG.normal(size=(3, 4))).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
    model.compile("sgd", "mse", metrics=["pearson_correlation", M.ConcordanceCorrelation()])
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert {"pearson_correlation", "concordance_correlation"} <= set(history.history)
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    pred = model.predict(x, verbose=0)
    np.testing.assert_allclose(logs["pearson_correlation"], _pearson(y.astype("float64"), pred.astype("float64")).mean(),
                               rtol=1e-4)
