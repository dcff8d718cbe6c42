"""tf.image.stateless_random_*: each op is its stateless draw (TF's shape, bounds and dtype)
applied through the deterministic image op, so the same seed gives the same image; argument
checks raise TF's ValueError; gradients (brightness, flips, crop) match finite differences."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

SEEDS = [(1, 2), (0, 0), (-7, 2 ** 31 - 1), (123, 456), (5, 9), (2, 3), (11, 12), (40, 41)]


def _image(shape=(4, 5, 3), dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "uint8":
        return tf.constant(rng.integers(0, 256, shape).astype(np.uint8))
    return tf.constant(rng.uniform(0, 1, shape).astype(dtype))


def test_brightness_is_adjust_brightness_by_the_seeded_delta():
    x = _image()
    for seed in SEEDS:
        delta = tf.random.stateless_uniform([], seed=seed, minval=-0.95, maxval=0.95)
        want = tf.image.adjust_brightness(x, delta).numpy()
        np.testing.assert_array_equal(tf.image.stateless_random_brightness(x, 0.95, seed).numpy(), want)


def test_contrast_saturation_and_hue_use_the_seeded_factor():
    x = _image((2, 4, 5, 3))
    for seed in SEEDS[:3]:
        f = tf.random.stateless_uniform([], seed=seed, minval=0.1, maxval=0.9)
        np.testing.assert_array_equal(tf.image.stateless_random_contrast(x, 0.1, 0.9, seed).numpy(),
                                      tf.image.adjust_contrast(x, f).numpy())
        np.testing.assert_array_equal(tf.image.stateless_random_saturation(x, 0.1, 0.9, seed).numpy(),
                                      tf.image.adjust_saturation(x, f).numpy())
        d = tf.random.stateless_uniform([], seed=seed, minval=-0.3, maxval=0.3)
        np.testing.assert_array_equal(tf.image.stateless_random_hue(x, 0.3, seed).numpy(),
                                      tf.image.adjust_hue(x, d).numpy())


def test_same_seed_same_result_other_seed_other_result():
    x = _image()
    a = tf.image.stateless_random_brightness(x, 0.5, seed=(3, 4)).numpy()
    np.testing.assert_array_equal(a, tf.image.stateless_random_brightness(x, 0.5, seed=[3, 4]).numpy())
    b = tf.image.stateless_random_brightness(x, 0.5, seed=(3, 5)).numpy()
    assert not np.array_equal(a, b)


def test_uint8_brightness_saturates_and_keeps_dtype():
    x = tf.constant(np.full((2, 2, 3), 250, np.uint8))
    seed = next(s for s in SEEDS if float(tf.random.stateless_uniform([], s, -0.9, 0.9)) > 0.1)
    y = tf.image.stateless_random_brightness(x, 0.9, seed)
    assert y.dtype == tf.uint8
    np.testing.assert_array_equal(y.numpy(), 255)


@pytest.mark.parametrize("op, axis", [(tf.image.stateless_random_flip_left_right, 1),
                                      (tf.image.stateless_random_flip_up_down, 0)])
def test_flip_of_one_image_follows_its_draw(op, axis):
    x = _image((3, 4, 2))
    flipped = 0
    for seed in SEEDS:
        draw = float(tf.random.stateless_uniform([], seed=seed))
        want = np.flip(x.numpy(), axis) if draw < 0.5 else x.numpy()
        flipped += draw < 0.5
        np.testing.assert_array_equal(op(x, seed).numpy(), want)
    assert 0 < flipped < len(SEEDS)  # the seeds cover both branches


@pytest.mark.parametrize("op, axis", [(tf.image.stateless_random_flip_left_right, 2),
                                      (tf.image.stateless_random_flip_up_down, 1)])
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float64"])
def test_flip_of_a_batch_draws_one_value_per_image(op, axis, dtype):
    x = _image((6, 3, 4, 2), dtype)
    y = op(x, (9, 10))
    assert y.dtype == x.dtype
    draws = tf.random.stateless_uniform([6], seed=(9, 10)).numpy()
    for i, d in enumerate(draws):
        want = np.flip(x.numpy()[i], axis - 1) if np.round(d) == 1 else x.numpy()[i]
        np.testing.assert_array_equal(y.numpy()[i], want)
    assert 0 < int(np.sum(np.round(draws))) < 6


def test_crop_offsets_are_the_seeded_draw_modulo_the_room():
    x = tf.reshape(tf.range(2 * 6 * 7 * 3), [2, 6, 7, 3])
    for seed in SEEDS[:4]:
        y = tf.image.stateless_random_crop(x, [1, 3, 4, 3], seed=seed)
        draw = tf.random.stateless_uniform([4], seed=seed, minval=0, maxval=2 ** 31 - 1, dtype=tf.int32).numpy()
        o = draw % np.array([2, 4, 4, 1])
        np.testing.assert_array_equal(y.numpy(), x.numpy()[o[0]:o[0] + 1, o[1]:o[1] + 3, o[2]:o[2] + 4, :])
    whole = tf.image.stateless_random_crop(x, [2, 6, 7, 3], seed=(1, 1))
    np.testing.assert_array_equal(whole.numpy(), x.numpy())


def test_crop_size_that_does_not_fit_raises():
    x = _image((4, 5, 3))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need value.shape >= size"):
        tf.image.stateless_random_crop(x, [5, 5, 3], seed=(1, 2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.image.stateless_random_crop(x, [2, 2], seed=(1, 2))


@pytest.mark.parametrize("call, match", [
    (lambda x: tf.image.stateless_random_brightness(x, -0.1, (1, 2)), "max_delta must be non-negative"),
    (lambda x: tf.image.stateless_random_contrast(x, 0.9, 0.1, (1, 2)), "upper must be > lower"),
    (lambda x: tf.image.stateless_random_contrast(x, 0.5, 0.5, (1, 2)), "upper must be > lower"),
    (lambda x: tf.image.stateless_random_contrast(x, -0.5, 0.5, (1, 2)), "lower must be non-negative"),
    (lambda x: tf.image.stateless_random_saturation(x, 2.0, 1.0, (1, 2)), "upper must be > lower"),
    (lambda x: tf.image.stateless_random_saturation(x, -1.0, 1.0, (1, 2)), "lower must be non-negative"),
    (lambda x: tf.image.stateless_random_hue(x, 0.6, (1, 2)), "max_delta must be <= 0.5"),
    (lambda x: tf.image.stateless_random_hue(x, -0.1, (1, 2)), "max_delta must be non-negative"),
    (lambda x: tf.image.stateless_random_flip_left_right(x[0], (1, 2)), "at least three-dimensional"),
    (lambda x: tf.image.stateless_random_flip_up_down(x[None, None], (1, 2)), "either 3 or 4 dimensions"),
])
def test_bad_arguments_raise_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call(_image())


@pytest.mark.parametrize("seed", [[1], [1, 2, 3], [[1, 2]]])
def test_seed_must_be_a_pair(seed):
    with pytest.raises(tf.errors.InvalidArgumentError, match="seed must have shape"):
        tf.image.stateless_random_brightness(_image(), 0.2, seed)
    with pytest.raises(tf.errors.InvalidArgumentError, match="seed must have shape"):
        tf.image.stateless_random_flip_left_right(_image(), seed)


def test_float_seed_raises():
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32, int64"):
        tf.image.stateless_random_crop(_image(), [2, 2, 3], seed=[1.0, 2.0])


def test_brightness_gradient_float64():
    x = _image((3, 4, 3), "float64")
    assert_gradients_close(lambda a: tf.image.stateless_random_brightness(a, 0.5, (1, 2)), [x])


@pytest.mark.parametrize("shape", [(3, 4, 2), (5, 3, 4, 2)])
@pytest.mark.parametrize("seed", [(1, 2), (5, 9)])
def test_flip_gradients_float64(shape, seed):
    x = _image(shape, "float64")
    assert_gradients_close(lambda a: tf.image.stateless_random_flip_left_right(a, seed), [x], order=2)
    assert_gradients_close(lambda a: tf.image.stateless_random_flip_up_down(a, seed), [x], order=2)


def test_crop_gradient_float64():
    x = _image((2, 4, 5, 3), "float64")
    assert_gradients_close(lambda a: tf.image.stateless_random_crop(a, [1, 2, 3, 3], (3, 4)), [x], order=2)


@pytest.mark.parametrize("call, kernel", [
    (lambda x: tf.image.stateless_random_contrast(x, 0.1, 0.9, (1, 2)), "AdjustContrastv2"),
    (lambda x: tf.image.stateless_random_hue(x, 0.3, (1, 2)), "AdjustHue"),
    (lambda x: tf.image.stateless_random_saturation(x, 0.1, 0.9, (1, 2)), "AdjustSaturation"),
])
def test_colour_ops_have_no_gradient_as_in_tf(call, kernel):
    x = tf.Variable(_image())
    with tf.GradientTape() as tape:
        y = call(x)
    with pytest.raises(LookupError, match=kernel):
        tape.gradient(y, x)


def test_traced_function_gives_the_eager_result():
    x = _image((2, 4, 5, 3))
    f = tf.function(lambda img, seed: tf.image.stateless_random_flip_left_right(
        tf.image.stateless_random_brightness(img, 0.4, seed), seed))
    for seed in SEEDS[:3]:
        s = tf.constant(seed, dtype=tf.int64)
        np.testing.assert_array_equal(f(x, s).numpy(), tf.image.stateless_random_flip_left_right(
            tf.image.stateless_random_brightness(x, 0.4, s), s).numpy())


def test_bit_for_bit_with_tensorflow():
    tf_ref = pytest.importorskip("tensorflow")
    x32, xu8 = _image((2, 4, 5, 3)).numpy(), _image((2, 4, 5, 3), "uint8").numpy()
    for seed in SEEDS:
        for name, args in [("stateless_random_brightness", (x32, 0.95)), ("stateless_random_brightness", (xu8, 0.5)),
                           ("stateless_random_flip_left_right", (x32,)), ("stateless_random_flip_up_down", (xu8,)),
                           ("stateless_random_flip_left_right", (x32[0],)),
                           ("stateless_random_crop", (xu8, [1, 2, 3, 3])),
                           ("stateless_random_contrast", (xu8, 0.1, 0.9)), ("stateless_random_hue", (xu8, 0.5)),
                           ("stateless_random_saturation", (xu8, 0.2, 1.8))]:
            want = getattr(tf_ref.image, name)(*args, seed=seed).numpy()
            got = getattr(tf.image, name)(*args, seed=seed).numpy()
            assert got.dtype == want.dtype and got.shape == want.shape, name
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (name, seed)
