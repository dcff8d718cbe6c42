"""tf.keras.utils.model_to_dot and plot_model: a model's layer graph as a pydot graph or an image.

They build the same graph Keras 3 does (one node per layer with Keras' HTML-like table label,
edges from producing to consuming layer, nested models as dashed clusters with
`expand_nested`), so the .dot text and the pictures look alike. pydot is an optional
dependency (`pip install 'minitf[plot]'`); drawing a picture also needs the Graphviz programs.

Models are recognised by what they hold, not by class, so this module stays below
minitf.models in the import graph: a Sequential model says so (`_is_sequential`), a functional
one has a layer graph (`_graph`), anything else is drawn as one box, as in Keras.
"""
import os
from minitf.api_export import export

__all__ = ["model_to_dot", "plot_model", "check_pydot", "check_graphviz"]

_PYDOT_HINT = ("pip install pydot (or pip install 'minitf[plot]'); drawing images also needs Graphviz "
               "(https://graphviz.gitlab.io/download/, e.g. apt-get install graphviz)")


def _pydot(function):
    """The pydot module, or ImportError saying how to install it."""
    try:
        import pydot  # lazy: pydot is optional (the `plot` extra)
    except ImportError:
        raise ImportError(f"You must install pydot for `{function}` to work: {_PYDOT_HINT}.") from None
    return pydot


def check_pydot():
    """True when pydot can be imported."""
    try:
        _pydot("check_pydot")
    except ImportError:
        return False
    return True


def check_graphviz():
    """True when pydot and the Graphviz `dot` program both work (it renders an empty graph)."""
    if not check_pydot():
        return False
    pydot = _pydot("check_graphviz")
    failures = (OSError, getattr(pydot, "PydotException", OSError))
    try:
        pydot.Dot.create(pydot.Dot())
        return True
    except failures:
        return False


def _is_sequential(layer):
    return bool(getattr(layer, "_is_sequential", False)) and getattr(layer, "_graph", None) is not None


def _is_functional(layer):
    return not getattr(layer, "_is_sequential", False) and getattr(layer, "_graph", None) is not None


def _class_name(layer):
    # a plain Model built from inputs and outputs is Keras 3's 'Functional'
    return getattr(layer, "_keras_class_name", None) or type(layer).__name__


def _activation_name(layer):
    activation = layer.activation
    if hasattr(activation, "name"):
        return activation.name
    if hasattr(activation, "__name__"):
        return activation.__name__
    return str(activation)


def _shape_text(structure):
    """Keras' text for a structure of shapes: tuples, '[...]' lists, 'k: v' dicts, '?' unknown."""
    if structure is None:
        return "?"
    if isinstance(structure, dict):
        text = ", ".join(f"{k}: {v}" for k, v in structure.items())
    else:
        text = f"{structure}"
    return text.replace("}", "").replace("{", "")


def _map(fn, structure):
    if isinstance(structure, dict):
        return {k: _map(fn, v) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_map(fn, v) for v in structure)
    return fn(structure)


def _symbolic(layer, attribute, fn):
    try:
        return _map(fn, getattr(layer, attribute))
    except (ValueError, AttributeError):
        return None


def _shape_of(tensor):
    return tuple(tensor.shape.as_list()) if hasattr(tensor.shape, "as_list") else tuple(tensor.shape)


def _dtype_of(tensor):
    return getattr(tensor.dtype, "name", tensor.dtype)


def _label(layer, show_layer_names, show_layer_activations, show_dtype, show_shapes, show_trainable):
    """The HTML-like table Keras 3 labels a layer's box with."""
    class_name = _class_name(layer)
    table = '<<table border="0" cellborder="1" bgcolor="black" cellpadding="10">'
    colspan = max(1, int(show_dtype) + int(show_trainable) + (2 if show_shapes else 0))
    title = f"<b>{layer.name}</b> ({class_name})" if show_layer_names else f"<b>{class_name}</b>"
    table += (f'<tr><td colspan="{colspan}" bgcolor="black"><font point-size="16" color="white">'
              f"{title}</font></td></tr>")
    if show_layer_activations and getattr(layer, "activation", None) is not None:
        table += (f'<tr><td bgcolor="white" colspan="{colspan}"><font point-size="14">'
                  f"Activation: <b>{_activation_name(layer)}</b></font></td></tr>")
    cols = []
    if show_shapes:
        if class_name != "InputLayer":
            input_shape = _symbolic(layer, "input", _shape_of)
            cols.append('<td bgcolor="white"><font point-size="14">'
                        f"Input shape: <b>{_shape_text(input_shape)}</b></font></td>")
        output_shape = _symbolic(layer, "output", _shape_of)
        cols.append('<td bgcolor="white"><font point-size="14">'
                    f"Output shape: <b>{_shape_text(output_shape)}</b></font></td>")
    if show_dtype:
        dtype = _symbolic(layer, "output", _dtype_of)
        cols.append(f'<td bgcolor="white"><font point-size="14">Output dtype: <b>{dtype or "?"}</b></font></td>')
    if show_trainable and hasattr(layer, "trainable") and layer.weights:
        if layer.trainable:
            cols.append('<td bgcolor="forestgreen"><font point-size="14" color="white">'
                        "<b>Trainable</b></font></td>")
        else:
            cols.append('<td bgcolor="firebrick"><font point-size="14" color="white">'
                        "<b>Non-trainable</b></font></td>")
    if cols:
        table += f"<tr>{''.join(cols)}</tr>"
    return table + "</table>>"


def _add_edge(pydot, dot, src, dst):
    src_id, dst_id = str(id(src)), str(id(dst))
    if not dot.get_edge(src_id, dst_id):
        edge = pydot.Edge(src_id, dst_id)
        edge.set("penwidth", "2")
        dot.add_edge(edge)


def _output_layer(model, output_index):
    """The innermost layer producing output `output_index` of a nested model."""
    source = model
    while _is_sequential(source) or _is_functional(source):
        tensor = source.outputs[output_index]
        source, output_index = tensor.node.layer, tensor._keras_history[2]
    return source


def _input_layer(model, input_index):
    """The innermost layer receiving input `input_index` of a nested model."""
    destination = model
    while _is_sequential(destination) or _is_functional(destination):
        if _is_functional(destination):
            destination = destination.inputs[input_index].node.layer
        else:
            destination = destination.layers[0]
    return destination


@export("utils.model_to_dot", "keras.utils.model_to_dot")
def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True, rankdir="TB",
                 expand_nested=False, dpi=200, subgraph=False, show_layer_activations=False, show_trainable=False,
                 splines="ortho", **kwargs):
    """The layer graph of `model` as a `pydot.Dot` (a `pydot.Cluster` with `subgraph=True`).

    Each layer is a node (named by the layer's id) labelled with its name and class, and
    optionally its activation, input/output shapes, output dtype and trainability; edges run
    from each layer to the layers that consume its outputs. A subclassed model is one node.

    Args:
        model: A built Keras model.
        show_shapes, show_dtype, show_layer_names, show_layer_activations, show_trainable: What
            the boxes show.
        rankdir: 'TB' (top to bottom) or 'LR' (left to right).
        expand_nested: Draw nested models as dashed clusters of their layers.
        dpi: The picture's resolution.
        subgraph: Return a cluster (used for nested models).
        splines: How Graphviz draws edges ('ortho', 'curved', 'polyline', 'spline', 'line').

    Raises:
        ValueError: The model is not built, or an unknown keyword argument.
        ImportError: pydot is not installed.
    """
    if not model.built:
        raise ValueError(f"This model ({model.name!r}) has not yet been built. Build the model first by calling "
                         "`build()` or by calling the model on a batch of data.")
    pydot = _pydot("model_to_dot")
    if kwargs.pop("layer_range", None) is not None:
        raise ValueError("Argument `layer_range` is no longer supported.")
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
    if subgraph:
        dot = pydot.Cluster(style="dashed", graph_name=model.name)
        dot.set("label", model.name)
        dot.set("labeljust", "l")
    else:
        dot = pydot.Dot()
        dot.set("rankdir", rankdir)
        dot.set("concentrate", True)
        dot.set("dpi", dpi)
        dot.set("splines", splines)
        dot.set_node_defaults(shape="record")
    options = dict(show_layer_names=show_layer_names, show_layer_activations=show_layer_activations,
                   show_dtype=show_dtype, show_shapes=show_shapes, show_trainable=show_trainable)

    def make_node(layer):
        node = pydot.Node(str(id(layer)), label=_label(layer, **options))
        node.set("fontname", "Helvetica")
        node.set("border", "0")
        node.set("margin", "0")
        return node

    if _is_sequential(model):
        layers = model.layers
    elif _is_functional(model):
        layers = list(model._graph.layers)
    else:
        dot.add_node(make_node(model))
        return dot

    for layer in layers:
        if expand_nested and (_is_sequential(layer) or _is_functional(layer)):
            dot.add_subgraph(model_to_dot(layer, show_shapes, show_dtype, show_layer_names, rankdir, expand_nested,
                                          subgraph=True, show_layer_activations=show_layer_activations,
                                          show_trainable=show_trainable))
        else:
            dot.add_node(make_node(layer))

    if _is_sequential(model) and not expand_nested:
        for first, second in zip(layers, layers[1:]):
            _add_edge(pydot, dot, first, second)
        return dot
    # only the layer calls of this model's own graph: a layer may also be called elsewhere
    for node in model._graph.nodes:
        for input_index, tensor in enumerate(node.parent_tensors):
            if tensor.node is None:
                continue
            source, destination = tensor.node.layer, node.layer
            if _is_sequential(model) and _class_name(source) == "InputLayer":
                continue  # a Sequential model's InputLayer is not drawn; the outer edge arrives instead
            if expand_nested:
                source = _output_layer(source, tensor._keras_history[2])
                destination = _input_layer(destination, input_index)
            _add_edge(pydot, dot, source, destination)
    return dot


@export("utils.plot_model", "keras.utils.plot_model")
def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False, show_layer_names=False, rankdir="TB",
               expand_nested=False, dpi=200, show_layer_activations=False, show_trainable=False, splines="ortho",
               **kwargs):
    """Draw `model`'s layer graph into `to_file` (format from its extension, PNG by default).

    Takes `model_to_dot`'s options (note Keras 3's default `show_layer_names=False` here).
    In a notebook with IPython, returns the picture for inline display; otherwise None.

    Raises:
        ValueError: The model is not built, or an unknown keyword argument.
        ImportError: pydot or Graphviz is missing, with how to install them.
    """
    if not model.built:
        raise ValueError(f"This model ({model.name!r}) has not yet been built. Build the model first by calling "
                         "`build()` or by calling the model on a batch of data.")
    _pydot("plot_model")
    if not check_graphviz():
        raise ImportError("You must install graphviz (see instructions at https://graphviz.gitlab.io/download/, "
                          "e.g. apt-get install graphviz or brew install graphviz) for `plot_model` to work; "
                          "`model_to_dot` works without it.")
    if kwargs.pop("layer_range", None) is not None:
        raise ValueError("Argument `layer_range` is no longer supported.")
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype, show_layer_names=show_layer_names,
                       rankdir=rankdir, expand_nested=expand_nested, dpi=dpi,
                       show_layer_activations=show_layer_activations, show_trainable=show_trainable,
                       splines=splines)
    to_file = str(to_file)
    extension = os.path.splitext(to_file)[1][1:] or "png"
    dot.write(to_file, format=extension)
    if extension != "pdf":
        try:
            from IPython import display  # lazy: IPython is optional, only for notebook display
        except ImportError:
            return None
        return display.Image(filename=to_file)
    return None

