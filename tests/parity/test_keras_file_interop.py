"""'.keras' interop with real Keras 3: a whole model saved by one side loads in the other with the
same outputs, the same compile config and the same optimizer state, for Sequential, functional
(nested models, several outputs) and registered subclassed models."""
import numpy as np
import pytest

import minitf
from test_keras_weights_interop import _make, _outputs

tf_ref = pytest.importorskip("tensorflow")

KINDS = ["sequential_conv", "sequential_text", "functional"]


def _train(lib, model, x):
    """Compile with Adam and take two steps, so the optimizer has slots and a step count."""
    outputs = model(x)
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    targets = [np.random.RandomState(0).normal(size=o.shape).astype("float32") for o in outputs]
    model.compile(optimizer=lib.keras.optimizers.Adam(0.01), loss=["mse"] * len(targets), metrics=None)
    model.fit(x, targets if len(targets) > 1 else targets[0], epochs=2, batch_size=2, verbose=0)


def _same_state(a, b, x):
    for u, v in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_array_equal(u, v)
    assert len(a.optimizer.variables) == len(b.optimizer.variables)
    for u, v in zip(a.optimizer.variables, b.optimizer.variables):
        np.testing.assert_array_equal(np.asarray(u), np.asarray(v))
    assert type(a.optimizer).__name__ == type(b.optimizer).__name__
    assert float(np.asarray(a.optimizer.learning_rate)) == pytest.approx(float(np.asarray(b.optimizer.learning_rate)))
    for u, v in zip(_outputs(a, x), _outputs(b, x)):
        np.testing.assert_allclose(u, v, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("kind", KINDS)
def test_keras_file_loads_in_minitf(kind, tmp_path):
    ref, x = _make(tf_ref, kind)
    _train(tf_ref, ref, x)
    ref.save(tmp_path / "m.keras")
    mine = minitf.keras.models.load_model(tmp_path / "m.keras")
    _same_state(ref, mine, x)


@pytest.mark.parametrize("kind", KINDS)
def test_minitf_file_loads_in_keras(kind, tmp_path):
    mine, x = _make(minitf, kind)
    _train(minitf, mine, x)
    mine.save(tmp_path / "m.keras")
    ref = tf_ref.keras.models.load_model(tmp_path / "m.keras")
    _same_state(mine, ref, x)


def _registered_net(lib):
    """The same subclassed model class in `lib`, registered as 'interop>Net'."""
    @lib.keras.utils.register_keras_serializable(package="interop")
    class Net(lib.keras.Model):
        def __init__(self, units=3, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.hidden = lib.keras.layers.Dense(units, activation="relu")
            self.head = lib.keras.layers.Dense(2)

        def call(self, inputs):
            return self.head(self.hidden(inputs))

        def get_config(self):
            return {**super().get_config(), "units": self.units}
    return Net


@pytest.mark.parametrize("writer", ["keras", "minitf"])
def test_registered_subclassed_models_move_both_ways(writer, tmp_path):
    libs = {"keras": tf_ref, "minitf": minitf}
    reader = "minitf" if writer == "keras" else "keras"
    classes = {name: _registered_net(lib) for name, lib in libs.items()}
    x = np.random.RandomState(1).normal(size=(4, 5)).astype("float32")
    saved = classes[writer](7)
    _train(libs[writer], saved, x)
    saved.save(tmp_path / "net.keras")
    loaded = libs[reader].keras.models.load_model(tmp_path / "net.keras")
    assert type(loaded) is classes[reader] and loaded.units == 7
    _same_state(saved, loaded, x)
