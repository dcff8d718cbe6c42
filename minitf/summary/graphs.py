"""Graphs in event files: `tf.summary.graph`, and `trace_on`/`trace_export`/`trace_off`, which
record the graphs of the `tf.function`s called in between, for TensorBoard's Graphs dashboard.

A graph is written as TF writes one: an Event whose `graph_def` holds a serialized GraphDef
(node names, op types and inputs; minitf's nodes carry no attribute values).
"""
import logging

from minitf.function import call_observers
from minitf.summary._proto import messages
from minitf.summary.ops import step_value
from minitf.summary.writer import current_writer
from minitf.api_export import export

__all__ = ["graph", "trace_on", "trace_export", "trace_off"]

_log = logging.getLogger("minitf")


class _Trace:
    """The graphs of the functions called since `trace_on` (one per concrete function)."""

    def __init__(self):
        self.graphs = []

    def __call__(self, concrete):
        if all(g is not concrete.graph for g in self.graphs):
            self.graphs.append(concrete.graph)


_active = []  # the running trace, if any


def _graph_def_bytes(graphs, prefix_functions):
    classes = messages()
    graph_def = classes["GraphDef"]()
    graph_def.versions.producer = 2202
    for g in graphs:
        prefix = f"{g.name}/" if prefix_functions else ""
        for node in g.as_graph_def().node:
            proto = graph_def.node.add()
            proto.name = prefix + node.name
            proto.op = node.op
            proto.input.extend(prefix + name for name in node.input)
    return graph_def.SerializeToString()


def _graphs_of(graph_data):
    if hasattr(graph_data, "graph") and hasattr(graph_data, "function_type"):
        return [graph_data.graph]  # a ConcreteFunction
    if hasattr(graph_data, "as_graph_def"):
        return [graph_data]  # a FuncGraph
    raise ValueError(f"tf.summary.graph takes a graph (e.g. concrete_function.graph), got "
                     f"{type(graph_data).__name__}: {graph_data!r}")


@export("summary.graph")
def graph(graph_data):
    """Write `graph_data` (a function's graph, or a concrete function) to the default writer.

    Returns True when it was written, False without a default writer.
    """
    writer = current_writer()
    if writer is None or not hasattr(writer, "_write_graph"):
        return False
    writer._write_graph(_graph_def_bytes(_graphs_of(graph_data), False), 0)
    return True


@export("summary.trace_on")
def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Start recording the graphs of the tf.functions called from now on (minitf has no
    profiler: `profiler=True` records the graphs alone, with a warning)."""
    if profiler:
        _log.warning("tf.summary.trace_on: minitf has no profiler; only graphs are recorded.")
    if _active:
        _log.warning("Must call tf.summary.trace_off() before tf.summary.trace_on() again.")
        return
    if graph:
        trace = _Trace()
        _active.append(trace)
        call_observers.append(trace)


@export("summary.trace_off")
def trace_off():
    """Stop recording graphs and drop what was recorded."""
    while _active:
        trace = _active.pop()
        if trace in call_observers:
            call_observers.remove(trace)


@export("summary.trace_export")
def trace_export(name, step=None, profiler_outdir=None):
    """Write the graphs recorded since `trace_on` to the default writer at `step` (the
    writer's default step if None), then stop recording. `name` is accepted for TF's API.

    Raises:
      ValueError: no step is given and the writer has no default step.
    """
    if not _active:
        _log.warning("Must call tf.summary.trace_on() before tf.summary.trace_export().")
        return
    trace = _active[0]
    writer = current_writer()
    if writer is not None and hasattr(writer, "_write_graph"):
        writer._write_graph(_graph_def_bytes(trace.graphs, len(trace.graphs) > 1), step_value(step))
    trace_off()
