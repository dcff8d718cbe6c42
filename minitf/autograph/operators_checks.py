"""The checks AutoGraph makes on staged control flow, with TF's error types and messages: a
condition that is no boolean scalar, a branch that leaves a variable undefined or of another
dtype or structure than the other branch, a loop variable that is undefined before the loop or
changes dtype, structure or shape across an iteration.
"""
import numpy as np

from minitf.nest import nest
from minitf.autograph.operators_variables import Undefined, UndefinedReturnValue
from minitf.convert import convert_to_tensor
from minitf.ops.shaping import reshape
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.variable import Variable

__all__ = ["is_tensor", "is_none_or_undefined", "verify_condition", "verify_loop_init_vars",
           "verify_loop_vars", "verify_branch_vars", "verify_cond_vars", "verify_single_cond_var",
           "LEGAL_LOOP_TYPES"]

LEGAL_LOOP_TYPES = "Tensor, int, float, bool or a list, tuple or dict thereof"
_PYTHON_SCALARS = (bool, int, float, str, np.ndarray)


def is_tensor(value):
    """Whether control flow on `value` is staged: a tensor (eager or symbolic) or a variable."""
    return isinstance(value, (Tensor, Variable))


def is_none_or_undefined(value):
    """Whether a state value stands for no value (None, Undefined, UndefinedReturnValue)."""
    return value is None or isinstance(value, (Undefined, UndefinedReturnValue))


def verify_condition(cond, tag):
    """`cond` as a boolean scalar tensor, or ValueError naming the statement (`tag`)."""
    hint = "to check for None, use `is not None`"
    cond = convert_to_tensor(cond)
    if cond.dtype.name != "bool":
        raise ValueError(f"condition of {tag} expected to be `tf.bool` scalar, got {cond}; to use "
                         f"as boolean Tensor, use `tf.cast`; {hint}")
    shape = cond.shape
    if shape.rank is None:
        return reshape(cond, ())
    if shape.rank > 0:
        known = [d for d in shape.as_list() if d is not None]
        if np.prod(known) > 1:
            raise ValueError(f"condition of {tag} expected to be `tf.bool` scalar, got {cond}; {hint}")
        return reshape(cond, ())
    return cond


def verify_loop_init_vars(init_vars, symbol_names, first_iter_vars=None, extra_message=None):
    """ValueError for a loop variable that is None or undefined before the loop."""
    if not symbol_names:
        return
    if first_iter_vars is None:
        first_iter_vars = (None,) * len(symbol_names)
    for name, value, first in zip(symbol_names, init_vars, first_iter_vars):
        if isinstance(value, UndefinedReturnValue):
            if first:
                raise ValueError(f"the return value from a TensorFlow loop may only be a "
                                 f"{LEGAL_LOOP_TYPES}; got {type(first)}")
            raise NotImplementedError(
                "a return statement cannot be placed inside this TensorFlow loop; this may happen "
                "if a return statement depends on a static Python condition such as a "
                "hyperparameter")
        message = None
        if value is None:
            message = f"'{name}' is not allowed to be None before the loop"
        elif isinstance(value, Undefined):
            message = f"'{name}' must be defined before the loop"
            if extra_message:
                message += "\n" + extra_message
        if message is not None:
            raise ValueError(message)


def _as_tensor_if_python(value):
    return convert_to_tensor(value) if isinstance(value, _PYTHON_SCALARS) else value


def _is_subshape(left, right):
    """Whether `left` is at least as specific as `right`."""
    if right.rank is None:
        return True
    if left.rank != right.rank:
        return False
    return all(r is None or l == r for l, r in zip(left.as_list(), right.as_list()))


def _verify_single_loop_var(name, check_shape, init, entry, exit_, shape_invariant):
    if exit_ is None:
        raise ValueError(f"'{name}' is None at the end of the iteration.")
    init, entry, exit_ = (_as_tensor_if_python(v) for v in (init, entry, exit_))
    if not is_tensor(entry) or not is_tensor(exit_):
        return
    if entry.dtype != exit_.dtype:
        raise TypeError(f"'{name}' has dtype {entry.dtype.name} before the loop, but dtype "
                        f"{exit_.dtype.name} after one iteration")
    if not check_shape:
        return
    if shape_invariant is None:
        if not _is_subshape(exit_.shape, entry.shape):
            raise ValueError(f"'{name}' has shape {entry.shape} before the loop, but shape "
                             f"{exit_.shape} after one iteration. Use "
                             f"tf.autograph.experimental.set_loop_options to set shape invariants.")
        return
    invariant = TensorShape(shape_invariant)
    if not _is_subshape(init.shape, invariant):
        raise ValueError(f"'{name}' has shape {init.shape} before the loop, which does not conform "
                         f"with the shape invariant {invariant}.")
    if not _is_subshape(exit_.shape, invariant):
        raise ValueError(f"'{name}' has shape {exit_.shape} after one iteration, which does not "
                         f"conform with the shape invariant {invariant}.")


def _same_structure(a, b):
    nest.assert_same_structure(a, b, expand_composites=True)


def verify_loop_vars(init_vars, entry_vars, exit_vars, symbol_names, opts, check_shapes=True):
    """TypeError/ValueError when a loop variable changes structure, dtype or (without a shape
    invariant) shape across an iteration."""
    invariants = (opts.get("shape_invariants") if check_shapes else None) or \
        (None,) * len(symbol_names)
    for name, init, entry, exit_, invariant in zip(symbol_names, init_vars, entry_vars,
                                                   exit_vars, invariants):
        for first, second in ((init, entry), (entry, exit_)):
            try:
                _same_structure(first, second)
            except (ValueError, TypeError) as e:
                raise TypeError(f"'{name}' does not have the same nested structure after one "
                                f"iteration.\n\n{e}") from e
        flat_init = nest.flatten(init)
        if not nest.is_nested(init):
            flat_invariants = [invariant]
        elif invariant is not None and nest.is_nested(invariant):
            try:
                _same_structure(init, invariant)
            except (ValueError, TypeError) as e:
                raise TypeError(f"'{name}' does not have the same nested structure as its "
                                f"corresponding shape invariant.\n\n{e}") from e
            flat_invariants = nest.flatten(invariant)
        else:
            flat_invariants = [None] * len(flat_init)
        for i, e, x, s in zip(flat_init, nest.flatten(entry), nest.flatten(exit_),
                              flat_invariants):
            _verify_single_loop_var(name, check_shapes, i, e, x, s)


def verify_single_cond_var(name, body_var, orelse_var):
    """ValueError for None in a branch, TypeError when the branches' dtypes differ."""
    if body_var is None:
        raise ValueError(f"'{name}' is None at the end of the main branch.")
    if orelse_var is None:
        raise ValueError(f"'{name}' is None at the end of the else branch.")
    body_var, orelse_var = _as_tensor_if_python(body_var), _as_tensor_if_python(orelse_var)
    if not is_tensor(body_var) or not is_tensor(orelse_var):
        return
    if body_var.dtype != orelse_var.dtype:
        raise TypeError(f"'{name}' has dtype {body_var.dtype.name} in the main branch, but dtype "
                        f"{orelse_var.dtype.name} in the else branch")


def verify_branch_vars(values, symbol_names, branch_name):
    """ValueError for a variable a branch leaves undefined (or a missing return)."""
    for name, value in zip(symbol_names, values):
        if isinstance(value, Undefined):
            raise ValueError(f"'{name}' must also be initialized in the {branch_name} branch")
        if isinstance(value, UndefinedReturnValue):
            raise ValueError(f"the {branch_name} branch must also have a return statement.")


def verify_cond_vars(body_vars, orelse_vars, symbol_names):
    """The two branches' values agree in structure and dtypes."""
    for name, body_var, orelse_var in zip(symbol_names, body_vars, orelse_vars):
        try:
            _same_structure(body_var, orelse_var)
        except (ValueError, TypeError) as e:
            raise TypeError(f"'{name}' must have the same nested structure in the main and else "
                            f"branches:\n\n{e}") from e
        for b, o in zip(nest.flatten(body_var), nest.flatten(orelse_var)):
            verify_single_cond_var(name, b, o)
