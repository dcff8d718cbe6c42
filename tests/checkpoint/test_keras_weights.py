"""'.weights.h5' files in Keras 3's layout, with Module stand-ins and (if present) real layers."""
import h5py
import numpy as np
import pytest

import minitf as tf
from minitf.checkpoint import keras_weights


class Dense(tf.Module):
    """A stand-in Dense layer: kernel then bias, Keras 3 order via `_weights`."""

    def __init__(self, n_in, n_out, name, seed):
        super().__init__(name=name)
        rng = np.random.default_rng(seed)
        self._weights = [("kernel", tf.Variable(rng.normal(size=(n_in, n_out)))),
                         ("bias", tf.Variable(rng.normal(size=(n_out,))))]

    def _checkpoint_dependencies(self):
        return list(self._weights)  # as Layer does: weights by their add_weight names


class FakeSequential(tf.Module):
    """A stand-in Sequential with a `layers` list."""

    def __init__(self, seed=0):
        super().__init__(name="sequential")
        self.layers = [Dense(3, 4, "dense", seed), Dense(4, 2, "dense_1", seed + 1)]


def test_layout_matches_keras3(tmp_path):
    model = FakeSequential()
    path = str(tmp_path / "m.weights.h5")
    keras_weights.save_weights(model, path)
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(f["layers/dense/vars/0"][...], model.layers[0]._weights[0][1].numpy())
        np.testing.assert_array_equal(f["layers/dense_1/vars/1"][...], model.layers[1]._weights[1][1].numpy())
        assert "vars" in f and len(f["vars"]) == 0


def test_round_trip_and_all_or_nothing_mismatch(tmp_path):
    src, dst = FakeSequential(0), FakeSequential(10)
    path = str(tmp_path / "m.weights.h5")
    keras_weights.save_weights(src, path)
    keras_weights.load_weights(dst, path)
    for a, b in zip(src.layers, dst.layers):
        for (_, va), (_, vb) in zip(a._weights, b._weights):
            np.testing.assert_array_equal(va.numpy(), vb.numpy())

    wrong = FakeSequential(20)
    wrong.layers[1] = Dense(4, 3, "other_name", 3)
    before = wrong.layers[0]._weights[0][1].numpy().copy()
    with pytest.raises(ValueError, match=r"other_name.*\(4, 3\).*\(4, 2\)"):
        keras_weights.load_weights(wrong, path)
    np.testing.assert_array_equal(wrong.layers[0]._weights[0][1].numpy(), before)
    with pytest.warns(UserWarning, match="other_name"):
        keras_weights.load_weights(wrong, path, skip_mismatch=True)
    np.testing.assert_array_equal(wrong.layers[0]._weights[0][1].numpy(),
                                  src.layers[0]._weights[0][1].numpy())


def test_other_paths_use_tf_checkpoint_format(tmp_path):
    src, dst = FakeSequential(0), FakeSequential(5)
    prefix = str(tmp_path / "ckpt")
    keras_weights.save_weights(src, prefix)
    keras_weights.load_weights(dst, prefix).assert_consumed()
    np.testing.assert_array_equal(dst.layers[1]._weights[0][1].numpy(),
                                  src.layers[1]._weights[0][1].numpy())


def test_real_sequential_model(tmp_path):
    def build():
        m = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(2)])
        m(tf.constant(np.ones((1, 3), np.float32)))
        return m
    src, dst = build(), build()
    path = str(tmp_path / "s.weights.h5")
    src.save_weights(path)
    with h5py.File(path, "r") as f:
        assert sorted(f["layers"].keys()) == ["dense", "dense_1"]  # class names, not layer names
        np.testing.assert_array_equal(f["layers/dense/vars/0"][...], src.layers[0].kernel.numpy())
    dst.load_weights(path)
    for a, b in zip(src.weights, dst.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_missing_file_raises_what_keras3_raises(tmp_path):
    model = FakeSequential()
    # Keras 3: FileNotFoundError for '.h5' / '.weights.h5' paths, ValueError for other paths
    for name in ("missing.weights.h5", "missing.h5", "no_dir/missing.weights.h5"):
        with pytest.raises(FileNotFoundError, match="missing"):
            keras_weights.load_weights(model, str(tmp_path / name))
    with pytest.raises(ValueError, match="missing_ckpt"):
        keras_weights.load_weights(model, str(tmp_path / "missing_ckpt"))
    with pytest.raises(ValueError, match="missing.keras"):
        keras_weights.load_weights(model, str(tmp_path / "missing.keras"))


def _groups(path):
    with h5py.File(path, "r") as f:
        found = []
        f.visititems(lambda k, v: found.append(k) if isinstance(v, h5py.Dataset) else None)
    return sorted(found)


def test_group_names_follow_keras_snake_case_and_classes(tmp_path):
    # Group names as real Keras 3.15 writes them for these models (checked against TF 2.21)
    L = tf.keras.layers
    inner_in = tf.keras.Input((5,))
    inner = tf.keras.Model(inner_in, L.Dense(4)(inner_in))  # a nested functional model
    inp = tf.keras.Input((6, 6, 2))
    x = L.Conv2D(3, 3)(inp)
    x = L.DepthwiseConv2D(3, padding="same")(x)
    x = L.SeparableConv2D(2, 1)(x)
    x = L.Conv2DTranspose(2, 2)(x)
    x = L.Conv1D(5, 1)(L.Reshape((25, 2))(x))
    out = inner(L.Flatten()(x)[:, :5])
    model = tf.keras.Model(inp, out)
    path = str(tmp_path / "f.weights.h5")
    model.save_weights(path)
    assert _groups(path) == [
        "layers/conv1d/vars/0", "layers/conv1d/vars/1",
        "layers/conv2d/vars/0", "layers/conv2d/vars/1",
        "layers/conv2d_transpose/vars/0", "layers/conv2d_transpose/vars/1",
        "layers/depthwise_conv2d/vars/0", "layers/depthwise_conv2d/vars/1",
        "layers/functional/layers/dense/vars/0", "layers/functional/layers/dense/vars/1",
        "layers/separable_conv2d/vars/0", "layers/separable_conv2d/vars/1",
        "layers/separable_conv2d/vars/2"]


def test_private_attributes_and_nested_lists_as_keras_walks_them(tmp_path):
    L = tf.keras.layers

    class Block(L.Layer):
        def __init__(self):
            super().__init__()
            self.z = L.Dense(2)
            self._a = L.Dense(2)      # private: visited after the public names
            self.stages = [L.Dense(2), [L.Dense(2), L.Conv1D(2, 1)]]

        def call(self, x):
            x = self._a(self.z(x))
            x = self.stages[1][0](self.stages[0](x))
            return self.stages[1][1](x[:, None, :])

    block = Block()
    block(tf.zeros((1, 3)))
    path = str(tmp_path / "b.weights.h5")

    class Holder(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.block = block

        def call(self, x):
            return self.block(x)
    model = Holder()
    model(tf.zeros((1, 3)))
    model.save_weights(path)
    names = sorted({p.rsplit("/vars/", 1)[0] for p in _groups(path)})
    assert names == ["block/_a", "block/stages/container/conv1d",
                     "block/stages/container/dense", "block/stages/dense", "block/z"]
