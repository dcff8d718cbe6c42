"""How a Layer finds its weights and sublayers: attributes, in the order they were assigned.

Keras 3 orders a layer's weights as: its own weights (trainable first, each group in creation
order), then each sublayer's weights in the order the sublayers were assigned as attributes,
at any depth, including lists, tuples and dicts of layers. `AttributeTracking` records the
assignment order and computes those lists; `Layer` mixes it in.
"""
from minitf.module import Module, collect_deps
from minitf.tensor import Tensor
from minitf.variable import Variable

__all__ = ["AttributeTracking", "LayerWeight", "collect_layers", "flat_variables", "dedup"]

# Attributes that are bookkeeping of the Layer itself, never tracked children.
INTERNAL_ATTRIBUTES = frozenset({
    "_name", "_scope_name", "_trainable", "_built", "built", "_weights", "_dtype",
    "_input_spec", "_call_losses", "_inbound_nodes", "_outbound_nodes", "_pending_restore",
    "_attr_order", "_kwargs_config", "_layers", "_self_setattr_tracking", "_batch_input_shape",
    "_build_input_shape", "_call_accepts_training", "_autocast", "_activity_regularizer",
    "_graph", "_seq_input",
})


class LayerWeight(Variable):
    """A variable made by `Layer.add_weight`: named by the layer's own name for it ('kernel'),
    with the layer scope in `path` ('dense/kernel'), as Keras 3 names layer weights."""

    @property
    def path(self):
        """'<layer scope>/<name>', e.g. 'dense/kernel'."""
        return self._path


def collect_layers(value, out, seen):
    """Append the Modules (layers included) found in `value` (lists, tuples, dicts) to `out`."""
    if isinstance(value, (Variable, Tensor)) or id(value) in seen:
        return
    if isinstance(value, Module):
        seen.add(id(value))
        out.append(value)
    elif isinstance(value, dict):
        seen.add(id(value))
        for v in value.values():
            collect_layers(v, out, seen)
    elif isinstance(value, (list, tuple)):
        seen.add(id(value))
        for v in value:
            collect_layers(v, out, seen)


def _is_metric(obj):
    """Whether `obj` is a Keras metric object (update_state, result and reset_state)."""
    cls = type(obj)
    return all(hasattr(cls, n) for n in ("update_state", "result", "reset_state"))


def flat_variables(value):
    """The Variables in `value` (a variable, or lists, tuples and dicts holding some)."""
    if isinstance(value, Variable):
        return [value]
    if isinstance(value, dict):
        return [v for item in value.values() for v in flat_variables(item)]
    if isinstance(value, (list, tuple)):
        return [v for item in value for v in flat_variables(item)]
    return []


def dedup(items):
    """`items` without repeats (variables compared by their id), first occurrence kept."""
    seen, out = set(), []
    for item in items:
        key = getattr(item, "_id", None)
        key = id(item) if key is None else key
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


class AttributeTracking:
    """Weight and sublayer bookkeeping of a Layer (needs `_weights` and `trainable`)."""

    def __setattr__(self, key, value):
        order = self.__dict__.get("_attr_order")
        if order is not None and key not in self.__dict__ and key not in INTERNAL_ATTRIBUTES:
            order.append(key)
        object.__setattr__(self, key, value)
        self._track_attribute(key, value)  # a pending checkpoint restore may be waiting for it

    def __delattr__(self, key):
        object.__delattr__(self, key)
        order = self.__dict__.get("_attr_order")
        if order is not None and key in order:
            order.remove(key)

    def _tracked_attributes(self):
        order = self.__dict__.get("_attr_order", [])
        return [(k, self.__dict__[k]) for k in order if k in self.__dict__]

    def _sublayers(self):
        """Direct sublayers (Layers and Modules) in attribute-assignment order. Metric objects
        are left out: Keras 3 tracks them apart, so their state is not in `weights`/`layers`."""
        out, seen = [], {id(self)}
        for _, value in self._tracked_attributes():
            collect_layers(value, out, seen)
        return [m for m in out if not _is_metric(m)]

    def _metric_attributes(self):
        """Metric objects held as attributes (also inside lists and dicts), in order."""
        out, seen = [], {id(self)}
        for _, value in self._tracked_attributes():
            collect_layers(value, out, seen)
        return [m for m in out if _is_metric(m)]

    def _attribute_variables(self):
        """tf.Variables assigned directly as attributes (not created by add_weight)."""
        own = {v._id for _, v in self._weights}
        out = []
        for _, value in self._tracked_attributes():
            for v in flat_variables(value):
                if v._id not in own:
                    own.add(v._id)
                    out.append(v)
        return out

    def _own_variables(self):
        return [v for _, v in self._weights] + self._attribute_variables()

    # A sublayer's trainable_variables is its trainable_weights (plain Modules have only the
    # former), so the lists below ask every child through the tf.Module names.
    @property
    def trainable_weights(self):
        """Trainable weights: own (creation order) then sublayers'; [] when frozen."""
        if not self.trainable:
            return []
        own = [v for v in self._own_variables() if v.trainable]
        return dedup(own + [v for layer in self._sublayers()
                            for v in layer.trainable_variables])

    @property
    def non_trainable_weights(self):
        """Weights that training does not update (all of them when the layer is frozen)."""
        if not self.trainable:
            own = self._own_variables()
            children = [v for layer in self._sublayers() for v in layer.variables]
        else:
            own = [v for v in self._own_variables() if not v.trainable]
            children = [v for layer in self._sublayers() for v in layer.non_trainable_variables]
        return dedup(own + children)

    @property
    def weights(self):
        """Every weight, layer by layer (Keras 3's order): this layer's trainable then
        non-trainable weights, then each sublayer's `weights` in attribute order."""
        own = self._own_variables()
        own = [v for v in own if v.trainable] + [v for v in own if not v.trainable]
        return dedup(own + [v for layer in self._sublayers() for v in layer.variables])

    @property
    def variables(self):
        """Same as `weights`."""
        return self.weights

    @property
    def trainable_variables(self):
        """Same as `trainable_weights`."""
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        """Same as `non_trainable_weights`."""
        return self.non_trainable_weights

    @property
    def submodules(self):
        """Every layer/module reachable from this one, depth first."""
        out = []
        for layer in self._sublayers():
            out.append(layer)
            out.extend(layer.submodules)
        return tuple(dedup(out))

    @property
    def _flatten_layers_list(self):
        return self._sublayers()

    def _checkpoint_dependencies(self):
        """Own weights by their add_weight names, then attributes holding layers/variables."""
        deps = list(self._weights)
        own = {v._id for _, v in self._weights}
        for key, value in self._tracked_attributes():
            found = []
            collect_deps(key, value, found)
            deps.extend((k, v) for k, v in found if getattr(v, "_id", None) not in own)
        return deps
