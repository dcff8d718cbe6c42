"""Learning-rate schedules against TF 2.21 (tf.keras.optimizers.schedules is not a scanned
namespace of the parity table): every schedule, called on a Python step, a scalar tensor and
arrays of steps (as the tutorials plot them), gives TF's float32 rates and shapes. Where TF
refuses an array (CosineDecay with warmup), minitf gives TF's rate at each step."""
import numpy as np
import pytest

import minitf

SCHEDULES = [
    ("ExponentialDecay", dict(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5)),
    ("ExponentialDecay", dict(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5, staircase=True)),
    ("InverseTimeDecay", dict(initial_learning_rate=0.001, decay_steps=1000, decay_rate=1)),
    ("InverseTimeDecay", dict(initial_learning_rate=0.01, decay_steps=7, decay_rate=2, staircase=True)),
    ("PiecewiseConstantDecay", dict(boundaries=[10, 20], values=[1.0, 0.5, 0.1])),
    ("PolynomialDecay", dict(initial_learning_rate=0.1, decay_steps=30, power=2.0)),
    ("PolynomialDecay", dict(initial_learning_rate=0.1, decay_steps=30, cycle=True)),
    ("CosineDecay", dict(initial_learning_rate=0.1, decay_steps=25, alpha=0.1)),
    ("CosineDecay", dict(initial_learning_rate=0.0, decay_steps=25, warmup_target=0.1, warmup_steps=5)),
    ("CosineDecayRestarts", dict(initial_learning_rate=0.1, first_decay_steps=8, t_mul=2.0, m_mul=0.5)),
]
STEPS = [0, 3.0, np.int64(17), np.linspace(0, 60, 13), np.arange(0, 40, 5).reshape(2, 4),
         np.array([0.0]), "tensor"]


@pytest.mark.parametrize("name,config", SCHEDULES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULES)])
def test_schedule_rates_equal_tf(name, config, tf_ref):
    mine = getattr(minitf.keras.optimizers.schedules, name)(**config)
    theirs = getattr(tf_ref.keras.optimizers.schedules, name)(**config)
    for step in STEPS:
        if isinstance(step, str):
            got, want = mine(minitf.constant(12)), theirs(tf_ref.constant(12))
        else:
            got = mine(step)
            try:
                want = theirs(step)
            except ValueError:
                # CosineDecay's warmup branches on the step with ops.cond, which TF refuses for
                # an array of steps; minitf maps the array (documented): TF's rate at each step
                assert np.ndim(step) and "warmup_steps" in config, (name, step)
                want = np.array([np.asarray(theirs(float(s))) for s in np.ravel(step)],
                                np.float32).reshape(np.shape(step))
        got, want = np.asarray(got), np.asarray(want)
        assert got.shape == want.shape and got.dtype == want.dtype == np.float32, (name, step)
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-9, err_msg=f"{name} {config} at {step!r}")
