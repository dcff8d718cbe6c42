"""Learning-rate schedules called on an array of steps, as TF's tutorials plot them."""
import numpy as np

import minitf as tf


def test_a_schedule_maps_an_array_of_steps_elementwise():
    schedule = tf.keras.optimizers.schedules.InverseTimeDecay(0.001, decay_steps=1000, decay_rate=1)
    steps = np.linspace(0, 100000, 7)
    rates = schedule(steps)
    assert rates.shape == (7,) and rates.dtype == tf.float32
    np.testing.assert_allclose(rates.numpy(), [schedule(float(s)).numpy() for s in steps])
    np.testing.assert_allclose(rates.numpy(), 0.001 / (1 + steps / 1000), rtol=1e-6)
    piecewise = tf.keras.optimizers.schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    np.testing.assert_allclose(piecewise(tf.constant([[5, 15], [25, 10]])).numpy(), [[1.0, 0.5], [0.1, 1.0]])
