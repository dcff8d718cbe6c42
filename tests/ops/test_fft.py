"""tf.signal's Fourier transforms and shifts: values against numpy.fft, dtypes, fft_length
cropping/padding, TF's errors, finite-difference gradients (second order) and the device seam."""
import numpy as np
import pytest

import minitf as tf
from minitf.device import device
from minitf.gradient_checker import assert_gradients_close

RNG = np.random.default_rng(11)
S = tf.signal


def cplx(*shape):
    return RNG.normal(size=shape) + 1j * RNG.normal(size=shape)


@pytest.mark.parametrize("name, ref, rank", [
    ("fft", np.fft.fft, 1), ("ifft", np.fft.ifft, 1), ("fft2d", np.fft.fft2, 2), ("ifft2d", np.fft.ifft2, 2),
    ("fft3d", lambda a: np.fft.fftn(a, axes=(-3, -2, -1)), 3),
    ("ifft3d", lambda a: np.fft.ifftn(a, axes=(-3, -2, -1)), 3)])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_transforms_match_numpy(name, ref, rank, dtype):
    a = cplx(2, 3, 4, 5).astype(dtype)
    y = getattr(S, name)(tf.constant(a))
    assert y.dtype.name == dtype and y.shape == a.shape
    np.testing.assert_allclose(y.numpy(), ref(a), rtol=1e-4 if dtype == "complex64" else 1e-12, atol=1e-5)


def test_python_values_convert_to_complex64_as_tf_generated_ops():
    assert S.fft([1.0, 2.0]).dtype == tf.complex64
    assert S.fft(cplx(3)).dtype == tf.complex64
    assert S.fft(tf.constant(cplx(3))).dtype == tf.complex128


def test_complex_transform_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="complex128, complex64"):
        S.fft(tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank of at least 2"):
        S.fft2d(tf.constant([1j]))
    assert S.fft(tf.zeros([0], tf.complex64)).shape == (0,)


@pytest.mark.parametrize("rank, ref", [(1, np.fft.rfftn), (2, np.fft.rfftn), (3, np.fft.rfftn)])
@pytest.mark.parametrize("lengths", [None, "short", "long"])
def test_rfft_matches_numpy_with_cropping_and_padding(rank, ref, lengths):
    x = RNG.normal(size=(2, 6, 5, 7))
    axes = tuple(range(-rank, 0))
    s = None if lengths is None else [4, 3, 5][:rank] if lengths == "short" else [9, 8, 10][:rank]
    fn = {1: S.rfft, 2: S.rfft2d, 3: S.rfft3d}[rank]
    y = fn(tf.constant(x), s)
    assert y.dtype == tf.complex128
    np.testing.assert_allclose(y.numpy(), ref(x, s=s, axes=axes), rtol=1e-12, atol=1e-12)
    assert fn(tf.constant(x.astype("float32")), s).dtype == tf.complex64


@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize("lengths", [None, "short", "long", "odd"])
def test_irfft_matches_numpy(rank, lengths):
    z = cplx(2, 4, 5, 4)
    axes = tuple(range(-rank, 0))
    s = {None: None, "short": [3, 2, 4], "long": [7, 9, 10], "odd": [3, 5, 7]}[lengths]
    s = None if s is None else s[:rank]
    fn = {1: S.irfft, 2: S.irfft2d, 3: S.irfft3d}[rank]
    y = fn(tf.constant(z), s)
    assert y.dtype == tf.float64
    np.testing.assert_allclose(y.numpy(), np.fft.irfftn(z, s=s, axes=axes), rtol=1e-12, atol=1e-12)


def test_real_transform_errors():
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64"):
        S.rfft(tf.constant([1, 2, 3]))
    with pytest.raises(ValueError, match="RFFT requires"):
        S.rfft(tf.constant([1.0, 2.0], tf.float16))
    assert S.rfft([1, 2, 3]).dtype == tf.complex64  # Python ints take the preferred float32
    with pytest.raises(ValueError, match="rank at least 1"):
        S.rfft(tf.constant(1.0))
    with pytest.raises(TypeError, match="not iterable"):
        S.rfft(tf.constant([1.0, 2.0]), 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="positive"):
        S.rfft(tf.constant([1.0, 2.0]), [0])
    with pytest.raises(ValueError, match="IRFFT requires tf.complex64"):
        S.irfft(tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="fft_length"):
        S.irfft(tf.constant([1j]))  # an inner size of 1 infers a length of 0


def test_zero_size_inputs():
    assert S.rfft(tf.zeros([0])).shape == (0,)
    assert S.rfft(tf.zeros([0, 4])).shape == (0, 3)
    assert S.irfft(tf.zeros([0, 3], tf.complex64)).shape == (0, 4)


def complex_of(re, im):
    return tf.complex(re, im)


@pytest.mark.parametrize("name", ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d"])
def test_complex_transform_gradients(name):
    fn = getattr(S, name)
    re, im = tf.constant(RNG.normal(size=(1, 2, 3))), tf.constant(RNG.normal(size=(1, 2, 3)))

    def f(a, b):
        y = fn(complex_of(a, b))
        return tf.math.real(y) ** 2 + tf.math.imag(y) * 0.5
    assert_gradients_close(f, [re, im], order=2)


@pytest.mark.parametrize("rank", [1, 2])
@pytest.mark.parametrize("lengths", [None, "short", "long"])
def test_rfft_gradients_include_cropping_and_padding(rank, lengths):
    fn = S.rfft if rank == 1 else S.rfft2d
    s = None if lengths is None else [4, 3][:rank] if lengths == "short" else [7, 8][:rank]
    x = tf.constant(RNG.normal(size=(2, 3, 5)))

    def f(v):
        y = fn(v, s)
        return tf.math.real(y) * tf.math.imag(y) + tf.math.real(y)
    assert_gradients_close(f, [x], order=2)


@pytest.mark.parametrize("rank", [1, 2])
@pytest.mark.parametrize("lengths", [None, "short", "long", "odd"])
def test_irfft_gradients(rank, lengths):
    fn = S.irfft if rank == 1 else S.irfft2d
    s = {None: None, "short": [3, 2], "long": [9, 8], "odd": [3, 5]}[lengths]
    s = None if s is None else s[:rank]
    re, im = tf.constant(RNG.normal(size=(2, 3, 4))), tf.constant(RNG.normal(size=(2, 3, 4)))
    assert_gradients_close(lambda a, b: fn(complex_of(a, b), s) ** 2, [re, im], order=2)


def test_3d_real_transforms_have_no_gradient_as_tf():
    x = tf.constant(RNG.normal(size=(2, 2, 3)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.real(S.rfft3d(x))
    with pytest.raises(LookupError, match="RFFT3D"):
        tape.gradient(y, x)


def test_fftshift_matches_numpy_and_round_trips():
    a = np.arange(30).reshape(5, 6)
    np.testing.assert_array_equal(S.fftshift(a).numpy(), np.fft.fftshift(a))
    np.testing.assert_array_equal(S.fftshift(a, axes=1).numpy(), np.fft.fftshift(a, axes=1))
    np.testing.assert_array_equal(S.ifftshift(a, axes=[0, -1]).numpy(), np.fft.ifftshift(a))
    np.testing.assert_array_equal(S.ifftshift(S.fftshift(a)).numpy(), a)
    with pytest.raises(tf.errors.InvalidArgumentError):
        S.fftshift(a, axes=2)
    with pytest.raises(tf.errors.InvalidArgumentError):
        S.fftshift(3.0)


def _spectral_round_trip(x_np):
    x = tf.constant(x_np)
    with tf.GradientTape() as tape:
        tape.watch(x)
        spec = S.rfft(x)
        back = S.irfft(S.fft(S.ifft(spec)), [6])
        loss = tf.reduce_sum(back * back) + tf.reduce_sum(tf.math.imag(S.fftshift(spec)))
    return spec, back, tape.gradient(loss, x)


def test_transforms_stay_on_the_array_module_of_their_inputs(fake_gpu):
    x = RNG.normal(size=(2, 6))
    with device("/CPU:0"):
        want = _spectral_round_trip(x)
    got = _spectral_round_trip(x)
    for g, w in zip(got, want):
        assert isinstance(g._value, fake_gpu.ndarray)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[1].numpy(), x, atol=1e-12)
