"""keras.utils names that TF 2.21 exports next to their keras.backend / data-adapter homes."""
import numpy as np
import pytest

import minitf as tf

utils = tf.keras.utils


def test_aliases_are_the_backend_functions():
    assert utils.clear_session is tf.keras.backend.clear_session
    assert utils.is_keras_tensor is tf.keras.backend.is_keras_tensor
    assert utils.standardize_dtype is tf.keras.backend.standardize_dtype
    assert utils.is_keras_tensor(tf.keras.Input((2,))) and not utils.is_keras_tensor(tf.ones(2))
    assert utils.standardize_dtype(None) == "float32" and utils.standardize_dtype(np.int8) == "int8"
    with pytest.raises(ValueError, match="Invalid dtype"):
        utils.standardize_dtype("float")


def test_pack_and_unpack():
    x, y, w = np.ones(2), np.zeros(2), np.full(2, 0.5)
    assert utils.pack_x_y_sample_weight(x) is x
    assert utils.pack_x_y_sample_weight([x, x]) == ([x, x],)
    assert utils.pack_x_y_sample_weight(x, y) == (x, y)
    assert utils.pack_x_y_sample_weight(x, y, w) == (x, y, w)
    assert utils.pack_x_y_sample_weight(x, None, w) is x  # Keras drops a weight without labels
    assert utils.unpack_x_y_sample_weight(x) == (x, None, None)
    assert utils.unpack_x_y_sample_weight([x, y]) == (x, y, None)
    assert utils.unpack_x_y_sample_weight((x, y, w)) == (x, y, w)
    with pytest.raises(ValueError, match="Data is expected to be in format"):
        utils.unpack_x_y_sample_weight((x, y, w, w))


def test_custom_train_step_uses_them():
    class M(tf.keras.Model):
        def train_step(self, data):
            x, y, _ = utils.unpack_x_y_sample_weight(data)
            return super().train_step(utils.pack_x_y_sample_weight(x, y))

    inputs = tf.keras.Input((2,))
    model = M(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile("sgd", "mse")
    history = model.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_pack_and_unpack_match_keras():
    keras_tf = pytest.importorskip("tensorflow").keras
    x, y, w = np.ones(2), np.zeros(2), np.full(2, 0.5)
    for args in [(x,), ([x, x],), ((x,),), (x, y), (x, y, w), (x, None, w)]:
        ours, theirs = utils.pack_x_y_sample_weight(*args), keras_tf.utils.pack_x_y_sample_weight(*args)
        assert type(ours) is type(theirs) and repr(ours) == repr(theirs)
    for data in [x, (x,), [x, y], (x, y, w)]:
        assert repr(utils.unpack_x_y_sample_weight(data)) == repr(keras_tf.utils.unpack_x_y_sample_weight(data))
