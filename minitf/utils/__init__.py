"""tf.keras.utils: get_file, to_categorical, normalize, Progbar, the image file helpers, the dataset
builders (image/text/timeseries), pad_sequences, split_dataset, set_random_seed and plot_model."""
from minitf.utils.data_utils import get_file  # noqa: F401
from minitf.utils.generic_utils import Progbar  # noqa: F401
from minitf.object_registration import (custom_object_scope, CustomObjectScope, get_custom_objects,  # noqa: F401
                                        get_registered_name, get_registered_object,
                                        register_keras_serializable)
from minitf.utils.image_utils import array_to_img, img_to_array, load_img, save_img  # noqa: F401
from minitf.utils.np_utils import normalize, to_categorical  # noqa: F401
from minitf.utils.rng_utils import set_random_seed  # noqa: F401
from minitf.utils.image_dataset import image_dataset_from_directory  # noqa: F401
from minitf.utils.text_dataset import text_dataset_from_directory  # noqa: F401
from minitf.utils.timeseries_dataset import timeseries_dataset_from_array  # noqa: F401
from minitf.utils.sequence_utils import pad_sequences  # noqa: F401
from minitf.utils.dataset_utils import split_dataset  # noqa: F401
from minitf.utils.model_visualization import model_to_dot, plot_model  # noqa: F401
from minitf.utils.py_dataset import PyDataset, Sequence  # noqa: F401

__all__ = ["get_file", "to_categorical", "normalize", "Progbar", "array_to_img", "img_to_array",
           "load_img", "save_img", "custom_object_scope", "CustomObjectScope", "get_custom_objects",
           "get_registered_name", "get_registered_object", "register_keras_serializable",
           "set_random_seed", "image_dataset_from_directory", "text_dataset_from_directory",
           "timeseries_dataset_from_array", "pad_sequences", "model_to_dot", "plot_model",
           "split_dataset", "PyDataset", "Sequence"]
