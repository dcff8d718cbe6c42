"""keras.utils.get_source_inputs."""
import pytest

import minitf as tf

L = tf.keras.layers


def _graph(keras):
    a, b = keras.Input((2,), name="a"), keras.Input((2,), name="b")
    c = keras.layers.Add()([keras.layers.Dense(2)(b), a])
    d = keras.layers.Concatenate()([c, b])
    return a, b, d


def test_sources_in_first_seen_order_without_repeats():
    a, b, d = _graph(tf.keras)
    sources = tf.keras.utils.get_source_inputs(d)
    assert len(sources) == 2 and sources[0] is b and sources[1] is a


def test_inputs_and_non_keras_values():
    a = tf.keras.Input((3,))
    sources = tf.keras.utils.get_source_inputs(a)
    assert isinstance(sources, list) and len(sources) == 1 and sources[0] is a
    assert tf.keras.utils.get_source_inputs(5) == 5
    inner = tf.keras.Model(a, L.Dense(1)(a))
    x = tf.keras.Input((3,), name="outer")
    sources = tf.keras.utils.get_source_inputs(inner(x))
    assert len(sources) == 1 and sources[0] is x


def test_matches_keras_names():
    keras_tf = pytest.importorskip("tensorflow").keras
    theirs = [t.name for t in keras_tf.utils.get_source_inputs(_graph(keras_tf)[2])]
    ours = [t.name for t in tf.keras.utils.get_source_inputs(_graph(tf.keras)[2])]
    assert ours == theirs == ["b", "a"]
