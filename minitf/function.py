"""tf.function: trace a Python function into a graph once per input signature, then run the graph.

The first call with a new signature (the trace types of its arguments: tensors by dtype and
shape, Python values by value, other objects by identity) runs the Python function on
placeholders and records a graph of its ops (`minitf.graph`); later calls with a matching
signature run that graph and never the Python body, so Python side effects (print, appending
to a list) happen only while tracing, and `tf.print`, variable writes and optimizer steps on
every call, as in TF. `tf.config.run_functions_eagerly(True)` turns tracing off for debugging.
"""
import functools
import inspect
import logging
import threading
import weakref

import numpy as np

from minitf import composite_function
from minitf.config import config
from minitf.nest import nest
from minitf.autograph import api as autograph
from minitf.convert import convert_to_tensor
from minitf.graph.signature import CallBinder
from minitf.graph.concrete_function import Parameter
from minitf.graph.trace_type import has_composite, trace_type_of
from minitf.graph.tracing import trace
from minitf.recording import thread_state
from minitf.tensor import Tensor
from minitf.tensor_spec import TensorSpec  # noqa: F401 (tf.TensorSpec is defined beside TraceType)
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["function", "TensorSpec", "Function"]

_log = logging.getLogger("minitf")

_VARIABLES_ONCE = ("tf.function only supports singleton tf.Variables created on the first call. "
                   "Make sure the tf.Variable is only created once or created outside tf.function. "
                   "See https://www.tensorflow.org/guide/function#creating_tfvariables for more "
                   "information.")


class _RetracingDetector:
    """Warns, as TF does, when most of the last calls of a Python function retraced it."""

    HISTORY, THRESHOLD, MAX_WARNINGS = 10, 5, 2

    def __init__(self):
        self._calls_per_trace = []
        self._calls = 0
        self._warnings = 0

    def called(self, traced, name):
        self._calls += 1
        if not traced:
            if not self._calls_per_trace:
                self._calls_per_trace = [0]
            self._calls_per_trace[-1] += 1
            return
        self._calls_per_trace.append(1)
        while self._calls_per_trace and self._calls - self._calls_per_trace[0] > self.HISTORY:
            self._calls -= self._calls_per_trace.pop(0)
        if self._warnings < self.MAX_WARNINGS and len(self._calls_per_trace) >= self.THRESHOLD:
            self._warnings += 1
            _log.warning(
                "%d out of the last %d calls to %s triggered tf.function retracing. Tracing is "
                "expensive and the excessive number of tracings could be due to (1) creating "
                "@tf.function repeatedly in a loop, (2) passing tensors with different shapes, (3) "
                "passing Python objects instead of tensors. For (1), please define your "
                "@tf.function outside of the loop. For (2), @tf.function has reduce_retracing=True "
                "option that can avoid unnecessary retracing. For (3), please refer to "
                "https://www.tensorflow.org/guide/function#controlling_retracing and "
                "https://www.tensorflow.org/api_docs/python/tf/function for  more details.",
                len(self._calls_per_trace), self._calls, name)


# Called with each concrete function a Function runs (tf.summary.trace_on records their graphs).
call_observers = []

_detectors = weakref.WeakKeyDictionary()
_detectors_lock = threading.Lock()


def _detector_for(python_function):
    key = getattr(python_function, "__func__", python_function)
    with _detectors_lock:
        try:
            detector = _detectors.get(key)
            if detector is None:
                detector = _detectors[key] = _RetracingDetector()
        except TypeError:  # not weak-referenceable
            detector = _RetracingDetector()
    return detector


@export("types.experimental.GenericFunction", "types.experimental.PolymorphicFunction")
class Function:
    """A callable made by `tf.function` (TF's `PolymorphicFunction`): a cache of traces.

    Args:
      python_function: the function to trace.
      input_signature: TensorSpecs fixing the one signature every call must fit (calls that do
        not fit raise TypeError), or None to trace per signature of the calls.
      name: the name of the traces (the function's own name by default).
      jit_compile, reduce_retracing, autograph: as `tf.function` documents them.
    """

    def __init__(self, python_function, input_signature=None, name=None, jit_compile=None,
                 reduce_retracing=False, autograph=True):
        self._python_function = python_function
        self._input_signature = None if input_signature is None else list(input_signature)
        self._name = name or getattr(python_function, "__name__", "function")
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self._autograph = autograph
        self._signature = (None if input_signature is None else  # RaggedTensorSpecs allowed
                           composite_function.input_signature(python_function, self._input_signature, self._name))
        self._binder = CallBinder(python_function)
        self._cache = {}
        self._traced_once = False
        self._eager_keys = set()  # ragged signatures whose trace failed: run eagerly
        self._lock = threading.RLock()
        self._detector = _detector_for(python_function)
        functools.update_wrapper(self, python_function)

    # -- what a Function shows ----------------------------------------------------------------
    @property
    def python_function(self):
        """The wrapped Python function."""
        return self._python_function

    @property
    def input_signature(self):
        """The declared signature, or None."""
        return self._input_signature

    @property
    def function_spec(self):
        """The declared input signature (TF keeps the function's spec here)."""
        return self._input_signature

    def experimental_get_tracing_count(self):
        """How many traces this function holds."""
        return len(self._concrete_functions())

    def _concrete_functions(self):
        seen, out = set(), []
        for concrete in self._cache.values():
            if id(concrete) not in seen:
                seen.add(id(concrete))
                out.append(concrete)
        return out

    def _list_all_concrete_functions(self):
        return self._concrete_functions()

    def pretty_printed_concrete_signatures(self, verbose=True):
        """Every trace's signature, as TF prints them, separated by blank lines."""
        return "\n\n".join(c.pretty_printed_signature(verbose) for c in self._concrete_functions())

    def __get__(self, instance, owner):
        if instance is None:
            return self
        # one bound Function per instance, cached on it, so methods keep their traces
        cache_name = f"_tf_function_{id(self)}"
        bound = instance.__dict__.get(cache_name) if hasattr(instance, "__dict__") else None
        if bound is None:
            bound = Function(self._python_function.__get__(instance, owner), self._input_signature,
                             self._name, self._jit_compile, self._reduce_retracing, self._autograph)
            try:
                instance.__dict__[cache_name] = bound
            except (AttributeError, TypeError):
                pass
        return bound

    # -- calling -------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if config.functions_run_eagerly():
            if self._signature is not None:
                values = self._signature.bind(args, kwargs)
                return self._call_python(self._python_function, self._signature.parameters, values)
            return self._python_function(*_tensors_for_arrays(args),
                                         **_tensors_for_arrays(kwargs))
        if thread_state.graph is not None:  # called while another function is traced: inline it
            return self._call_inline(args, kwargs)
        parameters, values = self._parameters(args, kwargs)
        concrete, traced = None, False
        if not any(has_composite(p.type) for p in parameters):  # see trace_type.Composite
            concrete, traced = self._concrete_or_none(parameters, values)
        if concrete is None:  # run eagerly
            if self._signature is not None:
                return self._call_python(self._python_function, parameters, values)
            return self._python_function(*args, **kwargs)
        self._detector.called(traced, self._python_function)
        if call_observers:
            for observe in call_observers:
                observe(concrete)
        flat, variables = _flat_inputs(parameters, values)
        return concrete._call_flat(flat, variables)

    def get_concrete_function(self, *args, **kwargs):
        """The trace for these arguments (TensorSpecs stand for tensors), tracing if needed."""
        if self._signature is not None and not args and not kwargs:
            parameters, values = self._signature.parameters, [None] * len(self._signature.parameters)
        else:
            parameters, values = self._parameters(args, kwargs, specs_allowed=True)
        concrete = None
        if not any(has_composite(p.type) for p in parameters):
            concrete, _ = self._concrete_or_none(parameters, values)
        if concrete is None:  # no graph: checked, then run eagerly
            return composite_function.EagerConcreteFunction(self, parameters)
        return concrete

    def _concrete_or_none(self, parameters, values):
        """`_concrete_for`, or (None, False) for a signature with a RaggedTensor whose function
        minitf's graphs cannot record (an op that needs the ragged tensor's values on the host):
        such a function runs eagerly, as minitf ran every function of ragged arguments before."""
        key = tuple((p.name, p.kind, p.type) for p in parameters)
        if key in self._eager_keys:
            return None, False
        try:
            return self._concrete_for(parameters, values)
        except Exception as error:  # noqa: BLE001 (an eager run raises a genuine error again)
            if not any(_has_ragged(p.type) for p in parameters) or str(error) == _VARIABLES_ONCE:
                raise
            _log.debug("tf.function %s runs eagerly for %s: its trace failed (%s)", self._name,
                       key, error)
            self._eager_keys.add(key)
            return None, False

    def _call_inline(self, args, kwargs):
        if self._signature is not None:
            values = self._signature.bind(args, kwargs)
            return self._call_python(self._traceable(), self._signature.parameters, values)
        return self._traceable()(*args, **kwargs)

    @staticmethod
    def _call_python(fn, parameters, values):
        call_args, call_kwargs = [], {}
        for p, v in zip(parameters, values):
            if p.kind is inspect.Parameter.KEYWORD_ONLY:
                call_kwargs[p.name] = v
            else:
                call_args.append(v)
        return fn(*call_args, **call_kwargs)

    def _parameters(self, args, kwargs, specs_allowed=False):
        """The call's Parameters (name, kind, trace type) and values, in signature order."""
        if self._signature is not None:
            values = self._signature.bind(args, kwargs, specs_allowed)
            return self._signature.parameters, values
        names, values = self._binder.bind(args, kwargs)
        aliases = {}
        parameters = [Parameter(n, k, trace_type_of(v, None, aliases)) for (n, k), v in zip(names, values)]
        return parameters, values

    def _concrete_for(self, parameters, values):
        """(the trace for these parameters, whether this call traced)."""
        key = tuple((p.name, p.kind, p.type) for p in parameters)
        concrete = self._cache.get(key)
        if concrete is not None:
            return concrete, False
        with self._lock:
            concrete = self._cache.get(key) or self._compatible_trace(key)
            if concrete is not None:
                self._cache[key] = concrete
                return concrete, False
            if self._reduce_retracing:
                parameters = self._generalized(parameters)
            concrete = self._trace(parameters, values)
            self._cache[key] = concrete
            self._cache[tuple((p.name, p.kind, p.type) for p in parameters)] = concrete
            return concrete, True

    def _compatible_trace(self, key):
        """A trace whose signature this call's is a subtype of (a `(3,)` tensor for `(None,)`)."""
        for traced_key, concrete in self._cache.items():
            if len(traced_key) == len(key) and all(
                    a[0] == b[0] and a[1] == b[1] and a[2].is_subtype_of(b[2])
                    for a, b in zip(key, traced_key)):
                return concrete
        return None

    def _generalized(self, parameters):
        """With reduce_retracing: the parameters relaxed to cover an earlier trace of the same
        structure (dimensions that differ become None)."""
        for traced_key in self._cache:
            if len(traced_key) != len(parameters) or any(
                    a[0] != p.name or a[1] != p.kind for a, p in zip(traced_key, parameters)):
                continue
            relaxed = [p.type.most_specific_common_supertype([a[2]]) for a, p in zip(traced_key, parameters)]
            if all(r is not None for r in relaxed):
                return [Parameter(p.name, p.kind, r) for p, r in zip(parameters, relaxed)]
        return parameters

    def _traceable(self):
        """The function traces run: AutoGraph's conversion of it unless `autograph=False`."""
        if not self._autograph:
            return self._python_function
        converted = self.__dict__.get("_converted")
        if converted is None:
            converted = self._converted = autograph.convert(self._python_function)
        return converted

    def _trace(self, parameters, values):
        concrete = trace(self._traceable(), self._name, parameters, values)
        if concrete.graph.created_variables:
            if self._traced_once:
                raise ValueError(_VARIABLES_ONCE)
            # As TF: a first trace that made variables is traced again, which must not.
            concrete = trace(self._traceable(), self._name, parameters, values)
            if concrete.graph.created_variables:
                raise ValueError(_VARIABLES_ONCE)
        self._traced_once = True
        return concrete

    def __repr__(self):
        return f"<minitf.function {self._name}>"


def _array_to_tensor(value):
    return convert_to_tensor(value) if isinstance(value, np.ndarray) else value


def _tensors_for_arrays(structure):
    """numpy arrays in the call's arguments as tensors (TF converts them; other values stay)."""
    if nest.is_nested(structure):
        return nest.map_structure(_array_to_tensor, structure)
    return _array_to_tensor(structure)


def _has_ragged(trace_type):
    """True when `trace_type` is or holds a spec traced as component tensors (a RaggedTensorSpec)."""
    if hasattr(trace_type, "_graph_placeholder"):
        return True
    return any(_has_ragged(t) for t in getattr(trace_type, "items", ()))


def _flat_inputs(parameters, values):
    """The call's tensors in placeholder order, and {argument alias: this call's variable}."""
    flat, variables = [], {}
    for p, value in zip(parameters, values):
        _collect(p.type, value, flat, variables)
    return flat, variables


def _collect(trace_type, value, flat, variables):
    if type(trace_type) is TensorSpec:
        if not isinstance(value, Tensor):
            value = convert_to_tensor(value, dtype=trace_type.dtype)
        flat.append(value)
    elif isinstance(value, Variable):
        variables[trace_type.alias] = value
    elif hasattr(trace_type, "_to_components"):  # a RaggedTensor: its component tensors
        flat.extend(trace_type._to_components(value))
    elif isinstance(value, dict):
        for k, t in zip(trace_type.keys, trace_type.items):
            _collect(t, value[k], flat, variables)
    elif isinstance(value, (list, tuple)) and hasattr(trace_type, "items"):
        for v, t in zip(value, trace_type.items):
            _collect(t, v, flat, variables)


@export("function")
def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_implements=None, experimental_autograph_options=None,
             experimental_attributes=None, experimental_relax_shapes=None,
             experimental_compile=None, experimental_follow_type_hints=None, name=None):
    """Make a `Function` that traces `func` into graphs; usable bare (`@tf.function`) or with
    arguments (`@tf.function(input_signature=[...])`).

    Args:
      func: the function to wrap.
      input_signature: a list of TensorSpecs (nested structures allowed) fixing the signature.
      autograph: convert tensor-dependent Python control flow to graph control flow.
      jit_compile: accepted, as TF accepts it.
      reduce_retracing: relax shapes after a retrace so later shapes reuse one trace
        (`experimental_relax_shapes` is its old name).
      name: the traces' name.
    """
    relax = bool(reduce_retracing or experimental_relax_shapes)

    def decorate(f):
        return Function(f, input_signature=input_signature, name=name, jit_compile=jit_compile,
                        reduce_retracing=relax, autograph=autograph)
    return decorate if func is None else decorate(func)
