"""Recording the array calls of one run of a graph: the `Recorder` of `TracedArray`s.

While a graph runs once to be compiled, every array its ops compute on is a `TracedArray`: a
numpy array (or numpy scalar) with a register number. numpy's dispatch protocols
(`__array_ufunc__`, `__array_function__`) and the array methods and operators defined here
compute the real result and append the call to the recorder, with registers in place of the
traced arguments; so after the run the recorder holds the run's straight-line array program.

What a program of array calls cannot express is refused, never baked: a traced array turned
into a plain numpy array behind the recorder's back (`__array__`, the buffer interfaces), a
traced value written into an untraced array, an attribute or method this class does not know,
or a call whose result a plan cannot hold marks the recording `escaped`, with the graph node
that was running, and no plan is made. A Python value read from an array (`bool(a.any())`,
`int(n)`) becomes a guard: the plan checks it when it runs and gives the call back to the
interpreter when it differs. So does the shape of a result that depends on the data.
"""
import operator
import threading
import weakref

import numpy as np

from minitf.graph.compiler.traced_array import READERS, TracedArray

__all__ = ["Recorder", "Reg", "Seq", "SliceOf", "FRESH", "WithErrstate", "MethodCall"]

# Calls whose output shape depends on the data, not only the input shapes: a guard checks it.
_DATA_SHAPED = frozenset(getattr(np, n) for n in (
    "nonzero", "flatnonzero", "argwhere", "unique", "unique_values", "unique_counts",
    "unique_inverse", "unique_all", "extract", "compress", "trim_zeros", "bincount", "histogram",
    "histogram_bin_edges", "delete", "insert") if hasattr(np, n))
# Array functions whose every positional argument is data (a traced one cannot decide a shape
# other than by its own shape); for the others only the first argument may be traced.
_ALL_DATA = frozenset(getattr(np, n) for n in (
    "take", "take_along_axis", "where", "select", "choose", "matmul", "dot", "vdot", "inner",
    "outer", "tensordot", "einsum", "clip", "searchsorted", "concatenate", "stack", "hstack",
    "vstack", "dstack", "column_stack", "copyto", "cross", "kron", "convolve", "correlate",
    "interp", "broadcast_arrays", "meshgrid", "array_equal", "allclose", "isclose", "putmask",
    "place", "put", "put_along_axis", "digitize", "polyval", "ix_", "block", "result_type",
    "atleast_1d", "atleast_2d", "atleast_3d", "copysign", "lexsort") if hasattr(np, n))
# Functions that write into their first argument.
_WRITES_FIRST = frozenset(getattr(np, n) for n in (
    "copyto", "put", "place", "putmask", "put_along_axis", "fill_diagonal") if hasattr(np, n))
# Methods whose result shape depends on the data, and methods whose traced arguments are data.
_DATA_SHAPED_METHODS = frozenset(("nonzero", "compress"))
_DATA_METHODS = frozenset(("take", "clip", "dot", "searchsorted", "put", "fill"))


class Escaped(Exception):
    """A recording cannot become a plan (the message says why)."""


class Reg:
    """A register in a recorded call's arguments."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"r{self.index}"

    def __eq__(self, other):
        return type(other) is Reg and other.index == self.index

    def __hash__(self):
        return hash(("reg", self.index))


class Seq:
    """A list or tuple subclass (a namedtuple, a kernel's list type) holding registers."""

    __slots__ = ("kind", "items")

    def __init__(self, kind, items):
        self.kind, self.items = kind, tuple(items)

    def __eq__(self, other):
        return type(other) is Seq and other.kind is self.kind and other.items == self.items

    __hash__ = None


class SliceOf:
    """A slice whose bounds are registers."""

    __slots__ = ("start", "stop", "step")

    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step

    def __eq__(self, other):
        return type(other) is SliceOf and (self.start, self.stop, self.step) == \
            (other.start, other.stop, other.step)

    __hash__ = None


class WithErrstate:
    """A call an op made inside `numpy.errstate(...)`: a plan makes it there too (so numpy
    warns, or stays quiet, as it did for the op)."""

    __slots__ = ("wrapped", "state", "__name__")

    def __init__(self, wrapped, state):
        self.wrapped, self.state = wrapped, state
        self.__name__ = getattr(wrapped, "__name__", "call")

    def __call__(self, *args, **kwargs):
        with np.errstate(**self.state):
            return self.wrapped(*args, **kwargs)

    def __eq__(self, other):
        return type(other) is WithErrstate and other.state == self.state and \
            (other.wrapped is self.wrapped or other.wrapped == self.wrapped)

    def __hash__(self):
        return hash((self.__name__, tuple(sorted(self.state.items()))))


class MethodCall:
    """`array.<name>(*args, **kwargs)` as a function of the array."""

    __slots__ = ("name", "__name__")

    def __init__(self, name):
        self.name = self.__name__ = name

    def __call__(self, array, *args, **kwargs):
        return getattr(array, self.name)(*args, **kwargs)

    def __eq__(self, other):
        return type(other) is MethodCall and other.name == self.name

    def __hash__(self):
        return hash(("method", self.name))


class _Fresh:
    """Marks where an opaque call's step takes a new empty list each run."""

    def __repr__(self):
        return "<fresh list>"


FRESH = _Fresh()


class Recorder:
    """The steps of one recorded run, and the registers they read and write.

    Steps are tuples whose first item names the kind:
      ("call", fn, args, kwargs, out): `fn(*args, **kwargs)`, arguments holding `Reg`s;
      ("method", name, reg, args, kwargs, out): `reg.<name>(*args, **kwargs)`;
      ("guard", kind, reg, expected): a Python value read from a register (`bool`, `int` ...);
      ("vguard", head, expected): a call or method step (less its out) whose result is a
        Python value;
      ("shape", reg, shape): the data-dependent shape of a register;
    and the kinds the plan builder adds (inputs, variable reads, host nodes and their
    gradients). `out` is a register, ("seq", kind, registers), or None.

    Attributes:
      escaped: [(why, node index)] of what a plan cannot express (empty: none).
      node: the graph node being recorded (escapes name it).
      off: when True, calls compute on the real arrays and record nothing (a recording given
        up, or finished: traced arrays kept somewhere then act as plain ones).
    """

    def __init__(self, variable_buffers=()):
        self.steps = []
        self.registers = 0
        self.types = {}  # register -> (type, dtype, shape) of its value in this run
        self.c_contiguous = set()  # registers whose ndarray was C-contiguous in this run
        self.escaped = []
        self.node = None
        self.off = False
        self.depth = 0  # > 0 inside an opaque kernel call: traced arrays must not be seen there
        self.thread = threading.get_ident()
        self._by_array = {}  # id(array) -> weakref(TracedArray): a call returning an input keeps it
        # the variables' arrays: a call given one (not a read of it) escapes
        self._buffers = {id(b): weakref.ref(b) for b in variable_buffers if type(b) is np.ndarray}
        self._errors = np.geterr()
        self._objects = {}  # id -> (kernel-made object, its register)

    def new(self, array):
        """A TracedArray with a new register for `array`."""
        traced = TracedArray(array, self.registers, self)
        self.types[self.registers] = (type(array), array.dtype, np.shape(array))
        if type(array) is np.ndarray and array.flags.c_contiguous:
            self.c_contiguous.add(self.registers)
        self.registers += 1
        self._by_array[id(array)] = weakref.ref(traced)
        return traced

    def known(self, array):
        """The TracedArray already made for `array` (the same object), or None."""
        ref = self._by_array.get(id(array))
        traced = ref() if ref is not None else None
        return traced if traced is not None and traced.array is array else None

    def made(self, value):
        """Whether `value` is an object a recorded kernel call made (held in a register)."""
        known = self._objects.get(id(value)) if self._objects else None
        return known is not None and known[0] is value

    def escape(self, why):
        """Mark the recording as not expressible as a plan (`why` says what)."""
        self.escaped.append((why, self.node))

    def finish(self):
        """Stop recording: traced arrays still held anywhere compute as plain arrays."""
        self.off = True
        self._by_array.clear()
        self._objects.clear()

    # -- arguments ----------------------------------------------------------------------------
    def unwrap(self, value):
        """(value with TracedArrays replaced by their arrays, template with `Reg`s in their
        place, whether a traced array was found)."""
        kind = type(value)
        if kind is TracedArray:
            if value.recorder is not self:
                self.escape("a traced array of another recording was used")
            return value.array, Reg(value.reg), True
        if kind is np.ndarray:
            if self._buffers and (self._is_buffer(value) or self._views_buffer(value)):
                self.escape("a variable's array was used without a ReadVariableOp")
            return value, value, False
        if isinstance(value, (tuple, list)):
            parts = [self.unwrap(v) for v in value]
            if not any(p[2] for p in parts):
                return value, value, False
            real = [p[0] for p in parts]
            template = [p[1] for p in parts]
            if kind is tuple:
                return tuple(real), tuple(template), True
            if kind is list:
                return real, template, True
            return _rebuild(kind, value, real), Seq(kind, template), True
        if kind is dict:
            parts = {k: self.unwrap(v) for k, v in value.items()}
            if not any(p[2] for p in parts.values()):
                return value, value, False
            return {k: p[0] for k, p in parts.items()}, {k: p[1] for k, p in parts.items()}, True
        if kind is slice:
            parts = [self.unwrap(v) for v in (value.start, value.stop, value.step)]
            if not any(p[2] for p in parts):
                return value, value, False
            return slice(*(p[0] for p in parts)), SliceOf(*(p[1] for p in parts)), True
        if self._objects:
            known = self._objects.get(id(value))
            if known is not None and known[0] is value:
                return value, Reg(known[1]), True
        return value, value, False

    def _is_buffer(self, array):
        ref = self._buffers.get(id(array))
        return ref is not None and ref() is array

    def _views_buffer(self, array):
        base = array.base
        while isinstance(base, np.ndarray):
            if self._is_buffer(base):
                return True
            base = base.base
        return False

    # -- recording calls --------------------------------------------------------------------
    def _live(self):
        """True when a call should be recorded (else it computes on real arrays only)."""
        if self.off:
            return False
        if self.depth or threading.get_ident() != self.thread:
            self.escape("a traced array was used inside an opaque call or on another thread")
            return False
        return True

    def call(self, fn, args, kwargs, shaped=None):
        """Run `fn(*args, **kwargs)` on the real arrays and record it; traced results.

        `shaped`: True when the result's shape depends on the data (a guard checks it), False
        when it does not, None to decide from `fn` and where the traced arguments are.
        """
        real_args, t_args, _ = self.unwrap(tuple(args))
        real_kwargs, t_kwargs, _ = self.unwrap(dict(kwargs))
        if not self._live():
            return fn(*real_args, **real_kwargs)
        self._check_writes(fn, t_args, t_kwargs)
        result = fn(*real_args, **real_kwargs)
        if shaped is None:
            shaped = _data_shaped(fn, t_args, t_kwargs)
        return self._finish_call(("call", fn, t_args, t_kwargs), result, shaped)

    def method(self, traced, name, args, kwargs):
        """Record `traced.array.<name>(*args, **kwargs)`."""
        real_args, t_args, found_a = self.unwrap(tuple(args))
        real_kwargs, t_kwargs, found_k = self.unwrap(dict(kwargs))
        target = traced.array
        if not self._live():
            return getattr(target, name)(*real_args, **real_kwargs)
        self._check_writes(None, (), t_kwargs)
        result = getattr(target, name)(*real_args, **real_kwargs)
        shaped = name in _DATA_SHAPED_METHODS or ((found_a or found_k) and name not in _DATA_METHODS)
        return self._finish_call(("method", name, Reg(traced.reg), t_args, t_kwargs), result, shaped)

    def opaque(self, fn, args, kwargs, writes_first=False):
        """Record a kernel call as one step: `fn` runs on the real arrays, unseen inside.

        Empty lists among the arguments are fresh each run (a kernel may append what the
        gradient reuses): their new items are traced as outputs of the call.
        """
        real_args, t_args, _ = self.unwrap(tuple(args))
        real_kwargs, t_kwargs, _ = self.unwrap(dict(kwargs))
        if not self._live():
            return fn(*real_args, **real_kwargs)
        if writes_first and not (t_args and type(t_args[0]) is Reg):
            self.escape(f"{_name(fn)} writes a traced value into an untraced array")
        fresh = [(i, a) for i, a in enumerate(list(real_args) + list(real_kwargs.values()))
                 if type(a) is list and not a]
        if fresh:  # in the step, a marker: the plan makes a new list there each run
            positions = {i for i, _ in fresh}
            n = len(t_args)
            t_args = tuple(FRESH if i in positions else a for i, a in enumerate(t_args))
            t_kwargs = {k: FRESH if n + i in positions else v for i, (k, v) in enumerate(t_kwargs.items())}
        self.depth += 1
        try:
            result = fn(*real_args, **real_kwargs)
        finally:
            self.depth -= 1
        out, wrapped = self._wrap(result)
        side = []
        for i, container in fresh:
            if container:
                traced_items = [self.trace_object(item) for item in container]
                side.append((i, tuple(spec for spec, _ in traced_items)))
                container[:] = [value for _, value in traced_items]
        state = np.geterr()
        if state != self._errors:
            fn = WithErrstate(fn, state)
        self.steps.append(("opaque", fn, t_args, t_kwargs, out, tuple(i for i, _ in fresh),
                           tuple(side)))
        return wrapped

    def trace_object(self, value):
        """(spec, value with its arrays traced) for an object an opaque call produced: arrays,
        tuples and lists of them; anything else holding no array is kept as a constant."""
        if isinstance(value, (np.ndarray, np.generic)):
            traced = self.new(value)
            return ("reg", traced.reg), traced
        if isinstance(value, (tuple, list)):
            parts = [self.trace_object(v) for v in value]
            return ("seq", type(value), tuple(p[0] for p in parts)), \
                _rebuild(type(value), value, [p[1] for p in parts])
        if value is None or isinstance(value, (bool, int, float, str, slice)):
            return ("const", value), value
        if type(value).__module__.startswith("minitf.kernels"):
            # a kernel's own data for a later kernel (Winograd's transformed input): a register
            # holding the object each run makes, handed to the kernels that read it
            reg = self.registers
            self.registers += 1
            self.types[reg] = (type(value), None, None)
            self._objects[id(value)] = (value, reg)
            return ("reg", reg), value
        self.escape(f"an opaque call produced a {type(value).__name__}, which a plan cannot hold")
        return ("const", value), value

    def _check_writes(self, fn, t_args, t_kwargs):
        out = t_kwargs.get("out")
        if out is not None:
            for target in (out if isinstance(out, tuple) else (out,)):
                if isinstance(target, np.ndarray):
                    self.escape(f"{_name(fn)} writes into an untraced array (out=)")
        if fn is not None and (fn in _WRITES_FIRST or getattr(fn, "__name__", None) == "at") \
                and not (t_args and type(t_args[0]) is Reg):
            self.escape(f"{_name(fn)} writes a traced value into an untraced array")

    def _finish_call(self, head, result, shaped):
        state = np.geterr()
        if state != self._errors:  # the op set numpy.errstate around this call
            if head[0] == "method":
                head = ("call", WithErrstate(MethodCall(head[1]), state), (head[2],) + head[3], head[4])
            else:
                head = ("call", WithErrstate(head[1], state), head[2], head[3])
        out, wrapped = self._wrap(result)
        if type(out) is tuple and out[0] == "value":
            self.steps.append(("vguard", head, out[1]))
            return wrapped
        self.steps.append(head + (out,))
        if shaped:
            for traced in (wrapped if isinstance(wrapped, (tuple, list)) else (wrapped,)):
                if isinstance(traced, TracedArray):
                    self.steps.append(("shape", Reg(traced.reg), np.shape(traced.array)))
        return wrapped

    def _wrap(self, result):
        """(out spec, result with arrays traced) of a call's result."""
        if isinstance(result, (np.ndarray, np.generic)):
            traced = self.known(result) if type(result) is np.ndarray else None
            if traced is None:
                traced = self.new(result)
            return traced.reg, traced
        if isinstance(result, (tuple, list)) and result and \
                all(isinstance(r, (np.ndarray, np.generic)) for r in result):
            traced = [self.known(r) if type(r) is np.ndarray else None for r in result]
            traced = [t if t is not None else self.new(r) for t, r in zip(traced, result)]
            return ("seq", type(result), tuple(t.reg for t in traced)), \
                _rebuild(type(result), result, traced)
        if result is None:
            return None, None
        if isinstance(result, (bool, int, float, complex, str, bytes)):
            return ("value", result), result
        self.escape(f"a call returned {type(result).__name__}, which a plan cannot hold")
        return None, result

    def read(self, traced, kind):
        """A Python value read from a traced array (`bool`, `int`, `float`, `index`, `item`,
        `tolist`): the plan computes it again and checks it is the same."""
        value = READERS[kind](traced.array)
        if not self.off and self._live():
            self.steps.append(("guard", kind, Reg(traced.reg), value))
        return value


def _rebuild(kind, original, items):
    if hasattr(kind, "_fields"):  # a namedtuple
        return kind(*items)
    try:
        return kind(items)
    except TypeError:
        return type(original)(items)


def _name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


def _data_shaped(fn, t_args, t_kwargs):
    """True when the shape of `fn`'s result may depend on the values of its traced arguments."""
    if isinstance(fn, np.ufunc):
        return False
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, np.ufunc):  # ufunc.reduce, accumulate, outer, at; reduceat's indices
        return fn.__name__ == "reduceat" and _has_reg(t_args[1:]) or _has_reg(t_kwargs)
    if fn is operator.setitem:
        return False
    if fn in _DATA_SHAPED or (fn is np.where and len(t_args) == 1):
        return True
    kwargs = {k: v for k, v in t_kwargs.items() if k != "out"}
    if _has_reg(kwargs):
        return True
    if fn in _ALL_DATA:
        return False
    return _has_reg(t_args[1:])


def _has_reg(template):
    kind = type(template)
    if kind is Reg:
        return True
    if kind in (tuple, list):
        return any(_has_reg(v) for v in template)
    if kind is dict:
        return any(_has_reg(v) for v in template.values())
    if kind is Seq:
        return any(_has_reg(v) for v in template.items)
    if kind is SliceOf:
        return True
    return False
