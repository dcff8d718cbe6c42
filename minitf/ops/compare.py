"""Comparisons, logic, bitwise ops and value tests (is_nan, ...): elementwise ops whose results
are bool or integer tensors, so none of them has a gradient.

They sit below `minitf.ops.math`, whose gradient rules use them; tf.math re-exports them from
there.
"""
from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.ops._core import (FLOATS, INTS, REAL, Op, Tensor, Variable, read, array_module,
                              as_tensor, binary, graph_call, is_graph_value, tracing)

__all__ = [
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
    "logical_or", "logical_not", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "invert",
    "is_nan", "is_finite", "is_inf",
]


# -- comparisons -------------------------------------------------------------------------------

def _compare(api, op, x, y, fn):
    if tracing[0] and (is_graph_value(x) or is_graph_value(y)):
        return graph_call(api, (x, y), {})
    x, y = binary(x, y, op)
    try:
        return Tensor(fn(array_module(x._value), x._value, y._value))
    except ValueError as e:
        raise op.shape_error(e, x, y) from None


EQUAL = Op("Equal")


def equal(x, y, name=None):
    """x == y, elementwise (a bool tensor)."""
    return _compare(equal, EQUAL, x, y, lambda xp, a, b: xp.equal(a, b))


NOT_EQUAL = Op("NotEqual")


def not_equal(x, y, name=None):
    """x != y, elementwise."""
    return _compare(not_equal, NOT_EQUAL, x, y, lambda xp, a, b: xp.not_equal(a, b))


LESS = Op("Less", dtypes=REAL)


def less(x, y, name=None):
    """x < y, elementwise."""
    return _compare(less, LESS, x, y, lambda xp, a, b: xp.less(a, b))


LESS_EQUAL = Op("LessEqual", dtypes=REAL)


def less_equal(x, y, name=None):
    """x <= y, elementwise."""
    return _compare(less_equal, LESS_EQUAL, x, y, lambda xp, a, b: xp.less_equal(a, b))


GREATER = Op("Greater", dtypes=REAL)


def greater(x, y, name=None):
    """x > y, elementwise."""
    return _compare(greater, GREATER, x, y, lambda xp, a, b: xp.greater(a, b))


GREATER_EQUAL = Op("GreaterEqual", dtypes=REAL)


def greater_equal(x, y, name=None):
    """x >= y, elementwise."""
    return _compare(greater_equal, GREATER_EQUAL, x, y, lambda xp, a, b: xp.greater_equal(a, b))


# -- logic ---------------------------------------------------------------------------------------

def _to_bool(x):
    """Input of a logical op: Python values must convert to bool (TypeError otherwise)."""
    t = read(x)
    return as_tensor(t, dtype=None if isinstance(t, Tensor) else dtypes.bool)


def _as_bool(t, op, index):
    """Tensor input #index of a logical op, which must already be bool (InvalidArgumentError)."""
    t = _to_bool(t)
    if t._value.dtype.kind != "b":
        raise op.invalid(
            f"cannot compute {op.name} as input #{index}(zero-based) was expected to be a bool "
            f"tensor but is a {t.dtype.name} tensor; compare or cast it to tf.bool first")
    return t


def _logical(op, x, y, fn):
    if isinstance(x, (Tensor, Variable)) and isinstance(y, (Tensor, Variable)):
        x, y = _as_bool(x, op, 0), _as_bool(y, op, 1)
    else:
        # as TF's eager conversion: a Python scalar that is not a bool fails first (TypeError);
        # otherwise each input is converted to bool in turn, tensors too (an int tensor is a
        # ValueError, a list of ints a TypeError)
        for v in (x, y):
            if isinstance(v, (int, float, complex, str)) and not isinstance(v, bool):
                as_tensor(v, dtype=dtypes.bool)
        x, y = as_tensor(read(x), dtype=dtypes.bool), as_tensor(read(y), dtype=dtypes.bool)
    try:
        return Tensor(fn(array_module(x._value), x._value, y._value))
    except ValueError as e:
        raise op.shape_error(e, x, y) from None


LOGICAL_AND = Op("LogicalAnd")


@dispatch.add_dispatch_support
def logical_and(x, y, name=None):
    """Elementwise AND of bool tensors."""
    return _logical(LOGICAL_AND, x, y, lambda xp, a, b: xp.logical_and(a, b))


LOGICAL_OR = Op("LogicalOr")


@dispatch.add_dispatch_support
def logical_or(x, y, name=None):
    """Elementwise OR of bool tensors."""
    return _logical(LOGICAL_OR, x, y, lambda xp, a, b: xp.logical_or(a, b))


LOGICAL_XOR = Op("LogicalXor")


@dispatch.add_dispatch_support
def logical_xor(x, y, name=None):
    """Elementwise XOR of bool tensors."""
    return _logical(LOGICAL_XOR, x, y, lambda xp, a, b: xp.logical_xor(a, b))


LOGICAL_NOT = Op("LogicalNot")


@dispatch.add_dispatch_support
def logical_not(x, name=None):
    """Elementwise NOT of a bool tensor."""
    x = _as_bool(x, LOGICAL_NOT, 0)
    return Tensor(array_module(x._value).logical_not(x._value))


# -- bitwise ---------------------------------------------------------------------------------------

BITWISE_AND = Op("BitwiseAnd", dtypes=INTS)


@dispatch.add_dispatch_support
def bitwise_and(x, y, name=None):
    """Elementwise bitwise AND of integer tensors."""
    x, y = binary(x, y, BITWISE_AND)
    try:
        return Tensor(x._value & y._value)
    except ValueError as e:
        raise BITWISE_AND.shape_error(e, x, y) from None


BITWISE_OR = Op("BitwiseOr", dtypes=INTS)


@dispatch.add_dispatch_support
def bitwise_or(x, y, name=None):
    """Elementwise bitwise OR of integer tensors."""
    x, y = binary(x, y, BITWISE_OR)
    try:
        return Tensor(x._value | y._value)
    except ValueError as e:
        raise BITWISE_OR.shape_error(e, x, y) from None


BITWISE_XOR = Op("BitwiseXor", dtypes=INTS)


@dispatch.add_dispatch_support
def bitwise_xor(x, y, name=None):
    """Elementwise bitwise XOR of integer tensors."""
    x, y = binary(x, y, BITWISE_XOR)
    try:
        return Tensor(x._value ^ y._value)
    except ValueError as e:
        raise BITWISE_XOR.shape_error(e, x, y) from None


INVERT = Op("Invert", dtypes=INTS)


@dispatch.add_dispatch_support
def invert(x, name=None):
    """Elementwise bitwise NOT of an integer tensor (`~` on a bool tensor is logical_not)."""
    x = as_tensor(x)
    INVERT.check_dtype(x)
    return Tensor(~x._value)


# -- value tests -----------------------------------------------------------------------------------

IS_NAN = Op("IsNan", dtypes=FLOATS)


@dispatch.add_dispatch_support
def is_nan(x, name=None):
    """True where x is NaN."""
    x = as_tensor(x)
    IS_NAN.check_dtype(x)
    return Tensor(array_module(x._value).isnan(x._value))


IS_FINITE = Op("IsFinite", dtypes=FLOATS)


@dispatch.add_dispatch_support
def is_finite(x, name=None):
    """True where x is neither infinite nor NaN."""
    x = as_tensor(x)
    IS_FINITE.check_dtype(x)
    return Tensor(array_module(x._value).isfinite(x._value))


IS_INF = Op("IsInf", dtypes=FLOATS)


@dispatch.add_dispatch_support
def is_inf(x, name=None):
    """True where x is +inf or -inf."""
    x = as_tensor(x)
    IS_INF.check_dtype(x)
    return Tensor(array_module(x._value).isinf(x._value))
