"""model.summary() in Keras 3's layout, without TensorFlow: the expected texts below are what
TF 2.21's Keras printed for the same models (tests/parity/test_summary_layout_parity.py compares
against Keras itself when TF is installed)."""
import io
import sys

import numpy as np
import pytest

from minitf import layers
from minitf.models import Input, Model, Sequential
from minitf.models.summary import get_layer_index_bound_by_layer_name, readable_memory_size


@pytest.fixture(autouse=True)
def _terminal_80(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # Keras sizes the table to the terminal (80 - 4)


def _summary(model, **kwargs):
    calls = []
    model.summary(print_fn=calls.append, **kwargs)
    assert len(calls) == 1
    return calls[0]


SEQUENTIAL = """\
Model: "seq"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ dense (Dense)                   │ (None, 6)              │            36 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ a_very_long_layer_name_that_is… │ (None, 1)              │             7 │
│ (Dense)                         │                        │               │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 43 (172.00 B)
 Trainable params: 43 (172.00 B)
 Non-trainable params: 0 (0.00 B)
"""

BRANCHES_60 = """\
Model: "func"
┏━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━┳━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)    ┃ Output Shape ┃ Param # ┃ Connected to  ┃
┡━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━╇━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ inp             │ (None, 5)    │       0 │ -             │
│ (InputLayer)    │              │         │               │
├─────────────────┼──────────────┼─────────┼───────────────┤
│ d1 (Dense)      │ (None, 3)    │      18 │ inp[0][0]     │
├─────────────────┼──────────────┼─────────┼───────────────┤
│ d2 (Dense)      │ (None, 3)    │      18 │ inp[0][0]     │
├─────────────────┼──────────────┼─────────┼───────────────┤
│ add (Add)       │ (None, 3)    │       0 │ d1[0][0],     │
│                 │              │         │ d2[0][0]      │
└─────────────────┴──────────────┴─────────┴───────────────┘
 Total params: 36 (144.00 B)
 Trainable params: 36 (144.00 B)
 Non-trainable params: 0 (0.00 B)
"""

NESTED_EXPANDED = """\
Model: "outer"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━┓
┃ Layer (type)                ┃ Output Shape          ┃    Param # ┃ Trai… ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━┩
│ x (InputLayer)              │ (None, 4)             │          0 │   -   │
├─────────────────────────────┼───────────────────────┼────────────┼───────┤
│ inner (Sequential)          │ (None, 3)             │         27 │   Y   │
├─────────────────────────────┼───────────────────────┼────────────┼───────┤
│    └ id1 (Dense)            │ (None, 3)             │         15 │   Y   │
├─────────────────────────────┼───────────────────────┼────────────┼───────┤
│    └ bn                     │ (None, 3)             │         12 │   Y   │
│ (BatchNormalization)        │                       │            │       │
├─────────────────────────────┼───────────────────────┼────────────┼───────┤
│ head (Dense)                │ (None, 2)             │          8 │   Y   │
└─────────────────────────────┴───────────────────────┴────────────┴───────┘
 Total params: 35 (140.00 B)
 Trainable params: 29 (116.00 B)
 Non-trainable params: 6 (24.00 B)
"""

UNBUILT = """\
Model: "unb"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ d (Dense)                       │ ?                      │   0 (unbuilt) │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 0 (0.00 B)
 Trainable params: 0 (0.00 B)
 Non-trainable params: 0 (0.00 B)
"""


def _nested():
    inner = Sequential([Input((4,)), layers.Dense(3, name="id1"),
                        layers.BatchNormalization(name="bn")], name="inner")
    x = Input((4,), name="x")
    return Model(x, layers.Dense(2, name="head")(inner(x)), name="outer")


def test_sequential_table_and_long_name_wrapping():
    m = Sequential([Input((5,)), layers.Dense(6, name="dense"),
                    layers.Dense(1, name="a_very_long_layer_name_that_is_longer_than_column")], name="seq")
    assert _summary(m) == SEQUENTIAL


def test_functional_branches_connected_to_column_and_line_length():
    i = Input((5,), name="inp")
    out = layers.Add(name="add")([layers.Dense(3, name="d1")(i), layers.Dense(3, name="d2")(i)])
    assert _summary(Model(i, out, name="func"), line_length=60) == BRANCHES_60


def test_nested_model_expanded_with_trainable_column():
    assert _summary(_nested(), expand_nested=True, show_trainable=True) == NESTED_EXPANDED


def test_unbuilt_model_prints_question_marks_instead_of_raising():
    assert _summary(Sequential([layers.Dense(3, name="d")], name="unb")) == UNBUILT


def test_optimizer_params_once_the_optimizer_is_built():
    m = _nested()
    m.compile(optimizer="sgd", loss="mse")
    assert "Optimizer params" not in _summary(m)
    m.compile(optimizer="adam", loss="mse")
    m.fit(np.zeros((4, 4), "float32"), np.zeros((4, 2), "float32"), verbose=0)
    lines = _summary(m).splitlines()
    opt = [line for line in lines if line.startswith(" Optimizer params: ")]
    assert len(opt) == 1 and lines[-1] == opt[0]
    count = int(opt[0].split(": ")[1].split(" ")[0])
    assert count == 1 + 1 + 2 * 29  # iterations, learning rate, Adam's two slots per trainable scalar
    assert lines[-4] == f" Total params: {35 + count:,} (384.00 B)"


def test_layer_range_and_its_errors():
    text = _summary(_nested(), layer_range=["x", "inner"])
    assert "inner (Sequential)" in text and "head (Dense)" not in text
    names = [layers.Dense(1, name=n) for n in ("a", "b", "c")]
    assert get_layer_index_bound_by_layer_name(names, ["c", "a"]) == [0, 3]
    with pytest.raises(ValueError, match="length 2"):
        get_layer_index_bound_by_layer_name(names, ["a"])
    with pytest.raises(ValueError, match="do not match"):
        get_layer_index_bound_by_layer_name(names, ["zz", "a"])


def test_width_errors_and_default_print_to_stdout(monkeypatch):
    m = _nested()
    with pytest.raises(ValueError, match="Insufficient console width"):
        m.summary(line_length=10)
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stdout", buf)
    m.summary()
    assert buf.getvalue() == _summary(m)


def test_wider_terminal_gives_keras_default_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    lines = _summary(_nested()).splitlines()
    assert len(lines[1]) == 88  # Keras' default line length for sequential-like models


def test_readable_memory_size():
    assert readable_memory_size(184) == "184.00 B"
    assert readable_memory_size(1536) == "1.50 KB"
    assert readable_memory_size(3 * 1024 ** 2) == "3.00 MB"
