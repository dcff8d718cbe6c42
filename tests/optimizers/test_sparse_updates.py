"""IndexedSlices gradients (from tf.gather and Embedding): same results as the dense gradient for
every optimizer, Keras-style clipping of the values, and row-only writes where that is exact."""
import math

import numpy as np
import pytest

import minitf as tf
from minitf.indexed_slices import IndexedSlices
from minitf.kernels import jit
from minitf.optimizers import (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam,
                               Ftrl)

MAKERS = {
    "sgd": lambda: SGD(0.1),
    "sgd_momentum": lambda: SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda: SGD(0.1, momentum=0.9, nesterov=True),
    "sgd_weight_decay": lambda: SGD(0.1, weight_decay=0.05),
    "adam": lambda: Adam(0.05),
    "adam_amsgrad": lambda: Adam(0.05, amsgrad=True),
    "adamw": lambda: AdamW(0.05, weight_decay=0.1),
    "adamax": lambda: Adamax(0.05),
    "nadam": lambda: Nadam(0.05),
    "rmsprop": lambda: RMSprop(0.05),
    "rmsprop_momentum_centered": lambda: RMSprop(0.05, momentum=0.5, centered=True),
    "adagrad": lambda: Adagrad(0.1),
    "adagrad_weight_decay": lambda: Adagrad(0.1, weight_decay=0.05),
    "adadelta": lambda: Adadelta(1.0),
    "ftrl": lambda: Ftrl(0.1, l1_regularization_strength=0.01, beta=0.1),
    "sgd_ema": lambda: SGD(0.1, use_ema=True, ema_momentum=0.5),
}
INDICES = [[1, 4, 1, 1], [0, 4, 4, 2], [4, 1, 1, 0]]  # duplicates; row 3 is never touched


def gather_gradient(var, indices, seed):
    """The IndexedSlices gradient of sum(gather(var, indices) * c) for random c."""
    coeff = np.random.default_rng(seed).normal(size=(len(indices), var.shape[1]))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(var, tf.constant(indices)) *
                             tf.constant(coeff.astype(var.dtype.as_numpy_dtype)))
    return tape.gradient(loss, var)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(MAKERS))
def test_gather_gradient_equals_dense_gradient(name, dtype):
    w0 = np.random.default_rng(1).normal(size=(5, 3)).astype(dtype)
    sparse_var, dense_var = tf.Variable(w0), tf.Variable(w0)
    opt_s, opt_d = MAKERS[name](), MAKERS[name]()
    for step, indices in enumerate(INDICES):
        grad = gather_gradient(sparse_var, indices, step)
        assert isinstance(grad, IndexedSlices)
        opt_s.apply_gradients([(grad, sparse_var)])
        opt_d.apply_gradients([(tf.convert_to_tensor(grad), dense_var)])
        np.testing.assert_array_equal(sparse_var.numpy(), dense_var.numpy())
    assert not np.array_equal(sparse_var.numpy(), w0)
    for (_, slot_name, slot_s), (_, _, slot_d) in zip(opt_s._slot_vars, opt_d._slot_vars):
        np.testing.assert_array_equal(slot_s.numpy(), slot_d.numpy(), err_msg=slot_name)


@pytest.mark.parametrize("name", ["sgd", "adagrad", "adam", "rmsprop", "ftrl"])
def test_embedding_gradient_equals_dense_gradient(name):
    layers = [tf.keras.layers.Embedding(6, 4) for _ in range(2)]
    ids = tf.constant([[1, 3, 3], [5, 1, 3]])
    for layer in layers:
        layer(ids)
    layers[1].embeddings.assign(layers[0].embeddings.numpy())
    before = layers[0].embeddings.numpy().copy()
    opts = [MAKERS[name](), MAKERS[name]()]
    for step in range(3):
        target = tf.constant(np.random.default_rng(step).normal(size=(2, 3, 4)).astype(np.float32))
        grads = []
        for layer in layers:
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(layer(ids) - target))
            grads.append(tape.gradient(loss, layer.trainable_variables)[0])
        assert isinstance(grads[0], IndexedSlices)
        opts[0].apply_gradients([(grads[0], layers[0].embeddings)])
        opts[1].apply_gradients([(tf.convert_to_tensor(grads[1]), layers[1].embeddings)])
        np.testing.assert_array_equal(layers[0].embeddings.numpy(), layers[1].embeddings.numpy())
    after = layers[0].embeddings.numpy()
    assert not np.array_equal(after[[1, 3, 5]], before[[1, 3, 5]])
    if name in ("sgd", "adagrad"):
        np.testing.assert_array_equal(after[[0, 2, 4]], before[[0, 2, 4]])


def duplicate_rows_gradient():
    return IndexedSlices(tf.constant([[1.0, 2.0], [1.0, 1.0]]), tf.constant([0, 0]),
                         tf.constant([3, 2]))


@pytest.mark.parametrize("make", [lambda **k: SGD(1.0, **k), lambda **k: SGD(1.0, momentum=0.5, **k)])
def test_clipping_acts_on_the_values_like_keras(make):
    values = np.array([[1.0, 2.0], [1.0, 1.0]])
    var = tf.Variable(np.zeros((3, 2)))
    make(clipvalue=1.5).apply_gradients([(duplicate_rows_gradient(), var)])
    np.testing.assert_allclose(var.numpy()[0], -np.clip(values, -1.5, 1.5).sum(0))
    for kwargs in ({"clipnorm": 1.0}, {"global_clipnorm": 1.0}):
        var = tf.Variable(np.zeros((3, 2)))
        make(**kwargs).apply_gradients([(duplicate_rows_gradient(), var)])
        # the norm is the values' norm sqrt(7), not the summed row's sqrt(13)
        np.testing.assert_allclose(var.numpy()[0], -values.sum(0) / math.sqrt(7.0))
        np.testing.assert_array_equal(var.numpy()[1:], 0.0)


def test_clipped_values_agree_with_tensorflow():
    # SGD: Keras's sparse Adagrad squares duplicate rows one by one (unlike its dense path), so
    # it is not the reference here; its SGD scatter-subtracts, which sums duplicates.
    ref = pytest.importorskip("tensorflow")
    values = np.array([[1.0, 2.0], [1.0, 1.0], [-3.0, 0.5]])
    for kwargs in ({"clipvalue": 1.5}, {"clipnorm": 1.0}, {"global_clipnorm": 2.0}):
        ref_var = ref.Variable(np.zeros((3, 2)))
        ref.keras.optimizers.SGD(0.5, **kwargs).apply_gradients(
            [(ref.IndexedSlices(ref.constant(values), ref.constant([0, 2, 0]),
                               ref.constant([3, 2])), ref_var)])
        var = tf.Variable(np.zeros((3, 2)))
        SGD(0.5, **kwargs).apply_gradients(
            [(IndexedSlices(tf.constant(values), tf.constant([0, 2, 0]), tf.constant([3, 2])), var)])
        np.testing.assert_allclose(var.numpy(), ref_var.numpy(), rtol=1e-6, err_msg=str(kwargs))


class _WriteLog(np.ndarray):
    """An array that records writes into tracked memory: ufunc `out=` targets and __setitem__
    (a fancy-indexed copy is a _WriteLog too, but writing into it is not logged)."""

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        if method == "at" and _is_tracked(inputs[0]):
            _WRITES.append(("at", np.asarray(inputs[1]).tolist()))
        inputs = tuple(np.asarray(x) if isinstance(x, _WriteLog) else x for x in inputs)
        if out is not None:
            for target in out:
                if _is_tracked(target):
                    _WRITES.append(("whole", target.shape))
            out = tuple(np.asarray(x) if isinstance(x, _WriteLog) else x for x in out)
            kwargs["out"] = out
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __setitem__(self, key, value):
        if _is_tracked(self):
            _WRITES.append(("rows", np.asarray(key).tolist() if not isinstance(key, slice) else key))
        np.asarray(self)[key] = value


_WRITES = []
_TRACKED = []


def _is_tracked(array):
    return any(np.shares_memory(array, base) for base in _TRACKED)


def tracked(variable):
    """Swap `variable`'s array for a _WriteLog view of the same memory."""
    _TRACKED.append(variable._value)
    variable._value = variable._value.view(_WriteLog)
    return variable._value


@pytest.mark.parametrize("name", ["sgd", "adagrad", "sgd_momentum", "adam", "ftrl"])
def test_row_sparse_optimizers_write_only_touched_rows(name, monkeypatch):
    monkeypatch.setattr(jit, "_found", [False])  # the log sees numpy's ufuncs, not numba's loops
    with tf.device("/CPU:0"):  # the write log is a numpy array subclass, so the variable stays on the host
        var = tf.Variable(np.ones((6, 2)))
        opt = MAKERS[name]()
        opt.build([var])
        # ids, not the arrays: holding a variable's array would make the step copy it first
        tracked_ids = [id(tracked(var))] + [id(tracked(slot)) for _, _, slot in opt._slot_vars]
        grad = IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
                             tf.constant([4, 1, 4]), tf.constant([6, 2]))
        _WRITES.clear()
        try:
            opt.apply_gradients([(grad, var)])
        finally:
            _TRACKED.clear()
        assert id(var._value) == tracked_ids[0]  # updated in place, through the tracked array
        if name in ("sgd", "adagrad"):
            assert _WRITES and all(kind == "rows" and rows == [1, 4] for kind, rows in _WRITES)
        else:  # the moment-based and Ftrl steps move every row, so they write whole arrays
            assert ("whole", (6, 2)) in _WRITES
