"""The numpy relu kernel compares against a zero row instead of the scalar 0 (faster in numpy);
its results must be numpy.maximum(v, 0) bit for bit, whatever the size, layout and values."""
import numpy as np
import pytest

from minitf.kernels import numpy as host_kernels

SPECIALS = (-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf)


def _with_specials(a):
    flat = a.reshape(-1)
    info = np.finfo(a.dtype)
    values = SPECIALS + (info.max, info.min, info.tiny, -info.tiny, info.smallest_subnormal)
    flat[:len(values)] = np.array(values, dtype=a.dtype)[:flat.size]
    return a


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(7,), (1, 45, 45, 64), (3, 1031), (2048,), (4096, 3), (1, 9, 9, 288),
                                   (1021, 2), (16384, 1)])
def test_relu_is_maximum_with_zero_bit_for_bit(shape, dtype):
    a = _with_specials(np.random.default_rng(0).standard_normal(shape).astype(dtype))
    got = host_kernels.relu(a)
    want = np.maximum(a, 0)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(_bits(got), _bits(want))


def test_relu_of_a_transposed_input():
    a = _with_specials(np.random.default_rng(1).standard_normal((64, 96)).astype(np.float32)).T
    assert np.array_equal(_bits(host_kernels.relu(a)), _bits(np.maximum(a, 0)))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
def test_relu_of_integers(dtype):
    a = np.arange(-3000, 3000).astype(dtype)
    assert np.array_equal(host_kernels.relu(a), np.maximum(a, 0))


def test_rows_split_the_size_evenly():
    assert host_kernels._zero_row_length(1 * 45 * 45 * 64) == 8100
    assert host_kernels._zero_row_length(1021 * 2) == 2042
    assert host_kernels._zero_row_length(1021 * 7) == 7147
    assert host_kernels._zero_row_length(1021 * 11) == 0  # only 1021 and 11 * 1021 divide it: scalar path
    assert host_kernels._zero_row_length(100) == 0


def test_the_zero_row_cannot_be_written():
    row = host_kernels._zero_row(2048, np.dtype(np.float32))
    with pytest.raises(ValueError):
        row[0] = 1
