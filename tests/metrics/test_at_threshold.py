"""SensitivityAtSpecificity, SpecificityAtSensitivity, PrecisionAtRecall, RecallAtPrecision:
values against a brute-force sweep of the thresholds, class_id, checks, configs (against
Keras 3 when TF is installed), checkpoints, tf.function and fit()."""
import numpy as np
import pytest

import minitf as tf

M = tf.keras.metrics
Y = np.array([0, 0, 0, 1, 1, 1, 0, 1], "float32")
P = np.array([0.1, 0.4, 0.6, 0.35, 0.8, 0.9, 0.2, 0.6], "float32")
W = np.array([1, 2, 1, 1, 0.5, 1, 1, 2], "float32")


def _sweep(y, p, w, n, constrained, dependent, value):
    thresholds = [0.5] if n == 1 else [0.0] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1.0]
    best = 0.0
    for t in thresholds:
        pos = p > t
        tp, fp = (w * pos * y).sum(), (w * pos * (1 - y)).sum()
        tn, fn = (w * ~pos * (1 - y)).sum(), (w * ~pos * y).sum()
        rates = {"sensitivity": tp / (tp + fn) if tp + fn else 0.0, "specificity": tn / (tn + fp) if tn + fp else 0.0,
                 "precision": tp / (tp + fp) if tp + fp else 0.0}
        rates["recall"] = rates["sensitivity"]
        if rates[constrained] >= value:
            best = max(best, rates[dependent])
    return best


CASES = [("SensitivityAtSpecificity", "specificity", "sensitivity"),
         ("SpecificityAtSensitivity", "sensitivity", "specificity"),
         ("PrecisionAtRecall", "recall", "precision"), ("RecallAtPrecision", "precision", "recall")]


@pytest.mark.parametrize("cls, constrained, dependent", CASES)
@pytest.mark.parametrize("value", [0.0, 0.5, 0.8, 1.0])
@pytest.mark.parametrize("n", [200, 1, 2, 7])
def test_matches_a_threshold_sweep(cls, constrained, dependent, value, n):
    m = getattr(M, cls)(value, num_thresholds=n)
    m.update_state(Y[:5], P[:5], sample_weight=W[:5])
    m.update_state(Y[5:], P[5:], sample_weight=W[5:])
    expected = _sweep(Y, P.astype("float64"), W, n, constrained, dependent, value)
    np.testing.assert_allclose(m.result().numpy(), expected, rtol=1e-5, atol=1e-7)
    m.reset_state()
    assert float(m.result()) == 0.0


def test_class_id_reads_one_column():
    y = np.stack([Y, 1 - Y], 1)
    p = np.stack([P, 1 - P], 1)
    a = M.PrecisionAtRecall(0.5, class_id=1)
    a.update_state(y, p)
    b = M.PrecisionAtRecall(0.5)
    b.update_state(1 - Y, 1 - P)
    np.testing.assert_allclose(a.result().numpy(), b.result().numpy())


@pytest.mark.parametrize("cls, arg, _", CASES)
def test_bad_arguments(cls, arg, _):
    for value in (-0.1, 1.5):
        with pytest.raises(ValueError, match=arg):
            getattr(M, cls)(value)
    with pytest.raises(ValueError, match="num_thresholds"):
        getattr(M, cls)(0.5, num_thresholds=0)


@pytest.mark.parametrize("cls, arg, _", CASES)
def test_config_round_trip_and_keras(cls, arg, _):
    m = getattr(M, cls)(0.7, num_thresholds=10, class_id=1, name="x")
    config = m.get_config()
    assert config == {"name": "x", "dtype": "float32", "class_id": 1, "num_thresholds": 10, arg: 0.7}
    assert getattr(M, cls).from_config(config).get_config() == config
    assert [v.name.split(":")[0] for v in m.variables] == [
        "true_positives", "false_positives", "true_negatives", "false_negatives"]
    ktf = pytest.importorskip("tensorflow")
    theirs = getattr(ktf.keras.metrics, cls)(0.7, num_thresholds=10, class_id=1, name="x").get_config()
    assert config == theirs


def test_checkpoint_tf_function_and_fit(tmp_path):
    m = M.SensitivityAtSpecificity(0.5, name="sens")

    @tf.function
    def step(y, p):
        m.update_state(y, p)
        return m.result()

    step(tf.constant(Y[:4]), tf.constant(P[:4]))
    out = step(tf.constant(Y[4:]), tf.constant(P[4:]))
    np.testing.assert_allclose(out.numpy(), _sweep(Y, P.astype("float64"), np.ones(8), 200,
                                                   "specificity", "sensitivity", 0.5), rtol=1e-6)
    path = tf.train.Checkpoint(metric=m).save(str(tmp_path / "ckpt"))
    fresh = M.SensitivityAtSpecificity(0.5)
    tf.train.Checkpoint(metric=fresh).restore(path)
    np.testing.assert_allclose(fresh.result().numpy(), m.result().numpy())

    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype("float32")
    y = (x[:, :1] > 0).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile("adam", "binary_crossentropy",
                  metrics=[M.PrecisionAtRecall(0.5, name="par"), M.RecallAtPrecision(0.5, name="rap")])
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert {"par", "rap"} <= set(history.history)
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    ref = M.RecallAtPrecision(0.5)
    ref.update_state(y, model.predict(x, verbose=0))
    np.testing.assert_allclose(logs["rap"], float(ref.result()), rtol=1e-6)
