"""The default serving signature of a Keras model in a SavedModel.

`tf.saved_model.save(model)` of a Keras model built on Inputs serves `model(inputs,
training=False)` as 'serving_default', its argument named `inputs` (Keras 3's
`_default_save_signature`).
"""
from minitf.nest import nest
from minitf.function import Function
from minitf.tensor_spec import TensorSpec

__all__ = ["default_signature", "input_structure", "spec_of"]


def input_structure(model):
    """The structure of a Keras model's Inputs (None when it has none)."""
    structure = getattr(model, "input", None) if getattr(model, "inputs", None) else None
    if structure is None:
        return None
    return structure


def spec_of(tensor, name):
    """A TensorSpec like the Keras tensor `tensor`, named `name`."""
    return TensorSpec(tensor.shape, tensor.dtype, name)


def default_signature(root):
    """The serving function of a Keras model built on Inputs, or None for anything else."""
    if not hasattr(root, "inputs") or not hasattr(root, "compile"):
        return None
    try:
        structure = input_structure(root)
    except (AttributeError, ValueError):
        return None
    if structure is None:
        return None
    if nest.is_nested(structure):
        specs = nest.map_structure(lambda t: spec_of(t, t.name), structure)
    else:
        specs = spec_of(structure, "inputs")

    def serving_default(inputs):
        return root(inputs, training=False)
    return Function(serving_default, input_signature=[specs], name="serving_default")
