"""IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU: hand-computed values, masking of
out-of-range and ignored ids, dtype truncation, configs (checked against Keras 3 when TF is
installed), checkpoints, tf.function and fit()."""
import warnings

import numpy as np
import pytest

import minitf as tf

M = tf.keras.metrics


def test_iou_of_target_classes():
    m = M.IoU(num_classes=2, target_class_ids=[0])
    m.update_state([0, 0, 1, 1], [0, 1, 0, 1])
    np.testing.assert_allclose(m.result().numpy(), 1 / 3, rtol=1e-6)
    m.reset_state()
    m.update_state([0, 0, 1, 1], [0, 1, 0, 1], sample_weight=[0.3, 0.3, 0.3, 0.1])
    assert m.result().dtype == tf.float32


def test_mean_iou_matches_confusion_matrix_formula():
    y_true = np.array([0, 1, 2, 2, 1, 0])
    y_pred = np.array([0, 2, 2, 1, 1, 0])
    m = M.MeanIoU(num_classes=3)
    m.update_state(y_true[:3], y_pred[:3])
    m.update_state(y_true[3:].reshape(3, 1), y_pred[3:].reshape(3, 1))
    cm = np.zeros((3, 3))
    np.add.at(cm, (y_true, y_pred), 1)
    np.testing.assert_array_equal(m.total_cm.numpy(), cm)
    tp = np.diag(cm)
    iou = tp / (cm.sum(0) + cm.sum(1) - tp)
    np.testing.assert_allclose(m.result().numpy(), iou.mean(), rtol=1e-6)


def test_out_of_range_and_ignored_ids_count_nothing():
    m = M.MeanIoU(num_classes=3, ignore_class=2)
    m.update_state([0, 5, -1, 2, 1], [0, 1, 1, 2, 3])
    np.testing.assert_array_equal(m.total_cm.numpy(), [[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    # only class 0 occurred: the mean is over the classes with a nonzero denominator
    np.testing.assert_allclose(m.result().numpy(), 1.0, rtol=1e-6)


def test_integer_state_truncates_ids_and_weights():
    m = M.MeanIoU(num_classes=3)
    assert m.dtype == "int64" and m.total_cm.dtype == tf.int64
    m.update_state(np.array([0.7, 1.2]), np.array([0.0, 1.9]))
    with pytest.warns(UserWarning, match="weight as `float`"):
        m.update_state([0, 1], [0, 1], sample_weight=np.array([0.5, 2.5], "float32"))
    np.testing.assert_array_equal(m.total_cm.numpy(), [[1, 0, 0], [0, 3, 0], [0, 0, 0]])
    f = M.MeanIoU(num_classes=3, dtype="float32")
    f.update_state([0, 1], [0, 1], sample_weight=[0.5, 2.5])
    np.testing.assert_allclose(np.diag(f.total_cm.numpy()), [0.5, 2.5, 0])


def test_binary_iou_thresholds_scores():
    m = M.BinaryIoU()
    m.update_state([0, 1, 0, 1], [0.1, 0.9, 0.5, 0.3])  # 0.5 >= threshold: predicted 1
    # class 0: tp 1 / (2 + 2 - 1); class 1: tp 1 / (2 + 2 - 1)
    np.testing.assert_allclose(m.result().numpy(), 1 / 3, rtol=1e-6)
    m = M.BinaryIoU(target_class_ids=[1], threshold=0.3)
    m.update_state([0, 1, 0, 1], [0.1, 0.9, 0.5, 0.3])
    np.testing.assert_allclose(m.result().numpy(), 2 / 3, rtol=1e-6)


def test_one_hot_variants_take_argmax():
    y_true = np.eye(3, dtype="float32")[[0, 1, 2, 2]]
    scores = np.array([[0.9, 0.05, 0.05], [0.1, 0.2, 0.7], [0.2, 0.1, 0.7], [0.1, 0.8, 0.1]], "float32")
    a = M.OneHotMeanIoU(num_classes=3)
    a.update_state(y_true, scores)
    b = M.MeanIoU(num_classes=3)
    b.update_state([0, 1, 2, 2], [0, 2, 2, 1])
    np.testing.assert_allclose(a.result().numpy(), b.result().numpy())
    c = M.OneHotIoU(num_classes=3, target_class_ids=[2], sparse_y_pred=True)
    c.update_state(y_true, [0, 2, 2, 1])
    np.testing.assert_allclose(c.result().numpy(), 1 / 3, rtol=1e-6)


def test_bad_input():
    with pytest.raises(ValueError, match=r"target class id 3 is out of range, which is \[0, 3\)"):
        M.IoU(3, [0, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="MeanIoU"):
        M.MeanIoU(3).update_state([0, 1, 2], [0, 1])


def test_names_and_config_round_trip():
    for metric, name in ((M.IoU(3, [0]), "io_u"), (M.MeanIoU(2), "mean_io_u"), (M.BinaryIoU(), "binary_io_u"),
                         (M.OneHotIoU(2, [1]), "one_hot_io_u"), (M.OneHotMeanIoU(2), "one_hot_mean_io_u")):
        assert metric.name.startswith(name)
        again = type(metric).from_config(metric.get_config())
        assert again.get_config() == metric.get_config()
    assert [v.name.split(":")[0] for v in M.MeanIoU(2).variables] == ["total_confusion_matrix"]


def test_configs_match_keras():
    ktf = pytest.importorskip("tensorflow")
    cases = [("IoU", (3, [0, 2]), {"name": "a"}), ("MeanIoU", (4,), {"ignore_class": 0, "name": "m"}),
             ("BinaryIoU", ([1],), {"threshold": 0.3, "name": "b"}), ("OneHotIoU", (3, [1]), {"name": "c"}),
             ("OneHotMeanIoU", (2,), {"name": "d", "dtype": "float32"})]
    for cls, args, kwargs in cases:
        ours = getattr(M, cls)(*args, **kwargs).get_config()
        theirs = getattr(ktf.keras.metrics, cls)(*args, **kwargs).get_config()
        theirs["dtype"] = str(theirs["dtype"])
        assert ours == theirs, cls


def test_checkpoint_tf_function_and_fit(tmp_path):
    m = M.MeanIoU(num_classes=3)

    @tf.function
    def step(y, p):
        m.update_state(y, p)
        return m.result()

    step(tf.constant([0, 1, 2]), tf.constant([0, 1, 1]))
    step(tf.constant([0, 1, 2]), tf.constant([0, 1, 1]))
    np.testing.assert_array_equal(m.total_cm.numpy(), [[2, 0, 0], [0, 2, 0], [0, 2, 0]])
    path = tf.train.Checkpoint(metric=m).save(str(tmp_path / "ckpt"))
    fresh = M.MeanIoU(num_classes=3)
    tf.train.Checkpoint(metric=fresh).restore(path)
    np.testing.assert_allclose(fresh.result().numpy(), m.result().numpy())

    rng = np.random.default_rng(0)
    x = rng.normal(size=(24, 4)).astype("float32")
    y = np.eye(3, dtype="float32")[rng.integers(0, 3, 24)]
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, activation="softmax")])
    model.compile("adam", "categorical_crossentropy", metrics=[M.OneHotMeanIoU(3, name="one_hot_mean_io_u"), "binary_io_u"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
        logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert "one_hot_mean_io_u" in history.history and "binary_io_u" in history.history
    ref = M.OneHotMeanIoU(3)
    ref.update_state(y, model.predict(x, verbose=0))
    np.testing.assert_allclose(logs["one_hot_mean_io_u"], float(ref.result()), rtol=1e-6)
