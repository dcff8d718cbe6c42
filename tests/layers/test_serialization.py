"""tf.keras.layers.serialize / deserialize, Lambda function configs and safe mode."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers
from minitf.layers import serialization as S


def plus_offset(x, offset=1.0):
    return x + offset


def _round_trip(layer, **kwargs):
    config = tf.keras.layers.serialize(layer)
    return config, tf.keras.layers.deserialize(config, **kwargs)


def _make_closure_lambda(scale):
    return layers.Lambda(lambda x, power=2.0: scale * x ** power, output_shape=lambda s: s)


@pytest.fixture
def restore_safe_mode():
    yield
    S._safe_mode.enabled = True


def test_reachable_from_keras_namespace():
    assert tf.keras.layers.serialize is S.serialize
    assert tf.keras.layers.deserialize is S.deserialize


def test_dense_with_initializer_and_regularizer_objects_round_trips():
    dense = layers.Dense(3, activation="relu", kernel_initializer=tf.keras.initializers.HeNormal(
        seed=7), kernel_regularizer=tf.keras.regularizers.L2(0.25),
        kernel_constraint=tf.keras.constraints.MaxNorm(2.0), name="d1")
    config, copy = _round_trip(dense)
    assert set(config) == {"module", "class_name", "config", "registered_name"}
    assert (config["module"], config["class_name"], config["registered_name"]) == \
        ("keras.layers", "Dense", None)
    assert isinstance(copy, layers.Dense) and copy is not dense
    assert copy.get_config() == dense.get_config()
    assert isinstance(copy.kernel_initializer, tf.keras.initializers.HeNormal)
    assert isinstance(copy.kernel_regularizer, tf.keras.regularizers.L2)
    assert copy.kernel_regularizer.l2 == pytest.approx(0.25)
    assert isinstance(copy.kernel_constraint, tf.keras.constraints.MaxNorm)


def test_built_layer_carries_build_config_and_is_rebuilt():
    dense = layers.Dense(2)
    dense(np.ones((4, 3), "float32"))
    config, copy = _round_trip(dense)
    assert tuple(config["build_config"]["input_shape"])[-1] == 3
    assert copy.built and copy.kernel.shape.as_list() == [3, 2]


@pytest.mark.parametrize("layer", [
    lambda: layers.Conv2D(4, 3, strides=2, padding="same", activation="tanh"),
    lambda: layers.BatchNormalization(momentum=0.9, epsilon=1e-4),
    lambda: layers.Dropout(0.3, seed=5),
], ids=["conv2d", "batchnorm", "dropout"])
def test_builtin_layers_round_trip(layer):
    original = layer()
    config, copy = _round_trip(original)
    assert config["class_name"] == type(original).__name__
    assert type(copy) is type(original)
    assert copy.get_config() == original.get_config()


def test_keras2_layout_is_accepted():
    layer = tf.keras.layers.deserialize({"class_name": "Dense", "config": {"units": 4}})
    assert isinstance(layer, layers.Dense) and layer.units == 4


def test_lambda_with_named_function_round_trips_in_safe_mode():
    lam = layers.Lambda(plus_offset, output_shape=(3,), arguments={"offset": 2.5})
    config = lam.get_config()
    assert config["function"] == {"module": "builtins", "class_name": "function",
                                  "config": "plus_offset", "registered_name": "function"}
    assert config["output_shape"] == (3,) and config["arguments"] == {"offset": 2.5}
    copy = tf.keras.layers.deserialize(tf.keras.layers.serialize(lam),
                                       custom_objects={"plus_offset": plus_offset})
    assert copy.function is plus_offset
    np.testing.assert_allclose(copy(tf.constant([[1.0, 2.0, 3.0]])).numpy(), [[3.5, 4.5, 5.5]])
    assert copy.compute_output_shape((7, 3)).as_list() == [7, 3]


def test_lambda_named_function_unknown_raises_type_error():
    config = tf.keras.layers.serialize(layers.Lambda(plus_offset))
    with pytest.raises(TypeError, match="plus_offset"):
        tf.keras.layers.deserialize(config)


def test_lambda_with_builtin_activation_needs_no_custom_objects():
    copy = layers.Lambda.from_config(layers.Lambda(tf.keras.activations.relu).get_config())
    np.testing.assert_allclose(copy(tf.constant([-1.0, 2.0])).numpy(), [0.0, 2.0])


def test_lambda_bytecode_is_refused_in_safe_mode():
    config = tf.keras.layers.serialize(_make_closure_lambda(3.0))
    assert config["config"]["function"]["class_name"] == "__lambda__"
    with pytest.raises(ValueError, match="safe_mode=False") as info:
        tf.keras.layers.deserialize(config)
    assert "enable_unsafe_deserialization" in str(info.value)
    with pytest.raises(ValueError, match="Lambda"):
        layers.Lambda.from_config(config["config"])


def test_lambda_with_closure_loads_with_safe_mode_off():
    lam = _make_closure_lambda(3.0)
    fn_config = lam.get_config()["function"]["config"]
    assert fn_config["closure"] == (3.0,) and fn_config["defaults"] == (2.0,)
    copy = layers.Lambda.from_config(lam.get_config(), safe_mode=False)
    assert copy.function is not lam.function
    x = tf.constant([1.0, -2.0])
    np.testing.assert_allclose(copy(x).numpy(), lam(x).numpy())
    np.testing.assert_allclose(copy(x).numpy(), [3.0, 12.0])
    assert tuple(copy.compute_output_shape((5, 2))) == (5, 2)  # output_shape lambda reloaded


def test_unsafe_scope_and_global_switch(restore_safe_mode):
    config = tf.keras.layers.serialize(_make_closure_lambda(0.5))
    with S.SafeModeScope(False):
        copy = tf.keras.layers.deserialize(config)
    np.testing.assert_allclose(copy(tf.constant([2.0])).numpy(), [2.0])
    assert S.in_safe_mode()
    with pytest.raises(ValueError):
        tf.keras.layers.deserialize(config)
    S.enable_unsafe_deserialization()
    assert not S.in_safe_mode()
    assert isinstance(tf.keras.layers.deserialize(config), layers.Lambda)


def test_sequential_with_named_lambda_round_trips_through_model_config():
    model = tf.keras.Sequential([tf.keras.Input((2,)), layers.Lambda(plus_offset), layers.Dense(1)])
    with pytest.raises(TypeError, match="plus_offset"):   # Keras also needs custom_objects here
        tf.keras.Sequential.from_config(model.get_config())
    copy = tf.keras.Sequential.from_config(model.get_config(), custom_objects={"plus_offset": plus_offset})
    lam = copy.layers[0]
    assert isinstance(lam, layers.Lambda) and lam.function is plus_offset
    assert copy(np.ones((3, 2), "float32")).shape.as_list() == [3, 1]


class Scale(layers.Layer):
    """A custom layer with one constructor argument."""

    def __init__(self, factor=1.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, inputs):
        return inputs * self.factor

    def get_config(self):
        return dict(super().get_config(), factor=self.factor)


def test_custom_layer_through_custom_objects():
    config = tf.keras.layers.serialize(Scale(4.0, name="sc"))
    assert config["class_name"] == "Scale" and config["registered_name"] == "Scale"
    assert config["module"] == __name__
    copy = tf.keras.layers.deserialize(config, custom_objects={"Scale": Scale})
    assert isinstance(copy, Scale) and copy.factor == 4.0 and copy.name == "sc"
    np.testing.assert_allclose(copy(tf.constant([1.5])).numpy(), [6.0])


def test_unknown_class_raises_type_error_naming_it():
    with pytest.raises(TypeError, match="'Scale'"):
        tf.keras.layers.deserialize(tf.keras.layers.serialize(Scale(2.0)))
    with pytest.raises(TypeError, match="NoSuchLayer"):
        tf.keras.layers.deserialize({"class_name": "NoSuchLayer", "config": {}})


def test_non_layer_config_raises_value_error():
    reg = {"module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.1},
           "registered_name": None}
    with pytest.raises(ValueError, match="not a `keras.layers.Layer`"):
        tf.keras.layers.deserialize(reg)
    with pytest.raises(ValueError):
        tf.keras.layers.deserialize("Dense")


# -- comparison with TensorFlow (skipped when it is not installed) --------------------------------
def test_dense_dict_has_tf_top_level_keys():
    tf_real = pytest.importorskip("tensorflow")
    theirs = tf_real.keras.layers.serialize(tf_real.keras.layers.Dense(3))
    ours = tf.keras.layers.serialize(layers.Dense(3))
    assert set(ours) == set(theirs)
    assert (ours["module"], ours["class_name"]) == (theirs["module"], theirs["class_name"])


@pytest.mark.parametrize("make", [
    lambda k: k.layers.Dense(3, activation="relu", kernel_regularizer="l2"),
    lambda k: k.layers.Conv2D(2, 3, padding="same"),
    lambda k: k.layers.Dropout(0.25),
], ids=["dense", "conv2d", "dropout"])
def test_tf_config_builds_a_working_minitf_layer(make):
    tf_real = pytest.importorskip("tensorflow")
    theirs = make(tf_real.keras)
    x = np.random.default_rng(0).standard_normal((2, 5, 5, 3)).astype("float32")
    theirs(x)
    ours = tf.keras.layers.deserialize(tf_real.keras.layers.serialize(theirs))
    assert type(ours).__name__ == type(theirs).__name__
    if theirs.weights:
        ours.set_weights([w.numpy() for w in theirs.weights])
    np.testing.assert_allclose(ours(x).numpy(), theirs(x).numpy(), rtol=1e-5, atol=1e-5)


def test_tf_lambda_config_loads_with_safe_mode_off():
    tf_real = pytest.importorskip("tensorflow")
    offset = 4.0
    theirs = tf_real.keras.layers.Lambda(lambda x: x * 2.0 + offset)
    config = tf_real.keras.layers.serialize(theirs)
    with pytest.raises(ValueError, match="safe_mode"):
        tf.keras.layers.deserialize(config)
    ours = layers.Lambda.from_config(config["config"], safe_mode=False)
    np.testing.assert_allclose(ours(tf.constant([1.0])).numpy(), [6.0])
