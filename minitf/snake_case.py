"""The two class-name-to-snake_case rules, side by side.

TF and Keras disagree on where an underscore goes before a digit-letter run, and minitf
follows each where it applies, because default names end up in checkpoints and '.weights.h5'
files that must match what TF and Keras write:

- `tf_module_rule`, TensorFlow's for plain `tf.Module`s: 'Conv2D' -> 'conv2_d'.
- `keras_rule`, Keras' for every Keras object (layers, models, metrics, losses, optimizers and
  '.weights.h5' groups): 'Conv2D' -> 'conv2d', 'ReLU' -> 're_lu', 'my.layer' -> 'mylayer'.

Both turn 'MyDenseLayer' into 'my_dense_layer'.
"""
import re

__all__ = ["keras_rule", "tf_module_rule"]


def tf_module_rule(name):
    """TensorFlow's rule for a `tf.Module`'s default name: 'Conv2D' -> 'conv2_d'."""
    return re.sub(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))", r"_\1", name).lower()


def keras_rule(name):
    """Keras' rule (keras.src.utils.naming.to_snake_case): characters that are not word
    characters are dropped, then 'Conv2DTranspose' -> 'conv2d_transpose', 'ReLU' -> 're_lu'."""
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
