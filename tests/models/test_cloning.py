"""tf.keras.models.clone_model."""
import numpy as np
import pytest

import minitf as tf

L = tf.keras.layers


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def _functional():
    a = tf.keras.Input((3,), name="a")
    b = tf.keras.Input((3,), name="b")
    shared = L.Dense(3, name="shared")
    inner_in = tf.keras.Input((3,))
    inner = tf.keras.Model(inner_in, L.Dense(2)(inner_in), name="inner")
    s = L.Add()([shared(a), shared(b)])
    out = L.Lambda(lambda t: t - 1.0)(inner(s))
    return tf.keras.Model([a, b], [out, s])


def test_clone_functional_new_weights_same_architecture():
    model = _functional()
    clone = tf.keras.models.clone_model(model)
    assert [x.name for x in clone.layers] == [x.name for x in model.layers]
    assert all(x is not y for x, y in zip(clone.layers, model.layers))
    assert len(clone.weights) == len(model.weights)
    assert not any(v is w for v in clone.weights for w in model.weights)
    shared = clone.get_layer("shared")
    assert len([n for n in clone._graph.nodes if n.layer is shared]) == 2
    inputs = [_rand(2, 3), _rand(2, 3, seed=1)]
    clone.set_weights(model.get_weights())
    for x, y in zip(model(inputs), clone(inputs)):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_clone_sequential_keeps_input_and_function_hook():
    model = tf.keras.Sequential([tf.keras.Input((4,)), L.Dense(3), L.Dense(2)])
    seen = []

    def hook(layer):
        seen.append(layer.name)
        return layer.__class__.from_config(layer.get_config())
    clone = tf.keras.models.clone_model(model, clone_function=hook)
    assert seen == [x.name for x in model.layers]
    assert clone.built and clone.input.shape.as_list() == [None, 4]
    clone.set_weights(model.get_weights())
    x = _rand(5, 4)
    np.testing.assert_array_equal(model(x).numpy(), clone(x).numpy())


def test_clone_onto_given_input_tensors():
    model = _functional()
    new_a = tf.keras.Input((3,), name="new_a")
    new_b = tf.keras.Input((3,), name="new_b")
    clone = tf.keras.models.clone_model(model, input_tensors=[new_a, new_b])
    assert clone.input_names == ["new_a", "new_b"]
    with pytest.raises(ValueError, match="2 input"):
        tf.keras.models.clone_model(model, input_tensors=[new_a])


def test_clone_subclassed_raises():
    class Sub(tf.keras.Model):
        def call(self, inputs):
            return inputs
    with pytest.raises(ValueError, match="subclassed"):
        tf.keras.models.clone_model(Sub())
