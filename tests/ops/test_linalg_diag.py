"""tf.linalg.diag, diag_part and set_diag: values against a loop over TF's documented formula
(bands, alignments, sizes, padding, batches, dtypes), errors, and float64 finite-difference
gradients (each op's gradient is another of the three)."""
import itertools

import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

rng = np.random.default_rng(7)
ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")


def _offset(d, rows, cols, max_len, align):
    """TF's alignment offset of diagonal d in a row of max_len entries."""
    sup, sub = align.split("_")
    diag_len = min(rows + min(0, d), cols - max(0, d))
    right = (d >= 0 and sup == "RIGHT") or (d <= 0 and sub == "RIGHT")
    return max_len - diag_len if right else 0


def ref_diag_part(x, lower, upper, pad, align):
    rows, cols = x.shape[-2:]
    max_len = max(0, min(rows + min(upper, 0), cols - max(lower, 0)))
    out = np.full(x.shape[:-2] + (upper - lower + 1, max_len), pad, dtype=x.dtype)
    for j, n in itertools.product(range(upper - lower + 1), range(max_len)):
        d = upper - j
        off = _offset(d, rows, cols, max_len, align)
        r, c = n + max(-d, 0) - off, n + max(d, 0) - off
        if 0 <= r < rows and 0 <= c < cols:
            out[..., j, n] = x[..., r, c]
    return out[..., 0, :] if lower == upper else out


def ref_diag(v, lower, upper, rows, cols, pad, align):
    vb = v if lower != upper else v[..., None, :]
    max_len = vb.shape[-1]
    out = np.full(vb.shape[:-2] + (rows, cols), pad, dtype=v.dtype)
    for m, n in itertools.product(range(rows), range(cols)):
        d = n - m
        if lower <= d <= upper:
            out[..., m, n] = vb[..., upper - d, n - max(d, 0) + _offset(d, rows, cols, max_len, align)]
    return out


@pytest.mark.parametrize("align", ALIGNS)
@pytest.mark.parametrize("k", [0, 1, -2, (-1, 1), (0, 2), (-2, -1), (1, 1)])
def test_diag_part_matches_the_formula(k, align):
    lower, upper = (k, k) if isinstance(k, int) else k
    for shape in [(3, 4), (4, 3), (2, 3, 3)]:
        x = rng.integers(-9, 9, size=shape).astype(np.int16)
        got = tf.linalg.diag_part(tf.constant(x), k=k, padding_value=-5, align=align)
        np.testing.assert_array_equal(got.numpy(), ref_diag_part(x, lower, upper, -5, align))
        assert got.dtype == tf.int16


@pytest.mark.parametrize("align", ALIGNS)
@pytest.mark.parametrize("k,sizes", [(1, (-1, -1)), (-1, (3, 4)), (-1, (3, -1)), ((-1, 1), (-1, -1)),
                                     ((0, 2), (-1, 5)), ((-2, 0), (4, 2)), (2, (2, -1))])
def test_diag_matches_the_formula_and_inverts_diag_part(k, sizes, align):
    lower, upper = (k, k) if isinstance(k, int) else k
    shape = (2,) + ((upper - lower + 1,) if lower != upper else ()) + (2,)
    v = rng.standard_normal(shape).astype(np.float32)
    got = tf.linalg.diag(tf.constant(v), k=k, num_rows=sizes[0], num_cols=sizes[1], padding_value=9.5,
                         align=align)
    rows, cols = got.shape[-2:]
    min_rows, min_cols = 2 - min(upper, 0), 2 + max(lower, 0)
    assert (rows == min_rows or cols == min_cols) and rows >= min_rows and cols >= min_cols
    np.testing.assert_array_equal(got.numpy(), ref_diag(v, lower, upper, rows, cols, 9.5, align))
    back = tf.linalg.diag_part(got, k=k, padding_value=0.0, align=align).numpy()
    np.testing.assert_array_equal(back, ref_diag_part(ref_diag(v, lower, upper, rows, cols, 0, align),
                                                      lower, upper, 0, align))


def test_the_reported_cases_and_default_sizes():
    np.testing.assert_array_equal(tf.linalg.diag(tf.constant([1, 2], tf.int8), k=1).numpy(),
                                  [[0, 1, 0], [0, 0, 2], [0, 0, 0]])
    np.testing.assert_array_equal(tf.linalg.diag_part(tf.reshape(tf.range(9), [3, 3]), k=1).numpy(), [1, 5])
    assert tf.linalg.diag(tf.zeros([2]), k=-1, num_rows=4).shape == (4, 2)  # num_cols: the smallest
    assert tf.linalg.diag(tf.zeros([2]), num_cols=4).shape == (2, 4)
    assert tf.linalg.diag(tf.zeros([0]), k=1).shape == (1, 1)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "uint16", "int64", "uint64", "float16",
                                   "float64", "complex64", "complex128"])
def test_dtypes_and_their_extremes(dtype):
    if dtype == "bool":
        v = np.array([True, False, True])
        pad = 1  # TF's wrapper turns it into True for a bool input
    elif np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        v, pad = np.array([info.min, info.max, 1], dtype=dtype), int(info.max)
    elif np.dtype(dtype).kind == "f":
        info = np.finfo(dtype)
        v, pad = np.array([info.min, info.max, info.tiny], dtype=dtype), -0.0
    else:
        v, pad = np.array([1 + 2j, -3j, 0], dtype=dtype), 1j
    m = tf.linalg.diag(tf.constant(v), k=1, padding_value=pad)
    assert m.dtype.name == dtype
    np.testing.assert_array_equal(m.numpy(), ref_diag(v, 1, 1, 4, 4, np.asarray(pad).astype(dtype), "RIGHT_LEFT"))
    np.testing.assert_array_equal(tf.linalg.diag_part(m, k=1).numpy(), v)
    s = tf.linalg.set_diag(m, tf.constant(v[::-1].copy()), k=1)
    np.testing.assert_array_equal(tf.linalg.diag_part(s, k=1).numpy(), v[::-1])


def test_set_diag_replaces_only_the_band():
    x = rng.standard_normal((2, 3, 4))
    for k, align in [(0, "RIGHT_LEFT"), ((-1, 2), "RIGHT_LEFT"), ((-1, 2), "LEFT_RIGHT"), (-2, "LEFT_LEFT")]:
        lower, upper = (k, k) if isinstance(k, int) else k
        d = -np.abs(rng.standard_normal(ref_diag_part(x, lower, upper, 0, align).shape))
        y = tf.linalg.set_diag(tf.constant(x), tf.constant(d), k=k, align=align).numpy()
        offsets = np.arange(4)[None, :] - np.arange(3)[:, None]
        band = (offsets >= lower) & (offsets <= upper)
        np.testing.assert_array_equal(y[..., ~band], x[..., ~band])
        got = ref_diag_part(y, lower, upper, 0, align)
        used = ref_diag_part(np.ones_like(x), lower, upper, 0, align) == 1  # padded slots are not used
        np.testing.assert_array_equal(got[used], d[used])


@pytest.mark.parametrize("call,error", [
    (lambda: tf.linalg.diag(tf.constant(1.0)), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.diag(tf.zeros([2]), k=(1, -1)), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.diag(tf.zeros([2]), k=[0, 1, 2]), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.diag(tf.zeros([2]), k=(0, 1)), tf.errors.InvalidArgumentError),  # TF aborts here
    (lambda: tf.linalg.diag(tf.zeros([2, 2]), k=(-1, 1)), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.diag(tf.zeros([2]), k=1.5), TypeError),
    (lambda: tf.linalg.diag(tf.zeros([2]), k=tf.constant(1, tf.int64)), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.diag(tf.zeros([2]), num_rows=1), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.diag(tf.zeros([2]), num_rows=5, num_cols=5), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.diag(tf.zeros([2]), num_rows=[3]), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.diag(tf.zeros([2]), padding_value=tf.zeros([2])), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.diag(tf.zeros([2], tf.int8), padding_value=1.5), TypeError),
    (lambda: tf.linalg.diag(tf.zeros([2]), align="right_left"), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.diag(tf.zeros([2]), align=1), TypeError),
    (lambda: tf.linalg.diag(tf.constant(["a", "b"])), TypeError),
    (lambda: tf.linalg.diag(tf.constant(["a", "b"]), padding_value=""), tf.errors.NotFoundError),
    (lambda: tf.linalg.diag_part(tf.zeros([3])), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.diag_part(tf.zeros([3, 3]), k=3), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.diag_part(tf.zeros([3, 3]), k=(-3, 0)), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.set_diag(tf.zeros([3, 3]), tf.zeros([3]), k=1), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.set_diag(tf.zeros([2, 3, 3]), tf.zeros([3, 3])), tf.errors.InvalidArgumentError),
    (lambda: tf.linalg.set_diag(tf.zeros([3, 3]), tf.constant([1, 2, 3])), tf.errors.InvalidArgumentError),
])
def test_bad_arguments_raise_tfs_errors(call, error):
    with pytest.raises(error):
        call()


@pytest.mark.parametrize("k,align", [(0, "RIGHT_LEFT"), (1, "LEFT_RIGHT"), ((-1, 1), "RIGHT_LEFT"),
                                     ((-2, 0), "LEFT_LEFT"), ((0, 1), "RIGHT_RIGHT")])
def test_gradients_match_finite_differences(k, align):
    lower, upper = (k, k) if isinstance(k, int) else k
    x = tf.constant(rng.standard_normal((2, 3, 4)))
    assert_gradients_close(lambda a: tf.linalg.diag_part(a, k=k, align=align, padding_value=3.0), [x], order=2)
    d = tf.constant(tf.linalg.diag_part(x, k=k, align=align).numpy() + 0.5)
    assert_gradients_close(lambda a: tf.linalg.diag(a, k=k, align=align, padding_value=-1.0), [d], order=2)
    assert_gradients_close(lambda a: tf.linalg.diag(a, k=k, num_rows=5, align=align), [d], order=1)
    assert_gradients_close(lambda a, b: tf.linalg.set_diag(a * a, b * b, k=k, align=align), [x, d], order=2)
    assert_gradients_close(lambda a: tf.linalg.diag_part(a, k=k, align=align), [x[0]], order=1)


def test_jacobian_of_a_band():
    x = tf.constant(rng.standard_normal((3, 3)))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.linalg.diag_part(x, k=(-1, 1))
        entries = [[y[i, j] for j in range(3)] for i in range(3)]
    jac = tape.jacobian(y, x).numpy()
    loop = np.stack([np.stack([tape.gradient(e, x).numpy() for e in row]) for row in entries])
    np.testing.assert_array_equal(jac, loop)
    assert jac.sum() == 7  # the seven entries of the band, each read once (two slots are padding)
