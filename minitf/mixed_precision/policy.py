"""Keras 3 dtype policies: which dtype a layer computes in and which dtype its weights keep.

A policy is named after a dtype ('float32', 'float16', 'float64': both dtypes are that one) or
is a mixed policy ('mixed_float16', 'mixed_bfloat16': float32 weights, float16/bfloat16
computation). Layers take one (or its name) as `dtype=`; layers given no dtype take the global
policy current when they are created (`set_global_policy`).

minitf keeps tensors in numpy arrays, and numpy has no bfloat16 type (a tf.bfloat16 tensor is
held as float32), so a policy computing in bfloat16 can be named and inspected but no layer
can run under it: `check_usable` refuses it with NotImplementedError.
"""
from minitf.dtypes import dtypes
from minitf.keras_core import config as keras_config
from minitf.api_export import export

__all__ = ["DTypePolicy", "Policy", "FloatDTypePolicy", "set_global_policy", "global_policy",
           "set_dtype_policy", "dtype_policy", "get", "serialize", "check_usable", "floatx_policy"]

_MIXED = {"mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32")}
_state = {"policy": None}  # the global policy set by the user; None: follow floatx()


@export("keras.mixed_precision.DTypePolicy", "keras.mixed_precision.Policy")
class DTypePolicy:
    """A layer's dtype policy: the dtype it computes in and the dtype of its weights.

    `DTypePolicy('mixed_float16')` computes in float16 and keeps float32 weights, the usual
    mixed-precision setup on GPUs; a dtype name ('float32', 'float64', 'float16') uses that
    dtype for both. Passing a policy, or just its name, as a layer's `dtype=` is the same.

    Args:
        name: 'mixed_float16', 'mixed_bfloat16' or a dtype name; default the name of the
            global policy.

    Raises:
        TypeError: when `name` is not a string.
        ValueError: when `name` is neither a mixed policy nor a dtype name.
    """

    def __init__(self, name=None):
        if name is None:
            name = global_policy().name
        self._name = name
        self._compute_dtype, self._variable_dtype = _parse_name(name)

    @property
    def name(self):
        """The policy's name, e.g. 'mixed_float16'."""
        return self._name

    @property
    def compute_dtype(self):
        """The dtype layers compute in (their inputs are cast to it), as a string."""
        return self._compute_dtype

    @property
    def variable_dtype(self):
        """The dtype of the weights layers create, as a string."""
        return self._variable_dtype

    @property
    def quantization_mode(self):
        """None: minitf has no quantized policies."""
        return None

    def get_config(self):
        """{'name': name}, Keras' config of a policy."""
        return {"name": self._name}

    @classmethod
    def from_config(cls, config):
        """The policy `get_config()` describes."""
        return cls(**config)

    def __eq__(self, other):
        return isinstance(other, DTypePolicy) and self._name == other._name

    __hash__ = None  # as Keras: policies compare by name and are unhashable

    def __repr__(self):
        return f'<DTypePolicy "{self._name}">'


class FloatDTypePolicy(DTypePolicy):
    """Keras' other name for DTypePolicy, kept so that configs naming it load."""


Policy = DTypePolicy


def _parse_name(name):
    """(compute dtype, variable dtype) of a policy name, with Keras' errors."""
    if not isinstance(name, str):
        raise TypeError(f"'name' must be a string, such as 'mixed_float16'. Received: name={name} "
                        f"(of type {type(name)})")
    if name in _MIXED:
        return _MIXED[name]
    try:
        dtype = dtypes.as_dtype(name).name
    except TypeError:
        raise ValueError(f"Cannot convert '{name}' to a mixed precision DTypePolicy. Valid policies "
                         "include 'mixed_float16', 'mixed_bfloat16', and the name of any float dtype "
                         "such as 'float32'.") from None
    return dtype, dtype


@export("keras.config.dtype_policy", "keras.mixed_precision.dtype_policy",
        "keras.mixed_precision.global_policy")
def global_policy():
    """The policy layers get when they are created without a `dtype` (Keras' float32 default:
    a policy named after `tf.keras.backend.floatx()` until `set_global_policy` is called)."""
    policy = _state["policy"]
    return policy if policy is not None else floatx_policy()


_FLOATX_POLICIES = {}  # floatx name -> its policy: layers without a policy ask on every call


def floatx_policy():
    """The (shared) policy named after `tf.keras.backend.floatx()`."""
    name = keras_config.floatx()
    policy = _FLOATX_POLICIES.get(name)
    if policy is None:
        policy = _FLOATX_POLICIES[name] = DTypePolicy(name)
    return policy


@export("keras.config.set_dtype_policy", "keras.mixed_precision.set_dtype_policy",
        "keras.mixed_precision.set_global_policy")
def set_global_policy(policy):
    """Make `policy` (a DTypePolicy or its name) the default policy of layers created from now on.

    `set_global_policy('mixed_float16')` turns on mixed precision for every new layer;
    `set_global_policy('float32')` turns it off again. `tf.keras.backend.clear_session()`
    also restores the default, as in Keras.

    Raises:
        ValueError: when `policy` is neither a DTypePolicy nor a string (or an unknown name).
        NotImplementedError: for a policy computing in bfloat16 (see the module docstring).
    """
    if not isinstance(policy, DTypePolicy):
        if not isinstance(policy, str):
            raise ValueError("Invalid `policy` argument. Expected the string name of a policy (such as "
                             f"'mixed_float16') or a `DTypePolicy` instance. Received: policy={policy} "
                             f"(of type {type(policy)})")
        policy = DTypePolicy(policy)
    check_usable(policy, "set_global_policy")
    _state["policy"] = policy


# Keras 3's own names for the two functions (tf.keras.config.set_dtype_policy / dtype_policy)
set_dtype_policy = set_global_policy
dtype_policy = global_policy


def _reset():
    _state["policy"] = None


keras_config.on_clear_session(_reset)


def get(identifier):
    """A DTypePolicy from a policy, a name, a DType, a serialized dict, or None (the global one).

    Raises:
        ValueError: for anything else ("Cannot interpret `dtype` argument"), or an unknown name.
    """
    if identifier is None:
        return global_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, str):
        return DTypePolicy(identifier)
    if isinstance(identifier, dict):
        return _deserialize(identifier)
    try:
        return DTypePolicy(dtypes.as_dtype(identifier).name)
    except TypeError:
        raise ValueError("Cannot interpret `dtype` argument. Expected a string or an instance of "
                         f"DTypePolicy. Received: dtype={identifier}") from None


def _deserialize(config):
    """A policy from Keras 3's {'class_name': 'DTypePolicy', 'config': {'name': ...}} dict."""
    class_name = config.get("class_name")
    inner = config.get("config")
    if class_name not in ("DTypePolicy", "FloatDTypePolicy") or not isinstance(inner, dict):
        raise ValueError(f"Cannot interpret `dtype` argument {config!r}: minitf reads DTypePolicy "
                         "configs ({'class_name': 'DTypePolicy', 'config': {'name': ...}}) only; "
                         "quantized policies are not supported.")
    return DTypePolicy.from_config(inner)


def serialize(policy):
    """Keras 3's dict for a policy: {'module': 'keras', 'class_name': 'DTypePolicy', ...}."""
    return {"module": "keras", "class_name": "DTypePolicy", "config": policy.get_config(),
            "registered_name": None}


def check_usable(policy, where):
    """Refuse a policy computing or storing in bfloat16, which minitf cannot represent."""
    if "bfloat16" in (policy.compute_dtype, policy.variable_dtype):
        raise NotImplementedError(
            f"{where}: the dtype policy {policy.name!r} uses bfloat16, which minitf cannot compute "
            "in: its tensors are numpy arrays and numpy has no bfloat16 type (tf.bfloat16 values are "
            "held as float32). Use 'mixed_float16' for mixed precision, or 'float32'.")
