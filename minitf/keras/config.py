"""tf.keras.config: Keras' global settings in one place (re-exports only)."""
from minitf.keras.backend import (epsilon, floatx, image_data_format, set_epsilon, set_floatx,
                                  set_image_data_format)
from minitf.layers.serialization import enable_unsafe_deserialization
from minitf.mixed_precision.policy import dtype_policy, set_dtype_policy

__all__ = ["epsilon", "floatx", "image_data_format", "set_epsilon", "set_floatx",
           "set_image_data_format", "enable_unsafe_deserialization", "dtype_policy", "set_dtype_policy"]
