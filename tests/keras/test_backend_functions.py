"""tf.keras.backend's functions (Keras 2's backend as TF 2.21 still exports it): TF's dtypes,
values against numpy, state helpers, rnn, and a float64 finite-difference gradient check of
every differentiable function."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

KB = tf.keras.backend
RNG = np.random.RandomState(2)


def arr(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, size=shape).astype(np.float64)


def flat(out):
    leaves = tf.nest.flatten(out)
    return tf.concat([tf.reshape(tf.cast(t, tf.float64), [-1]) for t in leaves], axis=0)


def test_exactly_tfs_names_are_exported():
    assert len(KB.__all__) == 137
    assert "learning_phase" not in KB.__all__ and not hasattr(KB, "learning_phase")
    assert KB.floatx is tf.keras.config.floatx


def test_tf_dtypes_not_keras_3_ones():
    assert KB.argmax(tf.constant([[1.0, 3.0]])).dtype == tf.int64
    assert KB.mean(tf.constant([1, 2])).dtype == tf.int32
    assert KB.mean(tf.constant([True, False])).dtype == tf.float32
    assert KB.arange(3).dtype == tf.int32 and KB.arange(-2).numpy().size == 0
    assert KB.constant(1).dtype == tf.float32


def test_settings_and_uids():
    KB.clear_session()
    assert [KB.get_uid("a"), KB.get_uid("a"), KB.get_uid("b")] == [1, 2, 1]
    KB.clear_session()
    assert KB.get_uid("a") == 1
    assert KB.backend() == "tensorflow"
    assert KB.standardize_dtype(np.float16) == "float16"
    assert KB.is_float_dtype("bfloat16") and KB.is_int_dtype("uint8")
    old = KB.epsilon()
    KB.set_epsilon(1e-3)
    try:
        assert KB.epsilon() == 1e-3
    finally:
        KB.set_epsilon(old)


def test_variables_and_values():
    v = KB.variable([1.0, 2.0], name="v")
    assert isinstance(v, tf.Variable) and v.dtype == tf.float32
    KB.set_value(v, [3, 4])
    np.testing.assert_array_equal(KB.get_value(v), [3.0, 4.0])
    KB.batch_set_value([(v, [0, 1])])
    assert KB.batch_get_value([v])[0].tolist() == [0.0, 1.0]
    KB.moving_average_update(v, tf.constant([10.0, 10.0]), 0.5)
    np.testing.assert_allclose(KB.eval(v), [5.0, 5.5])
    assert isinstance(KB.zeros((2, 3)), tf.Variable) and not isinstance(KB.zeros((0, 3)), tf.Variable)
    assert isinstance(KB.eye(2), tf.Variable)
    assert KB.int_shape(tf.zeros((2, 3))) == (2, 3) and KB.count_params(tf.zeros((2, 3))) == 6
    assert KB.is_keras_tensor(tf.keras.Input((2,))) and not KB.is_keras_tensor(tf.zeros(1))
    with pytest.raises(RuntimeError, match="GradientTape"):
        KB.gradients(tf.constant(1.0), [tf.constant(1.0)])


def test_seeded_random_draws_repeat_under_a_global_seed():
    def draws():
        tf.random.set_seed(3)
        try:
            return [KB.random_normal((3,), seed=1).numpy(), KB.random_uniform((3,), seed=2).numpy(),
                    KB.random_bernoulli((50,), 0.3, seed=4).numpy(),
                    KB.dropout(tf.ones((4, 4)), 0.5, seed=5).numpy()]
        finally:
            tf.random.set_seed(None)
    first, second = draws(), draws()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert set(np.unique(first[2])) <= {0.0, 1.0}
    assert set(np.unique(first[3])) <= {0.0, 2.0}


def test_batch_dot_matches_einsum():
    x, y = arr(2, 3, 4), arr(2, 4, 5)
    np.testing.assert_allclose(KB.batch_dot(x, y).numpy(), np.einsum("bij,bjk->bik", x, y))
    a, b = arr(2, 3), arr(2, 3)
    np.testing.assert_allclose(KB.batch_dot(a, b, axes=1).numpy(), np.sum(a * b, 1, keepdims=True))
    with pytest.raises(ValueError, match="axis 0"):
        KB.batch_dot(a, b, axes=0)


def test_rnn_matches_a_python_loop_with_a_mask():
    x = arr(2, 4, 3)
    w = arr(3, 2)
    mask = np.array([[1, 1, 0, 1], [1, 0, 1, 1]], bool)

    def step(inputs, states):
        h = tf.tanh(tf.matmul(inputs, w) + states[0])
        return h, [h]
    last, outputs, states = KB.rnn(step, tf.constant(x), [tf.zeros((2, 2), tf.float64)],
                                   mask=tf.constant(mask))
    h = np.zeros((2, 2))
    want = []
    for t in range(4):
        new = np.tanh(x[:, t] @ w + h)
        h = np.where(mask[:, t:t + 1], new, h)
        want.append(h)
    np.testing.assert_allclose(outputs.numpy(), np.stack(want, 1))
    np.testing.assert_allclose(last.numpy(), want[-1])
    np.testing.assert_allclose(states[0].numpy(), h)


def test_ctc_helpers():
    sparse = KB.ctc_label_dense_to_sparse(tf.constant([[1, 2, 0], [3, 3, 1]]), tf.constant([2, 3]))
    np.testing.assert_array_equal(tf.sparse.to_dense(sparse).numpy(), [[1, 2, 0], [3, 3, 1]])
    assert sparse.indices.numpy().tolist() == [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]]
    probs = np.full((1, 3, 3), 1e-4)
    probs[0, [0, 1, 2], [0, 2, 1]] = 1.0  # classes 0, blank, 1 (the blank is the last class)
    decoded, _ = KB.ctc_decode(probs, np.array([3]))
    assert decoded[0].numpy().tolist() == [[0, 1, -1]]


def test_switch_and_softmax_checks():
    out = KB.switch(tf.constant([True, False]), tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]))
    assert out.numpy().tolist() == [1.0, 4.0]
    assert float(KB.switch(tf.constant(False), lambda: 1.0, lambda: 2.0)) == 2.0
    with pytest.raises(ValueError, match="1D"):
        KB.softmax(tf.constant([1.0, 2.0]))
    assert list(KB.stop_gradient([tf.ones(1), tf.ones(1)]).__class__.__mro__)[0] is map


_GRADS = {
    "abs": lambda x: KB.abs(x), "cos": lambda x: KB.cos(x), "exp": lambda x: KB.exp(x),
    "log": lambda x: KB.log(x + 3.0), "sin": lambda x: KB.sin(x), "sqrt": lambda x: KB.sqrt(x + 3.0),
    "square": lambda x: KB.square(x), "tanh": lambda x: KB.tanh(x),
    "sigmoid": lambda x: KB.sigmoid(x), "softplus": lambda x: KB.softplus(x),
    "softsign": lambda x: KB.softsign(x), "hard_sigmoid": lambda x: KB.hard_sigmoid(x),
    "elu": lambda x: KB.elu(x, 0.5), "relu": lambda x: KB.relu(x, 0.1, 1.5, 0.2),
    "pow": lambda x: KB.pow(x + 3.0, 1.5), "clip": lambda x: KB.clip(x, -1.0, 1.0),
    "maximum": lambda x: KB.maximum(x, x[::-1]), "minimum": lambda x: KB.minimum(x, x[::-1]),
    "l2_normalize": lambda x: KB.l2_normalize(x, 0),
    "softmax": lambda x: KB.softmax(tf.reshape(x, (2, 3))),
    "sum": lambda x: KB.sum(x), "mean": lambda x: KB.mean(x), "max": lambda x: KB.max(x),
    "min": lambda x: KB.min(x), "prod": lambda x: KB.prod(x), "std": lambda x: KB.std(x),
    "var": lambda x: KB.var(x), "cumsum": lambda x: KB.cumsum(x), "cumprod": lambda x: KB.cumprod(x),
    "transpose": lambda x: KB.transpose(tf.reshape(x, (2, 3))), "flatten": lambda x: KB.flatten(x),
    "batch_flatten": lambda x: KB.batch_flatten(tf.reshape(x, (2, 3, 1))),
    "cast": lambda x: KB.cast(x, "float64"), "cast_to_floatx": lambda x: KB.cast_to_floatx(x),
    "reshape": lambda x: KB.reshape(x, (3, 2)),
    "permute_dimensions": lambda x: KB.permute_dimensions(tf.reshape(x, (2, 3)), (1, 0)),
    "expand_dims": lambda x: KB.expand_dims(x), "squeeze": lambda x: KB.squeeze(x[None], 0),
    "stack": lambda x: KB.stack([x, x * 2.0]), "concatenate": lambda x: KB.concatenate([x, x]),
    "tile": lambda x: KB.tile(x, 2), "repeat": lambda x: KB.repeat(tf.reshape(x, (2, 3)), 2),
    "repeat_elements": lambda x: KB.repeat_elements(x, 2, 0), "reverse": lambda x: KB.reverse(x, 0),
    "gather": lambda x: KB.gather(x, [0, 5, 2]),
    "dot": lambda x: KB.dot(tf.reshape(x, (2, 3)), tf.reshape(x, (3, 2))),
    "batch_dot": lambda x: KB.batch_dot(tf.reshape(x, (2, 3)), tf.reshape(x, (2, 3)), 1),
    "switch": lambda x: KB.switch(x > 0, x * 2.0, x * x),
    "map_fn": lambda x: KB.map_fn(lambda v: v * v, x),
    "foldl": lambda x: KB.foldl(lambda a, v: a * 0.5 + v * v, x),
    "foldr": lambda x: KB.foldr(lambda a, v: a * v + 1.0, x),
    "bias_add": lambda x: KB.bias_add(tf.reshape(x, (2, 3)), x[:3]),
    "batch_normalization": lambda x: KB.batch_normalization(
        x, tf.constant(0.5, tf.float64), tf.constant(2.0, tf.float64), tf.constant(0.1, tf.float64),
        tf.constant(1.5, tf.float64)),
    "binary_crossentropy": lambda x: KB.binary_crossentropy(tf.ones(6, tf.float64) * 0.3,
                                                            KB.sigmoid(x)),
    "binary_focal_crossentropy": lambda x: KB.binary_focal_crossentropy(
        tf.ones(6, tf.float64) * 0.3, x, from_logits=True),
    "categorical_crossentropy": lambda x: KB.categorical_crossentropy(
        tf.constant([[0.0, 1.0, 0.0]] * 2, tf.float64), KB.softmax(tf.reshape(x, (2, 3)))),
    "categorical_focal_crossentropy": lambda x: KB.categorical_focal_crossentropy(
        tf.constant([[0.0, 1.0, 0.0]] * 2, tf.float64), tf.reshape(x, (2, 3)), from_logits=True),
    "sparse_categorical_crossentropy": lambda x: KB.sparse_categorical_crossentropy(
        tf.constant([1, 2]), tf.reshape(x, (2, 3)), from_logits=True),
    "conv1d": lambda x: KB.conv1d(tf.reshape(x, (1, 3, 2)), tf.ones((2, 2, 1), tf.float64),
                                  padding="causal"),
    "conv2d": lambda x: KB.conv2d(tf.reshape(x, (1, 2, 3, 1)), tf.ones((2, 2, 1, 1), tf.float64)),
    "conv3d": lambda x: KB.conv3d(tf.reshape(x, (1, 1, 2, 3, 1)), tf.ones((1, 2, 2, 1, 2), tf.float64)),
    "conv2d_transpose": lambda x: KB.conv2d_transpose(tf.reshape(x, (1, 2, 3, 1)),
                                                      tf.ones((2, 2, 1, 1), tf.float64),
                                                      (1, 3, 4, 1)),
    "depthwise_conv2d": lambda x: KB.depthwise_conv2d(tf.reshape(x, (1, 2, 3, 1)),
                                                      tf.ones((2, 2, 1, 2), tf.float64)),
    "separable_conv2d": lambda x: KB.separable_conv2d(tf.reshape(x, (1, 2, 3, 1)),
                                                      tf.ones((2, 2, 1, 1), tf.float64),
                                                      tf.ones((1, 1, 1, 2), tf.float64)),
    "pool2d": lambda x: KB.pool2d(tf.reshape(x, (1, 2, 3, 1)), (2, 2), pool_mode="avg",
                                  padding="same"),
    "pool3d": lambda x: KB.pool3d(tf.cast(tf.reshape(x, (1, 1, 2, 3, 1)), tf.float32),
                                  (1, 2, 2), pool_mode="avg", padding="same"),
    "temporal_padding": lambda x: KB.temporal_padding(tf.reshape(x, (1, 3, 2))),
    "spatial_2d_padding": lambda x: KB.spatial_2d_padding(tf.reshape(x, (1, 2, 3, 1))),
    "spatial_3d_padding": lambda x: KB.spatial_3d_padding(tf.reshape(x, (1, 1, 2, 3, 1))),
    "resize_images": lambda x: KB.resize_images(tf.reshape(x, (1, 2, 3, 1)), 2, 1, "channels_last"),
    "resize_volumes": lambda x: KB.resize_volumes(tf.reshape(x, (1, 1, 2, 3, 1)), 2, 1, 1,
                                                  "channels_last"),
    "rnn": lambda x: KB.rnn(lambda i, s: (i * s[0] + 1.0, [i + s[0]]), tf.reshape(x, (1, 3, 2)),
                            [tf.ones((1, 2), tf.float64)])[1],
    "ctc_batch_cost": lambda x: KB.ctc_batch_cost(
        tf.constant([[0, 1]]), tf.nn.softmax(tf.reshape(x, (1, 2, 3))), tf.constant([[2]]),
        tf.constant([[2]])),
    "to_dense": lambda x: KB.to_dense(x), "zeros_like": lambda x: x + KB.zeros_like(x),
    "ones_like": lambda x: x * KB.ones_like(x),
}
_FLOAT32_INSIDE = {"pool3d", "cast_to_floatx"}
_NOT_DIFFERENTIABLE = {
    "all", "any", "argmax", "argmin", "arange", "backend", "batch_get_value", "batch_set_value",
    "clear_session", "constant", "count_params", "ctc_decode", "ctc_label_dense_to_sparse", "dropout", "dtype", "epsilon", "equal", "eval",
    "eye", "floatx", "get_uid", "get_value", "gradients", "greater", "greater_equal",
    "image_data_format", "in_top_k", "int_shape", "is_float_dtype", "is_int_dtype",
    "is_keras_tensor", "is_sparse", "less", "less_equal", "moving_average_update", "name_scope",
    "ndim", "not_equal", "one_hot", "ones", "random_bernoulli", "random_normal",
    "random_normal_variable", "random_uniform", "random_uniform_variable", "result_type", "round",
    "set_epsilon", "set_floatx", "set_image_data_format", "set_value", "shape", "sign",
    "standardize_dtype", "stop_gradient", "truncated_normal", "update", "update_add",
    "update_sub", "variable", "zeros",
}


@pytest.mark.parametrize("name", sorted(_GRADS))
def test_gradients(name):
    x = tf.constant(np.array([0.7, -1.3, 0.4, 1.9, -0.6, 0.23]))  # away from every kink
    if name in _FLOAT32_INSIDE:
        assert_gradients_close(lambda v: flat(_GRADS[name](v)), [x], rtol=1e-3, atol=1e-3,
                               delta=1e-3)
        return
    assert_gradients_close(lambda v: flat(_GRADS[name](v)), [x], rtol=1e-4, atol=1e-5)


def test_every_differentiable_backend_name_has_a_gradient_check():
    assert set(KB.__all__) - _NOT_DIFFERENTIABLE == set(_GRADS)
