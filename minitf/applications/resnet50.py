"""tf.keras.applications.resnet50: the ResNet50 entry points of `tf.keras.applications.resnet`."""
from minitf.applications.resnet import ResNet50, decode_predictions, preprocess_input

__all__ = ["ResNet50", "preprocess_input", "decode_predictions"]
