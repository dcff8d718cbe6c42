"""tf.train.ExponentialMovingAverage: shadow creation, TF's update rule and decay schedule,
names, variables_to_restore, errors, checkpointing the shadows, and the device seam."""
import os

import numpy as np
import pytest

import minitf as tf

EMA = tf.train.ExponentialMovingAverage


def fresh(name):
    """A variable name no other test uses (shadow names are counted process-wide, as in TF)."""
    return f"{name}_{os.urandom(4).hex()}"


def test_first_apply_copies_then_each_apply_moves_toward_the_variable():
    v = tf.Variable([1.0, -2.0], name=fresh("w"))
    ema = EMA(0.9)
    assert ema.average(v) is None
    assert ema.apply([v]) is None
    avg = ema.average(v)
    assert not avg.trainable and avg.numpy().tolist() == [1.0, -2.0]
    v.assign([3.0, 0.0])
    ema.apply([v])
    np.testing.assert_allclose(avg.numpy(), [1.2, -1.8], rtol=1e-6)
    ema.apply([v])
    assert ema.average(v) is avg  # created once
    np.testing.assert_allclose(avg.numpy(), [1.38, -1.62], rtol=1e-6)


def test_decay_is_float32_for_every_dtype_as_tf():
    d = tf.Variable(2.0, dtype=tf.float64)
    ema = EMA(0.9)
    ema.apply([d])
    d.assign(3.0)
    ema.apply([d])
    assert ema.average(d).numpy() == 2.0 + float(np.float32(1) - np.float32(0.9))  # 2.100000023841858


def test_num_updates_and_a_decay_variable():
    steps = tf.Variable(0)
    w = tf.Variable(0.0)
    ema = EMA(0.99, num_updates=steps)
    ema.apply([w])
    w.assign(10.0)
    ema.apply([w])  # decay = min(0.99, 1 / 10)
    assert ema.average(w).numpy() == pytest.approx(9.0)
    decay = tf.Variable(0.5)
    ema2 = EMA(decay)
    ema2.apply([w])
    w.assign(0.0)
    decay.assign(0.9)
    ema2.apply([w])
    assert ema2.average(w).numpy() == pytest.approx(9.0)


def test_names_follow_tf():
    base = fresh("w")
    v, u = tf.Variable(1.0, name=base), tf.Variable([1.0], name=base)
    ema = EMA(0.5)
    assert ema.average_name(v) == f"{base}/ExponentialMovingAverage"
    ema.apply([v, u])
    assert ema.average(v).name == f"{base}/ExponentialMovingAverage:0"
    assert ema.average(u).name == f"{base}/ExponentialMovingAverage_1:0"
    assert ema.average_name(u) == f"{base}/ExponentialMovingAverage_1"
    scope = fresh("outer")
    with tf.name_scope(scope):
        y = tf.Variable(1.0, name="y")
        named = EMA(0.5, name="avg")
        named.apply([y])
    assert named.name == "avg" and named.average(y).name == f"{scope}/y/avg:0"
    assert named.variables_to_restore([y, y]) == {f"{scope}/y/avg": y}
    everything = EMA(0.1).variables_to_restore()  # every variable any EMA averaged (TF's collection)
    assert everything[f"{scope}/y/ExponentialMovingAverage"] is y


def test_errors():
    ema = EMA(0.9)
    with pytest.raises(TypeError, match="non-Variable"):
        ema.apply([tf.constant(1.0)])
    with pytest.raises(TypeError, match="half, float, or double"):
        ema.apply([tf.Variable(1)])
    assert ema.apply() is None and ema.apply([]) is None


def test_shadows_checkpoint_and_restore(tmp_path):
    v = tf.Variable([1.0, 2.0])
    ema = EMA(0.5)
    ema.apply([v])
    v.assign([3.0, 4.0])
    ema.apply([v])
    path = tf.train.Checkpoint(weights=v, averages=ema.average(v)).save(str(tmp_path / "ckpt"))
    w = tf.Variable([0.0, 0.0])
    ema2 = EMA(0.5)
    ema2.apply([w])
    tf.train.Checkpoint(weights=w, averages=ema2.average(w)).restore(path)
    assert ema2.average(w).numpy().tolist() == [2.0, 3.0] and w.numpy().tolist() == [3.0, 4.0]


def test_shadows_stay_on_the_variables_device(fake_gpu):
    v = tf.Variable([1.0, 2.0])
    ema = EMA(0.9)
    ema.apply([v])
    v.assign([2.0, 2.0])
    ema.apply([v])
    assert isinstance(ema.average(v)._value, fake_gpu.ndarray)
    np.testing.assert_allclose(ema.average(v).numpy(), [1.1, 2.0], rtol=1e-6)
