"""Keras 3's `Model.export(path)` (format 'tf_saved_model'): an ExportArchive saved as a SavedModel.

The archive's root holds the model's variables (`variables`, `trainable_variables`,
`non_trainable_variables`, `_all_variables`) and the endpoint `serve`, the model's call on its
input signature, which the SavedModel serves as 'serve' and as 'serving_default' (TF Serving's
default), as Keras 3 lays it out.
"""
from minitf.nest import nest
from minitf.function import Function
from minitf.module import Module
from minitf.saved_model.keras_signature import input_structure, spec_of
from minitf.saved_model.save import save
from minitf.tensor_spec import TensorSpec

__all__ = ["export_model", "ExportArchive"]


def _model_signature(model, input_signature):
    if input_signature is not None:
        return list(input_signature) if isinstance(input_signature, (list, tuple)) and \
            not hasattr(input_signature, "_fields") and not isinstance(input_signature[0], dict) \
            and len(input_signature) == 1 else [input_signature]
    structure = input_structure(model)
    if structure is None:
        raise ValueError(f"The model {model.name!r} has no defined inputs; call it on data (or "
                         f"build it from keras.Input) before exporting, or pass input_signature.")
    return [nest.map_structure(lambda t: spec_of(t, t.name), structure)]


class ExportArchive(Module):
    """The object `Model.export` saves: the model's variables and its serving endpoints."""

    def __init__(self):
        super().__init__(name="export_archive")
        self._endpoints = []

    def track(self, model):
        """Keep `model`'s variables in the archive."""
        self.variables_list = list(model.variables)
        self.trainable_variables_list = list(model.trainable_variables)
        self.non_trainable_variables_list = list(model.non_trainable_variables)

    def _checkpoint_dependencies(self):
        deps = []
        for name, attr in (("variables", "variables_list"),
                           ("trainable_variables", "trainable_variables_list"),
                           ("non_trainable_variables", "non_trainable_variables_list"),
                           ("_all_variables", "variables_list")):
            for i, v in enumerate(getattr(self, attr, [])):
                deps.append((f"{name}/{i}", v))
        return deps

    def add_endpoint(self, name, fn, input_signature):
        """Serve `fn` on `input_signature` as endpoint `name`."""
        function = Function(fn, input_signature=input_signature, name=name)
        setattr(self, name, function)
        self._endpoints.append(name)
        return function


def export_model(model, filepath, verbose=True, input_signature=None):
    """Keras 3's `model.export(filepath)` in the tf_saved_model format."""
    signature = _model_signature(model, input_signature)
    archive = ExportArchive()
    archive.track(model)

    def serve(*args):
        return model(args[0] if len(args) == 1 else list(args), training=False)
    endpoint = archive.add_endpoint("serve", serve, signature)
    concrete = endpoint.get_concrete_function()
    save(archive, filepath, signatures={"serve": endpoint, "serving_default": endpoint})
    if verbose:
        lines = concrete.pretty_printed_signature().split("\n")
        for i, spec in enumerate(signature):   # Keras prints the declared specs' names
            line = f"  args_{i} (POSITIONAL_ONLY): "
            if isinstance(spec, TensorSpec) and line in lines[i + 1][:len(line)]:
                lines[i + 1] = line + repr(spec)
        captures = [f"  {id(v)}: TensorSpec(shape=(), dtype=tf.resource, name=None)"
                    for v in concrete.variables]
        if captures:
            lines = lines[:lines.index("Captures:") + 1] + captures
        print(f"Saved artifact at '{filepath}'. The following endpoints are available:\n\n"
                  + "\n".join([f"* Endpoint 'serve'"] + lines[1:]))
