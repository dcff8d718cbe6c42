"""tf.image.psnr, ssim, ssim_multiscale and image_gradients: values against numpy references,
uint8 conversion, TF's errors, finite-difference gradients and the device seam."""
import numpy as np
import pytest

import minitf as tf
from minitf.device import device
from minitf.gradient_checker import assert_gradients_close
from minitf.ops.image_quality import ssim_per_channel

RNG = np.random.default_rng(9)


def pair(shape=(2, 16, 16, 3), noise=0.1):
    a = RNG.uniform(0, 1, shape)
    return a, np.clip(a + RNG.normal(0, noise, shape), 0, 1)


def ref_ssim(a, b, peak=1.0, size=11, sigma=1.5, k1=0.01, k2=0.03):
    """Per-image SSIM with an explicit Gaussian window (VALID), averaged over the map and channels."""
    coords = np.arange(size) - (size - 1) / 2
    g = np.exp(-0.5 * coords ** 2 / sigma ** 2)
    win = np.outer(g, g) / np.outer(g, g).sum()

    def filt(x):
        h, w = x.shape[-3] - size + 1, x.shape[-2] - size + 1
        out = np.zeros(x.shape[:-3] + (h, w, x.shape[-1]))
        for i in range(size):
            for j in range(size):
                out += win[i, j] * x[..., i:i + h, j:j + w, :]
        return out
    c1, c2 = (k1 * peak) ** 2, (k2 * peak) ** 2
    ma, mb = filt(a), filt(b)
    va, vb, cov = filt(a * a) - ma ** 2, filt(b * b) - mb ** 2, filt(a * b) - ma * mb
    smap = (2 * ma * mb + c1) * (2 * cov + c2) / ((ma ** 2 + mb ** 2 + c1) * (va + vb + c2))
    return smap.mean(axis=(-3, -2, -1))


def test_ssim_matches_the_textbook_formula():
    a, b = pair()
    y = tf.image.ssim(a.astype("float32"), b.astype("float32"), 1.0)
    assert y.dtype == tf.float32 and y.shape == (2,)
    np.testing.assert_allclose(y.numpy(), ref_ssim(a, b), rtol=1e-5)
    np.testing.assert_allclose(tf.image.ssim(a, b, 1.0, filter_size=5, filter_sigma=0.8).numpy(),
                               ref_ssim(a, b, size=5, sigma=0.8), rtol=1e-5)
    assert tf.image.ssim(a, a, 1.0).numpy() == pytest.approx([1.0, 1.0], abs=1e-6)
    assert tf.image.ssim(a, b, 1.0, filter_size=3, return_index_map=True).shape == (2, 14, 14)


def test_uint8_images_use_max_val_255():
    a, b = pair((16, 16, 1))
    au, bu = np.round(a * 255).astype("uint8"), np.round(b * 255).astype("uint8")
    np.testing.assert_allclose(tf.image.ssim(au, bu, 255).numpy(), ref_ssim(au / 255.0, bu / 255.0), rtol=1e-5)
    mse = np.mean((au / 255.0 - bu / 255.0) ** 2)
    assert tf.image.psnr(au, bu, 255).numpy() == pytest.approx(-10 * np.log10(mse), rel=1e-5)


def test_psnr_values_and_identical_images():
    a, b = pair((3, 4, 5, 2))
    want = 20 * np.log10(2.0) - 10 * np.log10(np.mean((a - b) ** 2, axis=(-3, -2, -1)))
    y = tf.image.psnr(a, b, 2.0)
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5)
    assert np.isinf(tf.image.psnr(a, a, 1.0).numpy()).all()


def test_ssim_multiscale_single_scale_is_ssim_clipped():
    a, b = pair((2, 12, 12, 1))
    one = tf.image.ssim_multiscale(a, b, 1.0, power_factors=(1.0,), filter_size=5)
    np.testing.assert_allclose(one.numpy(), np.maximum(ref_ssim(a, b, size=5), 0), rtol=1e-5)
    three = tf.image.ssim_multiscale(a, b, 1.0, power_factors=(0.2, 0.3, 0.5), filter_size=3)
    assert three.shape == (2,) and np.all((three.numpy() > 0) & (three.numpy() <= 1))
    assert tf.image.ssim_multiscale(a, a, 1.0, power_factors=(0.5, 0.5), filter_size=3).numpy() \
        == pytest.approx([1.0, 1.0], abs=1e-5)


@pytest.mark.parametrize("fn", [tf.image.ssim, tf.image.psnr])
def test_errors(fn):
    a, b = pair((8, 8, 1))
    with pytest.raises(ValueError, match="rank at least 3"):
        fn(a[0], b[0], 1.0)
    with pytest.raises(ValueError, match="incompatible"):
        fn(a, b[:, :4], 1.0)
    with pytest.raises(ValueError, match="not compatible"):
        fn(np.stack([a, a]), np.stack([b, b, b]), 1.0)


def test_ssim_rejects_images_smaller_than_the_filter():
    a, b = pair((8, 8, 1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="filter_size"):
        tf.image.ssim(a, b, 1.0)


def test_ssim_gradient_float64_finite_differences():
    """The float64 computation under ssim (the public function casts to float32, as TF)."""
    a, b = pair((1, 7, 6, 2), noise=0.2)
    peak = tf.constant(1.0, tf.float64)
    assert_gradients_close(lambda x, y: ssim_per_channel(x, y, peak, 3, 1.5, 0.01, 0.03)[0],
                           [tf.constant(a), tf.constant(b)], order=2)
    assert_gradients_close(lambda x, y: ssim_per_channel(x, y, peak, 3, 1.5, 0.01, 0.03, True)[0],
                           [tf.constant(a), tf.constant(b)])


def test_public_gradient_is_the_float64_gradient_to_float32_precision():
    a, b = pair((1, 12, 12, 1), noise=0.2)
    x = tf.constant(a)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        public = tf.reduce_sum(tf.image.ssim(x, b, 1.0, filter_size=3))
        exact = tf.reduce_mean(ssim_per_channel(x, tf.constant(b), tf.constant(1.0, tf.float64), 3, 1.5,
                                                 0.01, 0.03)[0])
    g_public, g_exact = tape.gradient(public, x), tape.gradient(exact, x)
    assert g_public.dtype == tf.float64
    np.testing.assert_allclose(g_public.numpy(), g_exact.numpy(), rtol=1e-4, atol=1e-7)


def test_image_gradients():
    img = RNG.normal(size=(2, 3, 4, 2))
    dy, dx = tf.image.image_gradients(tf.constant(img))
    want_dy = np.concatenate([img[:, 1:] - img[:, :-1], np.zeros((2, 1, 4, 2))], axis=1)
    want_dx = np.concatenate([img[:, :, 1:] - img[:, :, :-1], np.zeros((2, 3, 1, 2))], axis=2)
    np.testing.assert_array_equal(dy.numpy(), want_dy)
    np.testing.assert_array_equal(dx.numpy(), want_dx)
    assert_gradients_close(lambda x: tf.image.image_gradients(x)[0] * tf.image.image_gradients(x)[1],
                           [tf.constant(img)], order=2)
    with pytest.raises(ValueError, match="4D"):
        tf.image.image_gradients(tf.constant(img[0]))
    with pytest.raises(AttributeError):
        tf.image.image_gradients(img)


def _quality(a, b):
    x = tf.constant(a)
    with tf.GradientTape() as tape:
        tape.watch(x)
        s = tf.image.ssim(x, b, 1.0, filter_size=3)
        m = tf.image.ssim_multiscale(x, b, 1.0, power_factors=(0.4, 0.6), filter_size=3)
        p = tf.image.psnr(x, b, 1.0)
        loss = (tf.cast(tf.reduce_sum(s) + tf.reduce_sum(m) + tf.reduce_sum(p), tf.float64)
                + tf.reduce_sum(tf.image.image_gradients(x)[0]))
    return s, m, p, tape.gradient(loss, x)


def test_quality_ops_stay_on_the_array_module_of_their_inputs(fake_gpu):
    a, b = pair((1, 9, 9, 1))
    with device("/CPU:0"):
        want = _quality(a, b)
    got = _quality(a, tf.constant(b))
    for g, w in zip(got, want):
        assert isinstance(g._value, fake_gpu.ndarray)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)
