"""'.weights.h5' interop with real Keras 3: files written by one side load in the other and give
the same outputs, for Sequential, functional and subclassed models with the conv family,
BatchNormalization, Embedding, LayerNormalization, Dense and nested layers/models."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")


def _make(tf, kind):
    """The same architecture in TF (`tf` = tensorflow) or minitf (`tf` = minitf): (model, x)."""
    keras = tf.keras
    L = keras.layers
    rng = np.random.RandomState(0)
    if kind == "sequential_conv":
        model = keras.Sequential([
            keras.Input((8, 8, 3)),
            L.Conv2D(4, 3, padding="same"), L.BatchNormalization(),
            L.DepthwiseConv2D(3, padding="same"), L.SeparableConv2D(5, 3),
            L.Conv2DTranspose(3, 3, strides=2), L.Flatten(), L.Dense(4),
            L.LayerNormalization(), L.Dense(2)])
        return model, rng.normal(size=(2, 8, 8, 3)).astype("float32")
    if kind == "sequential_text":
        model = keras.Sequential([
            keras.Input((10,), dtype="int32"), L.Embedding(20, 6), L.Conv1D(4, 3),
            L.LayerNormalization(), L.GlobalAveragePooling1D(), L.Dense(3)])
        return model, rng.randint(0, 20, size=(2, 10)).astype("int32")
    if kind == "functional":
        inner_seq = keras.Sequential([keras.Input((6,)), L.Dense(5), L.BatchNormalization()])
        inner_in = keras.Input((5,))
        inner_fn = keras.Model(inner_in, L.Dense(4)(L.LayerNormalization()(inner_in)))
        inp = keras.Input((6, 6, 2))
        x = L.Conv2D(3, 2)(inp)
        x = L.SeparableConv2D(3, 2)(x)
        x = L.DepthwiseConv2D(2)(x)
        x = L.Conv2DTranspose(3, 2)(x)
        x = L.Conv1D(2, 2)(L.Reshape((16, 3))(x))
        x = L.Dense(6)(L.Flatten()(x))
        x = inner_seq(x)
        model = keras.Model(inp, [inner_fn(x), L.Dense(1)(x)])
        return model, rng.normal(size=(2, 6, 6, 2)).astype("float32")
    if kind == "subclassed":
        class Block(L.Layer):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.conv = L.Conv2D(3, 3, padding="same")
                self.bn = L.BatchNormalization()
                self._private = L.Conv2D(3, 1)
                self.convs = [L.DepthwiseConv2D(3, padding="same"), L.SeparableConv2D(3, 1),
                              [L.Conv2D(3, 1), L.Dense(3)]]

            def call(self, x, training=False):
                x = self._private(self.bn(self.conv(x), training=training))
                for layer in self.convs[:2] + self.convs[2]:
                    x = layer(x)
                return x

        class Net(keras.Model):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.block = Block()
                self.up = L.Conv2DTranspose(2, 2, strides=2)
                self._head = L.Dense(3)
                self.norm = L.LayerNormalization()
                self.emb = L.Embedding(7, 4)
                self.seq = keras.Sequential([L.Dense(4), L.Dense(2)])
                self.conv1d = L.Conv1D(2, 3)

            def call(self, x, training=False):
                h = self.up(self.block(x, training=training))
                c = tf.reduce_mean(self.conv1d(tf.reshape(h, (-1, 64, 2))), axis=1)
                h = self.norm(self._head(tf.reshape(h, (-1, 128))))
                ids = tf.constant([[1, 6], [3, 0]], dtype="int32")
                e = tf.reduce_mean(self.emb(ids), axis=1)
                return self.seq(tf.concat([h, e, c], axis=-1))

        model = Net()
        x = rng.normal(size=(2, 4, 4, 2)).astype("float32")
        model(x)
        return model, x
    raise ValueError(kind)


KINDS = ["sequential_conv", "sequential_text", "functional", "subclassed"]


def _randomize(model, seed):
    """Give every weight (moving statistics included) distinct values, positive for variances."""
    rng = np.random.RandomState(seed)
    model.set_weights([rng.uniform(0.5, 1.5, size=w.shape).astype(w.dtype)
                       for w in model.get_weights()])


def _outputs(model, x):
    out = model(x, training=False)
    out = out if isinstance(out, (list, tuple)) else [out]
    return [np.asarray(o) for o in out]


@pytest.mark.parametrize("kind", KINDS)
def test_keras_file_loads_in_minitf(kind, tmp_path):
    path = str(tmp_path / f"{kind}.weights.h5")
    ref, x = _make(tf_ref, kind)
    _randomize(ref, 1)
    ref.save_weights(path)
    mine, _ = _make(minitf, kind)
    _randomize(mine, 2)
    mine.load_weights(path)
    for a, b in zip(ref.get_weights(), mine.get_weights()):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(_outputs(ref, x), _outputs(mine, x)):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("kind", KINDS)
def test_minitf_file_loads_in_keras(kind, tmp_path):
    path = str(tmp_path / f"{kind}.weights.h5")
    mine, x = _make(minitf, kind)
    _randomize(mine, 3)
    mine.save_weights(path)
    ref, _ = _make(tf_ref, kind)
    _randomize(ref, 4)
    ref.load_weights(path)
    for a, b in zip(mine.get_weights(), ref.get_weights()):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(_outputs(mine, x), _outputs(ref, x)):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)
