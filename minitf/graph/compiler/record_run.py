"""One run of a graph that records its array program (the raw material of a plan).

The run does what the interpreter does, node by node, with the same environment and the same
releases, but the inputs and every variable read are `TracedArray`s, so the ops' own code
(and the tape's backward pass) leaves its numpy calls in a `Recorder`:
- a pure node, and a tape node (entering, leaving, the gradient), runs its normal code on
  traced values;
- a ReadVariableOp reads the variable into a new register (a plan reads it at the same point);
- a host node (a stateful one: variable writes, optimizer and metric updates, random draws;
  control flow, which decides on data; a node an earlier recording found it cannot follow)
  runs its normal code on plain arrays, and its outputs become registers again. When tapes
  record it, the gradient functions it leaves on them run as host steps too, at plan time on
  the records the same node leaves in that run.

The run's own results are the call's results, whatever happens to the recording: what cannot
be recorded (`Recorder.escaped`) makes the program unusable, never the values. When a node's
code fails on traced values with an error that is not TF's, the recording stops, the values
become plain arrays again and the node runs again (a node that is not a host node has no
effect to repeat).
"""
import contextlib
import os
import traceback

import numpy as np

from minitf.errors import errors
from minitf.graph.compiler.interception import intercepting, not_recording, recording_into
from minitf.graph.compiler.recording import Recorder, Reg
from minitf.graph.compiler.traced_array import TracedArray
from minitf.graph.interpreter import with_node
from minitf.indexed_slices import IndexedSlices
from minitf.recording import thread_state, read_variable_eagerly
from minitf.symbolic_tensor import GraphObject, SymbolicTensor
from minitf.tensor import Tensor
from minitf.variable import Variable

__all__ = ["record_run", "Program", "is_host_node"]

_DEBUG = os.environ.get("MINITF_PLAN_DEBUG") == "1"
# Node types whose output shapes follow the data (a trace's examples may not show it).
_DATA_SHAPED = frozenset((
    "Unique", "UniqueV2", "UniqueWithCounts", "UniqueWithCountsV2", "Where", "BooleanMask",
    "Bincount", "DenseBincount", "NonMaxSuppression", "NonMaxSuppressionV2", "NonMaxSuppressionV3",
    "NonMaxSuppressionV4", "NonMaxSuppressionV5", "ListDiff", "Setdiff1d", "DynamicPartition",
    "StringSplit", "StringSplitV2", "RaggedRange", "SparseFillEmptyRows", "Nonzero"))
# Control flow, and the stateless random ops: they read their seed's numbers on the host to run
# Philox, so a recording would freeze one draw (a Keras Dropout's seed changes every step).
_HOST_MODULES = ("minitf.graph.control_flow", "minitf.graph.functional_ops", "minitf.graph.tensor_array",
                 "minitf.ops.stateless_random")


class Program:
    """A recorded run: its steps, output specs, and what the plan builder needs to know.

    Attributes:
      steps: the recorded steps (see `Recorder`; plus "input", "read", "host", "hostgrad",
        "lazy").
      outputs: one spec per flat graph output: ("tensor", reg), ("slices", ...),
        ("const", value) or ("object", reg).
      escaped: [(why, node index)]; a program with escapes is never compiled.
      operations: the interpreter's node list (host steps refer to it by index).
      registers: how many registers the steps use.
      types: {register: (type, dtype, shape) of its value in the recorded run}.
      c_contiguous: the registers whose ndarray was C-contiguous in the recorded run.
    """

    def __init__(self, steps, outputs, escaped, operations, registers, types=None, c_contiguous=()):
        self.steps = steps
        self.outputs = outputs
        self.escaped = escaped
        self.operations = operations
        self.registers = registers
        self.types = types or {}
        self.c_contiguous = frozenset(c_contiguous)


def is_host_node(op):
    """True for a node that always runs as a host step: effects, control flow, and nodes that
    may read state the graph does not show (no graph input at all, like a metric's result, or
    an object holding variables among their arguments)."""
    if op._wants_env:
        return False  # a tape step: its effects are on the run's own tapes
    if op.stateful or getattr(op._fn, "__module__", None) in _HOST_MODULES:
        return True
    template = op._template
    if template is None:
        return False
    if not template._slots:
        return True
    return any(hasattr(leaf, "variables") and not isinstance(leaf, (Tensor, Variable))
               for leaf in template._leaves)


class _Observer:
    """A tape that sees every op that records (the gradient functions a host node leaves)."""

    _forward = False
    _watch_accessed_variables = False
    _recording = True
    _persistent = False

    class _All:
        __slots__ = ()

        def __contains__(self, key):
            return True

        def add(self, key):
            pass

    def __init__(self):
        self._watched = self._All()
        self._records = []

    def _watch_variable(self, variable):
        pass


def observe(fn, *args):
    """(`fn(*args)`, the records its ops left), with an observer among the tapes."""
    observer = _Observer()
    saved = thread_state.active
    thread_state.active = saved + [observer]
    try:
        result = fn(*args)
    finally:
        thread_state.active = [t for t in thread_state.active if t is not observer]
    return result, observer._records


class _Run:
    """The state of one recording run."""

    def __init__(self, concrete, inputs, variables, host_nodes):
        self.graph = concrete.graph
        self.operations = concrete._interpreter.operations
        self.plan_steps = concrete._interpreter._steps
        self.host_nodes = host_nodes
        buffers = [v._value for v in self.graph.variables] + \
            [v._value for v in (variables or {}).values()]
        self.recorder = Recorder(buffers)
        self.env = {}
        self.objects = {}  # id -> (object a host node produced, its register)
        self.inputs = inputs
        self.variables = variables

    # -- values in and out of host code ------------------------------------------------------
    def spec_of(self, value):
        """How a plan rebuilds an environment value for host code, from its registers."""
        if type(value) is Tensor:
            v = value._value
            if type(v) is TracedArray and v.recorder is self.recorder:
                return ("tensor", v.reg)
            return ("const", value)
        if type(value) is IndexedSlices:
            return ("slices", self.spec_of(value.values), self.spec_of(value.indices), value._dims)
        if value is None or isinstance(value, (Variable, bool, int, float, str)):
            return ("const", value)
        obj = self.objects.get(id(value))
        if obj is not None and obj[0] is value:
            return ("object", obj[1])
        self.recorder.escape(f"host code was given a {type(value).__name__} computed in the graph")
        return ("const", value)

    def trace_value(self, value):
        """(spec, value) for a value host code produced: its arrays become new registers (in
        place, so tapes holding the tensors see the traced values)."""
        if type(value) is Tensor:
            raw = value._value
            if type(raw) is TracedArray:
                raw = raw.array
            traced = self.recorder.new(raw)
            value._value = traced
            return ("tensor", traced.reg), value
        if type(value) is IndexedSlices:
            values_spec, _ = self.trace_value(value.values)
            indices_spec, _ = self.trace_value(value.indices)
            return ("slices", values_spec, indices_spec, value._dims), value
        if value is None or isinstance(value, (bool, int, float, str)):
            return ("const", value), value
        reg = self.recorder.registers
        self.recorder.registers += 1
        self.objects[id(value)] = (value, reg)
        return ("object", reg), value

    def lend_plain(self, values):
        """Swap the traced arrays of these environment values for plain ones (host code runs
        on them, keeping the tensors' identities for the tapes); returns the undo list."""
        undo = []
        for value in values:
            for tensor in _tensors_in(value):
                raw = tensor._value
                if type(raw) is TracedArray:
                    undo.append((tensor, raw))
                    tensor._value = raw.array
        return undo

    # -- the run ------------------------------------------------------------------------------
    def run(self):
        recorder, env = self.recorder, self.env
        for i, (placeholder, value) in enumerate(zip(self.graph.inputs, self.inputs)):
            traced = recorder.new(value._value)
            recorder.steps.append(("input", i, traced.reg))
            env[placeholder._id] = Tensor(traced)
        if self.variables:
            env.update(self.variables)
        with intercepting(), _finishing(recorder):
            for index, (op, release) in enumerate(self.plan_steps):
                recorder.node = index
                if op._fn is None:  # Identity of an output: the value itself
                    env[op.outputs[0]._id] = env[op._template._slots[0][1]]
                elif recorder.off:
                    self.run_plain(op)
                elif op._fn is read_variable_eagerly and op.type == "ReadVariableOp":
                    self.read(op)
                elif index in self.host_nodes or is_host_node(op) or self._holds_objects(op):
                    self.host(index, op)
                else:
                    self.traced(index, op)
                for key in release:
                    del env[key]
        outputs = [env[t._id] if isinstance(t, (SymbolicTensor, GraphObject)) else t
                   for t in self.graph.outputs]
        specs = [self.spec_of(v) for v in outputs]
        recorder.finish()
        for value in outputs:
            for tensor in _tensors_in(value):
                if type(tensor._value) is TracedArray:
                    tensor._value = tensor._value.array
        program = Program(recorder.steps, specs, recorder.escaped, self.operations,
                          recorder.registers, recorder.types, recorder.c_contiguous)
        return outputs, program

    def _holds_objects(self, op):
        for t in op.inputs:
            value = self.env.get(t._id)
            if value is not None and not isinstance(value, (Tensor, IndexedSlices, Variable)):
                return True
        return False

    def read(self, op):
        variable = op._template._leaves[0]
        variable = self.env.get(variable._id, variable)
        raw = variable._value
        if type(raw) is not np.ndarray and not isinstance(raw, np.generic):
            self.recorder.escape(f"variable {variable.name} holds a {type(raw).__name__}")
        traced = self.recorder.new(raw)
        self.recorder.steps.append(("read", op._template._leaves[0], traced.reg))
        self.env[op.outputs[0]._id] = read_variable_eagerly(variable, value=traced)

    def traced(self, index, op):
        tapes = _tape_marks()
        traced_in = not op._wants_env and any(
            type(x._value) is TracedArray for t in op.inputs for x in _tensors_in(self.env.get(t._id)))
        try:
            with recording_into(self.recorder):
                op.run(self.env)
        except errors.OpError as e:
            self.abandon()
            raise with_node(e, op) from None
        except Exception as e:  # noqa: BLE001 (the node runs again on plain arrays, below)
            self.recorder.escape(f"node {op.name} failed on traced arrays ({type(e).__name__}: {e})")
            if _DEBUG:
                traceback.print_exc()
            self.abandon()
            self.run_plain(op)
            return
        for tape, start in tapes:
            self._attribute(tape, start, index)
        for t in op.outputs:
            value = self.env.get(t._id)
            if value is not None and not isinstance(value, (Tensor, IndexedSlices)):
                self.recorder.escape(f"node {op.name} produced a {type(value).__name__}")
            elif traced_in and any(type(x._value) is not TracedArray for x in _tensors_in(value)):
                # computed without the traced values: from state the graph does not show, or
                # from shapes alone; a host step computes it each run
                self.recorder.escape(f"node {op.name} produced a value the recording did not see made")

    def _attribute(self, tape, start, index):
        """Wrap the gradient functions `tape` got from node `index`, so an escape inside them
        names that node."""
        records = tape._records
        if records is None:
            return
        for i in range(start, len(records)):
            op, ins, outs, grad_fn = records[i]
            if type(grad_fn) not in (_Attributed, _HostGrad):
                records[i] = (op, ins, outs, _Attributed(self.recorder, index, grad_fn))

    def host(self, index, op):
        ids = _input_ids(op)
        values = [self.env.get(key) for key in ids]
        specs = tuple(self.spec_of(v) for v in values)
        undo = self.lend_plain(values)
        tapes = _tape_marks()
        observed = bool(tapes)  # the interpreter would run it with tapes recording
        step = len(self.recorder.steps)
        self.recorder.steps.append(None)  # the host step, filled below (its outputs come first)
        try:
            with not_recording(), _unseen(self.recorder):
                if observed:
                    _, records = observe(op.run, self.env)
                else:
                    op.run(self.env)
                    records = ()
        except errors.OpError as e:
            self.abandon()
            raise with_node(e, op) from None
        finally:
            for tensor, raw in undo:
                tensor._value = raw
        outs, shapes = [], []
        for t in op.outputs:
            value = self.env[t._id]
            spec, _ = self.trace_value(value)
            outs.append(spec)
            if spec[0] == "tensor" and (not t.shape.is_fully_defined() or op.type in _DATA_SHAPED):
                # a shape the graph does not fix: the plan checks it (later steps assume it)
                shapes.append(("shape", Reg(spec[1]), np.shape(value._value.array)))
        for tape, start in tapes:
            if tape._records is None:
                continue
            for i in range(start, len(tape._records)):
                rec = tape._records[i]
                j = next((n for n, r in enumerate(records) if r is rec), None)
                if j is None:
                    self.recorder.escape(f"host node {op.name} recorded on a tape unobserved")
                    continue
                tape._records[i] = rec[:3] + (_HostGrad(self, step, j, rec, len(records)),)
        self.recorder.steps[step] = ("host", index, ids, specs, tuple(outs), observed)
        self.recorder.steps.extend(shapes)

    def run_plain(self, op):
        """Run `op` as the interpreter does (after the recording stopped), on plain arrays (a
        gradient may have handed on a tensor made before the recording stopped)."""
        self.lend_plain([self.env.get(t._id) for t in op.inputs])
        try:
            op.run(self.env)
        except errors.OpError as e:
            raise with_node(e, op) from None

    def abandon(self):
        """Stop recording: every traced value in the environment becomes plain again."""
        self.recorder.finish()
        for value in self.env.values():
            for tensor in _tensors_in(value):
                if type(tensor._value) is TracedArray:
                    tensor._value = tensor._value.array


@contextlib.contextmanager
def _unseen(recorder):
    """Host code runs on plain arrays: a traced one reaching it is an escape."""
    recorder.depth += 1
    try:
        yield
    finally:
        recorder.depth -= 1


@contextlib.contextmanager
def _finishing(recorder):
    try:
        yield
    finally:
        recorder.finish()


def _tensors_in(value):
    if type(value) is Tensor:
        return (value,)
    if type(value) is IndexedSlices:
        return (value.values, value.indices)
    return ()


def _input_ids(op):
    seen, ids = set(), []
    for t in op.inputs:
        if t._id not in seen:
            seen.add(t._id)
            ids.append(t._id)
    return tuple(ids)


def _tape_marks():
    return [(tape, len(tape._records)) for tape in thread_state.active
            if getattr(tape, "_records", None) is not None and not isinstance(tape, _Observer)]


class _Attributed:
    """A traced node's gradient function: escapes inside it name the node."""

    __slots__ = ("recorder", "index", "fn")

    def __init__(self, recorder, index, fn):
        self.recorder, self.index, self.fn = recorder, index, fn

    def __call__(self, *upstream):
        saved = self.recorder.node
        self.recorder.node = self.index
        try:
            return self.fn(*upstream)
        finally:
            self.recorder.node = saved


class _HostGrad:
    """The gradient function a host node left on a tape: called on plain arrays and recorded
    as one step, which a plan runs on the function the node leaves in its run."""

    __slots__ = ("run", "host_step", "index", "record", "count")

    def __init__(self, run, host_step, index, record, count):
        self.run, self.host_step, self.index, self.record = run, host_step, index, record
        self.count = count  # records the host node left: a plan checks it gets as many

    def __call__(self, *upstream):
        run = self.run
        recorder = run.recorder
        fn = self.record[3]
        if recorder.off:
            return fn(*[_plain(u) for u in upstream])
        if thread_state.active:
            recorder.escape("a tape records the gradient of a host node")
        specs = tuple(run.spec_of(u) for u in upstream)
        plain = [_plain(u) for u in upstream]
        # the function may read the node's own inputs and outputs: plain while it runs
        undo = run.lend_plain(list(self.record[1]) + list(self.record[2]))
        try:
            with not_recording(), _unseen(recorder):
                result = fn(*plain)
        finally:
            for tensor, raw in undo:
                tensor._value = raw
        step = len(recorder.steps)
        recorder.steps.append(None)
        spec, traced = _trace_result(run, step, result, self.record)
        recorder.steps[step] = ("hostgrad", self.host_step, self.index, specs, spec, self.record[0],
                                self.count)
        return traced


def _plain(value):
    """A new tensor (or IndexedSlices) with plain arrays for an environment value."""
    if type(value) is Tensor and type(value._value) is TracedArray:
        return Tensor(value._value.array)
    if type(value) is IndexedSlices:
        return IndexedSlices(_plain(value.values), _plain(value.indices), value._dims)
    return value


def _trace_result(run, step, result, record, path=()):
    """(spec, traced result) for what a gradient function returned: tensors, None, lazy
    gradients (zero-argument callables), in tuples and lists."""
    if isinstance(result, (tuple, list)):
        parts = [_trace_result(run, step, r, record, path + (i,)) for i, r in enumerate(result)]
        return ("seq", type(result), tuple(p[0] for p in parts)), type(result)(p[1] for p in parts)
    if callable(result) and not isinstance(result, (Tensor, IndexedSlices)):
        return ("lazy",), _Lazy(run, step, path, result, record)
    if type(result) is Tensor:
        return run.trace_value(result)
    if type(result) is IndexedSlices:
        return run.trace_value(result)
    if result is None:
        return ("const", None), None
    run.recorder.escape(f"a gradient function returned a {type(result).__name__}")
    return ("const", result), result


class _Lazy:
    """A lazy gradient a host gradient function returned: recorded when it is called."""

    __slots__ = ("run", "step", "path", "fn", "record")

    def __init__(self, run, step, path, fn, record):
        self.run, self.step, self.path, self.fn, self.record = run, step, path, fn, record

    def __call__(self):
        recorder = self.run.recorder
        if recorder.off:
            return self.fn()
        undo = self.run.lend_plain(list(self.record[1]) + list(self.record[2]))
        try:
            with not_recording(), _unseen(recorder):
                result = self.fn()
        finally:
            for tensor, raw in undo:
                tensor._value = raw
        spec, traced = _trace_result(self.run, len(recorder.steps), result, self.record)
        recorder.steps.append(("lazy", self.step, self.path, spec))
        return traced


def record_run(concrete, inputs, variables=None, host_nodes=frozenset()):
    """(outputs, Program) of one run of `concrete`'s graph on `inputs`.

    Args:
      concrete: the ConcreteFunction.
      inputs: the flat input tensors (numpy-valued).
      variables: {traced variable id: variable} for variable arguments.
      host_nodes: indexes of nodes to run as host steps (found by earlier recordings).
    """
    return _Run(concrete, inputs, variables, host_nodes).run()
