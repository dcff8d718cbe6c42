"""Common-subexpression elimination over a recorded program.

A recorded step that repeats an earlier one (the same pure function of the same registers and
the same constants) is dropped, and what read its result reads the earlier result. Gradients
recompute values their forward pass already had (a ReLU's `x > 0` mask, a softmax's `exp`), and
two tapes over one forward recompute each other's; a plan computes each once.

A step is pure here when it is a ufunc, a ufunc reduction, an allocation of known contents or
one of a few array methods that return a new array or a view. Sharing one value between two
readers is safe only while nobody changes it, so neither the registers a step reads nor its
result may ever be written in place, by a step or through a possible view: the registers a step
reads and defines count as one group unless its result is known to be new memory, and a group
with a write in it is left alone. Variable reads are left alone in a program with host steps (an effect may
update the variable's array). A duplicate whose result is read by a host step or is an output
of the program stays (their specs are not rewritten).
"""
import numpy as np

from minitf.graph.compiler.buffers import fresh_call
from minitf.graph.compiler.codegen import spec_registers
from minitf.graph.compiler.optimize import defines, reordered, uses, writes
from minitf.graph.compiler.recording import Reg, Seq, SliceOf, WithErrstate

__all__ = ["common_subexpressions"]

_PURE_FUNCTIONS = frozenset((np.ones, np.zeros, np.full, np.broadcast_to, np.reshape, np.transpose,
                             np.swapaxes, np.expand_dims, np.squeeze))
# Functions whose result is new memory whatever their arguments (without `out`).
_ALLOCATING = frozenset((np.empty, np.empty_like, np.zeros, np.zeros_like, np.ones, np.ones_like,
                         np.full, np.full_like, np.copy, np.concatenate, np.stack, np.where))
_PURE_METHODS = frozenset(("reshape", "transpose", "swapaxes", "astype", "ravel", "sum", "mean",
                           "max", "min", "prod"))
_HOST_KINDS = ("host", "hostgrad", "lazy")


def _pure(step):
    """Whether a call or method step computes its result from its arguments alone."""
    if step[0] == "method":
        return step[1] in _PURE_METHODS and type(step[5]) is int
    if step[0] != "call" or type(step[4]) is not int or "out" in step[3]:
        return False
    fn = step[1].wrapped if type(step[1]) is WithErrstate else step[1]
    if type(fn) is np.ufunc:
        return fn.nout == 1 and len(step[2]) <= fn.nin
    if type(getattr(fn, "__self__", None)) is np.ufunc:
        return getattr(fn, "__name__", "") == "reduce" and (len(step[2]) < 4 or step[2][3] is None)
    try:
        return fn in _PURE_FUNCTIONS
    except TypeError:  # an unhashable callable
        return False


def _new_memory(step):
    """Whether a step's result shares memory with none of its arguments."""
    if fresh_call(step):
        return True
    if step[0] != "call" or "out" in step[3]:
        return False
    try:
        return step[1] in _ALLOCATING
    except TypeError:  # an unhashable callable
        return False


def _out_registers(step):
    """The registers of a ufunc call's `out=`: its result is that memory and no view of its
    inputs (empty for other steps)."""
    if step[0] != "call" or "out" not in step[3]:
        return set()
    fn = step[1].wrapped if type(step[1]) is WithErrstate else step[1]
    if type(fn) is not np.ufunc and type(getattr(fn, "__self__", None)) is not np.ufunc:
        return set()
    return writes(step)


def _key(value):
    """A hashable key equal for two arguments exactly when they are the same argument."""
    kind = type(value)
    if kind is Reg:
        return ("r", value.index)
    if kind in (tuple, list):
        return (kind.__name__,) + tuple(_key(v) for v in value)
    if kind is dict:
        return ("dict",) + tuple(sorted((k, _key(v)) for k, v in value.items()))
    if kind is Seq:
        return ("seq", id(value.kind)) + tuple(_key(v) for v in value.items)
    if kind is SliceOf:
        return ("slice", _key(value.start), _key(value.stop), _key(value.step))
    if kind is slice:
        return ("slice", _key(value.start), _key(value.stop), _key(value.step))
    if kind in (bool, int, str) or value is None:
        return (kind.__name__, value)
    if kind is float:
        return ("float", value.hex())  # tells -0.0 from 0.0; NaNs with the same bits match
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.str, value.tobytes())
    if kind is np.dtype:
        return ("dtype", value.str)
    return ("object", id(value))  # a constant array or a function: only the same object matches


def _step_key(step):
    if step[0] == "method":
        return ("method", step[1], step[2].index, _key(step[3]), _key(step[4]))
    fn = step[1]
    return ("call", id(fn.wrapped) if type(fn) is WithErrstate else id(fn),
            _key(getattr(fn, "state", None)), _key(step[2]), _key(step[3]))


class _Groups:
    """Union-find over registers."""

    def __init__(self):
        self.parent = {}

    def find(self, r):
        parent = self.parent
        while parent.get(r, r) != r:
            parent[r] = parent.get(parent[r], parent[r])
            r = parent[r]
        return r

    def join(self, members):
        members = list(members)
        for r in members[1:]:
            a, b = self.find(members[0]), self.find(r)
            if a != b:
                self.parent[b] = a


def _unsafe_registers(steps):
    """Registers that may change after they are defined (see the module docstring)."""
    groups = _Groups()
    written = set()
    has_host = False
    reads = set()
    for step in steps:
        kind = step[0]
        if kind == "read":
            reads |= defines(step)
            continue
        if kind in _HOST_KINDS:
            has_host = True
        read, made = uses(step), defines(step)
        changed = writes(step)
        if changed is None:
            written |= read
        else:
            written |= changed
        if read and made and not _new_memory(step):
            groups.join((_out_registers(step) or read) | made)
    if has_host:
        written |= reads
    bad_groups = {groups.find(r) for r in written}
    return lambda r: groups.find(r) in bad_groups


def _renamed(template, names):
    kind = type(template)
    if kind is Reg:
        return Reg(names[template.index]) if template.index in names else template
    if kind in (tuple, list):
        return kind(_renamed(v, names) for v in template)
    if kind is dict:
        return {k: _renamed(v, names) for k, v in template.items()}
    if kind is Seq:
        return Seq(template.kind, (_renamed(v, names) for v in template.items))
    if kind is SliceOf:
        return SliceOf(_renamed(template.start, names), _renamed(template.stop, names),
                       _renamed(template.step, names))
    return template


def _rename_step(step, names):
    kind = step[0]
    if kind in ("call", "opaque"):
        return (kind, step[1], _renamed(step[2], names), _renamed(step[3], names)) + step[4:]
    if kind == "method":
        return (kind, step[1], _renamed(step[2], names), _renamed(step[3], names),
                _renamed(step[4], names)) + step[5:]
    if kind == "guard":
        return step[:2] + (_renamed(step[2], names),) + step[3:]
    if kind == "shape":
        return (kind, _renamed(step[1], names)) + step[2:]
    if kind == "vguard":
        return (kind, _rename_step(step[1] + (None,), names)[:-1]) + step[2:]
    return step


def common_subexpressions(program):
    """The program with each repeated pure step computed once (see the module docstring)."""
    steps = program.steps
    unsafe = _unsafe_registers(steps)
    kept_readers = {r for step in steps if step[0] in _HOST_KINDS for r in uses(step)}
    kept_readers |= {r for spec in program.outputs for r in spec_registers(spec)}
    first = {}     # step key -> register of its first result
    names = {}     # dropped register -> the register that replaces it
    dropped = set()
    new_steps = []
    for i, step in enumerate(steps):
        if names:
            step = _rename_step(step, names)
        new_steps.append(step)
        if step[0] not in ("call", "method") or not _pure(step):
            continue
        result = step[4] if step[0] == "call" else step[5]
        if unsafe(result) or any(unsafe(r) for r in uses(step)):
            continue
        key = _step_key(step)
        earlier = first.get(key)
        if earlier is None:
            first[key] = result
        elif result not in kept_readers:
            names[result] = earlier
            dropped.add(i)
    if not dropped:
        return program
    program.steps = new_steps
    return reordered(program, [i for i in range(len(steps)) if i not in dropped])
