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


def unary_row(name, low, high, extra_pool, complex_):
    """One tensor of every dtype (refused ones included) in [low, high], one of pooled values
    (ties, +-0, the domain's edges), and complex inputs in the box `complex_`."""
    @st.composite
    def pooled(draw):
        dtype = draw(st.sampled_from(FLOATS))
        shape = draw(nonempty_shapes)
        n = int(np.prod(shape))
        x = np.array(draw(st.lists(st.sampled_from(extra_pool), min_size=n, max_size=n)), dtype)
        return Case(((V if draw(st.booleans()) else T)(x.reshape(shape)),))
    add(name, st.one_of(cases(tensors(FLOATS + REFUSED, low=low, high=high, variable=True)), pooled(),
                        complex_operands(1, *complex_)), grad=2, call=elementwise_call(name))


unary_row("math.reciprocal_no_nan", -4.0, 4.0, [-2.5, -0.0, 0.0, 0.5, 0.5, 4.0], (-2.0, 2.0, 2.0))
unary_row("math.acosh", 1.125, 4.0, [1.5, 1.5, 2.0, 3.0, 1e4], (1.125, 4.0, 2.0))
unary_row("math.asinh", -4.0, 4.0, [-3.0, -0.0, 0.0, 0.5, 0.5, 1e4, -1e4], (-2.0, 2.0, 2.0))
unary_row("math.atanh", -0.875, 0.875, [-0.5, -0.0, 0.0, 0.25, 0.25, 0.75], (-0.875, 0.875, 1.0))
