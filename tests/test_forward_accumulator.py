"""tf.autodiff.ForwardAccumulator: JVPs against central finite differences and tape jacobians,
nesting with other accumulators and tapes (higher order, Hessian-vector products both ways),
variables, and the errors TF raises. Reference numbers marked "TF 2.21" were printed by
tensorflow-cpu 2.21 on the same inputs."""
import gc

import numpy as np
import pytest

import minitf as tf
from minitf import recording
from minitf.errors import errors

RNG = np.random.default_rng(7)


def _fd_jvp(f, xs, vs, h=1e-6):
    """Central finite difference of f along the direction vs, in float64."""
    plus = f(*[tf.constant(x + h * v) for x, v in zip(xs, vs)])
    minus = f(*[tf.constant(x - h * v) for x, v in zip(xs, vs)])
    return (np.asarray(plus) - np.asarray(minus)) / (2 * h)


def _jvp(f, xs, vs):
    primals = [tf.constant(x) for x in xs]
    with tf.autodiff.ForwardAccumulator(primals, [tf.constant(v) for v in vs]) as acc:
        y = f(*primals)
    return acc.jvp(y)


def _u(*shape, low=0.2, high=0.9):
    return RNG.uniform(low, high, size=shape)


X, Y = _u(3, 4), _u(3, 4)
IMAGES, KERNEL = RNG.normal(size=(2, 5, 5, 3)), RNG.normal(size=(3, 3, 3, 4))

CASES = {
    "tanh": (tf.tanh, X),
    "exp_log": (lambda a: tf.exp(a) * tf.math.log(a), X),
    "sqrt_div": (lambda a, b: tf.sqrt(a) / b, X, Y),
    "pow": (lambda a, b: a ** b, X, Y),
    "broadcast_mul": (lambda a, b: a * b - b, X, Y[0]),
    "where_maximum": (lambda a, b: tf.where(a > b, a * 2.0, tf.maximum(a, b * b)), X, Y),
    "sigmoid_softplus": (lambda a: tf.sigmoid(a) + tf.nn.softplus(-a), X),
    "matmul": (tf.matmul, X, Y.T),
    "matmul_transposed": (lambda a, b: tf.matmul(a, b, transpose_a=True), X, Y),
    "einsum": (lambda a, b: tf.einsum("ij,kj->ik", a, b), X, Y),
    "reduce_sum": (lambda a: tf.reduce_sum(a * a, axis=1), X),
    "reduce_mean_all": (tf.reduce_mean, X),
    "reduce_max": (lambda a: tf.reduce_max(a, axis=0), X),
    "reduce_prod": (lambda a: tf.reduce_prod(a, axis=1), X),
    "reduce_logsumexp": (lambda a: tf.reduce_logsumexp(a, axis=1), X),
    "reduce_std": (lambda a: tf.math.reduce_std(a, axis=0), X),
    "norm": (tf.norm, X),
    "cumsum": (lambda a: tf.cumsum(a, axis=1), X),
    "conv2d_same": (lambda a, k: tf.nn.conv2d(a, k, 1, "SAME"), IMAGES, KERNEL),
    "conv2d_strided": (lambda a, k: tf.nn.conv2d(a, k, 2, "VALID"), IMAGES, KERNEL),
    "max_pool": (lambda a: tf.nn.max_pool2d(a, 2, 2, "VALID"), IMAGES),
    "avg_pool": (lambda a: tf.nn.avg_pool2d(a, 3, 1, "SAME"), IMAGES),
    "softmax": (tf.nn.softmax, X),
    "log_softmax": (lambda a: tf.nn.log_softmax(a, axis=0), X),
    "softmax_cross_entropy": (lambda a: tf.nn.softmax_cross_entropy_with_logits(
        tf.constant(Y / Y.sum(1, keepdims=True)), a), X),
    "relu_elu_gelu": (lambda a: tf.nn.relu(a - 0.5) + tf.nn.elu(a - 0.6) + tf.nn.gelu(a), X),
    "gather_slice": (lambda a: tf.gather(a, [2, 0, 2])[:, 1:3], X),
    "concat_stack": (lambda a, b: tf.stack([tf.concat([a, b], 0), tf.concat([b, a], 0)]), X, Y),
    "reshape_transpose_pad": (lambda a: tf.pad(tf.transpose(tf.reshape(a, [2, 6])), [[1, 0], [0, 2]]), X),
    "tile_reverse": (lambda a: tf.reverse(tf.tile(a, [2, 1]), [1]), X),
    "sort_top_k": (lambda a: tf.sort(a, axis=1) + tf.math.top_k(a, 4).values, X),
    "linalg_inv_det": (lambda a: tf.linalg.inv(a) * tf.linalg.det(a), X[:, :3] + 3 * np.eye(3)),
    "cond": (lambda a: tf.cond(tf.reduce_sum(a) > 0, lambda: a * a, lambda: a), X),
    "while_loop": (lambda a: tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * a + 1.0),
                                           (0, tf.ones_like(a)))[1], X),
    "map_fn": (lambda a: tf.map_fn(lambda r: tf.reduce_sum(r * r) * r, a), X),
    "scan": (lambda a: tf.scan(lambda s, r: s * 0.5 + tf.sin(r), a), X),
    "py_function": (lambda a: tf.py_function(lambda q: q * tf.exp(q), [a], tf.float64), X),
    "image_resize_nearest": (lambda a: tf.image.resize(a, [7, 7], "nearest"), IMAGES),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_matches_central_finite_differences(name):
    f, *xs = CASES[name]
    vs = [RNG.normal(size=np.shape(x)) for x in xs]
    tangent = _jvp(f, xs, vs)
    expected = _fd_jvp(f, xs, vs)
    assert tangent is not None
    assert tangent.dtype == tf.float64 and tuple(tangent.shape) == expected.shape
    np.testing.assert_allclose(tangent.numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["matmul", "conv2d_same", "softmax", "reduce_max", "while_loop", "broadcast_mul"])
def test_jvp_equals_tape_jacobian_times_tangent(name):
    f, *xs = CASES[name]
    vs = [RNG.normal(size=np.shape(x)) for x in xs]
    primals = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        tape.watch(primals)
        y = f(*primals)
    jacobians = tape.jacobian(y, primals)
    expected = sum(np.tensordot(j.numpy(), v, axes=v.ndim) for j, v in zip(jacobians, vs))
    np.testing.assert_allclose(_jvp(f, xs, vs).numpy(), expected, rtol=1e-10, atol=1e-12)


def test_tf_docstring_example_dense_layer_jvps_match_the_gradient():
    x = tf.constant([[2.0, 3.0], [1.0, 4.0]])
    targets = tf.constant([[1.], [-1.]])
    dense = tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.Constant([[0.5], [-0.25]]),
                                  bias_initializer="ones")
    dense.build([None, 2])

    def loss_fn():
        return tf.reduce_sum((dense(x) - targets) ** 2.)
    kernel_fprop = []
    with tf.autodiff.ForwardAccumulator(dense.kernel, tf.constant([[1.], [0.]])) as acc:
        kernel_fprop.append(acc.jvp(loss_fn()))
    with tf.autodiff.ForwardAccumulator(dense.kernel, tf.constant([[0.], [1.]])) as acc:
        kernel_fprop.append(acc.jvp(loss_fn()))
    with tf.autodiff.ForwardAccumulator(dense.bias, tf.constant([1.])) as acc:
        bias_fprop = acc.jvp(loss_fn())
    with tf.GradientTape() as tape:
        loss = loss_fn()
    kernel_grad, bias_grad = tape.gradient(loss, (dense.kernel, dense.bias))
    np.testing.assert_allclose(kernel_grad.numpy(), tf.stack(kernel_fprop)[:, tf.newaxis].numpy())
    np.testing.assert_allclose(bias_grad.numpy(), bias_fprop[tf.newaxis].numpy())
    assert [float(k) for k in kernel_fprop] == [4.0, 13.5] and float(bias_fprop) == 3.5


def test_nested_accumulators_give_second_derivatives_outer_over_inner_only():
    primal = tf.constant(1.1)
    with tf.autodiff.ForwardAccumulator(primal, tf.constant(1.)) as outer:
        with tf.autodiff.ForwardAccumulator(primal, tf.constant(1.)) as inner:
            primal_out = primal ** tf.constant(3.5)
    inner_jvp = inner.jvp(primal_out)
    np.testing.assert_allclose(inner_jvp.numpy(), 4.4417057, rtol=1e-6)  # TF 2.21
    np.testing.assert_allclose(outer.jvp(inner_jvp).numpy(), 10.094786, rtol=1e-6)  # TF 2.21
    assert inner.jvp(outer.jvp(primal_out)) is None  # inner ones never see outer computations


def test_three_nested_accumulators_give_the_third_derivative():
    x = tf.constant(0.7, tf.float64)
    one = tf.constant(1.0, tf.float64)
    with tf.autodiff.ForwardAccumulator(x, one) as a3:
        with tf.autodiff.ForwardAccumulator(x, one) as a2:
            with tf.autodiff.ForwardAccumulator(x, one) as a1:
                y = tf.sin(x) * tf.exp(x)
            d1 = a1.jvp(y)
        d2 = a2.jvp(d1)
    d3 = a3.jvp(d2)
    # d/dx sin*exp = e^x (sin + cos); second: 2 e^x cos; third: 2 e^x (cos - sin)
    ex, s, c = np.exp(0.7), np.sin(0.7), np.cos(0.7)
    np.testing.assert_allclose([d1.numpy(), d2.numpy(), d3.numpy()],
                               [ex * (s + c), 2 * ex * c, 2 * ex * (c - s)], rtol=1e-12)


def _hvp_reference(f, x, v, h=1e-5):
    """Central difference of the gradient along v (float64)."""
    def grad(at):
        t = tf.constant(at)
        with tf.GradientTape() as tape:
            tape.watch(t)
            y = f(t)
        return tape.gradient(y, t).numpy()
    return (grad(x + h * v) - grad(x - h * v)) / (2 * h)


def _model(w):
    inputs = tf.constant([[2.0, 3.0], [1.0, 4.0]], tf.float64)
    return tf.reduce_sum(tf.nn.softmax(tf.tanh(tf.matmul(inputs, w))) ** 2)


def test_forward_over_backward_hessian_vector_product():
    w0, v = RNG.normal(size=(2, 2)), RNG.normal(size=(2, 2))
    w = tf.Variable(w0)
    with tf.autodiff.ForwardAccumulator(w, tf.constant(v)) as acc:
        with tf.GradientTape() as tape:
            y = _model(w)
        backward = tape.gradient(y, w)
    np.testing.assert_allclose(acc.jvp(backward).numpy(), _hvp_reference(_model, w0, v), rtol=1e-6, atol=1e-8)


def test_backward_over_forward_hessian_vector_product():
    w0, v = RNG.normal(size=(2, 2)), RNG.normal(size=(2, 2))
    w = tf.Variable(w0)
    with tf.GradientTape() as tape:
        with tf.autodiff.ForwardAccumulator(w, tf.constant(v)) as acc:
            y = _model(w)
        forward = acc.jvp(y)
    np.testing.assert_allclose(tape.gradient(forward, w).numpy(), _hvp_reference(_model, w0, v),
                               rtol=1e-6, atol=1e-8)


def test_tf_docstring_hessian_vector_product_values():
    v = tf.Variable([1., 2.])
    with tf.autodiff.ForwardAccumulator(v, tf.constant([1., 0.])) as acc:
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(v ** 3.)
        backward = tape.gradient(y, v)
    assert backward.numpy().tolist() == [3., 12.]  # TF 2.21
    assert acc.jvp(backward).numpy().tolist() == [6., 0.]  # TF 2.21


def test_full_hessian_by_forward_over_backward_matches_nested_tapes():
    w = tf.Variable(RNG.normal(size=(2, 2)))
    columns = []
    for i in range(4):
        direction = np.zeros(4)
        direction[i] = 1.0
        with tf.autodiff.ForwardAccumulator(w, tf.constant(direction.reshape(2, 2))) as acc:
            with tf.GradientTape() as tape:
                y = _model(w)
            g = tape.gradient(y, w)
        columns.append(acc.jvp(g).numpy().ravel())
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = _model(w)
        g = t1.gradient(y, w)
    hessian = t2.jacobian(g, w).numpy().reshape(4, 4)
    np.testing.assert_allclose(np.stack(columns, 1), hessian, rtol=1e-10, atol=1e-12)


def test_inner_tape_ignores_the_outer_accumulators_tangent_computation():
    p = tf.constant([1., 2.])
    with tf.autodiff.ForwardAccumulator(p, tf.constant([1., 0.])) as acc:
        with tf.GradientTape() as tape:
            tape.watch(p)
            y = p * p
        tangent = acc.jvp(y)
    assert tangent.numpy().tolist() == [2., 0.]
    assert tape.gradient(tangent, p) is None  # TF 2.21 gives None too


def test_variables_carry_tangents_through_reads_and_assignments():
    v = tf.Variable([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(v, tf.constant([1.0, 0.0])) as acc:
        y = v * v
        assert acc.jvp(v).numpy().tolist() == [1.0, 0.0]
        assert acc.jvp(v.read_value()).numpy().tolist() == [1.0, 0.0]
        v.assign([3.0, 4.0])
        z = v * 1.0
    assert acc.jvp(y).numpy().tolist() == [2.0, 0.0]
    assert acc.jvp(z).numpy().tolist() == [1.0, 0.0]  # TF keeps the variable's tangent too
    frozen = tf.Variable([1.0], trainable=False)
    with tf.autodiff.ForwardAccumulator(frozen, tf.constant([2.0])) as acc:
        r = frozen * 3.0
    assert acc.jvp(r).numpy().tolist() == [6.0]


def test_sparse_reads_of_a_variable():
    v = tf.Variable([1., 2., 3.])
    with tf.autodiff.ForwardAccumulator(v, tf.constant([1., 2., 3.])) as acc:
        a = tf.gather(v, [2, 0, 2])
    assert acc.jvp(a).numpy().tolist() == [3., 1., 3.]


def test_jvp_lookup_rules():
    x = tf.constant([1.0, 2.0])
    acc = tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.5]))
    before = x * 2.0
    with acc:
        y = x * x
        unconnected = tf.constant(3.0) * 2.0
        integer = tf.cast(x, tf.int32)
        inside = acc.jvp(y) * 2.0
    with acc:  # re-entering continues accumulating
        y2 = y * 3.0
    assert acc.jvp(x).numpy().tolist() == [1.0, 0.5]
    assert acc.jvp(before) is None and acc.jvp(unconnected) is None and acc.jvp(integer) is None
    assert acc.jvp(inside) is None  # an accumulator does not see its own tangent computation
    assert acc.jvp(y2).numpy().tolist() == [6.0, 6.0]
    zero = acc.jvp(unconnected, unconnected_gradients="zero")
    assert zero.numpy() == 0.0 and zero.dtype == tf.float32
    zero_int = acc.jvp(integer, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert zero_int.dtype == tf.int32 and zero_int.numpy().tolist() == [0, 0]
    nested = acc.jvp({"a": [y, unconnected], "b": (x,)})
    assert nested["a"][0].numpy().tolist() == [2.0, 2.0] and nested["a"][1] is None
    assert nested["b"][0].numpy().tolist() == [1.0, 0.5]


def test_structures_of_primals_and_integer_primals():
    a, b = tf.constant(2.0), tf.constant([1, 2])
    with tf.autodiff.ForwardAccumulator({"a": a, "b": b}, {"a": 3.0, "b": tf.constant([1, 1])}) as acc:
        y = a * a + tf.cast(b, tf.float32)
    assert acc.jvp(y).numpy().tolist() == [12.0, 12.0]
    assert acc.jvp(b).numpy().tolist() == [1, 1]  # kept, but integer tangents never propagate


def test_complex_tangents_follow_the_holomorphic_derivative():
    p = tf.constant([1. + 2j])
    with tf.autodiff.ForwardAccumulator(p, tf.constant([1. + 0j])) as acc:
        a = p * p
    assert acc.jvp(a).numpy().tolist() == [2. + 4j]  # TF 2.21


def test_stop_gradient_and_tape_stop_recording():
    p = tf.constant(1.5)
    with tf.autodiff.ForwardAccumulator(p, tf.constant(1.)) as acc:
        a = tf.stop_gradient(p) * p
        with tf.GradientTape() as tape:
            with tape.stop_recording():  # pauses that tape only, as in TF
                b = p * p
    assert float(acc.jvp(a)) == 1.5 and float(acc.jvp(b)) == 3.0  # TF 2.21


def test_tangents_are_dropped_with_their_tensors():
    x = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 1.0])) as acc:
        for _ in range(50):
            y = x * 2.0 + 1.0
    del y
    gc.collect()
    assert len(acc._tangents) <= 3  # the primal and at most one chain's worth


def test_no_accumulator_leaves_the_recording_stack_untouched():
    with tf.autodiff.ForwardAccumulator(tf.constant(1.0), tf.constant(1.0)):
        pass
    assert recording.thread_state.active == []
    assert tf.autodiff.GradientTape is tf.GradientTape


# -- errors ----------------------------------------------------------------------------------

def test_primal_listed_twice():
    x = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="specified as a primal multiple times"):
        tf.autodiff.ForwardAccumulator([x, x], [x, x])


def test_tangent_dtype_must_match_the_primal():
    x = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="float32.*float64|float64.*float32"):
        tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 2.0], tf.float64))
    with pytest.raises(ValueError):
        tf.autodiff.ForwardAccumulator(tf.Variable([1.0]), tf.constant([1]))


def test_tangent_shape_must_match_the_primal():
    x = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match=r"tangent of shape \[3\].*primal of shape \[2\]"):
        tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"\[1, 2\].*\[2\]"):
        tf.autodiff.ForwardAccumulator(tf.Variable(x), tf.constant([[1.0, 2.0]]))


def test_structures_must_match():
    x = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="same nested structure"):
        tf.autodiff.ForwardAccumulator(x, [1.0, 2.0])
    with pytest.raises(TypeError, match="sequence type"):
        tf.autodiff.ForwardAccumulator((x,), [x])


def test_primals_and_jvp_arguments_must_be_tensors():
    with pytest.raises(AttributeError, match="tensors or variables, got float"):
        tf.autodiff.ForwardAccumulator([1.0, 2.0], [1.0, 2.0])
    acc = tf.autodiff.ForwardAccumulator(tf.constant(1.0), tf.constant(1.0))
    with pytest.raises(AttributeError, match="jvp takes tensors or variables"):
        acc.jvp(3.0)
    with pytest.raises(ValueError, match="unconnected_gradients"):
        acc.jvp(tf.constant(1.0), unconnected_gradients="bad")


def test_entering_twice_is_refused():
    acc = tf.autodiff.ForwardAccumulator(tf.constant(1.0), tf.constant(1.0))
    with acc:
        with pytest.raises(ValueError, match="already recording"):
            acc.__enter__()
    assert acc.__exit__(None, None, None) is False  # leaving again is harmless, as in TF


def test_custom_gradient_with_a_linear_rule():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad
    x = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([3.0, 4.0])) as acc:
        z = log1pexp(x)
    np.testing.assert_allclose(acc.jvp(z).numpy(), [2.1931758, 3.5231884], rtol=1e-6)  # TF 2.21


def test_custom_gradient_with_a_nonlinear_rule_is_refused_not_wrong():
    # TF differentiates the forward ops inside custom_gradient (here: [6, 8]); minitf sees only
    # the rule, and a clipping rule says nothing about tangents.
    @tf.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return tf.clip_by_norm(dy, 0.5)
        return y, backward
    x = tf.constant([1.0, 2.0])
    with pytest.raises(errors.UnimplementedError, match="CustomGradient.*not linear"):
        with tf.autodiff.ForwardAccumulator(x, tf.constant([3.0, 4.0])):
            clip_gradients(x)


_OPAQUE = recording.Op("TestOpaqueGradient")


def _opaque_square(x):
    """An op whose gradient rule computes in numpy, outside minitf: not differentiable again."""
    out = tf.Tensor(np.square(x._value))
    if recording.is_recording():
        recording.record(_OPAQUE, (x,), (out,), lambda g: tf.Tensor(2 * x._value * g._value))
    return out


def test_a_gradient_rule_outside_minitf_is_named_not_silently_zero():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:  # reverse mode is fine with it
        tape.watch(x)
        y = _opaque_square(x)
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 4.0]
    with pytest.raises(errors.UnimplementedError, match="TestOpaqueGradient"):
        with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 1.0])):
            _opaque_square(x)


def test_tape_over_nested_accumulators_gives_the_third_derivative():
    # TF 2.21 raises InternalError here ("returned too few gradients"); the value is d3/dx3.
    x = tf.constant(0.4, tf.float64)
    one = tf.constant(1.0, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.autodiff.ForwardAccumulator(x, one) as outer:
            with tf.autodiff.ForwardAccumulator(x, one) as inner:
                y = x ** 5.0
            first = inner.jvp(y)
        second = outer.jvp(first)
    assert float(first) == pytest.approx(5 * 0.4 ** 4) and float(second) == pytest.approx(20 * 0.4 ** 3)
    assert float(tape.gradient(second, x)) == pytest.approx(60 * 0.4 ** 2)
