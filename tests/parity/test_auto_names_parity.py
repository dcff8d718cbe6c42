"""Automatic model and layer names against Keras 3: the same construction script runs under
`keras` and `minitf.keras`, each after clear_session(), and every name must agree (Keras 3's
Sequential wraps its graph in a Functional that takes a 'functional' name, the InputLayer made
from `input_shape=` is 'input_layer_N', clear_session() restarts the counters)."""
import pytest

import minitf
from parity_auto_names import SCRIPTS

keras = pytest.importorskip("keras")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.__name__)
def test_names_match_keras(script, tf_ref):
    keras.backend.clear_session()
    want = script(keras)
    minitf.keras.backend.clear_session()
    got = script(minitf.keras)
    assert got == want


def test_tf_keras_clear_session_restarts_both(tf_ref):
    for k, clear in ((keras, tf_ref.keras.backend.clear_session),
                     (minitf.keras, minitf.keras.backend.clear_session)):
        k.Sequential([k.Input((4,)), k.layers.Dense(2)])
        clear()
        model = k.Sequential([k.Input((4,)), k.layers.Dense(2)])
        inp = k.Input((4,))
        assert [model.name, model.layers[0].name, k.Model(inp, inp).name] == \
            ["sequential", "dense", "functional_1"]


def test_weights_follow_keras_layer_order(tf_ref):
    def weight_paths(k):
        k.backend.clear_session()
        a, b = k.Input((4,)), k.Input((3,))
        h = k.layers.Dense(3)(k.layers.Dense(5)(a))
        shared = k.layers.Dense(3)
        model = k.Model([a, b], [k.layers.Add()([shared(h), shared(b)]), k.layers.Dense(1)(h)])
        return [(w.path, tuple(w.shape)) for w in model.weights]
    assert weight_paths(minitf.keras) == weight_paths(keras)
