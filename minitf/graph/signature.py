"""How a call's arguments map to a traced signature.

`CallBinder` turns a call's `(args, kwargs)` into the parameters of the Python function in
signature order (`*args` become `args_0, args_1, ...`, `**kwargs` keyword-only parameters), as
TF lists them. `InputSignature` does the same for a function declared with an
`input_signature`: every call is checked against the declared TensorSpecs and converted to
tensors of their dtypes, with TF's TypeErrors for calls that do not fit.
"""
import inspect

from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.graph.concrete_function import Parameter
from minitf.graph.trace_type import Literal, Structure
from minitf.tensor import Tensor
from minitf.tensor_spec import TensorSpec
from minitf.variable import Variable

__all__ = ["CallBinder", "InputSignature"]

P = inspect.Parameter


class CallBinder:
    """Binds calls of a Python function to its parameters (names, kinds, values)."""

    def __init__(self, python_function):
        try:
            self._signature = inspect.signature(python_function)
        except (TypeError, ValueError):
            self._signature = None
        params = list(self._signature.parameters.values()) if self._signature else []
        self._has_var_positional = any(p.kind is P.VAR_POSITIONAL for p in params)
        simple = [p for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
        # calls with exactly the positional parameters, no defaults used: no binding needed
        self._simple = (len(simple) == len(params)) and bool(params)
        self._names = tuple(p.name for p in simple)
        self._kinds = tuple(p.kind for p in simple)

    def bind(self, args, kwargs):
        """([(name, kind)], [value]) of a call, in signature order (TypeError when it does not bind)."""
        if self._simple and not kwargs and len(args) == len(self._names):
            return list(zip(self._names, self._kinds)), list(args)
        if self._signature is None:
            names = [(f"args_{i}", P.POSITIONAL_ONLY) for i in range(len(args))]
            names += [(k, P.KEYWORD_ONLY) for k in sorted(kwargs)]
            return names, list(args) + [kwargs[k] for k in sorted(kwargs)]
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        names, values = [], []
        for p in self._signature.parameters.values():
            value = bound.arguments[p.name]
            if p.kind is P.VAR_POSITIONAL:
                for index, item in enumerate(value):
                    names.append((f"{p.name}_{index}", P.POSITIONAL_ONLY))
                    values.append(item)
            elif p.kind is P.VAR_KEYWORD:
                for key in sorted(value):
                    names.append((key, P.KEYWORD_ONLY))
                    values.append(value[key])
            else:
                kind = P.POSITIONAL_ONLY if self._has_var_positional and \
                    p.kind is P.POSITIONAL_OR_KEYWORD else p.kind
                names.append((p.name, kind))
                values.append(value)
        return names, values


def signature_plan(python_function, input_signature, name):
    """(binder, entries) for calls of a function with an input_signature, checked as TF checks
    at decoration; None when the function's parameters cannot be inspected.

    Following TF: a parameter named `self` takes no spec; `*args` becomes positional-only
    parameters `args_0, args_1, ...`, one per remaining spec; `**kwargs` is dropped (an unknown
    keyword is a binding error); the other parameters take the specs in order, and one past
    the specs must have a default, which it keeps. `binder` is the Signature calls are bound
    with; `entries` are (name, kind, spec or None, default) in call order.
    """
    try:
        params = list(inspect.signature(python_function).parameters.values())
    except (TypeError, ValueError):
        return None
    P = inspect.Parameter
    specs = list(input_signature)
    has_var_positional = any(p.kind is P.VAR_POSITIONAL for p in params)
    entries, binder_params = [], []
    for p in params:
        if p.name == "self" or p.kind is P.VAR_KEYWORD:
            continue
        if p.kind is P.VAR_POSITIONAL:
            while specs:
                arg_name = f"{p.name}_{len(entries)}"
                entries.append((arg_name, P.POSITIONAL_ONLY, specs.pop(0), P.empty))
                binder_params.append(P(arg_name, P.POSITIONAL_ONLY))
            continue
        kind = P.POSITIONAL_ONLY if has_var_positional and p.kind is P.POSITIONAL_OR_KEYWORD \
            else p.kind
        if kind is P.KEYWORD_ONLY and p.default is P.empty:
            raise TypeError(f"tf.function {name!r}: since input_signature is defined, "
                            f"keyword-only parameter `{p.name}` must have a default value.")
        if specs:
            entries.append((p.name, kind, specs.pop(0), p.default))
        elif p.default is not P.empty:
            entries.append((p.name, kind, None, p.default))
        else:
            raise TypeError(f"tf.function {name!r}: input_signature missing type constraint for "
                            f"{p.name}; give it a TensorSpec or a default value.")
        binder_params.append(P(p.name, kind, default=p.default))
    if specs:
        raise TypeError(f"tf.function {name!r}: input_signature contains {len(specs)} extra type "
                        "constraints; it has more TensorSpecs than the function has parameters.")
    return inspect.Signature(binder_params), entries


def same_literal(value, default):
    """Whether `value` passed for a parameter past the signature is its default (TF accepts
    only that)."""
    if value is default:
        return True
    if type(value) is not type(default) or not isinstance(default, (bool, int, float, str, bytes)):
        return False
    return value == default




def _spec_type(spec):
    """The trace type of a declared spec (a TensorSpec, or a structure of them)."""
    if isinstance(spec, TensorSpec):
        return TensorSpec(spec.shape, spec.dtype, spec.name)  # a declared name names the input
    if isinstance(spec, dict):
        keys = tuple(sorted(spec, key=repr))
        return Structure(type(spec), keys, [_spec_type(spec[k]) for k in keys])
    if isinstance(spec, (list, tuple)):
        return Structure(type(spec), len(spec), [_spec_type(s) for s in spec])
    return Literal(spec)


class InputSignature:
    """A function's declared `input_signature`: its parameters, and calls checked against it."""

    def __init__(self, python_function, specs, name):
        self.specs = list(specs)
        self.name = name
        self._plan = signature_plan(python_function, self.specs, name)
        if self._plan is None:
            self.parameters = [Parameter(f"args_{i}", P.POSITIONAL_ONLY, _spec_type(s))
                               for i, s in enumerate(self.specs)]
        else:
            self.parameters = [Parameter(n, k, _spec_type(s) if s is not None else Literal(d))
                               for n, k, s, d in self._plan[1]]

    def bind(self, args, kwargs, specs_allowed=False):
        """The call's values, one per parameter, converted to the declared specs. With
        `specs_allowed` (get_concrete_function), a TensorSpec compatible with the declared one
        stands for a tensor; its value is None (the trace works from the declared spec)."""
        call_args, call_kwargs = self._bind_signature(args, kwargs, specs_allowed)
        values = list(call_args)
        values += [call_kwargs[p.name] for p in self.parameters[len(values):]]
        return values

    def _bind_signature(self, args, kwargs, specs_allowed=False):
        """Bind a call to the input_signature as TF does: Python's binding rules over the
        parameters (defaults filled in), each constrained argument converted to its spec, and a
        parameter past the signature fixed at its default. Returns (args, kwargs) to call with."""
        plan = self._plan
        if plan is None:  # a callable inspect cannot read: positional arguments, one per spec
            if kwargs or len(args) != len(self.specs):
                raise TypeError(f"Binding inputs to tf.function {self.name!r} failed: it was "
                                f"declared with an input_signature of {len(self.specs)} "
                                f"arguments but called with {len(args)} positional and "
                                f"{len(kwargs)} keyword arguments.")
            return [self._convert(i, a, s, specs_allowed) for i, (a, s) in
                    enumerate(zip(args, self.specs))], {}
        binder, entries = plan
        try:
            bound = binder.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"Binding inputs to tf.function {self.name!r} failed due to `{e}`. "
                            f"Received args: {args!r} and kwargs: {kwargs!r} for signature: "
                            f"{binder}.") from None
        given = dict(bound.arguments)
        bound.apply_defaults()
        call_args, call_kwargs = [], {}
        for index, (name, kind, spec, default) in enumerate(entries):
            value = bound.arguments[name]
            if spec is not None:
                value = self._convert(index, value, spec, specs_allowed)
            elif name in given and not same_literal(value, default):
                raise TypeError(f"Binding inputs to tf.function {self.name!r} failed due to "
                                f"`Can not cast {value!r} to Literal[{default!r}]`: parameter "
                                f"{name!r} is past the input_signature, so it keeps its default "
                                f"{default!r}; add a TensorSpec for it to pass other values.")
            if kind is inspect.Parameter.KEYWORD_ONLY:
                call_kwargs[name] = value
            else:
                call_args.append(value)
        return call_args, call_kwargs

    def _convert(self, i, arg, spec, specs_allowed=False):
        """`arg` as tensors matching `spec` (a TensorSpec or a structure of them)."""
        flat_spec = nest.flatten(spec)
        if nest.is_nested(spec):
            try:
                nest.assert_same_structure(spec, arg, check_types=False)
            except (ValueError, TypeError) as e:
                raise TypeError(f"Binding inputs to tf.function {self.name!r} failed: argument "
                                f"{i} does not match the structure of {spec!r}: {e}") from None
            flat_args = nest.flatten(arg)
        else:
            flat_args = [arg]  # a Python list for one TensorSpec is one tensor
        leaves = []
        for value, s in zip(flat_args, flat_spec):
            if value is None:
                raise TypeError(f"Binding inputs to tf.function {self.name!r} failed: argument "
                                f"{i} is None, which cannot be converted to {s!r}; pass a value "
                                "or drop its TensorSpec.")
            if specs_allowed and isinstance(value, TensorSpec):
                if value.dtype != s.dtype or not s.shape.is_compatible_with(value.shape):
                    raise TypeError(f"Binding inputs to tf.function {self.name!r} failed: argument "
                                    f"{i} is {value!r}, which does not fit the input_signature's "
                                    f"{s!r}.")
                leaves.append(None)
                continue
            if isinstance(value, (Tensor, Variable)) and value.dtype != s.dtype:
                raise TypeError(f"Binding inputs to tf.function {self.name!r} failed: argument {i} "
                                f"has dtype {value.dtype.name} but the input_signature declares "
                                f"{s!r}.")
            try:
                t = convert_to_tensor(value, dtype=s.dtype)
            except (TypeError, ValueError) as e:
                raise TypeError(f"Binding inputs to tf.function {self.name!r} failed: argument {i} "
                                f"cannot be converted to {s!r}: {e}") from None
            if not s.shape.is_compatible_with(t.shape):
                raise TypeError(f"Binding inputs to tf.function {self.name!r} failed: argument {i} "
                                f"has shape {t.shape} which is incompatible with {s!r}.")
            leaves.append(t)
        return nest.pack_sequence_as(spec, leaves)
