"""tf.saved_model: save objects with their variables and traced functions in TF's SavedModel
format, and load SavedModels written by minitf or by TensorFlow 2.

    tf.saved_model.save(module, "/tmp/m")            # saved_model.pb, variables/, assets/
    loaded = tf.saved_model.load("/tmp/m")           # the object back: variables, functions
    loaded.signatures["serving_default"](x=...)      # what TF Serving calls

A SavedModel minitf writes is one TF 2.21 loads (and serves: its GraphDef, SignatureDefs and
saver are TF's); a SavedModel TF writes runs under minitf through the op table
(`mapped_op_types()` lists the TF ops minitf can run).
"""
from minitf.saved_model import (ops_array, ops_control, ops_gradient,  # noqa: F401 (register)
                                 ops_math, ops_nn, ops_state)
from minitf.saved_model.load import contains_saved_model, load
from minitf.saved_model.op_table import EXPORTERS, mapped_types
from minitf.saved_model.options import Asset, LoadOptions, SaveOptions
from minitf.saved_model.save import save

__all__ = ["save", "load", "contains_saved_model", "SaveOptions", "LoadOptions", "Asset",
           "mapped_op_types", "exportable_functions", "ASSETS_DIRECTORY", "ASSETS_KEY",
           "CLASSIFY_INPUTS", "CLASSIFY_METHOD_NAME", "CLASSIFY_OUTPUT_CLASSES",
           "CLASSIFY_OUTPUT_SCORES", "DEBUG_DIRECTORY", "DEBUG_INFO_FILENAME_PB",
           "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "GPU", "PREDICT_INPUTS", "PREDICT_METHOD_NAME",
           "PREDICT_OUTPUTS", "REGRESS_INPUTS", "REGRESS_METHOD_NAME", "REGRESS_OUTPUTS",
           "SAVED_MODEL_FILENAME_PB", "SAVED_MODEL_FILENAME_PBTXT", "SAVED_MODEL_SCHEMA_VERSION",
           "SERVING", "TPU", "TRAINING"]

# TF's constants (tag_constants, signature_constants, constants)
SERVING, TRAINING, GPU, TPU = "serve", "train", "gpu", "tpu"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
PREDICT_INPUTS = "inputs"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_OUTPUTS = "outputs"
REGRESS_INPUTS = "inputs"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_OUTPUTS = "outputs"
ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"


def mapped_op_types():
    """The TF op types minitf's SavedModel loader runs (and its exporter writes), sorted."""
    return mapped_types()


def exportable_functions():
    """The minitf functions a traced graph may call to be saved, by exporter key, sorted."""
    return sorted(EXPORTERS)
