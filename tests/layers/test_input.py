"""tf.keras.Input and InputLayer: Keras 3's default names."""
import minitf as tf


def test_default_names_are_keras_3s():
    tf.keras.backend.clear_session()
    first, named = tf.keras.Input((3,)), tf.keras.Input((3,), name="features")
    assert first.name == "keras_tensor" and named.name == "features"
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    assert model.inputs[0].name == "keras_tensor_1" and model.input_names == ["input_layer_1"]
