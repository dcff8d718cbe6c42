"""Model.get_config / from_config for Sequential, functional and subclassed models."""
import json

import numpy as np
import pytest

import minitf as tf
from minitf.layers.serialization import SafeModeScope

L = tf.keras.layers


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def _assert_same_outputs(a, b, inputs):
    b.set_weights(a.get_weights())
    out_a, out_b = a(inputs), b(inputs)
    out_a = out_a if isinstance(out_a, (list, tuple)) else [out_a]
    out_b = out_b if isinstance(out_b, (list, tuple)) else [out_b]
    assert len(out_a) == len(out_b)
    for x, y in zip(out_a, out_b):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


def _two_in_two_out():
    a = tf.keras.Input((3,), name="in_a")
    b = tf.keras.Input((2,), name="in_b")
    shared = L.Dense(4, activation="tanh", name="shared")
    merged = L.Concatenate(name="cat")([shared(a), L.Dense(4, name="proj_b")(b)])
    first = shared(L.Dense(3, name="down")(merged))      # the shared layer's second call
    second = L.Add(name="add")([L.Dense(4, name="head")(merged), first])
    return tf.keras.Model([a, b], [first, second], name="two_by_two")


def test_sequential_config_layout_and_round_trip():
    model = tf.keras.Sequential([tf.keras.Input((5,)), L.Dense(4, activation="relu"),
                                 L.Dropout(0.5), L.Dense(2)], name="seq")
    config = model.get_config()
    assert config["name"] == "seq"
    assert [e["class_name"] for e in config["layers"]] == ["InputLayer", "Dense", "Dropout",
                                                            "Dense"]
    assert config["layers"][1]["config"]["units"] == 4
    assert tuple(config["build_input_shape"]) == (None, 5)
    again = tf.keras.Sequential.from_config(json.loads(json.dumps(config)))
    assert isinstance(again, tf.keras.Sequential) and again.built
    assert [type(x).__name__ for x in again.layers] == ["Dense", "Dropout", "Dense"]
    assert again.layers[0] is not model.layers[0]
    _assert_same_outputs(model, again, _rand(3, 5))


def test_sequential_without_input_rebuilds_unbuilt():
    model = tf.keras.Sequential([L.Dense(3), L.Dense(1)])
    config = model.get_config()
    assert "build_input_shape" not in config
    assert all(e["class_name"] == "Dense" for e in config["layers"])
    again = tf.keras.Sequential.from_config(config)
    assert not again.built and len(again.layers) == 2
    assert again(_rand(2, 4)).shape == (2, 1)


def _histories(node):
    """The [layer, node index, tensor index] of every symbolic tensor in a Keras 3 node entry."""
    found = []

    def walk(x):
        if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
            found.append(x["config"]["keras_history"])
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk([node["args"], node["kwargs"]])
    return found


def test_functional_config_layout():
    model = _two_in_two_out()
    config = model.get_config()
    assert config["name"] == "two_by_two"
    assert config["input_layers"] == [["in_a", 0, 0], ["in_b", 0, 0]]
    assert config["output_layers"] == [["shared", 1, 0], ["add", 0, 0]]
    by_name = {e["name"]: e for e in config["layers"]}
    assert set(by_name) == {"in_a", "in_b", "shared", "proj_b", "cat", "down", "head", "add"}
    assert by_name["in_a"]["class_name"] == "InputLayer"
    assert by_name["in_a"]["inbound_nodes"] == []
    # Keras 3's node layout; called twice: two inbound nodes, the second reading 'down''s output.
    shared = by_name["shared"]["inbound_nodes"]
    assert [_histories(n) for n in shared] == [[["in_a", 0, 0]], [["down", 0, 0]]]
    assert shared[0]["args"][0]["config"] == {"shape": [None, 3], "dtype": "float32",
                                              "keras_history": ["in_a", 0, 0]}
    assert [_histories(n) for n in by_name["cat"]["inbound_nodes"]] == [[["shared", 0, 0], ["proj_b", 0, 0]]]
    assert _histories(by_name["add"]["inbound_nodes"][0]) == [["head", 0, 0], ["shared", 1, 0]]


def test_functional_round_trip_two_inputs_two_outputs_shared_layer():
    model = _two_in_two_out()
    config = json.loads(json.dumps(model.get_config()))
    again = tf.keras.Model.from_config(config)
    assert again.name == model.name
    assert [x.name for x in again.layers] == [x.name for x in model.layers]
    assert again.input_names == ["in_a", "in_b"] and len(again.outputs) == 2
    assert len(again.weights) == len(model.weights) == 8   # shared weights counted once
    _assert_same_outputs(model, again, [_rand(4, 3), _rand(4, 2, seed=1)])
    assert json.loads(json.dumps(again.get_config())) == config


def test_nested_models_and_lambda_round_trip():
    inner_in = tf.keras.Input((4,))
    inner = tf.keras.Model(inner_in, L.Dense(2, name="inner_dense")(inner_in), name="inner")
    seq = tf.keras.Sequential([tf.keras.Input((2,)), L.Dense(3)], name="inner_seq")
    x = tf.keras.Input((4,), name="x")
    y = L.Lambda(lambda t: t * 3.0 + 1.0, name="affine")(seq(inner(x)))
    z = inner(L.Dense(4)(x))     # the nested model called a second time
    model = tf.keras.Model(x, [y, z])
    config = model.get_config()
    kinds = {e["name"]: e["class_name"] for e in config["layers"]}
    assert kinds["inner"] == "Functional" and kinds["inner_seq"] == "Sequential"
    assert len(next(e for e in config["layers"] if e["name"] == "inner")["inbound_nodes"]) == 2
    with pytest.raises(ValueError, match="safe_mode"):   # a lambda's bytecode, as in Keras
        tf.keras.Model.from_config(config)
    with SafeModeScope(False):
        again = tf.keras.Model.from_config(config)
    assert type(again.get_layer("inner")) is tf.keras.Model
    assert isinstance(again.get_layer("inner_seq"), tf.keras.Sequential)
    _assert_same_outputs(model, again, _rand(3, 4))


def test_call_kwargs_and_dict_inputs_survive():
    a = tf.keras.Input((3,), name="a")
    b = tf.keras.Input((3,), name="b")
    drop = L.Dropout(0.9)(a, training=False)   # a fixed call kwarg
    model = tf.keras.Model({"a": a, "b": b}, L.Add()([drop, b]))
    config = model.get_config()
    drop_entry = next(e for e in config["layers"] if e["class_name"] == "Dropout")
    assert drop_entry["inbound_nodes"][0]["kwargs"] == {"training": False}
    again = tf.keras.Model.from_config(config)
    data = {"a": _rand(2, 3), "b": _rand(2, 3, seed=1)}
    # the node's own training=False holds while the model's call leaves training unset ...
    np.testing.assert_allclose(again(data).numpy(), data["a"] + data["b"], rtol=1e-6)
    # ... and, as in Keras 3 (Functional's operation_fn), a training value given to the model
    # replaces it: the dropout runs (each element dropped, or kept and scaled by 1/0.1)
    big = {"a": np.ones((64, 3), "float32"), "b": np.zeros((64, 3), "float32")}
    out = again(big, training=True).numpy()
    assert set(np.round(out, 4).ravel()) <= {0.0, 10.0} and (out == 0).any()


def test_keras3_node_layout_is_read():
    dense = L.Dense(2, name="d").get_config()
    config = {
        "name": "k3", "input_layers": [["inp", 0, 0]], "output_layers": [["d", 0, 0]],
        "layers": [
            {"class_name": "InputLayer", "name": "inp", "inbound_nodes": [],
             "config": {"batch_input_shape": [None, 3], "dtype": "float32", "name": "inp"}},
            {"class_name": "Dense", "name": "d", "config": dense, "inbound_nodes": [
                {"args": [{"class_name": "__keras_tensor__",
                           "config": {"shape": [None, 3], "dtype": "float32",
                                      "keras_history": ["inp", 0, 0]}}], "kwargs": {}}]}]}
    model = tf.keras.Model.from_config(config)
    assert model(_rand(5, 3)).shape == (5, 2)
    assert _histories(model.get_config()["layers"][1]["inbound_nodes"][0]) == [["inp", 0, 0]]


def test_keras2_node_layout_is_still_read():
    dense = L.Dense(2, name="d").get_config()
    config = {
        "name": "k2", "input_layers": [["inp", 0, 0]], "output_layers": [["d", 0, 0]],
        "layers": [
            {"class_name": "InputLayer", "name": "inp", "inbound_nodes": [],
             "config": {"batch_input_shape": [None, 3], "dtype": "float32", "name": "inp"}},
            {"class_name": "Dense", "name": "d", "config": dense, "inbound_nodes": [[["inp", 0, 0, {}]]]}]}
    assert tf.keras.Model.from_config(config)(_rand(5, 3)).shape == (5, 2)


def test_unknown_layer_needs_custom_objects():
    class Doubler(L.Layer):
        def call(self, inputs):
            return inputs * 2.0
    x = tf.keras.Input((2,))
    model = tf.keras.Model(x, Doubler(name="dbl")(x))
    config = model.get_config()
    with pytest.raises(TypeError, match="Could not locate class 'Doubler'"):  # Keras 3's error
        tf.keras.Model.from_config(config)
    again = tf.keras.Model.from_config(config, custom_objects={"Doubler": Doubler})
    np.testing.assert_allclose(again(np.ones((1, 2), "float32")).numpy(), [[2.0, 2.0]])


def test_lambda_with_an_unknown_function_name_cannot_be_rebuilt():
    x = tf.keras.Input((2,))
    config = tf.keras.Model(x, L.Lambda(lambda t: t)(x)).get_config()
    config["layers"][1]["config"]["function"] = "no_such_function"
    with pytest.raises(TypeError, match="no_such_function"):
        tf.keras.Model.from_config(config)


def test_clone_model_keeps_lambda_callables_in_safe_mode():
    scale = 3.0
    x = tf.keras.Input((2,))
    model = tf.keras.Model(x, L.Lambda(lambda t: t * scale)(L.Dense(2)(x)))
    clone = tf.keras.models.clone_model(model)
    clone.set_weights(model.get_weights())
    _assert_same_outputs(model, clone, _rand(3, 2))


def test_disconnected_config_raises():
    config = _two_in_two_out().get_config()
    config["layers"] = [e for e in config["layers"] if e["name"] != "proj_b"]
    with pytest.raises(ValueError, match="cat"):
        tf.keras.Model.from_config(config)


def test_subclassed_model_config():
    class Plain(tf.keras.Model):
        def call(self, inputs):
            return inputs

    class WithArgs(tf.keras.Model):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.dense = L.Dense(units)

        def call(self, inputs):
            return self.dense(inputs)

    class WithConfig(WithArgs):
        def __init__(self, units, **kwargs):
            super().__init__(units, **kwargs)
            self.units = units

        def get_config(self):
            return {"units": self.units, "name": self.name}

    config = Plain(name="plain").get_config()
    assert config == {"name": "plain", "trainable": True, "dtype": "float32"}
    assert Plain.from_config(config).name == "plain"
    # Keras 3's automatic config: plain constructor arguments are captured at creation (Keras 3
    # itself drops a Model's arguments in Model.__new__, so it raises here, or saves the defaults)
    assert WithArgs(3, name="wa").get_config() == {"name": "wa", "trainable": True, "dtype": "float32",
                                                   "units": 3}
    assert WithArgs.from_config(WithArgs(3).get_config()).dense.units == 3

    class WithLayer(tf.keras.Model):
        def __init__(self, inner, **kwargs):
            super().__init__(**kwargs)
            self.inner = inner

    with pytest.raises(NotImplementedError, match="WithLayer.*not plain values.*get_config"):
        WithLayer(L.Dense(2)).get_config()
    again = WithConfig.from_config(WithConfig(5, name="wc").get_config())
    assert again.units == 5 and again.name == "wc"
    with pytest.raises(TypeError, match="Unable to revive model 'WithArgs'"):
        WithArgs.from_config({"name": "x"})
