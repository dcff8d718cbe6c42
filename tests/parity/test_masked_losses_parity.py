"""Keras masks in losses and metrics against Keras 3: a prediction that carries a Keras mask
(Embedding(mask_zero=True) + LSTM(return_sequences=True), Masking) is weighted by it in Loss
objects (rescaled to the valid entries for 'sum_over_batch_size'/'mean', a plain 0/1 weight
for the other reductions) and in the mean-of-a-function metrics; compile/fit/evaluate on a
masked sequence model give Keras' loss and metric values with weights copied from Keras."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")

REDUCTIONS = ["sum_over_batch_size", "sum", "mean", "mean_with_sample_weight", "none", None]
RNG = np.random.RandomState(7)
PRED = RNG.uniform(0.05, 0.95, size=(3, 5, 4)).astype("float32")
PRED[0, 3:] = 0.0       # masked by Masking(mask_value=0)
PRED[2, 1] = 0.0
LABELS = RNG.randint(0, 4, size=(3, 5))
ONE_HOT = np.eye(4, dtype="float32")[LABELS]
TARGETS = RNG.uniform(size=(3, 5, 4)).astype("float32")
TIME_WEIGHTS = RNG.uniform(0.5, 2.0, size=(3, 5)).astype("float32")


def _masked(tf, values=PRED):
    """`values` with the Keras mask Masking(mask_value=0) attaches: (3, 5), 11 entries valid."""
    return tf.keras.layers.Masking(mask_value=0.0)(values)


LOSSES = [  # (class name, kwargs, labels)
    ("SparseCategoricalCrossentropy", {}, LABELS),
    ("SparseCategoricalCrossentropy", {"ignore_class": 2}, LABELS),
    ("CategoricalCrossentropy", {}, ONE_HOT),
    ("BinaryCrossentropy", {}, ONE_HOT),
    ("MeanSquaredError", {}, TARGETS),
    ("MeanAbsoluteError", {}, TARGETS),
    ("Huber", {}, TARGETS),
    ("KLDivergence", {}, ONE_HOT),
]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weights", [None, "time", "scalar"])
@pytest.mark.parametrize("name,kwargs,labels", LOSSES, ids=[f"{n}{sorted(k)}" for n, k, _ in LOSSES])
def test_loss_object_on_masked_prediction(name, kwargs, labels, reduction, weights):
    sw = {None: None, "time": TIME_WEIGHTS, "scalar": 2.5}[weights]
    got = getattr(minitf.keras.losses, name)(reduction=reduction, **kwargs)(labels, _masked(minitf), sw)
    want = getattr(tf_ref.keras.losses, name)(reduction=reduction, **kwargs)(labels, _masked(tf_ref), sw)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_fully_masked_batch_gives_zero_like_keras():
    zeros = np.zeros_like(PRED)
    for tf in (minitf, tf_ref):
        value = tf.keras.losses.MeanSquaredError()(TARGETS, _masked(tf, zeros))
        assert float(value) == 0.0


METRICS = [  # (class name, kwargs, labels)
    ("SparseCategoricalAccuracy", {}, LABELS),
    ("CategoricalAccuracy", {}, ONE_HOT),
    ("BinaryAccuracy", {}, ONE_HOT),
    ("TopKCategoricalAccuracy", {"k": 2}, ONE_HOT),
    ("SparseTopKCategoricalAccuracy", {"k": 2}, LABELS),
    ("SparseCategoricalCrossentropy", {}, LABELS),
    ("CategoricalCrossentropy", {}, ONE_HOT),
    ("BinaryCrossentropy", {}, ONE_HOT),
    ("MeanSquaredError", {}, TARGETS),
    ("MeanAbsoluteError", {}, TARGETS),
    ("MeanAbsolutePercentageError", {}, TARGETS),
    ("RootMeanSquaredError", {}, TARGETS),   # Keras leaves this one unmasked
    ("Precision", {}, ONE_HOT),              # and the confusion-matrix ones
    ("AUC", {}, ONE_HOT),
]


@pytest.mark.parametrize("weights", [None, "time"])
@pytest.mark.parametrize("name,kwargs,labels", METRICS, ids=[n for n, _, _ in METRICS])
def test_metric_on_masked_prediction(name, kwargs, labels, weights):
    sw = None if weights is None else TIME_WEIGHTS
    results = []
    for tf in (minitf, tf_ref):
        metric = getattr(tf.keras.metrics, name)(**kwargs)
        if name in ("Precision", "AUC") and sw is not None:
            continue
        metric.update_state(labels, _masked(tf), sample_weight=sw)
        metric.update_state(labels[:2], _masked(tf, PRED[:2] * 0.5), sample_weight=None if sw is None else sw[:2])
        results.append(float(metric.result()))
    if results:
        np.testing.assert_allclose(results[0], results[1], rtol=1e-5, atol=1e-6)


def test_mean_metric_masks_its_values_only_with_weights():
    values = np.array([[1.0, 0.0, 3.0], [4.0, 5.0, 0.0]], "float32")
    for sw in (None, np.array([[1.0, 2.0, 1.0], [1.0, 1.0, 3.0]], "float32")):
        got = minitf.keras.metrics.Mean()
        want = tf_ref.keras.metrics.Mean()
        got.update_state(_masked_values(minitf, values), sw)
        want.update_state(_masked_values(tf_ref, values), sw)
        np.testing.assert_allclose(float(got.result()), float(want.result()), rtol=1e-6)


def _masked_values(tf, values):
    """`values` itself carrying the mask `values != 0` (set as Keras layers do)."""
    t = tf.convert_to_tensor(values)
    t._keras_mask = tf.not_equal(t, 0.0)
    return t


# -- compile / fit / evaluate ---------------------------------------------------------------------

def _text_model(tf):
    k = tf.keras
    return k.Sequential([k.Input((6,), dtype="int32"), k.layers.Embedding(10, 4, mask_zero=True),
                         k.layers.LSTM(5, return_sequences=True), k.layers.Dense(3, activation="softmax")])


def _signal_model(tf):
    k = tf.keras
    inp = k.Input((6, 2))
    h = k.layers.LSTM(4, return_sequences=True)(k.layers.Masking(mask_value=0.0)(inp))
    return k.Model(inp, k.layers.Dense(1)(h))


def _text_data():
    rng = np.random.RandomState(0)
    x = rng.randint(1, 10, (8, 6))
    for i in range(8):
        x[i, 5 - i % 4:] = 0
    return x.astype("int32"), rng.randint(0, 3, (8, 6))


def _signal_data():
    rng = np.random.RandomState(1)
    x = rng.normal(size=(8, 6, 2)).astype("float32")
    for i in range(8):
        x[i, 6 - i % 3:] = 0.0
    return x, rng.normal(size=(8, 6, 1)).astype("float32")


CASES = {
    "text": (_text_model, _text_data, "sparse_categorical_crossentropy",
             ["accuracy", "sparse_categorical_crossentropy"], False),
    "text_weighted": (_text_model, _text_data, "sparse_categorical_crossentropy",
                      ["accuracy"], True),
    "signal": (_signal_model, _signal_data, "mse", ["mae", "mse", "root_mean_squared_error"], False),
    "signal_custom_functions": (_signal_model, _signal_data, "custom", ["custom"], False),
}


def _custom(tf):
    """A plain loss function and metric function (compile wraps them; the mask still counts)."""
    def squares(y_true, y_pred):
        return tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)

    def gaps(y_true, y_pred):
        return tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1)
    return squares, [gaps]


def _train(tf, case, weights):
    make, data, loss, metrics, weighted = CASES[case]
    x, y = data()
    model = make(tf)
    if weights is None:
        weights = model.get_weights()
    else:
        model.set_weights(weights)
    kwargs = {}
    if loss == "custom":
        loss, metrics = _custom(tf)
    if weighted:
        kwargs["weighted_metrics"] = ["accuracy"]
        sw = np.linspace(0.5, 2.0, 8 * 6).reshape(8, 6).astype("float32")
    model.compile(tf.keras.optimizers.SGD(0.1), loss, metrics=metrics, **kwargs)
    fit_kwargs = {"sample_weight": sw} if weighted else {}
    before = model.evaluate(x, y, batch_size=4, verbose=0, return_dict=True, **fit_kwargs)
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0, **fit_kwargs).history
    after = model.evaluate(x, y, batch_size=4, verbose=0, return_dict=True, **fit_kwargs)
    one_batch = model.test_on_batch(x, y, return_dict=True, **fit_kwargs)
    return weights, before, history, after, one_batch, model.get_weights()


@pytest.mark.parametrize("case", sorted(CASES))
def test_fit_and_evaluate_of_masked_model_match_keras(case):
    weights, *want = _train(tf_ref, case, None)
    _, *got = _train(minitf, case, weights)
    for g, w in zip(got[:4], want[:4]):
        assert sorted(g) == sorted(w)
        for key in w:
            np.testing.assert_allclose(g[key], w[key], rtol=2e-5, atol=1e-6, err_msg=key)
    for g, w in zip(got[4], want[4]):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
