"""Model configs in Keras' layout: `get_config()` / `from_config()` for Sequential and
functional models, and the layer (de)serialization they share with `clone_model`.

A functional config lists every layer once, in graph order, as
`{'class_name', 'config', 'name', 'inbound_nodes'}`. Each inbound node (one call of the layer
in this model) is written in Keras 3's layout, `{'args': [...], 'kwargs': {...}}`, with every
symbolic tensor among the arguments as a '__keras_tensor__' dict holding its shape, dtype and
`keras_history` `[layer_name, node_index, tensor_index]`; `node_index` counts that layer's calls
inside this model, `tensor_index` its flattened outputs. `input_layers` and `output_layers` hold
`[layer_name, node_index, tensor_index]` triples. Lambda layers write their function as Keras
does (a name, or a lambda's bytecode that loads only outside safe mode); `clone_model` keeps
the callables themselves (`keeping_callables`). `from_config` reads both Keras 3's node layout
and Keras 2's (each node mirroring the first argument, tensors as `[name, node, index, kwargs]`).
"""
import contextlib
import threading

from minitf.nest import nest
from minitf.keras_core.keras_tensor import KerasTensor
from minitf.keras_core.node import call_accepts
from minitf.layers.core import Lambda
from minitf.layers.input_layer import InputLayer
from minitf.layers.serialization import builtin_layer_class, deserialize as deserialize_object
from minitf.layers.serialization import serialize as serialize_object
from minitf.object_registration import merged_custom_objects

__all__ = ["keeping_callables", "serialize_layer", "deserialize_layer", "functional_config",
           "functional_from_config", "sequential_config", "sequential_from_config",
           "subclassed_config"]

_CONSTANT = "_CONSTANT_VALUE"
_TENSOR_MARK = "__keras_tensor__"


# -- single layers --------------------------------------------------------------------------
def _class_name(layer):
    if type(layer) is builtin_layer_class("Model") and layer._graph is not None:
        return "Functional"
    return type(layer).__name__


_IN_PROCESS = threading.local()


@contextlib.contextmanager
def keeping_callables():
    """Within this block, Lambda layers' configs hold their Python callables themselves.

    `clone_model` copies layers inside one process, where the functions already exist; a
    written config names a function or holds a lambda's bytecode instead (see `Lambda`).
    """
    previous = getattr(_IN_PROCESS, "on", False)
    _IN_PROCESS.on = True
    try:
        yield
    finally:
        _IN_PROCESS.on = previous


def serialize_layer(layer):
    """One layer as Keras 3 writes it inside a model: {'module', 'class_name', 'config',
    'registered_name'} and, once built, 'build_config' (nested models give their full config)."""
    entry = serialize_object(layer)
    if isinstance(layer, Lambda) and getattr(_IN_PROCESS, "on", False):
        config = dict(entry["config"], function=layer.function, arguments=dict(layer.arguments))
        for key, value in (("output_shape", layer._output_shape), ("mask", layer.mask)):
            if value is not None:
                config[key] = value
        entry["config"] = config
    return entry


def deserialize_layer(entry, custom_objects=None):
    """A new layer from `serialize_layer`'s output; custom classes come from `custom_objects`,
    built-in ones from the classes registered as built-in layers."""
    if "module" in entry:  # Keras 3's object dict: its spellings standardized, built from build_config
        return deserialize_object(entry, custom_objects)
    name = entry.get("class_name")
    custom = merged_custom_objects(custom_objects)
    cls = custom.get(entry.get("registered_name") or name) or custom.get(name) or builtin_layer_class(name)
    if cls is None:
        raise ValueError(f"Unknown layer: {name!r}. Please ensure you are passing the class "
                         f"in `custom_objects` when it is a custom layer or model.")
    config = dict(entry.get("config") or {})
    if call_accepts(cls.from_config, "custom_objects"):  # models, Lambda
        return cls.from_config(config, custom_objects=custom_objects)
    return cls.from_config(config)


# -- functional models: writing -------------------------------------------------------------
def _node_indices(graph):
    """id(node) -> index of that node among its layer's calls inside this graph."""
    counts, indices = {}, {}
    for t in graph.flat_inputs:
        indices[id(t.node)] = 0
        counts[id(t.node.layer)] = 1
    for node in graph.nodes:
        key = id(node.layer)
        indices[id(node)] = counts.get(key, 0)
        counts[key] = indices[id(node)] + 1
    return indices


def _tensor_ref(kt, indices):
    return [kt.node.layer.name, indices[id(kt.node)], kt._index]


def _encode_argument(x, indices):
    """A call argument in Keras 3's node layout: each KerasTensor as a '__keras_tensor__' dict with
    its shape, dtype and [layer name, node index, tensor index]; containers element by element."""
    if isinstance(x, KerasTensor):
        shape = x.shape.as_list() if x.shape.rank is not None else None
        return {"class_name": _TENSOR_MARK, "config": {"shape": shape, "dtype": x.dtype.name,
                                                      "keras_history": _tensor_ref(x, indices)}}
    if isinstance(x, (list, tuple)):
        return [_encode_argument(v, indices) for v in x]
    if isinstance(x, dict):
        return {k: _encode_argument(v, indices) for k, v in x.items()}
    return x


def _node_data(node, indices):
    """One call of a layer as Keras 3 writes it: {'args': [...], 'kwargs': {...}}."""
    args = [node.input_tensors] + list(node.call_args)
    return {"args": [_encode_argument(a, indices) for a in args],
            "kwargs": {k: _encode_argument(v, indices) for k, v in node.call_kwargs.items()}}


def _io_refs(structure, flat, indices):
    refs = [_tensor_ref(t, indices) for t in flat]
    if not nest.is_nested(structure):
        return refs
    return nest.pack_sequence_as(structure, refs) if not isinstance(structure, list) else refs


def functional_config(model):
    """Keras' functional config: name, trainable, layers with inbound nodes, inputs, outputs."""
    graph = model._graph
    indices = _node_indices(graph)
    layers = []
    for layer in graph.layers:
        nodes = [_node_data(n, indices) for n in graph.nodes if n.layer is layer]
        entry = serialize_layer(layer)
        entry["name"] = layer.name
        entry["inbound_nodes"] = nodes
        layers.append(entry)
    return {"name": model.name, "trainable": model.trainable, "layers": layers,
            "input_layers": _io_refs(graph.inputs, graph.flat_inputs, indices),
            "output_layers": _io_refs(graph.outputs, graph.flat_outputs, indices)}


# -- functional models: reading -------------------------------------------------------------
def _is_ref(x):
    """[name, node_index, tensor_index(, kwargs)] or a constant entry."""
    return (isinstance(x, (list, tuple)) and len(x) in (3, 4) and isinstance(x[0], str)
            and isinstance(x[1], int) and (x[0] == _CONSTANT or isinstance(x[2], int)))


class _Rebuild:
    """Layers created from a functional config and the symbolic outputs of each call so far."""

    def __init__(self, config, custom_objects):
        self.layers = {}
        self.outputs = {}   # (layer name, node index) -> flat list of KerasTensors
        self.order = []
        self.functional = set()  # names of nested functional models (see `_key`)
        for entry in config["layers"]:
            layer = deserialize_layer(entry, custom_objects)
            name = entry.get("name", layer.name)
            self.layers[name] = layer
            if entry.get("class_name") == "Functional":
                self.functional.add(name)
            self.order.append((name, list(entry.get("inbound_nodes") or [])))
            if not entry.get("inbound_nodes"):
                self._maybe_input(name, layer)

    def _maybe_input(self, name, layer):
        if isinstance(layer, InputLayer):
            self.outputs[(name, 0)] = [layer._inbound_nodes[0].output_tensors]

    def _key(self, name, node_index):
        """(name, node index) of a call made so far. Keras counts a nested functional model's
        construction as its node 0 in `input_layers`/`output_layers`, so a ref one past the calls
        made so far means the last call of such a model."""
        if (name, node_index) not in self.outputs and name in self.functional and node_index >= 1:
            return name, node_index - 1
        return name, node_index

    def tensor(self, ref):
        name, node_index, tensor_index = ref[0], ref[1], ref[2]
        if name == _CONSTANT:
            return tensor_index
        return self.outputs[self._key(name, node_index)][tensor_index]

    def ready(self, data):
        return all(r[0] == _CONSTANT or self._key(r[0], r[1]) in self.outputs for r in _refs_in(data))

    def run(self):
        """Call every layer on its inputs, deferring calls whose inputs are not made yet."""
        pending = {name: nodes for name, nodes in self.order}
        done = {name: 0 for name, _ in self.order}
        while any(pending.values()):
            progressed = False
            for name, _ in self.order:
                while pending[name] and self.ready(pending[name][0]):
                    self._call(name, pending[name].pop(0), done[name])
                    done[name] += 1
                    progressed = True
            if not progressed:
                stuck = [n for n, nodes in pending.items() if nodes]
                raise ValueError(f"Cannot rebuild the functional model: the inputs of layers "
                                 f"{stuck} are never produced by the config's layers.")

    def _call(self, name, data, index):
        layer = self.layers[name]
        args, kwargs = self._decode(data)
        self.outputs[(name, index)] = nest.flatten(layer(*args, **kwargs))

    def _decode(self, data):
        """(positional arguments, keyword arguments) of one stored call."""
        if isinstance(data, dict) and "args" in data:  # Keras 3 layout
            return list(_map_tensors(self, data["args"])), _map_tensors(self, data.get("kwargs") or {})
        refs = _refs_in(data)  # Keras 2 layout: the first argument's structure, kwargs in each ref
        kwargs = refs[0][3] if refs and len(refs[0]) > 3 else {}
        args = _map_refs(lambda r: self.tensor(r), data)
        if isinstance(args, list) and len(args) == 1:
            args = args[0]
        return [args], _map_tensors(self, dict(kwargs or {}))


def _refs_in(data):
    if isinstance(data, dict) and "args" in data:
        return _keras3_refs([data["args"], data.get("kwargs")])
    if _is_ref(data):
        return [data]
    if isinstance(data, dict):
        return [r for v in data.values() for r in _refs_in(v)]
    if isinstance(data, (list, tuple)):
        return [r for v in data for r in _refs_in(v)]
    return []


def _keras3_refs(x):
    if isinstance(x, dict) and x.get("class_name") == _TENSOR_MARK:
        return [x["config"]["keras_history"]]
    if isinstance(x, dict) and _TENSOR_MARK in x:
        return [x[_TENSOR_MARK]]
    if isinstance(x, dict):
        return [r for v in x.values() for r in _keras3_refs(v)]
    if isinstance(x, (list, tuple)):
        return [r for v in x for r in _keras3_refs(v)]
    return []


def _map_refs(fn, data):
    if _is_ref(data):
        return fn(data)
    if isinstance(data, dict):
        return {k: _map_refs(fn, v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_map_refs(fn, v) for v in data]
    return data


def _map_tensors(rebuild, x):
    """Replace encoded tensors (either layout) inside call arguments by the rebuilt ones."""
    if isinstance(x, dict) and x.get("class_name") == _TENSOR_MARK:
        return rebuild.tensor(x["config"]["keras_history"])
    if isinstance(x, dict) and set(x) == {_TENSOR_MARK}:
        return rebuild.tensor(x[_TENSOR_MARK])
    if isinstance(x, dict):
        return {k: _map_tensors(rebuild, v) for k, v in x.items()}
    if isinstance(x, list):
        return [_map_tensors(rebuild, v) for v in x]
    return x


def _io_tensors(rebuild, refs):
    if _is_ref(refs):
        return rebuild.tensor(refs)
    tensors = _map_refs(rebuild.tensor, refs)
    if isinstance(tensors, list) and len(tensors) == 1:
        return tensors[0]
    return tensors


def functional_from_config(cls, config, custom_objects=None):
    """A new functional model of class `cls` from `functional_config`'s output."""
    rebuild = _Rebuild(config, custom_objects)
    rebuild.run()
    inputs = _io_tensors(rebuild, config["input_layers"])
    outputs = _io_tensors(rebuild, config["output_layers"])
    model = cls(inputs=inputs, outputs=outputs, name=config.get("name"))
    if "trainable" in config:
        model.trainable = config["trainable"]
    return model


# -- Sequential -------------------------------------------------------------------------------
def sequential_config(model):
    """name, trainable, the layers (InputLayer first when the input is known), build shape."""
    layers = []
    if model._seq_input is not None:
        layers.append(serialize_layer(model._seq_input.node.layer))
    layers += [serialize_layer(layer) for layer in model.layers]
    config = {"name": model.name, "trainable": model.trainable, "layers": layers}
    shape = model._build_input_shape
    if shape is not None and not isinstance(shape, (list, dict)):
        config["build_input_shape"] = tuple(shape.as_list()) if hasattr(shape, "as_list") \
            else tuple(shape)
    return config


def sequential_from_config(cls, config, custom_objects=None):
    """A new Sequential from `sequential_config`'s output (or a bare list of layer configs)."""
    if isinstance(config, list):
        config = {"layers": config}
    model = cls(name=config.get("name"))
    for entry in config.get("layers", []):
        model.add(deserialize_layer(entry, custom_objects))
    shape = config.get("build_input_shape")
    if model._seq_input is None and shape is not None and model.layers:
        model.build(shape)
    if "trainable" in config:
        model.trainable = config["trainable"]
    return model


# -- subclassed models ------------------------------------------------------------------------
def subclassed_config(model):
    """The base config of a subclassed model: name, trainable, dtype.

    A subclass that overrides `get_config` adds its own arguments to this. One that does not
    gets the arguments it was created with when they are plain values (Keras 3's automatic
    config); otherwise an `__init__` with arguments of its own raises NotImplementedError.
    """
    config = {"name": model.name, "trainable": model.trainable, "dtype": model.dtype}
    model_class = builtin_layer_class("Model")
    if type(model).get_config is not model_class.get_config:
        return config
    return model._with_auto_config(config, model_class.__init__)