"""tf.keras.saving: whole-model `.keras` files and the registry of custom objects.

`save_model`/`load_model` write and read Keras 3's `.keras` format (see
`minitf.saving.saving_api`); `register_keras_serializable`, `get_custom_objects` and
`custom_object_scope` let loading find classes and functions of your own by name.
"""
