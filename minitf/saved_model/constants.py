"""TF's SavedModel constants (tag, signature and file names) and the op-table queries
tf.saved_model offers (mapped_op_types, exportable_functions)."""
from minitf.saved_model.op_table import EXPORTERS, mapped_types
from minitf.api_export import export, export_value


# TF's constants (tag_constants, signature_constants, constants)
SERVING, TRAINING, GPU, TPU = "serve", "train", "gpu", "tpu"
export_value("TRAINING", "saved_model.TRAINING")
export_value("TPU", "saved_model.TPU")
export_value("SERVING", "saved_model.SERVING")
export_value("GPU", "saved_model.GPU")
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
export_value("DEFAULT_SERVING_SIGNATURE_DEF_KEY", "saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY")
CLASSIFY_INPUTS = "inputs"
export_value("CLASSIFY_INPUTS", "saved_model.CLASSIFY_INPUTS")
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
export_value("CLASSIFY_METHOD_NAME", "saved_model.CLASSIFY_METHOD_NAME")
CLASSIFY_OUTPUT_CLASSES = "classes"
export_value("CLASSIFY_OUTPUT_CLASSES", "saved_model.CLASSIFY_OUTPUT_CLASSES")
CLASSIFY_OUTPUT_SCORES = "scores"
export_value("CLASSIFY_OUTPUT_SCORES", "saved_model.CLASSIFY_OUTPUT_SCORES")
PREDICT_INPUTS = "inputs"
export_value("PREDICT_INPUTS", "saved_model.PREDICT_INPUTS")
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
export_value("PREDICT_METHOD_NAME", "saved_model.PREDICT_METHOD_NAME")
PREDICT_OUTPUTS = "outputs"
export_value("PREDICT_OUTPUTS", "saved_model.PREDICT_OUTPUTS")
REGRESS_INPUTS = "inputs"
export_value("REGRESS_INPUTS", "saved_model.REGRESS_INPUTS")
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
export_value("REGRESS_METHOD_NAME", "saved_model.REGRESS_METHOD_NAME")
REGRESS_OUTPUTS = "outputs"
export_value("REGRESS_OUTPUTS", "saved_model.REGRESS_OUTPUTS")
ASSETS_DIRECTORY = "assets"
export_value("ASSETS_DIRECTORY", "saved_model.ASSETS_DIRECTORY")
ASSETS_KEY = "saved_model_assets"
export_value("ASSETS_KEY", "saved_model.ASSETS_KEY")
DEBUG_DIRECTORY = "debug"
export_value("DEBUG_DIRECTORY", "saved_model.DEBUG_DIRECTORY")
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
export_value("DEBUG_INFO_FILENAME_PB", "saved_model.DEBUG_INFO_FILENAME_PB")
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
export_value("SAVED_MODEL_FILENAME_PB", "saved_model.SAVED_MODEL_FILENAME_PB")
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
export_value("SAVED_MODEL_FILENAME_PBTXT", "saved_model.SAVED_MODEL_FILENAME_PBTXT")
SAVED_MODEL_SCHEMA_VERSION = 1
export_value("SAVED_MODEL_SCHEMA_VERSION", "saved_model.SAVED_MODEL_SCHEMA_VERSION")
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"


@export("saved_model.mapped_op_types")
def mapped_op_types():
    """The TF op types minitf's SavedModel loader runs (and its exporter writes), sorted."""
    return mapped_types()


@export("saved_model.exportable_functions")
def exportable_functions():
    """The minitf functions a traced graph may call to be saved, by exporter key, sorted."""
    return sorted(EXPORTERS)
