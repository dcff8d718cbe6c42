"""A plan's program as Python source: one function, compiled once.

Registers are local variables (`r12`); functions, arrays and other objects the steps use are
globals of the generated module (`k3`); Python numbers, strings and tuples of them are written
as literals. Each register is deleted right after its last use, so a plan holds no array
longer than needed (an optimizer that updates a variable in place finds no stale read holding
its array). Mid-sized ufunc results go into buffers the plan keeps between calls
(`minitf.graph.compiler.buffers`), each written only when nothing else holds it.

The function is `plan(inputs, _vm, _p)`: the flat input tensors, the variable arguments of
this call ({traced variable id: variable}, or None) and a one-item list set to 1 right before
the first step with an effect. It returns the flat outputs, or None when a guard fails (only
ever before the first effect: the builder refuses programs with a guard after one).
"""
import keyword
import math
import operator
import sys

import numpy as np

from minitf.graph.compiler import buffers
from minitf.graph.compiler.recording import Reg, Seq, SliceOf
from minitf.indexed_slices import IndexedSlices
from minitf.tensor import Tensor

__all__ = ["generate", "CodegenError"]


class CodegenError(Exception):
    """A program the generator cannot write (the message says why)."""


_READ_EXPR = {"bool": "bool({})", "int": "int({})", "float": "float({})", "complex": "complex({})",
              "index": "_index({})", "item": "{}.item()", "tolist": "{}.tolist()"}


def _same(a, b):
    """True when a guard's value now is the recorded one (same type, equal, or both NaN)."""
    return type(a) is type(b) and (a == b or (a != a and b != b))


class PlanError(RuntimeError):
    """A plan found its run going another way than the recorded one, past a point of no return."""


def _gradient_of(records, index, op, count):
    """The gradient function of the `index`-th record a host step left (checked against the
    recording: the same number of records, the same op)."""
    if len(records) != count or records[index][0] is not op:
        raise PlanError(f"a host node left other tape records than when its plan was recorded "
                        f"({len(records)} records, not {count}); run with MINITF_COMPILED_PLANS=0 "
                        f"and report this")
    return records[index][3]


def _seq(kind, items):
    return kind(*items) if hasattr(kind, "_fields") else kind(items)


class _Writer:
    def __init__(self):
        self.globals = {"_T": Tensor, "_IS": IndexedSlices, "_same": _same, "_seq": _seq,
                        "_gradient_of": _gradient_of, "_rc": sys.getrefcount, "_E": np.empty,
                        "_index": operator.index, "_EMPTY": {}}
        self._names = {}  # id(object) -> global name
        self.lines = []
        self.indent = 0

    def const(self, value):
        """Source text for a constant: a literal when exact, else a global."""
        kind = type(value)
        if value is None or kind in (bool, int, str, bytes):
            return repr(value)
        if kind is float and math.isfinite(value):
            return repr(value)
        if kind is tuple and all(type(v) in (bool, int, str) or v is None for v in value):
            return repr(value)
        known = self._names.get(id(value))
        if known is not None and self.globals[known] is value:
            return known
        name = f"k{len(self._names)}"
        self._names[id(value)] = name
        self.globals[name] = value
        return name

    def render(self, template):
        kind = type(template)
        if kind is Reg:
            return f"r{template.index}"
        if kind is tuple:
            if not template:
                return "()"
            return "(" + ", ".join(self.render(v) for v in template) + ",)"
        if kind is list:
            return "[" + ", ".join(self.render(v) for v in template) + "]"
        if kind is dict:
            return "{" + ", ".join(f"{self.const(k)}: {self.render(v)}" for k, v in template.items()) + "}"
        if kind is Seq:
            return f"_seq({self.const(template.kind)}, [" + \
                ", ".join(self.render(v) for v in template.items) + "])"
        if kind is SliceOf:
            return f"slice({self.render(template.start)}, {self.render(template.stop)}, " \
                   f"{self.render(template.step)})"
        return self.const(template)

    def arguments(self, args, kwargs, replace=None):
        parts = [replace.get(i) or self.render(a) for i, a in enumerate(args)] if replace else \
            [self.render(a) for a in args]
        n = len(args)
        for i, (key, value) in enumerate(kwargs.items()):
            text = (replace or {}).get(n + i) or self.render(value)
            if key.isidentifier() and not keyword.iskeyword(key):
                parts.append(f"{key}={text}")
            else:
                parts.append(f"**{{{key!r}: {text}}}")
        return ", ".join(parts)

    def targets(self, out):
        if out is None:
            return ""
        if type(out) is int:
            return f"r{out} = "
        _, _, regs = out
        if len(regs) == 1:
            return f"r{regs[0]}, = "
        return ", ".join(f"r{r}" for r in regs) + " = "

    def emit(self, line):
        self.lines.append("    " * (1 + self.indent) + line)


def _head_expr(w, head):
    if head[0] == "call":
        _, fn, args, kwargs = head
        return f"{w.const(fn)}({w.arguments(args, kwargs)})"
    _, name, reg, args, kwargs = head
    return f"r{reg.index}.{name}({w.arguments(args, kwargs)})"


def _extract(w, spec, expr):
    """Assignments taking the registers of `spec` out of the value `expr` (host results)."""
    kind = spec[0]
    if kind == "tensor":
        w.emit(f"r{spec[1]} = {expr}._value")
    elif kind == "slices":
        _extract(w, spec[1], f"{expr}.values")
        _extract(w, spec[2], f"{expr}.indices")
    elif kind == "object":
        w.emit(f"r{spec[1]} = {expr}")
    elif kind == "reg":
        w.emit(f"r{spec[1]} = {expr}")
    elif kind == "seq":
        for i, item in enumerate(spec[2]):
            _extract(w, item, f"{expr}[{i}]")
    # "const" and "lazy" hold no register


def _build(w, spec):
    """Source building a host value (a tensor of a register, a constant) from `spec`."""
    kind = spec[0]
    if kind == "tensor":
        return f"_T(r{spec[1]})"
    if kind == "slices":
        return f"_IS({_build(w, spec[1])}, {_build(w, spec[2])}, {w.const(spec[3])})"
    if kind == "object":
        return f"r{spec[1]}"
    return w.const(spec[1])


def spec_registers(spec):
    """The registers a spec names."""
    kind = spec[0]
    if kind in ("tensor", "object", "reg"):
        return (spec[1],)
    if kind == "slices":
        return spec_registers(spec[1]) + spec_registers(spec[2])
    if kind == "seq":
        return tuple(r for item in spec[2] for r in spec_registers(item))
    return ()


def generate(program, host_runners, effects, remappable, invariants=None):
    """(source, globals) of the plan function for `program`.

    Args:
      program: the Program (steps and output specs), already checked and optimized.
      host_runners: {step index: callable(vm, values) -> (outputs, records)} for host steps.
      effects: indexes of the steps with effects.
      remappable: ids of the traced variables a call may replace (variable arguments).
      invariants: the `minitf.graph.compiler.invariants.Invariants` of the program, or None:
        its steps run only when a variable they read has a new version.
    """
    w = _Writer()
    steps = program.steps
    names_used, names_defined = _names(steps, program.outputs)
    last_use = {}
    for i, used in enumerate(names_used):
        for name in used:
            last_use[name] = i
    for name in (n for spec in program.outputs for n in (f"r{r}" for r in spec_registers(spec))):
        last_use[name] = len(steps)
    first_effect = min(effects) if effects else len(steps)
    buffer_of, buffer_types = buffers.plan_buffers(steps, program.types, program.c_contiguous, names_used,
                                                   names_defined, last_use, buffers.MIN_BYTES, buffers.MAX_BYTES)
    if invariants:  # their results outlive the call: never in a buffer other steps reuse
        kept_steps = range(invariants.reads, invariants.reads + invariants.steps)
        buffer_of = {i: slot for i, slot in buffer_of.items() if i not in kept_steps}
    w.globals["_B"] = [None] * len(buffer_types)
    block = range(invariants.reads, invariants.reads + invariants.steps) if invariants else range(0)
    for i, step in enumerate(steps):
        if i == first_effect:
            w.emit("_p[0] = 1")
        if block and i == block.start:
            _open_invariants(w, invariants)
        if i in buffer_of:
            _kept_buffer_step(w, step, buffer_of[i], buffer_types[buffer_of[i]])
        else:
            _step(w, i, step, host_runners, remappable)
        dead = [n for n in names_defined[i] if last_use.get(n, -1) <= i] + \
            [n for n in names_used[i] if last_use.get(n) == i]
        if dead:
            w.emit("del " + ", ".join(sorted(set(dead))))
        if block and i == block.stop - 1:
            _close_invariants(w, invariants)
    outputs = [_build(w, spec) for spec in program.outputs]
    w.emit("return (" + "".join(o + ", " for o in outputs) + ")")
    source = "def plan(inputs, _vm, _p):\n" + "\n".join(w.lines) + "\n"
    return source, w.globals


def _open_invariants(w, invariants):
    """The start of the steps that run only when a variable they read changed: `_V[0]` holds
    (the versions they last ran with, their kept results), replaced as one item, so two
    threads running the plan never pair one run's versions with another's results."""
    w.globals["_V"] = [None]
    versions = "".join(f"{w.const(v)}._version, " for v in invariants.variables)
    w.emit(f"_v = ({versions})")
    w.emit("_kv = _V[0]")
    w.emit("if _kv is None or _kv[0] != _v:")
    w.indent += 1


def _close_invariants(w, invariants):
    kept = "".join(f"r{r}, " for r in invariants.kept)
    w.emit(f"_kv = _V[0] = (_v, ({kept}))")
    w.indent -= 1
    if kept:
        w.emit(f"{kept} = _kv[1]")
    w.emit("del _v, _kv")


def _kept_buffer_step(w, step, slot, buffer_type):
    """A ufunc call writing into kept buffer `slot` (see `minitf.graph.compiler.buffers`): a
    fresh one when anything but the plan still holds it (the list, `_b` and getrefcount's
    argument make 3)."""
    _, fn, args, kwargs, out = step
    shape, dtype = buffer_type
    w.emit(f"_b = _B[{slot}]")
    w.emit(f"if _rc(_b) != 3: _b = _B[{slot}] = _E({shape!r}, {w.const(dtype)})")
    w.emit(f"r{out} = {w.const(fn)}({w.arguments(args, kwargs)}, out=_b)")


def _step(w, i, step, host_runners, remappable):
    kind = step[0]
    if kind == "input":
        w.emit(f"r{step[2]} = inputs[{step[1]}]._value")
    elif kind == "read":
        variable = step[1]
        if variable._id in remappable:
            w.emit(f"r{step[2]} = (_vm or _EMPTY).get({variable._id}, {w.const(variable)})._value")
        else:
            w.emit(f"r{step[2]} = {w.const(variable)}._value")
    elif kind == "call":
        _, fn, args, kwargs, out = step
        w.emit(f"{w.targets(out)}{w.const(fn)}({w.arguments(args, kwargs)})")
    elif kind == "method":
        _, name, reg, args, kwargs, out = step
        w.emit(f"{w.targets(out)}r{reg.index}.{name}({w.arguments(args, kwargs)})")
    elif kind == "opaque":
        _, fn, args, kwargs, out, fresh, side = step
        replace = {pos: f"_l{i}_{pos}" for pos in fresh}
        for name in replace.values():
            w.emit(f"{name} = []")
        w.emit(f"{w.targets(out)}{w.const(fn)}({w.arguments(args, kwargs, replace)})")
        for pos, specs in side:
            for n, spec in enumerate(specs):
                _extract(w, spec, f"_l{i}_{pos}[{n}]")
    elif kind == "guard":
        _, read, reg, expected = step
        expr = _READ_EXPR[read].format(f"r{reg.index}")
        if type(expected) is bool:
            w.emit(f"if {expr} is not {expected}: return None")
        else:
            w.emit(f"if not _same({expr}, {w.const(expected)}): return None")
    elif kind == "vguard":
        _, head, expected = step
        w.emit(f"if not _same({_head_expr(w, head)}, {w.const(expected)}): return None")
    elif kind == "shape":
        _, reg, shape = step
        w.emit(f"if r{reg.index}.shape != {w.const(tuple(shape))}: return None")
    elif kind == "host":
        _, node, ids, specs, outs, observed = step
        runner = w.const(host_runners[i])
        values = "(" + "".join(_build(w, s) + ", " for s in specs) + ")"
        w.emit(f"_h{i} = {runner}(_vm, {values})")
        for n, spec in enumerate(outs):
            _extract(w, spec, f"_h{i}[0][{n}]")
    elif kind == "hostgrad":
        _, host_step, j, specs, out, op, count = step
        values = ", ".join(_build(w, s) for s in specs)
        w.emit(f"_g{i} = _gradient_of(_h{host_step}[1], {j}, {w.const(op)}, {count})({values})")
        _extract(w, out, f"_g{i}")
    elif kind == "lazy":
        _, grad_step, path, out = step
        w.emit(f"_z{i} = _g{grad_step}{''.join(f'[{p}]' for p in path)}()")
        _extract(w, out, f"_z{i}")
    else:
        raise CodegenError(f"unknown step kind {kind!r}")


def _template_regs(template, into):
    kind = type(template)
    if kind is Reg:
        into.add(f"r{template.index}")
    elif kind in (tuple, list):
        for v in template:
            _template_regs(v, into)
    elif kind is dict:
        for v in template.values():
            _template_regs(v, into)
    elif kind is Seq:
        for v in template.items:
            _template_regs(v, into)
    elif kind is SliceOf:
        for v in (template.start, template.stop, template.step):
            _template_regs(v, into)


def _out_names(out):
    if out is None:
        return set()
    if type(out) is int:
        return {f"r{out}"}
    return {f"r{r}" for r in out[2]}


def _names(steps, outputs):
    """([names each step reads], [names each step defines]) over registers and temporaries."""
    used, defined = [], []
    for i, step in enumerate(steps):
        kind = step[0]
        u, d = set(), set()
        if kind in ("input", "read"):
            d.add(f"r{step[2]}")
        elif kind == "call":
            _template_regs(step[2], u)
            _template_regs(step[3], u)
            d |= _out_names(step[4])
        elif kind == "method":
            u.add(f"r{step[2].index}")
            _template_regs(step[3], u)
            _template_regs(step[4], u)
            d |= _out_names(step[5])
        elif kind == "opaque":
            _template_regs(step[2], u)
            _template_regs(step[3], u)
            d |= _out_names(step[4])
            d |= {f"_l{i}_{pos}" for pos in step[5]}
            for _, specs in step[6]:
                d |= {f"r{r}" for spec in specs for r in spec_registers(spec)}
        elif kind == "guard":
            u.add(f"r{step[2].index}")
        elif kind == "shape":
            u.add(f"r{step[1].index}")
        elif kind == "vguard":
            head = step[1]
            if head[0] == "call":
                _template_regs(head[2], u)
                _template_regs(head[3], u)
            else:
                u.add(f"r{head[2].index}")
                _template_regs(head[3], u)
                _template_regs(head[4], u)
        elif kind == "host":
            u |= {f"r{r}" for spec in step[3] for r in spec_registers(spec)}
            d.add(f"_h{i}")
            d |= {f"r{r}" for spec in step[4] for r in spec_registers(spec)}
        elif kind == "hostgrad":
            u.add(f"_h{step[1]}")
            u |= {f"r{r}" for spec in step[3] for r in spec_registers(spec)}
            d.add(f"_g{i}")
            d |= {f"r{r}" for r in spec_registers(step[4])}
        elif kind == "lazy":
            u.add(f"_g{step[1]}")
            d.add(f"_z{i}")
            d |= {f"r{r}" for r in spec_registers(step[3])}
        used.append(u)
        defined.append(d)
    return used, defined

