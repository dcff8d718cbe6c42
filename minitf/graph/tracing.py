"""Tracing: run a Python function once on placeholders, recording a FuncGraph.

Each parameter of the call gets the value its trace type says a trace sees: a placeholder
(symbolic tensor) for a tensor, the variable itself for a variable argument (remapped to the
call's variable when the graph runs), the Python value for a literal, the object for one traced
by identity, and what a custom `TraceType` places. The function's result becomes the graph's
outputs: symbolic tensors, constants (eager tensors and Python numbers, as tensors), None.
"""
import inspect

import numpy as np

from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.graph.concrete_function import ConcreteFunction
from minitf.graph.func_graph import FuncGraph
from minitf.graph.trace_type import Identity, Literal, Structure, VariableType
from minitf.recording import thread_state, init_scope  # noqa: F401 (tf.init_scope)
from minitf.symbolic_tensor import SymbolicArgumentError, SymbolicTensor
from minitf.tensor import Tensor
from minitf.tensor_spec import TensorSpec, TracingContext
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["trace", "init_scope", "inside_function", "executing_eagerly"]


@export("inside_function")
def inside_function():
    """True while a `tf.function` is being traced on this thread (in its init_scope too)."""
    return thread_state.graph is not None or thread_state.lifted > 0


@export("executing_eagerly")
def executing_eagerly():
    """False while a `tf.function` is being traced (its ops build a graph), True otherwise."""
    return thread_state.graph is None


def _placeholder_value(graph, value, trace_type, param_name):
    """The value the traced function sees for an argument of `trace_type`."""
    if isinstance(trace_type, TensorSpec):
        example = None
        if isinstance(value, Tensor) and not isinstance(value, SymbolicTensor):
            example = value
        elif value is not None and not isinstance(value, (TensorSpec, SymbolicTensor)):
            example = convert_to_tensor(value, dtype=trace_type.dtype)
        elif isinstance(value, SymbolicTensor):
            example = value.example
        if example is not None and not trace_type.shape.is_compatible_with(example.shape):
            example = None
        return graph.placeholder(trace_type.shape, trace_type.dtype, trace_type.name or param_name, example)
    if isinstance(trace_type, Structure):
        if isinstance(value, dict):
            items = {k: _placeholder_value(graph, value[k], t, param_name)
                     for k, t in zip(trace_type.keys, trace_type.items)}
            return type(value)((k, items[k]) for k in value) if type(value) is not dict \
                else {k: items[k] for k in value}
        items = [_placeholder_value(graph, v, t, param_name)
                 for i, (v, t) in enumerate(zip(value, trace_type.items))]
        if hasattr(type(value), "_fields"):
            return type(value)(*items)
        return type(value)(items)
    if isinstance(trace_type, VariableType):
        while len(graph.variable_arguments) <= trace_type.alias:
            graph.variable_arguments.append(None)
        graph.variable_arguments[trace_type.alias] = value
        graph.note_variable(value)
        return value
    if isinstance(trace_type, (Literal, Identity)):
        return value
    if hasattr(trace_type, "_graph_placeholder"):  # a RaggedTensorSpec: its component tensors
        return trace_type._graph_placeholder(graph, value, param_name)
    return trace_type.placeholder_value(TracingContext())


def _output(graph, value):
    """A returned value as a graph output: variables are read, Python numbers become tensors."""
    if value is None or isinstance(value, Tensor):
        return value
    if isinstance(value, Variable):
        return value.value()
    if isinstance(value, (bool, int, float, complex, str, bytes, np.ndarray, np.generic)):
        return convert_to_tensor(value)
    return value


def trace(python_function, name, parameters, values):
    """Trace `python_function` for one signature; returns its ConcreteFunction.

    Args:
      python_function: the function to trace (already converted by AutoGraph if asked).
      name: the `tf.function`'s name.
      parameters: `Parameter`s (name, kind, trace type) of the call, in signature order.
      values: the call's values for them (examples for the placeholders), or None for a
        parameter traced from a spec alone.
    """
    graph = FuncGraph(name)
    try:
        with graph.building():
            args, kwargs = [], {}
            for p, value in zip(parameters, values):
                placed = _placeholder_value(graph, value, p.type, p.name)
                if p.kind is inspect.Parameter.KEYWORD_ONLY:
                    kwargs[p.name] = placed
                else:
                    args.append(placed)
            result = python_function(*args, **kwargs)
            graph.add_identity_outputs(nest.map_structure(lambda v: _output(graph, v), result)
                                       if nest.is_nested(result) else _output(graph, result))
    except SymbolicArgumentError as error:
        if thread_state.graph is not None:  # an inner trace: the outermost one explains
            raise
        raise NotImplementedError(
            f"tf.function {name!r}: a call in the function cannot be recorded in minitf's graph "
            f"({error}). minitf's graphs do not hold it yet (ragged and sparse tensors built "
            f"inside the function, tf.autodiff.ForwardAccumulator). Pass such values as "
            f"arguments, compute them outside the function, or run functions eagerly with "
            f"tf.config.run_functions_eagerly(True).") from error
    return ConcreteFunction(graph, parameters, name)
