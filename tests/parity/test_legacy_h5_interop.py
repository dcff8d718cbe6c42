"""Legacy whole-model '.h5' interop with real Keras 3: a model saved by one side with
`model.save("x.h5")` loads in the other with the same weights and outputs, compiled the same
way, for Sequential, functional (nested models, several outputs) and registered subclassed
models; minitf reads the optimizer state Keras writes."""
import numpy as np
import pytest

import minitf
from test_keras_weights_interop import _make, _outputs

tf_ref = pytest.importorskip("tensorflow")

KINDS = ["sequential_conv", "sequential_text", "functional"]
LIBS = {"keras": tf_ref, "minitf": minitf}


def _train(lib, model, x):
    """Compile with Adam and loss objects (Keras 3 cannot read back loss names from an H5 file)
    and take two steps, so the optimizer has slots and a step count."""
    outputs = model(x)
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    targets = [np.random.RandomState(0).normal(size=o.shape).astype("float32") for o in outputs]
    losses = [lib.keras.losses.MeanSquaredError() for _ in targets]
    model.compile(optimizer=lib.keras.optimizers.Adam(0.01), loss=losses if len(losses) > 1 else losses[0])
    model.fit(x, targets if len(targets) > 1 else targets[0], epochs=2, batch_size=2, verbose=0)


def _same_model(a, b, x):
    for u, v in zip(a.get_weights(), b.get_weights(), strict=True):
        np.testing.assert_array_equal(u, v)
    for u, v in zip(_outputs(a, x), _outputs(b, x), strict=True):
        np.testing.assert_allclose(u, v, rtol=2e-5, atol=2e-5)
    assert type(a.optimizer).__name__ == type(b.optimizer).__name__
    assert float(np.asarray(a.optimizer.learning_rate)) == pytest.approx(float(np.asarray(b.optimizer.learning_rate)))
    assert int(np.asarray(a.optimizer.iterations)) == int(np.asarray(b.optimizer.iterations))


@pytest.mark.parametrize("kind", KINDS)
def test_keras_h5_file_loads_in_minitf(kind, tmp_path):
    ref, x = _make(tf_ref, kind)
    _train(tf_ref, ref, x)
    ref.save(tmp_path / "m.h5")
    mine = minitf.keras.models.load_model(tmp_path / "m.h5")
    _same_model(ref, mine, x)
    # the whole optimizer state, slots included
    assert len(mine.optimizer.variables) == len(ref.optimizer.variables) > 2
    for u, v in zip(ref.optimizer.variables, mine.optimizer.variables):
        np.testing.assert_array_equal(np.asarray(u), np.asarray(v))
    assert type(mine.loss if not isinstance(mine.loss, list) else mine.loss[0]).__name__ == "MeanSquaredError"


@pytest.mark.parametrize("kind", KINDS)
def test_minitf_h5_file_loads_in_keras(kind, tmp_path):
    mine, x = _make(minitf, kind)
    _train(minitf, mine, x)
    with pytest.warns(UserWarning, match="considered legacy"):
        mine.save(tmp_path / "m.h5")
    ref = tf_ref.keras.models.load_model(tmp_path / "m.h5")
    assert ref.compiled
    _same_model(mine, ref, x)


def _self_building_net(lib):
    """The same subclassed model class in `lib`, registered as 'legacy_interop>Net'; it builds
    itself in __init__, since an H5 file can refill only layers that exist after construction."""
    @lib.keras.utils.register_keras_serializable(package="legacy_interop")
    class Net(lib.keras.Model):
        def __init__(self, units=3, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.hidden = lib.keras.layers.Dense(units, activation="relu")
            self.head = lib.keras.layers.Dense(2)
            self.build((None, 5))

        def build(self, input_shape):
            self.hidden.build(input_shape)
            self.head.build((None, self.units))
            self.built = True

        def call(self, inputs):
            return self.head(self.hidden(inputs))

        def get_config(self):
            return {**super().get_config(), "units": self.units}
    return Net


@pytest.mark.parametrize("writer", ["keras", "minitf"])
def test_registered_subclassed_models_move_both_ways(writer, tmp_path):
    reader = "minitf" if writer == "keras" else "keras"
    classes = {name: _self_building_net(lib) for name, lib in LIBS.items()}
    x = np.random.RandomState(1).normal(size=(4, 5)).astype("float32")
    saved = classes[writer](7)
    for var in saved.weights:
        var.assign(np.random.RandomState(2).normal(size=var.shape).astype("float32"))
    if writer == "minitf":
        with pytest.warns(UserWarning, match="considered legacy"):
            saved.save(tmp_path / "net.h5")
    else:
        saved.save(tmp_path / "net.h5")
    # both sides store the top-level class by its class name and find it through custom_objects
    loaded = LIBS[reader].keras.models.load_model(tmp_path / "net.h5", custom_objects={"Net": classes[reader]})
    assert type(loaded) is classes[reader] and loaded.units == 7
    for u, v in zip(saved.get_weights(), loaded.get_weights(), strict=True):
        np.testing.assert_array_equal(u, v)
    np.testing.assert_allclose(np.asarray(saved(x)), np.asarray(loaded(x)), rtol=2e-5, atol=2e-5)
