"""`gradient_accumulation_steps`: Keras 3's accumulate-then-average updates (no TensorFlow needed).

tests/parity/test_gradient_accumulation_parity.py compares the weights, the step counts and the
optimizer variables with Keras 3 itself.
"""
import numpy as np
import pytest

import minitf as tf

RS = np.random.RandomState(0)
W0 = RS.normal(size=(3, 2)).astype("float32")
GRADS = [RS.normal(size=(3, 2)).astype("float32") for _ in range(7)]


def _steps(optimizer, grads=GRADS):
    var = tf.Variable(W0)
    counts, values = [], []
    for g in grads:
        optimizer.apply_gradients([(tf.constant(g), var)])
        counts.append(int(optimizer.iterations))
        values.append(var.numpy().copy())
    return var, counts, values


def test_sgd_updates_every_n_steps_with_the_averaged_gradients():
    var, counts, values = _steps(tf.keras.optimizers.SGD(0.5, gradient_accumulation_steps=3))
    assert counts == [0, 0, 1, 1, 1, 2, 2]
    expected = W0 - 0.5 * (GRADS[0] + GRADS[1] + GRADS[2]) / 3
    np.testing.assert_array_equal(values[0], W0)
    np.testing.assert_array_equal(values[1], W0)
    np.testing.assert_allclose(values[2], expected, rtol=1e-6)
    np.testing.assert_allclose(values[4], expected, rtol=1e-6)
    expected = expected - 0.5 * (GRADS[3] + GRADS[4] + GRADS[5]) / 3
    np.testing.assert_allclose(values[5], expected, rtol=1e-6)


def test_the_step_variable_counts_every_step_and_accumulators_come_first():
    optimizer = tf.keras.optimizers.Adam(gradient_accumulation_steps=2)
    var, _, _ = _steps(optimizer, GRADS[:3])
    assert int(optimizer._iterations.numpy()) == 3          # the 'iteration' variable
    assert int(optimizer.iterations) == 1                   # Keras' iterations: 3 // 2
    names = [v.name.split(":")[0] for v in optimizer.variables]
    assert names[2].endswith("gradient_accumulator") and names[3].endswith("_m")
    np.testing.assert_allclose(optimizer.variables[2].numpy(), GRADS[2], rtol=1e-6)  # one step in


def test_adam_counts_update_steps_for_its_bias_correction():
    acc = tf.keras.optimizers.Adam(0.1, gradient_accumulation_steps=2)
    plain = tf.keras.optimizers.Adam(0.1)
    pairs = [(GRADS[2 * i] + GRADS[2 * i + 1]) / 2 for i in range(3)]
    _, _, with_accumulation = _steps(acc, GRADS[:6])
    _, _, without = _steps(plain, pairs)
    for i in range(3):
        np.testing.assert_allclose(with_accumulation[2 * i + 1], without[i], rtol=1e-5, atol=1e-7)


def test_clipping_applies_to_the_averaged_gradient_and_schedules_read_every_step():
    schedule = tf.keras.optimizers.schedules.PiecewiseConstantDecay([0], [1.0, 0.1])
    optimizer = tf.keras.optimizers.SGD(schedule, global_clipnorm=0.1, gradient_accumulation_steps=2)
    _, _, values = _steps(optimizer, GRADS[:2])
    average = (GRADS[0] + GRADS[1]) / 2
    # the schedule sees step 1 (the step count, as Keras 3 reads it): learning rate 0.1
    expected = W0 - 0.1 * average * (0.1 / np.linalg.norm(average))
    np.testing.assert_allclose(values[1], expected, rtol=1e-5)


def test_sparse_gradients_accumulate_densely():
    table = tf.Variable(np.zeros((4, 2), "float32"))
    optimizer = tf.keras.optimizers.SGD(1.0, gradient_accumulation_steps=2)
    for rows in ([0, 1], [1, 3]):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.gather(table, rows))
        optimizer.apply_gradients(zip(tape.gradient(loss, [table]), [table]))
    np.testing.assert_allclose(table.numpy(), -np.array([[0.5] * 2, [1.0] * 2, [0.0] * 2, [0.5] * 2]))


def test_keras_protocol_subclasses_and_the_config():
    class Plain(tf.keras.optimizers.Optimizer):
        def __init__(self, **kwargs):
            super().__init__(learning_rate=1.0, **kwargs)

        def update_step(self, gradient, variable, learning_rate):
            assert int(self.iterations) in (0, 1)   # update steps, as Keras' update_step reads
            variable.assign_sub(gradient * learning_rate)
    _, counts, values = _steps(Plain(gradient_accumulation_steps=2), GRADS[:4])
    np.testing.assert_allclose(values[3], W0 - (GRADS[0] + GRADS[1]) / 2 - (GRADS[2] + GRADS[3]) / 2,
                               rtol=1e-6)
    config = tf.keras.optimizers.Adam(gradient_accumulation_steps=4).get_config()
    assert tf.keras.optimizers.Adam.from_config(config).gradient_accumulation_steps == 4
    for bad in (1, 0.5):
        with pytest.raises(ValueError, match="gradient_accumulation_steps"):
            tf.keras.optimizers.SGD(gradient_accumulation_steps=bad)


def test_fit_with_accumulation_trains():
    x = RS.normal(size=(32, 3)).astype("float32")
    y = x @ np.array([[1.0], [-2.0], [0.5]], "float32")
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(tf.keras.optimizers.SGD(0.1, gradient_accumulation_steps=2), "mse")
    history = model.fit(x, y, batch_size=4, epochs=5, verbose=0, shuffle=False)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert int(model.optimizer._iterations.numpy()) == 40 and int(model.optimizer.iterations) == 20
