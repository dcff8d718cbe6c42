"""tf.nn.ctc_loss and the CTC decoders: the loss against a brute-force sum over alignments,
TF's blank_index and layout options, SparseTensor labels and their kernel's errors, float64
finite-difference gradients, the decoders against exhaustive search, and the device seam."""
import itertools

import numpy as np
import pytest

import minitf as tf
from minitf.device import device
from minitf.gradient_checker import assert_gradients_close

RNG = np.random.default_rng(21)


def collapse(path, blank):
    out, prev = [], None
    for c in path:
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out


def brute_force_nll(logits, label, blank=0):
    """-log sum over every alignment of `logits` [frames, classes] that collapses to `label`."""
    lp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    total = -np.inf
    for path in itertools.product(range(logits.shape[1]), repeat=logits.shape[0]):
        if collapse(path, blank) == list(label):
            total = np.logaddexp(total, sum(lp[t, c] for t, c in enumerate(path)))
    return -total


def test_loss_matches_the_sum_over_alignments():
    frames, classes = 5, 3
    logits = RNG.normal(size=(frames, 3, classes))
    labels = np.array([[1, 2, 0], [2, 2, 0], [1, 0, 0]])
    label_length, logit_length = np.array([2, 2, 1]), np.array([5, 4, 3])
    loss = tf.nn.ctc_loss(labels, tf.constant(logits), label_length, logit_length)
    assert loss.dtype == tf.float64 and loss.shape == (3,)
    want = [brute_force_nll(logits[:n, b], labels[b, :k]) for b, (k, n) in
            enumerate(zip(label_length, logit_length))]
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-10)


def test_blank_index_and_batch_major_layout():
    logits = RNG.normal(size=(6, 2, 4))
    labels = np.array([[0, 1], [2, 2]])
    ll, gl = np.array([2, 2]), np.array([6, 5])
    moved = np.concatenate([logits[..., 3:], logits[..., :3]], axis=-1)  # blank 3 -> 0
    base = tf.nn.ctc_loss(labels + 1, tf.constant(moved), ll, gl).numpy()
    np.testing.assert_allclose(tf.nn.ctc_loss(labels, tf.constant(logits), ll, gl, blank_index=3).numpy(), base)
    np.testing.assert_allclose(tf.nn.ctc_loss(labels, tf.constant(logits), ll, gl, blank_index=-1).numpy(), base)
    np.testing.assert_allclose(
        tf.nn.ctc_loss(labels, tf.constant(logits.transpose(1, 0, 2)), ll, gl, logits_time_major=False,
                       blank_index=-1).numpy(), base)


def test_float16_is_computed_in_float32():
    logits = RNG.normal(size=(4, 1, 3))
    y = tf.nn.ctc_loss([[1]], tf.constant(logits, tf.float16), [1], [4])
    assert y.dtype == tf.float16
    np.testing.assert_allclose(y.numpy(), [brute_force_nll(logits[:, 0].astype(np.float16).astype(np.float64), [1])],
                               rtol=2e-3)


def sparse(rows, dtype="int32"):
    idx = [[i, j] for i, r in enumerate(rows) for j in range(len(r))]
    vals = [v for r in rows for v in r]
    return tf.SparseTensor(np.asarray(idx, np.int64), tf.constant(vals, dtype),
                           [len(rows), max(len(r) for r in rows)])


def test_sparse_labels_agree_with_dense_and_follow_the_kernel():
    logits = tf.constant(RNG.normal(size=(5, 2, 4)))
    dense = tf.nn.ctc_loss(np.array([[1, 2, 0], [3, 3, 1]]), logits, [2, 3], [5, 4])
    np.testing.assert_allclose(tf.nn.ctc_loss(sparse([[1, 2], [3, 3, 1]]), logits, None, [5, 4],
                                              blank_index=0).numpy(), dense.numpy(), rtol=1e-12)
    # a repeat needs a blank between: two frames cannot hold [1, 1]
    assert tf.nn.ctc_loss(sparse([[1, 1]]), logits[:2, :1], None, [2], blank_index=0).numpy()[0] == np.inf
    with pytest.raises(ValueError, match="blank_index"):
        tf.nn.ctc_loss(sparse([[1]]), logits, None, [5, 4])
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        tf.nn.ctc_loss(sparse([[1], [2]], "int64"), logits, None, [5, 4], blank_index=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Not enough time"):
        tf.nn.ctc_loss(sparse([[1, 2, 3], [1]]), logits, None, [2, 4], blank_index=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="sequence_length"):
        tf.nn.ctc_loss(sparse([[1], [2]]), logits, None, [6, 4], blank_index=0)


def test_dense_label_errors():
    logits = tf.constant(RNG.normal(size=(5, 2, 4)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="class ids"):
        tf.nn.ctc_loss([[7], [1]], logits, [1, 1], [5, 5])
    with pytest.raises(tf.errors.InvalidArgumentError, match="label_length"):
        tf.nn.ctc_loss([[1], [1]], logits, [2, 1], [5, 5])
    with pytest.raises(tf.errors.InvalidArgumentError, match="batch"):
        tf.nn.ctc_loss([[1]], logits, [1], [5])


@pytest.mark.parametrize("blank_index", [0, 2, -1])
def test_gradient_finite_differences(blank_index):
    logits = tf.constant(RNG.normal(size=(4, 2, 3)))
    labels = np.array([[1, 1], [2, 0]]) if blank_index == 0 else np.array([[0, 0], [1, 0]])
    assert_gradients_close(lambda x: tf.nn.ctc_loss(labels, x, [2, 1], [4, 3], blank_index=blank_index),
                           [logits], rtol=1e-6, atol=1e-8)


def test_gradient_is_zero_past_logit_length_and_sums_to_zero_per_frame():
    x = tf.constant(RNG.normal(size=(6, 2, 4)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.nn.ctc_loss([[1, 2], [3, 0]], x, [2, 1], [6, 3])
    g = tape.gradient(loss, x).numpy()
    assert np.all(g[3:, 1] == 0)
    np.testing.assert_allclose(g.sum(axis=2), 0.0, atol=1e-12)  # softmax minus a distribution


def test_greedy_decoder():
    logits = np.full((6, 1, 3), -5.0)
    for t, c in enumerate([0, 0, 2, 0, 1, 1]):
        logits[t, 0, c] = 0.0
    (path,), logp = tf.nn.ctc_greedy_decoder(logits, [6])
    assert path.values.numpy().tolist() == [0, 0, 1] and path.dense_shape.numpy().tolist() == [1, 3]
    assert path.values.dtype == tf.int64 and logp.numpy().tolist() == [[0.0]]
    (path,), _ = tf.nn.ctc_greedy_decoder(logits, [6], merge_repeated=False)
    assert path.values.numpy().tolist() == [0, 0, 0, 1, 1]
    (path,), _ = tf.nn.ctc_greedy_decoder(logits, [6], blank_index=0)
    assert path.values.numpy().tolist() == [2, 1]
    with pytest.raises(tf.errors.FailedPreconditionError):
        tf.nn.ctc_greedy_decoder(logits, [7])


def test_beam_search_finds_the_most_likely_labelling():
    """With a wide beam the best path's probability is the CTC probability of its labels."""
    logits = RNG.normal(size=(4, 1, 3)) * 2
    paths, logp = tf.nn.ctc_beam_search_decoder(logits.astype(np.float32), [4], beam_width=50, top_paths=3)
    candidates = {}
    for n in range(0, 5):
        for label in itertools.product(range(2), repeat=n):
            if len(label) + sum(a == b for a, b in zip(label, label[1:])) <= 4:
                candidates[label] = -brute_force_nll(logits[:, 0], label, blank=2)
    best = sorted(candidates.items(), key=lambda kv: -kv[1])[:3]
    for (label, want), p, got in zip(best, paths, logp.numpy()[0]):
        assert p.values.numpy().tolist() == list(label)
        assert got == pytest.approx(want, abs=1e-5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="more paths than the beam width"):
        tf.nn.ctc_beam_search_decoder(logits, [4], beam_width=2, top_paths=3)


def test_unique_labels():
    y, idx = tf.nn.ctc_unique_labels([[3, 4, 4, 3], [1, 1, 0, 0]])
    assert y.dtype == tf.int64 and y.numpy().tolist() == [[3, 4, 0, 0], [1, 0, 0, 0]]
    assert idx.dtype == tf.int32 and idx.numpy().tolist() == [[0, 1, 1, 0], [0, 0, 1, 1]]


def _ctc(logits):
    x = tf.constant(logits)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.nn.ctc_loss([[1, 2], [2, 2]], x, [2, 2], [5, 4], blank_index=-1)
    return loss, tape.gradient(loss, x)


def test_ctc_loss_stays_on_the_array_module_of_its_inputs(fake_gpu):
    logits = RNG.normal(size=(5, 2, 4))
    with device("/CPU:0"):
        want = _ctc(logits)
    got = _ctc(logits)
    for g, w in zip(got, want):
        assert isinstance(g._value, fake_gpu.ndarray)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)
