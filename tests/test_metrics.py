"""Keras metrics: sequences of updates against numpy, weights, reset, AUC vs a numpy trapezoid."""
import numpy as np
import pytest

import minitf as tf
from minitf import metrics
from minitf.metrics import regression as regression_metrics

rng = np.random.default_rng(1)


def _f(t):
    return float(np.asarray(t))


def test_mean_sequence_weights_and_reset():
    m = metrics.Mean()
    batches = [rng.normal(size=5), rng.normal(size=(3, 2)), np.array(4.0)]
    for b in batches:
        m.update_state(b)
    # Keras 3 counts samples: each row of a 2-D batch is averaged first, a scalar is one sample
    per_sample = np.concatenate([batches[0], batches[1].mean(-1), [4.0]])
    np.testing.assert_allclose(_f(m.result()), per_sample.mean(), rtol=1e-6)
    assert _f(m.count) == 5 + 3 + 1
    assert m.result().dtype == tf.float32
    m.reset_state()
    assert _f(m.result()) == 0.0 and _f(m.count) == 0.0
    v, w = rng.normal(size=(4, 3)), rng.uniform(size=4)
    m.update_state(v, sample_weight=w)  # per-row weights broadcast over columns
    want = (v.mean(-1) * w).sum() / w.sum()
    np.testing.assert_allclose(_f(m.result()), want, rtol=1e-6)
    m.reset_states()
    v3 = rng.normal(size=(2, 3, 4))
    m.update_state(v3, sample_weight=np.array([1.0, 3.0]))  # reduce trailing axes first
    np.testing.assert_allclose(_f(m.result()), (v3.mean(axis=(1, 2)) * [1, 3]).sum() / 4, rtol=1e-6)


def test_sum_and_call():
    s = metrics.Sum()
    assert _f(s([1.0, 2.0, 3.5])) == 6.5
    assert _f(s(2.0, sample_weight=3.0)) == 12.5
    assert [n for n, _ in s._checkpoint_dependencies()] == ["total"]


def test_variables_non_trainable_in_creation_order_and_checkpoint_names():
    m = metrics.AUC(num_thresholds=7)
    assert [v.name for v in m.variables] == ["true_positives:0", "true_negatives:0",
                                             "false_positives:0", "false_negatives:0"]
    assert all(not v.trainable for v in m.variables) and m.trainable_variables == ()
    assert [n for n, _ in m._checkpoint_dependencies()] == ["true_positives", "true_negatives",
                                                           "false_positives", "false_negatives"]
    assert m.variables[0].shape == (7,)
    assert [n for n, _ in metrics.Precision()._checkpoint_dependencies()] == ["true_positives", "false_positives"]
    assert [n for n, _ in metrics.Recall()._checkpoint_dependencies()] == ["true_positives", "false_negatives"]


def test_updates_are_not_recorded_by_a_tape():
    x = tf.Variable([0.2, 0.7])
    m = metrics.Mean()
    with tf.GradientTape() as tape:
        y = x * 2.0
        m.update_state(y)
        m(y)
        loss = tf.reduce_sum(y)
    assert len(tape._records) <= 3  # the read, the multiply and the sum only
    np.testing.assert_allclose(np.asarray(tape.gradient(loss, x)), [2.0, 2.0])
    assert tape.watched_variables()[0] is x and len(tape.watched_variables()) == 1


def test_accuracy_family():
    t = np.array([[1.0], [2.0], [3.0], [4.0]])
    p = np.array([[0.0], [2.0], [3.0], [4.0]])
    np.testing.assert_allclose(_f(metrics.Accuracy()(t, p)), 0.75)
    bt = rng.integers(0, 2, size=(6, 3)).astype(float)
    bp = rng.uniform(size=(6, 3))
    m = metrics.BinaryAccuracy()
    m.update_state(bt[:3], bp[:3])
    m.update_state(bt[3:], bp[3:], sample_weight=np.array([1.0, 0.0, 2.0]))
    hits = (bt == (bp > 0.5)).astype(float)
    # Keras 3: each sample's entries averaged, then weighted once per sample
    want = (hits[:3].mean(-1).sum() + (hits[3:].mean(-1) * [1, 0, 2]).sum()) / (3 + 3)
    np.testing.assert_allclose(_f(m.result()), want, rtol=1e-6)
    np.testing.assert_allclose(_f(metrics.BinaryAccuracy(threshold=0.8)(bt, bp)),
                               (bt == (bp > 0.8)).mean(), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(metrics.binary_accuracy(bt, bp)), hits)  # elementwise


def test_categorical_and_sparse_accuracy():
    probs = rng.uniform(size=(8, 4))
    labels = rng.integers(0, 4, size=8)
    onehot = np.eye(4)[labels]
    hits = (probs.argmax(-1) == labels).astype(float)
    np.testing.assert_allclose(np.asarray(metrics.categorical_accuracy(onehot, probs)), hits)
    np.testing.assert_allclose(np.asarray(metrics.sparse_categorical_accuracy(labels, probs)), hits)
    # (batch, 1) labels give (batch,) matches, as Keras 3
    np.testing.assert_allclose(np.asarray(metrics.sparse_categorical_accuracy(labels[:, None], probs)), hits)
    m = metrics.SparseCategoricalAccuracy()
    m.update_state(labels[:4, None], probs[:4])
    m.update_state(labels[4:], probs[4:], sample_weight=np.array([0.5, 1.0, 0.0, 2.0]))
    want = (hits[:4].sum() + (hits[4:] * [0.5, 1.0, 0.0, 2.0]).sum()) / (4 + 3.5)
    np.testing.assert_allclose(_f(m.result()), want, rtol=1e-6)
    np.testing.assert_allclose(_f(metrics.CategoricalAccuracy()(onehot, probs)), hits.mean(), rtol=1e-6)


def test_top_k():
    probs = rng.uniform(size=(10, 6))
    labels = rng.integers(0, 6, size=10)
    for k in (1, 2, 3):
        rank_of_label = (probs > probs[np.arange(10), labels][:, None]).sum(-1)
        want = (rank_of_label < k).astype(float)
        np.testing.assert_allclose(np.asarray(metrics.sparse_top_k_categorical_accuracy(labels, probs, k=k)), want)
        np.testing.assert_allclose(np.asarray(metrics.top_k_categorical_accuracy(np.eye(6)[labels], probs, k=k)),
                                   want)
        np.testing.assert_allclose(_f(metrics.SparseTopKCategoricalAccuracy(k=k)(labels, probs)), want.mean(),
                                   rtol=1e-6)
        np.testing.assert_allclose(_f(metrics.TopKCategoricalAccuracy(k)(np.eye(6)[labels], probs)), want.mean(),
                                   rtol=1e-6)
    # ties at the boundary count as inside the top k (as tf.math.in_top_k)
    assert _f(metrics.SparseTopKCategoricalAccuracy(k=1)([1], [[0.5, 0.5, 0.1]])) == 1.0


def test_regression_metrics():
    t, p = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    w = rng.uniform(size=5)
    per_mse = ((p - t) ** 2).mean(-1)
    m = metrics.MeanSquaredError()
    m.update_state(t[:2], p[:2])
    m.update_state(t[2:], p[2:], sample_weight=w[2:])
    np.testing.assert_allclose(_f(m.result()), (per_mse[:2].sum() + (per_mse[2:] * w[2:]).sum()) / (2 + w[2:].sum()),
                               rtol=1e-6)
    np.testing.assert_allclose(_f(metrics.MeanAbsoluteError()(t, p)), np.abs(p - t).mean(), rtol=1e-6)
    r = metrics.RootMeanSquaredError()
    r.update_state(t, p, sample_weight=w)
    sq = (p - t) ** 2
    np.testing.assert_allclose(_f(r.result()), np.sqrt((sq * w[:, None]).sum() / (w.sum() * 3)), rtol=1e-6)


def test_crossentropy_metrics():
    logits = rng.normal(size=(6, 3))
    labels = rng.integers(0, 3, size=6)
    log_sm = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    per = -log_sm[np.arange(6), labels]
    m = metrics.SparseCategoricalCrossentropy(from_logits=True)
    m.update_state(labels[:3], logits[:3])
    m.update_state(labels[3:], logits[3:])
    np.testing.assert_allclose(_f(m.result()), per.mean(), rtol=1e-5)
    cce = metrics.CategoricalCrossentropy(from_logits=True)
    np.testing.assert_allclose(_f(cce(np.eye(3)[labels], logits)), per.mean(), rtol=1e-5)
    bt = rng.integers(0, 2, size=(4, 2)).astype(float)
    bp = rng.uniform(0.1, 0.9, size=(4, 2))
    bce = -(bt * np.log(bp) + (1 - bt) * np.log(1 - bp)).mean(-1)
    np.testing.assert_allclose(_f(metrics.BinaryCrossentropy()(bt, bp)), bce.mean(), rtol=1e-5)


def _confusion(labels, preds, thresholds, weights=None):
    weights = np.ones_like(preds) if weights is None else weights
    out = {k: [] for k in ("tp", "fp", "tn", "fn")}
    for th in thresholds:
        pos = preds > th
        out["tp"].append((weights * (pos & (labels == 1))).sum())
        out["fp"].append((weights * (pos & (labels == 0))).sum())
        out["tn"].append((weights * (~pos & (labels == 0))).sum())
        out["fn"].append((weights * (~pos & (labels == 1))).sum())
    return {k: np.array(v) for k, v in out.items()}


def test_precision_recall_thresholds_and_weights():
    labels = rng.integers(0, 2, size=30)
    preds = rng.uniform(size=30)
    w = rng.uniform(size=30)
    ths = [0.2, 0.5, 0.9]
    c = _confusion(labels, preds, ths, w)
    p = metrics.Precision(thresholds=ths)
    r = metrics.Recall(thresholds=ths)
    for sl in (slice(0, 10), slice(10, 30)):
        p.update_state(labels[sl], preds[sl], sample_weight=w[sl])
        r.update_state(labels[sl], preds[sl], sample_weight=w[sl])
    np.testing.assert_allclose(np.asarray(p.result()), c["tp"] / (c["tp"] + c["fp"]), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(r.result()), c["tp"] / (c["tp"] + c["fn"]), rtol=1e-5)
    c5 = _confusion(labels, preds, [0.5])
    np.testing.assert_allclose(_f(metrics.Precision()(labels, preds)), c5["tp"][0] / (c5["tp"][0] + c5["fp"][0]),
                               rtol=1e-6)
    assert metrics.Precision().result().shape == ()
    assert _f(metrics.Recall()([0, 0], [0.9, 0.1])) == 0.0  # no positives: 0, not nan
    with pytest.raises(ValueError):
        metrics.Precision(thresholds=1.5)


def test_precision_class_id_and_top_k():
    y = np.array([[0, 0, 1, 1]])
    p = np.array([[1.0, 1.0, 1.0, 0.0]])
    assert _f(metrics.Precision(top_k=2)(y, p)) == 0.0
    # top_k=4 keeps every prediction; the default threshold is then -inf: 2 of 4 are right
    np.testing.assert_allclose(_f(metrics.Precision(top_k=4)(y, p)), 0.5, rtol=1e-6)
    yy = np.array([[1, 0], [0, 1], [1, 1]])
    pp = np.array([[0.8, 0.7], [0.2, 0.6], [0.4, 0.9]])
    np.testing.assert_allclose(_f(metrics.Recall(class_id=0)(yy, pp)), 0.5)


def _auc_reference(labels, preds, num_thresholds, curve, method="interpolation", weights=None):
    inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    c = _confusion(labels, preds, [-1e-7] + inner + [1 + 1e-7], weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        rec = np.nan_to_num(c["tp"] / (c["tp"] + c["fn"]))
        if curve == "ROC":
            x, y = np.nan_to_num(c["fp"] / (c["fp"] + c["tn"])), rec
        else:
            x, y = rec, np.nan_to_num(c["tp"] / (c["tp"] + c["fp"]))
    if method == "interpolation":
        return -np.trapezoid(y, x)  # x decreases with the threshold
    h = np.minimum(y[:-1], y[1:]) if method == "minoring" else np.maximum(y[:-1], y[1:])
    return ((x[:-1] - x[1:]) * h).sum()


@pytest.mark.parametrize("curve,method", [("ROC", "interpolation"), ("ROC", "minoring"), ("ROC", "majoring"),
                                          ("PR", "minoring"), ("PR", "majoring")])
def test_auc_matches_numpy(curve, method):
    labels = rng.integers(0, 2, size=200)
    preds = np.clip(labels * 0.3 + rng.uniform(size=200) * 0.7, 0, 1)
    w = rng.uniform(size=200)
    m = metrics.AUC(num_thresholds=50, curve=curve, summation_method=method)
    m.update_state(labels[:120], preds[:120], sample_weight=w[:120])
    m.update_state(labels[120:], preds[120:], sample_weight=w[120:])
    np.testing.assert_allclose(_f(m.result()), _auc_reference(labels, preds, 50, curve, method, w), rtol=1e-5)


def test_auc_roc_approaches_rank_statistic_and_resets():
    labels = rng.integers(0, 2, size=300)
    preds = np.clip(labels * 0.25 + rng.uniform(size=300) * 0.75, 0, 1)
    pos, neg = preds[labels == 1], preds[labels == 0]
    exact = ((pos[:, None] > neg[None, :]).mean())
    m = metrics.AUC(num_thresholds=2000)
    np.testing.assert_allclose(_f(m(labels, preds)), exact, atol=2e-3)
    m.reset_state()
    assert _f(m.result()) == 0.0
    assert _f(metrics.AUC()([0, 0, 1, 1], [0.0, 0.5, 0.3, 0.9])) == pytest.approx(0.75)
    logits = np.log(preds + 1e-3) - np.log(1 - preds + 1e-3)
    np.testing.assert_allclose(_f(metrics.AUC(from_logits=True)(labels, logits)),
                               _f(metrics.AUC()(labels, 1 / (1 + np.exp(-logits)))), rtol=1e-6)


def test_auc_pr_interpolation():
    labels = rng.integers(0, 2, size=100)
    preds = np.clip(labels * 0.3 + rng.uniform(size=100) * 0.7, 0, 1)
    n = 30
    inner = [(i + 1) / (n - 1) for i in range(n - 2)]
    c = _confusion(labels, preds, [-1e-7] + inner + [1 + 1e-7])
    tp, fp, fn = c["tp"], c["fp"], c["fn"]
    total = 0.0
    for i in range(n - 1):  # Davis & Goadrich interpolation between neighbouring thresholds
        dtp, p0, p1 = tp[i] - tp[i + 1], tp[i] + fp[i], tp[i + 1] + fp[i + 1]
        dp = p0 - p1
        slope = dtp / dp if dp > 0 else 0.0
        intercept = tp[i + 1] - slope * p1
        ratio = p0 / p1 if (p0 > 0 and p1 > 0) else 1.0
        denom = tp[i + 1] + fn[i + 1]
        total += slope * (dtp + intercept * np.log(ratio)) / denom if denom > 0 else 0.0
    m = metrics.AUC(num_thresholds=n, curve="PR")
    np.testing.assert_allclose(_f(m(labels, preds)), total, rtol=1e-5)


def test_auc_errors_and_config():
    with pytest.raises(ValueError):
        metrics.AUC(curve="XY")
    with pytest.raises(ValueError):
        metrics.AUC(summation_method="simpson")
    with pytest.raises(ValueError):
        metrics.AUC(num_thresholds=1)
    # Keras 3 accepts predictions outside [0, 1]: with evenly spread thresholds they are
    # clipped into it (values from TF 2.21)
    assert _f(metrics.AUC()([0, 1], [0.5, 1.5])) == 1.0
    assert _f(metrics.AUC()([1, 0, 1], [-0.5, 1.5, 0.7])) == 0.0
    assert _f(metrics.AUC(thresholds=[0.3, 0.6])([1, 0, 1], [-0.5, 1.5, 0.7])) == 0.0
    np.testing.assert_allclose(
        np.asarray(metrics.Precision(thresholds=[0.0, 0.5, 1.0])([1, 0, 1, 1], [0.0, 1.5, 0.7, 1.0])),
        [2 / 3, 2 / 3, 0.0], rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(metrics.Recall(thresholds=[0.0, 0.5, 1.0])([1, 0, 1, 1], [0.0, 1.5, 0.7, 1.0])),
        [2 / 3, 2 / 3, 0.0], rtol=1e-6)
    np.testing.assert_allclose(
        _f(metrics.AUC(num_thresholds=11, curve="PR")([1, 0, 1, 1, 0], [0.3, 0.3, 0.7, 0.1, 0.6])),
        0.68457097, rtol=1e-6)
    cfg = metrics.AUC(num_thresholds=10, curve="PR").get_config()
    again = metrics.AUC.from_config(cfg)
    assert again.num_thresholds == 10 and again.curve == "PR" and again.name == cfg["name"]
    # AUC, Precision and Recall have no fixed default name: Keras' auto_name makes one
    names = {metrics.AUC().name, metrics.AUC().name}
    assert len(names) == 2 and all(n.startswith("auc") for n in names)
    assert metrics.Precision().name.startswith("precision")
    m = metrics.AUC(thresholds=[0.3, 0.6])
    assert m.num_thresholds == 4 and m.variables[0].shape == (4,)


def test_custom_metric_subclass_and_add_weight():
    class CountPositives(metrics.Metric):
        def __init__(self, name="count_positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.positives = self.add_weight(name="positives", initializer="zeros")

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.positives.assign_add(tf.reduce_sum(tf.cast(tf.greater(y_pred, 0.0), tf.float32)))

        def result(self):
            return self.positives.value()

    m = CountPositives()
    x = tf.constant([1.0, -2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        m.update_state(None, x)
    assert len(tape._records) == 0
    assert _f(m(None, x)) == 4.0
    assert [n for n, _ in m._checkpoint_dependencies()] == ["positives"]
    assert m.variables[0].trainable is False
    m.reset_state()
    assert _f(m.result()) == 0.0


def test_get_and_config():
    # Keras 3: names give new Metric objects (class names, snake_case names, a few aliases)
    assert type(metrics.get("accuracy")) is metrics.Accuracy
    assert type(metrics.get("mse")) is metrics.MeanSquaredError
    assert type(metrics.get("binary_accuracy")) is metrics.BinaryAccuracy
    assert type(metrics.deserialize("categorical_accuracy")) is metrics.CategoricalAccuracy
    assert isinstance(metrics.get("AUC"), metrics.AUC)
    with pytest.raises(ValueError):
        metrics.get("acc")  # only compile() knows 'acc'
    assert metrics.get(metrics.mse) is metrics.mse and metrics.get(None) is None
    m = metrics.get({"class_name": "BinaryAccuracy", "config": {"name": "ba", "threshold": 0.7}})
    assert m.name == "ba" and m.get_config()["threshold"] == 0.7
    with pytest.raises(ValueError):
        metrics.get("nope")
    assert metrics.Mean().get_config() == {"name": "mean", "dtype": "float32"}
    assert metrics.CategoricalAccuracy().name == "categorical_accuracy"
    assert metrics.Mean(dtype="float64").result().dtype == tf.float64


def test_compare_with_tensorflow():
    real_tf = pytest.importorskip("tensorflow")
    labels = rng.integers(0, 2, size=50)
    preds = rng.uniform(size=50)
    for name in ["AUC", "Precision", "Recall", "BinaryAccuracy"]:
        want = getattr(real_tf.keras.metrics, name)()
        want.update_state(labels, preds)
        np.testing.assert_allclose(_f(getattr(metrics, name)()(labels, preds)), want.result().numpy(), rtol=1e-5)


# -- Keras 3 rules: per-sample reduction, elementwise accuracies, names, dtypes ----------------

def test_mean_reduces_each_sample_first():
    # values from TF 2.21 / Keras 3.15
    m = metrics.Mean()
    m.update_state([1.0, 2.0, 3.0])
    m.update_state([[1.0, 2.0], [3.0, 5.0]])
    m.update_state(4.0)
    assert np.isclose(_f(m.result()), 2.5833333) and _f(m.count) == 6.0
    m = metrics.Mean()
    m.update_state([[1.0, 2.0], [3.0, 5.0]], sample_weight=[1.0, 3.0])
    assert np.isclose(_f(m.result()), 3.375) and _f(m.count) == 4.0
    m = metrics.Mean()  # a scalar weight makes the whole batch one sample
    m.update_state([1.0, 2.0, 6.0], sample_weight=2.0)
    assert _f(m.result()) == 3.0 and _f(m.count) == 2.0
    m = metrics.Mean()  # 2-D weights: averaged per sample too
    m.update_state([[1.0, 2.0], [3.0, 5.0]], sample_weight=[[1.0, 0.0], [2.0, 2.0]])
    assert np.isclose(_f(m.result()), 3.4) and _f(m.count) == 2.5
    s = metrics.Sum()
    s.update_state([[1.0, 2.0], [3.0, 5.0]], sample_weight=[1.0, 3.0])
    assert _f(s.result()) == 27.0


def test_per_sample_weights_that_do_not_broadcast_raise_invalid_argument():
    from minitf.errors import errors
    m = metrics.BinaryCrossentropy()
    with pytest.raises(errors.InvalidArgumentError, match="BroadcastTo"):
        # rank-1 labels: the loss is one scalar, five weights cannot broadcast to it
        m.update_state([0.0, 1.0, 1.0, 1.0, 1.0], [0.7, 0.3, 0.5, 0.5, 0.1],
                       sample_weight=[0.1, 1.7, 0.9, 1.4, 1.3])


def test_binary_accuracy_is_elementwise():
    got = metrics.binary_accuracy([[1, 0, 1]], [[0.7, 0.2, 0.1]])
    assert got.shape == (1, 3) and got.dtype == tf.float32
    np.testing.assert_array_equal(np.asarray(got), [[1.0, 1.0, 0.0]])
    # (batch,) labels with (batch, 1) predictions: the labels gain the trailing 1
    np.testing.assert_array_equal(np.asarray(metrics.binary_accuracy([1.0, 0.0], [[0.7], [0.6]])),
                                  [[1.0], [0.0]])
    np.testing.assert_array_equal(np.asarray(metrics.binary_accuracy(np.array([True, False]), [0.7, 0.6])),
                                  [1.0, 0.0])
    b = metrics.BinaryAccuracy()
    b.update_state([[1.0, 0.0, 1.0], [0.0, 0.0, 0.0]], [[0.7, 0.2, 0.1], [0.9, 0.9, 0.1]],
                   sample_weight=[1.0, 3.0])
    np.testing.assert_allclose(_f(b.result()), 0.4166667, rtol=1e-6)


def test_single_class_predictions():
    # argmax of one column is 0: label 0 matches (Keras 3 gives 1.0)
    m = metrics.SparseCategoricalAccuracy()
    m.update_state(np.array([0, 0]), np.array([[0.2], [0.9]], "float32"))
    assert _f(m.result()) == 1.0
    k = metrics.SparseTopKCategoricalAccuracy(k=1)
    k.update_state(np.array([0, 0]), np.array([[0.2], [0.9]], "float32"))
    assert _f(k.result()) == 1.0
    # labels (batch,) with predictions (batch, 1): the cross-entropy of one class is 0
    c = metrics.SparseCategoricalCrossentropy()
    c.update_state(np.array([0, 0, 0]), np.array([[0.1], [0.1], [0.4]], "float32"),
                   sample_weight=[0.1, 0.2, 0.5])
    assert _f(c.result()) == 0.0


def test_regression_metrics_align_ranks():
    # (3, 4) labels with (3, 4, 1) predictions: the trailing 1 is dropped
    t = rng.normal(size=(3, 4)).astype("float32")
    assert metrics.mse(t, t[..., None]).shape == (3,)
    assert float(np.abs(np.asarray(metrics.mae(t, t[..., None]))).max()) == 0.0


def test_default_names_and_state_dtypes():
    first = metrics.MeanMetricWrapper(fn=lambda a, b: a - b)
    second = metrics.MeanMetricWrapper(fn=lambda a, b: a - b)
    assert first.name.startswith("mean_metric_wrapper") and second.name.startswith("mean_metric_wrapper_")
    assert metrics.MeanMetricWrapper(fn=lambda a, b: a - b, name="diff").name == "diff"

    class Positives(metrics.Metric):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.total = self.add_variable(shape=(), initializer="zeros", name="total")
            self.count = self.add_weight(shape=(), initializer="zeros", name="count")

        def update_state(self, y_pred):
            hits = tf.cast(tf.greater(y_pred, 0.5), self.dtype)
            self.total.assign_add(tf.reduce_sum(hits))  # float64 into float32 state: cast
            self.count.assign_add(tf.cast(tf.size(hits), self.dtype))

        def result(self):
            return self.total / self.count

    p = Positives(dtype="float64")
    assert p.dtype == "float64" and isinstance(p.dtype, str)  # Keras 3: a dtype name
    assert p.total.dtype == tf.float32 and p.count.dtype == tf.float32  # Keras' floatx default
    p.update_state(tf.constant([0.2, 0.7, 0.9, 0.1], dtype=tf.float64))
    assert p.result().dtype == tf.float32 and _f(p.result()) == 0.5
    assert Positives().name != Positives().name  # auto_name: unique per process
    assert metrics.Mean(dtype="float64").result().dtype == tf.float64  # built-ins use their dtype


def test_precision_recall_argument_errors():
    from minitf.errors import errors
    y = np.array([[1.0, 0.0], [0.0, 1.0]], "float32")
    p = np.array([[0.7, 0.2], [0.4, 0.9]], "float32")
    with pytest.raises(errors.InvalidArgumentError, match="TopKV2"):
        metrics.Precision(top_k=3).update_state(y, p)
    with pytest.raises(errors.InvalidArgumentError):
        metrics.Recall(class_id=2).update_state(y, p)
    with pytest.raises(ValueError, match="class_id"):
        metrics.Precision(class_id=0).update_state(y[:, 0], p[:, 0])
    # (batch,) weights on rank-3 labels broadcast along axis 1, as Keras 3 (TF: 0.4706)
    r = metrics.Recall()
    yt = np.array([[[1, 1], [0, 0]], [[1, 1], [0, 1]]], "float32")
    yp = np.array([[[0.9, 0.8], [0.2, 0.8]], [[0.3, 0.3], [0.1, 0.2]]], "float32")
    r.update_state(yt, yp, sample_weight=[1.0, 0.25])
    np.testing.assert_allclose(_f(r.result()), 0.47058824, rtol=1e-6)  # per-sample: 0.727


def test_serialize_dicts_as_keras3():
    got = metrics.serialize(metrics.BinaryAccuracy(threshold=0.3, name="probe"))
    assert got == {"module": "keras.metrics", "class_name": "BinaryAccuracy",
                   "config": {"name": "probe", "dtype": "float32", "threshold": 0.3},
                   "registered_name": None}
    assert metrics.serialize(metrics.mse) == {"module": "builtins", "class_name": "function",
                                              "config": "mean_squared_error",
                                              "registered_name": "function"}
    assert metrics.deserialize(metrics.serialize(metrics.mse)) is regression_metrics.mean_squared_error
    again = metrics.deserialize(got)
    assert type(again) is metrics.BinaryAccuracy and again.name == "probe"


def test_compile_names_string_metrics_after_the_string():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["mae", "mse"])
    history = model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), epochs=1, verbose=0)
    assert {"mae", "mse"} <= set(history.history)


@pytest.mark.parametrize("name,cell", [("TruePositives", (1, True)), ("FalsePositives", (0, True)),
                                       ("TrueNegatives", (0, False)), ("FalseNegatives", (1, False))])
def test_confusion_counts_weigh_each_outcome_per_threshold(name, cell):
    y_true = np.array([1, 0, 1, 0, 1], np.float32)
    y_pred = np.array([0.9, 0.8, 0.3, 0.1, 0.6], np.float32)
    weights = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    label, predicted_positive = cell
    thresholds = [0.25, 0.5, 0.85]
    want = [float(sum(w for t, p, w in zip(y_true, y_pred, weights)
                      if t == label and (p > th) == predicted_positive)) for th in thresholds]
    metric = getattr(tf.keras.metrics, name)(thresholds=thresholds)
    metric.update_state(y_true, y_pred, sample_weight=weights)
    np.testing.assert_allclose(np.asarray(metric.result()), want)
    single = getattr(tf.keras.metrics, name)()  # threshold 0.5: a scalar
    single.update_state(y_true, y_pred)
    assert single.result().shape == () and single.get_config()["thresholds"] is None
    with pytest.raises(ValueError):
        getattr(tf.keras.metrics, name)(thresholds=1.5)
