"""TF comparisons for behaviour found by running keras-io training programs under minitf."""
import numpy as np
import pytest

import minitf

tf = pytest.importorskip("tensorflow")


def _tracked_model(lib):
    keras = lib.keras

    class Tracked(keras.Model):
        def __init__(self):
            super().__init__()
            self.body = keras.layers.Dense(3)
            self.tracker = keras.metrics.Mean(name="tracked")

        def call(self, x):
            return self.body(x)

    model = Tracked()
    model(np.ones((2, 4), np.float32))
    return model


def test_metric_attribute_state_is_apart_from_weights_as_keras():
    ours, theirs = _tracked_model(minitf), _tracked_model(tf)
    for attr in ("weights", "variables", "trainable_weights", "non_trainable_weights",
                 "metrics_variables", "layers"):
        assert len(getattr(ours, attr)) == len(getattr(theirs, attr)), attr
    assert [m.name for m in ours.metrics] == [m.name for m in theirs.metrics]


def _summary_rows(lib, capsys):
    keras = lib.keras
    keras.backend.clear_session()  # automatic names count from zero in both libraries
    inputs = keras.Input(shape=(4,))
    inner = keras.Model(inputs, keras.layers.Dense(2)(inputs), name="inner")
    seq = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3)], name="seq")
    outer_in = keras.Input(shape=(4,))
    outer = keras.Model(outer_in, [inner(outer_in), seq(outer_in)], name="outer")
    capsys.readouterr()
    outer.summary()
    return [line for line in capsys.readouterr().out.splitlines() if "│" in line]


def test_summary_of_nested_models_matches_keras(capsys):
    assert _summary_rows(minitf, capsys) == _summary_rows(tf, capsys)


def _endpoint_program(lib):
    keras = lib.keras

    class Endpoint(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.hits = keras.metrics.BinaryAccuracy(name="hits")

        def call(self, logits, targets=None):
            if targets is not None:
                self.add_loss(lib.reduce_mean(lib.square(logits - targets)))
                self.hits.update_state(targets, lib.sigmoid(logits))
            return lib.sigmoid(logits)

    class EndpointModel(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1, kernel_initializer="ones")
            self.endpoint = Endpoint()

        def call(self, data):
            return self.endpoint(logits=self.dense(data["x"]), targets=data["y"])

    rng = np.random.default_rng(1)
    data = {"x": rng.normal(size=(16, 5)).astype(np.float32),
            "y": (rng.random((16, 1)) > 0.5).astype(np.float32)}
    model = EndpointModel()
    model.compile(keras.optimizers.SGD(0.1))
    history = model.fit(data, batch_size=8, epochs=2, verbose=0, shuffle=False)
    errors = []
    try:
        keras.layers.Layer().add_metric(1.0)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        errors.append(type(e).__name__)
    try:
        Endpoint()(targets=data["y"])
    except Exception as e:  # noqa: BLE001
        errors.append(type(e).__name__)
    return history.history, [m.name for m in model.metrics], errors


def test_endpoint_layer_program_matches_keras():
    ours, theirs = _endpoint_program(minitf), _endpoint_program(tf)
    assert sorted(ours[0]) == sorted(theirs[0])
    for key in theirs[0]:
        np.testing.assert_allclose(ours[0][key], theirs[0][key], rtol=1e-5, atol=1e-6)
    assert ours[1:] == theirs[1:]


@pytest.mark.parametrize("start,stop", [(0, 1), (-3, 4), (np.int32(2), 7), ("int8", 5), ("uint16", 9),
                                        ("int64", -2), (0.0, 1.0), ("float16", 2.0)])
def test_linspace_dtype_of_integer_and_float_endpoints_matches_tf(start, stop):
    def run(lib):
        first = lib.constant(1, getattr(lib, start)) if isinstance(start, str) else start
        out = lib.linspace(first, stop, 6)
        return out.dtype.name, out.numpy()

    (ours_dtype, ours), (tf_dtype, theirs) = run(minitf), run(tf)
    assert ours_dtype == tf_dtype
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_linspace_stop_of_another_dtype_raises_as_tf():
    for lib in (minitf, tf):
        with pytest.raises(TypeError):
            lib.linspace(0, 1.5, 3)
