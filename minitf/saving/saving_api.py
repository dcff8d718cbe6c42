"""Whole-model saving: `model.save("x.keras")` and `tf.keras.models.load_model`, in Keras 3's format.

A `.keras` file holds the model's config (its class and constructor arguments, the layer graph,
each layer's build shape), its compile config, and every variable (the optimizer's included) in
Keras 3's weights layout, so files move between Keras 3 and minitf both ways. Loading rebuilds
the model from its config (custom classes through registration or `custom_objects`), compiles
it when the file says how, builds the optimizer, then reads and checks every value before the
first is assigned; vocabularies Keras keeps under `assets/` reach the lookup layers.
`safe_mode` (the default) refuses Lambda layers stored as bytecode.
"""
import os
import time
import warnings

from minitf.keras_core.naming import to_snake_case
from minitf.checkpoint import keras_weights, safe_h5
from minitf.layers import serialization
from minitf.layers.serialization import SafeModeScope
from minitf.saving import keras_archive, legacy_h5
from minitf.saving.compile_config import deserialize_compile_config, serialize_compile_config
from minitf.version.version import VERSION
from minitf.api_export import export

__all__ = ["save_model", "load_model"]

KERAS_VERSION = "3.15.1"  # the Keras release whose format minitf writes


def _check_save_arguments(filepath, kwargs):
    include_optimizer = kwargs.pop("include_optimizer", True)
    save_format = kwargs.pop("save_format", None)
    if save_format and not filepath.endswith((".keras", ".h5", ".hdf5")):
        raise ValueError(f"The `save_format` argument is deprecated in Keras 3: pass a file path ending in "
                         f"`.keras` instead. Received: save_format={save_format}")
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {list(kwargs)}")
    return include_optimizer


@export("models.save_model", "keras.models.save_model", "keras.saving.save_model")
def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    """Save `model` whole (config, compile config, weights, optimizer state) as a Keras 3 `.keras`
    file, or as a folder of the same three files when `zipped=False`.

    Args:
      model: a Sequential, functional or subclassed model (subclasses need `get_config` when
        their `__init__` takes arguments, and registration or `custom_objects` to load).
      filepath: a path ending in '.keras' (or '.h5', below).
      overwrite: False raises FileExistsError when the path exists (Keras asks on stdin).
      zipped: write a zip (default) or a folder.
      include_optimizer: False leaves out the compile config and the optimizer's variables.

    A path ending in '.h5' or '.hdf5' writes Keras' legacy whole-model HDF5 format instead (with
    Keras 3's warning; see `legacy_h5`).

    Raises:
      ValueError: another file extension, or unknown keyword arguments.
      NotImplementedError: a subclassed model whose config cannot be generated.
    """
    filepath = os.fspath(filepath)
    include_optimizer = _check_save_arguments(filepath, dict(kwargs))
    if zipped is None:
        zipped = True
    if legacy_h5.is_legacy_h5_path(filepath):
        warnings.warn(legacy_h5.SAVE_WARNING, stacklevel=2)
    if zipped and legacy_h5.is_legacy_h5_path(filepath):
        return legacy_h5.save_model_to_hdf5(model, filepath, overwrite, include_optimizer, KERAS_VERSION)
    if zipped and not filepath.endswith(".keras"):
        raise ValueError(f"Invalid filepath extension for saving. Please add either a `.keras` extension for the "
                         f"native Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` "
                         f"if you want to export a SavedModel for use with TFLite/TFServing/etc. "
                         f"Received: filepath={filepath}.")
    if os.path.exists(filepath) and not overwrite:
        raise FileExistsError(f"model.save: {filepath!r} exists and overwrite=False.")
    config = serialization.serialize(model)
    compiled = getattr(model, "_compile_config", None)
    if include_optimizer and compiled is not None and getattr(model, "_is_compiled", False):
        config["compile_config"] = serialize_compile_config(compiled)
    metadata = {"keras_version": KERAS_VERSION, "date_saved": time.strftime("%Y-%m-%d@%H:%M:%S"),
                "saved_by": f"minitf {VERSION}"}

    def write_weights(f):
        keras_weights.write_weights(f, model, include_optimizer=include_optimizer)
    keras_archive.write_archive(filepath, config, metadata, write_weights, keras_weights.weights_size(model),
                                zipped=zipped)


def _is_keras_file(filepath):
    if os.path.isdir(filepath):
        return os.path.isfile(os.path.join(filepath, keras_archive.CONFIG))
    return filepath.endswith(".keras") and os.path.isfile(filepath)


@export("models.load_model", "keras.models.load_model", "keras.saving.load_model")
def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002 (Keras' name)
    """The model saved in a `.keras` file (or folder), compiled as it was saved unless
    `compile=False`, with its weights and optimizer state; or one saved in Keras' legacy
    '.h5'/'.hdf5' whole-model format (see `legacy_h5`).

    Args:
      custom_objects: {name: class or function} for custom layers, losses, ... that are not
        registered with `register_keras_serializable`.
      safe_mode: refuse Lambda layers stored as Python bytecode (set False only for files you
        trust).

    Raises:
      ValueError: a missing file, another format, or a hostile or damaged archive.
      DataLossError: a weights member minitf refuses to read (see `safe_h5`).
    """
    filepath = os.fspath(filepath)
    if not _is_keras_file(filepath) and legacy_h5.is_legacy_h5_path(filepath):
        return legacy_h5.load_model_from_hdf5(filepath, custom_objects, compile, safe_mode)
    if not _is_keras_file(filepath):
        if filepath.endswith(".keras"):
            raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible "
                             f"`.keras` zip file.")
        raise ValueError(f"File format not supported: filepath={filepath}. minitf loads Keras 3 `.keras` "
                         f"files (zips, or the folders `save(..., zipped=False)` writes) and legacy H5 "
                         f"files (`.h5` extension); for weights "
                         f"alone use model.load_weights.")
    with keras_archive.read_archive(filepath) as (config, _, weights_path, assets), \
            safe_h5.SafeH5(weights_path, f"Weights of {filepath!r}") as store:
        compile_config = config.pop("compile_config", None)
        if assets is not None:
            _vocabularies_into_configs(config, assets, store)
        with SafeModeScope(safe_mode):
            model = serialization.deserialize(config, custom_objects)
        if compile and compile_config is not None:
            _compile(model, compile_config, custom_objects)
        keras_weights.read_weights(store, model)
        if assets is not None:
            _load_assets(model, assets)
    return model


_LOOKUPS = ("StringLookup", "IntegerLookup", "TextVectorization")


def _vocabularies_into_configs(config, folder, store):
    """Point the configs of a Sequential's or functional model's lookup layers at the vocabularies
    Keras 3 keeps in `assets/layers/<snake_case class name, made unique>/vocabulary.txt`, so the
    layers have them while the model is rebuilt (rebuilding calls each layer once). In 'tf_idf'
    mode the IDF weights Keras keeps in the weights file (`layers/<name>/vars/idf_weights`) go
    into the config with them."""
    layers = (config.get("config") or {}).get("layers")
    used = {}
    for entry in layers if isinstance(layers, list) else ():
        if not isinstance(entry, dict) or not isinstance(entry.get("class_name"), str):
            continue
        name = keras_weights.unique_name(to_snake_case(entry["class_name"]), used)
        inner = entry.get("config")
        path = os.path.join(folder, "layers", name, "vocabulary.txt")
        if not (entry["class_name"] in _LOOKUPS and isinstance(inner, dict) and inner.get("vocabulary") is None
                and os.path.isfile(path)):
            continue
        if inner.get("output_mode") in ("tf_idf", "tf-idf"):
            idf = store.entries.get(f"layers/{name}/vars/idf_weights")
            if idf is None:
                continue
            with open(path, encoding="utf-8") as f:
                count = len(f.read().splitlines())
            inner["idf_weights"] = store.read(idf).reshape(-1)[:count].tolist()  # no pad_to_max_tokens zeros
        inner["vocabulary"] = path


def _load_assets(model, folder):
    """Give each object with `load_assets` (lookup layers: their adapted vocabularies) its folder
    of the archive's assets, at the path Keras 3 wrote it under."""
    for path, obj in keras_weights.saveables(model):
        load = getattr(obj, "load_assets", None)
        target = os.path.join(folder, *path.split("/")) if path else folder
        if load is not None and os.path.isdir(target):
            load(target)


def _compile(model, compile_config, custom_objects):
    try:
        model.compile(**deserialize_compile_config(compile_config, custom_objects))
    except Exception as e:  # noqa: BLE001 -- the model itself loads; Keras 3 warns the same way
        warnings.warn(f"compile() was not called as part of model loading: the stored compile config could "
                      f"not be applied ({type(e).__name__}: {e}). Compile the model yourself.", stacklevel=3)
        return
    optimizer = vars(model).get("optimizer")
    if optimizer is not None and model.built:
        optimizer.build(model.trainable_variables)
