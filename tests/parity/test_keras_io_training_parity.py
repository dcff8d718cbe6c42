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
