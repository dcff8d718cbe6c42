"""FBetaScore and F1Score: values (Keras 3's documented examples and hand counts), averages,
argument checks, lazily built state, configs, checkpoints, tf.function and fit()."""
import numpy as np
import pytest

import minitf as tf

M = tf.keras.metrics
Y_TRUE = np.array([[1, 1, 1], [1, 0, 0], [1, 1, 0]], np.int32)
Y_PRED = np.array([[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0]], np.float32)


def test_fbeta_documented_value():
    m = M.FBetaScore(beta=2.0, threshold=0.5)
    m.update_state(Y_TRUE, Y_PRED)
    np.testing.assert_allclose(m.result().numpy(), [0.3846154, 0.90909094, 0.8333334], rtol=1e-5)


def test_f1_documented_value():
    m = M.F1Score(threshold=0.5)
    m.update_state(Y_TRUE, Y_PRED)
    np.testing.assert_allclose(m.result().numpy(), [0.5, 0.8, 0.6666667], rtol=1e-5)


def _f1(tp, fp, fn):
    p, r = tp / (tp + fp + 1e-7), tp / (tp + fn + 1e-7)
    return 2 * p * r / (p + r + 1e-7)


def test_averages_from_hand_counts():
    # threshold None: a row's maximum is its positive (ties all count)
    pred = (Y_PRED >= Y_PRED.max(-1, keepdims=True)).astype("float32")
    tp = (pred * Y_TRUE).sum(0)
    fp = (pred * (1 - Y_TRUE)).sum(0)
    fn = ((1 - pred) * Y_TRUE).sum(0)
    per_class = _f1(tp, fp, fn)
    for average, expected in ((None, per_class), ("macro", per_class.mean()),
                              ("weighted", (per_class * Y_TRUE.sum(0) / (Y_TRUE.sum() + 1e-7)).sum()),
                              ("micro", _f1(tp.sum(), fp.sum(), fn.sum()))):
        m = M.F1Score(average=average)
        m.update_state(Y_TRUE, Y_PRED)
        np.testing.assert_allclose(m.result().numpy(), expected, rtol=1e-5, err_msg=str(average))


def test_sample_weight_and_batches_accumulate():
    m = M.F1Score(threshold=0.5)
    m.update_state(Y_TRUE[:2], Y_PRED[:2], sample_weight=[1.0, 2.0])
    m.update_state(Y_TRUE[2:], Y_PRED[2:], sample_weight=[0.5])
    w = np.array([1.0, 2.0, 0.5], "float32")[:, None]
    pred = (Y_PRED > 0.5).astype("float32")
    expected = _f1((pred * Y_TRUE * w).sum(0), (pred * (1 - Y_TRUE) * w).sum(0), ((1 - pred) * Y_TRUE * w).sum(0))
    np.testing.assert_allclose(m.result().numpy(), expected, rtol=1e-5)
    m.reset_state()
    np.testing.assert_array_equal(m.result().numpy(), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("kwargs", [
    {"average": "mean"}, {"beta": 2}, {"beta": 0.0}, {"beta": -1.0}, {"threshold": 1},
    {"threshold": 0.0}, {"threshold": 1.5},
])
def test_bad_arguments_raise_value_error(kwargs):
    with pytest.raises(ValueError, match="FBetaScore"):
        M.FBetaScore(**kwargs)


def test_inputs_must_be_2d():
    with pytest.raises(ValueError, match=r"F1Score expects 2D inputs.*y_pred.shape=\(3,\)"):
        M.F1Score().update_state([1, 0, 1], [0.5, 0.2, 0.9])


def test_state_is_built_on_first_update():
    m = M.F1Score(average="micro")
    assert m.variables == ()
    m.update_state(Y_TRUE, Y_PRED)
    assert [v.shape.as_list() for v in m.variables] == [[]] * 4
    m = M.F1Score()
    m.update_state(Y_TRUE, Y_PRED)
    assert [v.name.split(":")[0] for v in m.variables] == [
        "true_positives", "false_positives", "false_negatives", "intermediate_weights"]
    assert all(v.shape.as_list() == [3] for v in m.variables)


def test_config_round_trip():
    m = M.FBetaScore(average="macro", beta=0.5, threshold=0.3, name="fb", dtype="float64")
    config = m.get_config()
    assert config == {"name": "fb", "dtype": "float64", "average": "macro", "beta": 0.5, "threshold": 0.3}
    again = M.FBetaScore.from_config(config)
    again.update_state(Y_TRUE, Y_PRED)
    m.update_state(Y_TRUE, Y_PRED)
    assert again.result().dtype == tf.float64
    np.testing.assert_allclose(again.result().numpy(), m.result().numpy())
    f1 = M.F1Score(average="weighted").get_config()
    assert "beta" not in f1 and f1["average"] == "weighted"


def test_checkpoint_round_trip(tmp_path):
    m = M.F1Score()
    m.update_state(Y_TRUE, Y_PRED)
    path = tf.train.Checkpoint(metric=m).save(str(tmp_path / "ckpt"))
    fresh = M.F1Score()
    fresh.update_state(Y_TRUE[:1], Y_PRED[:1])  # built, other counts
    tf.train.Checkpoint(metric=fresh).restore(path)
    np.testing.assert_allclose(fresh.result().numpy(), m.result().numpy())


def test_inside_tf_function():
    m = M.F1Score(threshold=0.5)

    @tf.function
    def step(y, p):
        m.update_state(y, p)
        return m.result()

    first = step(tf.constant(Y_TRUE), tf.constant(Y_PRED))
    step(tf.constant(Y_TRUE), tf.constant(Y_PRED))
    np.testing.assert_allclose(first.numpy(), [0.5, 0.8, 0.6666667], rtol=1e-5)
    np.testing.assert_allclose(m.true_positives.numpy(), [2.0, 4.0, 2.0])


def test_fit_evaluate_by_object_and_string():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 4)).astype("float32")
    y = np.eye(3, dtype="float32")[rng.integers(0, 3, 32)]
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, activation="softmax")])
    model.compile("adam", "categorical_crossentropy", metrics=["f1_score", M.FBetaScore(average="macro", beta=2.0)])
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert "f1_score" in history.history and "fbeta_score" in history.history
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    ref = M.FBetaScore(average="macro", beta=2.0)
    ref.update_state(y, model.predict(x, verbose=0))
    np.testing.assert_allclose(logs["fbeta_score"], float(ref.result()), rtol=1e-5)
