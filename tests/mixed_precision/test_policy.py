"""Dtype policies and how layers apply them (Keras 3's names, errors and configs)."""
import numpy as np
import pytest

import minitf as tf

mp = tf.keras.mixed_precision
L = tf.keras.layers


@pytest.mark.parametrize("name,compute,variable", [
    ("float32", "float32", "float32"), ("float16", "float16", "float16"), ("float64", "float64", "float64"),
    ("mixed_float16", "float16", "float32"), ("mixed_bfloat16", "bfloat16", "float32"),
    ("bfloat16", "bfloat16", "bfloat16")])
def test_policy_dtypes(name, compute, variable):
    p = mp.Policy(name)
    assert (p.name, p.compute_dtype, p.variable_dtype) == (name, compute, variable)
    assert repr(p) == f'<DTypePolicy "{name}">'
    assert p.get_config() == {"name": name}
    assert mp.DTypePolicy.from_config(p.get_config()) == p


def test_aliases_are_keras_3s():
    assert mp.Policy is mp.DTypePolicy
    assert mp.set_global_policy is mp.set_dtype_policy
    assert mp.global_policy is mp.dtype_policy
    assert tf.keras.optimizers.LossScaleOptimizer is mp.LossScaleOptimizer


def test_policy_errors():
    with pytest.raises(TypeError, match="must be a string"):
        mp.Policy(3)
    with pytest.raises(ValueError, match="Cannot convert 'int7'"):
        mp.Policy("int7")
    with pytest.raises(ValueError, match="Invalid `policy` argument"):
        mp.set_global_policy(3)
    with pytest.raises(ValueError, match="Cannot interpret `dtype`"):
        L.Dense(2, dtype=[1])
    with pytest.raises(TypeError, match="unhashable"):
        hash(mp.Policy("float32"))


def test_global_policy_applies_to_new_layers_and_clear_session_resets_it():
    assert mp.global_policy() == mp.Policy("float32")
    mp.set_global_policy("mixed_float16")
    assert mp.global_policy().name == "mixed_float16"
    d = L.Dense(2)
    assert (d.dtype, d.compute_dtype, d.variable_dtype) == ("float32", "float16", "float32")
    assert d.dtype_policy == mp.Policy("mixed_float16")
    assert L.Dense(2, dtype="float32").compute_dtype == "float32"
    mp.set_global_policy("float32")
    assert d.compute_dtype == "float16"  # fixed when the layer was made
    mp.set_global_policy(mp.Policy("mixed_float16"))
    tf.keras.backend.clear_session()
    assert mp.global_policy().name == "float32"


def test_bfloat16_policies_are_refused_with_the_reason():
    with pytest.raises(NotImplementedError, match="numpy has no bfloat16"):
        mp.set_global_policy("mixed_bfloat16")
    assert mp.global_policy().name == "float32"
    with pytest.raises(NotImplementedError, match="mixed_bfloat16"):
        L.Dense(2, dtype="mixed_bfloat16")
    with pytest.raises(NotImplementedError, match="bfloat16"):
        L.Dense(2, dtype=tf.bfloat16)


def test_mixed_layer_keeps_float32_weights_and_computes_in_float16():
    d = L.Dense(3, dtype="mixed_float16")
    x = np.arange(6, dtype="float32").reshape(2, 3) / 7
    with tf.GradientTape() as tape:
        y = d(x)
        loss = tf.reduce_sum(tf.cast(y, "float32") ** 2)
    assert y.dtype == tf.float16
    assert d.kernel.dtype == tf.float32 and d.bias.dtype == tf.float32
    grads = tape.gradient(loss, d.trainable_weights)
    assert [g.dtype for g in grads] == [tf.float32, tf.float32]
    # the float16 result is the float32 computation rounded through float16 operands
    k16 = d.kernel.numpy().astype("float16")
    expected = (x.astype("float16") @ k16 + d.bias.numpy().astype("float16"))
    np.testing.assert_allclose(y.numpy(), expected, rtol=2e-3, atol=2e-3)
    # outside call, the weights read as themselves
    assert tf.convert_to_tensor(d.kernel).dtype == tf.float32


def test_weights_read_as_compute_dtype_inside_call_only():
    seen = {}

    class Probe(L.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(name="w", shape=(2,))
            self.raw = self.add_weight(name="raw", shape=(2,), autocast=False)

        def call(self, x):
            seen["w"] = tf.convert_to_tensor(self.w).dtype
            seen["raw"] = tf.convert_to_tensor(self.raw).dtype
            seen["x"] = x.dtype
            return x

    p = Probe(dtype="mixed_float16")
    p(np.ones((1, 2), "float32"))
    assert seen == {"w": tf.float16, "raw": tf.float32, "x": tf.float16}
    assert p.w.dtype == tf.float32
    p.autocast = False
    p(np.ones((1, 2), "float32"))
    assert seen["x"] == tf.float32  # no input cast either
    assert seen["w"] == tf.float16  # the layer's own scope still casts (compute != variable)


def test_integer_inputs_are_not_cast():
    emb = L.Embedding(10, 3, dtype="mixed_float16")
    out = emb(np.array([[1, 2]]))
    assert emb.embeddings.dtype == tf.float32
    assert out.dtype == tf.float16


def test_float32_output_layer_inside_mixed_model():
    mp.set_global_policy("mixed_float16")
    inputs = tf.keras.Input((4,))
    h = L.Dense(8, activation="relu")(inputs)
    h = L.Dense(3)(h)
    outputs = L.Activation("softmax", dtype="float32")(h)
    model = tf.keras.Model(inputs, outputs)
    y = model(np.random.rand(5, 4).astype("float32"))
    assert y.dtype == tf.float32
    assert model.layers[1].compute_dtype == "float16"
    assert model.output.dtype == tf.float32
    np.testing.assert_allclose(y.numpy().sum(axis=1), 1, rtol=1e-5)
    # a float32 Dense inside a mixed model reads its weights as float32 (the scope is replaced)
    dense32 = L.Dense(2, dtype="float32")
    seq = tf.keras.Sequential([L.Dense(4), dense32])
    assert seq(np.ones((1, 3), "float32")).dtype == tf.float32


def test_configs_round_trip_the_policy():
    d = L.Dense(2, dtype="mixed_float16")
    cfg = d.get_config()
    assert cfg["dtype"] == {"module": "keras", "class_name": "DTypePolicy",
                            "config": {"name": "mixed_float16"}, "registered_name": None}
    assert L.Dense.from_config(cfg).dtype_policy.name == "mixed_float16"
    assert L.Dense(2).get_config()["dtype"] == "float32"
    assert L.Dense(2, dtype="float64").get_config()["dtype"] == "float64"
    # Keras 3 writes the dict for float32 too; minitf reads it
    plain = dict(cfg, dtype={"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
                             "registered_name": None})
    assert L.Dense.from_config(plain).dtype_policy.name == "float32"


def test_keras_file_round_trip_keeps_policies(tmp_path):
    inputs = tf.keras.Input((3,))
    h = L.Dense(4, dtype="mixed_float16")(inputs)
    out = L.Activation("softmax", dtype="float32")(h)
    model = tf.keras.Model(inputs, out)
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    assert [lay.dtype_policy.name for lay in loaded.layers[1:]] == ["mixed_float16", "float32"]
    x = np.random.rand(2, 3).astype("float32")
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)


def test_dtype_policy_setter():
    d = L.Dense(2)
    d.dtype_policy = "mixed_float16"
    assert d.compute_dtype == "float16"
    assert d(np.ones((1, 3), "float32")).dtype == tf.float16


def test_keras_config_exports_the_policy_functions():
    assert tf.keras.config.set_dtype_policy is mp.set_global_policy
    assert tf.keras.config.dtype_policy is mp.global_policy
    tf.keras.config.set_dtype_policy("mixed_float16")
    assert tf.keras.config.dtype_policy().name == "mixed_float16"


def test_output_signature_has_the_compute_dtype():
    d = L.Dense(2, dtype="mixed_float16")
    assert d.compute_output_signature(tf.TensorSpec((None, 3))).dtype == tf.float16


def test_mixed_gradients_match_float32_within_float16_precision():
    x = np.random.RandomState(0).rand(4, 5).astype("float32")
    results = []
    for policy in ("float32", "mixed_float16"):
        d = L.Dense(3, dtype=policy)
        d.build((None, 5))
        d.set_weights([np.linspace(-1, 1, 15, dtype="float32").reshape(5, 3), np.array([0.1, 0.2, 0.3], "float32")])
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.cast(d(x), "float32") ** 2)
        results.append([g.numpy() for g in tape.gradient(loss, d.trainable_weights)])
    for g32, g16 in zip(*results):
        assert g16.dtype == np.float32
        np.testing.assert_allclose(g16, g32, rtol=5e-3, atol=5e-3)
