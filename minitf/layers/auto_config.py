"""Keras 3's automatic config: the constructor arguments of a layer of your own, captured when
the layer is created, so that it saves and loads without a `get_config` of its own.

Only plain JSON values are captured (str, int, float, bool, None, and lists, tuples and dicts of
them), as Keras does: anything else (a layer, a tensor, a function) makes the capture None and
`get_config` then asks for an override.
"""
import inspect

__all__ = ["capture", "NOT_CAPTURABLE_MESSAGE"]

_SIMPLE = (str, int, float, bool, type(None))
_SIGNATURES = {}

NOT_CAPTURABLE_MESSAGE = (
    "{cls} was created with arguments that are not plain values (or positional-only or *args "
    "arguments), so its config cannot be generated; override get_config() to return them, e.g. "
    "`return {{**super().get_config(), 'units': self.units}}`.")


def _signature(init):
    signature = _SIGNATURES.get(init)
    if signature is None:
        signature = _SIGNATURES[init] = inspect.signature(init)
    return signature


def _simple(value):
    if isinstance(value, _SIMPLE):
        return True
    if isinstance(value, (list, tuple)):
        return all(_simple(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _simple(v) for k, v in value.items())
    return False


def capture(cls, args, kwargs):
    """{argument: value} that `cls(*args, **kwargs)` received, defaults filled in and `name`
    left out, or None when the arguments cannot be replayed as keywords or are not plain."""
    signature = _signature(cls.__init__)
    params = list(signature.parameters.values())
    if any(p.kind is p.POSITIONAL_ONLY for p in params[1:]):
        return None
    try:
        bound = signature.bind(None, *args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    values = dict(bound.arguments)
    values.pop(params[0].name, None)
    for p in params[1:]:
        if p.kind is p.VAR_KEYWORD:
            values.update(values.pop(p.name, {}))
        elif p.kind is p.VAR_POSITIONAL and values.pop(p.name, ()):
            return None
    values.pop("name", None)
    return values if _simple(values) else None
