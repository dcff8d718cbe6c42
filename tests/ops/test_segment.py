"""tf.math.segment_* and unsorted_segment_*: values, empty segments, errors, and gradients
(finite differences away from ties; TF's tie and zero rules at them)."""
import numpy as np
import pytest

import minitf as tf
from minitf.device import device
from minitf.gradient_checker import assert_gradients_close
from minitf.ops import segment

RNG = np.random.default_rng(0)
SORTED = ["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod"]
UNSORTED = ["unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_max",
            "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sqrt_n"]


def reference(kind, data, ids, num, empty):
    """Per-segment numpy reductions; `empty` is what a segment without rows holds."""
    out = np.full((num,) + data.shape[ids.ndim:], empty, dtype=np.float64)
    flat_ids = ids.reshape(-1)
    rows = data.reshape((flat_ids.size,) + data.shape[ids.ndim:])
    for s in range(num):
        sel = rows[flat_ids == s]
        if len(sel):
            out[s] = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod,
                      "sqrt_n": lambda a, axis: np.sum(a, axis) / np.sqrt(len(a))}[kind](sel, axis=0)
    return out


@pytest.mark.parametrize("name", SORTED)
def test_sorted_values_and_empty_segments(name):
    data = RNG.normal(size=(6, 3))
    ids = np.array([0, 0, 2, 2, 2, 5])
    y = getattr(tf.math, name)(tf.constant(data), tf.constant(ids))
    kind = name.split("_")[1]
    empty = 1.0 if kind == "prod" else 0.0
    assert y.shape == (6, 3) and y.dtype == tf.float64
    np.testing.assert_allclose(y.numpy(), reference(kind, data, ids, 6, empty), rtol=1e-12)


@pytest.mark.parametrize("name", UNSORTED)
def test_unsorted_values_drop_negative_ids(name):
    data = RNG.normal(size=(2, 3, 2))
    ids = np.array([[3, -1, 0], [3, 0, -1]])
    y = getattr(tf.math, name)(tf.constant(data), tf.constant(ids), 5)
    kind = name.split("_", 2)[2]
    empty = {"max": np.finfo(np.float64).min, "min": np.finfo(np.float64).max, "prod": 1.0}.get(kind, 0.0)
    assert y.shape == (5, 2)
    np.testing.assert_allclose(y.numpy(), reference(kind, data, ids, 5, empty), rtol=1e-12)


def test_empty_segment_fill_values_follow_tf():
    x = tf.constant([1, 2], tf.int8)
    assert tf.math.unsorted_segment_max(x, [0, 0], 2).numpy().tolist() == [2, -128]
    assert tf.math.unsorted_segment_min(tf.constant([1, 2], tf.uint8), [0, 0], 2).numpy().tolist() == [1, 255]
    assert tf.math.unsorted_segment_max(tf.constant([1.0], tf.float16), [1], 2).numpy().tolist() == [-65504.0, 1.0]
    assert tf.math.segment_max(tf.constant([-3.0, 4.0]), [1, 1]).numpy().tolist() == [0.0, 4.0]
    assert tf.math.segment_prod(tf.constant([-3, 4]), [1, 1]).numpy().tolist() == [1, -12]


def test_integer_mean_truncates_toward_zero_and_sums_wrap():
    y = tf.math.segment_mean(tf.constant([-3, -2, 5, 2, -128, 0], tf.int8), [0, 0, 1, 1, 2, 2])
    assert y.dtype == tf.int8 and y.numpy().tolist() == [-2, 3, -64]
    assert tf.math.segment_sum(tf.constant([100, 100], tf.int8), [0, 0]).numpy().tolist() == [-56]
    assert tf.math.segment_prod(tf.constant([100, 100], tf.int8), [0, 0]).numpy().tolist() == [16]


def test_unsorted_mean_and_sqrt_n_dtypes():
    assert tf.math.unsorted_segment_mean(tf.constant([1, 2], tf.int16), [0, 0], 2).dtype == tf.float32
    y = tf.math.unsorted_segment_mean(tf.constant([1, 2], tf.int64), [0, 0], 2)
    assert y.dtype == tf.float64 and y.numpy().tolist() == [1.5, 0.0]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.unsorted_segment_sqrt_n(tf.constant([1, 2]), [0, 0], 2)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.unsorted_segment_mean(tf.constant([1j, 2j]), [0, 0], 2)


def test_zero_rows():
    y = tf.math.segment_sum(tf.zeros([0, 3]), tf.zeros([0], tf.int32))
    assert y.shape == (0, 3)
    y = tf.math.unsorted_segment_prod(tf.zeros([0, 3]), tf.zeros([0], tf.int32), 2)
    assert y.numpy().tolist() == [[1.0] * 3] * 2


@pytest.mark.parametrize("ids, match", [
    ([1, 0, 2], "not increasing"), ([-1, 0, 0], "out of range"), ([[0, 0, 1]], "vector"),
    ([0, 0], "same size")])
def test_sorted_errors(ids, match):
    with pytest.raises(tf.errors.InvalidArgumentError, match=match) as info:
        tf.math.segment_sum(tf.constant([1.0, 2.0, 3.0]), ids)
    assert "SegmentSum" in str(info.value)


def test_sorted_dtype_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="bool"):
        tf.math.segment_sum(tf.constant([True]), [0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="complex128"):
        tf.math.segment_max(tf.constant([1j]), [0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tindices"):
        tf.math.segment_sum(tf.constant([1.0]), tf.constant([0], tf.int16))
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank 1"):
        tf.math.segment_sum(tf.constant(1.0), [0])


@pytest.mark.parametrize("num, ids, match", [
    (2, [0, 2], r"segment_ids\[1\] = 2 is out of range \[0, 2\)"), (-1, [0, 0], "must not be negative"),
    ([2], [0, 0], "scalar"), (2.0, [0, 0], "Tnumsegments"), (2, [0, 0, 1], "does not start with")])
def test_unsorted_errors(num, ids, match):
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        tf.math.unsorted_segment_sum(tf.constant([1.0, 2.0]), ids, num)


def test_unsorted_max_rejects_int16_ids_as_tf():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tindices"):
        tf.math.unsorted_segment_max(tf.constant([1.0]), tf.constant([0], tf.int16), 1)
    assert tf.math.unsorted_segment_sum(tf.constant([1.0]), tf.constant([0], tf.int16), 1).numpy() == [1.0]


def test_num_segments_tensor():
    y = tf.math.unsorted_segment_sum(tf.constant([1.0, 2.0]), [1, 1], tf.constant(3, tf.int64))
    assert y.numpy().tolist() == [0.0, 3.0, 0.0]


@pytest.mark.parametrize("name", SORTED)
def test_sorted_gradients_finite_differences(name):
    data = tf.constant(RNG.uniform(0.5, 2.0, size=(5, 2)) * np.array([1, -1]))  # no ties, no zeros
    ids = tf.constant([0, 0, 1, 3, 3])
    order = 2 if name in ("segment_sum", "segment_mean", "segment_prod") else 1
    assert_gradients_close(lambda d: getattr(tf.math, name)(d, ids), [data], order=order)


@pytest.mark.parametrize("name", UNSORTED)
def test_unsorted_gradients_finite_differences(name):
    data = tf.constant(RNG.uniform(0.5, 2.0, size=(2, 3, 2)) * np.array([1, -1]))
    ids = tf.constant([[2, -1, 0], [2, 0, 0]])
    order = 1 if name in ("unsorted_segment_max", "unsorted_segment_min") else 2
    assert_gradients_close(lambda d: getattr(tf.math, name)(d, ids, 4), [data], order=order)


def grad_of(fn, x):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x).numpy()


def test_max_gradient_splits_ties_evenly():
    g = grad_of(lambda x: tf.math.segment_max(x, [0, 0, 0, 1, 1, 2]), [2.0, 1, 2, 3, 3, 3])
    assert g.tolist() == [0.5, 0.0, 0.5, 0.5, 0.5, 1.0]
    g = grad_of(lambda x: tf.math.unsorted_segment_min(x, [1, -1, 1, 0], 3), [2.0, 2, 2, 5])
    assert g.tolist() == [0.5, 0.0, 0.5, 1.0]


def test_prod_gradient_with_zeros():
    g = grad_of(lambda x: tf.math.segment_prod(x, [0, 0, 0, 1, 1, 2, 2]), [2.0, 0, 2, 0, 0, 3, 0])
    assert g.tolist() == [0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 3.0]
    g = grad_of(lambda x: tf.math.unsorted_segment_prod(x, [0, -1, 0, 1, 1], 2), [0.0, 5, 3, 0, 0])
    assert g.tolist() == [3.0, 0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("kind, ufunc, fill", [("prod", np.multiply, 1.0), ("max", np.maximum, -np.inf),
                                                ("min", np.minimum, np.inf)])
def test_reduce_by_padding_matches_ufunc_at(kind, ufunc, fill):
    """The path other array modules (cupy) take for products, maxima and minima."""
    data = RNG.normal(size=(7, 2))
    ids = np.array([3, 0, 3, 1, 3, 0, 5])
    want = np.full((6, 2), fill)
    ufunc.at(want, ids, data)
    got = segment.reduce_by_padding(np, data, ids, 6, kind)
    np.testing.assert_allclose(got[[0, 1, 3, 5]], want[[0, 1, 3, 5]])
    assert segment.reduce_by_padding(np, np.zeros((0, 2)), np.zeros(0, int), 2, "prod").tolist() == [[1, 1]] * 2


def _segments(data):
    x = tf.constant(data)
    with tf.GradientTape() as tape:
        tape.watch(x)
        ys = [tf.math.segment_sum(x, [0, 0, 2, 2]), tf.math.segment_max(x, [0, 0, 2, 2]),
              tf.math.unsorted_segment_prod(x, [1, -1, 1, 0], 3), tf.math.unsorted_segment_min(x, [1, 1, 0, 2], 4),
              tf.math.unsorted_segment_mean(x, [2, 0, 2, 0], 3)]
        loss = tf.add_n([tf.reduce_sum(y) for y in ys])
    return ys + [tape.gradient(loss, x)]


def test_segment_ops_stay_on_the_array_module_of_their_inputs(fake_gpu):
    data = RNG.normal(size=(4, 3))
    with device("/CPU:0"):
        want = _segments(data)
    got = _segments(data)
    for g, w in zip(got, want):
        assert isinstance(g._value, fake_gpu.ndarray)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)
