"""keras.ops' numpy-like functions: Keras 3's dtype rules, values against numpy, errors, and a
float64 finite-difference gradient check of every differentiable function."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

K = tf.keras.ops
RNG = np.random.RandomState(0)


def flat(out):
    """Any nest of tensors as one 1-D tensor (so a tuple-valued function has one jacobian)."""
    leaves = tf.nest.flatten(out)
    return tf.concat([tf.reshape(tf.cast(t, tf.float64), [-1]) for t in leaves], axis=0)


def arr(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, size=shape).astype(np.float64)


# -- dtypes follow Keras 3's result_type ------------------------------------------------------

@pytest.mark.parametrize("call, dtype", [
    (lambda: K.add(tf.constant([1], tf.int8), 1), "int8"),
    (lambda: K.add(tf.constant([1], tf.int8), tf.constant([1], tf.uint8)), "int16"),
    (lambda: K.multiply(tf.constant([1], tf.int32), 0.5), "float32"),
    (lambda: K.add(tf.constant([1.0], tf.float16), 2.5), "float16"),
    (lambda: K.add(tf.constant([1], tf.int64), tf.constant([1.0], tf.float16)), "float16"),
    (lambda: K.divide(tf.constant([1], tf.int32), 2), "float32"),
    (lambda: K.mean(tf.constant([1, 2], tf.int32)), "float32"),
    (lambda: K.sum(tf.constant([1, 2], tf.int8)), "int32"),
    (lambda: K.sum(tf.constant([True, False])), "int32"),
    (lambda: K.sum(tf.constant([1, 2], tf.uint8)), "uint32"),
    (lambda: K.arange(3), "int32"),
    (lambda: K.arange(3.0), "float32"),
    (lambda: K.linspace(0, 1, 3), "float32"),
    (lambda: K.sqrt(tf.constant([4], tf.int64)), "float32"),
    (lambda: K.cbrt(tf.constant([8], tf.int64)), "float64"),
    (lambda: K.argmax(tf.constant([1.0, 3.0])), "int32"),
    (lambda: K.ones((2,)), "float32"),
    (lambda: K.full((2,), 3), "float32"),
    (lambda: K.matmul(tf.ones((2, 2), tf.int8), tf.ones((2, 2), tf.int8)), "int32"),
    (lambda: K.einsum("ij,jk->ik", tf.ones((2, 2), tf.int32), tf.ones((2, 2), tf.int32)), "int32"),
    (lambda: K.var(tf.constant([1.0, 2.0], tf.float16)), "float16"),
    (lambda: K.exp(tf.constant([True])), "float32"),
])
def test_result_dtypes_follow_keras(call, dtype):
    assert call().dtype.name == dtype


def test_result_type_matches_the_promotion_lattice():
    rt = tf.keras.backend.result_type
    assert rt("int8", "uint8") == "int16"
    assert rt("int32", float) == "float32"
    assert rt("bfloat16", int) == "bfloat16"
    assert rt(int) == "int32" and rt(float) == "float32"
    assert rt("uint64", "uint8") == "uint32"  # Keras narrows uint64 on every backend
    assert rt() == "float32"
    with pytest.raises(ValueError, match="Invalid dtype"):
        rt("nope")


# -- values against numpy ----------------------------------------------------------------------

@pytest.mark.parametrize("name, args", [
    ("arcsinh", (arr(5),)), ("arccosh", (arr(5, low=1.1, high=4),)),
    ("arctanh", (arr(5, low=-0.9, high=0.9),)), ("cbrt", (arr(5),)), ("sinc", (arr(5),)),
    ("i0", (arr(5, low=-5, high=5),)), ("hypot", (arr(4), arr(4))),
    ("logaddexp", (arr(4), arr(4))), ("heaviside", (arr(4), arr(4))),
    ("nan_to_num", (np.array([np.nan, np.inf, -np.inf, 1.0]),)),
    ("quantile", (arr(7), [0.1, 0.5])), ("median", (arr(3, 4),)),
    ("ptp", (arr(3, 4),)), ("cumprod", (arr(6),)), ("kron", (arr(2, 2), arr(2, 3))),
    ("correlate", (arr(5), arr(3))), ("trapezoid", (arr(6),)), ("vander", (arr(3),)),
    ("diagonal", (arr(3, 4),)), ("trace", (arr(3, 4),)), ("tri", (3, 4, 1)),
    ("rot90", (arr(2, 3), 2)), ("searchsorted", (np.array([1.0, 2.0, 3.0]), arr(4))),
    ("digitize", (arr(5), [0.0, 1.0])), ("unique", (np.array([3, 1, 3, 2]),)),
    ("bincount", (np.array([0, 1, 1, 4]),)), ("isin", (np.array([1, 2, 3]), [2, 5])),
    ("gcd", (np.array([12, -9, 0]), np.array([8, 6, 0]))),
    ("lcm", (np.array([4, 6, 0]), np.array([6, 4, 3]))),
])
def test_values_match_numpy(name, args):
    got = getattr(K, name)(*args)
    want = getattr(np, name)(*args)
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64),
                               np.asarray(want, dtype=np.float64), rtol=1e-5, atol=1e-6)


def test_bias_like_operand_is_added_along_axis_one_as_keras_does():
    x = tf.constant(np.arange(24.0).reshape(2, 3, 4))
    out = K.add(x, tf.constant([1.0, 2.0, 3.0], tf.float64))
    np.testing.assert_allclose(out.numpy(), x.numpy() + np.array([1, 2, 3.0]).reshape(1, 3, 1))


def test_clip_lets_x_min_win_when_the_bounds_cross():
    assert K.clip(tf.constant([0], tf.uint8), -3, 2).numpy().tolist() == [253]
    assert K.clip(tf.constant([5.0]), 3.0, 1.0).numpy().tolist() == [3.0]


# -- errors ----------------------------------------------------------------------------------

def test_bad_input_raises_keras_exception_types():
    with pytest.raises(ValueError, match="at most one unknown"):
        K.reshape(tf.ones((2, 3)), (-1, -1))
    with pytest.raises(ValueError, match="Cannot squeeze axis=0"):
        K.squeeze(tf.ones((2, 3)), 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty tensor"):
        K.max(tf.zeros((0,)))
    with pytest.raises(ValueError, match="same"):
        K.diagonal(tf.ones((3, 3)), 0, 1, 1)
    with pytest.raises(AttributeError, match="clip needs `x` with a dtype"):
        K.clip(1.5, 0, 1)
    with pytest.raises(TypeError, match="gcd must be integers"):
        K.gcd(tf.constant([1.5]), tf.constant([2.0]))
    with pytest.raises(ValueError, match="pad_width"):
        K.pad(tf.ones((2, 2)), [(1, 1), (1, 1), (1, 1)])


# -- gradients (float64 central differences) --------------------------------------------------

_UNARY = {
    "abs": (arr(6),), "absolute": (arr(6),), "fabs": (arr(6),), "negative": (arr(6),),
    "square": (arr(6),), "sqrt": (arr(6, low=0.2),), "cbrt": (arr(6, low=0.2),),
    "reciprocal": (arr(6, low=0.3),), "exp": (arr(6),), "exp2": (arr(6),), "expm1": (arr(6),),
    "log": (arr(6, low=0.2),), "log10": (arr(6, low=0.2),), "log2": (arr(6, low=0.2),),
    "log1p": (arr(6, low=-0.5),), "sin": (arr(6),), "cos": (arr(6),), "tan": (arr(6, low=-1, high=1),),
    "arcsin": (arr(6, low=-0.8, high=0.8),), "arccos": (arr(6, low=-0.8, high=0.8),),
    "arctan": (arr(6),), "sinh": (arr(6),), "cosh": (arr(6),), "tanh": (arr(6),),
    "arcsinh": (arr(6),), "arccosh": (arr(6, low=1.2, high=3),),
    "arctanh": (arr(6, low=-0.8, high=0.8),), "sinc": (arr(6, low=0.3),), "deg2rad": (arr(6),),
    "rad2deg": (arr(6),), "i0": (arr(6),), "real": (arr(6),), "conj": (arr(6),),
    "conjugate": (arr(6),), "copy": (arr(2, 3),), "ravel": (arr(2, 3),), "array": (arr(2, 3),),
    "fliplr": (arr(2, 3),), "flipud": (arr(2, 3),), "nan_to_num": (arr(4),),
    "corrcoef": (arr(2, 4),), "vander": (arr(3),), "diagflat": (arr(2, 2),),
}
_BINARY = {
    "add": (arr(2, 3), arr(3)), "subtract": (arr(2, 3), arr(3)), "multiply": (arr(2, 3), arr(3)),
    "divide": (arr(2, 3), arr(3, low=0.5)), "true_divide": (arr(3), arr(3, low=0.5)),
    "divide_no_nan": (arr(3), arr(3, low=0.5)), "power": (arr(3, low=0.5), arr(3)),
    "maximum": (arr(4), arr(4)), "minimum": (arr(4), arr(4)), "fmax": (arr(4), arr(4)),
    "fmin": (arr(4), arr(4)), "arctan2": (arr(4), arr(4)), "hypot": (arr(4), arr(4)),
    "logaddexp": (arr(4), arr(4)), "logaddexp2": (arr(4), arr(4)),
    "matmul": (arr(2, 3), arr(3, 2)), "dot": (arr(2, 3), arr(3)), "inner": (arr(3), arr(3)),
    "outer": (arr(2), arr(3)), "vdot": (arr(2, 2), arr(2, 2)), "kron": (arr(2), arr(2, 2)),
    "cross": (arr(2, 3), arr(2, 3)), "correlate": (arr(5), arr(2)), "append": (arr(2), arr(3)),
}


@pytest.mark.parametrize("name", sorted(_UNARY))
def test_unary_gradients(name):
    order = 1 if name in ("abs", "absolute", "fabs", "corrcoef") else 2
    assert_gradients_close(lambda x: flat(getattr(K, name)(x)), [tf.constant(a) for a in _UNARY[name]],
                           order=order, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(_BINARY))
def test_binary_gradients(name):
    order = 1 if name in ("maximum", "minimum", "fmax", "fmin") else 2
    assert_gradients_close(lambda a, b: flat(getattr(K, name)(a, b)),
                           [tf.constant(v) for v in _BINARY[name]], order=order, rtol=1e-4,
                           atol=1e-5)


_ONE_ARG = {  # name -> (call of x, x)
    "sum": (lambda x: K.sum(x, axis=1), arr(2, 3)), "mean": (lambda x: K.mean(x, 0), arr(2, 3)),
    "max": (lambda x: K.max(x, axis=1), arr(2, 3)), "min": (lambda x: K.min(x), arr(2, 3)),
    "amax": (lambda x: K.amax(x, 0), arr(2, 3)), "amin": (lambda x: K.amin(x, 1), arr(2, 3)),
    "prod": (lambda x: K.prod(x, 1), arr(2, 3)), "std": (lambda x: K.std(x, 1), arr(2, 3)),
    "var": (lambda x: K.var(x), arr(2, 3)), "ptp": (lambda x: K.ptp(x, 1), arr(2, 3)),
    "average": (lambda x: K.average(x, 1, weights=tf.constant([1.0, 2.0, 3.0], tf.float64)),
                arr(2, 3)),
    "cumsum": (lambda x: K.cumsum(x, 1), arr(2, 3)), "cumprod": (lambda x: K.cumprod(x), arr(2, 3)),
    "quantile": (lambda x: K.quantile(x, [0.3, 0.8], axis=1), arr(2, 5)),
    "percentile": (lambda x: K.percentile(x, 40.0), arr(6)),
    "median": (lambda x: K.median(x, axis=0), arr(3, 2)),
    "nanmean": (lambda x: K.nanmean(x, 1), arr(2, 3)), "nansum": (lambda x: K.nansum(x), arr(2, 3)),
    "nanprod": (lambda x: K.nanprod(x, 0), arr(2, 3)), "nanvar": (lambda x: K.nanvar(x, 1), arr(2, 3)),
    "nanstd": (lambda x: K.nanstd(x, 1), arr(2, 3)),
    "nancumsum": (lambda x: K.nancumsum(x, 1), arr(2, 3)),
    "nancumprod": (lambda x: K.nancumprod(x, 1), arr(2, 3)),
    "reshape": (lambda x: K.reshape(x, (3, 2)), arr(2, 3)),
    "transpose": (lambda x: K.transpose(x, (1, 0, 2)), arr(2, 3, 2)),
    "moveaxis": (lambda x: K.moveaxis(x, 0, -1), arr(2, 3, 2)),
    "swapaxes": (lambda x: K.swapaxes(x, 0, 2), arr(2, 3, 2)),
    "expand_dims": (lambda x: K.expand_dims(x, (0, 2)), arr(2, 3)),
    "squeeze": (lambda x: K.squeeze(x, 1), arr(2, 1, 3)),
    "broadcast_to": (lambda x: K.broadcast_to(x, (2, 3)), arr(3)),
    "concatenate": (lambda x: K.concatenate([x, x * 2.0], 1), arr(2, 3)),
    "stack": (lambda x: K.stack([x, x * 2.0], -1), arr(2, 3)),
    "hstack": (lambda x: K.hstack([x, x]), arr(2, 3)), "vstack": (lambda x: K.vstack([x, x]), arr(2, 3)),
    "dstack": (lambda x: K.dstack([x, x]), arr(2, 3)),
    "split": (lambda x: K.split(x, [1, 3], axis=1), arr(2, 4)),
    "array_split": (lambda x: K.array_split(x, 3, axis=1), arr(2, 4)),
    "hsplit": (lambda x: K.hsplit(x, 2), arr(2, 4)), "vsplit": (lambda x: K.vsplit(x, 2), arr(4, 2)),
    "dsplit": (lambda x: K.dsplit(x, 2), arr(2, 2, 4)),
    "tile": (lambda x: K.tile(x, (2, 1)), arr(2, 3)), "repeat": (lambda x: K.repeat(x, 2, 1), arr(2, 3)),
    "flip": (lambda x: K.flip(x, 1), arr(2, 3)), "roll": (lambda x: K.roll(x, 1, 0), arr(3, 2)),
    "rot90": (lambda x: K.rot90(x, 3), arr(2, 3)),
    "pad": (lambda x: K.pad(x, ((1, 0), (2, 1)), mode="reflect"), arr(3, 4)),
    "get_item": (lambda x: K.get_item(x, (slice(None), 1)), arr(3, 4)),
    "tril": (lambda x: K.tril(x, -1), arr(3, 3)), "triu": (lambda x: K.triu(x, 1), arr(3, 4)),
    "diag": (lambda x: K.diag(x, 1), arr(3)), "diagonal": (lambda x: K.diagonal(x, 1), arr(3, 4)),
    "trace": (lambda x: K.trace(x), arr(3, 3)),
    "take": (lambda x: K.take(x, [0, -1, 1], axis=1), arr(2, 3)),
    "take_along_axis": (lambda x: K.take_along_axis(x, tf.constant([[2, 0], [1, 1]]), 1), arr(2, 3)),
    "sort": (lambda x: K.sort(x, 0), arr(3, 2)),
    "meshgrid": (lambda x: K.meshgrid(x, x * 2.0, indexing="ij"), arr(3)),
    "tensordot": (lambda x: K.tensordot(x, x, axes=[[1], [1]]), arr(2, 3)),
    "einsum": (lambda x: K.einsum("ij,kj->ik", x, x), arr(2, 3)),
    "trapezoid": (lambda x: K.trapezoid(x, dx=0.5, axis=0), arr(3, 2)),
    "diff": (lambda x: K.diff(x, 2), arr(2, 4)),
    "slogdet": (lambda x: K.slogdet(x + tf.eye(3, dtype=tf.float64) * 4.0)[1], arr(3, 3)),
    "where": (lambda x: K.where(x > 0, x, x * 3.0), arr(6)),
    "select": (lambda x: K.select([x > 1, x < -1], [x * 2.0, x * x], 0.5), arr(6)),
    "clip": (lambda x: K.clip(x, -1.0, 1.0), arr(6)),
    "ldexp": (lambda x: K.ldexp(x, tf.constant([1, 2, -1, 0])), arr(4)),
}


@pytest.mark.parametrize("name", sorted(_ONE_ARG))
def test_array_function_gradients(name):
    fn, x = _ONE_ARG[name]
    first_only = ("max", "min", "amax", "amin", "ptp", "sort", "quantile", "percentile",
                  "median", "where", "select", "clip")
    assert_gradients_close(lambda v: flat(fn(v)), [tf.constant(x)],
                           order=1 if name in first_only else 2, rtol=1e-4, atol=1e-5)


# integer, boolean or index results, piecewise-constant functions, constants and shapes
_NOT_DIFFERENTIABLE = {
    "all", "allclose", "angle", "any", "arange", "argmax", "argmin", "argpartition", "argsort",
    "bartlett", "bincount", "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_not",
    "bitwise_or", "bitwise_right_shift", "bitwise_xor", "blackman", "ceil", "count_nonzero",
    "digitize", "empty", "empty_like", "equal", "eye", "floor", "floor_divide", "fmod",
    "full", "full_like", "gcd", "geomspace", "greater", "greater_equal", "hamming", "hanning",
    "heaviside", "histogram", "identity", "imag", "isclose", "isfinite", "isin", "isinf",
    "isnan", "isneginf", "isposinf", "isreal", "kaiser", "lcm", "left_shift", "less",
    "less_equal", "linspace", "logical_and", "logical_not", "logical_or", "logical_xor",
    "logspace", "mod", "nanargmax", "nanargmin", "nanmax", "nanmedian", "nanmin",
    "nanpercentile", "nanquantile", "ndim", "nextafter", "nonzero", "not_equal", "ones",
    "ones_like", "right_shift", "round", "searchsorted", "sign", "signbit", "size", "tri",
    "trunc", "unique", "unravel_index", "vectorize", "view", "zeros", "zeros_like",
}


def test_every_differentiable_numpy_name_has_a_gradient_check():
    checked = set(_UNARY) | set(_BINARY) | set(_ONE_ARG)
    assert set(K.numpy.__all__) - _NOT_DIFFERENTIABLE == checked
