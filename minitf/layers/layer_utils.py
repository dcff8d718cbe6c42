"""Small helpers shared by the layer modules: argument normalization and (de)serialization."""
from minitf import constraints
from minitf.activations import activations
from minitf.initializers import initializers
from minitf.regularizers import regularizers
from minitf.ops.constant import cast

__all__ = ["normalize_tuple", "normalize_padding", "serialize"]


def normalize_tuple(value, n, name):
    """An int or an iterable of n ints -> a tuple of n ints (ValueError otherwise)."""
    if isinstance(value, int):
        return _positive((value,) * n, n, name, value)
    try:
        out = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {name}={value!r}") from None
    if len(out) != n:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {value}")
    return _positive(out, n, name, value)


def _positive(out, n, name, value):
    """Keras 3's standardize_tuple: kernel sizes, dilation rates and pool sizes take no zero."""
    if name in ("kernel_size", "dilation_rate", "pool_size") and min(out, default=1) <= 0:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value!r}, "
                         f"including values { {v for v in out if v <= 0} } that do not satisfy `value > 0`")
    return out


def normalize_padding(value, allowed=("valid", "same")):
    """'valid'/'same' (any case) -> lower case; ValueError for anything else."""
    padding = str(value).lower()
    if padding not in allowed:
        raise ValueError(f"The `padding` argument must be one of {list(allowed)}. "
                         f"Received: {value}")
    return padding


_FAMILIES = {"activations": activations, "initializers": initializers,
             "regularizers": regularizers, "constraints": constraints}


def serialize(obj, module_name):
    """Config form of an activation/initializer/regularizer/constraint, via its module's `serialize`."""
    if obj is None:
        return None
    fn = getattr(_FAMILIES[module_name], "serialize", None)
    if fn is not None:
        try:
            return fn(obj)
        except Exception:  # noqa: BLE001 -- fall back to a readable name
            pass
    return getattr(obj, "__name__", type(obj).__name__)


def weight_options_config(layer, *weights):
    """The `<weight>_initializer/_regularizer/_constraint` config entries of `layer`'s weights, in
    Keras' order (all initializers, then regularizers, then constraints)."""
    return {f"{w}_{kind}": serialize(getattr(layer, f"{w}_{kind}"), family)
            for kind, family in (("initializer", "initializers"), ("regularizer", "regularizers"),
                                 ("constraint", "constraints")) for w in weights}


def as_floating(x, dtype):
    """`x` cast to `dtype` when it is an integer or bool tensor (floats are left alone).

    Keras layers do not cast integer inputs in `__call__`; their math (matmul, mean,
    normalization) promotes an int/bool operand to the float dtype instead, so a uint8 image
    batch into Dense gives float32. Layers whose math does that call this helper.
    """
    if getattr(x, "dtype", None) is None or x.dtype.is_floating or x.dtype.is_complex:
        return x
    return cast(x, dtype)


def promote_inputs(inputs):
    """Merge-layer inputs with int/bool ones cast to the first floating input's dtype (Keras'
    type promotion: uint8 + float32 -> float32); all-integer lists are left alone."""
    floats = [x.dtype for x in inputs if x.dtype.is_floating]
    if not floats:
        return list(inputs)
    return [as_floating(x, floats[0]) for x in inputs]
