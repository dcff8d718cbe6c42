"""tf.summary files against TF 2.21: TensorFlow's own event reader (summary_iterator) opens the
files minitf writes, and each Summary.Value is the byte sequence TF 2.21 with TensorBoard 2.21's
summary ops writes for the same call (SHA-256 below, captured from TF's files, parsed and
re-serialized by TF's Event class). Images are compared by their decoded pixels (PNG encoders
differ in their compressed bytes). TensorBoard itself is not needed here."""
import glob
import hashlib
import os

import numpy as np
import pytest

tf_ref = pytest.importorskip("tensorflow")
pytest.importorskip("google.protobuf")

import minitf  # noqa: E402

CASES = [  # (summary, name, data, kwargs); written at step 3
    ("scalar", "s", 1.5, {"description": "desc"}),
    ("scalar", "si", 7, {}),
    ("scalar", "sneg", -2.25, {"step": 11}),
    ("histogram", "h", np.arange(10.0), {}),
    ("histogram", "h4", [1.0, 2.0, 3.0], {"buckets": 4}),
    ("histogram", "hc", [2.0, 2.0, 2.0], {}),
    ("histogram", "he", np.zeros([0]), {"buckets": 2}),
    ("histogram", "hr", np.random.RandomState(1).normal(size=1000), {"buckets": 7, "description": "normal"}),
    ("histogram", "hi", np.array([[1, 5], [3, 3]], np.int32), {}),
    ("histogram", "h0", [1.0, 2.0], {"buckets": 0}),
    ("text", "t", "hello", {}),
    ("text", "t2", [["a", "b"]], {"description": "table"}),
    ("text", "tu", "h\u00e9llo \u00fcn\u00efcode", {}),
]
TF_VALUES = [  # (tag, step, sha256 of TF's serialized Summary.Value)
    ("s", 3, "bff85ae392d19de611520f159dc903c2392f50ff87928d8d9590f4dcb0e0de4a"),
    ("si", 3, "dc1080eb2b318b53a9f0d1b0b37fd42dc4c349427da9fa027e0b45d5f1bf6309"),
    ("sneg", 11, "2ca2c804d364724941acf0a58d8509ccfb74e788a571a101ca8b5f632fea55bc"),
    ("h", 3, "84eb7c4b492cbce26f215946dcbad116fcdbecccc778c0ba8b9c2f62532600b6"),
    ("h4", 3, "1b9be0c925d66fadcb0c35cc8142618917845de0f9fa3dd5059503e07f33fb5e"),
    ("hc", 3, "3ac84d05628b9fdd1a2702a58a36e995fd694e1627b73cc1b7fae82c8d38bf45"),
    ("he", 3, "ea680c0def27fd31053ae80cde55c868e4e2e008d1bea4fde587101611f74d11"),
    ("hr", 3, "cfa07412d6d9118406feddff563f3bf4142213b22068a25c7e940db589fd81b4"),
    ("hi", 3, "d6a682f5df460b604d155c9a1b8aef80ff9558bd23a78f0295c907dbf86ab960"),
    ("h0", 3, "04d4e0c44911406141269433545c9f0e652e7b230df739a0628e1515fd104269"),
    ("t", 3, "d1b18e00608942a48c28d780d3c4ec77e1551958abc00220708176503c53d8fa"),
    ("t2", 3, "9fab591c3c7997341cb22db9ab93dbde91a9d242c4f7f1bcf72a59477862cd5a"),
    ("tu", 3, "875f9a741494b0a4ce024fd26ef4ce8e2b426630429377584a535c8b875e83e6"),
    ("outer/in", 3, "49957ea4cc1ffd4fda769ca9453d1717a599a244475460015dcc5e769714e423"),
]


def _tf_events(logdir):
    (path,) = glob.glob(os.path.join(str(logdir), "events.out.tfevents.*"))
    return list(tf_ref.compat.v1.train.summary_iterator(path))


def test_tf_reads_values_byte_identical_to_tfs(tmp_path):
    writer = minitf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=3):
        for kind, name, data, kwargs in CASES:
            getattr(minitf.summary, kind)(name, data, **kwargs)
        with minitf.name_scope("outer"):
            minitf.summary.scalar("in", 1.0)
    writer.close()
    events = _tf_events(tmp_path)
    assert events[0].file_version == "brain.Event:2"
    assert events[0].source_metadata.writer == "tensorflow.core.util.events_writer"
    got = [(e.summary.value[0].tag, e.step,
            hashlib.sha256(e.summary.value[0].SerializeToString()).hexdigest()) for e in events[1:]]
    assert got == TF_VALUES


def test_tf_decodes_the_images(tmp_path):
    floats = np.random.RandomState(0).rand(3, 4, 5, 3).astype("float32")
    ints = np.random.RandomState(1).randint(0, 2 ** 16, (1, 2, 3, 4)).astype("uint16")
    writer = minitf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        minitf.summary.image("f", floats, max_outputs=2, description="floats")
        minitf.summary.image("u", ints)
    writer.close()
    for event, data, count in zip(_tf_events(tmp_path)[1:], (floats, ints), (2, 1)):
        value = event.summary.value[0]
        assert value.metadata.plugin_data.plugin_name == "images"
        assert value.metadata.SerializeToString() == tf_ref.compat.v1.SummaryMetadata(
            plugin_data={"plugin_name": "images"},
            summary_description="floats" if count == 2 else "").SerializeToString()
        array = tf_ref.make_ndarray(value.tensor)
        assert list(array[:2]) == [str(data.shape[2]).encode(), str(data.shape[1]).encode()]
        assert len(array) == 2 + count
        expected = tf_ref.image.convert_image_dtype(data, tf_ref.uint8, saturate=True).numpy()
        for i in range(count):
            np.testing.assert_array_equal(tf_ref.io.decode_png(array[2 + i]).numpy(), expected[i])


def test_tf_reads_the_tensorboard_callback_layout(tmp_path):
    """Keras 3.15's tags and steps for this fit (weight paths under the Sequential's name)."""
    model = minitf.keras.Sequential([minitf.keras.Input((3,)), minitf.keras.layers.Dense(4, name="d1"),
                                     minitf.keras.layers.Dense(1, name="d2")], name="net")
    model.compile("sgd", "mse", metrics=["mae"])
    rng = np.random.RandomState(0)
    x, y = rng.rand(20, 3).astype("float32"), rng.rand(20, 1).astype("float32")
    callback = minitf.keras.callbacks.TensorBoard(str(tmp_path), histogram_freq=1, update_freq=2)
    model.fit(x, y, batch_size=5, epochs=1, validation_data=(x[:10], y[:10]), callbacks=[callback],
              verbose=0)

    def tags(run):
        return [(e.step, v.tag, v.metadata.plugin_data.plugin_name)
                for e in _tf_events(tmp_path / run)[1:] for v in e.summary.value]
    weights = [(0, f"net/{layer}/{w}/histogram", "histograms") for layer in ("d1", "d2")
               for w in ("kernel", "bias")]
    assert tags("train") == [
        (2, "batch_loss", "scalars"), (2, "batch_mae", "scalars"),
        (4, "batch_loss", "scalars"), (4, "batch_mae", "scalars"),
        (0, "epoch_loss", "scalars"), (0, "epoch_mae", "scalars"),
        (0, "epoch_learning_rate", "scalars")] + weights
    assert tags("validation") == [
        (4, "evaluation_loss_vs_iterations", "scalars"), (4, "evaluation_mae_vs_iterations", "scalars"),
        (0, "epoch_loss", "scalars"), (0, "epoch_mae", "scalars")]
