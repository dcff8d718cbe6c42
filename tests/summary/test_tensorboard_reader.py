"""TensorBoard's own reader (EventAccumulator) opens minitf's event files: tags, steps, plugin
metadata and values come back as TensorBoard shows them. Skipped without the `tensorboard`
package (pip install tensorboard); tests/parity/test_summary_interop.py checks the files with
TensorFlow's reader in CI."""
import numpy as np
import pytest

pytest.importorskip("google.protobuf")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
tensor_util = pytest.importorskip("tensorboard.util.tensor_util")

import minitf as tf  # noqa: E402


def _accumulator(logdir):
    acc = event_accumulator.EventAccumulator(str(logdir), size_guidance={"tensors": 0})
    acc.Reload()
    return acc


def _values(acc, tag):
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def test_tensorboard_reads_every_summary_kind(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=1):
        for step in range(3):
            tf.summary.scalar("loss", 1.0 / (step + 1), step=step, description="training loss")
        tf.summary.histogram("weights", np.arange(10.0), buckets=5)
        tf.summary.image("pictures", np.zeros([2, 3, 4, 1], np.uint8))
        tf.summary.text("notes", "**bold**")
    writer.close()
    acc = _accumulator(tmp_path)
    assert sorted(acc.Tags()["tensors"]) == ["loss", "notes", "pictures", "weights"]
    assert acc.file_version == 2.0  # TensorBoard parsed the "brain.Event:2" first event
    assert [(s, float(v)) for s, v in _values(acc, "loss")] == [(0, 1.0), (1, 0.5), (2, np.float32(1 / 3))]
    metadata = acc.SummaryMetadata("loss")
    assert metadata.plugin_data.plugin_name == "scalars" and metadata.summary_description == "training loss"
    ((step, hist),) = _values(acc, "weights")
    assert step == 1 and hist.dtype == np.float64
    np.testing.assert_array_equal(hist, [[0, 1.8, 2], [1.8, 3.6, 2], [3.6, 5.4, 2], [5.4, 7.2, 2], [7.2, 9, 2]])
    assert acc.SummaryMetadata("weights").plugin_data.plugin_name == "histograms"
    ((_, images),) = _values(acc, "pictures")
    assert list(images[:2]) == [b"4", b"3"] and images[2].startswith(b"\x89PNG") and len(images) == 4
    assert acc.SummaryMetadata("pictures").plugin_data.plugin_name == "images"
    ((_, text),) = _values(acc, "notes")
    assert text == b"**bold**" and acc.SummaryMetadata("notes").plugin_data.plugin_name == "text"


def test_tensorboard_reads_the_callback_layout(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, name="d")], name="net")
    model.compile("sgd", "mse", metrics=["mae"])
    x = np.random.RandomState(0).rand(8, 3).astype("float32")
    y = np.random.RandomState(1).rand(8, 2).astype("float32")
    callback = tf.keras.callbacks.TensorBoard(str(tmp_path), histogram_freq=1, update_freq="batch")
    model.fit(x, y, batch_size=4, epochs=2, validation_data=(x, y), callbacks=[callback], verbose=0)
    train = _accumulator(tmp_path / "train")
    assert sorted(train.Tags()["tensors"]) == sorted(
        ["batch_loss", "batch_mae", "epoch_loss", "epoch_mae", "epoch_learning_rate",
         "net/d/kernel/histogram", "net/d/bias/histogram"])
    assert [s for s, _ in _values(train, "batch_loss")] == [1, 2, 3, 4]
    assert [s for s, _ in _values(train, "epoch_loss")] == [0, 1]
    np.testing.assert_allclose([float(v) for _, v in _values(train, "epoch_learning_rate")], [0.01, 0.01])
    validation = _accumulator(tmp_path / "validation")
    assert sorted(validation.Tags()["tensors"]) == sorted(
        ["epoch_loss", "epoch_mae", "evaluation_loss_vs_iterations", "evaluation_mae_vs_iterations"])
    assert [s for s, _ in _values(validation, "evaluation_loss_vs_iterations")] == [2, 4]


def test_tensorboard_dashboards_classify_the_data(tmp_path):
    """The reader behind TensorBoard's web UI files each tag under its plugin and data class."""
    plugin_event_accumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.plugin_event_accumulator")
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        tf.summary.scalar("s", 1.0)
        tf.summary.histogram("h", [1.0, 2.0])
        tf.summary.image("i", np.zeros([1, 2, 2, 3]))
        tf.summary.text("t", "x")
    writer.close()
    acc = plugin_event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"tensors": 0})
    acc.Reload()
    scalar, tensor, blobs = 1, 2, 3  # tensorboard's DataClass values
    assert {t: acc.SummaryMetadata(t).data_class for t in ("s", "h", "i", "t")} == {
        "s": scalar, "h": tensor, "i": blobs, "t": tensor}
    for plugin, tag in (("scalars", "s"), ("histograms", "h"), ("images", "i"), ("text", "t")):
        assert list(acc.PluginTagToContent(plugin)) == [tag]
