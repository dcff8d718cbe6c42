"""ConcreteFunction: one trace of a `tf.function`, callable on arguments of its signature.

It holds the FuncGraph of the trace and runs it with the interpreter. Called through its
`tf.function`, the arguments were already matched to its signature; called directly (as the
guides do with `f.get_concrete_function(...)`), it checks them as TF does: a tensor of another
dtype is an InvalidArgumentError, a Python value other than the traced one a TypeError.
"""
import inspect
import itertools

from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.graph.compiler.plan import ENABLED as _PLANS_ENABLED
from minitf.graph.compiler.plan import PlanCache
from minitf.graph.interpreter import Interpreter
from minitf.graph.trace_type import Identity, Literal, Structure, VariableType, describe
from minitf.recording import thread_state
from minitf.symbolic_tensor import SymbolicTensor
from minitf.tensor import Tensor
from minitf.tensor_spec import TensorSpec
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["ConcreteFunction", "Parameter", "FunctionType"]

_inference_ids = itertools.count(1)

P = inspect.Parameter
_KIND_NAMES = {P.POSITIONAL_ONLY: "POSITIONAL_ONLY", P.POSITIONAL_OR_KEYWORD: "POSITIONAL_OR_KEYWORD",
               P.KEYWORD_ONLY: "KEYWORD_ONLY"}


class Parameter:
    """One parameter of a traced signature: its name, kind and trace type."""

    __slots__ = ("name", "kind", "type")

    def __init__(self, name, kind, trace_type):
        self.name = name
        self.kind = kind
        self.type = trace_type

    def __repr__(self):
        return f"{self.name}: {describe(self.type)}"


@export("types.experimental.FunctionType")
class FunctionType:
    """The parameters of a trace and the type of its outputs (TF's `FunctionType`)."""

    def __init__(self, parameters, output_type):
        self.parameters = {p.name: p for p in parameters}
        self._ordered = list(parameters)
        self.output = output_type

    def __str__(self):
        parts, saw_keyword_only = [], False
        for i, p in enumerate(self._ordered):
            if p.kind is P.KEYWORD_ONLY and not saw_keyword_only:
                if i and self._ordered[i - 1].kind is P.POSITIONAL_ONLY:
                    parts.append("/")
                parts.append("*")
                saw_keyword_only = True
            parts.append(repr(p))
        if self._ordered and self._ordered[-1].kind is P.POSITIONAL_ONLY:
            parts.append("/")
        return f"({', '.join(parts)}) -> {self.output}"

    __repr__ = __str__


def output_description(structure):
    """How TF prints a function's output type: specs for tensors, Literal for values."""
    if isinstance(structure, (Tensor, Variable)):
        return repr(TensorSpec(structure.shape, structure.dtype))
    if structure is None:
        return "Literal[None]"
    if hasattr(structure, "_type_spec"):  # a RaggedTensor result
        return repr(structure._type_spec)
    if isinstance(structure, dict):
        keys = sorted(structure, key=repr)
        return "Dict[" + ", ".join(f"[{k!r}, {output_description(structure[k])}]" for k in keys) + "]"
    if isinstance(structure, list):
        return "List[" + ", ".join(output_description(v) for v in structure) + "]"
    if isinstance(structure, tuple):
        name = type(structure).__name__ if hasattr(type(structure), "_fields") else "Tuple"
        return f"{name}[" + ", ".join(output_description(v) for v in structure) + "]"
    return f"Literal[{structure!r}]"


def _release_examples(graph):
    """Drop the example values of the graph's inner tensors once its trace is complete: they
    stood in for values while each op ran to learn its outputs' shapes, and a finished graph
    needs only its inputs', outputs' and captures' (a later trace that calls or differentiates
    this function starts from those). Held, they cost a whole forward pass of activations for as
    long as the function lives (105 MiB on the DCGAN step)."""
    keep = {id(t) for t in graph.inputs} | {id(t) for t in graph.outputs}
    keep |= {id(t) for pair in graph.captures for t in pair}
    for op in graph.operations:
        for t in op.outputs:
            if type(t) is SymbolicTensor and id(t) not in keep:
                t.example = t.example_b = None


@export("types.experimental.ConcreteFunction")
class ConcreteFunction:
    """One traced graph of a `tf.function`, with its signature.

    Attributes:
      graph: the FuncGraph of the trace.
      function_type: the parameters and output type.
    """

    def __init__(self, graph, parameters, name):
        self.graph = graph
        self._parameters = list(parameters)
        self._python_name = name
        self.name = f"__inference_{name}_{next(_inference_ids)}"
        self._interpreter = Interpreter(graph)
        self._plans = None  # compiled plans per input signature, made on first use
        self.function_type = FunctionType(parameters, output_description(graph.structured_outputs))
        _release_examples(graph)

    # -- what a trace shows -----------------------------------------------------------------
    @property
    def inputs(self):
        """The graph's placeholders: tensor arguments, then captured tensors."""
        return list(self.graph.inputs)

    @property
    def outputs(self):
        """The graph's flat tensor outputs."""
        return [t for t in self.graph.outputs if isinstance(t, Tensor)]

    @property
    def structured_outputs(self):
        """The outputs in the structure the Python function returned."""
        return self.graph.structured_outputs

    @property
    def structured_input_signature(self):
        """(args, kwargs) of TensorSpecs (named after their paths) and traced Python values."""
        args, kwargs = [], {}
        for p in self._parameters:
            spec = _signature_value(p.type, p.name)
            if p.kind is P.KEYWORD_ONLY:
                kwargs[p.name] = spec
            else:
                args.append(spec)
        return tuple(args), kwargs

    @property
    def variables(self):
        """The variables the graph reads or writes."""
        return tuple(self.graph.variables)

    @property
    def trainable_variables(self):
        """The trainable ones among `variables`."""
        return tuple(v for v in self.graph.variables if v.trainable)

    @property
    def captured_inputs(self):
        """Tensors from outside the function that the graph takes as inputs (none: minitf's
        graphs keep captured eager tensors as constants and variables by reference)."""
        return [outer for outer, _ in self.graph.captures]

    @property
    def inference_fn(self):
        """The graph as a function of its flat tensor inputs (TF's atomic function)."""
        return _AtomicFunction(self)

    def pretty_printed_signature(self, verbose=True):
        """The signature as TF prints it: input parameters, output type, captures."""
        lines = ["Input Parameters:"]
        for p in self._parameters:
            lines.append(f"  {p.name} ({_KIND_NAMES.get(p.kind, p.kind)}): {describe(p.type)}")
        lines.append("Output Type:")
        lines.append(f"  {self.function_type.output}")
        lines.append("Captures:")
        captures = self.captured_inputs
        if not captures:
            lines.append("  None")
        for t in captures:
            lines.append(f"  {id(t)}: {TensorSpec(t.shape, t.dtype)}")
        return "\n".join(lines)

    def __str__(self):
        return "ConcreteFunction " + self.pretty_printed_signature()

    def __repr__(self):
        return f"<ConcreteFunction {self.function_type} at 0x{id(self):X}>"

    # -- calling ------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        """Run the graph on arguments of this trace's signature (checked as TF checks them)."""
        flat, variables = self._bind(args, kwargs)
        return self._call_flat(flat, variables)

    def _call_flat(self, inputs, variable_arguments=None):
        """Run on the flat tensor inputs; `variable_arguments` maps a variable argument's alias
        (its position among the traced variables) to this call's variable."""
        variables = None
        if variable_arguments:
            traced = self.graph.variable_arguments
            variables = {traced[alias]._id: v for alias, v in variable_arguments.items()}
        # a plan runs unless a tape outside records the call (it must see the ops run)
        if _PLANS_ENABLED[0] and not thread_state.active and thread_state.graph is None:
            plans = self._plans
            if plans is None:
                plans = self._plans = PlanCache(self)
            outputs = plans.call(inputs, variables)
            if outputs is not None:
                return self.graph.output_structure.rebuild(outputs)
        outputs = self._interpreter.run(inputs, variables)
        return self.graph.output_structure.rebuild(outputs)

    def _bind(self, args, kwargs):
        params, defaults_started = [], False
        for p in self._parameters:
            kind = p.kind if p.kind is not P.VAR_POSITIONAL else P.POSITIONAL_ONLY
            # a traced Python value may be left out: the trace knows it
            fixed = isinstance(p.type, (Literal, Identity))
            defaults_started = defaults_started or (fixed and kind is not P.KEYWORD_ONLY)
            if fixed or (defaults_started and kind is not P.KEYWORD_ONLY):
                default = _signature_value(p.type, p.name) if fixed else P.empty
                if default is P.empty:
                    kind = P.KEYWORD_ONLY
                params.append(P(p.name, kind, default=default))
            else:
                params.append(P(p.name, kind))
        try:
            bound = inspect.Signature(params).bind(*args, **kwargs)
        except TypeError as e:
            bound = self._bind_tensors_only(args, kwargs)
            if bound is not None:
                return self._bound_values(bound)
            raise TypeError(f"Binding inputs to tf.function {self._python_name!r} failed due to "
                            f"`{e}`. Received args: {args!r} and kwargs: {kwargs!r} for signature: "
                            f"{self.function_type}.") from None
        return self._bound_values(bound)

    def _bind_tensors_only(self, args, kwargs):
        """TF's flat calling convention: positional arguments for the tensor parameters alone
        (a traced Python object is left out: the trace captured it). None if that fails too."""
        params = [P(p.name, P.POSITIONAL_OR_KEYWORD) for p in self._parameters
                  if not isinstance(p.type, (Literal, Identity))]
        params += [P(p.name, P.KEYWORD_ONLY, default=_signature_value(p.type, p.name))
                   for p in self._parameters if isinstance(p.type, (Literal, Identity))]
        try:
            return inspect.Signature(params).bind(*args, **kwargs)
        except TypeError:
            return None

    def _bound_values(self, bound):
        flat, variables = [], {}
        placeholders = iter(self.graph.inputs)
        for p in self._parameters:
            value = bound.arguments.get(p.name, inspect.Parameter.empty)
            self._bind_value(p.name, p.type, value, flat, variables, placeholders)
        return flat, variables

    def _bind_value(self, path, trace_type, value, flat, variables, placeholders):
        if isinstance(trace_type, TensorSpec):
            placeholder = next(placeholders)
            flat.append(self._check_tensor(len(flat), value, placeholder))
        elif isinstance(trace_type, Structure):
            children = [value[k] for k in trace_type.keys] if isinstance(value, dict) else list(value)
            keys = trace_type.keys if isinstance(value, dict) else range(len(children))
            for key, child, child_type in zip(keys, children, trace_type.items):
                self._bind_value(f"{path}_{key}", child_type, child, flat, variables, placeholders)
        elif hasattr(trace_type, "_to_components"):  # a RaggedTensorSpec: its components
            if hasattr(value, "_to_components") or not trace_type.is_compatible_with(value):
                found = getattr(value, "_type_spec", None) or type(value).__name__
                raise TypeError(f"Binding inputs to tf.function {self._python_name!r} failed due to "
                                f"`Can not cast {found} to {trace_type}`. Received {value!r}; pass a "
                                f"value of that spec.")
            for part in trace_type._to_components(value):
                flat.append(self._check_tensor(len(flat), part, next(placeholders)))
        elif isinstance(trace_type, VariableType):
            variables[trace_type.alias] = value
        elif isinstance(trace_type, Literal):
            given = value.value if isinstance(value, Literal) else value
            if given is not inspect.Parameter.empty and not Literal(given) == trace_type:
                raise TypeError(f"Binding inputs to tf.function {self._python_name!r} failed due "
                                f"to `Can not cast {given!r} to {describe(trace_type)}`.")
        elif isinstance(trace_type, Identity) and value is not inspect.Parameter.empty:
            if value is not trace_type.get():
                raise TypeError(f"Binding inputs to tf.function {self._python_name!r} failed: "
                                f"argument {path!r} is not the object this function was traced "
                                f"with ({describe(trace_type)}).")

    def _check_tensor(self, index, value, placeholder):
        if value is inspect.Parameter.empty:
            raise TypeError(f"Binding inputs to tf.function {self._python_name!r} failed: missing "
                            f"a tensor for {placeholder.name}.")
        if isinstance(value, Variable):
            value = value.value()
        if not isinstance(value, Tensor):
            value = convert_to_tensor(value, dtype_hint=placeholder.dtype)
        if isinstance(value, SymbolicTensor):
            return value
        if value.dtype != placeholder.dtype:
            raise errors.InvalidArgumentError(
                None, None, f"cannot compute {self.name} as input #{index}(zero-based) was expected "
                            f"to be a {placeholder.dtype.name} tensor but is a {value.dtype.name} "
                            f"tensor [Op:{self.name}]")
        if not placeholder.shape.is_compatible_with(value.shape):
            raise errors.InvalidArgumentError(
                None, None, f"cannot compute {self.name} as input #{index}(zero-based) has shape "
                            f"{value.shape}, which is incompatible with the traced shape "
                            f"{placeholder.shape} [Op:{self.name}]")
        return value


def _signature_value(trace_type, path):
    if isinstance(trace_type, TensorSpec):
        return TensorSpec(trace_type.shape, trace_type.dtype, trace_type.name or path)
    if isinstance(trace_type, Structure):
        if issubclass(trace_type.kind, dict):
            return {k: _signature_value(t, f"{path}_{k}")
                    for k, t in zip(trace_type.keys, trace_type.items)}
        items = [_signature_value(t, f"{path}_{i}") for i, t in enumerate(trace_type.items)]
        if hasattr(trace_type.kind, "_fields"):
            return trace_type.kind(*items)
        return trace_type.kind(items)
    if isinstance(trace_type, Literal):
        return trace_type.value
    if isinstance(trace_type, Identity):
        return trace_type.get()
    return trace_type


class _AtomicFunction:
    """A concrete function's graph as a function of its flat tensor inputs."""

    def __init__(self, concrete):
        self._concrete = concrete
        self.name = concrete.name

    def __call__(self, *inputs):
        """The flat outputs for the flat inputs."""
        placeholders = self._concrete.graph.inputs
        flat = [self._concrete._check_tensor(i, v, p) for i, (v, p) in enumerate(zip(inputs, placeholders))]
        outputs = self._concrete._interpreter.run(flat)
        return outputs[0] if len(outputs) == 1 else outputs
