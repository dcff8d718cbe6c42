"""Run one call in minitf and in TensorFlow and say how the two outcomes compare.

A case describes its arguments in a library-neutral way: numpy arrays wrapped in `T` (a tensor)
or `V` (a variable), dtype names wrapped in `D`, and plain Python values (scalars, lists,
strings, None) that both libraries receive unchanged. `run(lib, fn, case)` builds the arguments
for one library and returns an `Outcome`: the exception class name, or the result as numpy
values. `compare` puts two outcomes side by side and returns a `Verdict` with its kind:

    equal            both returned the same values, dtypes and shapes
    same_error       both raised the same exception class
    value_mismatch   both returned, but values, dtypes or shapes differ
    error_mismatch   both raised, with different exception classes
    tf_raises        TF raised, minitf returned a value
    minitf_raises    minitf raised, TF returned a value
"""
import dataclasses

import numpy as np

EQUAL, SAME_ERROR = "equal", "same_error"
VALUE_MISMATCH, ERROR_MISMATCH = "value_mismatch", "error_mismatch"
TF_RAISES, MINITF_RAISES = "tf_raises", "minitf_raises"
AGREEMENTS = (EQUAL, SAME_ERROR)
KINDS = (EQUAL, SAME_ERROR, TF_RAISES, ERROR_MISMATCH, MINITF_RAISES, VALUE_MISMATCH)

# relative and absolute tolerances by result dtype
TOLERANCE = {"float16": (1e-2, 1e-2), "bfloat16": (2e-2, 2e-2), "float32": (1e-4, 1e-5),
             "float64": (1e-9, 1e-12), "complex64": (1e-4, 1e-5), "complex128": (1e-9, 1e-12)}


@dataclasses.dataclass(frozen=True)
class T:
    """A tensor argument: `lib.constant(value)` (`dtype` names the dtype when given)."""
    value: object
    dtype: str = None

    def __repr__(self):
        return f"T({_short(self.value)}{', ' + self.dtype if self.dtype else ''})"


@dataclasses.dataclass(frozen=True)
class V:
    """A variable argument: `lib.Variable(value)`."""
    value: object
    dtype: str = None

    def __repr__(self):
        return f"V({_short(self.value)}{', ' + self.dtype if self.dtype else ''})"


@dataclasses.dataclass(frozen=True)
class D:
    """A dtype argument, by name: `lib.as_dtype(name)`."""
    name: str


@dataclasses.dataclass
class Case:
    """Positional and keyword arguments of one call, in the library-neutral form above."""
    args: tuple = ()
    kwargs: dict = dataclasses.field(default_factory=dict)

    def __repr__(self):
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"({', '.join(parts)})"


def _short(value):
    a = np.asarray(value)
    if a.size <= 6:
        return f"{a.tolist()!r}:{a.dtype}"
    return f"<{a.dtype} {list(a.shape)}>"


def build(lib, obj):
    """`obj` with its T/V/D markers turned into `lib`'s tensors, variables and dtypes."""
    if isinstance(obj, T):
        return lib.constant(obj.value, dtype=obj.dtype)
    if isinstance(obj, V):
        value = obj.value if obj.dtype is None else np.asarray(obj.value, dtype=obj.dtype)
        return lib.Variable(value)
    if isinstance(obj, D):
        return lib.as_dtype(obj.name)
    if isinstance(obj, list):
        return [build(lib, o) for o in obj]
    if isinstance(obj, tuple):
        return tuple(build(lib, o) for o in obj)
    if isinstance(obj, dict):
        return {k: build(lib, v) for k, v in obj.items()}
    return obj


@dataclasses.dataclass
class Outcome:
    """What one library did with a call: `error` (class name) or `value` (numpy leaves)."""
    error: str = None
    message: str = ""
    value: object = None


def to_numpy(x):
    """Nested results as numpy leaves (tensors, variables, numpy and Python scalars)."""
    if isinstance(x, (list, tuple)):
        return type(x)(to_numpy(o) for o in x) if not hasattr(x, "_fields") else [to_numpy(o) for o in x]
    if isinstance(x, dict):
        return {k: to_numpy(v) for k, v in x.items()}
    if x is None or isinstance(x, (bool, int, float, str, bytes)):
        return x
    if hasattr(x, "numpy"):
        return np.asarray(x.numpy())
    if hasattr(x, "values") and hasattr(x, "indices") and hasattr(x, "dense_shape"):
        return _dense_slices(x)
    return np.asarray(x)


def _dense_slices(s):
    values, indices = np.asarray(s.values), np.asarray(s.indices)
    out = np.zeros([int(d) for d in np.asarray(s.dense_shape)], dtype=values.dtype)
    np.add.at(out, indices, values)
    return out


def run(lib, fn, case):
    """Call `fn(lib, *args, **kwargs)` with `case`'s arguments built for `lib`."""
    try:
        args, kwargs = build(lib, case.args), build(lib, case.kwargs)
        result = fn(lib, *args, **kwargs)
        return Outcome(value=to_numpy(result))
    except Exception as exc:  # noqa: BLE001 -- the class is what is compared
        return Outcome(error=type(exc).__name__, message=str(exc)[:300])


@dataclasses.dataclass
class Verdict:
    """The comparison of two outcomes: a kind from KINDS and, on a mismatch, why."""
    kind: str
    detail: str = ""

    @property
    def agrees(self):
        return self.kind in AGREEMENTS


def compare(mine, ref, rtol=None, atol=None):
    """Compare minitf's outcome `mine` with TF's outcome `ref`."""
    if ref.error and mine.error:
        if ref.error == mine.error:
            return Verdict(SAME_ERROR)
        return Verdict(ERROR_MISMATCH, f"TF raised {ref.error} ({ref.message}); "
                                       f"minitf raised {mine.error} ({mine.message})")
    if ref.error:
        return Verdict(TF_RAISES, f"TF raised {ref.error} ({ref.message}); minitf returned "
                                  f"{_describe(mine.value)}")
    if mine.error:
        return Verdict(MINITF_RAISES, f"minitf raised {mine.error} ({mine.message}); TF returned "
                                      f"{_describe(ref.value)}")
    problem = leaves_differ(mine.value, ref.value, rtol, atol)
    return Verdict(VALUE_MISMATCH, problem) if problem else Verdict(EQUAL)


def _describe(value):
    if isinstance(value, np.ndarray):
        return f"{value.dtype} {list(value.shape)} {_short(value)}"
    return repr(value)[:200]


def leaves_differ(mine, ref, rtol=None, atol=None, path="result"):
    """A description of the first difference between two nested results, or '' if none."""
    if isinstance(ref, (list, tuple)):
        if not isinstance(mine, (list, tuple)) or len(mine) != len(ref):
            return f"{path}: TF gave a sequence of {len(ref)}, minitf gave {_describe(mine)}"
        for i, (a, b) in enumerate(zip(mine, ref)):
            problem = leaves_differ(a, b, rtol, atol, f"{path}[{i}]")
            if problem:
                return problem
        return ""
    if isinstance(ref, dict):
        if not isinstance(mine, dict) or set(mine) != set(ref):
            return f"{path}: keys differ"
        for k in ref:
            problem = leaves_differ(mine[k], ref[k], rtol, atol, f"{path}[{k!r}]")
            if problem:
                return problem
        return ""
    if ref is None or mine is None:
        return "" if ref is mine else f"{path}: TF gave {_describe(ref)}, minitf gave {_describe(mine)}"
    if not isinstance(ref, np.ndarray) and not isinstance(mine, np.ndarray):
        if type(ref) is not type(mine) or not _scalars_equal(mine, ref):
            return f"{path}: TF gave {ref!r}, minitf gave {mine!r}"
        return ""
    a, b = np.asarray(mine), np.asarray(ref)
    if a.dtype != b.dtype:
        return f"{path}: dtype {a.dtype} (minitf) vs {b.dtype} (TF)"
    if a.shape != b.shape:
        return f"{path}: shape {list(a.shape)} (minitf) vs {list(b.shape)} (TF)"
    if b.dtype.kind in "fc":
        r, t = TOLERANCE.get(b.dtype.name, (1e-4, 1e-5))
        r, t = rtol or r, atol or t
        scale = float(np.max(np.abs(b[np.isfinite(b)]), initial=1.0))
        if not np.allclose(a, b, rtol=r, atol=t * max(scale, 1.0), equal_nan=True):
            return f"{path}: values differ (minitf {_short(a)}, TF {_short(b)})"
        return ""
    if b.dtype.kind == "O":
        if [_as_bytes(x) for x in a.ravel()] != [_as_bytes(x) for x in b.ravel()]:
            return f"{path}: values differ (minitf {_short(a)}, TF {_short(b)})"
        return ""
    if not np.array_equal(a, b):
        return f"{path}: values differ (minitf {_short(a)}, TF {_short(b)})"
    return ""


def _as_bytes(x):
    return x.encode() if isinstance(x, str) else x


def _scalars_equal(a, b):
    if isinstance(b, float) and np.isnan(b):
        return isinstance(a, float) and np.isnan(a)
    return a == b


def weights_like(shape, dtype, salt=0):
    """A fixed, non-trivial cotangent pattern with `shape` (values in [-1, 1])."""
    size = int(np.prod(shape, dtype=np.int64))
    return np.cos(np.arange(size) * 0.7 + 1.0 + salt).reshape(shape).astype(dtype)


def _float_sources(lib, built):
    """The floating tensors and variables among the built arguments, in order."""
    found = []

    def walk(obj):
        if isinstance(obj, (list, tuple)):
            for o in obj:
                walk(o)
        elif isinstance(obj, dict):
            for o in obj.values():
                walk(o)
        elif (lib.is_tensor(obj) or isinstance(obj, lib.Variable)) and obj.dtype.is_floating:
            found.append(obj)
    walk(built)
    return found


def _weighted_sum(lib, result, salt):
    """sum(y * w) over the floating outputs of `result` (one tensor or a nest of them)."""
    leaves = lib.nest.flatten(result)
    total = None
    for y in leaves:
        if not lib.is_tensor(y) or not y.dtype.is_floating:
            continue
        w = lib.constant(weights_like(tuple(y.shape), y.dtype.as_numpy_dtype, salt))
        term = lib.reduce_sum(y * w)
        total = term if total is None else total + term
    return total


def run_gradient(lib, fn, case, order=1):
    """Gradients of sum(fn(...) * w) with respect to the floating arguments (order 1 or 2).

    Order 2 differentiates the weighted sum of the first-order gradients once more.
    Returns an Outcome whose value is the list of gradients (None where unconnected).
    """
    try:
        args, kwargs = build(lib, case.args), build(lib, case.kwargs)
        sources = _float_sources(lib, (args, kwargs))
        if not sources:
            return Outcome(value=[])
        with lib.GradientTape(persistent=True) as outer:
            outer.watch(sources)
            with lib.GradientTape() as tape:
                tape.watch(sources)
                loss = _weighted_sum(lib, fn(lib, *args, **kwargs), 0)
            if loss is None:
                return Outcome(value=[])
            grads = tape.gradient(loss, sources)
            if order == 2:
                connected = [g for g in grads if g is not None]
                loss2 = _weighted_sum(lib, connected, 3) if connected else None
        if order == 2:
            grads = outer.gradient(loss2, sources) if loss2 is not None else [None] * len(sources)
        return Outcome(value=[to_numpy(g) for g in grads])
    except Exception as exc:  # noqa: BLE001
        return Outcome(error=type(exc).__name__, message=str(exc)[:300])
