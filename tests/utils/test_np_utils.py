import numpy as np
import pytest

from minitf.utils import normalize, to_categorical


def test_to_categorical_shapes_and_values():
    y = np.array([0, 2, 1, 2])
    out = to_categorical(y)
    assert out.dtype == np.float64 and out.shape == (4, 3)  # Keras 3 returns float64 (Keras 2: float32)
    np.testing.assert_array_equal(out.argmax(1), y)
    assert out.sum() == 4
    col = to_categorical(y.reshape(-1, 1), num_classes=5)  # (N, 1) labels lose the 1
    assert col.shape == (4, 5)
    grid = to_categorical(np.array([[0, 1], [1, 0]]), 2, dtype="int32")
    assert grid.shape == (2, 2, 2) and grid.dtype == np.int32
    with pytest.raises(ValueError, match="labels"):
        to_categorical([3], num_classes=2)


def test_normalize_unit_norm_and_zero_rows():
    x = np.array([[3.0, 4.0], [0.0, 0.0]])
    out = normalize(x)
    np.testing.assert_allclose(out[0], [0.6, 0.8])
    np.testing.assert_array_equal(out[1], [0, 0])
    np.testing.assert_allclose(np.abs(normalize(x, axis=0, order=1)).sum(0), [1, 1])
