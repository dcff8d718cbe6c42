"""How a Layer applies its dtype policy (minitf.mixed_precision): which policy a `dtype`
argument gives, how the policy is written into configs, the autocast scope around `call` and
the weights that read as the compute dtype inside it."""
from minitf.dtypes import dtypes
from minitf.layers.tracking import LayerWeight
from minitf.mixed_precision import autocast, policy as dtype_policies

__all__ = ["policy_of", "policy_config", "autocast_scope", "AutocastWeight"]


def policy_of(dtype, where):
    """The DTypePolicy a layer gets for its `dtype` argument, or None: a layer given no dtype
    keeps following floatx() as long as no global policy is set. A bfloat16 policy is refused
    (see minitf.mixed_precision.policy)."""
    if dtype is None and dtype_policies._state["policy"] is None:
        return None
    policy = dtype_policies.get(dtype)
    dtype_policies.check_usable(policy, where)
    return policy


def policy_config(policy):
    """The `dtype` entry of a layer config: the plain dtype name for a single-dtype policy (what
    minitf always wrote), Keras 3's DTypePolicy dict for a mixed one. Keras 3 reads both."""
    if policy.compute_dtype == policy.variable_dtype:
        return policy.variable_dtype
    return dtype_policies.serialize(policy)


class _NoScope:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


_NO_SCOPE = _NoScope()


def autocast_scope(layer):
    """The autocast scope the layer's `call` runs in, chosen as Keras 3 chooses it.

    A mixed layer (compute dtype != variable dtype) opens a scope of its compute dtype. Inside
    another layer's scope, a layer with autocast off or a non-floating compute dtype clears the
    scope, and one computing in another dtype replaces it (so a float32 output layer inside a
    mixed model reads its weights as float32).
    """
    current = autocast.current_scope()
    policy = layer.dtype_policy
    compute = policy.compute_dtype
    if current is not None:
        if not layer._autocast or not dtypes.as_dtype(compute).is_floating:
            return autocast.AutocastScope(None)
        if current.dtype != compute:
            return autocast.AutocastScope(compute)
    elif compute != policy.variable_dtype:
        return autocast.AutocastScope(compute)
    return _NO_SCOPE


class AutocastWeight(LayerWeight):
    """A layer weight (from `add_weight(autocast=True)`) that reads as the compute dtype inside
    a mixed-precision layer's call; outside any autocast scope it reads as itself."""

    def value(self):
        """The current value, cast to the active autocast scope's dtype (if any)."""
        return autocast.maybe_cast(LayerWeight.value(self))

    read_value = value
