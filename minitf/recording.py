"""What every op needs from the tape machinery, and nothing more: the thread-local stack of
recording tapes, op declarations, `record`, and the hook that watches variable reads.

This module knows no op. `GradientTape` (in `minitf.tape`) sits above the ops and walks the
records this module collects.

An op is declared once, next to its forward function, as an `Op`:

    ADD = Op("AddV2", batchable=True, dtypes=NUMERIC)

The declaration owns the TF name (used in error messages and on the tape), whether the gradient
rule accepts cotangents with extra leading batch dimensions (vectorized jacobians), the dtypes
the kernel accepts, and the conversion of array-library shape errors into TF's
InvalidArgumentError. The op body then reads: convert, compute, wrap, `record(ADD, ...)`.

Gradient rule contract: `grad_fn(*upstream)` gets one cotangent per output and returns the
cotangent of each input (one value for a single input, else a tuple). An entry may be None
(no gradient) or a zero-argument callable, evaluated only when that input needs a gradient.
"""
import contextlib
import threading

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["Op", "record", "read_variable", "read_variable_eagerly", "is_recording",
           "stop_recording_all", "active_graph", "tracing", "init_scope"]


class _State(threading.local):
    def __init__(self):
        self.active = []  # tapes currently recording on this thread, outermost first
        # The graph `tf.function` is tracing on this thread (None when executing eagerly). Code
        # below the graph package talks to it through this protocol only:
        #   graph.call(api, args, kwargs, stateful=False, abstract=None) -> the outputs of
        #     `api(*args, **kwargs)` as graph values, recorded as a node;
        #   graph.read_variable(variable) -> a symbolic tensor of the variable's value;
        #   graph.write_variable(variable, method_name, args, kwargs) -> what the method returns;
        #   graph.tape_step(tape, step, args) and graph.tape_answer(tape, method, args, kwargs)
        #     for a GradientTape used inside the function, and graph.tape_record(tape, record)
        #     for an op on constants that ran (folded) while tracing, watched by such a tape;
        #   graph.lift_initial_value(value) -> an eager initial value for a variable made while
        #     tracing, and graph.note_created_variable(variable) once it exists.
        self.graph = None
        self.lifted = 0  # how many init_scopes left a graph being traced (still inside a function)


thread_state = _State()

# How many threads are tracing a `tf.function` right now. Ops test this first (one global read)
# and look further only when it is not zero, so eager execution pays nothing for graphs.
tracing = [0]


class Op:
    """The single declaration of an op: TF name, batchable gradient rule, kernel dtypes.

    Args:
      name: the op's TF name (`"MatMul"`), shown in errors as `[Op:MatMul]`.
      batchable: True when the gradient rule accepts cotangents with extra leading batch
        dimensions, so `tape.jacobian` can push all one-hot seeds through one backward pass.
      dtypes: names of the dtypes TF registers a kernel for; None accepts every dtype.
      sparse_passthrough: True when the rule passes an IndexedSlices cotangent through
        unchanged (identity-like ops), so sparse gradients stay sparse.
    """

    __slots__ = ("name", "batchable", "dtypes", "np_dtypes", "sparse_passthrough")
    registry = {}  # name -> Op, every op declared in the package

    def __init__(self, name, *, batchable=False, dtypes=None, sparse_passthrough=False):
        if name in Op.registry:
            raise ValueError(f"op {name!r} is declared twice; declare each op once and share it")
        self.name = name
        self.batchable = batchable
        self.dtypes = None if dtypes is None else tuple(dtypes)
        self.np_dtypes = None if dtypes is None else frozenset(_np_dtype(n) for n in dtypes)
        self.sparse_passthrough = sparse_passthrough
        Op.registry[name] = self

    def __repr__(self):
        return f"Op({self.name!r})"

    def check_dtype(self, x, attr="T"):
        """InvalidArgumentError, in TF's words, when this op has no kernel for tensor `x`'s dtype."""
        allowed = self.np_dtypes
        if allowed is not None and x._value.dtype not in allowed:
            names = ", ".join(sorted(self.dtypes))
            raise errors.invalid_argument(
                self.name, f"Value for attr '{attr}' of {x.dtype.name} is not in the list of allowed "
                           f"values: {names}; cast the input with tf.cast")

    def shape_error(self, error, *tensors):
        """TF's InvalidArgumentError for operands whose shapes do not fit, naming this op.

        Use as `except ValueError as e: raise OP.shape_error(e, x, y) from None`.
        """
        shapes = " vs. ".join(str(list(t._value.shape)) for t in tensors)
        return errors.invalid_argument(self.name, f"Incompatible shapes: {shapes}; shapes broadcast when "
                                                  f"each dimension is equal or 1 in one of them")

    def invalid(self, message):
        """InvalidArgumentError tagged with this op's name."""
        return errors.invalid_argument(self.name, message)


def _np_dtype(name):
    return dtypes.as_dtype(name)._np


def record(op, inputs, outputs, grad_fn):
    """Record `op` on every active tape that watches one of its inputs (a forward accumulator
    whose tangents reach an input computes the outputs' tangents instead of keeping a record).

    inputs: tuple of Tensors (or Variables for variable reads); outputs: tuple of Tensors.
    """
    rec = None
    for tape in thread_state.active:
        watched = tape._watched
        for x in inputs:
            if x._id in watched:
                break
        else:
            continue
        if tape._forward:  # a ForwardAccumulator (minitf.autodiff): output tangents, now
            tape._forward_op(op, inputs, outputs, grad_fn)
            continue
        if rec is None:
            rec = (op, inputs, outputs, grad_fn)
        tape._records.append(rec)
        for out in outputs:
            watched.add(out._id)
        if tracing[0] and thread_state.graph is not None:
            # an op folded while tracing (constant inputs): its record must reach the tape of
            # every run too, or a gradient through it to a watched constant would be lost
            thread_state.graph.tape_record(tape, rec)


READ_VARIABLE = Op("ReadVariableOp", batchable=True, sparse_passthrough=True)


def read_variable(variable):
    """A tensor of the variable's current value, watched and recorded as the active tapes need
    (inside a traced function: a graph node reading the variable when the graph runs)."""
    graph = thread_state.graph
    if graph is not None:
        return graph.read_variable(variable)
    return read_variable_eagerly(variable)


def read_variable_eagerly(variable, value=None):
    """`read_variable` outside any graph: the value now (or `value` standing for it), recorded
    on the active tapes."""
    out = Tensor(variable._value if value is None else value)
    if variable.trainable:
        for tape in thread_state.active:
            if tape._watch_accessed_variables:
                tape._watch_variable(variable)
    record(READ_VARIABLE, (variable,), (out,), _identity_grad)
    return out


def _identity_grad(g):
    return g


@export("init_scope")
@contextlib.contextmanager
def init_scope():
    """Leave the graph being traced, if any: ops run eagerly and no tape records them (TF's
    `tf.init_scope`, which lifts variable initialisation out of functions)."""
    saved_graph, saved_active = thread_state.graph, thread_state.active
    lifted = saved_graph is not None or thread_state.lifted
    thread_state.graph = None
    thread_state.active = []
    thread_state.lifted += 1 if lifted else 0
    try:
        yield
    finally:
        thread_state.lifted -= 1 if lifted else 0
        thread_state.graph = saved_graph
        thread_state.active = saved_active


def active_graph():
    """The graph `tf.function` is tracing on this thread, or None."""
    return thread_state.graph


def is_recording():
    """True when at least one tape is recording on this thread."""
    return bool(thread_state.active)


@contextlib.contextmanager
def stop_recording_all():
    """Pause every tape on this thread (for non-differentiable bookkeeping)."""
    saved = thread_state.active
    thread_state.active = []
    try:
        yield
    finally:
        thread_state.active = saved
