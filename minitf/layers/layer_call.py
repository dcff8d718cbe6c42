"""One eager call of a Layer, step by step as Keras 3's `Layer.__call__` makes it.

`Layer.__call__` splits the inputs from the other arguments and hands them to `run`:
1. convert: the inputs, and other array/tensor arguments, become tensors; floating ones are
   cast to the layer's compute dtype (unless `autocast` is off); masks stay attached;
2. check the InputSpec and build the layer on its first call;
3. enter the call context (the outermost call opens it and clears the losses of earlier calls)
   and resolve `training` (minitf.layers.call_context);
4. fill the mask arguments and find the mask the layer received (minitf.layers.mask_propagation);
5. `call`, in the layer's name scope and autocast scope;
6. attach the output masks, add the activity regularizer's loss, leave the context.

`run_on_values` is the dry run that infers output shapes for symbolic calls: inference mode,
and the losses of the layer and its sublayers left as they were.
"""
import weakref

import numpy as np

from minitf.errors import errors
from minitf.nest import nest
from minitf.regularizers import regularizers
from minitf.convert import convert_to_tensor
from minitf.keras_core.keras_tensor import KerasTensor
from minitf.keras_core import call_context
from minitf.layers import mask_propagation
from minitf.layers import dtype_policy as layer_dtypes
from minitf.dtypes import dtypes
from minitf.ops.constant import cast
from minitf.tensor import Tensor
from minitf.variable import Variable

__all__ = ["run", "run_on_values", "convert_inputs", "convert_arguments", "layer_tree",
           "LOSS_HOLDERS"]

# Layers whose call losses are not empty: an outermost call walks its sublayers to clear them
# only while some layer holds call losses.
LOSS_HOLDERS = weakref.WeakSet()


def convert_inputs(layer, inputs):
    """`inputs` with tensors/arrays as tensors of the layer's compute dtype (floating ones only,
    and only when the layer autocasts); masks attached to inputs stay attached."""
    target = dtypes.as_dtype(layer.compute_dtype)
    autocast = layer._autocast and target.is_floating

    def convert(x):
        if x is None or isinstance(x, KerasTensor):
            return x
        mask = None
        if isinstance(x, Tensor):
            if not (autocast and x.dtype != target and x.dtype.is_floating):
                return x
            mask = mask_propagation.get_keras_mask(x)
        elif isinstance(x, Variable):
            x = x.value()
        else:
            try:
                x = convert_to_tensor(x)
            except (TypeError, ValueError):
                return x
        if autocast and x.dtype.is_floating and x.dtype != target:
            x = cast(x, target)
        if mask is not None:
            mask_propagation.set_keras_mask(x, mask)
        return x
    if isinstance(inputs, Tensor):
        return convert(inputs)
    return nest.map_structure(convert, inputs)


def _needs_conversion(value):
    if isinstance(value, (Tensor, Variable, np.ndarray)):
        return True
    return isinstance(value, (list, tuple, dict)) and bool(value) and any(
        isinstance(v, (Tensor, Variable, np.ndarray)) for v in nest.flatten(value))


def convert_arguments(layer, args, kwargs):
    """The other arguments of a call, converted as Keras 3 converts them (arrays and tensors
    only; Python numbers, strings and flags pass through)."""
    if args and any(_needs_conversion(a) for a in args):
        args = tuple(convert_inputs(layer, a) if _needs_conversion(a) else a for a in args)
    if kwargs and any(_needs_conversion(v) for v in kwargs.values()):
        kwargs = {k: (convert_inputs(layer, v) if _needs_conversion(v) else v)
                  for k, v in kwargs.items()}
    return args, kwargs


def _activity_losses(layer, outputs):
    reg = regularizers.get(layer._activity_regularizer)
    for out in nest.flatten(outputs):
        value = reg(out)
        if out.shape.rank == 0:  # Keras 3 divides by the batch size only when there is one
            layer.add_loss(value)
            continue
        batch = out.shape[0] or 1
        layer.add_loss(value / cast(batch, value.dtype))


def run(layer, inputs, args, kwargs):
    """The eager call of `layer` on `inputs` (see the module docstring); returns the outputs."""
    spec = call_context.spec_of(layer)
    inputs = layer._cast_inputs(inputs)
    if args or kwargs:
        args, kwargs = convert_arguments(layer, args, kwargs)
    if not layer.built:
        layer._check_inputs(inputs)  # Keras checks the spec before building, too
    layer._maybe_build(inputs)
    layer._check_inputs(inputs)
    context, opened = call_context.enter(layer)
    try:
        call_context.resolve_training(spec, context, args, kwargs)
        previous_mask = mask_propagation.prepare_call(layer, spec, inputs, args, kwargs)
        with layer._scope(), layer_dtypes.autocast_scope(layer):
            try:
                outputs = layer.call(inputs, *args, **kwargs)
            except (TypeError, ValueError, errors.OpError) as e:
                raise _naming_layer(e, layer) from e
        mask_propagation.finish_call(layer, inputs, outputs, previous_mask)
        if layer._activity_regularizer is not None:
            _activity_losses(layer, outputs)
    finally:
        call_context.leave(opened)
    return outputs


def _naming_layer(exc, layer):
    """`exc` from `layer.call`, re-made (same class) to say which layer it came from, as Keras 3
    does; errors of other classes, or that say it already, come back unchanged."""
    where = f"Exception encountered when calling {type(layer).__name__}.call()"
    text = str(exc)
    if text.startswith("Exception encountered when calling"):
        return exc
    if type(exc) in (TypeError, ValueError):
        return type(exc)(f"{where}: {text}")
    if isinstance(exc, errors.OpError) and type(exc).__init__ is errors.OpError.__init__:
        return type(exc)(exc.node_def, exc.op, f"{where}: {exc.message}")
    return exc


def layer_tree(layer):
    """`layer` and every layer below it, each once."""
    out, seen, stack = [], set(), [layer]
    while stack:
        item = stack.pop()
        if id(item) in seen or not hasattr(item, "_call_losses"):
            continue
        seen.add(id(item))
        out.append(item)
        stack.extend(item._sublayers())
    return out


def run_on_values(layer, values, args, kwargs):
    """`call` on concrete values standing for symbolic ones (shape inference): in inference mode
    (for the layers inside too), the losses of every layer below left as they were."""
    spec = call_context.spec_of(layer)
    kwargs = {k: v for k, v in kwargs.items() if k not in spec.extras}
    if spec.takes_training:
        kwargs["training"] = False
    else:
        kwargs.pop("training", None)
    values = layer._cast_inputs(values)
    saved = [(item, list(item._call_losses)) for item in layer_tree(layer)]
    try:
        with call_context.entered(layer, False), layer.name_scope, layer_dtypes.autocast_scope(layer):
            return layer.call(values, *args, **kwargs)
    finally:
        for item, losses in saved:
            item._call_losses = losses
            if losses:
                LOSS_HOLDERS.add(item)
