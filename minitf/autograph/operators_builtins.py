"""Python builtins called from converted code, with TF's overloads for tensors and datasets
(`ag__.converted_call(len, (x,), ...)` lands here): `len` of a tensor reads its first
dimension, `range` of tensors is `tf.range`, `abs`/`int`/`float` of tensors are TF ops,
`enumerate`/`zip`/`map`/`filter` of datasets are the dataset's own transformations. Other
arguments get the builtin itself.

`super()`, `globals()`, `locals()` and `eval` must see the converted function's frame, not
this module's: `in_original_context` finds it through the function scope object.
"""
import builtins
import sys

from minitf.autograph import operators_checks as checks
from minitf.autograph.operators_data import is_dataset
from minitf.ops.constant import cast
from minitf.ops.creation import range as tf_range
from minitf.ops.math import maximum
from minitf.ops.math_unary import abs as tf_abs
from minitf.ops.shaping import shape as shape_of

__all__ = ["overload_of", "is_builtin", "in_original_context"]

_UNSPECIFIED = object()


def abs_(x):
    """abs(x); tf.abs for a tensor."""
    return tf_abs(x) if checks.is_tensor(x) else abs(x)


def float_(x=0):
    """float(x); a cast to float32 for a tensor."""
    return cast(x, "float32") if checks.is_tensor(x) else float(x)


def int_(x=0, base=_UNSPECIFIED):
    """int(x[, base]); a cast to int32 for a tensor (base 10 only)."""
    if checks.is_tensor(x):
        if base not in (10, _UNSPECIFIED):
            raise NotImplementedError(f"base {base} not supported for int")
        return cast(x, "int32")
    return int(x) if base is _UNSPECIFIED else int(x, base)


def len_(s):
    """len(s); a tensor's first dimension (static when known, else a tensor)."""
    if checks.is_tensor(s):
        if s.shape.rank == 0:
            raise ValueError("len requires a non-scalar tensor, got one of shape []")
        if s.shape.rank is not None and s.shape.as_list()[0] is not None:
            return s.shape.as_list()[0]
        return shape_of(s)[0]
    return len(s)


def print_(*objects, **kwargs):
    """print(...), checking the keyword arguments as TF does."""
    unknown = tuple(set(kwargs) - {"sep", "end", "file", "flush"})
    if unknown:
        raise ValueError(f"invalid keyword arguments: {unknown}")
    print(*objects, **kwargs)


def range_(start_or_stop, stop=_UNSPECIFIED, step=_UNSPECIFIED):
    """range(...); tf.range when an argument is a tensor (bounds clamped as Python's)."""
    if any(checks.is_tensor(a) for a in (start_or_stop, stop, step)):
        if step is not _UNSPECIFIED:
            return tf_range(start_or_stop, stop, step)
        if stop is not _UNSPECIFIED:
            return tf_range(start_or_stop, maximum(start_or_stop, stop))
        return tf_range(maximum(start_or_stop, 0))
    args = [a for a in (start_or_stop, stop, step) if a is not _UNSPECIFIED]
    return range(*args)


def enumerate_(s, start=0):
    """enumerate(s, start); Dataset.enumerate for a dataset."""
    return s.enumerate(start) if is_dataset(s) else enumerate(s, start)


def zip_(*iterables, strict=False):
    """zip(...); Dataset.zip when every argument is a dataset."""
    if iterables and all(is_dataset(s) for s in iterables):
        return type(iterables[0]).zip(tuple(iterables))
    return zip(*iterables, strict=True) if strict else zip(*iterables)


def map_(fn, *iterables):
    """map(fn, ...); Dataset.map for one dataset."""
    if len(iterables) == 1 and is_dataset(iterables[0]):
        return iterables[0].map(fn)
    return map(fn, *iterables)


def filter_(function, iterable):
    """filter(fn, s); Dataset.filter for a dataset."""
    return iterable.filter(function) if is_dataset(iterable) else filter(function, iterable)


def any_(iterable):
    """any(s)."""
    return any(iterable)


def all_(iterable):
    """all(s)."""
    return all(iterable)


def sorted_(iterable, key=_UNSPECIFIED, reverse=_UNSPECIFIED):
    """sorted(s, key=..., reverse=...)."""
    kwargs = {}
    if key is not _UNSPECIFIED:
        kwargs["key"] = key
    if reverse is not _UNSPECIFIED:
        kwargs["reverse"] = reverse
    return sorted(iterable, **kwargs)


_OVERLOADS = {abs: abs_, any: any_, all: all_, enumerate: enumerate_, filter: filter_,
              float: float_, int: int_, len: len_, map: map_, print: print_, range: range_,
              sorted: sorted_, zip: zip_}


_BUILTIN_IDS = frozenset(id(v) for v in vars(builtins).values())  # they live forever


def is_builtin(f):
    """Whether `f` is a Python builtin (function or type of `builtins`)."""
    return isinstance(f, type(len)) or id(f) in _BUILTIN_IDS


def overload_of(f):
    """AutoGraph's version of a builtin, or the builtin itself."""
    try:
        return _OVERLOADS.get(f, f)
    except TypeError:
        return f


def _original_frame(scope, innermost):
    """A frame of the converted function whose FunctionScope is `scope`: the innermost one
    (a block function of it), or the outermost (the function itself)."""
    frame, found = sys._getframe(1), None
    while frame is not None:
        if frame.f_locals.get(scope.name) is scope:
            found = frame
            if innermost:
                break
        frame = frame.f_back
    if found is None:
        raise RuntimeError("AutoGraph could not find the frame of the converted function")
    return found


def in_original_context(f, args, kwargs, scope):
    """Call `super`, `globals`, `locals` or `eval` as if from the converted function."""
    frame = _original_frame(scope, innermost=f is not super)
    if f is super and not args:
        self_name = frame.f_code.co_varnames[0]
        return super(frame.f_locals["__class__"], frame.f_locals[self_name])
    if f is globals:
        return frame.f_globals
    if f is locals:
        return frame.f_locals
    if f is eval and len(args) == 1:
        return eval(args[0], frame.f_globals, frame.f_locals)  # noqa: S307 (the user's own eval)
    return f(*args, **(kwargs or {}))
