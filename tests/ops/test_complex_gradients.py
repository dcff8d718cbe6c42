"""Gradients of complex inputs follow TF's convention: for a real loss L the gradient with respect
to z = x + iy is dL/dx + i dL/dy; with an upstream gradient u for y = f(z) that is the gradient of
L = Re(sum(conj(u) * f(z))) (g * conj(f'(z)) for a holomorphic f). Checked by central finite
differences along x and y for every op whose rule was written for real inputs first, to second
order, and against TF 2.21 where installed."""
import numpy as np
import pytest

import minitf as tf

RNG = np.random.default_rng(7)
Z = np.array([0.5 + 0.3j, -1.2 + 0.8j, 0.7 - 1.1j, 1.6 + 0.2j])
W = np.array([0.8 - 0.6j, 0.3 + 1.2j, -1.1 + 0.4j, 0.5 + 0.5j])
U = np.array([1.0 + 0.2j, -0.4 + 0.9j, 0.6 - 0.7j, -1.3 - 0.1j])

UNARY = {
    "negative": tf.negative, "abs": tf.abs, "sign": tf.sign, "square": tf.square, "sqrt": tf.sqrt,
    "rsqrt": tf.math.rsqrt, "reciprocal": tf.math.reciprocal, "exp": tf.exp, "expm1": tf.math.expm1,
    "log": tf.math.log, "log1p": tf.math.log1p, "sin": tf.sin, "cos": tf.cos, "tan": tf.tan,
    "asin": tf.math.asin, "acos": tf.math.acos, "atan": tf.math.atan, "sinh": tf.math.sinh,
    "cosh": tf.math.cosh, "tanh": tf.tanh, "sigmoid": tf.sigmoid,
}
BINARY = {
    "add": tf.add, "subtract": tf.subtract, "multiply": tf.multiply, "divide": tf.divide,
    "divide_no_nan": tf.math.divide_no_nan, "pow": tf.pow,
}
# TF's rules for these are not the conjugate-convention derivative of the value they compute
NOT_CONJUGATE = {"squared_difference": tf.math.squared_difference, "xlogy": tf.math.xlogy}


def _loss(f, args, u):
    y = f(*[tf.constant(a) for a in args])
    y = np.asarray(y.numpy())
    return float(np.sum((np.conj(u) * y).real))


def _numeric(f, args, u, h=1e-6):
    """dL/dx + i dL/dy for each argument, by central differences."""
    grads = []
    for i, a in enumerate(args):
        g = np.zeros(a.shape, complex)
        for k in np.ndindex(a.shape):
            for step in (h, 1j * h):
                hi, lo = [b.copy() for b in args], [b.copy() for b in args]
                hi[i][k] += step
                lo[i][k] -= step
                d = (_loss(f, hi, u) - _loss(f, lo, u)) / (2 * h)
                g[k] += d if step == h else 1j * d
        grads.append(g)
    return grads


def _taped(f, args, u):
    vs = [tf.Variable(a) for a in args]
    with tf.GradientTape() as tape:
        y = f(*vs)
    up = tf.constant(u.real.astype(y.dtype.as_numpy_dtype) if not y.dtype.is_complex else u)
    return [np.zeros(a.shape, complex) if g is None else g.numpy()
            for a, g in zip(args, tape.gradient(y, vs, output_gradients=up))]


def _first_order(f):
    """The gradient as a function of the arguments, for a fixed upstream U."""
    def grad(*args):
        with tf.GradientTape() as tape:
            tape.watch(list(args))
            y = f(*args)
        up = tf.constant(U.real.astype(y.dtype.as_numpy_dtype) if not y.dtype.is_complex else U)
        out = [g if g is not None else a * 0 for a, g in
               zip(args, tape.gradient(y, list(args), output_gradients=up))]
        return out[0] if len(out) == 1 else out[0] + out[-1]
    return grad


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_first_and_second_order(name):
    f = UNARY[name]
    u = U if name != "abs" else U.real.astype(complex)
    np.testing.assert_allclose(_taped(f, [Z], u)[0], _numeric(f, [Z], u)[0], rtol=1e-6, atol=1e-7)
    g = _first_order(f)
    np.testing.assert_allclose(_taped(g, [Z], W)[0], _numeric(g, [Z], W)[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_first_and_second_order(name):
    f, z2 = BINARY[name], Z[::-1] * 0.8
    for mine, numeric in zip(_taped(f, [Z, z2], U), _numeric(f, [Z, z2], U)):
        np.testing.assert_allclose(mine, numeric, rtol=1e-6, atol=1e-7)
    g = _first_order(f)
    for mine, numeric in zip(_taped(g, [Z, z2], W), _numeric(g, [Z, z2], W)):
        np.testing.assert_allclose(mine, numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode_a", ["N", "T", "H"])
@pytest.mark.parametrize("mode_b", ["N", "T", "H"])
def test_matmul_every_transpose_and_adjoint(mode_a, mode_b):
    flags = {"N": {}, "T": {"transpose_": True}, "H": {"adjoint_": True}}
    kw = {k + "a": v for k, v in flags[mode_a].items()}
    kw.update({k + "b": v for k, v in flags[mode_b].items()})
    a = RNG.normal(size=(3, 2) if mode_a != "N" else (2, 3)) + 1j * RNG.normal(size=(3, 2) if mode_a != "N" else (2, 3))
    b = RNG.normal(size=(4, 3) if mode_b != "N" else (3, 4)) + 1j * RNG.normal(size=(4, 3) if mode_b != "N" else (3, 4))
    u = RNG.normal(size=(2, 4)) + 1j * RNG.normal(size=(2, 4))

    def f(x, y):
        return tf.matmul(x, y, **kw)
    for mine, numeric in zip(_taped(f, [a, b], u), _numeric(f, [a, b], u)):
        np.testing.assert_allclose(mine, numeric, rtol=1e-6, atol=1e-7)


def test_the_reported_case_d_dy_re_c_times_c():
    c = tf.Variable(3.0 + 2.0j)
    with tf.GradientTape() as tape:
        loss = tf.math.real(c * c)
    assert tape.gradient(loss, c).numpy() == 6.0 - 4.0j  # d/dx Re(z^2) + i d/dy Re(z^2)
    z = tf.Variable([3.0 + 4.0j, 0j])
    with tf.GradientTape() as tape:
        r = tf.abs(z)
    np.testing.assert_allclose(tape.gradient(r, z).numpy(), [0.6 + 0.8j, 0j])  # 0 at 0, as TF


@pytest.mark.parametrize("name", sorted(NOT_CONJUGATE))
def test_rules_tf_writes_without_conjugates(name):
    x, y = tf.Variable(Z), tf.Variable(Z[::-1] * 0.8)
    with tf.GradientTape() as tape:
        out = NOT_CONJUGATE[name](x, y)
    gx, gy = tape.gradient(out, [x, y], output_gradients=tf.constant(U))
    if name == "squared_difference":
        d = Z - Z[::-1] * 0.8
        np.testing.assert_allclose(out.numpy(), np.conj(d) * d)  # TF: conj(x - y)(x - y)
        np.testing.assert_allclose(gx.numpy(), 2 * U * d)
        np.testing.assert_allclose(gy.numpy(), -2 * U * d)
    else:
        np.testing.assert_allclose(gx.numpy(), U * np.log(Z[::-1] * 0.8))
        np.testing.assert_allclose(gy.numpy(), U * Z / (Z[::-1] * 0.8))


def _tf_names():
    return sorted(UNARY) + sorted(BINARY) + sorted(NOT_CONJUGATE) + ["matmul", "det", "slogdet"]


@pytest.mark.parametrize("name", _tf_names())
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_first_and_second_order_match_tensorflow(name, dtype):
    tf_ref = pytest.importorskip("tensorflow")

    def run(lib):
        table = {"abs": lib.abs, "sign": lib.sign, "square": lib.square, "sqrt": lib.sqrt,
                 "rsqrt": lib.math.rsqrt, "reciprocal": lib.math.reciprocal, "exp": lib.exp,
                 "expm1": lib.math.expm1, "log": lib.math.log, "log1p": lib.math.log1p, "sin": lib.sin,
                 "cos": lib.cos, "tan": lib.tan, "asin": lib.math.asin, "acos": lib.math.acos,
                 "atan": lib.math.atan, "sinh": lib.math.sinh, "cosh": lib.math.cosh, "tanh": lib.tanh,
                 "sigmoid": lib.sigmoid, "negative": lib.negative, "add": lib.add,
                 "subtract": lib.subtract, "multiply": lib.multiply, "divide": lib.divide,
                 "divide_no_nan": lib.math.divide_no_nan, "pow": lib.pow,
                 "squared_difference": lib.math.squared_difference, "xlogy": lib.math.xlogy,
                 "matmul": lib.matmul, "det": lib.linalg.det,
                 "slogdet": lambda m: lib.linalg.slogdet(m)[1]}
        f = table[name]
        if name in ("matmul", "det", "slogdet"):
            args = [(np.arange(12).reshape(2, 2, 3) % 5 - 2) * (0.3 + 0.2j) + 2 * np.eye(2, 3),
                    (np.arange(9).reshape(3, 3) % 4 - 1) * (0.1 - 0.4j) + 2 * np.eye(3)]
            args = args if name == "matmul" else [args[1]]
        else:
            args = [Z, Z[::-1] * 0.8] if name in BINARY or name in NOT_CONJUGATE else [Z]
        vs = [lib.Variable(a.astype(dtype)) for a in args]
        with lib.GradientTape() as outer:
            with lib.GradientTape() as inner:
                y = f(*vs)
            up = np.ones(y.shape) * (0.7 - 0.4j)
            up = up.real if not y.dtype.is_complex else up
            grads = inner.gradient(y, vs, output_gradients=lib.constant(up.astype(y.dtype.as_numpy_dtype)))
            total = lib.add_n([lib.reduce_sum(g * lib.constant(np.full(g.shape, 0.2 + 0.9j, dtype)))
                               for g in grads])
        second = outer.gradient(total, vs)
        return [np.asarray(g) if g is not None else np.zeros(v.shape) for v, g in zip(vs + vs, list(grads) + list(second))]
    rtol = 2e-4 if dtype == "complex64" else 1e-9
    for mine, ref in zip(run(tf), run(tf_ref)):
        np.testing.assert_allclose(mine, ref, rtol=rtol, atol=rtol)
