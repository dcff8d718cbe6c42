"""GradientTape inside a traced function: each step of a tape is a node of the graph.

Entering a tape, watching, pausing, resetting, leaving it and asking it for gradients are
stateful nodes. When the graph runs, they act on a fresh eager tape of that run (one per tape
the trace saw), so the op nodes between them are recorded as in eager mode and the gradient
node computes the gradients of this run's values with the same rules. While tracing, the same
steps act on the user's tape itself over the examples, so the trace knows which gradients
exist (None for unconnected sources, as TF knows statically) and their dtypes and shapes.
"""
import functools

from minitf.nest import nest
from minitf.recording import thread_state
from minitf.symbolic_tensor import SymbolicTensor

__all__ = ["record_tape_step", "record_tape_answer", "record_folded_op"]


def _run_tape(env, tape):
    """The eager tape standing for the traced `tape` in this run (made on first use)."""
    key = ("tape", id(tape))
    replay = env.get(key)
    if replay is None:
        replay = type(tape)(persistent=tape._persistent,
                            watch_accessed_variables=tape._watch_accessed_variables)
        env[key] = replay
    return replay


def _enter(env, tape):
    _run_tape(env, tape)._push()


def _exit(env, tape):
    replay = _run_tape(env, tape)
    if replay._recording:
        replay._pop()


def _pause(env, tape):
    replay = _run_tape(env, tape)
    if replay._recording:
        replay._pop()


def _resume(env, tape):
    _run_tape(env, tape)._push()


def _watch(env, tape, tensors):
    _run_tape(env, tape).watch(tensors)


def _reset(env, tape):
    _run_tape(env, tape).reset()


_STEPS = {"enter": (_enter, "TapeEnter"), "exit": (_exit, "TapeExit"),
          "pause": (_pause, "TapeStopRecording"), "resume": (_resume, "TapeResume"),
          "watch": (_watch, "TapeWatch"), "reset": (_reset, "TapeReset")}


def _trace_step(tape, step, args):
    """The step on the user's tape while tracing (over examples, so they are recorded)."""
    if step in ("enter", "resume"):
        tape._push()
    elif step in ("exit", "pause"):
        if tape._recording:
            tape._pop()
    elif step == "watch":
        tape.watch(nest.map_structure(_example, args[0]))
    elif step == "reset":
        tape.reset()


def _example(value):
    return value.example if isinstance(value, SymbolicTensor) else value


def record_tape_step(graph, tape, step, args=()):
    """Trace step `step` ('enter', 'exit', 'pause', 'resume', 'watch', 'reset') of `tape`."""
    fn, op_type = _STEPS[step]
    saved = thread_state.graph
    thread_state.graph = None  # the step itself, on the user's tape, is eager
    try:
        _trace_step(tape, step, args)
    finally:
        thread_state.graph = saved
    graph.call(fn, (tape,) + tuple(args), {}, stateful=True, abstract=_no_result, op_type=op_type,
               read_variables=False,
               name=op_type, wants_env=True)


def _no_result(*args, **kwargs):
    return None


def _replay_record(env, tape, record):
    replay = _run_tape(env, tape)
    if not replay._recording:
        return
    watched = replay._watched
    if any(x._id in watched for x in record[1]):
        replay._records.append(record)
        watched.update(out._id for out in record[2])


def record_folded_op(graph, tape, record):
    """Trace the record an op on constants left on `tape` while tracing (the op itself ran then
    and is no node): a stateful node puts the same record on each run's tape, in program order,
    so gradients reach a watched constant through folded ops (`tape.watch(c)` then
    `model(tf.expand_dims(c, 0))`) as they do eagerly."""
    graph.call(functools.partial(_replay_record, record=record), (tape,), {}, stateful=True,
               abstract=_no_result, op_type="TapeRecord", read_variables=False, name="TapeRecord",
               wants_env=True)


def _answer(env, tape, method, *args, **kwargs):
    return getattr(_run_tape(env, tape), method)(*args, **kwargs)


def _answer_on_examples(tape, method, *args, **kwargs):
    return getattr(tape, method)(*args, **kwargs)


def record_tape_answer(graph, tape, method, args, kwargs):
    """Trace `tape.<method>(*args, **kwargs)` ('gradient', 'jacobian', 'batch_jacobian'): a node
    whose outputs are the gradients, computed on the examples now to learn which exist.

    When no argument is a graph value (the target was computed from constants only, so its ops
    were folded while tracing and never became nodes), the answer is a constant too: it is
    computed now, on the user's tape, and no node is recorded."""
    if not any(isinstance(v, SymbolicTensor) for v in nest.flatten((args, kwargs))):
        saved = thread_state.graph
        thread_state.graph = None
        try:
            return _answer_on_examples(tape, method, *args, **kwargs)
        finally:
            thread_state.graph = saved
    return graph.call(_answer, (tape, method) + tuple(args), kwargs, stateful=True, read_variables=False,
                      abstract=_answer_on_examples, op_type="SymbolicGradient",
                      name="gradients", wants_env=True)
