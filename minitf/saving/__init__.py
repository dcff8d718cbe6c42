"""tf.keras.saving: whole-model `.keras` files and the registry of custom objects.

`save_model`/`load_model` write and read Keras 3's `.keras` format (see
`minitf.saving.saving_api`); `register_keras_serializable`, `get_custom_objects` and
`custom_object_scope` let loading find classes and functions of your own by name.
"""
from minitf.object_registration import (CustomObjectScope, custom_object_scope, get_custom_objects,  # noqa: F401
                                        get_registered_name, get_registered_object,
                                        register_keras_serializable)
from minitf.saving.saving_api import load_model, save_model  # noqa: F401

__all__ = ["save_model", "load_model", "register_keras_serializable", "get_custom_objects",
           "custom_object_scope", "CustomObjectScope", "get_registered_name", "get_registered_object"]
