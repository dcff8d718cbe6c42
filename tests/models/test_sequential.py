"""Sequential: building from Input/input_shape/first call/build, add, pop, names, weights."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers
from minitf.keras_core.naming import clear_session
from minitf.models import Input, Sequential


@pytest.fixture(autouse=True)
def _fresh_names():
    clear_session()


def test_unbuilt_then_built_on_first_call():
    m = Sequential([layers.Dense(3), layers.Dense(2)])
    assert not m.built and m.weights == []
    unbuilt = []  # Keras 3 prints an unbuilt model instead of raising
    m.summary(print_fn=unbuilt.append)
    assert unbuilt[0].count("0 (unbuilt)") == 2 and unbuilt[0].count(" ? ") == 2
    y = m(np.ones((5, 4), "float32"))
    assert y.shape == (5, 2) and m.built and len(m.weights) == 4
    calls = []
    m.summary(print_fn=calls.append)
    assert len(calls) == 1 and "│ (None, 3) " in calls[0]


def test_build_from_input_and_input_shape_and_build_call():
    m1 = Sequential([Input(shape=(4,)), layers.Dense(2)])
    m2 = Sequential([layers.Dense(2, input_shape=(4,))])
    m3 = Sequential([layers.Dense(2)])
    m3.build((None, 4))
    for m in (m1, m2, m3):
        assert m.built and m.layers[0].kernel.shape == (4, 2)
        assert m.output.shape.as_list() == [None, 2]
    assert len(m1.layers) == 1  # the InputLayer is not listed


def test_add_pop_and_checkpoint_dependencies():
    m = Sequential()
    m.add(layers.Dense(3, input_shape=(2,)))
    m.add(layers.Dropout(0.1))
    m.add(layers.Dense(1))
    assert m(np.ones((2, 2), "float32")).shape == (2, 1)
    names = [n for n, _ in m._checkpoint_dependencies()]
    assert names == ["layer_with_weights-0", "layer_with_weights-1", "layer-0", "layer-1",
                     "layer-2"]
    popped = m.pop()
    assert popped.name == "dense_1" and len(m.layers) == 2
    assert m(np.ones((2, 2), "float32")).shape == (2, 3)
    with pytest.raises(ValueError, match="Only instances of `keras.Layer`|only instances of `keras.Layer`"):
        m.add("not a layer")  # Keras 3 (TF 2.21) raises ValueError


def test_get_set_weights_and_freezing():
    m = Sequential([layers.Dense(3, input_shape=(2,)), layers.BatchNormalization()])
    assert [w.shape for w in m.get_weights()] == [(2, 3), (3,), (3,), (3,), (3,), (3,)]
    m.set_weights([np.ones(w.shape) for w in m.get_weights()])
    np.testing.assert_array_equal(m.layers[0].kernel.numpy(), np.ones((2, 3)))
    with pytest.raises(ValueError, match="expected 6 weights"):
        m.set_weights([np.ones((2, 3))])
    m.layers[0].trainable = False
    assert len(m.trainable_weights) == 2 and len(m.non_trainable_weights) == 4


def test_gradients_flow_through_sequential():
    m = Sequential([layers.Dense(3, activation="relu", input_shape=(2,)), layers.Dense(1)])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(m(np.ones((4, 2), "float32")) ** 2)
    grads = tape.gradient(loss, m.trainable_variables)
    assert len(grads) == 4 and all(g is not None for g in grads)


def test_save_weights_delegates(monkeypatch, tmp_path):
    import types
    from minitf.models import model as model_module
    calls = []
    fake = types.ModuleType("minitf.checkpoint.keras_weights")
    fake.save_weights = lambda model, path: calls.append(("save", path))
    fake.load_weights = lambda model, path, skip: calls.append(("load", path, skip))
    monkeypatch.setattr(model_module, "keras_weights", fake)
    m = Sequential([layers.Dense(1, input_shape=(2,))])
    m.save_weights(str(tmp_path / "w.h5"))
    m.load_weights(str(tmp_path / "w.h5"), skip_mismatch=True)
    assert calls == [("save", str(tmp_path / "w.h5")), ("load", str(tmp_path / "w.h5"), True)]


def test_weight_paths_carry_the_sequential_scope_as_in_keras_3():
    m1 = Sequential([layers.Dense(3, name="d")], name="seqp")
    m1.build((None, 4))
    m2 = Sequential([Input(shape=(4,)), layers.Dense(2, name="e")], name="seqq")
    assert [v.path for v in m1.weights] == ["seqp/d/kernel", "seqp/d/bias"]
    assert [v.path for v in m2.weights] == ["seqq/e/kernel", "seqq/e/bias"]
    assert m1.layers[0].kernel.name == "kernel"
