"""tf.keras.callbacks.TensorBoard writes Keras 3's layout: train/ and validation/ runs, the
epoch_/batch_/evaluation_ scalar tags at Keras' steps, weight histograms and images. The tag
lists were taken from Keras 3.15 runs of the same model (the weight paths carry the
Sequential's name, 'net/d1/kernel', as in Keras)."""
import os
import warnings

import numpy as np
import pytest

pytest.importorskip("google.protobuf")

import minitf as tf  # noqa: E402
from summary_files import rows  # noqa: E402


def _fit(log_dir, epochs=2, validation=True, **kwargs):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4, name="d1"),
                                 tf.keras.layers.Dense(1, name="d2")], name="net")
    model.compile("sgd", "mse", metrics=["mae"])
    rng = np.random.RandomState(0)
    x, y = rng.rand(20, 3).astype("float32"), rng.rand(20, 1).astype("float32")
    callback = tf.keras.callbacks.TensorBoard(str(log_dir), **kwargs)
    model.fit(x, y, batch_size=5, epochs=epochs, verbose=0, callbacks=[callback],
              validation_data=(x[:10], y[:10]) if validation else None)
    return model


def _tags(logdir):
    return [(step, tag) for step, tag, _, _ in rows(logdir)]


def _epoch_block(epoch, images):
    block = [(epoch, "epoch_loss"), (epoch, "epoch_mae"), (epoch, "epoch_learning_rate")]
    for layer in ("d1", "d2"):
        for weight in ("kernel", "bias"):
            block.append((epoch, f"net/{layer}/{weight}/histogram"))
            if images and (layer, weight) != ("d2", "bias"):  # a (1,) bias squeezes to a scalar
                block.append((epoch, f"net/{layer}/{weight}/image"))
    return block


def test_update_freq_epoch_layout(tmp_path):
    _fit(tmp_path, histogram_freq=1, write_images=True)
    assert sorted(os.listdir(tmp_path)) == ["train", "validation"]
    assert _tags(tmp_path / "train") == _epoch_block(0, True) + _epoch_block(1, True)
    assert _tags(tmp_path / "validation") == [
        (4, "evaluation_loss_vs_iterations"), (4, "evaluation_mae_vs_iterations"),
        (0, "epoch_loss"), (0, "epoch_mae"),
        (8, "evaluation_loss_vs_iterations"), (8, "evaluation_mae_vs_iterations"),
        (1, "epoch_loss"), (1, "epoch_mae")]
    plugins = {tag: plugin for _, tag, plugin, _ in rows(tmp_path / "train")}
    assert plugins["epoch_loss"] == "scalars" and plugins["net/d1/kernel/histogram"] == "histograms"
    assert plugins["net/d1/kernel/image"] == "images"


def test_update_freq_integer_and_batch(tmp_path):
    _fit(tmp_path / "two", update_freq=2)
    batches = [(s, t) for s, t in _tags(tmp_path / "two" / "train") if t.startswith("batch_")]
    assert batches == [(s, t) for s in (2, 4, 6, 8) for t in ("batch_loss", "batch_mae")]
    _fit(tmp_path / "each", update_freq="batch", validation=False)
    train = _tags(tmp_path / "each" / "train")
    assert [s for s, t in train if t == "batch_loss"] == list(range(1, 9))
    assert not os.path.exists(tmp_path / "each" / "validation")  # writers open lazily


def test_epoch_values_match_history(tmp_path):
    model = _fit(tmp_path)
    got = {(step, tag): float(value) for step, tag, _, value in rows(tmp_path / "train")}
    for epoch, loss in enumerate(model.history.history["loss"]):
        assert got[(epoch, "epoch_loss")] == pytest.approx(loss, rel=1e-6)
    val = {(step, tag): float(value) for step, tag, _, value in rows(tmp_path / "validation")}
    assert val[(1, "epoch_loss")] == pytest.approx(model.history.history["val_loss"][1], rel=1e-6)


def test_histogram_freq_and_steps_per_second(tmp_path):
    _fit(tmp_path, epochs=3, validation=False, histogram_freq=2, write_steps_per_second=True)
    tags = _tags(tmp_path / "train")
    assert sorted({s for s, t in tags if t.endswith("/histogram")}) == [0, 2]
    assert [s for s, t in tags if t == "epoch_steps_per_second"] == [0, 1, 2]
    values = [float(v) for _, t, _, v in rows(tmp_path / "train") if t == "epoch_steps_per_second"]
    assert all(v > 0 for v in values)


def test_learning_rate_schedule_is_logged_at_its_current_value(tmp_path):
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=4, decay_rate=0.5)
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(tf.keras.optimizers.SGD(schedule), "mse")
    x = np.ones((8, 2), "float32")
    model.fit(x, x[:, :1], batch_size=2, epochs=2, verbose=0,
              callbacks=[tf.keras.callbacks.TensorBoard(str(tmp_path))])
    rates = [float(v) for _, t, _, v in rows(tmp_path / "train") if t == "epoch_learning_rate"]
    assert rates == pytest.approx([0.05, 0.025])  # after 4 and 8 steps


def test_profile_batch_is_validated_and_only_warns(tmp_path):
    for bad in (-1, (5, 2), "a,b", [1, 2, 3]):
        with pytest.raises(ValueError, match="profile_batch must be a non-negative integer"):
            tf.keras.callbacks.TensorBoard(str(tmp_path), profile_batch=bad)
    with pytest.warns(UserWarning, match="no profiler"):
        tf.keras.callbacks.TensorBoard(str(tmp_path), profile_batch="2,4")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tf.keras.callbacks.TensorBoard(str(tmp_path), profile_batch=0)


def test_embeddings_freq_writes_projector_config_and_weights(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((4,), dtype="int32"),
                                 tf.keras.layers.Embedding(10, 3, name="emb"),
                                 tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x = np.random.RandomState(0).randint(0, 10, (6, 4)).astype("int32")
    callback = tf.keras.callbacks.TensorBoard(str(tmp_path), embeddings_freq=1,
                                              embeddings_metadata={"emb": "meta.tsv"})
    model.fit(x, np.ones((6, 1), "float32"), epochs=2, verbose=0, callbacks=[callback])
    config = (tmp_path / "projector_config.pbtxt").read_text()
    assert config == ('embeddings {\n  tensor_name: "layer_with_weights-0/embeddings/.ATTRIBUTES/'
                      'VARIABLE_VALUE"\n  metadata_path: "meta.tsv"\n}\n')
    for epoch in (0, 1):
        assert (tmp_path / "train" / f"keras_embedding.ckpt-{epoch}.weights.h5").exists()
    with pytest.raises(ValueError, match="Unrecognized `Embedding` layer names"):
        bad = tf.keras.callbacks.TensorBoard(str(tmp_path / "bad"), embeddings_freq=1,
                                             embeddings_metadata={"nope": "m.tsv"})
        bad.set_model(model)


def test_evaluate_alone_logs_to_validation(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    callback = tf.keras.callbacks.TensorBoard(str(tmp_path))
    x = np.ones((4, 2), "float32")
    model.evaluate(x, x[:, :1], verbose=0, callbacks=[callback])
    # no train_end closes the writer here; leaving its as_default block flushed the file
    assert _tags(tmp_path / "validation") == [(0, "evaluation_loss_vs_iterations")]
