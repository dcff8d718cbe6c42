"""Conv3D, Conv3DTranspose, Conv1DTranspose, PReLU, UnitNormalization, ConvLSTM1D/2D/3D and the
3-D pooling/reshaping layers move between real Keras 3 and minitf: '.weights.h5' and whole '.keras'
files written by one side load in the other with the same weights and outputs, and the same model
trained one step from the same weights gives the same gradients."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")

KINDS = ["volumes", "sequences", "video"]


def _make(tf, kind):
    """The same architecture in TF or minitf: (model, input batch)."""
    keras = tf.keras
    L = keras.layers
    rng = np.random.RandomState(0)
    if kind == "volumes":
        model = keras.Sequential([
            keras.Input((4, 6, 6, 2)),
            L.Conv3D(4, 3, padding="same"), L.PReLU(shared_axes=[1, 2, 3]),
            L.MaxPooling3D((1, 2, 2)), L.Conv3D(4, (1, 2, 2), groups=2),
            L.Conv3DTranspose(3, 2, strides=2, data_format="channels_last"),
            L.ZeroPadding3D(((0, 1), 1, 0)), L.Cropping3D((1, 0, 1)), L.UpSampling3D((1, 2, 1)),
            L.AveragePooling3D(2, padding="same"), L.UnitNormalization(),
            L.GlobalMaxPooling3D(), L.Dense(2)])
        return model, rng.normal(size=(2, 4, 6, 6, 2)).astype("float32")
    if kind == "sequences":
        inp = keras.Input((7, 3))
        h = L.Conv1DTranspose(4, 3, strides=2, padding="same")(inp)
        h = L.PReLU()(h)
        h = L.Conv1DTranspose(2, 2, dilation_rate=2)(h)
        model = keras.Model(inp, [L.GlobalAveragePooling1D()(h), L.UnitNormalization(axis=[1, 2])(h)])
        return model, rng.normal(size=(2, 7, 3)).astype("float32")
    inp = keras.Input((3, 5, 5, 2))
    h = L.ConvLSTM2D(3, 3, padding="same", return_sequences=True)(inp)
    h = L.Reshape((3, 5, 5, 3, 1))(h)
    h = L.ConvLSTM3D(2, 2, return_sequences=True, go_backwards=True)(h)
    h = L.Reshape((3, 4 * 4 * 2, 2))(h)
    out = L.ConvLSTM1D(2, 3, strides=2)(h)
    model = keras.Model(inp, L.Dense(2)(L.Flatten()(out)))
    return model, rng.normal(size=(2, 3, 5, 5, 2)).astype("float32")


def _randomize(model, seed):
    rng = np.random.RandomState(seed)
    model.set_weights([rng.normal(scale=0.4, size=w.shape).astype(w.dtype) for w in model.get_weights()])


def _outputs(model, x):
    out = model(x)
    return [np.asarray(o) for o in (out if isinstance(out, (list, tuple)) else [out])]


def _same(a, b, x):
    assert [w.shape for w in a.get_weights()] == [w.shape for w in b.get_weights()]
    for u, v in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_array_equal(u, v)
    for u, v in zip(_outputs(a, x), _outputs(b, x)):
        np.testing.assert_allclose(u, v, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("kind", KINDS)
def test_keras_weights_file_loads_in_minitf(kind, tmp_path):
    ref, x = _make(tf_ref, kind)
    _randomize(ref, 1)
    ref.save_weights(str(tmp_path / "m.weights.h5"))
    mine, _ = _make(minitf, kind)
    _randomize(mine, 2)
    mine.load_weights(str(tmp_path / "m.weights.h5"))
    _same(ref, mine, x)


@pytest.mark.parametrize("kind", KINDS)
def test_minitf_weights_file_loads_in_keras(kind, tmp_path):
    mine, x = _make(minitf, kind)
    _randomize(mine, 3)
    mine.save_weights(str(tmp_path / "m.weights.h5"))
    ref, _ = _make(tf_ref, kind)
    _randomize(ref, 4)
    ref.load_weights(str(tmp_path / "m.weights.h5"))
    _same(mine, ref, x)


@pytest.mark.parametrize("kind", KINDS)
def test_whole_keras_files_move_both_ways(kind, tmp_path):
    ref, x = _make(tf_ref, kind)
    _randomize(ref, 5)
    ref.save(tmp_path / "ref.keras")
    _same(ref, minitf.keras.models.load_model(tmp_path / "ref.keras"), x)
    mine, _ = _make(minitf, kind)
    _randomize(mine, 6)
    mine.save(tmp_path / "mine.keras")
    _same(mine, tf_ref.keras.models.load_model(tmp_path / "mine.keras"), x)


@pytest.mark.parametrize("kind", KINDS)
def test_gradients_agree(kind):
    grads = []
    for lib in (tf_ref, minitf):
        model, x = _make(lib, kind)
        _randomize(model, 7)
        x = lib.constant(x)
        with lib.GradientTape() as tape:
            tape.watch(x)
            outs = model(x)
            outs = outs if isinstance(outs, (list, tuple)) else [outs]
            loss = sum(lib.reduce_sum(o * o) for o in outs)
        grads.append([np.asarray(g) for g in tape.gradient(loss, [x] + model.trainable_weights)])
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)
