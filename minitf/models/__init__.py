"""tf.keras.models: Model, Sequential, Input, the functional API, and whole-model saving."""
from minitf.keras_core.keras_tensor import KerasTensor  # noqa: F401
from minitf.layers.input_layer import Input, InputLayer  # noqa: F401
from minitf.models.cloning import clone_model  # noqa: F401
from minitf.models.model import Model  # noqa: F401
from minitf.models.sequential import Sequential  # noqa: F401
from minitf.saving.saving_api import load_model, save_model  # noqa: F401
