"""tf.complex and tf.math.real/imag/conj/angle: values, dtypes, TF's errors and gradients (TF's
convention: dL/dx + i dL/dy for z = x + iy)."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

RNG = np.random.default_rng(2)


def test_complex_builds_and_broadcasts():
    z = tf.complex(tf.constant([[1.0], [2.0]]), tf.constant([3.0, 4.0]))
    assert z.dtype == tf.complex64 and z.shape == (2, 2)
    assert z.numpy().tolist() == [[1 + 3j, 1 + 4j], [2 + 3j, 2 + 4j]]
    assert tf.complex(tf.constant(1.0, tf.float64), tf.constant(2.0, tf.float64)).dtype == tf.complex128


@pytest.mark.parametrize("re, im", [([1], [2]), (tf.constant([1.0], tf.float64), [2.0]),
                                    (tf.constant([1.0], tf.float16), tf.constant([1.0], tf.float16))])
def test_complex_dtype_errors(re, im):
    with pytest.raises(TypeError, match="must be consistent"):
        tf.complex(re, im)


def test_complex_shape_error():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.complex([1.0, 2.0], [3.0, 4.0, 5.0])


def test_parts_of_real_and_complex_tensors():
    z = tf.constant([1 + 2j, -3 - 4j])
    assert tf.math.real(z).dtype == tf.float64 and tf.math.real(z).numpy().tolist() == [1, -3]
    assert tf.math.imag(z).numpy().tolist() == [2, -4]
    assert tf.math.conj(z).numpy().tolist() == [1 - 2j, -3 + 4j]
    np.testing.assert_allclose(tf.math.angle(z).numpy(), np.angle([1 + 2j, -3 - 4j]))
    x = tf.constant([1, -2])
    assert tf.math.real(x) is x and tf.math.conj(x) is x
    assert tf.math.imag(x).numpy().tolist() == [0, 0]
    assert tf.math.angle(tf.constant([-1.0, 2.0, 0.0])).numpy().tolist() == pytest.approx([np.pi, 0, 0])


def test_part_errors():
    with pytest.raises(TypeError, match="numeric"):
        tf.math.real(["a"])
    with pytest.raises(TypeError, match="Expected numeric"):
        tf.math.conj([True])
    with pytest.raises(TypeError):
        tf.math.angle(tf.constant([1, 2]))


def pair():
    return tf.constant(RNG.normal(size=(2, 3))), tf.constant(RNG.normal(size=(2, 3)))


def test_gradients_through_parts():
    a, b = pair()
    assert_gradients_close(lambda x, y: tf.math.real(tf.math.conj(tf.complex(x, y))) ** 2
                           + tf.math.imag(tf.math.conj(tf.complex(x, y))) ** 3, [a, b], order=2)
    assert_gradients_close(lambda x, y: tf.math.angle(tf.complex(x, y)), [a, b], order=2)


def test_gradient_convention_matches_tf():
    z = tf.Variable([1 + 2j, 3 - 1j])
    with tf.GradientTape() as tape:
        a = tf.math.angle(z)
    np.testing.assert_allclose(tape.gradient(a, z).numpy(), [-0.4 + 0.2j, 0.1 + 0.3j])
    with tf.GradientTape() as tape:
        r = tf.math.imag(z)
    assert tape.gradient(r, z).numpy().tolist() == [1j, 1j]
