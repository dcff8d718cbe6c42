"""SavedModel signatures: which functions serve, and the wrappers TF Serving calls.

A signature is a concrete function of tensor arguments. As TF does, `save` wraps each in a
function whose arguments are keywords (the original's argument names) and whose results are a
dict of tensors: a dict stays, a namedtuple becomes its `_asdict()`, anything else `output_0`,
`output_1`, ... The wrapper calls the original with `StatefulPartitionedCall`, passing the
variable handles on.
"""
import collections.abc

from minitf.dtypes import dtypes
from minitf.nest import nest
from minitf.graph.concrete_function import ConcreteFunction
from minitf.saved_model.export_graph import FunctionBuilder, sanitize
from minitf.saved_model.tensors import Attr
from minitf.tensor import Tensor
from minitf.tensor_spec import TensorSpec
from minitf.variable import Variable

__all__ = ["DEFAULT_SIGNATURE_KEY", "get_signature", "find_function_to_export",
           "canonicalize_signatures", "normalize_outputs", "signature_inputs", "build_wrapper"]

DEFAULT_SIGNATURE_KEY = "serving_default"
DEFAULT_SIGNATURE_ATTR = "_default_save_signature"


def _is_function(value):
    return hasattr(value, "get_concrete_function") and hasattr(value, "input_signature")


def get_signature(function):
    """The concrete function a signature uses: itself, or the one trace of a tf.function with
    an input_signature; None for anything else."""
    if _is_function(function) and function.input_signature is not None:
        function = function.get_concrete_function()
    return function if isinstance(function, ConcreteFunction) else None


def _valid_signature(concrete):
    if not concrete.outputs:
        return False
    try:
        signature_inputs(concrete)
        normalize_outputs(concrete.structured_outputs, concrete.name, "unused")
    except ValueError:
        return False
    return True


def find_function_to_export(children):
    """TF's default signature when none is given: the root's `_default_save_signature`, else its
    only tf.function with an input_signature that can serve (tensors in, tensors out)."""
    possible = []
    for name, child in children:
        if not (_is_function(child) or isinstance(child, ConcreteFunction)):
            continue
        if name == DEFAULT_SIGNATURE_ATTR:
            return child
        concrete = get_signature(child)
        if concrete is not None and _valid_signature(concrete):
            possible.append(child)
    return possible[0] if len(possible) == 1 else None


def declared_names(function):
    """The names of the TensorSpecs a tf.function's input_signature declares (None where a
    spec has no name; None for anything but such a function)."""
    if _is_function(function) and function.input_signature is not None:
        return [getattr(s, "name", None) for s in nest.flatten(function.input_signature)]
    return None


def canonicalize_signatures(signatures):
    """{signature key: (ConcreteFunction, declared input names)} of `save`'s `signatures`."""
    if signatures is None:
        return {}
    if not isinstance(signatures, collections.abc.Mapping):
        signatures = {DEFAULT_SIGNATURE_KEY: signatures}
    out = {}
    for key, function in signatures.items():
        if not isinstance(key, str):
            raise ValueError(f"Signature keys must be strings, got {key!r}.")
        concrete = get_signature(function)
        if concrete is None:
            raise ValueError(f"Expected a TensorFlow function for which to generate a signature, "
                             f"but got {function}. Only `tf.functions` with an input signature or "
                             f"concrete functions can be used as a signature.")
        names = declared_names(function)
        signature_inputs(concrete, names)
        normalize_outputs(concrete.structured_outputs, concrete.name, key)
        out[key] = (concrete, names)
    return out


def signature_inputs(concrete, names=None):
    """[(keyword, TensorSpec)] of a signature function's tensor arguments, in argument order:
    named as `names` (the declared specs' names) says, else after the arguments (ValueError for
    a variable argument)."""
    args, kwargs = concrete.structured_input_signature
    flat = nest.flatten((args, kwargs))
    if any(isinstance(v, Variable) for v in flat) or any(
            v is not None for v in concrete.graph.variable_arguments):
        raise ValueError(f"Unable to serialize concrete_function '{concrete.name}'with tf.Variable "
                         f"input. Functions that expect tf.Variable inputs cannot be exported as "
                         f"signatures.")
    specs = [v for v in flat if isinstance(v, TensorSpec)]
    out, taken = [], set()
    names = list(names or []) + [None] * len(specs)
    for spec, placeholder, name in zip(specs, concrete.graph.inputs, names):
        keyword = sanitize(name or spec.name or placeholder.op.name)
        base, i = keyword, 1
        while keyword in taken:
            keyword, i = f"{base}_{i}", i + 1
        taken.add(keyword)
        out.append((keyword, TensorSpec(spec.shape, spec.dtype, keyword)))
    return out


def normalize_outputs(outputs, function_name, signature_key):
    """A signature function's outputs as {key: tensor} (TF's rule; ValueError otherwise)."""
    if not isinstance(outputs, collections.abc.Mapping):
        if hasattr(outputs, "_asdict"):
            outputs = outputs._asdict()
        else:
            if not isinstance(outputs, collections.abc.Sequence):
                outputs = [outputs]
            outputs = {f"output_{i}": v for i, v in enumerate(outputs)}
    for key, value in outputs.items():
        if not isinstance(key, (str, bytes)):
            raise ValueError(f"Got a dictionary with a non-string key {key!r} in the output of the "
                             f"function {function_name} used to generate the SavedModel signature "
                             f"{signature_key!r}.")
        if not isinstance(value, Tensor):
            raise ValueError(f"Got a non-Tensor value {value!r} for key {key!r} in the output of "
                             f"the function {function_name} used to generate the SavedModel "
                             f"signature {signature_key!r}. Outputs for functions used as "
                             f"signatures must be a single Tensor, a sequence of Tensors, or a "
                             f"dictionary from string to Tensor.")
    return dict(outputs)


def build_wrapper(name, key, concrete, exported, names=None):
    """The signature wrapper FunctionDef of `concrete` (exported as `exported`).

    Returns (FunctionDef, inputs [(keyword, TensorSpec)] in argument order, {output key:
    TensorSpec} and output dtypes in the wrapper's output order (keys sorted)).
    """
    inputs = signature_inputs(concrete, names)
    outputs = normalize_outputs(concrete.structured_outputs, concrete.name, key)
    b = FunctionBuilder(name)
    by_keyword = {}
    for keyword, spec in sorted(inputs):
        by_keyword[keyword] = b.add_input(keyword, spec.dtype, spec.shape, user_name=keyword)
    resources = [b.resource(v) for v in exported.variables]
    in_dtypes = [spec.dtype for _, spec in inputs] + [dtypes.resource] * len(resources)
    call = b.node("StatefulPartitionedCall", "StatefulPartitionedCall",
                  [by_keyword[k] for k, _ in inputs] + resources,
                  {"f": Attr.func(exported.name), "Tin": Attr.types(in_dtypes),
                   "Tout": Attr.types(exported.output_dtypes)})
    b.stateful_node(call)
    flat_ids = [t._id for t in concrete.outputs]
    keys = sorted(outputs)
    results, specs = [], {}
    for k in keys:
        position = flat_ids.index(outputs[k]._id)
        results.append((f"{call}:output:{position}", outputs[k].dtype))
        specs[k] = TensorSpec(outputs[k].shape, outputs[k].dtype, k)
    fdef = b.finish(results, output_names=[sanitize(k) for k in _unique(keys)])
    return fdef, inputs, specs, [outputs[k].dtype for k in keys]


def _unique(keys):
    seen, out = set(), []
    for k in keys:
        name, i = sanitize(k), 1
        while name in seen:
            name, i = f"{sanitize(k)}_{i}", i + 1
        seen.add(name)
        out.append(name)
    return out
