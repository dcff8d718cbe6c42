"""The loss-averaging metrics (KLDivergence, Poisson, LogCoshError, MeanSquaredLogarithmicError,
Hinge, SquaredHinge, CategoricalHinge, CosineSimilarity) and the loss functions exported under
tf.keras.metrics: values (Keras 3's documented examples), state, configs, checkpoints, compile."""
import numpy as np
import pytest

import minitf as tf

M = tf.keras.metrics
Y_TRUE = [[0.0, 1.0], [0.0, 0.0]]
Y_PRED = [[1.0, 1.0], [0.0, 0.0]]


@pytest.mark.parametrize("cls, expected, weighted", [
    (M.LogCoshError, 0.10844523, 0.21689045),
    (M.MeanSquaredLogarithmicError, 0.12011322, 0.24022643),
])
def test_documented_values(cls, expected, weighted):
    m = cls()
    m.update_state(Y_TRUE, Y_PRED)
    np.testing.assert_allclose(m.result().numpy(), expected, rtol=1e-5)
    m.reset_state()
    m.update_state(Y_TRUE, Y_PRED, sample_weight=[1, 0])
    np.testing.assert_allclose(m.result().numpy(), weighted, rtol=1e-5)


def test_cosine_similarity_is_positive_and_keeps_axis():
    m = M.CosineSimilarity(axis=1)
    m.update_state([[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]])
    np.testing.assert_allclose(m.result().numpy(), 0.5, rtol=1e-5)
    m.reset_state()
    m.update_state([[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]], sample_weight=[0.3, 0.7])
    np.testing.assert_allclose(m.result().numpy(), 0.7, rtol=1e-5)
    assert m.get_config() == {"name": "cosine_similarity", "dtype": "float32"}  # Keras drops axis


@pytest.mark.parametrize("cls, fn", [
    (M.KLDivergence, tf.keras.losses.KLD), (M.Poisson, tf.keras.losses.poisson),
    (M.Hinge, tf.keras.losses.hinge), (M.SquaredHinge, tf.keras.losses.squared_hinge),
    (M.CategoricalHinge, tf.keras.losses.categorical_hinge),
])
def test_mean_of_the_loss_function_over_batches(cls, fn):
    rng = np.random.default_rng(0)
    a = [rng.uniform(0.1, 1, (3, 4)).astype("float32") for _ in range(2)]
    b = [rng.uniform(0.1, 1, (3, 4)).astype("float32") for _ in range(2)]
    m = cls()
    for x, y in zip(a, b):
        m.update_state(x, y)
    expected = np.mean(np.concatenate([fn(x, y).numpy() for x, y in zip(a, b)]))
    np.testing.assert_allclose(m.result().numpy(), expected, rtol=1e-5)
    assert m.get_config() == {"name": m.name, "dtype": "float32"}
    again = cls.from_config(m.get_config())
    assert again.name == m.name and float(again.result()) == 0.0


def test_default_names():
    assert M.LogCoshError().name.startswith("logcosh")
    assert M.KLDivergence().name.startswith("kl_divergence")
    assert M.MeanSquaredLogarithmicError().name.startswith("mean_squared_logarithmic_error")


def test_metric_namespace_functions_are_the_losses():
    assert M.KLD is M.kld is M.kullback_leibler_divergence is tf.keras.losses.KLD
    assert M.MSLE is M.msle is tf.keras.losses.msle
    assert M.logcosh is tf.keras.losses.logcosh and M.poisson is tf.keras.losses.poisson
    assert M.hinge is tf.keras.losses.hinge and M.huber is tf.keras.losses.huber
    assert M.squared_hinge is tf.keras.losses.squared_hinge
    assert M.categorical_hinge is tf.keras.losses.categorical_hinge
    assert tf.metrics.KLD is M.KLD


@pytest.mark.parametrize("name, cls", [
    ("kl_divergence", "KLDivergence"), ("KLDivergence", "KLDivergence"), ("poisson", "Poisson"),
    ("msle", "MeanSquaredLogarithmicError"), ("MSLE", "MeanSquaredLogarithmicError"),
    ("log_cosh_error", "LogCoshError"), ("cosine_similarity", "CosineSimilarity"),
    ("hinge", "Hinge"), ("squared_hinge", "SquaredHinge"), ("categorical_hinge", "CategoricalHinge"),
])
def test_get_by_name(name, cls):
    assert type(M.get(name)).__name__ == cls


def test_checkpoint_round_trip(tmp_path):
    m = M.Poisson()
    m.update_state([[1.0, 2.0]], [[1.5, 0.5]])
    value = float(m.result())
    path = tf.train.Checkpoint(metric=m).save(str(tmp_path / "ckpt"))
    fresh = M.Poisson()
    tf.train.Checkpoint(metric=fresh).restore(path)
    assert float(fresh.result()) == pytest.approx(value)


def test_inside_tf_function_updates_every_call():
    m = M.Hinge()

    @tf.function
    def step(y, p):
        m.update_state(y, p)
        return m.result()

    y = np.array([[1.0, -1.0]], "float32")
    p = np.array([[0.5, 0.5]], "float32")
    step(y, p)
    out = step(y, p)
    np.testing.assert_allclose(out.numpy(), 1.0, rtol=1e-6)  # mean(0.5, 1.5) each call
    np.testing.assert_allclose(float(m.count), 2.0)


def test_compile_fit_evaluate_by_object_and_string():
    rng = np.random.default_rng(1)
    x = rng.uniform(size=(16, 3)).astype("float32")
    y = rng.uniform(0.1, 1, size=(16, 3)).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(3, activation="softplus")])
    model.compile("sgd", "mse", metrics=["kl_divergence", "msle", M.CosineSimilarity(), M.Poisson()])
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert {"kl_divergence", "msle", "cosine_similarity", "poisson"} <= set(history.history)
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    pred = model.predict(x, verbose=0)
    np.testing.assert_allclose(logs["poisson"], np.mean(tf.keras.losses.poisson(y, pred).numpy()), rtol=1e-4)
    np.testing.assert_allclose(logs["msle"], np.mean(tf.keras.losses.msle(y, pred).numpy()), rtol=1e-4)
