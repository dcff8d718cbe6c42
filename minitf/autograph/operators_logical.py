"""Logical operators and conditional expressions of converted code, lazy as Python's:

    ag__.and_(lambda: a, lambda: b)     a and b   (b evaluated only when a is true)
    ag__.or_(lambda: a, lambda: b)      a or b
    ag__.not_(a)                        not a
    ag__.if_exp(t, lambda: a, lambda: b, 't')    a if t else b

On Python values they are exactly Python's operators. On a tensor they are staged: `and`/`or`
become `tf.cond` (the second operand runs only in the branch that needs it), `not` becomes
`tf.logical_not`, a conditional expression `tf.cond` over its two values.
"""
from minitf.autograph import operators_checks as checks
from minitf.ops import control_flow
from minitf.ops.compare import equal, logical_not
from minitf.ops.debugging import Assert

__all__ = ["and_", "or_", "not_", "eq", "not_eq", "if_exp", "assert_stmt"]


def not_(a):
    """`not a`; `tf.logical_not(a)` for a tensor."""
    if checks.is_tensor(a):
        return logical_not(a)
    return not a


def and_(a, b):
    """`a() and b()`, lazily; `tf.cond(a, b, lambda: a)` when `a()` is a tensor."""
    a_value = a()
    if checks.is_tensor(a_value):
        return control_flow.cond(a_value, b, lambda: a_value)
    return a_value and b()


def or_(a, b):
    """`a() or b()`, lazily; `tf.cond(a, lambda: a, b)` when `a()` is a tensor."""
    a_value = a()
    if checks.is_tensor(a_value):
        return control_flow.cond(a_value, lambda: a_value, b)
    return a_value or b()


def eq(a, b):
    """`a == b`; `tf.equal(a, b)` when either is a tensor (EQUALITY_OPERATORS feature)."""
    if checks.is_tensor(a) or checks.is_tensor(b):
        return equal(a, b)
    return a == b


def not_eq(a, b):
    """`a != b`, as `not_(eq(a, b))`."""
    return not_(eq(a, b))


def if_exp(cond, if_true, if_false, expr_repr):
    """`if_true() if cond else if_false()`; a tensor condition stages `tf.cond`, whose two
    values must agree in structure and dtype (errors name the condition, `expr_repr`)."""
    if not checks.is_tensor(cond):
        return if_true() if cond else if_false()
    values = {}

    def branch(function, name, other):
        def run():
            values[name] = function()
            if other in values:
                checks.verify_single_cond_var(expr_repr, values["true"], values["false"])
            return values[name]
        return run

    return control_flow.cond(cond, branch(if_true, "true", "false"),
                             branch(if_false, "false", "true"))


def assert_stmt(expression1, expression2):
    """`assert expression1, expression2()` (ASSERT_STATEMENTS feature): `tf.debugging.Assert`
    for a tensor condition, Python's assert otherwise."""
    if not callable(expression2):
        raise ValueError("{} must be a callable".format(expression2))
    if checks.is_tensor(expression1):
        return Assert(expression1, [expression2()])
    if not expression1:
        raise AssertionError(expression2())
    return None
