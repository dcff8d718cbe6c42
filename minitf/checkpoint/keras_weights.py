"""`model.save_weights` / `model.load_weights`: Keras 3 '.weights.h5' files, or TF checkpoints.

A path ending in '.weights.h5' uses Keras 3's layout (keras saving_lib, H5IOStore): every
layer gets a group named by its path, whose 'vars' subgroup holds datasets '0', '1', ... with
the layer's own variables, trainable ones first, each group in creation order:
    vars/                      (the model's own variables, usually none)
    layers/dense/vars/0        (Sequential / functional: the `layers` list, by layer name)
    layers/dense/vars/1
    layers/dense_1/vars/0
Layers held in attributes of subclassed models are stored under the attribute name (public
names sorted, then private ones); lists under the attribute name, then each layer's class name
in Keras' snake case ('conv2d'; a repeat gets '_1', '_2', ...; a functional `Model` is
'functional'), never the layer's own (auto-generated, unreproducible) name — as Keras 3 does. A
compiled optimizer's variables go under 'optimizer/vars' (iterations, learning rate, slots).
A 'vars' group may also hold named datasets beside the numbered ones, as Keras 3's
`save_own_variables` writes them (a 'tf_idf' lookup's 'idf_weights'); objects that take them
(`_keras_extra_weights` / `_load_keras_extra_weights`) write and read them, others ignore them.
Any other path is a TF object-graph checkpoint (`tf.train.Checkpoint(root=model)`), as TF 2's
`save_weights` does for non-h5 paths.

Datasets are written with fletcher32 checksums (Keras 3 reads them; files without checksums
load too). Loading goes through `safe_h5`: links, outside storage and non-numeric values are
refused, and every declared shape is checked against its variable before anything is read.
"""
import errno
import os
import warnings


from minitf import backend
from minitf.errors import errors
from minitf.keras_core.naming import to_snake_case
from minitf.checkpoint import h5format, safe_h5, tensor_bundle
from minitf.checkpoint.checkpoint import Checkpoint, restore_into
from minitf.layers.base import Layer
from minitf.module import Module
from minitf.optimizers.base import Optimizer
from minitf.variable import Variable

__all__ = ["save_weights", "load_weights", "write_weights", "read_weights", "weights_size", "saveables",
           "unique_name"]

KERAS_SUFFIX = ".weights.h5"


def _own_variables(obj):
    """The object's own variables, trainable first, in creation order (Keras 3's order)."""
    if hasattr(obj, "_weights") and isinstance(obj._weights, list):
        own = [v for _, v in obj._weights]
    else:
        own = [v for k, v in sorted(vars(obj).items())
               if not k.startswith("_") and isinstance(v, Variable)]
    return [v for v in own if v.trainable] + [v for v in own if not v.trainable]


def _is_saveable(obj):
    return isinstance(obj, Module)


def _group_name(obj):
    """Keras' name for an object in a list: its class name in Keras' snake case (a plain
    functional `Model` is Keras' class `Functional`)."""
    return to_snake_case(getattr(obj, "_keras_class_name", type(obj).__name__))


def _attribute_names(obj):
    """The attributes Keras' saver visits, in its order: 'layers' first for Sequential and
    functional models, then public names sorted, then private (tracked) names sorted."""
    public = {k for k in vars(obj) if not k.startswith("_")}
    private = set()
    if isinstance(obj, Layer):
        private = {k for k, _ in obj._tracked_attributes() if k.startswith("_")}
    first = []
    if _is_saveable(obj) and hasattr(type(obj), "layers"):
        if getattr(obj, "_graph", None) is not None:
            first = ["layers"]   # Sequential / functional
        else:
            public.add("layers")  # subclassed models: 'layers' in sorted order
    return first + sorted(public - set(first)) + sorted(private)


def _container_children(path, container, out, seen_containers):
    """Keras' names inside a list/tuple/dict: snake-case class names made unique
    ('dense', 'dense_1', ...), nested containers as 'container', 'container_1', ..."""
    if id(container) in seen_containers:
        return
    seen_containers.add(id(container))
    used = {}
    items = container.values() if isinstance(container, dict) else container
    for item in items:
        if _is_saveable(item):
            out.append((f"{path}/{_unique(_group_name(item), used)}", item))
        elif isinstance(item, (list, tuple, dict)):
            _container_children(f"{path}/{_unique('container', used)}", item, out,
                                seen_containers)


def unique_name(name, used):
    """`name`, or `name_1`, `name_2`, ... when `used` (a dict this fills) has seen it: Keras 3's
    names for same-class objects in a container."""
    return _unique(name, used)


def _unique(name, used):
    if name in used:
        used[name] += 1
        return f"{name}_{used[name]}"
    used[name] = 0
    return name


def _children(obj):
    """(relative path, child) pairs in Keras 3's walk order."""
    out = []
    for attr in _attribute_names(obj):
        try:
            value = getattr(obj, attr)
        except Exception:  # properties that need a built model
            continue
        if _is_saveable(value):
            out.append((attr, value))
        elif isinstance(value, (list, tuple, dict)):
            _container_children(attr, value, out, set())
    return out


def saveables(model):
    """[(path, object)] of every object Keras 3 saves state for, in its order ('' is the model;
    'layers/dense', ...): the paths of the weights groups and of a `.keras` file's assets."""
    return _walk(model)


def _walk(root):
    """[(group path, object)] for every saveable object, each once, in Keras 3's order."""
    out, seen = [], set()

    def visit(obj, path):
        if id(obj) in seen:
            return
        seen.add(id(obj))
        out.append((path, obj))
        for rel, child in _children(obj):
            visit(child, f"{path}/{rel}" if path else rel)
    visit(root, "")
    return out


def _optimizer_of(model):
    """The model's compiled optimizer, or None (Keras 3 saves its variables beside the layers')."""
    optimizer = vars(model).get("optimizer")
    return optimizer if isinstance(optimizer, Optimizer) else None


def write_weights(f, model, include_optimizer=True):
    """Fill the open HDF5 file `f` with `model`'s variables in Keras 3's layout, and (unless
    `include_optimizer` is False) the compiled optimizer's under 'optimizer/vars' (iterations,
    learning rate, then the slots)."""
    for path, obj in _walk(model):
        group = f.create_group(f"{path}/vars" if path else "vars")
        for i, var in enumerate(_own_variables(obj)):
            safe_h5.create_dataset(group, str(i), backend.to_host(var._value))
        for name, value in _extra_weights(obj).items():
            safe_h5.create_dataset(group, name, value)
    optimizer = _optimizer_of(model) if include_optimizer else None
    if optimizer is not None:
        group = f.create_group("optimizer/vars")
        for i, var in enumerate(optimizer.variables):
            safe_h5.create_dataset(group, str(i), backend.to_host(var._value))


def _extra_weights(obj):
    """{dataset name: array} an object keeps beside its numbered variables, as Keras 3's
    `save_own_variables` writes them (lookup layers' 'idf_weights' in 'tf_idf' mode)."""
    extra = getattr(obj, "_keras_extra_weights", None)
    return extra() if callable(extra) else {}


def weights_size(model):
    """About how many bytes `write_weights` writes for `model`."""
    own = [var for _, obj in _walk(model) for var in _own_variables(obj)]
    optimizer = _optimizer_of(model)
    own += optimizer.variables if optimizer is not None else []
    extra = sum(a.nbytes + 1024 for _, obj in _walk(model) for a in _extra_weights(obj).values())
    return sum(var._value.nbytes + 1024 for var in own) + extra


def save_weights(model, filepath, overwrite=True):
    """Write `model`'s weights to `filepath` ('.weights.h5': Keras 3 layout, the compiled
    optimizer's variables included as Keras 3 does; else a TF checkpoint)."""
    filepath = os.fspath(filepath)
    if not filepath.endswith(KERAS_SUFFIX):
        return Checkpoint(root=model).write(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"save_weights: {filepath!r} exists and overwrite=False.")
    h5format.write_hdf5(filepath, lambda f: write_weights(f, model), weights_size(model))
    return None


def _check_exists(filepath):
    """Raise what Keras 3's `load_weights` raises for a missing file: FileNotFoundError for
    '.h5' paths, ValueError for other paths (Keras 3 rejects those; minitf reads them as TF
    checkpoints when they exist)."""
    if filepath.endswith(".h5"):
        if not os.path.isfile(filepath):
            raise FileNotFoundError(
                errno.ENOENT, f"load_weights: no weights file at {filepath!r}; check the path "
                f"(files are written by `model.save_weights`)", filepath)
        return
    if os.path.isdir(filepath):
        return
    try:
        if not tensor_bundle.is_bundle(filepath):
            h5format.find_data_path(filepath)
    except errors.NotFoundError:
        raise ValueError(
            f"load_weights: no weights found at filepath={filepath!r}: neither a file nor a TF "
            f"checkpoint with that prefix exists. Keras 3 saves weights to '.weights.h5' "
            f"files; check the path.") from None


def _stored(store, group_name):
    """The entries of datasets '0', '1', ... of group `group_name` ([] if there is no group);
    other names there are Keras' named extras (`_extras`), read only by objects that take them."""
    members = [m for m in store.members(group_name) or [] if m.isdigit()]
    stored = [store.entries.get(safe_h5.join(group_name, str(i))) for i in range(len(members))]
    if any(entry is None for entry in stored):
        raise safe_h5.refusal("Weights file", store.filepath, group_name,
                              f"holds {sorted(members)[:10]}, not the datasets '0'..'{len(members) - 1}' "
                              "of Keras' layout.")
    return stored


def load_weights(model, filepath, skip_mismatch=False):
    """Load weights saved by `save_weights` into `model` (built). All-or-nothing unless
    `skip_mismatch`, which skips (with a warning) layers whose variable count or shapes differ.

    Every value is checked (shape, numeric dtype) and read before the first is assigned."""
    filepath = os.fspath(filepath)
    _check_exists(filepath)
    if not filepath.endswith(KERAS_SUFFIX):
        return restore_into(model, filepath)  # no Checkpoint: its restore adds a save_counter
    with safe_h5.SafeH5(filepath, "Weights file") as store:
        read_weights(store, model, skip_mismatch)
    return None


def read_weights(store, model, skip_mismatch=False):
    """Load `model`'s variables (and its compiled optimizer's) from the open `safe_h5.SafeH5`
    `store` in Keras 3's layout: everything checked and read first, then assigned.

    An optimizer whose variable count differs from the file's (not built yet, say) keeps its
    own values, with Keras 3's warning.

    Raises:
      IncompatibleValueError: a layer's variable count or shapes differ (unless `skip_mismatch`).
      DataLossError: a value that cannot be read.
    """
    filepath = store.filepath
    pairs, extras = [], []
    for path, obj in _walk(model):
        own = _own_variables(obj)
        group_name = f"{path}/vars" if path else "vars"
        stored = _stored(store, group_name)
        extras += _extras(store, group_name, obj)
        label = getattr(obj, "name", path) or "model"
        problem = None
        if len(stored) != len(own):
            problem = (f"Layer {label!r} expected {len(own)} variables, but received "
                       f"{len(stored)} variables during loading from {filepath!r} "
                       f"(group {group_name!r}). Expected: {[v.name for v in own]}")
        else:
            problem = _shape_problem(stored, own, label, filepath)
        if problem:
            if skip_mismatch:
                warnings.warn(f"Skipping loading weights: {problem}", stacklevel=3)
                continue
            raise safe_h5.IncompatibleValueError(None, None, problem)
        pairs += zip(own, stored)
    pairs += _optimizer_pairs(store, model)
    for var, entry in pairs:
        # Keras assigns with a cast, so any numeric dtype loads (complex only into complex).
        store.check_value(entry, var._value.shape, var._value.dtype, cast=True)
    values = [store.read(entry, var._value.shape, var._value.dtype, cast=True) for var, entry in pairs]
    extra_values = [(load, {name: store.read(entry) for name, entry in entries.items()}) for load, entries in extras]
    for load, named in extra_values:  # first: a loader may still refuse its values
        load(named)
    for (var, _), value in zip(pairs, values):
        xp = backend.array_module(var._value)
        var._set(xp.asarray(value))


def _extras(store, group_name, obj):
    """[(loader, {name: entry})] for an object that takes named extras (`_load_keras_extra_weights`)
    and the non-numbered datasets its group holds; read like any value of unknown shape (within
    the file's read budget)."""
    load = getattr(obj, "_load_keras_extra_weights", None)
    if not callable(load):
        return []
    names = [m for m in store.members(group_name) or [] if not m.isdigit()]
    entries = {m: store.entries[safe_h5.join(group_name, m)] for m in names
               if safe_h5.join(group_name, m) in store.entries}
    return [(load, entries)] if entries else []


def _shape_problem(stored, own, label, filepath):
    for entry, var in zip(stored, own):
        if tuple(entry.shape) != tuple(var._value.shape):
            return (f"Layer {label!r}: weight {var.name} has shape {tuple(var._value.shape)} but "
                    f"{filepath!r} stores {entry.path} with shape {tuple(entry.shape)}.")
    return None


def _optimizer_pairs(store, model):
    """(variable, entry) pairs of the compiled optimizer, or [] with Keras 3's warning when the
    file's optimizer does not fit this one."""
    optimizer = _optimizer_of(model)
    if optimizer is None or "optimizer/vars" not in store.groups:
        return []
    stored = _stored(store, "optimizer/vars")
    own = optimizer.variables
    problem = None
    if len(stored) != len(own):
        problem = (f"Skipping variable loading for optimizer '{optimizer.name}', because it has "
                   f"{len(own)} variables whereas the saved optimizer has {len(stored)} variables.")
        if len(own) <= 2:
            problem += " This is likely because the optimizer has not been called/built yet."
    else:
        problem = _shape_problem(stored, own, optimizer.name, store.filepath)
    if problem:
        warnings.warn(problem, stacklevel=4)
        return []
    return list(zip(own, stored))
