"""Keras' legacy whole-model HDF5 format: `model.save("x.h5")` and `load_model("x.h5")`.

Keras 3 still writes this Keras 2 format (with a warning) and reads it. The file holds, as root
attributes, `keras_version`, `backend`, `model_config` (JSON: {'class_name', 'config'}, with the
layers in the short {'class_name', 'config'} form Keras writes under its legacy scope) and, for a
compiled model, `training_config` (JSON: compile's arguments, functions by name, the optimizer as
`optimizer_config`). Group `model_weights` lists its layers in attribute `layer_names`; each layer's
group lists its variables (trainable first) in `weight_names`, and each name is the path of a
dataset inside that group; `top_level_model_weights` holds the model's own variables.
`optimizer_weights` holds the optimizer's variables the same way. Attributes over HDF5's 64 KB
header limit are split into `name0`, `name1`, ...

Loading is by position, as in Keras: the layers that have weights, in order, take the saved
layers that have weights, in order. The file goes through `safe_h5` (no links, no outside
storage, bounded attributes and reads); every count and shape is checked and every value read
before the first is assigned. Writing is atomic (`h5format.write_hdf5`).
"""
import json
import os
import warnings

import numpy as np

from minitf import backend, optimizers
from minitf.errors import errors
from minitf.checkpoint import h5format, safe_h5
from minitf.layers import serialization
from minitf.layers.serialization import SafeModeScope
from minitf.object_registration import merged_custom_objects
from minitf.saving.compile_config import deserialize_compile_config, serialize_compile_config

__all__ = ["save_model_to_hdf5", "load_model_from_hdf5", "LegacyH5Error", "SAVE_WARNING", "is_legacy_h5_path"]

SAVE_WARNING = ("You are saving your model as an HDF5 file via `model.save()` or `keras.saving.save_model(model)`. "
                "This file format is considered legacy. We recommend using instead the native Keras format, e.g. "
                "`model.save('my_model.keras')` or `keras.saving.save_model(model, 'my_model.keras')`. ")
HDF5_OBJECT_HEADER_LIMIT = 64512   # bytes of one attribute before Keras splits it into chunks
_BACKEND = "tensorflow"            # minitf computes as TensorFlow does; Keras reads but ignores it
_MAX_ATTR_CHUNKS = 4096
_KIND = "Keras H5 model file"


class LegacyH5Error(errors.DataLossError, ValueError):
    """An H5 model file minitf refuses to read: a ValueError, as Keras 3 raises for hostile or
    invalid files, and a DataLossError, as minitf raises for every file it refuses."""


class MissingH5EntryError(errors.DataLossError, KeyError):
    """A group or dataset the file's own attributes name but that is not there (Keras 3 raises
    KeyError naming it)."""

    def __str__(self):
        return self.message


def is_legacy_h5_path(filepath):
    """Whether `filepath` names Keras' legacy whole-model format ('.h5' or '.hdf5')."""
    return os.fspath(filepath).endswith((".h5", ".hdf5"))


# -- configs --------------------------------------------------------------------------------
def _legacy_entry(entry):
    """A Keras 3 layer entry in the short form Keras writes into H5 files: the registered class
    name and the config (plus a functional model's `name` and `inbound_nodes`), nested models'
    layers alike."""
    out = {"class_name": entry.get("registered_name") or entry["class_name"], "config": entry.get("config")}
    for key in ("name", "inbound_nodes"):
        if key in entry:
            out[key] = entry[key]
    config = out["config"]
    if isinstance(config, dict) and isinstance(config.get("layers"), list):
        out["config"] = dict(config, layers=[_legacy_entry(e) for e in config["layers"]])
    return out


def _legacy_value(value):
    """Compile arguments as Keras' legacy serializer writes them: functions by (registered) name,
    objects as {'class_name', 'config'}, strings, lists and dicts as they are."""
    if isinstance(value, list):
        return [_legacy_value(v) for v in value]
    if isinstance(value, dict) and "class_name" in value and "config" in value:
        if value["class_name"] == "function":
            return value.get("registered_name") or value["config"]
        return {"class_name": value.get("registered_name") or value["class_name"], "config": value["config"]}
    if isinstance(value, dict):
        return {k: _legacy_value(v) for k, v in value.items()}
    return value


def model_metadata(model, include_optimizer, keras_version):
    """The root attributes Keras writes: versions, the model config and (compiled, with
    `include_optimizer`) the training config. Raises NotImplementedError, before anything is
    written, for a subclassed model whose config cannot be generated."""
    entry = serialization.serialize(model)  # calls get_config: NotImplementedError as in Keras
    model_config = {"class_name": entry["class_name"], "config": _legacy_entry(entry)["config"]}
    metadata = {"keras_version": keras_version, "backend": _BACKEND, "model_config": model_config}
    compiled = getattr(model, "_compile_config", None)
    optimizer = vars(model).get("optimizer")
    if include_optimizer and optimizer is not None and compiled is not None and getattr(model, "_is_compiled", False):
        training = _legacy_value(serialize_compile_config(compiled))
        training.pop("optimizer", None)
        header = optimizers.serialize(optimizer)
        training["optimizer_config"] = {"class_name": header.get("registered_name") or header["class_name"],
                                        "config": header["config"]}
        metadata["training_config"] = training
    return metadata


# -- writing --------------------------------------------------------------------------------
def _legacy_weights(layer):
    """A layer's variables in the legacy order: trainable, then non-trainable."""
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _own_model_variables(model):
    """The variables the model holds itself (not through its layers), trainable first."""
    own = [v for _, v in getattr(model, "_weights", None) or []]
    return [v for v in own if v.trainable] + [v for v in own if not v.trainable]


def _unique_names(names):
    """`names` with repeats made unique ('x', 'x_1', ...), since each is a dataset path."""
    seen, out = set(), []
    for name in names:
        candidate, i = name, 0
        while candidate in seen:
            i += 1
            candidate = f"{name}_{i}"
        seen.add(candidate)
        out.append(candidate)
    return out


def _variable_names(variables, prefix=None):
    """Keras' weight names: each variable's path ('sequential/dense/kernel'); `prefix` for
    variables without one (the optimizer's: 'adam/iteration')."""
    names = []
    for var in variables:
        path = getattr(var, "path", None)
        names.append(path if path else f"{prefix}/{var.name.split(':')[0]}" if prefix else var.name.split(":")[0])
    return _unique_names(names)


def _save_attribute(group, name, data):
    """Write a list of byte strings as attribute `name`, split into `name0`, `name1`, ... when it
    would pass HDF5's header limit (Keras' layout)."""
    too_long = [x for x in data if len(x) > HDF5_OBJECT_HEADER_LIMIT]
    if too_long:
        raise RuntimeError(f"The following attributes cannot be saved to HDF5 file because they are larger "
                           f"than {HDF5_OBJECT_HEADER_LIMIT} bytes: {too_long}")
    array = np.asarray(data)
    chunks = 1
    parts = np.array_split(array, chunks)
    while any(p.nbytes > HDF5_OBJECT_HEADER_LIMIT for p in parts):
        chunks += 1
        parts = np.array_split(array, chunks)
    if chunks > 1:
        for i, part in enumerate(parts):
            group.attrs[f"{name}{i}"] = part
    else:
        group.attrs[name] = data


def _write_subset(group, names, values):
    _save_attribute(group, "weight_names", [n.encode("utf8") for n in names])
    for name, value in zip(names, values):
        safe_h5.create_dataset(group, name, value)


def _layer_entries(model):
    """[(layer name, weight names, values)] for `model.layers`, and the same for its own
    variables, read once (host copies)."""
    layers = []
    for layer in model.layers:
        variables = _legacy_weights(layer)
        layers.append((layer.name, _variable_names(variables, layer.name),
                       [backend.to_host(v._value) for v in variables]))
    own = _own_model_variables(model)
    top = (_variable_names(own), [backend.to_host(v._value) for v in own])
    return layers, top


def _optimizer_entries(model, include_optimizer):
    optimizer = vars(model).get("optimizer")
    if not include_optimizer or optimizer is None or not getattr(optimizer, "variables", None):
        return None
    variables = list(optimizer.variables)
    return _variable_names(variables, optimizer.name), [backend.to_host(v._value) for v in variables]


def save_model_to_hdf5(model, filepath, overwrite=True, include_optimizer=True, keras_version="3"):
    """Write `model` to `filepath` in Keras' legacy H5 layout (see the module docstring),
    atomically: an interrupted save leaves the previous file as it was.

    Raises:
      NotImplementedError: a subclassed model whose `get_config` cannot be generated.
      FileExistsError: the file exists and `overwrite` is False.
    """
    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"model.save: {filepath!r} exists and overwrite=False.")
    metadata = model_metadata(model, include_optimizer, keras_version)
    layers, top = _layer_entries(model)
    optimizer = _optimizer_entries(model, include_optimizer)
    texts = {k: json.dumps(v).encode("utf8") if isinstance(v, dict) else v for k, v in metadata.items()}
    size = sum(a.nbytes + 1024 for _, _, values in layers for a in values) + sum(len(t) for t in texts.values())
    size += sum(a.nbytes + 1024 for a in (optimizer[1] if optimizer else ()))

    def fill(f):
        for key, value in texts.items():
            f.attrs[key] = value
        weights = f.create_group("model_weights")
        _save_attribute(weights, "layer_names", [name.encode("utf8") for name, _, _ in layers])
        weights.attrs["backend"] = _BACKEND.encode("utf8")
        weights.attrs["keras_version"] = str(keras_version).encode("utf8")
        for name, names, values in sorted(layers, key=lambda item: item[0]):
            _write_subset(weights.create_group(name), names, values)
        _write_subset(weights.create_group("top_level_model_weights"), *top)
        if optimizer is not None:
            _write_subset(f.create_group("optimizer_weights"), *optimizer)
    h5format.write_hdf5(filepath, fill, size)


# -- reading --------------------------------------------------------------------------------
def _refuse(filepath, obj, what, cls=LegacyH5Error):
    return safe_h5.refusal(_KIND, filepath, obj, what, cls)


def _names(store, group, name):
    """A list-of-text attribute (`layer_names`, `weight_names`), joined from its chunks when
    Keras split it; [] when absent or empty."""
    value = store.attr(group, name)
    if value is None:
        parts, i = [], 0
        while i < _MAX_ATTR_CHUNKS and store.attr(group, f"{name}{i}") is not None:
            parts.append(store.attr(group, f"{name}{i}"))
            i += 1
        if not parts:
            return []
        value = [v for part in parts for v in (part if isinstance(part, list) else [part])]
    if isinstance(value, np.ndarray):
        if value.size == 0:
            return []  # Keras writes an empty list as an empty float array
        raise _refuse(store.filepath, safe_h5.join(group, "@" + name), "holds numbers, not names.")
    if isinstance(value, str):
        return [value]
    if not all(isinstance(v, str) for v in value):
        raise _refuse(store.filepath, safe_h5.join(group, "@" + name), "holds values that are not names.")
    return list(value)


def _group(store, parent, name):
    path = safe_h5.join(parent, name)
    if path not in store.groups:
        raise _refuse(store.filepath, path, f"is missing: attribute {parent!r} names group {name!r} but the file "
                      "has no such group.", MissingH5EntryError)
    return path


def _datasets(store, group):
    """The entries of the datasets named by `group`'s `weight_names`, in that order."""
    out = []
    for name in _names(store, group, "weight_names"):
        entry = store.entries.get(safe_h5.join(group, name))
        if entry is None:
            raise _refuse(store.filepath, safe_h5.join(group, name), "is missing: `weight_names` names a dataset "
                          "the file does not hold.", MissingH5EntryError)
        out.append(entry)
    return out


def _shape_check(entries, variables, what):
    for entry, var in zip(entries, variables):
        if tuple(entry.shape) != tuple(var._value.shape):
            raise safe_h5.IncompatibleValueError(
                None, None, f"Shape mismatch in {what} for weight {getattr(var, 'path', var.name)}. Weight expects "
                f"shape {tuple(var._value.shape)}. Received saved weight with shape {tuple(entry.shape)}")


def _layer_pairs(store, model):
    """(variable, entry) pairs of every layer and of the model itself, by position, counts and
    shapes checked (Keras' errors and messages)."""
    root = _group(store, "", "model_weights")
    filtered = [layer for layer in model.layers if _legacy_weights(layer)]
    saved = []
    for name in _names(store, root, "layer_names"):
        group = _group(store, root, name)
        if _names(store, group, "weight_names"):
            saved.append((name, group))
    if len(saved) != len(filtered):
        raise ValueError(f"Layer count mismatch when loading weights from file. Model expected {len(filtered)} "
                         f"layers, found {len(saved)} saved layers.")
    pairs = []
    for k, ((name, group), layer) in enumerate(zip(saved, filtered)):
        variables, entries = _legacy_weights(layer), _datasets(store, group)
        if len(entries) != len(variables):
            raise ValueError(f"Weight count mismatch for layer #{k} (named {layer.name} in the current model, "
                             f"{name} in the save file). Layer expects {len(variables)} weight(s). Received "
                             f"{len(entries)} saved weight(s)")
        _shape_check(entries, variables, f"layer #{k} (named {layer.name})")
        pairs += zip(variables, entries)
    top = safe_h5.join(root, "top_level_model_weights")
    if top in store.groups:
        variables, entries = _own_model_variables(model), _datasets(store, top)
        if len(entries) != len(variables):
            raise ValueError(f"Weight count mismatch for top-level weights when loading weights from file. Model "
                             f"expects {len(variables)} top-level weight(s). Received {len(entries)} saved "
                             f"top-level weight(s)")
        _shape_check(entries, variables, "top-level model")
        pairs += zip(variables, entries)
    return pairs


def _json_attr(store, name):
    text = store.attr("", name)
    if text is None:
        return None
    if not isinstance(text, str):
        raise _refuse(store.filepath, "@" + name, "is not text.")
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:  # RecursionError: nesting deeper than Python's stack
        raise _refuse(store.filepath, "@" + name, f"is not valid JSON ({type(e).__name__}: {e}).") from None
    if not isinstance(value, dict):
        raise _refuse(store.filepath, "@" + name, f"holds a {type(value).__name__}, not a JSON object.")
    return value


def _keras2_fixes(entry):
    """Keras 2 spellings Keras 3 still reads from H5 files: `batch_input_shape` and one-element
    `axis` lists (in every layer entry, nested models' too). Each entry also gets empty `module`
    and `registered_name` keys, so that minitf reads it as a Keras 3 object dict (its spellings
    standardized) with the class found by its (registered) class name."""
    entry.setdefault("module", None)
    entry.setdefault("registered_name", None)
    config = entry.get("config")
    if not isinstance(config, dict):
        return
    shape = config.pop("batch_input_shape", None)
    if shape is not None:
        config["batch_shape" if entry.get("class_name") == "InputLayer" else "input_shape"] = shape
    axis = config.get("axis")
    if isinstance(axis, list) and len(axis) == 1:
        config["axis"] = int(axis[0])
    layers = config.get("layers")
    for inner in layers if isinstance(layers, list) else ():
        if isinstance(inner, dict):
            _keras2_fixes(inner)


def _check_classes(entry, custom_objects):
    """Keras' ValueError for a class it cannot find (by class name, in `custom_objects`, the
    registry or the built-in layers), before any layer is made."""
    name = entry.get("class_name")
    if not isinstance(name, str) or (name not in merged_custom_objects(custom_objects)
                                      and serialization.builtin_layer_class(name) is None):
        raise ValueError(f"Unknown layer: '{name}'. Please ensure you are using a "
                         f"`keras.utils.custom_object_scope` and that this object is included in the scope. See "
                         f"https://www.tensorflow.org/guide/keras/save_and_serialize"
                         f"#registering_the_custom_object for details.")
    config = entry.get("config")
    if not isinstance(config, dict):
        raise ValueError(f"Improper config format for {str(entry)[:500]}: its 'config' must be a JSON object "
                         f"(the file's model_config is damaged).")
    layers = config.get("layers")
    if "layers" in config and not isinstance(layers, list):
        raise ValueError(f"Improper config format for the {name} model: 'layers' must be a list; received "
                         f"{str(layers)[:200]} (the file's model_config is damaged).")
    for inner in layers or ():
        if not isinstance(inner, dict) or "class_name" not in inner:
            raise ValueError(f"Improper config format for {str(inner)[:500]}. Expecting python dict contains "
                             f"`class_name` and `config` as keys")
        _check_classes(inner, custom_objects)


def _compile(model, training, custom_objects):
    """Compile as the training config says (the arguments Keras 3 reads from it)."""
    if not isinstance(training.get("optimizer_config"), dict):
        raise ValueError(f"The training config of this file has no `optimizer_config`: {training}")
    stored = {"optimizer": training["optimizer_config"], "loss": training.get("loss"),
              "metrics": training.get("metrics"), "weighted_metrics": training.get("weighted_metrics"),
              "loss_weights": training.get("loss_weights")}
    kwargs = deserialize_compile_config(stored, custom_objects)
    model.compile(**{k: kwargs[k] for k in ("optimizer", "loss", "metrics", "weighted_metrics", "loss_weights")})


def _optimizer_pairs(store, model):
    """(variable, entry) pairs of the built optimizer, or [] with Keras' warning when the saved
    state does not fit it."""
    optimizer = vars(model).get("optimizer")
    if optimizer is None or "optimizer_weights" not in store.groups:
        return []
    if model.built:
        optimizer.build(model.trainable_variables)
    variables, entries = list(optimizer.variables), _datasets(store, "optimizer_weights")
    fits = len(variables) == len(entries) and all(
        tuple(e.shape) == tuple(v._value.shape) for e, v in zip(entries, variables))
    if not fits:
        warnings.warn("Error in loading the saved optimizer state. As a result, your model is starting with a "
                      "freshly initialized optimizer.", stacklevel=5)
        return []
    return list(zip(variables, entries))


def load_model_from_hdf5(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002 (Keras' name)
    """The model in Keras' legacy H5 file `filepath`, with its weights and (unless
    `compile=False`, and when the file has a training config) compiled with its optimizer state.

    Raises:
      FileNotFoundError: no such file.
      ValueError: no model config, an unknown class, or layer/weight counts or shapes that do not
        fit the model (Keras' messages); LegacyH5Error (a ValueError and DataLossError) for a file
        minitf refuses (links, outside storage, non-numeric values, oversized attributes).
      KeyError: a group or dataset the file names but lacks (MissingH5EntryError).
    """
    filepath = os.fspath(filepath)
    if not os.path.lexists(filepath):
        raise FileNotFoundError(f"Unable to open file (file not found): no H5 model file at {filepath!r}; "
                                f"check the path.")
    try:
        with safe_h5.SafeH5(filepath, _KIND) as store:
            return _load(store, custom_objects, compile, safe_mode)
    except errors.DataLossError as e:
        if isinstance(e, (ValueError, KeyError)):
            raise
        raise LegacyH5Error(None, None, f"Not allowed: {e.message}") from None


def _load(store, custom_objects, compile, safe_mode):  # noqa: A002
    config = _json_attr(store, "model_config")
    if config is None:
        raise ValueError(f"No model config found in the file at {store.filepath}.")
    if "config" not in config or "class_name" not in config:
        raise ValueError(f"The provided configuration is not a valid Keras configuration. Expected a dictionary "
                         f"containing a 'config' key. Received: config={config}")
    _keras2_fixes(config)
    _check_classes(config, custom_objects)
    with SafeModeScope(safe_mode):
        model = serialization.deserialize(config, custom_objects)
    pairs = _layer_pairs(store, model)
    if compile:
        training = _json_attr(store, "training_config")
        if training is None:
            warnings.warn("No training configuration found in the save file, so the model was *not* compiled. "
                          "Compile it manually.", stacklevel=4)
        else:
            _compile(model, training, custom_objects)
            pairs += _optimizer_pairs(store, model)
    for var, entry in pairs:
        store.check_value(entry, var._value.shape, var._value.dtype, cast=True)
    values = [store.read(entry, var._value.shape, var._value.dtype, cast=True) for var, entry in pairs]
    for (var, _), value in zip(pairs, values):
        var._set(backend.array_module(var._value).asarray(value))
    return model
