"""Passes over a recorded program before it is compiled.

`hoist_guards` moves each guard that follows an effect (a variable write, a random draw, an
optimizer step) to before the first effect, with the pure steps it reads, when nothing it reads
can change in between: a failed guard must give the call back to the interpreter before
anything happened. A guard that cannot move refuses the program.

`dead_steps` drops steps whose results nothing reads and that write nothing.

Steps refer to one another by index (a host gradient to its host step, a lazy gradient to its
host gradient): a pass that moves steps renumbers those references.
"""
import numpy as np

from minitf.graph.compiler.codegen import spec_registers
from minitf.graph.compiler.recording import MethodCall, Reg, Seq, SliceOf

__all__ = ["hoist_guards", "dead_steps", "effects", "reordered", "uses", "defines", "writes", "Refused"]

_GUARDS = ("guard", "vguard", "shape")
_MOVABLE = ("call", "method", "opaque") + _GUARDS
_WRITING_METHODS = frozenset(("fill", "sort", "put", "partition", "itemset", "resize", "setfield"))
_WRITES_FIRST = frozenset(getattr(np, n) for n in (
    "copyto", "put", "place", "putmask", "put_along_axis", "fill_diagonal") if hasattr(np, n))


class Refused(Exception):
    """A recorded program that must never become a plan."""


def effects(program):
    """Indexes of the steps with effects (host steps of stateful nodes)."""
    return [i for i, s in enumerate(program.steps)
            if s[0] == "host" and program.operations[s[1]].stateful]


def _regs(template, into):
    kind = type(template)
    if kind is Reg:
        into.add(template.index)
    elif kind in (tuple, list):
        for v in template:
            _regs(v, into)
    elif kind is dict:
        for v in template.values():
            _regs(v, into)
    elif kind is Seq:
        for v in template.items:
            _regs(v, into)
    elif kind is SliceOf:
        for v in (template.start, template.stop, template.step):
            _regs(v, into)
    return into


def _out_regs(out):
    if out is None:
        return set()
    if type(out) is int:
        return {out}
    if out[0] == "seq":
        return set(out[2])
    return set()


def uses(step):
    """Registers a step reads."""
    kind = step[0]
    if kind in ("call", "opaque"):
        return _regs(step[2], set()) | _regs(step[3], set())
    if kind == "method":
        return {step[2].index} | _regs(step[3], set()) | _regs(step[4], set())
    if kind == "guard":
        return {step[2].index}
    if kind == "shape":
        return {step[1].index}
    if kind == "vguard":
        head = step[1]
        return uses(head + (None,))
    if kind == "host":
        return {r for spec in step[3] for r in spec_registers(spec)}
    if kind == "hostgrad":
        return {r for spec in step[3] for r in spec_registers(spec)}
    return set()


def defines(step):
    """Registers a step assigns."""
    kind = step[0]
    if kind in ("input", "read"):
        return {step[2]}
    if kind == "call":
        return _out_regs(step[4])
    if kind == "method":
        return _out_regs(step[5])
    if kind == "opaque":
        return _out_regs(step[4]) | {r for _, specs in step[6] for spec in specs
                                     for r in spec_registers(spec)}
    if kind == "host":
        return {r for spec in step[4] for r in spec_registers(spec)}
    if kind == "hostgrad":
        return set(spec_registers(step[4]))
    if kind == "lazy":
        return set(spec_registers(step[3]))
    return set()


def writes(step):
    """Registers a step writes into in place (None: it may write anything it is given)."""
    kind = step[0]
    if kind in ("host", "hostgrad", "lazy"):
        return None
    out = set()
    if kind in ("call", "opaque", "method"):
        kwargs = step[4] if kind == "method" else step[3]
        _regs(kwargs.get("out"), out)
    if kind == "call":
        fn, args = getattr(step[1], "wrapped", step[1]), step[2]
        if type(fn) is MethodCall:  # a method made inside numpy.errstate
            if fn.name in _WRITING_METHODS and args and type(args[0]) is Reg:
                out.add(args[0].index)
            return out
        if args and type(args[0]) is Reg and (
                fn in _WRITES_FIRST or getattr(fn, "__name__", None) in ("setitem", "at")):
            out.add(args[0].index)
    elif kind == "method" and step[1] in _WRITING_METHODS:
        out.add(step[2].index)
    elif kind == "opaque" and getattr(step[1], "__name__", None) == "scatter_at":
        out |= _regs(step[2][:1], set())
    return out


def hoist_guards(program):
    """The program with every guard before the first effect (see the module docstring)."""
    steps = list(program.steps)
    found = effects(program)
    if not found:
        return program
    first = found[0]
    order = list(range(len(steps)))  # new position -> old index
    position = first
    hoisted = set()
    for g in range(first + 1, len(steps)):
        if steps[g][0] not in _GUARDS:
            continue
        moved = _slice(steps, first, g)
        if moved is None:
            raise Refused(f"a guard ({steps[g][0]}) follows the effect of node "
                          f"{program.operations[steps[first][1]].name} and reads what it may change")
        for index in moved:
            if index in hoisted:
                continue  # moved already, for an earlier guard
            hoisted.add(index)
            order.remove(index)
            order.insert(position, index)
            position += 1
    return reordered(program, order)


def _slice(steps, first, g):
    """Indexes of the steps after `first` that guard `g` needs (itself last), when they can
    all move before step `first`; None when they cannot."""
    needed = uses(steps[g])
    picked = [g]
    for j in range(g - 1, first - 1, -1):
        step = steps[j]
        written = writes(step)
        touches = defines(step) & needed or (written is None and uses(step) & needed) or \
            (written and written & needed)
        if not touches:
            continue
        if step[0] not in _MOVABLE or written:
            return None
        picked.append(j)
        needed |= uses(step)
    # a step left behind must not write what the moved steps read
    moved = set(picked)
    for j in range(first, g):
        if j in moved:
            continue
        written = writes(steps[j])
        if written is None:
            if steps[j][0] != "host" and uses(steps[j]) & needed:
                return None
        elif written & needed:
            return None
    return sorted(picked)


def reordered(program, order):
    """The program with its steps in `order` (new position -> old index), host-gradient and
    lazy steps' references to other steps renumbered."""
    new_index = {old: new for new, old in enumerate(order)}
    steps = []
    for old in order:
        step = program.steps[old]
        if step[0] in ("hostgrad", "lazy"):
            step = (step[0], new_index[step[1]]) + step[2:]
        steps.append(step)
    program.steps = steps
    return program


def dead_steps(program):
    """The program without steps whose results nothing reads (steps that write in place, guards,
    host steps and their gradients stay)."""
    steps = program.steps
    live = {r for spec in program.outputs for r in spec_registers(spec)}
    keep = [False] * len(steps)
    for i in range(len(steps) - 1, -1, -1):
        step = steps[i]
        kind = step[0]
        written = writes(step)
        if kind in _GUARDS or kind in ("host", "hostgrad", "lazy") or written is None or written \
                or defines(step) & live:
            keep[i] = True
            live |= uses(step)
            if written:
                live |= written
    if all(keep):
        return program
    order = [i for i in range(len(steps)) if keep[i]]
    return reordered(program, order)
