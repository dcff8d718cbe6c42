"""tf.experimental.numpy (tnp): dtype rules, values against NumPy itself, gradients, tf.function,
vectorized_map, errors, and experimental_enable_numpy_behavior (in a subprocess: its effect is
process-wide, so it must not leak into the other tests)."""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minitf as tf
import minitf.experimental.numpy as tnp
from minitf.gradient_checker import assert_gradients_close


def dt(x):
    return x.dtype.name


# -- the namespace ------------------------------------------------------------------------------

def test_experimental_is_a_package_keeping_its_names():
    import minitf.experimental as experimental
    assert experimental.numpy is tnp
    assert {"DynamicRaggedShape", "Optional", "RowPartition", "numpy"} <= set(dir(experimental))
    assert tnp.ndarray is tf.Tensor
    assert tnp.float32 is np.float32 and tnp.int64 is np.int64 and tnp.newaxis is None
    assert {"randn", "rand", "randint", "uniform", "standard_normal", "seed", "poisson", "random"} <= set(
        dir(tnp.random))
    assert len([n for n in dir(tnp) if not n.startswith("_")]) == 229  # TF 2.21's count


def test_results_are_tensors_and_numpy_reads_them():
    assert isinstance(tnp.ones([2, 3]), tf.Tensor)
    total = np.sum(tnp.ones([2, 3]))
    assert isinstance(total, np.float64) and total == 6.0
    t = tnp.sum(np.ones([2, 3]))
    assert isinstance(t, tf.Tensor) and dt(t) == "float64" and float(t) == 6.0
    assert dt(tnp.ones([2]) + np.ones([2])) == "float64"
    x = tf.constant([1, 2])
    assert tnp.asarray(x) is x


# -- dtype rules --------------------------------------------------------------------------------

@pytest.mark.parametrize("fn, want", [
    (lambda: tnp.asarray(1), "int64"), (lambda: tnp.asarray(1.), "float64"),
    (lambda: tnp.asarray([1, 2.5]), "float64"), (lambda: tnp.asarray(True), "bool"),
    (lambda: tnp.asarray(np.float32(1)), "float32"), (lambda: tnp.ones([2]), "float64"),
    (lambda: tnp.zeros(2), "float64"), (lambda: tnp.eye(2), "float64"), (lambda: tnp.arange(3), "int64"),
    (lambda: tnp.arange(3.), "float64"), (lambda: tnp.full(2, 3), "int64"), (lambda: tnp.linspace(0, 1, 3), "float64"),
    (lambda: tnp.zeros_like(tf.constant([1], tf.int8)), "int8"), (lambda: tnp.ones([2], tnp.float32), "float32"),
    (lambda: tnp.sqrt(4), "float64"), (lambda: tnp.sqrt(tf.constant(4, tf.int32)), "float64"),
    (lambda: tnp.sqrt(tf.constant(4., tf.float16)), "float16"),
    (lambda: tnp.sum([1, 2]), "int64"), (lambda: tnp.sum(tf.constant([1, 2], tf.int8)), "int64"),
    (lambda: tnp.sum(tf.constant([1, 2], tf.uint8)), "uint64"), (lambda: tnp.sum([True, True]), "int64"),
    (lambda: tnp.mean(tf.constant([1, 2], tf.int32)), "float64"), (lambda: tnp.amax(tf.constant([1], tf.int8)), "int8"),
    (lambda: tnp.add(tf.constant(1, tf.int32), tf.constant(1., tf.float32)), "float64"),
    (lambda: tnp.add(tf.constant(1, tf.int8), 300), "int8"), (lambda: tnp.add(tf.constant(1, tf.uint8),
                                                                              tf.constant(1, tf.int8)), "int16"),
    (lambda: tnp.multiply(tf.constant(2., tf.float16), 2.5), "float16"),
    (lambda: tnp.true_divide(tf.constant(1, tf.int32), tf.constant(2, tf.int32)), "float64"),
    (lambda: tnp.random.randn(2), "float64"), (lambda: tnp.random.randint(0, 5, size=3), "int64"),
    (lambda: tnp.argsort([3, 1, 2]), "int64"), (lambda: tnp.around(tf.constant([2, 3], tf.int32)), "int32"),
])
def test_dtype_rules(fn, want):
    assert dt(fn()) == want


def test_result_type_and_promote_types():
    assert tnp.result_type(1, 2.) == tf.float64
    assert tnp.result_type(tf.constant(1, tf.int8), 1) == tf.int8
    assert tnp.result_type(np.int32, np.float32) == tf.float64
    assert tnp.result_type(tf.int32, [1.5]) == tf.float64
    assert tnp.promote_types("int32", "float32") == np.float64
    assert tnp.finfo(tf.float32).eps == np.finfo(np.float32).eps
    assert tnp.issubdtype(tnp.float32, tnp.inexact)


def test_bool_arithmetic_is_logical():
    a, b = tnp.asarray([True, False, True]), tnp.asarray([True, True, False])
    assert tnp.add(a, b).numpy().tolist() == [True, True, True]
    assert tnp.multiply(a, b).numpy().tolist() == [True, False, False]
    assert tnp.maximum(a, b).numpy().tolist() == [True, True, True]


# -- values against NumPy -----------------------------------------------------------------------

X = np.array([[-2.5, -0.0, 0.5], [1.5, 2.5, 3.0]])
I8 = np.array([[-128, -1, 0], [1, 2, 127]], dtype=np.int8)
VALUE_CASES = [
    ("abs", (X,)), ("negative", (I8,)), ("square", (X,)), ("sign", (X,)), ("floor", (X,)), ("ceil", (X,)),
    ("around", (X,)), ("exp", (X,)), ("expm1", (X,)), ("log1p", (np.abs(X),)), ("sqrt", (np.abs(X),)),
    ("cbrt", (X,)), ("sinh", (X,)), ("arctan", (X,)), ("arcsinh", (X,)), ("deg2rad", (X,)), ("rad2deg", (X,)),
    ("sinc", (X,)), ("exp2", (X,)), ("fix", (X,)), ("isnan", (X,)), ("isfinite", (X,)),
    ("add", (X, 1.5)), ("subtract", (I8, I8[::-1])), ("multiply", (X, X)), ("true_divide", (X, 2.0)),
    ("floor_divide", (X, 2.0)), ("mod", (X, -2.0)), ("power", (np.abs(X), 2.0)), ("maximum", (X, 0.5)),
    ("minimum", (I8, 1)), ("arctan2", (X, X[::-1])), ("hypot", (X, 3.0)), ("logaddexp", (X, 1.0)),
    ("logaddexp2", (X, -1.0)), ("heaviside", (X, 0.5)), ("gcd", (I8.astype(np.int32), 6)),
    ("lcm", (np.array([4, 6, 0]), 6)), ("bitwise_and", (I8, 3)), ("bitwise_xor", (I8, -1)),
    ("greater", (X, 0.5)), ("less_equal", (I8, 0)), ("logical_xor", (X, 0.0)), ("isclose", (X, X + 1e-9)),
    ("sum", (X,)), ("prod", (X,)), ("mean", (X,)), ("std", (X,)), ("var", (X,)), ("amax", (X,)),
    ("amin", (I8,)), ("ptp", (X,)), ("cumsum", (I8,)), ("cumprod", (X,)), ("argmax", (X,)), ("argmin", (I8,)),
    ("count_nonzero", (X,)), ("all", (X,)), ("any", (X,)), ("average", (X,)), ("nansum", (np.array([1., np.nan]),)),
    ("nanmean", (np.array([1., np.nan, 3.]),)), ("ravel", (X,)), ("transpose", (X,)), ("flip", (X,)),
    ("fliplr", (X,)), ("flipud", (X,)), ("rot90", (X,)), ("tril", (X,)), ("triu", (X,)), ("diagonal", (X,)),
    ("trace", (X,)), ("diag", (X,)), ("diagflat", (np.array([1, 2]),)), ("outer", (X, X)),
    ("inner", (X, X)), ("dot", (X, X.T)), ("matmul", (X, X.T)), ("vdot", (X, X)), ("kron", (X, I8)),
    ("cross", (np.array([1., 2, 3]), np.array([4., 5, 6]))), ("tensordot", (X, X.T, 1)), ("diff", (X,)),
    ("sort", (X,)), ("argsort", (np.array([3, 1, 2, 1]),)), ("nonzero", (X,)), ("atleast_3d", (np.array([1, 2]),)),
    ("nextafter", (X.astype(np.float32), np.float32(2.0))), ("nextafter", (X, -np.inf)),
    ("polyval", (np.array([1., -2, 3]), X)), ("vander", (np.array([1, 2, 3]),)), ("isneginf", (tf.constant(-np.inf),)),
]


@pytest.mark.parametrize("name, args", VALUE_CASES, ids=[c[0] for c in VALUE_CASES])
def test_values_match_numpy(name, args):
    np_args = [np.asarray(a) if isinstance(a, tf.Tensor) else a for a in args]
    want = getattr(np, name)(*np_args)
    got = getattr(tnp, name)(*args)
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w)
        return
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-7, atol=1e-12)
    assert np.asarray(got).shape == np.shape(want)


@pytest.mark.parametrize("call", [
    lambda m: m.reshape(m.arange(12), (3, 4), order="F"),
    lambda m: m.moveaxis(m.zeros((2, 3, 4)), 0, -1),
    lambda m: m.swapaxes(m.ones((2, 3, 1)), 0, 2),
    lambda m: m.concatenate([[1, 2], [3]]),
    lambda m: m.stack([m.arange(3), m.arange(3)], axis=1),
    lambda m: m.hstack([[1, 2], [3]]),
    lambda m: m.vstack([[1, 2], [3, 4]]),
    lambda m: m.dstack([[1, 2], [3, 4]]),
    lambda m: m.split(m.arange(9), [2, 5]),
    lambda m: m.hsplit(m.reshape(m.arange(12), (2, 6)), 3),
    lambda m: m.tile(m.arange(3), (2, 2)),
    lambda m: m.repeat(m.arange(3), [1, 0, 2]),
    lambda m: m.roll(m.reshape(m.arange(6), (2, 3)), 1),
    lambda m: m.pad(m.reshape(m.arange(6), (2, 3)), [[1, 0], [0, 2]], "constant", constant_values=7),
    lambda m: m.pad(m.reshape(m.arange(6), (2, 3)), [[1, 1], [2, 1]], "reflect"),
    lambda m: m.take(m.arange(6), [0, 9, -9], mode="clip"),
    lambda m: m.take(m.arange(6), [0, 9, -1], mode="wrap"),
    lambda m: m.take_along_axis(m.reshape(m.arange(6), (2, 3)), m.asarray([[2, 0, 1]]), 1),
    lambda m: m.where([True, False], [1, 2], [3.5, 4]),
    lambda m: m.select([m.asarray([True, False, False]), m.asarray([True, True, False])], [[1, 2, 3], [4, 5, 6]], -1),
    lambda m: m.compress([True, False, True], m.reshape(m.arange(6), (2, 3)), axis=1),
    lambda m: m.broadcast_to(m.arange(3), (2, 3)),
    lambda m: m.broadcast_arrays(m.arange(3), m.reshape(m.arange(2), (2, 1))),
    lambda m: m.meshgrid(m.arange(3), m.arange(2), indexing="ij"),
    lambda m: m.ix_([0, 1], [True, False, True]),
    lambda m: m.tri(3, 4, -1),
    lambda m: m.eye(3, 4, 1),
    lambda m: m.identity(3),
    lambda m: m.linspace(0, 1, 5, endpoint=False),
    lambda m: m.logspace(0, 2, 3),
    lambda m: m.geomspace(1, 8, 4),
    lambda m: m.full((2, 2), [1, 2]),
    lambda m: m.full_like(m.arange(3), 2.5),
    lambda m: m.append(m.arange(3), [[7, 8]]),
    lambda m: m.expand_dims(m.arange(3), 0),
    lambda m: m.squeeze(m.zeros((1, 3, 1))),
    lambda m: m.diag_indices(3),
    lambda m: m.einsum("ij,jk->ik", m.reshape(m.arange(6), (2, 3)), m.reshape(m.arange(6), (3, 2))),
    lambda m: m.clip(m.arange(6), 1, 4),
    lambda m: m.atleast_2d(5),
], ids=lambda c: "")
def test_shape_and_index_functions_match_numpy(call):
    want, got = call(np), call(tnp)
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w)
    else:
        np.testing.assert_allclose(np.asarray(got), want)
        assert np.asarray(got).shape == want.shape


# -- gradients ----------------------------------------------------------------------------------

A64 = tf.constant([[0.3, -1.2, 0.7], [1.5, 0.2, -0.4]], tf.float64)
B64 = tf.constant([[0.9, 0.1, -0.6], [-0.3, 1.1, 0.5]], tf.float64)


@pytest.mark.parametrize("fn", [
    lambda a, b: tnp.add(a, b), lambda a, b: tnp.multiply(a, b), lambda a, b: tnp.true_divide(a, tnp.exp(b)),
    lambda a, b: tnp.matmul(a, tnp.transpose(b)), lambda a, b: tnp.dot(a, b[0]),
    lambda a, b: tnp.tensordot(a, b, [[1], [1]]), lambda a, b: tnp.einsum("ij,ij->i", a, b),
    lambda a, b: tnp.logaddexp(a, b), lambda a, b: tnp.hypot(a, b), lambda a, b: tnp.arctan2(a, b),
    lambda a, b: tnp.where(a > 0, a, b), lambda a, b: tnp.maximum(a, b), lambda a, b: tnp.outer(a, b),
    lambda a, b: tnp.kron(a, b), lambda a, b: tnp.cross(a, b), lambda a, b: tnp.concatenate([a, b], 1),
    lambda a, b: tnp.stack([a, b]), lambda a, b: tnp.average(a, axis=1, weights=b[0] ** 2 + 1.0),
    lambda a, b: tnp.polyval(a[0], b),
])
def test_binary_gradients(fn):
    assert_gradients_close(fn, [A64, B64])


@pytest.mark.parametrize("fn", [
    tnp.sum, tnp.mean, tnp.std, tnp.var, tnp.prod, tnp.amax, tnp.cumsum, tnp.cumprod, tnp.ravel, tnp.tanh,
    tnp.sinh, tnp.arcsinh, tnp.square, tnp.exp2, lambda a: tnp.log2(tnp.abs(a) + 0.5),
    lambda a: tnp.cbrt(tnp.abs(a) + 0.5),
    lambda a: tnp.sqrt(tnp.abs(a) + 0.5), lambda a: tnp.log1p(tnp.abs(a)), lambda a: tnp.clip(a, -0.5, 0.5),
    lambda a: tnp.reshape(a, (3, 2), order="F"), lambda a: tnp.moveaxis(a, 0, 1), lambda a: tnp.tile(a, (2, 1)),
    lambda a: tnp.repeat(a, 2, axis=1), lambda a: tnp.roll(a, 1), lambda a: tnp.flip(a), lambda a: tnp.rot90(a),
    lambda a: tnp.pad(a, [[1, 1], [0, 2]], "symmetric"),
    lambda a: tnp.take(a, [0, 2, 2], axis=1), lambda a: tnp.take_along_axis(a, tnp.asarray([[2, 0, 1]]), 1),
    lambda a: tnp.tril(a), lambda a: tnp.diagonal(a), lambda a: tnp.trace(a), lambda a: tnp.diff(a, 2),
    lambda a: tnp.sort(a), lambda a: tnp.ptp(a, axis=0), lambda a: tnp.vander(a[0], 3),
    lambda a: tnp.split(a, [1], axis=1)[1], lambda a: tnp.broadcast_to(a[0], (4, 3)),
])
def test_unary_gradients(fn):
    assert_gradients_close(fn, [A64])


def test_gradient_tape_through_tnp_model():
    w = tnp.asarray(np.linspace(-1, 1, 6).reshape(3, 2))
    x = tnp.ones([4, 3])
    with tf.GradientTape() as tape:
        tape.watch(w)
        loss = tnp.sum(tnp.square(tnp.maximum(tnp.matmul(x, w), 0)))
    g = tape.gradient(loss, w)
    assert isinstance(g, tnp.ndarray) and g.shape == (3, 2)
    relu = np.maximum(np.ones([4, 3]) @ np.asarray(w), 0)
    np.testing.assert_allclose(np.asarray(g), np.ones([4, 3]).T @ (2 * relu))


# -- tf.function and vectorized_map -------------------------------------------------------------

def test_tnp_inside_tf_function_matches_eager():
    def f(x):
        return tnp.true_divide(tnp.sum(tnp.square(tnp.expand_dims(x, 0) - tnp.mean(x)), axis=1), tnp.sqrt(2.0))
    x = tf.constant([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])
    np.testing.assert_allclose(np.asarray(tf.function(f)(x)), np.asarray(f(x)), rtol=1e-6)


def test_vectorized_map_over_tnp():
    x = tnp.asarray(np.arange(12.0).reshape(4, 3))
    out = tf.vectorized_map(lambda row: tnp.sum(tnp.square(row)), x)
    np.testing.assert_allclose(np.asarray(out), (np.arange(12.0).reshape(4, 3) ** 2).sum(1))


def test_copy_and_device():
    x = tnp.arange(3)
    with tf.device("/device:CPU:0"):
        y = tnp.copy(x)
    assert y is not x and y.device.endswith("CPU:0") and y.numpy().tolist() == [0, 1, 2]


# -- random -------------------------------------------------------------------------------------

def test_random_seed_repeats_and_shapes():
    tnp.random.seed(3)
    a = tnp.random.randn(2, 3)
    tnp.random.seed(3)
    b = tnp.random.randn(2, 3)
    assert np.array_equal(a, b) and a.shape == (2, 3)
    u = tnp.random.uniform(-1, 2, size=(100,))
    assert dt(u) == "float64" and float(tnp.min(u)) >= -1 and float(tnp.max(u)) < 2
    r = tnp.random.randint(3, 6, size=(50,), dtype=np.int32)
    assert dt(r) == "int32" and set(np.asarray(r).tolist()) <= {3, 4, 5}
    assert tnp.random.rand(3).shape == (3,) and tnp.random.standard_normal(4).shape == (4,)
    assert dt(tnp.random.poisson(2.0, 5)) == "int64"


# -- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, error", [
    (lambda: tnp.clip([1, 2], None, None), ValueError),
    (lambda: tnp.random.randint(0, 4, dtype=np.float32), ValueError),
    (lambda: tnp.random.seed("x"), ValueError),
    (lambda: tnp.matmul(tnp.ones([2, 3]), tnp.ones([2, 3])), ValueError),
    (lambda: tnp.add(tnp.ones([2]), tnp.ones([3])), tf.errors.InvalidArgumentError),
    (lambda: tnp.arange(0, 5, 0), ValueError),
    (lambda: tnp.linspace(0, 1, -1), ValueError),
    (lambda: tnp.reshape(tnp.ones(6), (4, 2)), tf.errors.InvalidArgumentError),
    (lambda: tnp.gcd(tnp.ones(2), 2), ValueError),
    (lambda: tnp.ones(3, None), TypeError),
    (lambda: tnp.sort([3, 1], kind="mergesort"), ValueError),
    (lambda: tnp.take([1, 2], [0], mode="raise"), ValueError),
    (lambda: tnp.mean([1., 2.], out=1), ValueError),
    (lambda: tnp.nextafter(tnp.ones(2, tnp.float16), 0), tf.errors.InvalidArgumentError),
    (lambda: tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="bogus"), ValueError),
    (lambda: tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="safe"), NotImplementedError),
])
def test_bad_input_raises_tf_error_types(call, error):
    with pytest.raises(error):
        call()


def test_mutation_is_refused():
    with pytest.raises(TypeError):
        tnp.arange(6)[1] = -1


def test_signbit_is_x_below_zero_as_tf():
    # TF's tnp computes x < 0, so -0.0 has no sign bit there (NumPy says it has)
    assert tnp.signbit(tnp.asarray([-0.0, -1.0, 0.0])).numpy().tolist() == [False, True, False]


def test_numpy_methods_absent_until_enabled():
    assert not hasattr(tf.constant([1]), "T")


# -- experimental_enable_numpy_behavior (subprocess) --------------------------------------------

_PROGRAM = textwrap.dedent(r"""
    import json
    import numpy as np
    import minitf as tf
    import minitf.experimental.numpy as tnp
    from minitf.gradient_checker import assert_gradients_close
    out = {"before_T": hasattr(tf.constant([1]), "T")}
    tnp.experimental_enable_numpy_behavior()
    x = tnp.arange(24).reshape(2, 3, 4)
    v = [tnp.asarray(1, dtype=d) for d in (tnp.int32, tnp.int64, tnp.float32, tnp.float64)]
    out["promotion"] = [(a + b).dtype.name for i, a in enumerate(v) for b in v[i + 1:]]
    out["mixed_ops"] = [(tf.constant(1) + 1.5).dtype.name, (1.5 * tf.constant(1)).dtype.name,
                        (tf.constant(1., tf.float32) + 1.5).dtype.name, (tf.constant(2) / tf.constant(4)).dtype.name,
                        (tf.constant([1.], tf.float32) + np.ones(1)).dtype.name]
    out["methods"] = [list(x.T.shape), list(x.reshape(-1).shape), list(x.reshape((4, 6)).shape), x.ndim,
                      int(x.size), x.ravel().shape[0], x.flatten().shape[0], list(x.transpose().shape),
                      x.astype(tnp.float32).dtype.name, x.clip(3, 5).numpy().max().item(),
                      int(x.max()), int(x.min()), float(x.mean()), x[0, 0].tolist(), round(tf.constant(2.5)).numpy().item(),
                      (+x).shape.rank, x.data is x]
    out["basic"] = x[1, tnp.newaxis, 1:3, ...].numpy().tolist()
    out["bool"] = x[:, (True, False, True)].numpy().tolist()
    out["advanced"] = x[1, (0, 0, 1), tnp.asarray([0, 1, 1])].numpy().tolist()
    out["mask"] = tf.constant([1, 2, 3])[tf.constant([True, False, True])].numpy().tolist()
    v = tf.Variable([1, 2])
    out["variable"] = [(v + 1.5).dtype.name, (1.5 + v).dtype.name, (v * np.float32(2)).dtype.name, hasattr(v, "T")]
    w = tf.constant(np.linspace(-1, 1, 6).reshape(2, 3))
    assert_gradients_close(lambda t: t[:, [2, 0, 2]] * 2.0, [w])
    assert_gradients_close(lambda t: t.T.reshape(6).clip(-0.5, 0.5), [w])
    tnp.experimental_enable_numpy_behavior(prefer_float32=True)
    out["prefer32"] = [tnp.asarray(1.).dtype.name, tnp.add(1., 2.).dtype.name, tnp.ones(2).dtype.name]

    @tf.function
    def traced(t):
        return tnp.sum(t.reshape(-1).astype(tnp.float64)) + t.T[0, 0] + tnp.sum(t[:, [1, 1]])
    out["traced"] = float(traced(tf.constant([[1., 2.], [3., 4.]])))
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="off")
    try:
        tf.constant(1) + tf.constant(1.)
        out["off"] = "no error"
    except tf.errors.InvalidArgumentError:
        out["off"] = "InvalidArgumentError"
    print(json.dumps(out))
""")


def test_enable_numpy_behavior_in_a_fresh_process():
    proc = subprocess.run([sys.executable, "-c", _PROGRAM], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["before_T"] is False
    assert out["promotion"] == ["int64", "float64", "float64", "float64", "float64", "float64"]
    assert out["mixed_ops"] == ["float64", "float64", "float32", "float64", "float64"]
    assert out["methods"] == [[4, 3, 2], [24], [4, 6], 3, 24, 24, 24, [4, 3, 2], "float32", 5, 23, 0, 11.5,
                              [0, 1, 2, 3], 2.0, 3, True]
    assert out["basic"] == [[[16, 17, 18, 19], [20, 21, 22, 23]]]
    assert out["bool"] == [[[0, 1, 2, 3], [8, 9, 10, 11]], [[12, 13, 14, 15], [20, 21, 22, 23]]]
    assert out["advanced"] == [12, 13, 17]
    assert out["mask"] == [1, 3]
    assert out["variable"] == ["float64", "float64", "float64", False]  # as TF 2.21
    assert out["prefer32"] == ["float32", "float32", "float64"]
    assert out["off"] == "InvalidArgumentError"
    assert out["traced"] == 23.0
