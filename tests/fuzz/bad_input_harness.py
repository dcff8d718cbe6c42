"""The bad-input fuzz's machinery: one wrong call, how minitf's outcome is judged, the figures.

A case (`BadCall`) names a public function (`func`, e.g. "tf.reshape" or "Model.fit"), a
callable `fn(lib, *args, **kwargs)` that makes the call with `lib` = minitf or tensorflow and
reduces the result to something comparable (values, or shapes where the result is random), and
its arguments in the library-neutral form of tests/parity/parity_oracle.py (`T` a tensor, `V` a
variable, `D` a dtype; Python values, numpy arrays and callables are passed unchanged).

TF 2.21's outcome of every case (the exception class, or the result) is recorded in
bad_input_tf_outcomes.json, so the fuzz runs without TF; tests/parity/test_bad_input_parity.py
checks the record against TF itself (`python tests/parity/test_bad_input_parity.py --record`
rewrites it).

Verdicts, minitf's outcome judged against TF's:

    same_class      TF raised; minitf raised a validation error of TF's class or a subclass
    equal           TF returned; minitf returned the same values, dtypes and shapes
    raw             minitf raised a raw error (the rule below), whatever TF did
    silent          TF raised; minitf returned a result
    wrong_class     TF raised; minitf raised a validation error of another class
    minitf_raises   TF returned; minitf raised a validation error
    value_mismatch  both returned, but the results differ

The raw-error rule. An exception minitf raises is *raw* (a numpy or Python error leaking out of
minitf rather than minitf's own validation) when any of these holds:

 1. its innermost traceback frame is outside minitf and outside the case's own callable: it was
    raised inside numpy, cupy or another library;
 2. its innermost frame is in minitf on a line that is not a `raise` (or `assert`) statement: a
    builtin (int(), len(), float(), a dict lookup, an operator, a call with wrong arguments)
    failed inside minitf's code;
 3. its innermost frame is the case's own callable: the call into minitf failed before minitf
    ran (an operator or attribute the callable used is missing);
 4. its message reads as numpy's or Python's own wording (`RAW_WORDING`), even though minitf
    raised it: a validation that passes numpy's text on.

Python's own check of the called function's signature is validation wherever its frame is (a
TypeError "reshape() missing 1 required positional argument: 'shape'", "got an unexpected
keyword argument 'x'" naming the function the case calls): it names the function and the
argument, as TF's own Python functions do.

A validation error must also name what was called: its message contains the function's name or
one of the case's aliases (the op's TF name, the layer's class), compared in lower case without
underscores. A message that does not is counted as `unnamed`.
"""
import ast
import dataclasses
import functools
import json
import linecache
import math
import os
import re
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "parity"))

from parity_oracle import D, T, V, Case, build, leaves_differ, to_numpy  # noqa: E402,F401

RECORD = os.path.join(HERE, "bad_input_tf_outcomes.json")

SAME_CLASS, EQUAL, RAW, SILENT = "same_class", "equal", "raw", "silent"
WRONG_CLASS, MINITF_RAISES, VALUE_MISMATCH = "wrong_class", "minitf_raises", "value_mismatch"
KINDS = (SAME_CLASS, EQUAL, RAW, SILENT, WRONG_CLASS, MINITF_RAISES, VALUE_MISMATCH)
GOOD = (SAME_CLASS, EQUAL)

# numpy's and Python's own messages: a minitf error worded like these passed their text on
RAW_WORDING = re.compile("|".join([
    r"could not broadcast", r"operands could not be broadcast", r"cannot reshape array",
    r"is out of bounds for (axis|array)", r"invalid literal for int\(\)",
    r"could not convert string to float", r"object is not (iterable|subscriptable|callable)",
    r"object cannot be interpreted as an integer", r"len\(\) of unsized object",
    r"unsupported operand type", r"has no attribute", r"list index out of range",
    r"tuple index out of range", r"only integer scalar arrays", r"setting an array element",
    r"inhomogeneous shape", r"must be real number, not", r"argument must be a string or a",
    r"division by zero", r"cannot convert float (NaN|infinity) to integer",
    r"negative dimensions are not allowed", r"Maximum allowed dimension exceeded",
    r"ufunc '\w+' (not supported|did not contain a loop)", r"data type .* not understood",
    r"^axis \d+ is out of bounds", r"not enough values to unpack", r"too many values to unpack",
    r"unhashable type", r"^'\w+' object", r"^\d+$",
]))
SIGNATURE_WORDING = re.compile(
    r"\(\) (missing \d+ required|got an unexpected keyword argument|takes \d+ positional"
    r"|takes from \d+ to \d+ positional|got multiple values for argument|got some positional-only)")


def A(*args, **kwargs):
    """The arguments of one call."""
    return Case(args, kwargs)


@dataclasses.dataclass
class BadCall:
    """One wrong (or borderline) call of public function `func`; `names` are extra words an
    error message may use to name it (the op's TF name, the class)."""
    func: str
    fn: object
    case: Case
    names: tuple = ()

    @property
    def id(self):
        return re.sub(r" at 0x[0-9a-fA-F]+", "", f"{self.func}{self.case!r}")

    def name_words(self):
        leaf = self.func.split(".")[-1]
        words = {leaf, *self.names}
        if leaf == "__call__":
            words.add(self.func.split(".")[-2])
        return {_squash(w) for w in words}


def _squash(text):
    return text.lower().replace("_", "")


@dataclasses.dataclass
class Outcome:
    """What one library did: `error` (class name, with `mro` the names of its classes) and
    `message`, or `value` (numpy leaves). `raw` is the rule that made an error raw, if any."""
    error: str = None
    mro: tuple = ()
    message: str = ""
    value: object = None
    raw: str = ""

    def record(self):
        return {"error": self.error} if self.error else {"value": encode(self.value)}


def run(lib, call, judge=False):
    """Make `call` with `lib`; with `judge`, apply the raw-error rule to what it raised."""
    args, kwargs = build(lib, call.case.args), build(lib, call.case.kwargs)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = to_numpy(call.fn(lib, *args, **kwargs))
        return Outcome(value=value)
    except Exception as exc:  # noqa: BLE001 -- the class and where it came from are judged
        out = Outcome(error=type(exc).__name__, mro=tuple(c.__name__ for c in type(exc).__mro__),
                      message=str(exc))
        if judge:
            out.raw = raw_reason(exc, call)
        return out


def _frames(tb):
    while tb is not None:
        yield tb.tb_frame.f_code.co_filename, tb.tb_lineno
        tb = tb.tb_next


def raw_reason(exc, call):
    """Why `exc` is a raw error by the module docstring's rule, or '' when it is validation."""
    frames = list(_frames(exc.__traceback__))
    if not frames:
        return ""
    filename, lineno = frames[-1]
    message = str(exc)
    case_file = call.fn.__code__.co_filename if hasattr(call.fn, "__code__") else ""
    if isinstance(exc, TypeError) and _signature_error_of(call, message):
        return ""
    if _in_minitf(filename):
        if not _is_raise(filename, lineno):
            return f"raised by a builtin inside minitf ({_where(filename, lineno)})"
    elif filename == case_file or filename == __file__:
        return f"raised at the call itself, not by minitf's validation ({message[:80]})"
    else:
        return f"raised inside {_where(filename, lineno)}"
    if RAW_WORDING.search(message):
        return "minitf passed numpy's or Python's wording on"
    return ""


def _signature_error_of(call, message):
    """Whether `message` is Python's check of the signature of the function the case calls
    (not of some helper inside minitf): "reshape() missing 1 required positional argument"."""
    match = SIGNATURE_WORDING.search(message)
    if not match:
        return False
    named = _squash(message[:match.start()])
    return any(w in named for w in call.name_words())


def _in_minitf(filename):
    parts = os.path.normpath(filename).split(os.sep)
    return "minitf" in parts and "site-packages" not in parts


def _where(filename, lineno):
    parts = os.path.normpath(filename).split(os.sep)
    return "/".join(parts[-3:]) + f":{lineno}"


@functools.lru_cache(maxsize=None)
def _statements(filename):
    source = "".join(linecache.getlines(filename))
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    return tuple((n.lineno, n.end_lineno, isinstance(n, (ast.Raise, ast.Assert)))
                 for n in ast.walk(tree) if isinstance(n, ast.stmt))


def _is_raise(filename, lineno):
    """Whether the innermost statement at `lineno` of `filename` is a raise or an assert."""
    best = None
    for start, end, is_raise in _statements(filename):
        if start <= lineno <= end and (best is None or end - start < best[1] - best[0]):
            best = (start, end, is_raise)
    return bool(best and best[2])


def judge(call, mine, ref):
    """The verdict kind and a detail line for minitf's outcome `mine` against TF's `ref`."""
    if mine.error and mine.raw:
        return RAW, f"{mine.error}: {mine.message[:160]} -- {mine.raw}"
    if ref.error:
        if not mine.error:
            return SILENT, f"TF raised {ref.error}; minitf returned {str(mine.value)[:120]}"
        if ref.error in mine.mro:
            return SAME_CLASS, ""
        return WRONG_CLASS, f"TF raised {ref.error}; minitf raised {mine.error}: {mine.message[:160]}"
    if mine.error:
        return MINITF_RAISES, f"TF returned; minitf raised {mine.error}: {mine.message[:160]}"
    problem = leaves_differ(canonical(mine.value), canonical(ref.value))
    return (VALUE_MISMATCH, problem) if problem else (EQUAL, "")


def canonical(value):
    """A result as the record holds it (strings as object arrays of bytes, as TF gives them),
    so results from either library and from the record compare alike."""
    return decode(encode(value))


def names_call(call, mine):
    """Whether minitf's error message names the function (see the module docstring)."""
    text = _squash(mine.message)
    return any(w in text for w in call.name_words())


@dataclasses.dataclass
class Figures:
    """Counts over a run: verdict kinds, cases, functions, unnamed messages, and details."""
    counts: dict
    cases: int
    functions: int
    unnamed: list
    details: list

    def line(self):
        c = self.counts
        return (f"{self.cases} cases over {self.functions} functions: raised TF's class "
                f"{c[SAME_CLASS]}, accepted as TF with the same result {c[EQUAL]}, raw errors "
                f"{c[RAW]}, silent results where TF raises {c[SILENT]}, other class "
                f"{c[WRONG_CLASS]}, raised where TF accepts {c[MINITF_RAISES]}, different "
                f"results {c[VALUE_MISMATCH]}; messages not naming the function "
                f"{len(self.unnamed)}")


def measure(calls, lib, references):
    """Run every call with `lib` (minitf) and judge it against `references[call.id]`."""
    counts = {k: 0 for k in KINDS}
    details, unnamed = [], []
    for call in calls:
        mine = run(lib, call, judge=True)
        kind, detail = judge(call, mine, references[call.id])
        counts[kind] += 1
        if kind not in GOOD:
            details.append(f"{kind}: {call.id}: {detail}")
        elif mine.error and not names_call(call, mine):
            unnamed.append(f"{call.id}: {mine.error}: {mine.message[:160]}")
    return Figures(counts, len(calls), len({c.func for c in calls}), unnamed, details)


# -- the record's encoding of results ---------------------------------------------------------

def encode(value):
    """A JSON-able form of a result made of numpy arrays, scalars, strings and sequences."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "OSU":  # strings: TF's object arrays of bytes
            return {"ndarray": "object", "shape": list(value.shape),
                    "data": [_text(v) for v in value.ravel()]}
        if value.dtype.kind == "c":
            return {"ndarray": value.dtype.name, "shape": list(value.shape),
                    "data": _finite(value.real.tolist()), "imag": _finite(value.imag.tolist())}
        return {"ndarray": value.dtype.name, "shape": list(value.shape),
                "data": _finite(value.tolist())}
    if isinstance(value, (list, tuple)):
        return {"seq": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": {str(k): encode(v) for k, v in value.items()}}
    if isinstance(value, (bytes, np.bytes_)):
        return {"bytes": bytes(value).decode("latin-1")}
    if isinstance(value, np.generic):
        return encode(np.asarray(value))
    if isinstance(value, float):
        return {"float": _finite(value)}
    return value


def decode(obj):
    """The result `encode` wrote."""
    if isinstance(obj, dict):
        if "ndarray" in obj:
            data = _unfinite(obj["data"])
            if obj["ndarray"] == "object":
                return np.array([d.encode("latin-1") for d in data] or [], dtype=object).reshape(obj["shape"])
            if "imag" in obj:
                data = np.array(data) + 1j * np.array(_unfinite(obj["imag"]))
            return np.array(data, dtype=obj["ndarray"]).reshape(obj["shape"])
        if "seq" in obj:
            return [decode(v) for v in obj["seq"]]
        if "dict" in obj:
            return {k: decode(v) for k, v in obj["dict"].items()}
        if "bytes" in obj:
            return obj["bytes"].encode("latin-1")
        if "float" in obj:
            return float(_unfinite(obj["float"]))
    return obj


def _text(v):
    return v.decode("latin-1") if isinstance(v, bytes) else str(v)


def _finite(data):
    if isinstance(data, list):
        return [_finite(d) for d in data]
    if isinstance(data, float) and not math.isfinite(data):
        return repr(data)
    return data


def _unfinite(data):
    if isinstance(data, list):
        return [_unfinite(d) for d in data]
    if data in ("nan", "inf", "-inf"):
        return float(data)
    return data


def load_record():
    """TF's recorded outcomes, by case id: Outcome(error=...) or Outcome(value=...)."""
    with open(RECORD, encoding="utf-8") as f:
        raw = json.load(f)
    return {k: Outcome(error=v["error"]) if "error" in v else Outcome(value=decode(v["value"]))
            for k, v in raw.items()}


def save_record(outcomes):
    """Write TF's outcomes {case id: Outcome} as the record."""
    with open(RECORD, "w", encoding="utf-8") as f:
        json.dump({k: o.record() for k, o in outcomes.items()}, f, indent=0, sort_keys=True)
        f.write("\n")
