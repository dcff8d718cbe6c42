"""The call context and the call specification against Keras 3 (TF 2.21): the `training` value
every nested layer receives (custom layers, subclassed, Sequential and functional models, RNN
cells, fit/evaluate/predict), BatchNormalization statistics and active dropout inside custom
layers, the masks `call` receives and the masks outputs carry, and the call arguments of the
built-in layers. Each scenario is written once and run in both libraries."""
import inspect

import numpy as np
import pytest

import minitf
from minitf.keras_core import call_context

tf_ref = pytest.importorskip("tensorflow")
LIBS = {"keras": tf_ref, "minitf": minitf}


def _is_symbolic(lib, x):
    return isinstance(x, lib.keras.KerasTensor) if hasattr(lib.keras, "KerasTensor") else False


def _classes(lib, log):
    """Probe, Wrap and friends written once for `lib`; Probe appends (name, training) to `log`
    for eager calls."""
    L = lib.keras.layers

    class Probe(L.Layer):
        def call(self, x, training=None):
            if not _is_symbolic(lib, x):
                log.append((self.name, training))
            return x

    class Wrap(L.Layer):
        def __init__(self, inner, **kwargs):
            super().__init__(**kwargs)
            self.inner = inner

        def call(self, x):
            return self.inner(x)

    class Outer(L.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.a, self.b = Probe(name="a"), Probe(name="b")
            self.c = Wrap(Probe(name="c"))

        def call(self, x, training=None):
            return self.c(self.b(self.a(x, training=False)))

    class DefaultTrue(L.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.p = Probe(name="d")

        def call(self, x, training=True):
            return self.p(x)

    class Cell(L.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.state_size = 3
            self.p = Probe(name="cell")

        def call(self, x, states):
            return self.p(x), [x]

    class Net(lib.keras.Model):
        def __init__(self):
            super().__init__()
            self.w = Wrap(Probe(name="m"))
            self.head = L.Dense(1)

        def call(self, x, training=None):   # takes training, hands it to nobody
            return self.head(self.w(x))

    class Bare(Net):
        def call(self, x):    # no training argument: Keras 3's steps then pass none
            return self.head(self.w(x))
    return dict(Probe=Probe, Wrap=Wrap, Outer=Outer, DefaultTrue=DefaultTrue, Cell=Cell, Net=Net,
                Bare=Bare)


def _training_trace(lib):
    log = []
    c = _classes(lib, log)
    L = lib.keras.layers
    x = np.random.RandomState(0).normal(size=(4, 3)).astype("float32")
    seq_x = np.random.RandomState(0).normal(size=(2, 3, 3)).astype("float32")
    inp = lib.keras.Input((3,))
    models = {
        "outer": c["Outer"](), "default_true": c["DefaultTrue"](),
        "sequential": lib.keras.Sequential([c["Wrap"](c["Probe"](name="s"))]),
        "functional": lib.keras.Model(inp, L.Dense(2)(c["Wrap"](c["Probe"](name="f"))(inp))),
        "subclassed": c["Net"](),
    }
    trace = {}
    for key, model in models.items():
        model(x)  # builds (Keras traces some calls symbolically)
        log.clear()
        for training in (True, None, False):
            model(x, training=training)
            model(x, training=training)
        trace[key] = list(log)
    rnn = L.RNN(c["Cell"]())
    rnn(seq_x)
    trace["rnn"] = []
    for training in (True, None, False):  # Keras' TF loop calls the cell once more: values only
        log.clear()
        rnn(seq_x, training=training)
        trace["rnn"].append(sorted(set(log)))
    for key, net in (("fit_evaluate_predict", models["subclassed"]), ("bare", c["Bare"]())):
        net(x)
        net.compile(optimizer="sgd", loss="mse", run_eagerly=True)
        log.clear()
        net.fit(x, np.zeros((4, 1), "float32"), batch_size=2, epochs=1, verbose=0, shuffle=False)
        net.evaluate(x, np.zeros((4, 1), "float32"), batch_size=2, verbose=0)
        net.predict(x, batch_size=2, verbose=0)
        trace[key] = list(log)
    return trace


def test_training_values_match_keras():
    keras_trace, mine = _training_trace(tf_ref), _training_trace(minitf)
    assert mine == keras_trace
    assert [t for _, t in keras_trace["fit_evaluate_predict"]] == [True, True, False, False, False, False]
    assert [t for _, t in keras_trace["bare"]] == [None] * 6


def _bn_block_model(lib, kind):
    L = lib.keras.layers

    class Block(L.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = L.Dense(4)
            self.bn = L.BatchNormalization()

        def call(self, x):
            return self.bn(self.dense(x))

    class Net(lib.keras.Model):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.head = L.Dense(1)

        def call(self, x):
            return self.head(self.block(x))
    if kind == "subclassed":
        return Net()
    if kind == "sequential":
        return lib.keras.Sequential([Block(), L.Dense(1)])
    inp = lib.keras.Input((3,))
    return lib.keras.Model(inp, L.Dense(1)(Block()(inp)))


@pytest.mark.parametrize("kind", ["subclassed", "sequential", "functional"])
def test_batch_statistics_inside_custom_layers_match_keras(kind):
    rs = np.random.RandomState(1)
    x = rs.normal(size=(16, 3)).astype("float32")
    y = rs.normal(size=(16, 1)).astype("float32")
    ref, mine = _bn_block_model(tf_ref, kind), _bn_block_model(minitf, kind)
    ref(x)
    mine(x)
    mine.set_weights(ref.get_weights())
    np.testing.assert_allclose(mine(x, training=True).numpy(), np.asarray(ref(x, training=True)),
                               rtol=1e-5, atol=1e-5)
    for lib_model in (ref, mine):
        lib_model.compile(optimizer=LIBS["keras" if lib_model is ref else "minitf"].keras.optimizers.SGD(0.1),
                          loss="mse")
        lib_model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
    for a, b in zip(mine.get_weights(), ref.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)   # moving statistics included
    moving = [w for w in mine.weights if "moving_mean" in w.name]
    assert moving and np.abs(moving[0].numpy()).max() > 0


def _dropout_active(lib):
    L = lib.keras.layers

    class Block(L.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.drop = L.Dropout(0.5)

        def call(self, x):
            return self.drop(x)
    x = np.ones((64, 8), "float32")
    result = {}
    seq = lib.keras.Sequential([Block()])
    for training in (True, False, None):
        out = np.asarray(seq(x, training=training))
        result[training] = (bool((out == 0).any()), sorted(set(np.round(out, 4).ravel().tolist())))
    return result


def test_dropout_inside_custom_layers_is_active_as_in_keras():
    assert _dropout_active(minitf) == _dropout_active(tf_ref)


def _mask_trace(lib):
    L = lib.keras.layers
    log = []

    class MaskProbe(L.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, x, mask=None):
            if not _is_symbolic(lib, x):
                log.append(None if mask is None else np.asarray(mask).tolist())
            return x

    class Double(L.Layer):
        def call(self, x):
            return x * 2

    class Two(L.Layer):
        def call(self, query, value, mask=None, query_mask=None, value_mask=None):
            log.append((mask is None, query_mask is None, value_mask is None))
            return query
    ids = np.array([[3, 2, 0, 0], [1, 0, 0, 0]], "int32")
    emb = L.Embedding(5, 3, mask_zero=True)
    out = MaskProbe()(emb(ids))
    log.append(np.asarray(out._keras_mask).tolist())
    MaskProbe()(Double()(emb(ids)))
    Two()(emb(ids), lib.ones((2, 4, 3)))
    seq = lib.keras.Sequential([MaskProbe()])
    seq(np.ones((2, 4, 3), "float32"))
    seq(np.ones((2, 4, 3), "float32"), mask=lib.constant(ids != 0))
    rs = np.random.RandomState(2)
    x = rs.normal(size=(2, 4, 3)).astype("float32")
    x[:, 2:] = 0
    lstm = L.LSTM(2)
    lstm(L.Masking()(lib.constant(x)))
    return log, lstm, x


def test_masks_match_keras():
    keras_log, keras_lstm, x = _mask_trace(tf_ref)
    log, lstm, _ = _mask_trace(minitf)
    assert log == keras_log
    lstm.set_weights(keras_lstm.get_weights())
    for lib, layer in (("keras", keras_lstm), ("minitf", lstm)):
        masked = LIBS[lib].keras.layers.Masking()(LIBS[lib].constant(x))
        h = LIBS[lib].zeros((2, 2))
        out = (np.asarray(layer(masked)), np.asarray(layer(masked, initial_state=[h, h])))
        if lib == "keras":
            expected = out
    np.testing.assert_allclose(out[0], expected[0], rtol=1e-5, atol=1e-6)
    # Keras 3 fills `mask` only for a call with one tensor argument: with initial_state the
    # LSTM runs over the padded steps too
    np.testing.assert_allclose(out[1], expected[1], rtol=1e-5, atol=1e-6)
    assert not np.allclose(expected[0], expected[1])


def test_builtin_call_arguments_cover_keras():
    """Every argument the `call` of a Keras 3 layer takes (past its inputs) is one the minitf
    layer accepts, or is in KERAS_CALL_EXTRAS; the table lists nothing minitf already takes."""
    missing = []
    for name in sorted(dir(tf_ref.keras.layers)):
        ref, mine = getattr(tf_ref.keras.layers, name), getattr(minitf.keras.layers, name, None)
        if not inspect.isclass(ref) or not inspect.isclass(mine) or name in ("Layer", "InputLayer"):
            continue
        if not issubclass(mine, minitf.keras.layers.Layer):
            continue
        params = list(inspect.signature(ref.call).parameters.values())[2:]  # past self, inputs
        spec = call_context.spec_of_class(mine)
        for p in params:
            if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) or p.name == "training":
                continue
            if not (spec.accepts(p.name) or p.name in spec.extras):
                missing.append(f"{name}.{p.name}")
    assert missing == []
    for name, extras in call_context.KERAS_CALL_EXTRAS.items():
        keras_params = inspect.signature(getattr(tf_ref.keras.layers, name).call).parameters
        mine_params = inspect.signature(getattr(minitf.keras.layers, name).call).parameters
        assert all(e in keras_params and e not in mine_params for e in extras), name


def _compile_switches(lib):
    model = lib.keras.Sequential([lib.keras.layers.Dense(1)])
    out = [model.run_eagerly]
    for kwargs in ({}, {"run_eagerly": True}, {"jit_compile": True}, {"jit_compile": False}):
        model.compile(optimizer="sgd", loss="mse", **kwargs)
        out.append((model.run_eagerly, model.jit_compile))
    return out


def test_compile_switches_match_keras():
    assert _compile_switches(minitf) == _compile_switches(tf_ref)
