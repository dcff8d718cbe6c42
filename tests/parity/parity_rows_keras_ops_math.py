"""Rows for keras.ops' elementwise functions (arithmetic, exponentials, trigonometry, rounding),
comparisons, logic, bitwise ops, where/select/clip and the NaN tests, against Keras 3 on TF.

Operands come in every common dtype, as Python scalars and lists (weak types in Keras'
promotion) and in mixed dtypes, so the rows pin Keras' result dtypes as well as values.
"""
import numpy as np
from hypothesis import strategies as st

from parity_kops import EVERY, NUMERIC, extremes, operand, pair_cases, unary_cases
from parity_oracle import Case, T
from parity_strategies import FLOATS, INTS, operand_pairs, tensors, values
from parity_table import Table

TABLE = Table()
add = TABLE.add
P = "keras.ops."

# -- unary ----------------------------------------------------------------------------------

for _name in ("exp", "exp2", "expm1", "sin", "cos", "sinh", "cosh", "tanh", "arctan", "arcsinh",
              "deg2rad", "rad2deg", "cbrt", "i0"):
    add(P + _name, unary_cases(low=-3.0, high=3.0), grad=2)
add(P + "sinc", unary_cases(low=-3.0, high=3.0), grad=1)
add(P + "tan", unary_cases(low=-1.25, high=1.25), grad=2)
for _name in ("arcsin", "arccos", "arctanh"):
    add(P + _name, unary_cases(low=-0.875, high=0.875), grad=2)
add(P + "arccosh", unary_cases(low=1.125, high=4.0), grad=2)
for _name in ("log", "log10", "log2", "log1p", "sqrt"):
    add(P + _name, unary_cases(low=0.125, high=4.0), grad=2)
add(P + "reciprocal", unary_cases(FLOATS, low=0.125, high=4.0), grad=2)
for _name in ("absolute", "abs", "fabs", "negative", "square", "sign"):
    add(P + _name, unary_cases(EVERY if _name != "negative" else NUMERIC, extreme=True),
        grad=1 if _name != "square" else 2)
for _name in ("floor", "ceil", "trunc"):
    add(P + _name, unary_cases(extreme=True), grad=1)
add(P + "round", st.tuples(operand(NUMERIC, low=-40.0, high=40.0),
                           st.sampled_from([0, 1, 2, -1])).map(Case), grad=1)
for _name in ("isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "isreal"):
    add(P + _name, st.one_of(unary_cases(), unary_cases(FLOATS, extreme=True),
                             st.just(Case((T(np.array([np.nan, np.inf, -np.inf, -0.0, 0.0],
                                                      np.float32)),)))))
add(P + "nan_to_num", st.one_of(
    unary_cases(),
    st.tuples(st.just(T(np.array([np.nan, np.inf, -np.inf, 1.5], np.float32))),
              st.sampled_from([0.0, -1.0]), st.sampled_from([None, 9.0]),
              st.sampled_from([None, -9.0])).map(Case)), grad=1)
for _name in ("real", "imag", "conj", "conjugate", "angle"):
    add(P + _name, unary_cases(NUMERIC), grad=1 if _name != "angle" else 0)

# -- binary arithmetic -------------------------------------------------------------------------

for _name in ("add", "subtract", "multiply", "maximum", "minimum"):
    add(P + _name, pair_cases(), grad=2 if _name in ("add", "subtract", "multiply") else 1)
for _name in ("divide", "true_divide"):
    add(P + _name, pair_cases(low=0.125), grad=2)
add(P + "divide_no_nan", pair_cases(low=0.125), grad=1)
add(P + "power", pair_cases(low=0.25, high=2.0), grad=1)
add(P + "floor_divide", pair_cases(NUMERIC, low=0.125), grad=0)
for _name in ("mod", "fmod"):
    add(P + _name, pair_cases(NUMERIC, low=0.125), grad=0)
for _name in ("fmax", "fmin"):
    add(P + _name, st.one_of(pair_cases(NUMERIC), st.just(Case((
        T(np.array([np.nan, 1.0, np.nan], np.float32)), T(np.array([2.0, np.nan, np.nan],
                                                                   np.float32)))))), grad=1)
for _name in ("arctan2", "hypot", "logaddexp", "logaddexp2"):
    add(P + _name, pair_cases(), grad=1)
add(P + "heaviside", pair_cases(NUMERIC), grad=0)
add(P + "ldexp", st.tuples(operand(FLOATS + ("int32",)),
                           tensors(("int8", "int32", "int64"), shape=st.just(()), low=-3,
                                   high=4)).map(Case), grad=1)
add(P + "nextafter", pair_cases(NUMERIC))

# -- comparisons and logic ----------------------------------------------------------------------

for _name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
    add(P + _name, pair_cases())
for _name in ("logical_and", "logical_or", "logical_xor"):
    add(P + _name, pair_cases())
add(P + "logical_not", unary_cases())
add(P + "isclose", st.one_of(pair_cases(), st.tuples(
    tensors(FLOATS, shape=(3,)), tensors(FLOATS, shape=(3,)), st.sampled_from([1e-5, 0.5]),
    st.sampled_from([1e-8, 1.0]), st.booleans()).map(Case)))
add(P + "allclose", st.one_of(pair_cases(), st.tuples(
    tensors(FLOATS, shape=(3,)), tensors(FLOATS, shape=(3,)), st.sampled_from([1e-5, 0.5]),
    st.sampled_from([1e-8, 1.0]), st.booleans()).map(Case)))

# -- bitwise -------------------------------------------------------------------------------------

_BITS = INTS + ("bool",)
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    add(P + _name, pair_cases(_BITS, low=-100, high=100))
for _name in ("bitwise_invert", "bitwise_not"):
    add(P + _name, unary_cases(_BITS, low=-100, high=100, extreme=True))


@st.composite
def shifts(draw):
    dtype = draw(st.sampled_from(("int8", "int16", "int32", "int64", "uint8")))
    x = T(draw(values(dtype, draw(st.sampled_from([(), (3,), (2, 2)])), -50, 50)))
    bits = np.iinfo(dtype).bits
    if draw(st.booleans()):
        return Case((x, draw(st.integers(0, bits - 1))))
    return Case((x, T(draw(values(dtype, np.asarray(x.value).shape, 0, bits - 1)))))


for _name in ("bitwise_left_shift", "bitwise_right_shift", "left_shift", "right_shift"):
    add(P + _name, shifts())


@st.composite
def gcd_pairs(draw):
    dtype = draw(st.sampled_from(("int8", "int16", "int32", "int64", "uint8")))
    shape = draw(st.sampled_from([(), (4,), (2, 3)]))
    a = T(draw(values(dtype, shape, -60, 60)))
    b = T(draw(values(dtype, shape, -60, 60)))
    return Case((a, b))


add(P + "gcd", st.one_of(gcd_pairs(), st.just(Case((T(np.array([1.5])), T(np.array([2.0])))))))
add(P + "lcm", st.one_of(gcd_pairs(), st.just(Case((T(np.array([1.5])), T(np.array([2.0])))))))

# -- where, select, clip --------------------------------------------------------------------------


@st.composite
def where_cases(draw):
    x1, x2 = draw(operand_pairs(EVERY))
    shape = np.shape(getattr(x1, "value", x1))
    cond = T(draw(values("bool", shape)))
    if draw(st.integers(0, 5)) == 0:
        return Case((cond,))
    return Case((cond, x1, x2))


add(P + "where", where_cases(), grad=1)


@st.composite
def select_cases(draw):
    shape = draw(st.sampled_from([(3,), (2, 2)]))
    n = draw(st.integers(1, 3))
    conds = [T(draw(values("bool", shape))) for _ in range(n)]
    dtype = draw(st.sampled_from(NUMERIC))
    choices = [T(draw(values(draw(st.sampled_from([dtype, dtype, "int32"])), shape)))
               for _ in range(n)]
    kwargs = {"default": draw(st.sampled_from([0, 1.5, -2]))} if draw(st.booleans()) else {}
    return Case((conds, choices), kwargs)


add(P + "select", select_cases(), grad=1)
add(P + "clip", st.tuples(st.one_of(operand(EVERY), extremes()), st.sampled_from([-1.0, 0, -2.5, -3]),
                          st.sampled_from([1.0, 2, 0.5, 3])).map(Case), grad=1)


def _half_sinc_gradient(case, verdict):
    x = case.args[0]
    a = np.asarray(getattr(x, "value", x))
    return verdict.kind == "value_mismatch" and a.dtype == np.float16


TABLE.known(P + "sinc", lambda c, v: _half_sinc_gradient(c, v) and v is not None,
            "INTENTIONAL: float16 gradients of sin(pi x) / (pi x): two nearly equal terms cancel, "
            "so the float16 result depends on the order of the rounded operations")


def _half_broadcast_sum(case, verdict):
    shapes = [np.shape(getattr(a, "value", a)) for a in case.args]
    halves = [np.asarray(getattr(a, "value", 0)).dtype == np.float16 for a in case.args]
    return verdict.kind == "value_mismatch" and "float16" in verdict.detail and any(halves) \
        and len(set(shapes)) > 1


for _name in ("divide", "true_divide"):
    TABLE.known(P + _name, _half_broadcast_sum,
                "INTENTIONAL: float16 gradients with respect to a broadcast operand are sums of "
                "many float16 terms; TF and minitf add them in different orders (second order "
                "amplifies it past float16's tolerance)")
