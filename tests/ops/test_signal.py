"""tf.signal's frames, windows, short-time transforms, mel features and DCTs: values, round
trips, TF's errors, finite-difference gradients and the device seam."""
import numpy as np
import pytest

import minitf as tf
from minitf.device import device
from minitf.gradient_checker import assert_gradients_close
from minitf.ops.dct import dct_matrix

RNG = np.random.default_rng(5)
S = tf.signal


# -- frame and overlap_and_add ------------------------------------------------------------------

def test_frame_shapes_values_and_padding():
    x = np.arange(10.0)
    y = S.frame(x, 4, 3)
    assert y.numpy().tolist() == [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9]]
    y = S.frame(x, 4, 3, pad_end=True, pad_value=-1)
    assert y.numpy()[-1].tolist() == [9, -1, -1, -1] and y.shape == (4, 4)
    assert S.frame(x, 12, 3).shape == (0, 12)
    assert S.frame(x, 12, 3, pad_end=True).shape == (4, 12)
    assert S.frame(x, 0, 3).shape == (4, 0)
    z = S.frame(np.arange(24.0).reshape(2, 6, 2), 3, 2, axis=1)
    assert z.shape == (2, 2, 3, 2)
    np.testing.assert_array_equal(z.numpy()[1, 1, :, 0], [16, 18, 20])


def test_frame_errors():
    x = np.arange(10.0)
    with pytest.raises(ValueError, match="rank at least 1"):
        S.frame(3.0, 2, 1)
    with pytest.raises(ValueError, match="rank 0"):
        S.frame(x, [4], 3)
    with pytest.raises(IndexError):
        S.frame(x.reshape(2, 5), 2, 2, axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
        S.frame(x, 4, 0)
    with pytest.raises(tf.errors.InvalidArgumentError):
        S.frame(x, -1, 3)
    with pytest.raises(TypeError):
        S.frame(tf.constant([1, 2, 3]), 2, 1, pad_end=True, pad_value=0.5)


def test_overlap_and_add_values_and_fast_path():
    assert S.overlap_and_add(np.ones((3, 4)), 2).numpy().tolist() == [1, 1, 2, 2, 2, 2, 1, 1]
    assert S.overlap_and_add(np.ones((3, 4)), 5).numpy().tolist() == [1, 1, 1, 1, 0] * 2 + [1] * 4
    np.testing.assert_array_equal(S.overlap_and_add(np.arange(6.0).reshape(2, 3), 3).numpy(), np.arange(6.0))
    assert S.overlap_and_add(np.ones((0, 4)), 2).shape == (2,)
    with pytest.raises(ValueError, match="rank at least 2"):
        S.overlap_and_add(np.ones(4), 2)
    with pytest.raises(ValueError, match="integer"):
        S.overlap_and_add(np.ones((3, 4)), 2.0)


def test_overlap_and_add_inverts_frame_with_a_matching_window():
    x = RNG.normal(size=(2, 40))
    frames = S.frame(x, 8, 4)
    w = S.hann_window(8, dtype=tf.float64)
    y = S.overlap_and_add(frames * w * S.inverse_stft_window_fn(4)(8, tf.float64), 4)
    np.testing.assert_allclose(y.numpy()[:, 8:-8], x[:, 8:y.shape[1] - 8], atol=1e-12)


@pytest.mark.parametrize("pad_end", [False, True])
def test_frame_gradient(pad_end):
    x = tf.constant(RNG.normal(size=(2, 9)))
    assert_gradients_close(lambda v: S.frame(v, 4, 3, pad_end=pad_end, pad_value=0.5) ** 2, [x], order=2)
    assert_gradients_close(lambda v: S.frame(v, 2, 1, axis=0) ** 2, [x], order=2)


def test_frame_gradient_of_a_variable_is_dense():
    v = tf.Variable(RNG.normal(size=7))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(S.frame(v, 3, 2) ** 2)
    g = tape.gradient(loss, v)
    assert isinstance(g, tf.Tensor)


def test_overlap_and_add_gradient():
    x = tf.constant(RNG.normal(size=(2, 3, 5)))
    for step in (2, 5, 7):
        assert_gradients_close(lambda v: S.overlap_and_add(v, step) ** 2, [x], order=2)


# -- windows ----------------------------------------------------------------------------------

def test_windows_match_their_formulas():
    n = np.arange(8)
    np.testing.assert_allclose(S.hann_window(8).numpy(), 0.5 - 0.5 * np.cos(2 * np.pi * n / 8), atol=1e-6)
    np.testing.assert_allclose(S.hann_window(8, periodic=False, dtype=tf.float64).numpy(),
                               np.hanning(8), atol=1e-15)
    np.testing.assert_allclose(S.hamming_window(8, periodic=False, dtype=tf.float64).numpy(),
                               np.hamming(8), atol=1e-15)
    np.testing.assert_allclose(S.kaiser_window(9, beta=5.0, dtype=tf.float64).numpy(), np.kaiser(9, 5.0),
                               atol=1e-12)
    assert S.hann_window(5).numpy().tolist() == [0.0, 0.5, 1.0, 0.5, 0.0]  # odd: periodic is symmetric
    assert S.hann_window(1).numpy().tolist() == [1.0] and S.hann_window(0).shape == (0,)
    kbd = S.kaiser_bessel_derived_window(8, dtype=tf.float64).numpy()
    np.testing.assert_allclose(kbd[:4] ** 2 + kbd[4:] ** 2, 1.0, atol=1e-12)  # power complementary
    vorbis = S.vorbis_window(8, dtype=tf.float64).numpy()
    np.testing.assert_allclose(vorbis[:4] ** 2 + vorbis[4:] ** 2, 1.0, atol=1e-12)


def test_window_errors():
    with pytest.raises(ValueError, match="floating point"):
        S.hann_window(4, dtype=tf.int32)
    with pytest.raises(TypeError):
        S.hamming_window(2.5)
    with pytest.raises(ValueError, match="rank 0"):
        S.hann_window([3])
    with pytest.raises(tf.errors.InvalidArgumentError):
        S.vorbis_window(-1)


# -- stft, inverse_stft, mdct -------------------------------------------------------------------

def test_stft_matches_a_numpy_reference():
    x = RNG.normal(size=(2, 50))
    y = S.stft(tf.constant(x), 16, 8, fft_length=32)
    frames = np.stack([x[:, i * 8:i * 8 + 16] for i in range(5)], axis=1)
    want = np.fft.rfft(frames * S.hann_window(16, dtype=tf.float64).numpy(), n=32)
    assert y.shape == (2, 5, 17) and y.dtype == tf.complex128
    np.testing.assert_allclose(y.numpy(), want, atol=1e-12)
    assert S.stft(tf.constant(x, tf.float32), 10, 4).shape == (2, 11, 9)  # fft_length 16 by default


def test_inverse_stft_round_trip():
    x = RNG.normal(size=(3, 64))
    spec = S.stft(tf.constant(x), 16, 4)
    y = S.inverse_stft(spec, 16, 4, window_fn=S.inverse_stft_window_fn(4))
    np.testing.assert_allclose(y.numpy()[:, 16:-16], x[:, 16:y.shape[1] - 16], atol=1e-12)


def test_stft_errors():
    with pytest.raises(ValueError, match="floating point"):
        S.stft(tf.constant([1, 2, 3, 4]), 2, 1)
    with pytest.raises(ValueError, match="RFFT requires"):
        S.stft(tf.constant([1.0, 2, 3, 4], tf.float16), 2, 1)
    with pytest.raises(ValueError, match="rank at least 2"):
        S.inverse_stft(tf.zeros([3], tf.complex64), 4, 2)


def test_stft_and_inverse_stft_gradients():
    x = tf.constant(RNG.normal(size=(1, 20)))

    def power(v):
        spec = S.stft(v, 8, 4, fft_length=8)
        return tf.math.real(spec) ** 2 + tf.math.imag(spec) ** 2
    assert_gradients_close(power, [x], order=2)
    re, im = tf.constant(RNG.normal(size=(3, 5))), tf.constant(RNG.normal(size=(3, 5)))
    assert_gradients_close(lambda a, b: S.inverse_stft(tf.complex(a, b), 8, 4) ** 2, [re, im], order=2)


@pytest.mark.parametrize("norm", [None, "ortho"])
def test_mdct_round_trip_and_gradient(norm):
    x = RNG.normal(size=(2, 64))
    m = S.mdct(tf.constant(x), 16, norm=norm)  # float64 throughout
    assert m.shape == (2, 7, 8)
    y = S.inverse_mdct(m, norm=norm)
    np.testing.assert_allclose(y.numpy()[:, 8:-8], x[:, 8:y.shape[1] - 8], atol=1e-12)
    assert_gradients_close(lambda v: S.mdct(v, 8, norm=norm) ** 2, [tf.constant(x[:1, :16])], order=2)
    with pytest.raises(ValueError, match="multiple of 4"):
        S.mdct(x, 6)


# -- mel features and DCTs ----------------------------------------------------------------------

def test_mel_matrix_shape_and_triangles():
    w = S.linear_to_mel_weight_matrix(num_mel_bins=10, num_spectrogram_bins=65, sample_rate=16000,
                                      lower_edge_hertz=20.0, upper_edge_hertz=8000.0)
    assert w.shape == (65, 10) and w.dtype == tf.float32
    a = w.numpy()
    assert np.all(a >= 0) and np.all(a <= 1) and np.all(a[0] == 0)
    assert np.all(a.max(axis=0) > 0.5)  # every band has a peak
    assert S.linear_to_mel_weight_matrix(dtype=tf.float64).dtype == tf.float64


@pytest.mark.parametrize("kwargs, match", [
    ({"num_mel_bins": 0}, "num_mel_bins"), ({"lower_edge_hertz": -1.0}, "non-negative"),
    ({"lower_edge_hertz": 4000.0}, ">= upper_edge_hertz"), ({"sample_rate": 0}, "sample_rate"),
    ({"upper_edge_hertz": 5000.0}, "Nyquist"), ({"dtype": tf.int32}, "floating point")])
def test_mel_matrix_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        S.linear_to_mel_weight_matrix(**kwargs)


def test_mfccs_are_scaled_type2_dcts():
    x = RNG.normal(size=(3, 20))
    y = S.mfccs_from_log_mel_spectrograms(tf.constant(x))
    np.testing.assert_allclose(y.numpy(), S.dct(tf.constant(x), type=2).numpy() / np.sqrt(40), atol=1e-12)
    assert_gradients_close(lambda v: S.mfccs_from_log_mel_spectrograms(v) ** 2, [tf.constant(x)], order=2)
    with pytest.raises(ValueError, match="num_mel_bins"):
        S.mfccs_from_log_mel_spectrograms(tf.zeros([2, 0]))


def scipy_like_dct(x, kind, norm):
    """The textbook sums (scipy.fft.dct's definitions)."""
    n = x.shape[-1]
    j = np.arange(n)
    out = np.zeros_like(x)
    for k in range(n):
        if kind == 1:
            out[..., k] = x[..., 0] + (-1) ** k * x[..., -1] + 2 * np.sum(
                x[..., 1:-1] * np.cos(np.pi * k * j[1:-1] / (n - 1)), axis=-1)
        elif kind == 2:
            out[..., k] = 2 * np.sum(x * np.cos(np.pi * k * (2 * j + 1) / (2 * n)), axis=-1)
        elif kind == 3:
            out[..., k] = x[..., 0] + 2 * np.sum(x[..., 1:] * np.cos(np.pi * j[1:] * (2 * k + 1) / (2 * n)), axis=-1)
        else:
            out[..., k] = 2 * np.sum(x * np.cos(np.pi * (2 * j + 1) * (2 * k + 1) / (4 * n)), axis=-1)
    if norm == "ortho":
        if kind == 2:
            out[..., 0] *= np.sqrt(1 / (4 * n))
            out[..., 1:] *= np.sqrt(1 / (2 * n))
        elif kind == 3:
            out = (out - x[..., :1]) * np.sqrt(1 / (2 * n)) + x[..., :1] / np.sqrt(n)
        elif kind == 4:
            out *= np.sqrt(1 / (2 * n))
    return out


@pytest.mark.parametrize("kind, norm", [(1, None), (2, None), (2, "ortho"), (3, None), (3, "ortho"),
                                        (4, None), (4, "ortho")])
def test_dct_values_inverse_and_gradient(kind, norm):
    x = tf.constant(RNG.normal(size=(2, 7)))
    np.testing.assert_allclose(S.dct(x, type=kind, norm=norm).numpy(), scipy_like_dct(x.numpy(), kind, norm),
                               atol=1e-12)
    if norm == "ortho":
        np.testing.assert_allclose(S.idct(S.dct(x, type=kind, norm=norm), type=kind, norm=norm).numpy(),
                                   x.numpy(), atol=1e-12)
        np.testing.assert_allclose(dct_matrix(kind, 7, norm) @ dct_matrix(kind, 7, norm).T, np.eye(7), atol=1e-12)
    assert_gradients_close(lambda v: S.dct(v, type=kind, norm=norm, n=5) ** 2, [x], order=2)
    assert S.dct(x, type=kind, n=9).shape == (2, 9)


def test_dct_errors_follow_tf():
    with pytest.raises(NotImplementedError):
        S.dct([1.0, 2.0], axis=0)
    with pytest.raises(ValueError, match="Types I, II, III and IV"):
        S.dct([1.0, 2.0], type=5)
    with pytest.raises(ValueError, match="n should be"):
        S.dct([1.0, 2.0], n=0)
    with pytest.raises(ValueError, match="Type-I DCT"):
        S.dct(tf.constant([1.0]), type=1)
    with pytest.raises(ValueError, match="Normalization"):
        S.dct([1.0, 2.0], type=1, norm="ortho")
    with pytest.raises(ValueError, match="Unknown normalization"):
        S.idct([1.0, 2.0], norm="forward")
    with pytest.raises(TypeError):
        S.dct(tf.constant([1, 2, 3]))
    with pytest.raises(IndexError):
        S.dct(tf.constant(1.0))


# -- the device seam ------------------------------------------------------------------------------

def _pipeline(x_np):
    x = tf.constant(x_np)
    with tf.GradientTape() as tape:
        tape.watch(x)
        spec = S.stft(x, 8, 4, pad_end=True)
        mel = tf.tensordot(tf.math.real(spec) ** 2, tf.cast(S.linear_to_mel_weight_matrix(4, 5, 8000, 100.0, 3000.0),
                                                            tf.float64), 1)
        mfcc = S.mfccs_from_log_mel_spectrograms(tf.math.log(mel + 1.0))
        back = S.inverse_stft(spec, 8, 4, window_fn=S.inverse_stft_window_fn(4))
        loss = tf.reduce_sum(mfcc) + tf.reduce_sum(back * back) + tf.reduce_sum(S.inverse_mdct(S.mdct(x, 8)))
    return spec, mfcc, back, tape.gradient(loss, x)


def test_signal_ops_stay_on_the_array_module_of_their_inputs(fake_gpu):
    x = RNG.normal(size=(2, 24))
    with device("/CPU:0"):
        want = _pipeline(x)
    got = _pipeline(x)
    for g, w in zip(got, want):
        assert isinstance(g._value, fake_gpu.ndarray)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)
