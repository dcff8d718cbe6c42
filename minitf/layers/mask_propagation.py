"""Keras 3's mask propagation: how a boolean mask travels with a tensor from layer to layer.

A layer that produces a mask (Embedding(mask_zero=True), Masking) attaches it to its output
as `_keras_mask`; the next layer whose `call` takes a `mask` argument receives it, and a layer
that supports masking passes `compute_mask(inputs, previous_mask)` on to its own outputs
(by default the mask it received). Layers that do not support masking drop it.

Eager tensors have fixed slots, so their masks live in a side table keyed by the tensor's
id and cleared by a weak reference when the tensor dies; `Tensor._keras_mask` reads and
writes that table. KerasTensors (symbolic) carry the attribute directly. `Layer.__call__`
calls `prepare_call` before `call` (which mask arguments `call` takes comes from the layer's
CallSpec, minitf.layers.call_context) and `finish_call` after it; `symbolic_masks` does the same
for calls on KerasTensors (the mask of a symbolic output is a KerasTensor of its shape).
"""
import weakref

import numpy as np

from minitf.nest import nest
from minitf.keras_core.keras_tensor import KerasTensor
from minitf.ops import array as array_ops
from minitf.ops.constant import cast
from minitf.recording import stop_recording_all
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.variable import Variable

__all__ = ["get_keras_mask", "set_keras_mask", "default_compute_mask", "supports_masking",
           "prepare_call", "finish_call", "symbolic_masks"]

_MASKS = {}  # id(tensor) -> (weak reference to the tensor, its mask)

# Built-in classes that Keras 3 marks `supports_masking = True` and that pass the mask on
# unchanged (their modules predate masking in minitf, so the list lives here).
_PASS_THROUGH = frozenset({
    "Dense", "Identity", "Activation", "ReLU", "ELU", "LeakyReLU", "PReLU", "Softmax",
    "Dropout", "AlphaDropout", "GaussianDropout", "GaussianNoise", "ActivityRegularization",
    "BatchNormalization", "LayerNormalization", "GroupNormalization", "UnitNormalization",
    "Rescaling", "Normalization"})

_class_cache = {}  # layer class -> (supports masking by default, overrides compute_mask)

# What Keras 3's CallSpec counts as a tensor argument (arrays too: Keras converts them first).
_TENSORS = (Tensor, Variable, KerasTensor, np.ndarray)


def get_keras_mask(x):
    """The mask attached to `x` (a tensor or KerasTensor), or None."""
    if isinstance(x, Tensor):
        entry = _MASKS.get(id(x))
        return None if entry is None else entry[1]
    return getattr(x, "_keras_mask", None)


def set_keras_mask(x, mask):
    """Attach `mask` to `x` (None removes it); objects that cannot carry one are skipped."""
    if isinstance(x, Tensor):
        key = id(x)
        if mask is None:
            _MASKS.pop(key, None)
            return
        _MASKS[key] = (weakref.ref(x, lambda _ref, key=key: _MASKS.pop(key, None)), mask)
    elif isinstance(x, KerasTensor):
        x._keras_mask = mask


# Eager tensors answer `t._keras_mask` as Keras tensors do (minitf.ops.operators installs
# Tensor's operators the same way, from outside its module).
Tensor._keras_mask = property(get_keras_mask, set_keras_mask,
                              doc="The Keras mask attached to this tensor, or None.")


def default_compute_mask(layer, inputs, previous_mask=None):
    """Keras 3's default `compute_mask`: the mask the layer received, unchanged."""
    return previous_mask


default_compute_mask._keras_default = True


def _class_info(cls):
    info = _class_cache.get(cls)
    if info is None:
        builtin = any(c.__module__.startswith("minitf.") and c.__name__ in _PASS_THROUGH
                      for c in cls.__mro__)
        computes = not getattr(cls.compute_mask, "_keras_default", False)
        info = _class_cache[cls] = (builtin or computes, computes)
    return info


def supports_masking(layer):
    """Keras 3's default: True when the class overrides compute_mask (or is a pass-through
    built-in), unless the layer set `supports_masking` itself."""
    value = layer.__dict__.get("_supports_masking")
    return _class_info(type(layer))[0] if value is None else value


def _masks_of(inputs):
    """The masks attached to `inputs`: one mask (or None) for a tensor, the same structure of
    masks for lists, tuples and dicts (Keras' `tree.map_structure(get_keras_mask, ...)`)."""
    if isinstance(inputs, Tensor):
        return get_keras_mask(inputs) if _MASKS else None
    if isinstance(inputs, (list, tuple, dict)):
        return nest.map_structure(get_keras_mask, inputs)
    return get_keras_mask(inputs)


def _has_mask(masks):
    if masks is None:
        return False
    if isinstance(masks, (list, tuple, dict)):
        return any(m is not None for m in nest.flatten(masks))
    return True


def _is_tensor_argument(value):
    """Keras 3's CallSpec test: a tensor, or a non-empty structure of tensors (and Nones)."""
    if isinstance(value, _TENSORS):
        return True
    if isinstance(value, (list, tuple, dict)) and len(value) > 0:
        flat = nest.flatten(value)
        return all(v is None or isinstance(v, _TENSORS) for v in flat)
    return False


def _tensor_arguments(spec, inputs, args, kwargs):
    """(name, value) of the call's tensor arguments, as Keras 3's CallSpec binds them."""
    positional = spec.positional
    named = [(positional[0] if positional else "inputs", inputs)]
    surplus = []
    for i, value in enumerate(args, start=1):
        if i < len(positional):
            named.append((positional[i], value))
        else:
            surplus.append(value)
    if surplus:
        named.append(("args", tuple(surplus)))
    loose = {}
    for key, value in kwargs.items():
        if spec.has(key):
            named.append((key, value))
        else:
            loose[key] = value
    if loose:
        named.append(("kwargs", loose))
    return [(name, value) for name, value in named if _is_tensor_argument(value)]


def _given(spec, name, args, kwargs):
    """The value of argument `name` in this call (keyword or positional), or None."""
    if name in kwargs:
        return kwargs[name]
    positional = spec.positional
    if name in positional:
        index = positional.index(name)
        if 1 <= index <= len(args):
            return args[index - 1]
    return None


def prepare_call(layer, spec, inputs, args, kwargs):
    """Before `call`, Keras 3's step 6: fill the mask arguments `call` takes, from the masks
    attached to the tensor arguments, and return the mask the layer received.

    With one tensor argument, a `mask` parameter left None gets that argument's masks (the same
    structure, Nones included); with several, each `<name>_mask` parameter left None gets the
    masks of argument `<name>` (and `mask` is not filled). The mask the layer received is the
    `mask` argument when not None, else the masks of the first argument. Arguments the Keras
    counterpart of a built-in layer takes and its `call` does not (`spec.extras`) are taken out
    of `kwargs`; a `mask` among them still counts as the mask received.
    """
    if spec.extras:
        extra = {k: kwargs.pop(k) for k in spec.extras if k in kwargs}
        if extra.get("mask") is not None:
            return extra["mask"]
    if spec.takes_mask or spec.mask_arguments:
        tensor_args = _tensor_arguments(spec, inputs, args, kwargs)
        if len(tensor_args) == 1:
            if spec.takes_mask and _given(spec, "mask", args, kwargs) is None:
                kwargs["mask"] = _masks_of(tensor_args[0][1])
        elif len(tensor_args) > 1:
            for name, value in tensor_args:
                key = name + "_mask"
                if key in spec.mask_arguments and _given(spec, key, args, kwargs) is None:
                    kwargs[key] = _masks_of(value)
    given = kwargs.get("mask")
    if given is not None:
        return given
    return _masks_of(inputs)


def finish_call(layer, inputs, outputs, previous_mask):
    """After `call`: attach `compute_mask(inputs, previous_mask)` to outputs without a mask, when
    the layer supports masking (Keras 3's `_set_mask_metadata`)."""
    if not _has_mask(previous_mask) and not _class_info(type(layer))[1]:
        return  # the default compute_mask would return the (absent) previous mask
    if not supports_masking(layer):
        return
    flat = nest.flatten(outputs)
    if all(get_keras_mask(x) is not None for x in flat):
        return
    masks = layer.compute_mask(inputs, previous_mask)
    if masks is None:
        return
    flat_masks = nest.flatten(masks) if nest.is_nested(masks) else [masks]
    for x, m in zip(flat, flat_masks):
        if m is not None and get_keras_mask(x) is None:
            set_keras_mask(x, m)


def _concrete(x, fill_value=0):
    if not isinstance(x, KerasTensor):
        return x
    dims = [d if d is not None else (1 if i == 0 else 32) for i, d in enumerate(x.shape.as_list())]
    value = array_ops.zeros(dims, dtype="int32") + fill_value
    return cast(value, x.dtype)


def symbolic_masks(layer, inputs, kwargs, outputs):
    """For a call on KerasTensors: attach KerasTensor masks (shape and dtype) to `outputs`.

    `compute_mask` runs on zeros standing for the inputs (all-True previous masks); each mask's
    shape is then read off its output (a mask covers the output's leading axes), so unknown
    sizes stay unknown. Returns `outputs`.
    """
    previous = kwargs.get("mask")
    if previous is None:
        previous = _masks_of(inputs)
    if not _has_mask(previous) and not _class_info(type(layer))[1]:
        return outputs
    if not supports_masking(layer):
        return outputs
    try:
        with stop_recording_all():
            values = nest.map_structure(_concrete, inputs)
            prev_values = None if previous is None else nest.map_structure(lambda m: _concrete(m, 1), previous)
            masks = layer.compute_mask(values, prev_values)
    except Exception:  # noqa: BLE001 -- only an annotation: the eager call computes (and reports) the real mask
        return outputs
    if masks is None:
        return outputs
    flat = nest.flatten(outputs)
    flat_masks = nest.flatten(masks) if nest.is_nested(masks) else [masks]
    for out, m in zip(flat, flat_masks):
        if m is None or not isinstance(out, KerasTensor) or getattr(out, "_keras_mask", None) is not None:
            continue
        rank = m.shape.rank
        if out.shape.rank is not None and rank <= out.shape.rank:
            shape = TensorShape(out.shape.as_list()[:rank])
        else:
            shape = TensorShape([None] + m.shape.as_list()[1:])
        out._keras_mask = KerasTensor(shape, dtype=m.dtype, name=f"{out.name}_mask")
    return outputs
