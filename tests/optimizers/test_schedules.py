"""Learning-rate schedules against their Keras 3 formulas."""
import math

import numpy as np
import pytest

import minitf as tf
from minitf.optimizers.schedules import schedules as S


def test_exponential_decay():
    s = S.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    assert s._value_at(5) == pytest.approx(0.1 * 0.5 ** 0.5)
    stair = S.ExponentialDecay(0.1, 10, 0.5, staircase=True)
    assert stair._value_at(19) == pytest.approx(0.05)
    out = s(tf.constant(10))
    assert out.dtype == tf.float32 and float(out.numpy()) == pytest.approx(0.05)


def test_piecewise_constant_boundaries_are_inclusive_on_the_left_piece():
    s = S.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    assert [s._value_at(t) for t in (0, 10, 11, 20, 21)] == [1.0, 1.0, 0.5, 0.5, 0.1]
    with pytest.raises(ValueError, match="1 less"):
        S.PiecewiseConstantDecay([1, 2], [1.0])


def test_inverse_time_and_polynomial():
    assert S.InverseTimeDecay(1.0, 10, 0.5)._value_at(20) == pytest.approx(1 / (1 + 0.5 * 2))
    assert S.InverseTimeDecay(1.0, 10, 0.5, staircase=True)._value_at(19) == pytest.approx(1 / 1.5)
    p = S.PolynomialDecay(1.0, 10, end_learning_rate=0.1, power=2.0)
    assert p._value_at(5) == pytest.approx(0.9 * 0.25 + 0.1)
    assert p._value_at(50) == pytest.approx(0.1)
    c = S.PolynomialDecay(1.0, 10, end_learning_rate=0.0, cycle=True)
    assert c._value_at(15) == pytest.approx(1 - 15 / 20)


def test_cosine_decay_with_warmup():
    s = S.CosineDecay(0.0, decay_steps=100, alpha=0.1, warmup_target=1.0, warmup_steps=10)
    assert s._value_at(5) == pytest.approx(0.5)
    expected = (0.9 * 0.5 * (1 + math.cos(math.pi * 40 / 100)) + 0.1)
    assert s._value_at(50) == pytest.approx(expected)
    assert s._value_at(1000) == pytest.approx(0.1)
    plain = S.CosineDecay(2.0, 10)
    assert plain._value_at(5) == pytest.approx(1.0)


def test_cosine_decay_restarts():
    s = S.CosineDecayRestarts(1.0, first_decay_steps=10, t_mul=2.0, m_mul=0.5)
    assert s._value_at(0) == pytest.approx(1.0)
    assert s._value_at(10) == pytest.approx(0.5)  # restart at 10 with m_mul
    assert s._value_at(20) == pytest.approx(0.5 * 0.5 * (1 + math.cos(math.pi * 0.5)))
    flat = S.CosineDecayRestarts(1.0, 10, t_mul=1.0)
    assert flat._value_at(15) == pytest.approx(flat._value_at(5))


@pytest.mark.parametrize("sched", [S.ExponentialDecay(0.1, 3, 0.9), S.CosineDecay(0.1, 5),
                                   S.PolynomialDecay(0.1, 5), S.CosineDecayRestarts(0.1, 4)])
def test_serialize_round_trip(sched):
    again = S.deserialize(S.serialize(sched))
    assert type(again) is type(sched)
    assert [again._value_at(t) for t in range(8)] == [sched._value_at(t) for t in range(8)]
