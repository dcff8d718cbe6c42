"""Keras masks in Loss objects and metrics, checked against hand-computed numpy values: the
mask on `y_pred` weighs each entry (rescaled by total/valid for 'sum_over_batch_size' and
'mean', 0/1 otherwise), combines with sample weights and ignore_class, and reaches the loss
and metrics of compile/fit/evaluate."""
import numpy as np
import pytest

import minitf as tf

PRED = np.array([[[0.2, 0.4], [0.6, 0.1], [0.0, 0.0]],
                 [[0.3, 0.9], [0.0, 0.0], [0.5, 0.5]]], "float32")
TRUE = np.array([[[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]],
                 [[1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]], "float32")
MASK = np.array([[1, 1, 0], [1, 0, 1]], bool)
SE = ((TRUE - PRED) ** 2).mean(-1)   # per-entry mean squared errors, shape (2, 3)


def masked_pred():
    return tf.keras.layers.Masking(mask_value=0.0)(PRED)


def test_masking_layer_output_carries_the_expected_mask():
    np.testing.assert_array_equal(np.asarray(masked_pred()._keras_mask), MASK)


@pytest.mark.parametrize("reduction,want", [
    ("sum_over_batch_size", SE[MASK].mean()),
    ("mean", SE[MASK].mean()),
    ("sum", SE[MASK].sum()),
    ("mean_with_sample_weight", SE[MASK].sum() / MASK.sum()),
])
def test_mask_in_reductions(reduction, want):
    got = tf.keras.losses.MeanSquaredError(reduction=reduction)(TRUE, masked_pred())
    np.testing.assert_allclose(float(got), want, rtol=1e-6)


@pytest.mark.parametrize("reduction", ["none", None])
def test_unreduced_losses_are_zero_where_masked(reduction):
    got = tf.keras.losses.MeanSquaredError(reduction=reduction)(TRUE, masked_pred())
    np.testing.assert_allclose(np.asarray(got), SE * MASK, rtol=1e-6)


def test_mask_combines_with_sample_weights():
    sw = np.array([[1.0, 2.0, 3.0], [0.5, 4.0, 1.0]], "float32")
    got = tf.keras.losses.MeanSquaredError()(TRUE, masked_pred(), sample_weight=sw)
    # valid entries weigh total/valid = 6/4, then the sum is divided by the 6 entries
    want = (SE * sw * MASK * 6 / 4).sum() / 6
    np.testing.assert_allclose(float(got), want, rtol=1e-6)


def test_mask_and_ignore_class_both_count():
    labels = np.array([[1, 0, 1], [1, 1, 0]])
    loss = tf.keras.losses.SparseCategoricalCrossentropy(ignore_class=0)
    probs = PRED + 0.05
    pred = tf.keras.layers.Masking(mask_value=0.05)(probs)
    ce = -np.log((probs / probs.sum(-1, keepdims=True))[np.arange(2)[:, None], np.arange(3), labels])
    valid = MASK & (labels != 0)
    np.testing.assert_allclose(float(loss(labels, pred)), ce[valid].mean(), rtol=1e-5)


def test_unmasked_prediction_is_unchanged():
    got = tf.keras.losses.MeanSquaredError()(TRUE, PRED)
    np.testing.assert_allclose(float(got), SE.mean(), rtol=1e-6)


def test_mean_metric_wrappers_use_the_mask():
    mse = tf.keras.metrics.MeanSquaredError()
    mse.update_state(TRUE, masked_pred())
    # per sample: the mean of its masked values over its (0/1-weighted) length
    per_sample = (SE * MASK).mean(1)
    np.testing.assert_allclose(float(mse.result()), per_sample.sum() / MASK.mean(1).sum(), rtol=1e-6)
    acc = tf.keras.metrics.BinaryAccuracy()
    acc.update_state(TRUE, masked_pred())
    hits = ((PRED > 0.5) == (TRUE > 0.5)).mean(-1)
    np.testing.assert_allclose(float(acc.result()), hits[MASK].mean(), rtol=1e-6)


def test_metric_mask_times_sample_weight():
    sw = np.array([[1.0, 2.0, 3.0], [0.5, 4.0, 1.0]], "float32")
    mae = tf.keras.metrics.MeanAbsoluteError()
    mae.update_state(TRUE, masked_pred(), sample_weight=sw)
    ae = np.abs(TRUE - PRED).mean(-1)
    w = sw * MASK
    np.testing.assert_allclose(float(mae.result()), (ae * w).sum() / w.sum(), rtol=1e-6)


def test_metric_mask_and_incompatible_weights_raise():
    mae = tf.keras.metrics.MeanAbsoluteError()
    with pytest.raises(tf.errors.InvalidArgumentError, match="mask"):
        mae.update_state(TRUE, masked_pred(), sample_weight=np.ones((2, 4), "float32"))


def test_mean_uses_a_mask_on_its_values_only_with_weights():
    values = tf.constant([[1.0, 0.0, 3.0], [4.0, 5.0, 0.0]])
    values._keras_mask = tf.not_equal(values, 0.0)
    plain = tf.keras.metrics.Mean()
    plain.update_state(values)
    np.testing.assert_allclose(float(plain.result()), (4 / 3 + 3) / 2, rtol=1e-6)
    weighted = tf.keras.metrics.Mean()
    weighted.update_state(values, sample_weight=tf.ones((2, 3)))
    np.testing.assert_allclose(float(weighted.result()), 13 / 4, rtol=1e-6)


def test_confusion_metrics_ignore_the_mask():
    precision = tf.keras.metrics.Precision()
    precision.update_state(TRUE, masked_pred())
    tp = ((PRED > 0.5) & (TRUE > 0.5)).sum()
    np.testing.assert_allclose(float(precision.result()), tp / (PRED > 0.5).sum(), rtol=1e-6)


def _masked_model():
    tf.keras.utils.set_random_seed(3)
    model = tf.keras.Sequential([tf.keras.Input((4,), dtype="int32"),
                                 tf.keras.layers.Embedding(6, 3, mask_zero=True),
                                 tf.keras.layers.LSTM(4, return_sequences=True),
                                 tf.keras.layers.Dense(2, activation="softmax")])
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


def test_evaluate_of_masked_model_averages_valid_steps_only():
    x = np.array([[1, 2, 0, 0], [3, 4, 5, 0], [5, 1, 1, 2]], "int32")
    y = np.array([[0, 1, 1, 1], [1, 0, 1, 0], [0, 0, 1, 1]])
    model = _masked_model()
    probs = np.asarray(model(x))
    valid = x != 0
    ce = -np.log(probs[np.arange(3)[:, None], np.arange(4), y])
    hits = (probs.argmax(-1) == y).astype("float32")
    result = model.evaluate(x, y, batch_size=3, verbose=0, return_dict=True)
    np.testing.assert_allclose(result["loss"], ce[valid].mean(), rtol=1e-5)
    np.testing.assert_allclose(result["accuracy"], hits[valid].mean(), rtol=1e-6)


def test_fit_gradient_ignores_masked_steps():
    # the labels of masked steps change nothing: training from the same start gives the same weights
    x = np.array([[1, 2, 0, 0], [3, 4, 5, 0]], "int32")
    y = np.array([[0, 1, 1, 1], [1, 0, 1, 0]])
    y_other = y.copy()
    y_other[x == 0] = 1 - y_other[x == 0]
    weights = []
    for labels in (y, y_other):
        model = _masked_model()
        model.fit(x, labels, batch_size=2, epochs=2, shuffle=False, verbose=0)
        weights.append(model.get_weights())
    for a, b in zip(*weights):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
