import time

import numpy as np
import pytest

from minitf.datasets.digits import digits


def test_shapes_dtypes_balance_and_determinism():
    (x, y), (xt, yt) = digits.load_data(num_train=500, num_test=200, seed=3)
    assert x.shape == (500, 28, 28) and x.dtype == np.uint8
    assert y.shape == (500,) and y.dtype == np.uint8
    assert xt.shape == (200, 28, 28) and yt.shape == (200,)
    np.testing.assert_array_equal(np.bincount(y, minlength=10), [50] * 10)
    (x2, y2), _ = digits.load_data(num_train=500, num_test=200, seed=3)
    np.testing.assert_array_equal(x, x2)
    np.testing.assert_array_equal(y, y2)
    (x3, _), _ = digits.load_data(num_train=500, num_test=10, seed=4)
    assert not np.array_equal(x, x3)
    assert not np.array_equal(x[:200], xt)  # train and test are different streams


def test_images_look_like_mnist():
    (x, y), _ = digits.load_data(num_train=1000, num_test=0)
    assert x.max() == 255  # saturated ink, as in MNIST
    ink = (x > 0).mean(axis=(1, 2))
    assert 0.08 < ink.mean() < 0.35  # MNIST: about 19% of pixels are lit
    border = np.concatenate([x[:, 0, :], x[:, -1, :], x[:, :, 0], x[:, :, -1]], axis=1)
    assert (border > 0).mean() < 0.02  # digits stay inside the frame
    assert (x == 0).mean() > 0.6  # clean black background


def test_classes_are_separable_but_not_identical():
    (x, y), (xt, yt) = digits.load_data(num_train=3000, num_test=1000, seed=1)
    flat = x.reshape(len(x), -1).astype(np.float64) / 255
    flat_t = xt.reshape(len(xt), -1).astype(np.float64) / 255
    # a nearest-class-mean classifier is far above chance, yet not perfect: learnable, not trivial
    means = np.stack([flat[y == k].mean(0) for k in range(10)])
    pred = np.argmin(((flat_t[:, None, :] - means[None]) ** 2).sum(-1), axis=1)
    accuracy = (pred == yt).mean()
    assert 0.5 < accuracy < 0.98
    # within a class, images vary
    assert flat[y == 1].std(0).mean() > 0.05


def test_negative_counts_rejected():
    with pytest.raises(ValueError, match="num_train"):
        digits.load_data(num_train=-1)


def test_generation_speed():
    start = time.perf_counter()
    digits.load_data(num_train=7000, num_test=0)
    assert time.perf_counter() - start < 6.0  # 70k takes a few seconds; generous on a busy box
