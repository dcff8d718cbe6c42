"""What `tf.saved_model.load` gives back: objects, functions and signatures, as TF revives them.

An object of the saved tree comes back as a `_UserObject` holding its children as attributes
(variables, other objects, lists, dicts, functions). A tf.function comes back as a
`RestoredFunction`: it holds the traces that were saved and calls the first whose input
signature the call fits (tensors of the traced dtype and a compatible shape; Python values equal
to the traced ones), first without converting arguments, then converting Python and numpy values
to tensors, as TF does; a call no trace fits raises TF's ValueError listing them. A trace, or a
signature, is a `RestoredConcreteFunction`, called with its tensor arguments.
"""
import collections.abc
import inspect
import pprint

from minitf.errors import errors
from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.symbolic_tensor import SymbolicTensor
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.tensor_spec import TensorSpec
from minitf.trackable import Trackable
from minitf.variable import Variable

__all__ = ["UserObject", "RestoredFunction", "RestoredConcreteFunction", "SignatureMap"]

P = inspect.Parameter


class UserObject(Trackable):
    """A loaded object: its saved children are its attributes."""

    def __init__(self):
        self.__dict__["_children"] = []

    def _add_child(self, name, value):
        object.__setattr__(self, name, value)
        if name not in self._children:
            self._children.append(name)

    def _checkpoint_dependencies(self):
        return [(n, getattr(self, n)) for n in self._children
                if isinstance(getattr(self, n, None), (Variable, Trackable))]

    def __call__(self, *args, **kwargs):
        call = self.__dict__.get("__call__")
        if call is None:
            raise TypeError(f"'{type(self).__name__}' object is not callable")
        return call(*args, **kwargs)


UserObject.__name__ = UserObject.__qualname__ = "_UserObject"


class SignatureMap(collections.abc.Mapping, Trackable):
    """The signatures of a loaded SavedModel, by key (read-only)."""

    def __init__(self, signatures=None):
        self._signatures = dict(signatures or {})

    def __getitem__(self, key):
        return self._signatures[key]

    def __iter__(self):
        return iter(self._signatures)

    def __len__(self):
        return len(self._signatures)

    def __repr__(self):
        return f"_SignatureMap({self._signatures!r})"


def _describe(spec):
    return repr(spec)


def _matches(value, expected, convert):
    """`value` as the traced argument `expected` wants it, or raises _NoMatch."""
    if isinstance(expected, TensorSpec):
        if isinstance(value, Variable):
            value = value.value()
        if not isinstance(value, Tensor):
            if not convert or value is None:
                raise _NoMatch
            try:
                value = convert_to_tensor(value, dtype=expected.dtype)
            except (TypeError, ValueError):
                raise _NoMatch from None
        if value.dtype != expected.dtype or not expected.shape.is_compatible_with(value.shape):
            raise _NoMatch
        return value
    if isinstance(value, Tensor) or type(value) is not type(expected) and not (
            isinstance(value, (int, float)) and isinstance(expected, (int, float))
            and not isinstance(value, bool) and not isinstance(expected, bool)):
        raise _NoMatch
    if value != expected:
        raise _NoMatch
    return None


class _NoMatch(Exception):
    pass


class RestoredConcreteFunction:
    """One loaded trace: calls its FunctionDef on the arguments' tensors and the variables it
    captured, and returns its outputs in the saved structure.

    Attributes:
      structured_input_signature: (args, kwargs) of TensorSpecs and Python values.
      structured_outputs: the output structure, TensorSpecs for tensors.
      name: the function's name in the SavedModel.
    """

    def __init__(self, name, compiled, bound, input_signature, output_signature,
                 keywords=None, positional=None):
        self.name = name
        self._compiled = compiled
        self._bound = list(bound)
        self.structured_input_signature = input_signature
        self.structured_outputs = output_signature
        self._keywords = list(keywords) if keywords is not None else None
        self._positional = positional

    @property
    def variables(self):
        """The variables the function captured."""
        return tuple(v for v in self._bound if isinstance(v, Variable))

    @property
    def trainable_variables(self):
        """The trainable ones among `variables`."""
        return tuple(v for v in self.variables if v.trainable)

    @property
    def captured_inputs(self):
        """The captured values passed after the arguments (the variables)."""
        return list(self._bound)

    @property
    def inputs(self):
        """The flat TensorSpecs of the arguments."""
        return _flat_specs(self.structured_input_signature)

    @property
    def outputs(self):
        """The flat TensorSpecs of the results."""
        return _flat_specs(self.structured_outputs)

    @property
    def function_type(self):
        """The arguments and results, as TF prints them."""
        args, kwargs = self.structured_input_signature
        parts = [f"{getattr(s, 'name', None) or f'arg_{i}'}: {_describe(s)}"
                 for i, s in enumerate(args)]
        if kwargs:
            parts.append("*")
            parts += [f"{k}: {_describe(v)}" for k, v in kwargs.items()]
        return f"({', '.join(parts)}) -> {_output_type(self.structured_outputs)}"

    def pretty_printed_signature(self, verbose=True):
        """The signature as TF prints it."""
        args, kwargs = self.structured_input_signature
        lines = ["Input Parameters:"]
        for i, s in enumerate(args):
            lines.append(f"  {getattr(s, 'name', None) or f'arg_{i}'} (POSITIONAL_OR_KEYWORD): "
                         f"{_describe(s)}")
        for k, v in kwargs.items():
            lines.append(f"  {k} (KEYWORD_ONLY): {_describe(v)}")
        lines += ["Output Type:", f"  {_output_type(self.structured_outputs)}", "Captures:"]
        lines += [f"  {id(v)}: TensorSpec(shape=(), dtype=tf.resource, name=None)"
                  for v in self._bound] or ["  None"]
        return "\n".join(lines)

    def __repr__(self):
        return f"<ConcreteFunction {self.function_type} at 0x{id(self):X}>"

    def __str__(self):
        return "ConcreteFunction " + self.pretty_printed_signature()

    def _bind(self, args, kwargs):
        """The call's (args, kwargs) in the structure of the input signature."""
        sig_args, sig_kwargs = self.structured_input_signature
        if self._keywords is None or not sig_kwargs:
            params = [P(f"arg_{i}" if not isinstance(s, TensorSpec) or not s.name else s.name,
                        P.POSITIONAL_OR_KEYWORD) for i, s in enumerate(sig_args)]
            params += [P(k, P.KEYWORD_ONLY) for k in sig_kwargs]
            try:
                bound = inspect.Signature(_dedupe(params)).bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"{self.name}: {e}; expected {self.function_type}") from None
            values = list(bound.arguments.values())
            return tuple(values[:len(sig_args)]), {k: bound.arguments[k] for k in sig_kwargs}
        allowed = self._positional if self._positional is not None else 0
        if len(args) > allowed:
            raise TypeError(f"{self.name}: takes {allowed} positional arguments but "
                            f"{len(args)} were given; pass them by keyword: {list(sig_kwargs)}")
        given = dict(zip(self._keywords, args))
        for k, v in kwargs.items():
            if k in given:
                raise TypeError(f"{self.name}: got two values for argument {k!r}")
            given[k] = v
        missing = [k for k in sig_kwargs if k not in given]
        unknown = [k for k in given if k not in sig_kwargs]
        if missing or unknown:
            raise TypeError(f"{self.name}: missing arguments {missing} / unexpected arguments "
                            f"{unknown}; expected {list(sig_kwargs)}")
        return (), given

    def __call__(self, *args, **kwargs):
        """Run the function on arguments of its signature (tensors, or values converted to the
        traced dtypes)."""
        call_args, call_kwargs = self._bind(args, kwargs)
        flat = self._flatten_checked((call_args, call_kwargs))
        return self._call_flat(flat)

    def _flatten_checked(self, structure):
        expected = nest.flatten(self.structured_input_signature)
        try:
            given = _flatten_up_to(self.structured_input_signature, structure)
        except (TypeError, ValueError, KeyError, IndexError) as e:
            raise TypeError(f"{self.name}: the arguments do not match {self.function_type}: {e}") \
                from None
        flat = []
        for i, (value, spec) in enumerate(zip(given, expected)):
            if _is_composite_spec(spec):
                try:
                    flat.extend(_components(value, spec))
                except _NoMatch:
                    raise TypeError(f"{self.name}: argument {i} is {value!r}, which does not fit "
                                    f"{spec!r}") from None
                continue
            if not isinstance(spec, TensorSpec):
                continue
            if isinstance(value, Variable):
                value = value.value()
            if not isinstance(value, Tensor):
                value = convert_to_tensor(value, dtype_hint=spec.dtype)
            if not isinstance(value, SymbolicTensor) and value.dtype != spec.dtype:
                raise errors.InvalidArgumentError(
                    None, None, f"cannot compute {self.name} as input #{i}(zero-based) was "
                                f"expected to be a {spec.dtype.name} tensor but is a "
                                f"{value.dtype.name} tensor [Op:{self.name}]")
            if not spec.shape.is_compatible_with(value.shape):
                raise errors.InvalidArgumentError(
                    None, None, f"cannot compute {self.name} as input #{i}(zero-based) has shape "
                                f"{value.shape}, which is incompatible with the traced shape "
                                f"{spec.shape} [Op:{self.name}]")
            flat.append(value)
        return flat

    def _call_flat(self, flat_tensors):
        outputs = self._compiled(list(flat_tensors) + self._bound)
        return _rebuild(self.structured_outputs, outputs)


def _flatten_up_to(expected, value):
    """The leaves of `value` at the positions of `expected`'s leaves (a list given for a
    TensorSpec stays one leaf)."""
    if isinstance(expected, dict):
        if not isinstance(value, dict) or set(value) != set(expected):
            raise ValueError(f"expected the keys {sorted(expected)}, got {value!r}")
        return [leaf for k in sorted(expected) for leaf in _flatten_up_to(expected[k], value[k])]
    if isinstance(expected, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(expected):
            raise ValueError(f"expected {len(expected)} values, got {value!r}")
        return [leaf for e, v in zip(expected, value) for leaf in _flatten_up_to(e, v)]
    return [value]


def _dedupe(params):
    seen, out = set(), []
    for p in params:
        name, i = p.name, 1
        while name in seen:
            name, i = f"{p.name}_{i}", i + 1
        seen.add(name)
        out.append(p.replace(name=name))
    return out


def _rebuild(structure, outputs):
    """`structure` with its TensorSpecs replaced, in order, by `outputs`."""
    outputs = iter(outputs)
    if isinstance(structure, TensorSpec):
        return next(outputs)
    if _is_composite_spec(structure):
        return _rebuilt(structure, outputs)
    if not nest.is_nested(structure):
        return structure
    leaves = [next(outputs) if isinstance(s, TensorSpec) else
              _rebuilt(s, outputs) if _is_composite_spec(s) else s for s in nest.flatten(structure)]
    return nest.pack_sequence_as(structure, leaves)


def _rebuilt(spec, outputs):
    """The composite of `spec` from its next component tensors among `outputs`."""
    return spec._from_components([next(outputs) for _ in range(1 + spec.ragged_rank)])


def _output_type(structure):
    if isinstance(structure, dict):
        return "Dict[" + ", ".join(f"[{k!r}, {_output_type(v)}]" for k, v in
                                   sorted(structure.items())) + "]"
    if isinstance(structure, (list, tuple)):
        kind = "List" if isinstance(structure, list) else "Tuple"
        return f"{kind}[" + ", ".join(_output_type(v) for v in structure) + "]"
    if structure is None:
        return "Literal[None]"
    return repr(structure)


class RestoredFunction:
    """A loaded tf.function: dispatches a call to the first saved trace it fits."""

    def __init__(self, name, concrete_functions, fullargspec=None, input_signature=None):
        self.__name__ = name
        self.concrete_functions = list(concrete_functions)
        self.input_signature = input_signature
        self._argspec = fullargspec if isinstance(fullargspec, tuple) and \
            hasattr(fullargspec, "_fields") else None
        self._signature = _signature_of(self._argspec)

    @property
    def function_spec(self):
        """The saved FullArgSpec of the function."""
        return self._argspec

    def _list_all_concrete_functions(self):
        return list(self.concrete_functions)

    def _canonical(self, args, kwargs):
        if self._signature is None:
            return tuple(args), dict(kwargs)
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError:
            return tuple(args), dict(kwargs)
        bound.apply_defaults()
        spec = self._argspec
        positional = [bound.arguments[a] for a in spec.args]
        if spec.varargs:
            positional += list(bound.arguments.get(spec.varargs, ()))
        kw = {k: bound.arguments[k] for k in spec.kwonlyargs}
        if spec.varkw:
            kw.update(bound.arguments.get(spec.varkw, {}))
        return tuple(positional), kw

    def _match(self, args, kwargs):
        inputs = self._canonical(args, kwargs)
        for convert in (False, True):
            for concrete in self.concrete_functions:
                flat = _fit(concrete, inputs, convert)
                if flat is not None:
                    return concrete, flat
        return None, inputs

    def __call__(self, *args, **kwargs):
        if not self.concrete_functions:
            raise ValueError("Found zero restored functions for caller function.")
        concrete, flat = self._match(args, kwargs)
        if concrete is not None:
            return concrete._call_flat(flat)
        options = []
        for i, c in enumerate(self.concrete_functions):
            positional, keyword = c.structured_input_signature
            options.append(f"Option {i + 1}:\n  {_positional(positional)}\n  Keyword arguments: "
                           f"{keyword}")
        raise ValueError(
            f"Could not find matching concrete function to call loaded from the SavedModel. "
            f"Got:\n  {_positional(args)}\n  Keyword arguments: {kwargs}\n\n Expected these "
            f"arguments to match one of the following {len(self.concrete_functions)} "
            f"option(s):\n\n" + "\n\n".join(options))

    def get_concrete_function(self, *args, **kwargs):
        """The saved trace these arguments (tensors or TensorSpecs) fit."""
        if not args and not kwargs and len(self.concrete_functions) == 1:
            return self.concrete_functions[0]
        specs = nest.map_structure(
            lambda v: v if isinstance(v, TensorSpec) else
            TensorSpec(v.shape, v.dtype) if isinstance(v, (Tensor, Variable)) else v,
            (tuple(args), dict(kwargs)))
        inputs = self._canonical(*specs)
        for c in self.concrete_functions:
            if _spec_fit(c.structured_input_signature, inputs):
                return c
        raise ValueError(f"No saved trace of {self.__name__} fits {args!r} {kwargs!r}; the "
                         f"saved traces take: "
                         f"{[c.structured_input_signature for c in self.concrete_functions]}")

    def __get__(self, instance, owner):
        return self

    def __repr__(self):
        return f"<minitf.saved_model RestoredFunction {self.__name__}>"


def _positional(values):
    return "Positional arguments ({} total):\n    * {}".format(
        len(values), "\n    * ".join(pprint.pformat(a) for a in values))


def _signature_of(spec):
    if spec is None:
        return None
    params = []
    defaults = list(spec.defaults or [])
    first_default = len(spec.args) - len(defaults)
    for i, name in enumerate(spec.args):
        default = defaults[i - first_default] if i >= first_default else P.empty
        params.append(P(name, P.POSITIONAL_OR_KEYWORD, default=default))
    if spec.varargs:
        params.append(P(spec.varargs, P.VAR_POSITIONAL))
    for name in spec.kwonlyargs or []:
        params.append(P(name, P.KEYWORD_ONLY,
                        default=(spec.kwonlydefaults or {}).get(name, P.empty)))
    if spec.varkw:
        params.append(P(spec.varkw, P.VAR_KEYWORD))
    try:
        return inspect.Signature(params)
    except ValueError:
        return None


def _fit(concrete, inputs, convert):
    """The flat tensors of `inputs` for `concrete`, or None when they do not fit it."""
    expected = concrete.structured_input_signature
    try:
        nest.assert_same_structure(expected, inputs, check_types=False)
    except (TypeError, ValueError):
        return None
    flat = []
    try:
        for value, spec in zip(nest.flatten(inputs), nest.flatten(expected)):
            if _is_composite_spec(spec):  # a RaggedTensorSpec: the value's component tensors
                flat.extend(_components(value, spec))
                continue
            matched = _matches(value, spec, convert)
            if matched is not None:
                flat.append(matched)
    except _NoMatch:
        return None
    return flat


def _is_composite_spec(spec):
    return hasattr(spec, "_to_components")


def _components(value, spec):
    """The component tensors of a composite `value` of `spec`, or raises _NoMatch."""
    if hasattr(value, "_to_components") or not spec.is_compatible_with(value):
        raise _NoMatch
    try:
        return spec._to_components(value)
    except TypeError:
        raise _NoMatch from None


def _flat_specs(structure):
    """The TensorSpecs of the flat tensors of `structure` (a composite's components expanded)."""
    out = []
    for s in nest.flatten(structure):
        if isinstance(s, TensorSpec):
            out.append(s)
        elif _is_composite_spec(s):
            flat_shape = TensorShape(None) if s.shape.rank is None else \
                TensorShape([None]).concatenate(s.shape[s.ragged_rank + 1:])
            out.append(TensorSpec(flat_shape, s.dtype))
            out += [TensorSpec([None], s.row_splits_dtype)] * s.ragged_rank
    return out


def _spec_fit(expected, inputs):
    try:
        nest.assert_same_structure(expected, inputs, check_types=False)
    except (TypeError, ValueError):
        return False
    for value, spec in zip(nest.flatten(inputs), nest.flatten(expected)):
        if isinstance(spec, TensorSpec):
            if not isinstance(value, TensorSpec) or value.dtype != spec.dtype or \
                    not spec.shape.is_compatible_with(value.shape):
                return False
        elif _is_composite_spec(spec):
            if not spec.is_compatible_with(value):
                return False
        elif value != spec:
            return False
    return True

