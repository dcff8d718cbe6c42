"""Parity rows for tf.math names filled in from TF 2.21's namespaces: the "no NaN" products and
quotients (multiply_no_nan, reciprocal_no_nan, xdivy, xlog1py) and the inverse hyperbolic
functions (acosh, asinh, atanh).

Operands mix both signs, +-0, ties, and for the "no NaN" ops infinities and NaN exactly where
TF promises a 0 (a zero y for multiply_no_nan, a zero x for xdivy and xlog1py); every floating
dtype plus dtypes TF refuses (integers, bool), and complex operands where TF has a kernel.
"""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, T, V
from parity_rows_core import complex_operands, elementwise_call
from parity_strategies import ALL_DTYPES, FLOATS, cases, operand_pairs, tensors, broadcast_pair, nonempty_shapes
from parity_table import Table

TABLE = Table()
add = TABLE.add
REFUSED = tuple(d for d in ALL_DTYPES if d not in FLOATS)


@st.composite
def pooled_pair(draw, x_pool, y_pool):
    """Two broadcasting operands of one floating dtype drawn from value pools (zeros, ties, and
    the specials where TF's op promises 0); one operand sometimes a variable."""
    dtype = draw(st.sampled_from(FLOATS))
    shape_x = draw(nonempty_shapes)
    shape_y = draw(broadcast_pair(shape_x))
    x = np.array(draw(st.lists(st.sampled_from(x_pool), min_size=int(np.prod(shape_x)),
                               max_size=int(np.prod(shape_x)))), dtype).reshape(shape_x)
    y = np.array(draw(st.lists(st.sampled_from(y_pool), min_size=int(np.prod(shape_y)),
                               max_size=int(np.prod(shape_y)))), dtype).reshape(shape_y)
    wrap = [T, V][draw(st.integers(0, 1))]
    return Case((wrap(x), T(y)) if draw(st.booleans()) else (T(x), wrap(y)))


FINITE = [-2.5, -1.0, -0.0, 0.0, 0.0, 0.5, 1.0, 1.0, 3.0]


def binary_row(name, x_pool, y_pool, low, high, complex_):
    """Broadcasting operands of every dtype (refused ones included) in [low, high], pooled special
    values, and complex operands in the box `complex_`; gradients compared."""
    add(name, st.one_of(operand_pairs(FLOATS + REFUSED, low=low, high=high).map(lambda p: Case(p)),
                        pooled_pair(x_pool, y_pool),
                        complex_operands(2, *complex_)),
        grad=1, call=elementwise_call(name))


binary_row("math.multiply_no_nan", FINITE + [np.inf, -np.inf, np.nan], FINITE, -4.0, 4.0,
           (-2.0, 2.0, 2.0))
binary_row("math.xdivy", FINITE, [-2.5, -1.0, 0.5, 1.0, 3.0, 0.0], 0.125, 4.0, (-2.0, 2.0, 2.0))
binary_row("math.xlog1py", FINITE, [-0.5, 0.0, 0.5, 1.0, 3.0], -0.875, 4.0, (0.125, 4.0, 2.0))


def unary_row(name, low, high, extra_pool, complex_=None, grad=2):
    """One tensor of every dtype (refused ones included) in [low, high], one of pooled values
    (ties, +-0, the domain's edges), and complex inputs in the box `complex_`."""
    @st.composite
    def pooled(draw):
        dtype = draw(st.sampled_from(FLOATS))
        shape = draw(nonempty_shapes)
        n = int(np.prod(shape))
        x = np.array(draw(st.lists(st.sampled_from(extra_pool), min_size=n, max_size=n)), dtype)
        return Case(((V if draw(st.booleans()) else T)(x.reshape(shape)),))
    found = [cases(tensors(FLOATS + REFUSED, low=low, high=high, variable=True)), pooled()]
    if complex_:
        found.append(complex_operands(1, *complex_))
    add(name, st.one_of(*found), grad=grad, call=elementwise_call(name))


unary_row("math.reciprocal_no_nan", -4.0, 4.0, [-2.5, -0.0, 0.0, 0.5, 0.5, 4.0], (-2.0, 2.0, 2.0))
unary_row("math.acosh", 1.125, 4.0, [1.5, 1.5, 2.0, 3.0, 1e4], (1.125, 4.0, 2.0))
unary_row("math.asinh", -4.0, 4.0, [-3.0, -0.0, 0.0, 0.5, 0.5, 1e4, -1e4], (-2.0, 2.0, 2.0))
unary_row("math.atanh", -0.875, 0.875, [-0.5, -0.0, 0.0, 0.25, 0.25, 0.75], (-0.875, 0.875, 1.0))

# gamma functions: TF has no complex kernels (an error case comes from the refused dtypes); the
# pools hold poles (0, -0, negative integers), ties, tiny and huge values, infinities and NaN
_GAMMA_POOL = [-2.5, -1.0, -0.0, 0.0, 0.5, 0.5, 1.0, 2.0, 7.25, 1e-3, 1e4, np.inf, -np.inf, np.nan]
unary_row("math.lgamma", -4.0, 4.0, _GAMMA_POOL)
unary_row("math.digamma", -4.0, 4.0, _GAMMA_POOL, grad=1)  # second order: polygamma(2, x), not written

# erfc: both signs, +-0, the approximations' seams (0.5, 4), deep tails (erfc(6) ~ 2e-17, and
# underflow beyond 27), infinities and NaN
unary_row("math.erfc", -4.0, 4.0, [-6.0, -4.0, -0.5, -0.0, 0.0, 0.5, 0.5, 4.0, 6.0, 27.5, np.inf, -np.inf, np.nan])


# -- tf.math.bincount -----------------------------------------------------------------------

@st.composite
def bincount_cases(draw):
    """`arr` of integer (accepted and refused), float or bool dtype, rank 0 to 3, values with ties
    and zeros (rarely a negative or the dtype's largest value); weights of each dtype (or of the
    wrong shape, or empty), minlength/maxlength, dtype, axis and binary_output."""
    dtype = draw(st.sampled_from(("int32", "int32", "int64", "int64", "float32", "bool", "uint8", "int16")))
    rank = draw(st.sampled_from((0, 1, 1, 2, 2, 3)))
    shape = tuple(draw(st.integers(0 if rank == 1 else 1, 4)) for _ in range(rank))
    n = int(np.prod(shape))
    pool = [0, 1, 1, 2, 5] + ([-1] if draw(st.integers(0, 7)) == 0 else [])
    arr = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), np.int64).reshape(shape)
    if dtype in ("int32", "int64") and n and draw(st.integers(0, 9)) == 0:
        arr.flat[0] = np.iinfo(dtype).max
    arr = arr.astype(dtype) if dtype != "float32" else (arr + 0.5).astype(dtype)
    kwargs = {}
    if draw(st.booleans()):
        w_dtype = draw(st.sampled_from(("float32", "float64", "int32", "int64", "float16")))
        w_shape = draw(st.sampled_from((shape, shape, (0,), (n + 1,))))
        kwargs["weights"] = T(np.array(draw(st.lists(st.sampled_from([-1.5, 0.0, 1.0, 2.0, 3.0]),
                                        min_size=int(np.prod(w_shape)), max_size=int(np.prod(w_shape)))),
                                       w_dtype).reshape(w_shape))
    for key in ("minlength", "maxlength"):
        if draw(st.integers(0, 2)) == 0:
            kwargs[key] = draw(st.sampled_from((0, 2, 7, -1)))
    if draw(st.integers(0, 2)) == 0:
        kwargs["dtype"] = draw(st.sampled_from(("int64", "float32", "float64", "float16")))
    if draw(st.booleans()):
        kwargs["axis"] = draw(st.sampled_from((0, -1, -1, 1, None)))
    if draw(st.integers(0, 3)) == 0:
        kwargs["binary_output"] = True
    return Case((T(arr),), kwargs)


def _bincount_call(lib, arr, dtype=None, **kwargs):
    if dtype is not None:
        kwargs["dtype"] = getattr(lib, dtype)
    return lib.math.bincount(arr, **kwargs)


add("math.bincount", bincount_cases(), grad=0, call=_bincount_call)


# -- tf.math.confusion_matrix -----------------------------------------------------------------

@st.composite
def confusion_cases(draw):
    """Labels and predictions of int or float dtype with ties and zeros (rarely negative, or at
    or beyond num_classes), one maybe with a trailing size-1 axis or another length; num_classes
    (int or float), weights (float or int, maybe the wrong length, maybe a variable) and dtype."""
    n = draw(st.integers(1, 5))
    dtype = draw(st.sampled_from(("int32", "int64", "float32")))
    pool = [0, 1, 1, 2, 3] + ([-1] if draw(st.integers(0, 7)) == 0 else [])
    labels = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype)
    m = n if draw(st.integers(0, 9)) else n + 1
    preds = np.array(draw(st.lists(st.sampled_from(pool), min_size=m, max_size=m)), dtype)
    which = draw(st.integers(0, 5))
    if which == 0:
        labels = labels[:, None]
    elif which == 1:
        preds = preds[:, None]
    kwargs = {}
    if draw(st.booleans()):
        kwargs["num_classes"] = draw(st.sampled_from((4, 5, 3, 4.0)))
    if draw(st.booleans()):
        w_dtype = draw(st.sampled_from(("float32", "float64", "int32")))
        k = m if draw(st.integers(0, 9)) else m + 1
        w = np.array(draw(st.lists(st.sampled_from([-1.5, 0.0, 0.5, 2.0]), min_size=k, max_size=k)), w_dtype)
        kwargs["weights"] = V(w) if w_dtype != "int32" and draw(st.booleans()) else T(w)
    if draw(st.booleans()):
        kwargs["dtype"] = draw(st.sampled_from(("float32", "float64", "int64")))
    return Case((T(labels), T(preds)), kwargs)


def _confusion_call(lib, labels, predictions, dtype=None, **kwargs):
    if dtype is not None:
        kwargs["dtype"] = getattr(lib, dtype)
    return lib.math.confusion_matrix(labels, predictions, **kwargs)


add("math.confusion_matrix", confusion_cases(), grad=1, call=_confusion_call)


# -- tf.math.invert_permutation, tf.math.zero_fraction -----------------------------------------

@st.composite
def permutation_cases(draw):
    """A permutation of 0..n-1 (n may be 0) as int32/int64, a Python list, or broken: a repeat, a
    value out of range (either side), rank 0 or 2, or a refused dtype."""
    n = draw(st.integers(0, 6))
    perm = list(draw(st.permutations(range(n))))
    broken = draw(st.integers(0, 5))
    if broken == 0 and n >= 2:
        perm[1] = perm[0]
    elif broken == 1 and n:
        perm[draw(st.integers(0, n - 1))] = draw(st.sampled_from((-1, n, n + 3)))
    dtype = draw(st.sampled_from(("int32", "int64", "list", "int16", "float32")))
    if dtype == "list":
        return Case((perm,))
    arr = np.array(perm, dtype)
    if broken == 2:
        arr = arr.reshape(1, -1) if n else np.array(0, dtype)
    return Case((T(arr),))


add("math.invert_permutation", permutation_cases(), grad=0)


@st.composite
def zero_fraction_cases(draw):
    """Values of every dtype (bool, complex, strings included) with zeros, -0 and NaN, empty
    shapes too."""
    dtype = draw(st.sampled_from(ALL_DTYPES + ("complex64", "string")))
    shape = draw(st.sampled_from(((), (0,), (3,), (2, 3), (2, 0))))
    n = int(np.prod(shape))
    if dtype == "string":
        return Case((T(np.array(draw(st.lists(st.sampled_from([b"", b"a", b"0"]), min_size=n, max_size=n)),
                                object).reshape(shape)),))
    pool = [0, 0, 1, 2] + ([-0.0, np.nan] if dtype.startswith("float") else [])
    arr = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), np.float64).reshape(shape)
    return Case((T(arr.astype(dtype)),))


add("math.zero_fraction", zero_fraction_cases(), grad=0)


# -- tf.math.nextafter, tf.math.lbeta -----------------------------------------------------------

add("math.nextafter", st.one_of(operand_pairs(FLOATS + ("int32",)).map(lambda p: Case(p)),
                                pooled_pair([-1.0, -0.0, 0.0, 1.0, np.inf, np.nan, 3e38],
                                            [-1.0, 0.0, 1.0, 1.0, -np.inf, np.nan])), grad=0)
add("math.lbeta", st.one_of(cases(tensors(FLOATS + REFUSED, low=0.125, high=4.0, variable=True)),
                            cases(tensors(FLOATS, shape=st.sampled_from(((2, 0), (0,), (3, 1))), variable=True)),
                            cases(tensors(("float64",), low=-2.5, high=4.0, variable=True))), grad=2)


# -- tf.math.polyval ---------------------------------------------------------------------------

@st.composite
def polyval_cases(draw):
    """A list of 0-4 coefficients (Python floats or tensors/variables of x's dtype, one maybe
    broadcasting against x) and x of each float dtype (or int32 with int coefficients, or a
    mismatched dtype); rarely a tuple of coefficients (TF's ValueError)."""
    dtype = draw(st.sampled_from(FLOATS + ("int32",)))
    shape = draw(nonempty_shapes)
    x = draw(tensors((dtype,), shape=shape, low=-2.0, high=2.0, variable=True))
    coeffs = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 3))
        if kind == 0:
            coeffs.append(draw(st.sampled_from([-1.5, 0.0, 2.0])) if dtype != "int32" else draw(st.sampled_from([-1, 0, 2])))
        else:
            c_shape = shape[-1:] if kind == 1 else ()
            coeffs.append(draw(tensors((dtype,) if draw(st.integers(0, 7)) else FLOATS, shape=c_shape,
                                       low=-2.0, high=2.0, variable=True)))
    if draw(st.integers(0, 9)) == 0:
        coeffs = tuple(coeffs)
    return Case((coeffs, x))


add("math.polyval", polyval_cases(), grad=2)


# -- tf.math.cumulative_logsumexp ----------------------------------------------------------------

@st.composite
def cumulative_logsumexp_cases(draw):
    """x of each dtype (refused ones too) with ties and both signs, an axis in or out of range,
    exclusive and reverse."""
    x = draw(tensors(FLOATS + ("int32",), shape=nonempty_shapes, variable=True))
    ndim = len(x.value.shape)
    kwargs = {}
    if draw(st.booleans()):
        kwargs["axis"] = draw(st.integers(-ndim - 1, ndim)) if ndim else draw(st.sampled_from((0, -1)))
    for key in ("exclusive", "reverse"):
        if draw(st.booleans()):
            kwargs[key] = draw(st.booleans())
    return Case((x,), kwargs)


add("math.cumulative_logsumexp", cumulative_logsumexp_cases(), grad=1)


# -- tf.bitwise.left_shift, right_shift ---------------------------------------------------------

@st.composite
def shift_cases(draw):
    """Integers of each dtype (both signs, extremes) shifted by counts in and out of [0, bits)
    (negative and too large: TF clamps), with broadcasting; floats are refused."""
    dtype = draw(st.sampled_from(("int8", "int16", "int32", "int64", "uint8", "uint16", "float32")))
    shape = draw(nonempty_shapes)
    n = int(np.prod(shape))
    if dtype == "float32":
        pool = [1.0, -2.0]
    else:
        info = np.iinfo(dtype)
        pool = [0, 1, 5, 100, int(info.max), int(info.min)] + ([-3, -1] if info.min < 0 else [])
    x = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))).astype(dtype).reshape(shape)
    counts = [0, 1, 2, 7, 9, 63, 70] + ([-1] if not dtype.startswith("uint") else [])
    y_shape = draw(broadcast_pair(shape))
    m = int(np.prod(y_shape))
    y = np.array(draw(st.lists(st.sampled_from(counts), min_size=m, max_size=m))).astype(dtype).reshape(y_shape)
    return Case((T(x), T(y)))


add("bitwise.left_shift", shift_cases(), grad=0)
add("bitwise.right_shift", shift_cases(), grad=0)


# -- tf.nn.crelu ---------------------------------------------------------------------------------

@st.composite
def crelu_cases(draw):
    """x of each dtype (floats, signed ints, refused unsigned/bool) with both signs and ties, and
    an axis in or out of range."""
    x = draw(tensors(FLOATS + ("int32", "int64", "uint8"), shape=nonempty_shapes, variable=True))
    ndim = len(x.value.shape)
    kwargs = {}
    if draw(st.booleans()):
        kwargs["axis"] = draw(st.integers(-ndim - 1, ndim)) if ndim else draw(st.sampled_from((0, -1)))
    return Case((x,), kwargs)


add("nn.crelu", crelu_cases(), grad=2)
