"""Automatic model and layer names follow Keras 3's counters (expected lists recorded from
Keras 3.15 running tests/parity/parity_auto_names.py; the parity suite checks them live)."""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import minitf as tf

_spec = importlib.util.spec_from_file_location(
    "parity_auto_names", os.path.join(os.path.dirname(__file__), os.pardir, "parity", "parity_auto_names.py"))
scripts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scripts)

KERAS_NAMES = [
    ('sequential_then_functional', ['sequential', 'dense', 'dense_1', 'functional_1', 'input_layer_1', 'dense_3',
                                    'dense_2']),
    ('sequential_input_shape', ['sequential', 'dense', 'dense_1', 'input_layer', 'functional_1', 'input_layer_1',
                                'dense_2']),
    ('sequential_add', ['sequential', 'dense', 'dense_1', 'functional_2', 'input_layer_1', 'dense_2']),
    ('sequential_lazy_call', ['sequential', 'dense', 'dense_1', 'functional_1', 'input_layer_1', 'dense_2']),
    ('sequential_build', ['sequential', 'dense', 'dense_1', 'sequential_1', 'dense_2', 'functional_1',
                          'input_layer_1', 'dense_3']),
    ('two_sequentials', ['sequential', 'dense', 'sequential_1', 'dense_1', 'functional_2', 'input_layer_2',
                         'dense_2']),
    ('subclassed', ['my_model', 'dense', 'dense_1', 'my_model_1', 'functional', 'input_layer', 'dense_4']),
    ('nested', ['sequential', 'dense', 'dense_1', 'functional_1', 'input_layer', 'sequential', 'dense', 'dense_1',
                'dense_2', 'sequential_1', 'functional_1', 'input_layer', 'sequential', 'dense', 'dense_1', 'dense_2',
                'dense_3', 'functional_3', 'input_layer_3', 'dense_4']),
    ('model_first_in_sequential', ['sequential', 'functional', 'input_layer', 'dense', 'dense_1', 'functional_2',
                                   'input_layer_2', 'dense_2']),
    ('after_clear_session', ['sequential', 'dense', 'functional_1', 'input_layer_1', 'dense_1']),
    ('compile_and_fit', ['sequential', 'dense', 'adam', 'functional_1', 'input_layer_1', 'dense_1']),
    ('pop_layer', ['sequential', 'dense', 'functional_2', 'input_layer_1', 'dense_2']),
    ('sequential_from_config', ['sequential', 'dense', 'dense_1', 'functional_3', 'input_layer_1', 'dense_2']),
    ('add_without_rebuild', [False, 'sequential', 'dense', 'dense_1', 'functional_1', 'input_layer_1', 'dense_2']),
    # a functional model's layers come deepest first (depth from the outputs), as Keras orders them
    ('branches_and_merges', ['functional', 'input_layer', 'dense', 'dense_1', 'add', 'concatenate', 'concatenate_1',
                             'functional_1', 'input_layer_1', 'dense_2']),
    ('inputs_at_different_depths', ['functional', 'input_layer', 'dense_1', 'dense', 'input_layer_1', 'dense_2',
                                    'input_layer_2', 'add', 'dense_3', 'functional_1', 'input_layer_3', 'dense_4']),
    ('nested_functional_in_functional', ['functional_1', 'input_layer_1', 'functional', 'input_layer', 'dense',
                                         'dense_1', 'multiply', 'functional_2', 'input_layer_2', 'dense_2']),
]


def test_every_script_has_recorded_names():
    assert [s.__name__ for s in scripts.SCRIPTS] == [name for name, _ in KERAS_NAMES]


@pytest.mark.parametrize("name,want", KERAS_NAMES, ids=[n for n, _ in KERAS_NAMES])
def test_names_follow_keras(name, want):
    tf.keras.backend.clear_session()
    assert getattr(scripts, name)(tf.keras) == want


def test_each_trace_of_a_sequential_takes_a_functional_name():
    tf.keras.backend.clear_session()
    seq = tf.keras.Sequential([tf.keras.Input((3,))])
    assert tf.keras.Model(seq.inputs, seq.inputs).name == "functional"  # no layers yet: no trace
    for units in (4, 5, 6):
        seq.add(tf.keras.layers.Dense(units))
    inp = tf.keras.Input((3,))
    assert tf.keras.Model(inp, inp).name == "functional_4"


def test_add_without_rebuild_traces_on_build_and_on_call():
    tf.keras.backend.clear_session()
    seq = tf.keras.Sequential([tf.keras.Input((3,))])
    seq.add(tf.keras.layers.Dense(4), rebuild=False)
    seq.add(tf.keras.layers.Dense(2), rebuild=False)
    assert not seq.built
    out = seq(np.ones((5, 3), "float32"))
    assert out.shape == (5, 2) and seq.built
    assert seq.outputs[0].shape.as_list() == [None, 2]


def test_pop_without_rebuild_drops_the_graph_until_build():
    tf.keras.backend.clear_session()
    seq = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4), tf.keras.layers.Dense(2)])
    seq.pop(rebuild=False)
    assert not seq.built
    seq.build((None, 3))
    assert seq.outputs[0].shape.as_list() == [None, 4]


def test_input_shape_argument_makes_a_plain_input_layer():
    tf.keras.backend.clear_session()
    seq = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    config = seq.get_config()
    assert config["layers"][0]["class_name"] == "InputLayer"
    assert config["layers"][0]["config"]["name"] == "input_layer"


def test_clear_session_restarts_names_in_a_program_without_layers():
    # Keras 3.15: a process that only makes optimizers gets 'loss_scale_optimizer' again after
    # clear_session (the reset must not depend on the layers package having been imported)
    code = ("import minitf as tf\n"
            "mp, sgd = tf.keras.mixed_precision, tf.keras.optimizers.SGD\n"
            "names = [mp.LossScaleOptimizer(sgd()).name, mp.LossScaleOptimizer(sgd()).name]\n"
            "tf.keras.backend.clear_session()\n"
            "names += [mp.LossScaleOptimizer(sgd()).name, sgd().name]\n"
            "import sys; assert 'minitf.layers.base' not in sys.modules, 'layers loaded'\n"
            "print(names)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['loss_scale_optimizer', 'loss_scale_optimizer_1', 'loss_scale_optimizer', 'sgd_1']"
