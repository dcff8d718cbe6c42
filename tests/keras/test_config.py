"""tf.keras.config and the image layout setting of tf.keras.backend."""
import pytest

import minitf as tf
from minitf.keras import backend


@pytest.fixture
def restore_layout():
    before = backend.image_data_format()
    yield
    backend.set_image_data_format(before)


def test_config_reexports_the_backend_settings():
    assert tf.keras.config.floatx() == tf.keras.backend.floatx() == "float32"
    assert tf.keras.config.epsilon() == tf.keras.backend.epsilon()
    assert tf.keras.config.image_data_format() == "channels_last"


def test_set_image_data_format_changes_the_default_of_conv_layers(restore_layout):
    tf.keras.config.set_image_data_format("channels_first")
    assert tf.keras.backend.image_data_format() == "channels_first"
    layer = tf.keras.layers.Conv2D(4, 3)
    assert layer.data_format == "channels_first"
    assert layer(tf.zeros([2, 3, 8, 8])).shape.as_list() == [2, 4, 6, 6]
    tf.keras.config.set_image_data_format("channels_last")
    assert tf.keras.layers.Conv2D(4, 3).data_format == "channels_last"


def test_set_image_data_format_rejects_other_values(restore_layout):
    with pytest.raises(ValueError, match="channels_first.*NHWC"):
        tf.keras.config.set_image_data_format("NHWC")
    assert tf.keras.backend.image_data_format() == "channels_last"


def test_enable_unsafe_deserialization_allows_lambda_bytecode():
    from minitf.layers import serialization
    config = tf.keras.layers.serialize(tf.keras.layers.Lambda(lambda t: t * 2.0))
    with serialization.SafeModeScope(True):
        with pytest.raises(ValueError, match="enable_unsafe_deserialization"):
            tf.keras.layers.deserialize(config)
    before = serialization._safe_mode.enabled
    try:
        tf.keras.config.enable_unsafe_deserialization()
        layer = tf.keras.layers.deserialize(config)
        assert float(layer(tf.constant(3.0))) == 6.0
    finally:
        serialization._safe_mode.enabled = before
