"""R2Score: values against the formula, aggregations, adjusted R2, weights, argument and shape
checks, configs, checkpoints, tf.function and fit()."""
import numpy as np
import pytest

import minitf as tf

R2 = tf.keras.metrics.R2Score


def _r2_columns(y, p, w=None):
    w = np.ones_like(y) if w is None else np.broadcast_to(w, y.shape)
    mean = (w * y).sum(0) / w.sum(0)
    total = (w * (y - mean) ** 2).sum(0)
    return 1 - (w * (y - p) ** 2).sum(0) / total, total


def test_documented_value():
    m = R2()
    m.update_state([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])
    np.testing.assert_allclose(m.result().numpy(), 0.57142854, rtol=1e-6)
    assert m.result().dtype == tf.float32


@pytest.mark.parametrize("aggregation", [None, "uniform_average", "variance_weighted_average"])
def test_aggregations_over_batches_with_weights(aggregation):
    rng = np.random.default_rng(0)
    y = rng.normal(size=(8, 3)).astype("float32")
    p = (y + rng.normal(scale=0.5, size=(8, 3))).astype("float32")
    w = rng.uniform(0.5, 2, size=(8, 1)).astype("float32")
    m = R2(class_aggregation=aggregation)
    m.update_state(y[:5], p[:5], sample_weight=w[:5, 0])
    m.update_state(y[5:], p[5:], sample_weight=w[5:, 0])
    scores, total = _r2_columns(y.astype("float64"), p.astype("float64"), w)
    expected = {None: scores, "uniform_average": scores.mean(),
                "variance_weighted_average": (scores * total).sum() / total.sum()}[aggregation]
    np.testing.assert_allclose(m.result().numpy(), expected, rtol=1e-4)


def test_adjusted_and_its_fallbacks():
    m = R2(num_regressors=1)
    m.update_state([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])
    r2 = 1 - 2 / (26 - 64 / 3)
    np.testing.assert_allclose(m.result().numpy(), 1 - (1 - r2) * 2 / 1, rtol=1e-5)
    m = R2(num_regressors=2)
    m.update_state([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])
    with pytest.warns(UserWarning, match="Division by zero"):
        np.testing.assert_allclose(m.result().numpy(), r2, rtol=1e-5)
    m = R2(num_regressors=5)
    m.update_state([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])
    with pytest.warns(UserWarning, match="More independent predictors"):
        m.result()


def test_constant_column_scores_zero():
    m = R2(class_aggregation=None)
    m.update_state([[1.0, 0.0], [1.0, 2.0]], [[2.0, 0.0], [4.0, 2.0]])
    np.testing.assert_allclose(m.result().numpy(), [0.0, 1.0])


@pytest.mark.parametrize("kwargs", [{"class_aggregation": "mean"}, {"num_regressors": -1}])
def test_bad_arguments(kwargs):
    with pytest.raises(ValueError, match="R2Score"):
        R2(**kwargs)


def test_shapes():
    with pytest.raises(ValueError, match=r"R2Score expects 2D inputs.*y_pred.shape=\(3,\)"):
        R2().update_state([1.0, 1.0, 3.0], [2.0, 4.0, 3.0])
    m = R2()
    m.update_state([[1.0, 2.0]], [[1.0, 2.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="R2Score"):
        m.update_state([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="sample_weight"):
        R2().update_state([[1.0], [2.0]], [[1.0], [2.0]], sample_weight=[[1.0, 2.0], [1.0, 2.0]])


def test_state_config_and_checkpoint(tmp_path):
    m = R2(class_aggregation=None, num_regressors=0, name="r2", dtype="float64")
    assert [v.name.split(":")[0] for v in m.variables] == ["num_samples"]
    m.update_state([[1.0, 2.0], [3.0, 5.0], [0.0, 1.0]], [[1.5, 2.0], [2.0, 4.0], [0.5, 1.0]])
    assert [v.name.split(":")[0] for v in m.variables] == ["num_samples", "squared_sum", "sum", "residual", "count"]
    assert all(v.dtype == tf.float32 for v in m.variables)  # as Keras 3, whatever the dtype
    config = m.get_config()
    assert config == {"name": "r2", "dtype": "float64", "class_aggregation": None, "num_regressors": 0}
    path = tf.train.Checkpoint(metric=m).save(str(tmp_path / "ckpt"))
    fresh = R2.from_config(config)
    fresh.update_state([[0.0, 0.0]], [[1.0, 1.0]])
    tf.train.Checkpoint(metric=fresh).restore(path)
    np.testing.assert_allclose(fresh.result().numpy(), m.result().numpy())
    m.reset_state()
    assert float(m.num_samples) == 0.0 and not m.sum.numpy().any()


def test_tf_function_and_fit():
    m = R2()

    @tf.function
    def step(y, p):
        m.update_state(y, p)
        return m.result()

    step(tf.constant([[1.0], [4.0]]), tf.constant([[2.0], [4.0]]))
    out = step(tf.constant([[3.0]]), tf.constant([[4.0]]))
    np.testing.assert_allclose(out.numpy(), 0.57142854, rtol=1e-6)

    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 2)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0]], "float32")).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["r2_score"])
    history = model.fit(x, y, epochs=3, batch_size=8, verbose=0)
    assert history.history["r2_score"][-1] > history.history["r2_score"][0]
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    ref = R2()
    ref.update_state(y, model.predict(x, verbose=0))
    np.testing.assert_allclose(logs["r2_score"], float(ref.result()), rtol=1e-5)
