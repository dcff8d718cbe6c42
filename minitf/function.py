"""tf.function and tf.TensorSpec. minitf runs decorated functions eagerly, with TF's argument rules."""
import functools
import inspect

import numpy as np

from minitf import dtypes, nest
from minitf.convert import convert_to_tensor
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.variable import Variable

__all__ = ["function", "TensorSpec", "Function"]


class TensorSpec:
    """Describes a tensor by shape (None for unknown dims), dtype and optional name."""

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of an existing tensor."""
        return cls(tensor.shape, tensor.dtype, name)

    @property
    def shape(self):
        """The TensorShape this spec allows."""
        return self._shape

    @property
    def dtype(self):
        """The dtype this spec allows."""
        return self._dtype

    @property
    def name(self):
        """The optional name."""
        return self._name

    def is_compatible_with(self, spec_or_tensor):
        """True when the tensor (or spec) has this dtype and a compatible shape."""
        return (self._dtype == spec_or_tensor.dtype
                and self._shape.is_compatible_with(spec_or_tensor.shape))

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self._shape == other._shape
                and self._dtype == other._dtype and self._name == other._name)

    def __hash__(self):
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"


def _signature_plan(python_function, input_signature, name):
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


def _same_literal(value, default):
    """Whether `value` passed for a parameter past the signature is its default (TF accepts
    only that)."""
    if value is default:
        return True
    if type(value) is not type(default) or not isinstance(default, (bool, int, float, str, bytes)):
        return False
    return value == default


def _to_tensor_leaf(value):
    if isinstance(value, np.ndarray):
        return convert_to_tensor(value)
    return value


class Function:
    """A callable made by `tf.function`: runs the Python function eagerly with TF's argument rules.

    With an `input_signature`, every call must pass arguments matching it (TypeError otherwise),
    and they are converted to tensors of the declared dtypes; numpy arrays always become tensors.
    """

    def __init__(self, python_function, input_signature=None, name=None, jit_compile=None,
                 reduce_retracing=False):
        self._python_function = python_function
        self._input_signature = None if input_signature is None else list(input_signature)
        self._name = name or getattr(python_function, "__name__", "function")
        self._bound_to = None
        self._signature_plan = (None if input_signature is None else
                                _signature_plan(python_function, self._input_signature, self._name))
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self):
        """The wrapped Python function."""
        return self._python_function

    @property
    def input_signature(self):
        """The declared signature, or None."""
        return self._input_signature

    def __get__(self, instance, owner):
        if instance is None:
            return self
        # one bound Function per instance, cached on it, so methods keep their identity
        cache_name = f"_tf_function_{id(self)}"
        bound = instance.__dict__.get(cache_name) if hasattr(instance, "__dict__") else None
        if bound is None:
            bound = Function(self._python_function.__get__(instance, owner), self._input_signature,
                             self._name)
            try:
                instance.__dict__[cache_name] = bound
            except (AttributeError, TypeError):
                pass
        return bound

    def _bind_signature(self, args, kwargs):
        """Bind a call to the input_signature as TF does: Python's binding rules over the
        parameters (defaults filled in), each constrained argument converted to its spec, and a
        parameter past the signature fixed at its default. Returns (args, kwargs) to call with."""
        plan = self._signature_plan
        if plan is None:  # a callable inspect cannot read: positional arguments, one per spec
            if kwargs or len(args) != len(self._input_signature):
                raise TypeError(f"Binding inputs to tf.function {self._name!r} failed: it was "
                                f"declared with an input_signature of {len(self._input_signature)} "
                                f"arguments but called with {len(args)} positional and "
                                f"{len(kwargs)} keyword arguments.")
            return [self._convert(i, a, s) for i, (a, s) in
                    enumerate(zip(args, self._input_signature))], {}
        binder, entries = plan
        try:
            bound = binder.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"Binding inputs to tf.function {self._name!r} failed due to `{e}`. "
                            f"Received args: {args!r} and kwargs: {kwargs!r} for signature: "
                            f"{binder}.") from None
        given = dict(bound.arguments)
        bound.apply_defaults()
        call_args, call_kwargs = [], {}
        for index, (name, kind, spec, default) in enumerate(entries):
            value = bound.arguments[name]
            if spec is not None:
                value = self._convert(index, value, spec)
            elif name in given and not _same_literal(value, default):
                raise TypeError(f"Binding inputs to tf.function {self._name!r} failed due to "
                                f"`Can not cast {value!r} to Literal[{default!r}]`: parameter "
                                f"{name!r} is past the input_signature, so it keeps its default "
                                f"{default!r}; add a TensorSpec for it to pass other values.")
            if kind is inspect.Parameter.KEYWORD_ONLY:
                call_kwargs[name] = value
            else:
                call_args.append(value)
        return call_args, call_kwargs

    def _convert(self, i, arg, spec):
        """`arg` as tensors matching `spec` (a TensorSpec or a structure of them)."""
        flat_spec = nest.flatten(spec)
        if nest.is_nested(spec):
            try:
                nest.assert_same_structure(spec, arg, check_types=False)
            except (ValueError, TypeError) as e:
                raise TypeError(f"Binding inputs to tf.function {self._name!r} failed: argument "
                                f"{i} does not match the structure of {spec!r}: {e}") from None
            flat_args = nest.flatten(arg)
        else:
            flat_args = [arg]  # a Python list for one TensorSpec is one tensor
        leaves = []
        for value, s in zip(flat_args, flat_spec):
            if value is None:
                raise TypeError(f"Binding inputs to tf.function {self._name!r} failed: argument "
                                f"{i} is None, which cannot be converted to {s!r}; pass a value "
                                "or drop its TensorSpec.")
            if isinstance(value, (Tensor, Variable)) and value.dtype != s.dtype:
                raise TypeError(f"Binding inputs to tf.function {self._name!r} failed: argument {i} "
                                f"has dtype {value.dtype.name} but the input_signature declares "
                                f"{s!r}.")
            try:
                t = convert_to_tensor(value, dtype=s.dtype)
            except (TypeError, ValueError) as e:
                raise TypeError(f"Binding inputs to tf.function {self._name!r} failed: argument {i} "
                                f"cannot be converted to {s!r}: {e}") from None
            if not s.shape.is_compatible_with(t.shape):
                raise TypeError(f"Binding inputs to tf.function {self._name!r} failed: argument {i} "
                                f"has shape {t.shape} which is incompatible with {s!r}.")
            leaves.append(t)
        return nest.pack_sequence_as(spec, leaves)

    def __call__(self, *args, **kwargs):
        if self._input_signature is not None:
            args, kwargs = self._bind_signature(args, kwargs)
        else:
            args = [nest.map_structure(_to_tensor_leaf, a) for a in args]
            kwargs = {k: nest.map_structure(_to_tensor_leaf, v) for k, v in kwargs.items()}
        return self._python_function(*args, **kwargs)

    def get_concrete_function(self, *args, **kwargs):
        """This function itself (minitf does not trace graphs)."""
        return self

    def __repr__(self):
        return f"<minitf.function {self._name}>"


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_implements=None, experimental_autograph_options=None,
             experimental_attributes=None, experimental_relax_shapes=None,
             experimental_compile=None, experimental_follow_type_hints=None, name=None):
    """Decorator making a `Function`; usable bare (`@tf.function`) or with arguments."""
    def decorate(f):
        return Function(f, input_signature=input_signature, name=name, jit_compile=jit_compile)
    return decorate if func is None else decorate(func)
