"""Plans: a ConcreteFunction's graph compiled, per input signature, into one Python function.

`PlanCache.call` is what `ConcreteFunction._call_flat` asks first. For each signature of its
inputs (their shapes and dtypes) it records the graph's array program on a call (that call's
own results are returned), records it again on the next call, and when both recordings are
the same program it compiles the program (`codegen`) and runs the plan from then on. A
recording that escapes names the nodes it could not follow: they run as host steps on the
next recording. A signature whose recordings cannot agree or keep escaping stays with the
interpreter; so does a call whose plan fails a guard (only ever before the plan's first
effect) or raises before its first effect: the interpreter runs that call from the start.

Plans are on unless the environment sets ``MINITF_COMPILED_PLANS=0``; `set_enabled` switches
them for the process (tests and benchmarks compare with the interpreter).
"""
import os

import numpy as np

from minitf import backend
from minitf.errors import errors
from minitf.graph.compiler.codegen import CodegenError, generate, spec_registers
from minitf.graph.compiler.cse import common_subexpressions
from minitf.graph.compiler.fusion import fuse_elementwise
from minitf.graph.compiler.invariants import variable_invariants
from minitf.graph.compiler.optimize import Refused, dead_steps, effects, hoist_guards
from minitf.graph.compiler.peephole import direct_reductions
from minitf.graph.compiler.record_run import is_host_node, observe, record_run
from minitf.graph.compiler.recording import MethodCall, Reg, Seq, SliceOf, WithErrstate
from minitf.graph.interpreter import with_node
from minitf.tensor import Tensor

__all__ = ["PlanCache", "set_enabled", "enabled", "ENABLED"]

# Read by ConcreteFunction._call_flat on every call: a list, so the check is one item read.
ENABLED = [os.environ.get("MINITF_COMPILED_PLANS", "1") != "0"]

_SCALARS = frozenset(np.dtype(c).type for c in "?bhilqBHILQefdgFDG")
_DEBUG = os.environ.get("MINITF_PLAN_DEBUG") == "1"
_MAX_SIGNATURES = 16   # plans kept per ConcreteFunction
_MAX_RECORDINGS = 6    # recordings per signature before it stays with the interpreter
_DIRECT_REDUCTIONS = [True]  # peephole.direct_reductions (a switch to measure it)
_VARIABLE_INVARIANTS = [True]  # invariants.variable_invariants (a switch to measure it)
_CSE = [True]  # cse.common_subexpressions (a switch to measure it)
# fusion.fuse_elementwise (with numba installed); MINITF_FUSION=0 turns it off
_FUSION = [os.environ.get("MINITF_FUSION", "1") != "0"]
_MAX_FALLBACKS = 4     # failed guards (more than successful runs) before a plan is dropped


def set_enabled(flag):
    """Use compiled plans (True) or always the interpreter (False); returns the old setting."""
    old = ENABLED[0]
    ENABLED[0] = bool(flag)
    return old


def enabled():
    """Whether traced functions run compiled plans."""
    return ENABLED[0]


class _Entry:
    """What one input signature has: its plan, or how far its recordings got."""

    __slots__ = ("plan", "previous", "host_nodes", "recordings", "dead", "reason", "fallbacks",
                 "source", "program", "runs")

    def __init__(self):
        self.plan = None
        self.previous = None
        self.host_nodes = set()
        self.recordings = 0
        self.dead = False
        self.reason = None
        self.fallbacks = 0
        self.source = None
        self.program = None
        self.runs = 0  # calls the plan answered


class PlanCache:
    """The plans of one ConcreteFunction, one per input signature."""

    def __init__(self, concrete):
        self.concrete = concrete
        self.entries = {}
        self._remappable = frozenset(v._id for v in concrete.graph.variable_arguments)

    def call(self, inputs, variables):
        """The flat outputs for `inputs`, or None when the interpreter must run this call."""
        key = []
        for value in inputs:
            if type(value) is not Tensor:
                return None
            raw = value._value
            kind = type(raw)
            if kind is not np.ndarray and kind not in _SCALARS:
                return None
            key.append((kind, raw.shape, raw.dtype))
        key = tuple(key)
        entry = self.entries.get(key)
        if entry is None:
            if len(self.entries) >= _MAX_SIGNATURES:
                return None
            entry = self.entries[key] = _Entry()
        plan = entry.plan
        if plan is not None:
            if backend._EXTRA_MODULES and not self._variables_on_host(variables):
                return None
            progress = [0]
            try:
                outputs = plan(inputs, variables, progress)
            except errors.OpError:
                raise
            except Exception:
                if progress[0]:
                    raise
                outputs = None
            if outputs is None:
                entry.fallbacks += 1
                if entry.fallbacks >= _MAX_FALLBACKS and entry.fallbacks > entry.runs:
                    # its guards keep failing (they read data that changes): not worth trying
                    entry.plan, entry.dead = None, True
                    entry.reason = f"guards failed on {entry.fallbacks} of {entry.fallbacks + entry.runs} calls"
            else:
                entry.runs += 1
            return outputs
        if entry.dead:
            return None
        return self._record(entry, inputs, variables)

    def _variables_on_host(self, variables):
        values = list(self.concrete.graph.variables) + list((variables or {}).values())
        return all(type(v._value) is np.ndarray or type(v._value) in _SCALARS for v in values)

    def _record(self, entry, inputs, variables):
        if backend._EXTRA_MODULES and not self._variables_on_host(variables):
            return None
        outputs, program = record_run(self.concrete, inputs, variables, frozenset(entry.host_nodes))
        entry.recordings += 1
        try:
            self._learn(entry, program)
        except Refused as e:
            entry.dead, entry.reason, entry.previous = True, str(e), None
            if _DEBUG:
                print(f"[minitf plans] {self.concrete.name}: refused: {e}")
        if entry.plan is None and entry.recordings >= _MAX_RECORDINGS and not entry.dead:
            entry.dead, entry.reason, entry.previous = True, "recordings did not settle", None
        return outputs

    def _learn(self, entry, program):
        operations = program.operations
        if program.escaped:
            entry.previous = None
            entry.reason = "; ".join(f"{why} (node {_node_name(operations, n)})"
                                     for why, n in program.escaped[:5])
            if _DEBUG:
                print(f"[minitf plans] {self.concrete.name}: {entry.reason}")
            culprits = {n for _, n in program.escaped}
            for n in culprits:
                if n is None or n in entry.host_nodes or operations[n]._wants_env or \
                        operations[n].type == "ReadVariableOp" or is_host_node(operations[n]):
                    raise Refused(entry.reason)
            entry.host_nodes |= culprits
            return
        for step in program.steps:
            if step[0] == "read" and not step[1]._validate_shape:
                raise Refused(f"variable {step[1].name} may change its shape")
        program = hoist_guards(program)
        if entry.previous is None or not _same_program(entry.previous, program):
            if _DEBUG and entry.previous is not None:
                print(f"[minitf plans] {self.concrete.name}: recordings differ: "
                      f"{_first_difference(entry.previous, program)}")
            entry.previous = program
            entry.reason = "waiting for a second recording" if entry.previous is program else None
            return
        entry.plan, entry.source = self._compile(program)
        entry.program, entry.previous, entry.reason = program, None, None

    def _compile(self, program):
        program = dead_steps(program)
        if _DIRECT_REDUCTIONS[0]:
            program = direct_reductions(program)
        if _CSE[0]:
            program = common_subexpressions(program)
        if _FUSION[0]:
            program = fuse_elementwise(program)
        invariants = None
        if _VARIABLE_INVARIANTS[0]:
            outputs = {r for spec in program.outputs for r in spec_registers(spec)}
            program, invariants = variable_invariants(program, self._remappable, outputs)
        runners = {}
        for i, step in enumerate(program.steps):
            if step[0] == "host":
                runners[i] = _runner(program.operations[step[1]], step[2], step[5])
        try:
            source, namespace = generate(program, runners, effects(program), self._remappable, invariants)
        except CodegenError as e:
            raise Refused(str(e)) from None
        code = compile(source, f"<minitf plan of {self.concrete.name}>", "exec")
        exec(code, namespace)  # noqa: S102 (our own generated source)
        return namespace["plan"], source

    def describe(self):
        """{signature: what its entry holds}, for debugging and reports."""
        out = {}
        for key, entry in self.entries.items():
            if entry.plan is not None:
                steps = entry.program.steps
                hosts = [entry.program.operations[s[1]].name for s in steps if s[0] == "host"]
                out[key] = {"plan": True, "steps": len(steps), "host_steps": hosts,
                            "runs": entry.runs, "fallbacks": entry.fallbacks,
                            "recordings": entry.recordings}
            else:
                out[key] = {"plan": False, "dead": entry.dead, "reason": entry.reason,
                            "recordings": entry.recordings}
        return out


def _node_name(operations, index):
    return operations[index].name if index is not None else "?"


def _runner(op, ids, observed):
    """The host step of node `op`: its normal code on this run's values."""
    outputs = tuple(op.outputs)

    def run(variables, values):
        env = dict(zip(ids, values))
        if variables:
            env.update(variables)
        try:
            if observed:
                _, records = observe(op.run, env)
            else:
                op.run(env)
                records = None
        except errors.OpError as e:
            raise with_node(e, op) from None
        return tuple(env[t._id] for t in outputs), records
    run.__name__ = f"host_{op.name}"
    return run


# -- comparing two recordings -----------------------------------------------------------------

def _same_program(a, b):
    if len(a.steps) != len(b.steps) or a.registers != b.registers:
        return False
    return all(_same(x, y) for x, y in zip(a.steps, b.steps)) and _same(a.outputs, b.outputs)


def _first_difference(a, b):
    """Where two recordings part (for debugging)."""
    if len(a.steps) != len(b.steps):
        return f"{len(a.steps)} vs {len(b.steps)} steps"
    for i, (x, y) in enumerate(zip(a.steps, b.steps)):
        if not _same(x, y):
            return f"step {i} ({x[0]}): {_difference(x, y)}"
    return "the outputs" if not _same(a.outputs, b.outputs) else f"{a.registers} vs {b.registers} registers"


def _difference(x, y, path=""):
    if path.count("[") + path.count(".") > 12:
        return f"{path}: too deep"
    if isinstance(x, (tuple, list)) and type(x) is type(y) and len(x) == len(y):
        for i, (a, b) in enumerate(zip(x, y)):
            if not _same(a, b):
                return _difference(a, b, f"{path}[{i}]")
    if isinstance(x, dict) and type(y) is dict and x.keys() == y.keys():
        for k in x:
            if not _same(x[k], y[k]):
                return _difference(x[k], y[k], f"{path}[{k!r}]")
    sx, sy = _state_of(x), _state_of(y)
    if sx is not None and sy is not None and type(x) is type(y) and not callable(x):
        return _difference(sx, sy, f"{path}.state")
    return f"{path}: {type(x).__name__} {str(x)[-300:]!r} vs {type(y).__name__} {str(y)[-300:]!r}"


def _same(x, y, depth=0):
    if x is y:
        return True
    kind = type(x)
    if kind is not type(y):
        return False
    if depth > 30:
        return False
    if isinstance(x, (tuple, list)):
        return len(x) == len(y) and all(_same(a, b, depth + 1) for a, b in zip(x, y))
    if kind is dict:
        return x.keys() == y.keys() and all(_same(x[k], y[k], depth + 1) for k in x)
    if kind in (Reg, Seq, SliceOf, WithErrstate, MethodCall):
        return x == y
    if kind is np.ndarray:
        return x.dtype == y.dtype and x.shape == y.shape and \
            bool(np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"))
    if isinstance(x, np.generic):
        return x.dtype == y.dtype and (x == y or (x != x and y != y))
    if kind is Tensor:
        return _same(x._value, y._value)
    if kind in (bool, int, float, complex, str, bytes, type(None), slice, np.dtype):
        return x == y or (x != x and y != y)
    if callable(x) or isinstance(x, type):
        # functions and classes: the same one; bound methods (ufunc.at): of the same object
        return getattr(x, "__self__", None) is not None and x == y
    # plain data objects (a convolution's geometry): the same attributes
    state_x, state_y = _state_of(x), _state_of(y)
    return state_x is not None and state_y is not None and _same(state_x, state_y, depth + 1)


def _state_of(obj):
    state = getattr(obj, "__dict__", None)
    if state is not None:
        return dict(state)
    slots = [name for cls in type(obj).__mro__ for name in getattr(cls, "__slots__", ())]
    if not slots:
        return None
    return {name: getattr(obj, name, None) for name in slots if name != "__weakref__"}
