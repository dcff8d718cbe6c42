"""The object graph as TF 2.21 with Keras 3 names it, read off minitf's objects.

TF's `tf.train.Checkpoint` finds a Keras 3 object's children through its attributes, so its
checkpoint keys carry Keras' private attribute names, which minitf's objects do not share:

  * a layer's weights and sublayers by the attribute holding them: `bias`, `gamma`, `cell`,
    but `_kernel` for Dense, EinsumDense and Conv1D/2D/3D, `_embeddings` for Embedding and
    `_query_dense` ... for MultiHeadAttention;
  * a Sequential's layers under `_functional/_operations/<i + 1>` (its inner functional model;
    operation 0 is the InputLayer), a functional model's under `_operations/<i>`;
  * a compiled model's optimizer under `optimizer`;
  * an optimizer's variables in `_variables/<i>` (iterations, the learning rate when it is a
    variable, then the slots in the order Keras' `build` makes them), the model variables it
    was built for in `_trainable_variables/<i>`, `_iterations`, `_learning_rate`, and one list
    per slot kind (`_momentums/<i>`, `_velocities/<i>` for Adam, ...), indexed like
    `_trainable_variables`.

`edges(obj)` lists an object's children as (TF path, minitf name, child). The TF path is a tuple
of steps (intermediate steps are list or model nodes of TF's graph); the minitf name is how a
restore addresses the child: the add_weight name for a layer's own weights (what
`Layer._track_child` announces when a deferred weight is created), the TF path joined by '/'
otherwise. Every other object keeps minitf's own `_checkpoint_dependencies()` names, which are
TF's for tf.Module, tf.Variable, containers and Checkpoint itself. Layers held in a list or
dict attribute are kept (TF 2.21 leaves them out of its graph, losing their values).
"""
from minitf.layers.base import Layer
from minitf.optimizers.base import Optimizer
from minitf.trackable import Trackable
from minitf.variable import Variable

__all__ = ["edges", "restore_deps", "rename", "slot_name", "is_optimizer_node",
           "OPTIMIZER_LISTS", "KERAS_SLOT"]

# Layer classes whose Keras 3 attribute for a weight or sublayer is not minitf's name for it.
_MHA = {f"{part}_dense": f"_{part}_dense" for part in ("query", "key", "value", "output")}
_ATTRS = {
    "Dense": {"kernel": "_kernel"}, "EinsumDense": {"kernel": "_kernel"},
    "Conv1D": {"kernel": "_kernel"}, "Conv2D": {"kernel": "_kernel"},
    "Conv3D": {"kernel": "_kernel"}, "Embedding": {"embeddings": "_embeddings"},
    "MultiHeadAttention": _MHA,
}
# The same renames for a layer whose class is not known (created after a restore).
_GENERIC_RENAMES = {"_kernel": "kernel", "_embeddings": "embeddings",
                    **{keras: mine for mine, keras in _MHA.items()}}

# Keras' slot lists per optimizer class, in build order: each group is one
# `add_optimizer_variables` call, whose variables are made interleaved, variable by variable.
_ADAM = [[("_momentums", "m"), ("_velocities", "v")], [("_velocity_hats", "vhat")]]
_SLOT_GROUPS = {
    "SGD": [[("momentums", "momentum")]],
    "Adam": _ADAM, "AdamW": _ADAM,
    "Nadam": [[("_momentums", "m"), ("_velocities", "v")]],
    "Adamax": [[("_m", "m"), ("_u", "u")]],
    "Adagrad": [[("_accumulators", "accumulator")]],
    "Adadelta": [[("_accumulated_grads", "accumulated_grad"),
                  ("_accumulated_delta_vars", "accumulated_delta_var")]],
    "RMSprop": [[("_velocities", "velocity")], [("_momentums", "momentum")],
                [("_average_gradients", "average_gradient")]],
    "Ftrl": [[("_accumulators", "accumulator"), ("_linears", "linear")]],
}
_EMA_GROUP = [("_model_variables_moving_average", "average")]
OPTIMIZER_LISTS = {"_variables", "_trainable_variables", "_trainable_variables_indices"} | {
    name for groups in _SLOT_GROUPS.values() for group in groups for name, _ in group} | {
    _EMA_GROUP[0][0]}
# A slot named by its Keras list (resolved against the optimizer once it is known).
KERAS_SLOT = "keras-list:"


def _minitf_class(obj):
    """The name of the most derived minitf class of `obj` (a user's subclass of Dense is a
    Dense), or None."""
    for cls in type(obj).__mro__:
        if cls.__module__.startswith("minitf."):
            return cls.__name__
    return None


def _has_base(obj, name, module):
    return any(c.__name__ == name and c.__module__ == module for c in type(obj).__mro__)


def _model_kind(obj):
    """'sequential', 'functional' or None (a subclassed model or a plain layer)."""
    if not isinstance(obj, Layer):
        return None
    if _has_base(obj, "Sequential", "minitf.models.sequential"):
        return "sequential"
    if _has_base(obj, "Model", "minitf.models.model") and getattr(obj, "_graph", None) is not None:
        return "functional"
    return None


def _generic(obj, skip=(), attrs=None):
    out = []
    for name, child in obj._checkpoint_dependencies():
        if not any(child is s for s in skip):
            parts = name.split("/")
            if attrs:
                parts[0] = attrs.get(parts[0], parts[0])
            out.append((tuple(parts), name, child))
    return out


def _layer_edges(obj):
    kind = _model_kind(obj)
    out = []
    if kind == "sequential":
        for i, layer in enumerate(obj.layers):
            out.append((("_functional", "_operations", str(i + 1)),
                        f"_functional/_operations/{i + 1}", layer))
    elif kind == "functional":
        for i, layer in enumerate(obj.layers):
            out.append((("_operations", str(i)), f"_operations/{i}", layer))
    if kind is not None:
        layers = list(obj.layers)
        for name, child in obj._checkpoint_dependencies():
            if not isinstance(child, Layer) and not any(child is x for x in layers) and \
                    not name.startswith("layer-") and not name.startswith("layer_with_weights-"):
                out.append((tuple(name.split("/")), name, child))
    else:
        attrs = _ATTRS.get(_minitf_class(obj), {})
        own = []
        for name, var in getattr(obj, "_weights", ()):
            out.append(((attrs.get(name, name),), name, var))
            own.append(var)
        out.extend(_generic(obj, skip=own, attrs=attrs))
    optimizer = obj.__dict__.get("optimizer")
    if isinstance(optimizer, Optimizer) and not any(c is optimizer for _, _, c in out):
        out.append((("optimizer",), "optimizer", optimizer))  # a compiled model's, as in Keras
    return out


def _trainable(opt):
    """The variables `opt` updates, in the order Keras builds it with."""
    if opt._trainable_variables:
        return list(opt._trainable_variables)
    out, seen = [], set()
    for var, _, _ in opt._slot_vars:
        if var._id not in seen:
            seen.add(var._id)
            out.append(var)
    return out


def _slot_lists(opt):
    """[(Keras list name, minitf slot name)] of `opt`, in Keras' build order by group, or None
    for an optimizer class Keras' layout is not known for."""
    groups = _SLOT_GROUPS.get(_minitf_class(opt))
    if groups is None:
        return None
    return ([_EMA_GROUP] if getattr(opt, "use_ema", False) else []) + groups


def _optimizer_edges(opt):
    trainable = _trainable(opt)
    lr = opt._learning_rate if isinstance(opt._learning_rate, Variable) else None
    groups = _slot_lists(opt)
    made = {name for _, name, _ in opt._slot_vars}
    if groups is None:  # a user's optimizer: its own creation order
        variables, lists = list(opt.variables), []
    else:
        variables = [opt._iterations] + ([lr] if lr is not None else [])
        lists = []
        for group in groups:
            group = [(list_name, slot) for list_name, slot in group if slot in made]
            for list_name, slot in group:
                lists.append((list_name, [opt._slots.get(v._id, {}).get(slot) for v in trainable]))
            for var in trainable:
                variables.extend(opt._slots.get(var._id, {}).get(slot) for _, slot in group)
        if _minitf_class(opt) == "Nadam":
            variables.append(opt._u_product)
    out = [(("_variables", str(i)), f"_variables/{i}", v) for i, v in enumerate(variables)
           if v is not None]
    out += [(("_trainable_variables", str(i)), f"_trainable_variables/{i}", v)
            for i, v in enumerate(trainable)]
    out.append((("_iterations",), "_iterations", opt._iterations))
    if lr is not None:
        out.append((("_learning_rate",), "_learning_rate", lr))
    for list_name, slots in lists:
        out += [((list_name, str(i)), f"{list_name}/{i}", s) for i, s in enumerate(slots)
                if s is not None]
    if groups is not None and _minitf_class(opt) == "Nadam":
        out.append((("_u_product",), "_u_product", opt._u_product))
    known = [opt._iterations, lr, getattr(opt, "_u_product", None)]
    for name, child in opt._checkpoint_dependencies():  # anything else a subclass tracks
        if not any(child is k for k in known):
            out.append((tuple(name.split("/")), name, child))
    return out


def edges(obj):
    """[(TF path tuple, minitf name, child)] of `obj`'s children in TF 2.21's object graph."""
    if isinstance(obj, Optimizer):
        return _optimizer_edges(obj)
    if isinstance(obj, Layer):
        return _layer_edges(obj)
    root = obj.__dict__.get("_root") if "_deps" in obj.__dict__ else None
    if root is not None:  # Checkpoint(root=...): the root's children first, under TF's names
        rest = obj._checkpoint_dependencies()[len(root._checkpoint_dependencies()):]
        return edges(root) + [(tuple(n.split("/")), n, c) for n, c in rest]
    if isinstance(obj, Trackable):
        return _generic(obj)
    return []


def restore_deps(obj):
    """(name, child) pairs a restore of a TF-format checkpoint matches against: the minitf
    names of `edges(obj)`, then minitf's own names not already among them (so checkpoints
    written with TF 2's Keras 2 names, 'layer_with_weights-0/kernel', restore as well)."""
    skip = ()
    if isinstance(obj, Optimizer):
        # Slots are matched through their variables (slot records: `_momentums/<i>` belongs to
        # `_trainable_variables/<i>`, whatever the model path of that variable is), never by
        # position in this optimizer's own lists, whose order is how it was built here: a
        # differently built optimizer would take another variable's same-shaped slot. Only an
        # optimizer whose slot layout is unknown matches `_variables/<i>` by position.
        skip = OPTIMIZER_LISTS if _slot_lists(obj) is not None else ("_trainable_variables",)
    out = [(name, child) for path, name, child in edges(obj) if path[0] not in skip]
    names = {name for name, _ in out}
    out += [(n, c) for n, c in obj._checkpoint_dependencies() if n not in names]
    return out


def rename(obj, tf_name):
    """The minitf name for TF child `tf_name` of `obj` that no existing child matched (so a
    restore can wait for it), or None when it is structure to drop."""
    if obj is None:
        return _GENERIC_RENAMES.get(tf_name, tf_name)
    if isinstance(obj, Optimizer):
        return None if tf_name in OPTIMIZER_LISTS else tf_name
    if isinstance(obj, Layer):
        if _model_kind(obj) is not None and tf_name in ("_functional", "_operations"):
            return None
        attrs = {a: w for w, a in _ATTRS.get(_minitf_class(obj), {}).items()}
        return attrs.get(tf_name, _GENERIC_RENAMES.get(tf_name, tf_name))
    return tf_name


def slot_name(optimizer, name):
    """minitf's slot name for `name` of a checkpoint slot record: a Keras list name
    (`KERAS_SLOT` + '_momentums') is looked up for `optimizer`'s class; a TF 2 slot name
    ('m') is kept. None when `optimizer` has no such list."""
    if not name.startswith(KERAS_SLOT):
        return name
    list_name = name[len(KERAS_SLOT):]
    for group in _slot_lists(optimizer) or ():
        for keras_name, slot in group:
            if keras_name == list_name:
                return slot
    return None


def is_optimizer_node(child_names):
    """Whether a TF graph node with these child names is a Keras 3 optimizer."""
    return "_iterations" in child_names and "_variables" in child_names
