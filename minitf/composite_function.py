"""tf.function with composite arguments: input signatures of composite specs, and the eager path.

An `input_signature` may declare `tf.RaggedTensorSpec` / `tf.SparseTensorSpec` (arguments are
checked against them, with TF's TypeError). A RaggedTensor argument is traced, as its component
tensors (see `minitf.ragged.ragged_graph`). A SparseTensor argument is not: a `tf.function`
called with one runs its Python function eagerly for that call (see
`graph.trace_type.Composite`), and `get_concrete_function` with a sparse spec or value returns an
`EagerConcreteFunction`, which checks its arguments as a traced one would and runs the Python
function eagerly. Such concrete functions have no graph, so `tf.saved_model.save` does not
export them.
"""
import inspect

from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.graph.concrete_function import Parameter
from minitf.graph.signature import InputSignature
from minitf.graph.trace_type import Composite, Literal, Structure, describe
from minitf.tensor_spec import TensorSpec

__all__ = ["is_composite_spec", "has_composite_spec", "input_signature", "CompositeInputSignature",
           "EagerConcreteFunction"]

P = inspect.Parameter


def is_composite_spec(spec):
    """True for the spec of a composite tensor (tf.RaggedTensorSpec, tf.SparseTensorSpec)."""
    return (not isinstance(spec, TensorSpec) and isinstance(getattr(spec, "value_type", None), type)
            and callable(getattr(spec, "is_compatible_with", None)))


def has_composite_spec(specs):
    """True when a (nested) input_signature declares a composite spec."""
    return any(is_composite_spec(s) for s in nest.flatten(specs))


def spec_of(trace_type):
    """The spec a Composite trace type stands for: the declared spec, or its value's spec."""
    obj = trace_type.get()
    return obj if is_composite_spec(obj) else getattr(obj, "_type_spec", None)


def _composite_type(spec):
    if is_composite_spec(spec):
        # a RaggedTensorSpec is traced (as component tensors); other composites run eagerly
        return spec if hasattr(spec, "_graph_placeholder") else Composite(spec)
    if isinstance(spec, dict):
        keys = tuple(sorted(spec, key=repr))
        return Structure(type(spec), keys, [_composite_type(spec[k]) for k in keys])
    if isinstance(spec, (list, tuple)):
        return Structure(type(spec), len(spec), [_composite_type(s) for s in spec])
    if isinstance(spec, TensorSpec):
        return TensorSpec(spec.shape, spec.dtype)
    return Literal(spec)


def _binding_error(name, value, spec):
    found = getattr(value, "_type_spec", None) or type(value).__name__
    return TypeError(f"Binding inputs to tf.function {name!r} failed due to `Can not cast {found} to "
                     f"{spec}`. Received {value!r}; pass a value of that spec.")


def _describe(trace_type):
    return repr(spec_of(trace_type)) if isinstance(trace_type, Composite) else describe(trace_type)


class _Spec(Composite):
    """A composite parameter of an EagerConcreteFunction: its spec, held strongly."""

    def __init__(self, spec):
        super().__init__(spec)
        self._spec = spec

    def get(self):
        return self._spec


class CompositeInputSignature(InputSignature):
    """An input_signature holding composite specs: those arguments are checked against their
    specs and passed as they are; the TensorSpec ones are converted as for any signature."""

    def __init__(self, python_function, specs, name):
        super().__init__(python_function, specs, name)
        plan_specs = [s for _, _, s, _ in self._plan[1]] if self._plan is not None else self.specs
        self.parameters = [Parameter(p.name, p.kind, _composite_type(s) if s is not None else p.type)
                           for p, s in zip(self.parameters, plan_specs)]

    def _convert(self, i, arg, spec, specs_allowed=False):
        if not has_composite_spec(spec):
            return super()._convert(i, arg, spec, specs_allowed)
        if is_composite_spec(spec):
            if not spec.is_compatible_with(arg):
                raise _binding_error(self.name, arg, spec)
            return arg
        try:
            nest.assert_same_structure(spec, arg, check_types=False)
        except (ValueError, TypeError) as e:
            raise TypeError(f"Binding inputs to tf.function {self.name!r} failed: argument {i} does not "
                            f"match the structure of {spec!r}: {e}") from None
        leaves = [self._convert(i, a, s, specs_allowed) for a, s in zip(nest.flatten(arg), nest.flatten(spec))]
        return nest.pack_sequence_as(spec, leaves)


def input_signature(python_function, specs, name):
    """The InputSignature of a function declared with `specs` (composite-aware when needed)."""
    if has_composite_spec(specs):
        return CompositeInputSignature(python_function, specs, name)
    return InputSignature(python_function, specs, name)


class EagerConcreteFunction:
    """What `get_concrete_function` gives for composite arguments: a signature (checked on every
    call, TypeError for arguments that do not fit) over the Python function, run eagerly."""

    def __init__(self, function, parameters):
        self._function = function
        # Composite trace types hold their object weakly: keep each spec (a spec passed inline
        # to get_concrete_function, or the spec of a value) alive here
        self._parameters = [Parameter(p.name, p.kind, _Spec(spec_of(p.type)) if isinstance(p.type, Composite)
                                      else p.type) for p in parameters]
        self.name = f"{function._name}_eager"

    @property
    def structured_input_signature(self):
        """(args, kwargs) of the specs (and Python values) this function takes."""
        args, kwargs = [], {}
        for p in self._parameters:
            value = self._signature_value(p.type)
            if p.kind is P.KEYWORD_ONLY:
                kwargs[p.name] = value
            else:
                args.append(value)
        return tuple(args), kwargs

    def _signature_value(self, trace_type):
        if isinstance(trace_type, Composite):
            return spec_of(trace_type)
        if isinstance(trace_type, Literal):
            return trace_type.value
        if isinstance(trace_type, Structure):
            items = [self._signature_value(t) for t in trace_type.items]
            if issubclass(trace_type.kind, dict):
                return dict(zip(trace_type.keys, items))
            return trace_type.kind(items) if not hasattr(trace_type.kind, "_fields") else trace_type.kind(*items)
        return trace_type

    def pretty_printed_signature(self, verbose=True):
        """The input parameters, as TF prints a signature (the outputs are known only when called)."""
        lines = ["Input Parameters:"]
        lines += [f"  {p.name} ({p.kind.name}): {_describe(p.type)}" for p in self._parameters]
        lines += ["Output Type:", "  (computed eagerly on each call)", "Captures:", "  None"]
        return "\n".join(lines)

    def _check(self, trace_type, value):
        if hasattr(trace_type, "_to_components"):  # a RaggedTensorSpec whose trace failed
            if not trace_type.is_compatible_with(value) or hasattr(value, "_to_components"):
                raise _binding_error(self._function._name, value, trace_type)
            return value
        if isinstance(trace_type, Composite):
            spec = spec_of(trace_type)
            if spec is None or not spec.is_compatible_with(value):
                raise _binding_error(self._function._name, value, spec)
            return value
        if isinstance(trace_type, TensorSpec):
            t = convert_to_tensor(value, dtype=trace_type.dtype)
            if not trace_type.shape.is_compatible_with(t.shape):
                raise _binding_error(self._function._name, t, trace_type)
            return t
        if isinstance(trace_type, Structure):
            flat = nest.flatten(value) if not isinstance(value, dict) else [value[k] for k in trace_type.keys]
            if len(flat) != len(trace_type.items):
                raise _binding_error(self._function._name, value, _describe(trace_type))
            return nest.pack_sequence_as(value, [self._check(t, v) for t, v in zip(trace_type.items, flat)]) \
                if not isinstance(value, dict) else value
        return value

    def __call__(self, *args, **kwargs):
        """Check the arguments against the signature and run the Python function eagerly."""
        if len(args) > len(self._parameters):
            raise TypeError(f"{self.name}: takes {len(self._parameters)} arguments but {len(args)} were given")
        values = list(args)
        for p in self._parameters[len(args):]:
            if p.name in kwargs:
                values.append(kwargs.pop(p.name))
            elif isinstance(p.type, Literal):
                values.append(p.type.value)
            else:
                raise TypeError(f"{self.name}: missing required argument {p.name!r}")
        if kwargs:
            raise TypeError(f"{self.name}: got unexpected keyword arguments {sorted(kwargs)}")
        values = [self._check(p.type, v) for p, v in zip(self._parameters, values)]
        return self._function._call_python(self._function._python_function, self._parameters, values)

    def __repr__(self):
        params = ", ".join(f"{p.name}: {_describe(p.type)}" for p in self._parameters)
        return f"<EagerConcreteFunction ({params}) at 0x{id(self):X}>"
