"""model.summary() against Keras 3 (TF 2.21's tf.keras): the same models built with both libraries
print the same text, character for character, captured through print_fn (which both call once,
with the whole table). Keras draws the table with rich; minitf lays out the same characters
itself. The terminal width is pinned through $COLUMNS, which both read."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")


def _sequential(lib):
    k = lib.keras
    return k.Sequential([k.Input((5,)), k.layers.Dense(6, name="dense"),
                         k.layers.Dense(1, name="a_very_long_layer_name_that_is_longer_than_column")],
                        name="seq")


def _branches(lib):
    k = lib.keras
    i = k.Input((5,), name="inp")
    a = k.layers.Dense(3, name="d1")(i)
    b = k.layers.Dense(3, name="d2")(i)
    return k.Model(i, k.layers.Add(name="add")([a, b]), name="func")


def _multi_shared(lib):
    k = lib.keras
    a, b = k.Input((3,), name="a"), k.Input((2,), name="b")
    c = k.layers.Concatenate(name="cat")([k.layers.Dense(2, name="da")(a), b])
    shared = k.layers.Dense(5, name="shared")
    y1 = shared(c)
    y2 = shared(k.layers.Dense(4, name="p")(y1))
    return k.Model([a, b], [y1, y2], name="multi")


def _nested(lib):
    k = lib.keras
    inner = k.Sequential([k.Input((4,)), k.layers.Dense(3, name="id1"),
                          k.layers.BatchNormalization(name="bn")], name="inner")
    i = k.Input((4,), name="x")
    return k.Model(i, k.layers.Dense(2, name="head")(inner(i)), name="outer")


def _two_outputs(lib):
    k = lib.keras
    i = k.Input((4,), name="x")
    h = k.layers.Dense(3, name="h")(i)
    return k.Model(i, [k.layers.Dense(1, name="o1")(h), k.layers.Dense(2, name="o2")(h)], name="two")


def _unbuilt(lib):
    k = lib.keras
    return k.Sequential([k.layers.Dense(3, name="d"), k.layers.Dense(2, name="e")], name="unb")


def _empty(lib):
    return lib.keras.Sequential(name="empty")


def _subclassed(lib, call):
    k = lib.keras

    class MLP(k.Model):
        def __init__(self):
            super().__init__(name="mlp")
            self.hidden = k.layers.Dense(3, name="h1")
            self.out = k.layers.Dense(1, name="h2")

        def call(self, x):
            return self.out(self.hidden(x))

    m = MLP()
    if call:
        m(np.zeros((2, 4), "float32"))
    return m


def _trained(lib):
    m = _nested(lib)
    m.compile(optimizer="adam", loss="mse")
    m.fit(np.zeros((4, 4), "float32"), np.zeros((4, 2), "float32"), verbose=0)
    return m


CASES = {
    "sequential": (_sequential, {}),
    "sequential_trainable": (_sequential, {"show_trainable": True}),
    "branches": (_branches, {}),
    "branches_trainable": (_branches, {"show_trainable": True}),
    "branches_narrow": (_branches, {"line_length": 60}),
    "branches_wider_than_console": (_branches, {"line_length": 120}),
    "multi_shared": (_multi_shared, {}),
    "multi_shared_positions": (_multi_shared, {"line_length": 70, "positions": [0.5, 0.7, 0.8, 1.0]}),
    "nested": (_nested, {}),
    "nested_expanded": (_nested, {"expand_nested": True, "show_trainable": True}),
    "nested_range": (_nested, {"layer_range": ["x", "inner"]}),
    "two_outputs": (_two_outputs, {}),
    "unbuilt": (_unbuilt, {}),
    "empty": (_empty, {}),
    "subclassed_unbuilt": (lambda lib: _subclassed(lib, False), {}),
    "subclassed_called": (lambda lib: _subclassed(lib, True), {}),
    "optimizer_params": (_trained, {}),
}


def _text(lib, build, kwargs):
    calls = []
    build(lib).summary(print_fn=lambda text, **kw: calls.append(text), **kwargs)
    assert len(calls) == 1  # one call with the whole table, in both libraries
    return calls[0]


@pytest.mark.parametrize("columns", ["80", "200"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_summary_text_matches_keras(case, columns, monkeypatch):
    monkeypatch.setenv("COLUMNS", columns)
    build, kwargs = CASES[case]
    ours = _text(minitf, build, kwargs)
    theirs = _text(tf_ref, build, kwargs)
    assert ours == theirs, f"minitf:\n{ours}\nKeras:\n{theirs}"


def test_insufficient_width_is_keras_value_error(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    for lib in (minitf, tf_ref):
        with pytest.raises(ValueError, match="Insufficient console width"):
            _branches(lib).summary(print_fn=lambda *a, **k: None, line_length=10)
