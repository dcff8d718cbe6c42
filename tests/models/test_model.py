"""Model: subclassed and functional models, nested models, intermediate outputs, summary."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers
from minitf.keras_core.naming import clear_session
from minitf.models import Input, Model, Sequential


@pytest.fixture(autouse=True)
def _fresh_names():
    clear_session()


def x32(*shape):
    return np.random.default_rng(0).standard_normal(shape).astype("float32")


class MLP(Model):
    def __init__(self):
        super().__init__()
        self.hidden = layers.Dense(4, activation="relu")
        self.drop = layers.Dropout(0.99)
        self.out = layers.Dense(2)

    def call(self, x, training=None):
        return self.out(self.drop(self.hidden(x), training=training))


def test_subclassed_model_tracking_training_flag_and_checkpoint_names():
    m = MLP()
    assert m.weights == [] and m.name == "mlp"
    x = x32(3, 5)
    a, b = m(x).numpy(), m(x, training=False).numpy()
    np.testing.assert_array_equal(a, b)
    # rows of +1 and -1: every relu unit is active on one of them, whatever the initial kernel
    signs = np.repeat(np.array([[1.0], [-1.0]], "float32"), 32, axis=0) * np.ones((1, 5), "float32")
    dropped = m(signs, training=True).numpy()
    full = m(signs).numpy()
    assert not np.allclose(dropped, full)  # dropout reached the inner layer
    assert [v.path for v in m.trainable_variables] == [
        "mlp/dense/kernel", "mlp/dense/bias", "mlp/dense_1/kernel", "mlp/dense_1/bias"]
    assert [n for n, _ in m._checkpoint_dependencies()] == ["hidden", "drop", "out"]
    unbuilt = []  # Keras 3 prints an unbuilt model's layers as '?' / '0 (unbuilt)'
    MLP().summary(print_fn=unbuilt.append)
    assert "0 (unbuilt)" in unbuilt[0] and " Total params: 0 (0.00 B)" in unbuilt[0]


def test_functional_multi_input_multi_output_and_dict_inputs():
    a, b = Input(shape=(3,), name="a"), Input(shape=(2,), name="b")
    assert a.shape.as_list() == [None, 3] and a.dtype == tf.float32
    h = layers.concatenate([layers.Dense(4, name="da")(a), layers.Dense(4, name="db")(b)])
    out1, out2 = layers.Dense(1, name="o1")(h), layers.Dense(2, name="o2")(h)
    m = Model(inputs=[a, b], outputs=[out1, out2])
    y1, y2 = m([x32(5, 3), x32(5, 2)])
    assert y1.shape == (5, 1) and y2.shape == (5, 2)
    assert [layer.name for layer in m.layers][:2] == ["a", "b"]
    assert m.get_layer("o2") is m.layers[-1] or m.get_layer("o2").name == "o2"
    assert m.get_layer(index=0).name == "a"
    with pytest.raises(ValueError, match="No such layer: nope"):
        m.get_layer("nope")
    md = Model(inputs={"a": a, "b": b}, outputs=out1)
    np.testing.assert_allclose(md({"a": x32(5, 3), "b": x32(5, 2)}).numpy(),
                               m([x32(5, 3), x32(5, 2)])[0].numpy(), rtol=1e-6)


def test_intermediate_output_model_like_style_transfer():
    inp = Input(shape=(8, 8, 3))
    x = layers.Conv2D(4, 3, padding="same", name="block1_conv1")(inp)
    x = layers.MaxPooling2D(name="block1_pool")(x)
    x = layers.Conv2D(6, 3, padding="same", name="block2_conv1")(x)
    base = Model(inp, layers.GlobalAveragePooling2D()(x))
    names = ["block1_conv1", "block2_conv1"]
    feat = Model(inputs=base.input, outputs=[base.get_layer(n).output for n in names])
    img = x32(2, 8, 8, 3)
    f1, f2 = feat(img)
    assert f1.shape == (2, 8, 8, 4) and f2.shape == (2, 4, 4, 6)
    np.testing.assert_allclose(f1.numpy(), base.get_layer("block1_conv1")(img).numpy(), rtol=1e-6)
    assert len(feat.weights) == 4  # only the layers on the path to the outputs


def test_nested_model_as_layer_and_gradients():
    inner_in = Input(shape=(3,))
    inner = Model(inner_in, layers.Dense(2, name="inner_dense")(inner_in), name="inner")
    outer_in = Input(shape=(3,))
    outer = Model(outer_in, layers.Dense(1)(inner(outer_in)))
    assert outer.layers[1] is inner and len(outer.weights) == 4
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(outer(x32(4, 3)))
    grads = tape.gradient(loss, outer.trainable_variables)
    assert all(g is not None for g in grads)
    deps = dict(outer._checkpoint_dependencies())
    assert deps["layer_with_weights-0"] is inner and deps["layer-0"].name.startswith("input")


def test_functional_training_flag_reaches_dropout():
    inp = Input(shape=(100,))
    m = Model(inp, layers.Dropout(0.5)(inp))
    ones = np.ones((4, 100), "float32")
    np.testing.assert_array_equal(m(ones).numpy(), ones)
    assert (m(ones, training=True).numpy() == 0).any()


def test_functional_shape_mismatch_error():
    inp = Input(shape=(4,))
    m = Model(inp, layers.Dense(2, name="fc")(inp))
    # Keras 3: the functional model checks its Input's shape first
    with pytest.raises(ValueError, match=r"Input 0 with name 'input_layer' of layer "
                       r"'functional' is incompatible with the layer: expected "
                       r"shape=\(None, 4\), found shape=\(2, 3\)"):
        m(x32(2, 3))
    seq = Sequential([Input((4,)), layers.Dense(2, name="fc3")])
    with pytest.raises(ValueError, match=r"'fc3'.*value 4.*\(2, 3\)"):  # Sequential: layers
        seq(x32(2, 3))
    with pytest.raises(ValueError, match=r"'fc2'.*value 4"):
        bad = layers.Dense(1, name="fc2")
        bad(Input(shape=(4,)))
        bad(Input(shape=(5,)))  # symbolic calls are checked too


def test_summary_text_and_param_counts(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # the table's width follows the terminal's, as in Keras
    inp = Input(shape=(784,))
    m = Model(inp, layers.Dense(10, name="out")(layers.Dense(512, name="hid")(inp)), name="mnist")
    calls = []
    m.summary(print_fn=calls.append)
    assert len(calls) == 1  # Keras 3 hands print_fn the whole table at once
    lines = calls[0].splitlines()
    assert lines[0] == 'Model: "mnist"' and lines[1].startswith("┏━") and lines[1].endswith("━┓")
    assert lines[2].startswith("┃ Layer (type)") and "┃ Output Shape" in lines[2]
    text = calls[0]
    assert "Connected to" not in text  # a chain of layers: no 'Connected to' column, as in Keras
    assert "│ input_layer (InputLayer)        │ (None, 784)            │             0 │" in lines
    assert "hid (Dense)" in text and "(None, 512)" in text and "401,920 │" in text
    assert "5,130 │" in text and " Total params: 407,050 (1.55 MB)" in lines
    assert " Trainable params: 407,050 (1.55 MB)" in lines and " Non-trainable params: 0 (0.00 B)" in lines


def test_summary_counts_non_trainable_batchnorm():
    m = Sequential([layers.Dense(4, input_shape=(3,)), layers.BatchNormalization()])
    calls = []
    m.summary(print_fn=calls.append)
    lines = calls[0].splitlines()
    assert " Total params: 32 (128.00 B)" in lines and " Non-trainable params: 8 (32.00 B)" in lines


def test_uint8_batches_into_sequential_and_functional_models():
    # an MNIST-like uint8 batch: Keras converts model inputs to the Input's dtype
    x = np.random.default_rng(0).integers(0, 255, size=(4, 28, 28)).astype(np.uint8)
    y = np.arange(4)
    seq = Sequential([Input((28, 28)), layers.Flatten(), layers.Dense(10)])
    assert seq(x).dtype == tf.float32
    inp = Input((28, 28))
    fn = Model(inp, layers.Flatten()(inp))
    assert fn(x).dtype == tf.float32   # converted to the float32 Input even without Dense
    no_input = Sequential([layers.Flatten(), layers.Dense(10)])
    assert no_input(x).dtype == tf.float32
    seq.compile("adam", "sparse_categorical_crossentropy")
    seq.fit(x, y, epochs=1, verbose=0)
    assert seq.predict(x, verbose=0).dtype == np.float32


def test_model_inputs_converted_to_input_dtype_both_ways():
    ids = Input((3,), dtype="int32")
    model = Model(ids, layers.Flatten()(ids))
    out = model(np.array([[0.7, 1.2, 2.9]], np.float32))
    assert out.dtype == tf.int32 and out.numpy().tolist() == [[0, 1, 2]]
    wide = Input((2,), dtype="float64")
    model64 = Model(wide, layers.Dense(1, dtype="float64", kernel_initializer="ones")(wide))
    out = model64(np.array([[1 + 1e-12, 2.0]]))  # no detour through float32
    assert out.dtype == tf.float64 and abs(float(out.numpy()[0, 0]) - 3 - 1e-12) < 1e-15


def test_functional_inputs_get_keras_rank_fixups_and_specs():
    inp = Input((4, 1), name="x")
    model = Model(inp, layers.Flatten()(inp))
    assert model(np.ones((2, 4), np.float32)).shape == (2, 4)       # trailing 1 added
    assert model(np.ones((2, 4, 1, 1), np.float32)).shape == (2, 4)  # trailing 1 dropped
    with pytest.raises(ValueError, match=r"Invalid input shape for input 'x'.*\(2,\)"):
        model(np.ones((2,), np.float32))
    a, b = Input((2,), name="a"), Input((3,), name="b")
    two = Model({"b": b, "a": a}, layers.Concatenate()([a, b]))
    assert [(s.shape.as_list(), s.name) for s in two.input_spec] == [([None, 2], "a"),
                                                                     ([None, 3], "b")]
    with pytest.raises(ValueError, match=r"Input 1 with name 'b' .*expected shape=\(None, 3\), "
                       r"found shape=\(1, 4\)"):
        two({"a": np.ones((1, 2)), "b": np.ones((1, 4))})
