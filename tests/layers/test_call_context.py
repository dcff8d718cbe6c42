"""Keras 3's call context and call specification in minitf (no TensorFlow needed).

`training` reaches the layers nested in custom layers, subclassed models, Sequential, functional
models and recurrent cells; masks fill the arguments Keras 3 fills; the signature of `call` is
read once per class. tests/parity/test_call_context_parity.py checks the same against Keras 3.
"""
import inspect

import numpy as np
import pytest

import minitf as tf
from minitf.keras_core import call_context

L = tf.keras.layers


class Probe(L.Layer):
    """Records the `training` value each call receives."""

    def __init__(self, log, **kwargs):
        super().__init__(**kwargs)
        self.log = log

    def call(self, x, training=None):
        self.log.append((self.name, training))
        return x


class Wrap(L.Layer):
    """A custom layer without a `training` argument holding another layer."""

    def __init__(self, inner, **kwargs):
        super().__init__(**kwargs)
        self.inner = inner

    def call(self, x):
        return self.inner(x)


def _x(*shape):
    return np.random.RandomState(0).normal(size=shape or (4, 3)).astype("float32")


# -- the call specification ---------------------------------------------------------------------

def test_the_signature_of_call_is_read_once_per_class(monkeypatch):
    log = []
    model = tf.keras.Sequential([L.Dense(4), L.Dropout(0.5), Wrap(Probe(log))])
    x = _x(8, 3)
    model(x, training=True)
    calls = []
    real = inspect.signature
    monkeypatch.setattr(inspect, "signature", lambda *a, **k: calls.append(a) or real(*a, **k))
    for training in (True, False, None):
        model(x, training=training)
        Wrap(Probe(log))(x, training=training)   # new instances of known classes
    assert calls == []
    spec = call_context.spec_of(L.Dropout(0.1))
    assert spec is call_context.spec_of(L.Dropout(0.2))  # one spec per class
    assert spec.takes_training and not spec.takes_mask and spec.training_default is None


def test_call_spec_reads_names_defaults_and_an_instance_call():
    class Odd(L.Layer):
        def call(self, x, y=None, training=True, x_mask=None, **kwargs):
            return x
    spec = call_context.spec_of(Odd())
    assert spec.names == ("x", "y", "training", "x_mask", "kwargs")
    assert spec.training_default is True and spec.training_index == 2
    assert spec.mask_arguments == ("x_mask",) and spec.takes_var_keyword
    assert spec.accepts("anything") and not spec.has("anything")
    layer = L.Layer()
    layer.call = lambda inputs, mask=None: inputs
    assert call_context.spec_of(layer).takes_mask


def test_builtin_layers_accept_the_arguments_keras_passes_them():
    bn = L.BatchNormalization()
    assert call_context.spec_of(bn).extras == {"mask"}
    x = tf.constant(_x(4, 5, 3))
    mask = tf.constant(np.array([[1, 1, 0, 0, 1]] * 4, bool))
    out = bn(x, mask=mask, training=False)   # what a Keras 3 '.keras' node passes
    np.testing.assert_allclose(out.numpy(), bn(x, training=False).numpy())
    assert out._keras_mask is not None       # the mask still travels on

    class MyBN(L.BatchNormalization):
        def call(self, inputs, training=None):  # a class of the user's own keeps Keras' rules
            return super().call(inputs, training=training)
    assert call_context.spec_of(MyBN()).extras == frozenset()
    with pytest.raises(TypeError):
        MyBN()(x, mask=mask)


def test_functional_config_with_keras3_mask_kwargs_loads():
    inp = tf.keras.Input((6, 6, 2))
    h = L.Conv2D(3, 3)(inp)
    h = L.BatchNormalization()(h)
    model = tf.keras.Model(inp, L.Dense(2)(L.Flatten()(h)))
    config = model.get_config()
    for entry in config["layers"]:
        if entry["class_name"] == "BatchNormalization":
            entry["inbound_nodes"][0]["kwargs"] = {"mask": None}   # as Keras 3 writes it
    again = tf.keras.Model.from_config(config)
    again.set_weights(model.get_weights())
    x = _x(2, 6, 6, 2)
    np.testing.assert_allclose(again(x).numpy(), model(x).numpy(), rtol=1e-6)


# -- training ------------------------------------------------------------------------------------

def test_training_reaches_layers_nested_in_custom_layers():
    log = []
    layer = Wrap(Wrap(Probe(log, name="p")))
    x = _x()
    for training in (True, False, None):
        layer(x, training=training)
    assert log == [("p", True), ("p", False), ("p", None)]


def test_training_resolution_order_of_keras3():
    log = []

    class Outer(L.Layer):
        def __init__(self):
            super().__init__()
            self.a, self.b, self.c = Probe(log, name="a"), Probe(log, name="b"), Wrap(Probe(log, name="c"))

        def call(self, x, training=None):
            # Keras 3 keeps one context for the outermost call: the explicit False given to `a`
            # is what `b` and `c` read afterwards
            return self.c(self.b(self.a(x, training=False)))

    class DefaultTrue(L.Layer):
        def __init__(self):
            super().__init__()
            self.p = Probe(log, name="d")

        def call(self, x, training=True):
            return self.p(x)
    x = _x()
    Outer()(x, training=True)
    DefaultTrue()(x)            # the signature's default when nothing else says
    DefaultTrue()(x, training=False)
    assert log == [("a", False), ("b", False), ("c", False), ("d", True), ("d", False)]
    assert call_context.current() is None   # the context ends with the outermost call


def test_training_in_sequential_functional_and_subclassed_models():
    log = []
    seq = tf.keras.Sequential([Wrap(Probe(log, name="s"))])
    inp = tf.keras.Input((3,))
    func = tf.keras.Model(inp, Wrap(Probe(log, name="f"))(inp))

    class Sub(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.w = Wrap(Probe(log, name="m"))

        def call(self, x):
            return self.w(x)
    sub = Sub()
    x = _x()
    for model in (seq, func, sub):
        model(x)
        log.clear()
        model(x, training=True)
        model(x, training=False)
        model(x)
        assert [t for _, t in log] == [True, False, None], model.name
        log.clear()


def test_dropout_and_batchnorm_inside_custom_layers_train():
    class Block(L.Layer):
        def __init__(self):
            super().__init__()
            self.dense = L.Dense(8)
            self.bn = L.BatchNormalization()
            self.drop = L.Dropout(0.5)

        def call(self, x):
            return self.drop(self.bn(self.dense(x)))

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.head = L.Dense(1)

        def call(self, x, training=None):   # the context carries it to the block
            return self.head(self.block(x))
    x = _x(64, 3)
    for model in (Net(), tf.keras.Sequential([Block(), L.Dense(1)])):
        model(x)
        bn = model.block.bn if isinstance(model, Net) else model.layers[0].bn
        np.testing.assert_array_equal(bn.moving_mean.numpy(), 0)  # inference: untouched
        inference = model(x, training=False).numpy()
        np.testing.assert_array_equal(model(x).numpy(), inference)
        trained = model(x, training=True).numpy()
        assert np.abs(bn.moving_mean.numpy()).max() > 0      # batch statistics used and kept
        assert not np.allclose(trained, inference)
        block = model.block if isinstance(model, Net) else model.layers[0]
        dropped = block.drop(tf.ones((32, 8)), training=None).numpy()
        assert (dropped == 1).all()                        # no context: inference
        model.compile("sgd", "mse")
        before = bn.moving_mean.numpy().copy()
        seen = []
        real_call = block.drop.call
        block.drop.call = lambda inputs, training=None: seen.append(training) or real_call(inputs, training)
        model.fit(x, np.zeros((64, 1), "float32"), batch_size=32, epochs=1, verbose=0)
        assert seen and all(seen)  # fit trains with dropout (the traced step calls it once)
        assert not np.allclose(bn.moving_mean.numpy(), before)


def test_fit_passes_training_only_to_a_model_whose_call_takes_it():
    log = []

    class Bare(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.w = Wrap(Probe(log))
            self.d = L.Dense(3)

        def call(self, x):   # Keras 3's train_step then calls self(x): no training value
            return self.d(self.w(x))
    model = Bare()
    model.compile("sgd", "mse")
    model(_x())
    log.clear()
    model.fit(_x(), np.zeros((4, 3), "float32"), batch_size=4, verbose=0)
    model.evaluate(_x(), np.zeros((4, 3), "float32"), verbose=0)
    assert [t for _, t in log] == [None, None]


def test_training_reaches_a_custom_rnn_cell_and_wrapped_layers():
    log = []

    class Cell(L.Layer):
        state_size = 3

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.p = Probe(log)

        def call(self, x, states):
            return self.p(x), [x]
    rnn = L.RNN(Cell())
    x = _x(2, 4, 3)
    rnn(x, training=True)
    assert log and all(t is True for _, t in log)
    log.clear()
    L.TimeDistributed(Wrap(Probe(log, name="td")))(x, training=True)
    assert log and all(t is True for _, t in log)
    log.clear()
    with tf.keras.utils.custom_object_scope({"Cell": Cell}):   # Bidirectional copies its layer
        bidirectional = L.Bidirectional(L.RNN(Cell(), return_sequences=True))
    model = tf.keras.Sequential([bidirectional])
    model(x)   # builds: the shape inference runs in inference mode
    log.clear()
    model(x, training=True)
    assert log and all(t is True for _, t in log)


# -- masks ---------------------------------------------------------------------------------------

class MaskProbe(L.Layer):
    """Records the mask its call receives; passes the mask on (supports masking)."""

    def __init__(self, log, **kwargs):
        super().__init__(**kwargs)
        self.log = log
        self.supports_masking = True

    def call(self, x, mask=None):
        self.log.append(None if mask is None else np.asarray(mask))
        return x


def test_masks_fill_the_mask_argument_and_travel_on():
    log = []
    ids = np.array([[3, 2, 0, 0], [1, 0, 0, 0]], "int32")
    expected = ids != 0
    emb = L.Embedding(5, 3, mask_zero=True)
    out = MaskProbe(log)(emb(ids))
    np.testing.assert_array_equal(log[0], expected)
    np.testing.assert_array_equal(out._keras_mask.numpy(), expected)
    Wrap(MaskProbe(log))(emb(ids))        # the mask travels with the tensor into nested calls
    np.testing.assert_array_equal(log[-1], expected)

    class Double(L.Layer):                # no compute_mask: does not support masking
        def call(self, x):
            return x * 2
    MaskProbe(log)(Double()(emb(ids)))    # ... so its output carries no mask
    assert log[-1] is None
    inp = tf.keras.Input((4,), dtype="int32")
    model = tf.keras.Model(inp, MaskProbe(log)(L.Embedding(5, 3, mask_zero=True)(inp)))
    model(ids)
    np.testing.assert_array_equal(log[-1], expected)
    x = tf.constant(_x(2, 4, 3))
    model = tf.keras.Sequential([MaskProbe(log)])
    model(x, mask=tf.constant(expected))  # Keras 3: a model's mask is attached to its inputs
    np.testing.assert_array_equal(log[-1], expected)


def test_several_tensor_arguments_fill_name_mask_arguments_only():
    log = []

    class Two(L.Layer):
        def call(self, query, value, mask=None, query_mask=None, value_mask=None):
            log.append((mask, query_mask is not None, value_mask is not None))
            return query
    ids = np.array([[3, 0]], "int32")
    q = L.Embedding(5, 2, mask_zero=True)(ids)
    v = tf.ones((1, 2, 2))
    Two()(q, v)
    assert log == [(None, True, False)]
    lstm = L.LSTM(2)
    x = np.random.RandomState(1).normal(size=(2, 4, 3)).astype("float32")
    x[:, 2:] = 0
    masked = L.Masking()(tf.constant(x))
    h = tf.zeros((2, 2))
    # with initial_state there are two tensor arguments, so Keras 3 does not fill `mask`
    np.testing.assert_allclose(lstm(masked, initial_state=[h, h]).numpy(), lstm(tf.constant(x)).numpy(), rtol=1e-6)
    np.testing.assert_allclose(lstm(masked).numpy(), lstm(tf.constant(x[:, :2])).numpy(), rtol=1e-6)


def test_a_cast_input_keeps_its_mask():
    x = tf.constant(_x(2, 4, 3).astype("float64"))
    mask = tf.constant(np.array([[1, 1, 0, 0], [1, 0, 0, 0]], bool))
    x._keras_mask = mask
    log = []
    MaskProbe(log)(x)   # cast to float32 on the way in, as Keras 3 casts it, mask kept
    np.testing.assert_array_equal(log[0], mask.numpy())


# -- losses --------------------------------------------------------------------------------------

def test_losses_of_one_outer_call_accumulate_and_the_next_call_clears_them():
    class Penalty(L.Layer):
        def call(self, x):
            self.add_loss(tf.reduce_sum(x))
            return x

    class Twice(L.Layer):
        def __init__(self):
            super().__init__()
            self.p = Penalty()

        def call(self, x):
            return self.p(self.p(x))
    layer = Twice()
    layer(tf.ones((2, 2)))
    assert [float(v) for v in layer.losses] == [4.0, 4.0]   # both calls of the sublayer, as Keras 3
    layer(tf.ones((1, 2)))
    assert [float(v) for v in layer.losses] == [2.0, 2.0]
    inp = tf.keras.Input((2,))
    model = tf.keras.Model(inp, Twice()(inp))   # the symbolic dry run adds nothing
    assert model.losses == []
