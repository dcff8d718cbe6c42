"""LossScaleOptimizer: exact loss-scale dynamics, the custom loops, configs and model.fit wrapping."""
import numpy as np
import pytest

import minitf as tf

mp = tf.keras.mixed_precision


def _sgd_lso(**kwargs):
    return mp.LossScaleOptimizer(tf.keras.optimizers.SGD(1.0), **kwargs)


def test_defaults_and_config():
    tf.keras.backend.clear_session()  # the default name counts optimizers made by earlier tests
    opt = _sgd_lso()
    assert (opt.initial_scale, opt.dynamic_growth_steps, opt.name) == (2.0 ** 15, 2000, "loss_scale_optimizer")
    cfg = opt.get_config()
    assert cfg["initial_scale"] == 32768.0 and cfg["dynamic_growth_steps"] == 2000
    assert cfg["inner_optimizer"]["class_name"] == "SGD"
    again = tf.keras.optimizers.deserialize(tf.keras.optimizers.serialize(opt))
    assert isinstance(again, mp.LossScaleOptimizer) and isinstance(again.inner_optimizer, tf.keras.optimizers.SGD)
    assert again.get_config() == cfg


def test_refuses_keras_2_arguments():
    with pytest.raises(ValueError, match="dynamic=False"):
        _sgd_lso(dynamic=False)
    with pytest.raises(ValueError, match="does not support `clipnorm`"):
        _sgd_lso(clipnorm=1.0)
    with pytest.raises(ValueError, match="does not support arguments: `foo`"):
        _sgd_lso(foo=1)


def test_scale_skip_halve_grow_exactly():
    opt = _sgd_lso(initial_scale=8.0, dynamic_growth_steps=3)
    v = tf.Variable([1.0, 2.0])
    assert float(opt.scale_loss(tf.constant(2.0))) == 16.0  # before building: the initial scale
    # a non-finite step is skipped: variables and iterations untouched, scale halved
    opt.apply_gradients([(tf.constant([np.inf, 1.0]), v)])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert (float(opt.dynamic_scale.numpy()), int(opt.step_counter.numpy()), int(opt.iterations.numpy())) == (4, 0, 0)
    opt.apply_gradients([(tf.constant([np.nan, 1.0]), v)])
    assert float(opt.dynamic_scale.numpy()) == 2.0
    # finite steps: gradients divided by the scale, counter counts to growth_steps - 1, then doubles
    history = []
    for _ in range(4):
        opt.apply_gradients([(tf.constant([2.0, 4.0]), v)])
        history.append((float(opt.dynamic_scale.numpy()), int(opt.step_counter.numpy())))
    assert history == [(2.0, 1), (2.0, 2), (4.0, 0), (4.0, 1)]
    # scales 2, 2, 2, 4: SGD(1.0) steps of grad/scale
    np.testing.assert_allclose(v.numpy(), [1.0 - 3 * 1.0 - 0.5, 2.0 - 3 * 2.0 - 1.0])
    assert int(opt.iterations.numpy()) == 4
    assert float(opt.scale_loss(tf.constant(2.0))) == 8.0
    # a float16 loss is scaled in float32 (no float16 overflow)
    big = opt.scale_loss(tf.constant(60000.0, "float16"))
    assert big.dtype == tf.float32 and np.isfinite(big.numpy())


def test_variables_in_keras_order():
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.Adam(0.1))
    v = tf.Variable([1.0, 2.0])
    opt.apply_gradients([(tf.constant([1.0, 1.0]), v)])
    names = [w.name.split(":")[0] for w in opt.variables]
    assert names[:4] == ["iteration", "learning_rate", "step_counter", "dynamic_scale"]
    assert len(opt.variables) == 4 + len(opt.inner_optimizer.variables)
    assert float(opt.learning_rate.numpy()) == pytest.approx(0.1)
    opt.learning_rate = 0.5
    assert float(opt.inner_optimizer.learning_rate.numpy()) == 0.5


def test_guide_custom_loop_does_not_unscale_twice():
    x = tf.constant([[1.0, 2.0]])
    w1, w2 = tf.Variable([[0.5], [0.25]]), tf.Variable([[0.5], [0.25]])
    opt1, opt2 = _sgd_lso(initial_scale=1024.0), _sgd_lso(initial_scale=1024.0)
    with tf.GradientTape() as tape:  # Keras 3's loop: scale_loss, apply unscales
        loss = tf.reduce_sum(tf.matmul(x, w1))
        scaled = opt1.scale_loss(loss)
    opt1.apply_gradients([(tape.gradient(scaled, w1), w1)])
    with tf.GradientTape() as tape:  # the TF guide's Keras 2 loop
        loss = tf.reduce_sum(tf.matmul(x, w2))
        scaled = opt2.get_scaled_loss(loss)
    grads = opt2.get_unscaled_gradients([tape.gradient(scaled, w2)])
    np.testing.assert_allclose(grads[0].numpy(), [[1.0], [2.0]])
    opt2.apply_gradients(zip(grads, [w2]))
    np.testing.assert_allclose(w1.numpy(), [[-0.5], [-1.75]])
    np.testing.assert_allclose(w2.numpy(), w1.numpy())


def test_loss_scale_factor_on_a_plain_optimizer():
    opt = tf.keras.optimizers.SGD(1.0, loss_scale_factor=4.0)
    assert float(opt.scale_loss(tf.constant(2.0))) == 8.0
    v = tf.Variable([1.0])
    opt.apply_gradients([(tf.constant([4.0]), v)])
    np.testing.assert_allclose(v.numpy(), [0.0])


def test_compile_wraps_under_mixed_float16_only():
    mp.set_global_policy("mixed_float16")
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    assert isinstance(model.optimizer, mp.LossScaleOptimizer)
    assert isinstance(model.optimizer.inner_optimizer, tf.keras.optimizers.SGD)
    model.compile(optimizer="sgd", loss="mse", auto_scale_loss=False)
    assert isinstance(model.optimizer, tf.keras.optimizers.SGD)
    mp.set_global_policy("float32")
    plain = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    plain.compile(optimizer="sgd", loss="mse")
    assert isinstance(plain.optimizer, tf.keras.optimizers.SGD)


def test_fit_scales_the_loss_and_recovers_from_overflow():
    mp.set_global_policy("mixed_float16")
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    # 2**30 overflows float16 gradients at once: the first steps are skipped and halve the scale
    model.compile(optimizer=mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.05), initial_scale=2.0 ** 30),
                  loss="mse")
    x = np.random.RandomState(0).rand(32, 2).astype("float32")
    y = x @ np.array([[1.0], [-1.0]], "float32")
    before = model.get_weights()
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    assert float(model.optimizer.dynamic_scale.numpy()) == 2.0 ** 29
    assert int(model.optimizer.iterations.numpy()) == 0
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)
    history = model.fit(x, y, batch_size=32, epochs=40, verbose=0)
    assert float(model.optimizer.dynamic_scale.numpy()) < 2.0 ** 20
    assert history.history["loss"][-1] < history.history["loss"][0]
