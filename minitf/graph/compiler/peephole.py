"""Reductions written as the C calls numpy makes for them.

`numpy.sum(a, ...)`, `a.sum(...)` and their kin are Python functions that, for an ndarray
without `initial` or `where`, end in one `ufunc.reduce(a, axis, dtype, out, keepdims=...)`;
`numpy.mean` ends in `add.reduce` and a `true_divide` by the element count. On the small arrays
of a training step their Python frames cost more than the reduction. A plan calls what numpy
would have called, with the same arguments, so the bits are the same; only where the recorded
value was an ndarray (numpy scalars take another route) and only for the arguments listed here.
"""
import numpy as np

from minitf.graph.compiler.recording import Reg

__all__ = ["direct_reductions"]

_REDUCE = {np.sum: np.add.reduce, np.prod: np.multiply.reduce, np.max: np.maximum.reduce,
           np.min: np.minimum.reduce, np.amax: np.maximum.reduce, np.amin: np.minimum.reduce}
_REDUCE_METHODS = {"sum": np.add.reduce, "prod": np.multiply.reduce, "max": np.maximum.reduce,
                   "min": np.minimum.reduce}
_ARGUMENTS = ("axis", "dtype", "out", "keepdims")
_FLOAT_TYPES = (np.float32, np.float64)


def _mean(a, axis, keepdims, count):
    """numpy's `_methods._mean` for a float32/float64 ndarray, no dtype, out or where."""
    total = np.add.reduce(a, axis, None, None, keepdims, where=True)
    if isinstance(total, np.ndarray):
        return np.true_divide(total, count, out=total, casting="unsafe", subok=False)
    return total.dtype.type(total / count)


def _named(args, kwargs):
    """{argument name: value} of a reduction called as (a, axis, dtype, out, keepdims), or None
    when it has arguments this pass leaves alone."""
    if len(args) > 1 + len(_ARGUMENTS):
        return None
    named = dict(zip(_ARGUMENTS, args[1:]))
    for key, value in kwargs.items():
        if key not in _ARGUMENTS or key in named:
            return None
        named[key] = value
    return named


def _count(shape, axis):
    axes = range(len(shape)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    count = 1
    for ax in axes:
        if not isinstance(ax, int) or not -len(shape) <= ax < max(len(shape), 1):
            return None
        count *= shape[ax]
    return np.intp(count)


def _rewrite(step, types):
    kind = step[0]
    if kind == "call":
        fn, args, kwargs, out = step[1], step[2], step[3], step[4]
        if not args or type(args[0]) is not Reg or types.get(args[0].index, (None,))[0] is not np.ndarray:
            return step
        named = _named(args, kwargs)
        if named is None or any(type(v) is Reg for v in named.values()):
            return step
        target = args[0]
    elif kind == "method":
        fn, target, args, kwargs, out = step[1], step[2], step[3], step[4], step[5]
        if types.get(target.index, (None,))[0] is not np.ndarray:
            return step
        named = _named((target,) + tuple(args), kwargs)
        if named is None or any(type(v) is Reg for v in named.values()):
            return step
    else:
        return step
    reduce = _REDUCE.get(fn) if kind == "call" and not isinstance(fn, str) else _REDUCE_METHODS.get(fn)
    if reduce is not None:
        keepdims = {"keepdims": named["keepdims"]} if "keepdims" in named else {}
        return ("call", reduce, (target, named.get("axis"), named.get("dtype"), named.get("out")),
                keepdims, out)
    is_mean = fn == "mean" if kind == "method" else fn is np.mean
    if is_mean and set(named) <= {"axis", "keepdims"}:
        _, dtype, shape = types[target.index]
        count = _count(shape, named.get("axis"))
        if dtype.type in _FLOAT_TYPES and count:
            return ("call", _mean, (target, named.get("axis"), bool(named.get("keepdims", False)), count),
                    {}, out)
    return step


def direct_reductions(program):
    """The program with its reductions calling numpy's C reductions directly."""
    program.steps = [_rewrite(step, program.types) for step in program.steps]
    return program
