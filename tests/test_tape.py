"""GradientTape: every documented behaviour, with the examples of TF's docs as the cases."""
import gc
import weakref

import numpy as np
import pytest

import minitf as tf


def test_watch_constant_first_derivative():
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    assert float(g.gradient(y, x)) == 6.0


def test_unwatched_constant_gives_none():
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        y = x * x
    assert g.gradient(y, x) is None


def test_nested_tapes_second_derivative():
    x = tf.constant(5.0)
    with tf.GradientTape() as g:
        g.watch(x)
        with tf.GradientTape() as gg:
            gg.watch(x)
            y = x * x
        dy_dx = gg.gradient(y, x)
    assert float(dy_dx) == 10.0
    assert float(g.gradient(dy_dx, x)) == 2.0


def test_nested_tapes_third_derivative_outer_gradient_outside_context():
    x = tf.Variable(1.0)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = x * x * x
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)
    assert float(dy_dx) == 3.0
    assert float(d2y_dx2) == 6.0


def test_persistent_tape_many_gradients():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        z = y * y
    assert float(g.gradient(z, x)) == 108.0
    assert float(g.gradient(y, x)) == 6.0
    del g


def test_non_persistent_second_call_raises():
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    g.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        g.gradient(y, x)


def test_non_persistent_gradient_inside_context_stops_recording():
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
        dy = g.gradient(y, x)
        z = y * 2.0  # no longer recorded
    assert float(dy) == 6.0
    with pytest.raises(RuntimeError):
        g.gradient(z, x)


def test_persistent_gradient_inside_context_is_recorded():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x * x
        dy = g.gradient(y, x)  # 3x^2, recorded on the same tape
    assert float(dy) == 12.0
    assert float(g.gradient(dy, x)) == 12.0  # 6x


def test_trainable_variables_watched_automatically_listed_in_creation_order():
    a = tf.Variable(2.0, name="a")
    b = tf.Variable(3.0, name="b")
    frozen = tf.Variable(4.0, trainable=False)
    with tf.GradientTape() as g:
        y = b * a + frozen
    # TF lists watched variables in creation order, not access order.
    assert [v.name for v in g.watched_variables()] == ["a:0", "b:0"]
    ga, gb, gf = g.gradient(y, [a, b, frozen])
    assert float(ga) == 3.0 and float(gb) == 2.0 and gf is None


def test_watch_accessed_variables_false():
    a = tf.Variable(2.0)
    b = tf.Variable(3.0)
    with tf.GradientTape(watch_accessed_variables=False) as g:
        g.watch(a)
        y = a * a + b * b
    ga, gb = g.gradient(y, [a, b])
    assert float(ga) == 4.0 and gb is None
    assert len(g.watched_variables()) == 1 and g.watched_variables()[0] is a


def test_watched_variables_creation_order_with_explicit_watches():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    c = tf.Variable(3.0, name="c", trainable=False)
    d = tf.Variable(4.0, name="d")
    with tf.GradientTape() as g:
        g.watch(c)  # an explicit watch includes a non-trainable variable
        d * b  # reading d (trainable) records it
        g.watch(a)
    assert [v.name for v in g.watched_variables()] == ["a:0", "b:0", "c:0", "d:0"]
    with tf.GradientTape(watch_accessed_variables=False) as g:
        g.watch(d)
        g.watch(c)
        g.watch(a)
    assert [v.name for v in g.watched_variables()] == ["a:0", "c:0", "d:0"]


def test_watch_nested_structures_and_rejects_others():
    x, y = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch({"a": [x], "b": (y,)})
        z = x * y
    assert [float(v) for v in g.gradient(z, [x, y])] == [2.0, 1.0]
    with tf.GradientTape() as g2:
        with pytest.raises(ValueError):
            g2.watch(3.0)
        with pytest.raises(ValueError):
            g2.watch([x, "not a tensor"])


def test_only_ops_with_watched_inputs_are_recorded():
    x, c = tf.constant(2.0), tf.constant(5.0)
    with tf.GradientTape() as g:
        g.watch(x)
        unrelated = c * c
        y = x * 3.0
    assert len(g._records) == 1  # only the op on x
    assert g.gradient(unrelated, x) is None
    del y


def test_gradient_nested_sources_structure():
    w = tf.Variable([[1.0, 2.0]])
    b = tf.Variable([0.5])
    x = tf.constant([[3.0], [4.0]])
    with tf.GradientTape() as g:
        y = tf.reduce_sum(tf.matmul(w, x) + b)
    grads = g.gradient(y, {"layer": [w, (b,)], "k": w})
    assert set(grads) == {"layer", "k"}
    np.testing.assert_allclose(grads["layer"][0].numpy(), [[3.0, 4.0]])
    np.testing.assert_allclose(grads["layer"][1][0].numpy(), [1.0])
    assert isinstance(grads["layer"][1], tuple)
    np.testing.assert_allclose(grads["k"].numpy(), [[3.0, 4.0]])


def test_list_of_targets_is_summed():
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y1, y2 = x * x, x * 3.0
    assert float(g.gradient([y1, y2], x)) == 7.0


def test_output_gradients_weight_the_targets():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    grad = g.gradient(y, x, output_gradients=tf.constant([10.0, 100.0]))
    np.testing.assert_allclose(grad.numpy(), [20.0, 400.0])


def test_output_gradients_count_mismatch():
    # As TF 2.21: extra output gradients are ignored, missing ones count as ones (no error)
    x = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y, z = x * 2.0, x * 3.0
    assert float(g.gradient([y], x, output_gradients=[tf.constant(1.0), tf.constant(2.0)])) == 2.0
    assert float(g.gradient([y, z], x, output_gradients=[tf.constant(2.0)])) == 7.0


@pytest.mark.parametrize("mode", [tf.UnconnectedGradients.ZERO, "zero"])
def test_unconnected_gradients_zero(mode):
    x = tf.constant([1.0, 2.0])
    z = tf.constant([[3.0]])
    with tf.GradientTape() as g:
        g.watch([x, z])
        y = x * 2.0
    gx, gz = g.gradient(y, [x, z], unconnected_gradients=mode)
    np.testing.assert_allclose(gx.numpy(), [2.0, 2.0])
    assert gz.shape == (1, 1) and float(gz[0, 0]) == 0.0 and gz.dtype == tf.float32


def test_unconnected_gradients_none_and_invalid():
    x, z = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, z])
        y = x * 2.0
    assert g.gradient(y, z, unconnected_gradients="none") is None
    with pytest.raises(ValueError, match="unconnected_gradients"):
        g.gradient(y, z, unconnected_gradients="zeros!")


def test_integer_sources_have_no_gradient():
    i = tf.constant(3)
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch([i, x])
        y = tf.cast(i, tf.float32) * x
    gi, gx = g.gradient(y, [i, x])
    assert gi is None and float(gx) == 3.0


def test_broadcast_gradients_are_reduced_and_keep_dtype():
    x = tf.constant(np.ones((3, 1), np.float64))
    b = tf.constant(np.ones((4,), np.float64))
    s = tf.constant(np.float64(2.0))
    with tf.GradientTape() as g:
        g.watch([x, b, s])
        y = (x + b) * s
    gx, gb, gs = g.gradient(y, [x, b, s])
    assert gx.shape == (3, 1) and gb.shape == (4,) and gs.shape == ()
    np.testing.assert_allclose(gx.numpy(), np.full((3, 1), 8.0))
    np.testing.assert_allclose(gb.numpy(), np.full(4, 6.0))
    assert float(gs) == 24.0
    assert gx.dtype == tf.float64 and gs.dtype == tf.float64


def test_python_control_flow_documented_example():
    a = tf.constant(2.0)
    c = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(a)
        b = a
        while tf.norm(b) < 1000 if hasattr(tf, "norm") else abs(float(b)) < 1000:
            b = b * c + b
    # b = a * 2^k, so db/da = 2^k = b / a
    np.testing.assert_allclose(g.gradient(b, a).numpy(), (b / a).numpy())


def test_if_on_tensor_chooses_branch():
    x = tf.constant(-2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x if x > 0 else x * 3.0
    assert float(g.gradient(y, x)) == 3.0


def test_variable_as_target_is_read_as_tensor():
    v = tf.Variable(3.0)
    with tf.GradientTape() as g:
        pass
    assert float(g.gradient(v, v)) == 1.0


def test_reset_forgets_recorded_ops():
    x = tf.constant(1.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * 2.0
        g.reset()
        g.watch(x)
        z = x * 5.0
    assert float(g.gradient(z, x)) == 5.0
    del y


def test_stop_recording_and_error_when_not_recording():
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        with g.stop_recording():
            hidden = x * x
        y = x * 3.0 + hidden
    assert float(g.gradient(y, x)) == 3.0
    with pytest.raises(RuntimeError, match="not recording"):
        with g.stop_recording():
            pass


def test_stop_recording_pauses_only_that_tape():
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            with inner.stop_recording():
                y = x * x
    assert float(outer.gradient(y, x)) == 4.0


def test_stop_gradient_blocks_flow():
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * tf.stop_gradient(x)
    assert float(g.gradient(y, x)) == 3.0


def test_finished_non_persistent_tape_keeps_nothing_alive():
    x = tf.constant(np.ones(10, np.float32))
    with tf.GradientTape() as g:
        g.watch(x)
        big = x * 2.0
        ref = weakref.ref(big)
        y = tf.reduce_sum(big * big)
    del big
    g.gradient(y, x)
    gc.collect()
    assert ref() is None
    assert g._records is None


def test_tape_ids_are_counters_not_python_ids():
    a = tf.constant(1.0)
    b = tf.constant(1.0)
    assert a._id != b._id and isinstance(a._id, int)


# -- jacobians ---------------------------------------------------------------------------------

def _tanh_layer_inputs(seed=0, n_in=5, n_out=4, batch=1):
    rng = np.random.default_rng(seed)
    x = tf.constant(rng.normal(size=(batch, n_in)))
    w = tf.Variable(rng.normal(size=(n_in, n_out)))
    return x, w


def _numeric_jacobian(f, x0, eps=1e-6):
    x0 = np.asarray(x0, dtype=np.float64)
    y0 = np.asarray(f(x0))
    jac = np.zeros(y0.shape + x0.shape)
    for idx in np.ndindex(*x0.shape):
        d = np.zeros_like(x0)
        d[idx] = eps
        jac[(Ellipsis,) + idx] = (np.asarray(f(x0 + d)) - np.asarray(f(x0 - d))) / (2 * eps)
    return jac


@pytest.mark.parametrize("pfor", [True, False])
def test_jacobian_shape_and_values(pfor):
    x, w = _tanh_layer_inputs()
    with tf.GradientTape(persistent=True) as g:
        y = tf.tanh(tf.matmul(x, w))
    jac = g.jacobian(y, w, experimental_use_pfor=pfor)
    assert jac.shape == (1, 4, 5, 4)
    expected = _numeric_jacobian(lambda wv: np.tanh(x.numpy() @ wv), w.numpy())
    np.testing.assert_allclose(jac.numpy(), expected, rtol=1e-6, atol=1e-8)


def test_jacobian_documented_example():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    jac = g.jacobian(y, x)
    np.testing.assert_allclose(jac.numpy(), [[2.0, 0.0], [0.0, 4.0]])


def test_jacobian_vectorized_path_is_taken_for_batchable_ops():
    x, w = _tanh_layer_inputs()
    with tf.GradientTape() as g:
        y = tf.tanh(tf.matmul(x, w))
    calls = []
    import minitf.tape as tape_module
    original = tape_module.backprop

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)
    tape_module.backprop = counting
    try:
        g.jacobian(y, w)
    finally:
        tape_module.backprop = original
    assert len(calls) == 1  # one backward pass for all 4 outputs


def test_jacobian_non_persistent_without_pfor_raises():
    x = tf.constant([1.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    with pytest.raises(RuntimeError, match="persistent"):
        g.jacobian(y, x, experimental_use_pfor=False)


def test_jacobian_unconnected_zero_and_structure():
    x = tf.constant([1.0, 2.0])
    z = tf.constant([[1.0, 2.0, 3.0]])
    with tf.GradientTape() as g:
        g.watch([x, z])
        y = x * 3.0
    jx, jz = g.jacobian(y, [x, z], unconnected_gradients="zero")
    assert jx.shape == (2, 2) and jz.shape == (2, 1, 3)
    assert float(tf.reduce_sum(jz)) == 0.0


@pytest.mark.parametrize("pfor", [True, False])
def test_batch_jacobian(pfor):
    rng = np.random.default_rng(1)
    x = tf.constant(rng.normal(size=(3, 4)))
    w = tf.constant(rng.normal(size=(4, 2)))
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = tf.tanh(tf.matmul(x, w))
    bj = g.batch_jacobian(y, x, experimental_use_pfor=pfor)
    assert bj.shape == (3, 2, 4)
    for i in range(3):
        expected = _numeric_jacobian(lambda xv: np.tanh(xv @ w.numpy()), x.numpy()[i])
        np.testing.assert_allclose(bj.numpy()[i], expected, rtol=1e-6, atol=1e-8)


def test_batch_jacobian_documented_shapes():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    bj = g.batch_jacobian(y, x)
    assert bj.shape == (2, 2, 2)
    np.testing.assert_allclose(bj.numpy(), [[[2, 0], [0, 4]], [[6, 0], [0, 8]]])


def test_batch_jacobian_mismatched_batch_raises():
    x = tf.constant(np.ones((3, 2), np.float32))
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.reshape(x, [2, 3])
    with pytest.raises(ValueError, match="first dimension"):
        g.batch_jacobian(y, x)


def test_hessian_through_nested_tapes_and_jacobian():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(x * x * x)
        grad = inner.gradient(y, x)
    hess = outer.jacobian(grad, x)
    np.testing.assert_allclose(hess.numpy(), [[6.0, 0.0], [0.0, 12.0]])


def test_higher_order_through_persistent_and_tanh():
    x = tf.constant(np.float64(0.3))
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.tanh(x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    t = np.tanh(0.3)
    np.testing.assert_allclose(d1.numpy(), 1 - t * t)
    np.testing.assert_allclose(d2.numpy(), -2 * t * (1 - t * t))
    np.testing.assert_allclose(d3.numpy(), (-2 + 6 * t * t) * (1 - t * t))


@pytest.mark.parametrize("activation", ["relu", "leaky_relu"])
def test_jacobian_of_a_gradient_through_relu_matches_the_loop(activation):
    """The advanced-autodiff guide's Hessian block: t2.jacobian(t1.gradient(loss, kernel), kernel)
    through relu layers (the zero second derivative of ReluGrad must keep the batch dimension)."""
    act = getattr(tf.nn, activation)
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(7, 5)))
    k1, k2 = tf.Variable(rng.normal(size=(5, 8))), tf.Variable(rng.normal(size=(8, 6)))
    hessians = []
    for use_pfor in (True, False):
        with tf.GradientTape(persistent=True) as t2:
            with tf.GradientTape() as t1:
                loss = tf.reduce_mean(act(act(x @ k1) @ k2) ** 2)
            g = t1.gradient(loss, k1)
        hessians.append(t2.jacobian(g, k1, experimental_use_pfor=use_pfor).numpy())
    assert hessians[0].shape == (5, 8, 5, 8)
    np.testing.assert_allclose(hessians[0], hessians[1], rtol=1e-12, atol=1e-12)
    assert np.abs(hessians[0]).max() > 0
