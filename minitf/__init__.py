"""minitf: a small TensorFlow-2-style framework on numpy (CPU) or cupy (GPU) arrays.

`import minitf as tf` gives the names of the TF guides: tf.constant, tf.Variable,
tf.GradientTape, the math ops, tf.keras, tf.train, tf.data, ...
"""
import importlib

from minitf import _host_tuning
from minitf import dtypes, errors, nest  # noqa: F401

_host_tuning.apply_if_requested()  # opt-in: MINITF_HOST_MALLOC_TUNING=1
from minitf.dtypes import *  # noqa: F401,F403
from minitf.tensor import Tensor, is_tensor  # noqa: F401
from minitf.tensor_shape import TensorShape  # noqa: F401
from minitf.variable import (Variable, VariableSynchronization, VariableAggregation,  # noqa: F401
                             name_scope)
from minitf.tape import GradientTape, UnconnectedGradients  # noqa: F401
from minitf.ops import operators as _operators  # noqa: F401  (attaches +, *, [] ...)
from minitf.ops.constant import *  # noqa: F401,F403
from minitf.ops.math import *  # noqa: F401,F403
from minitf.ops.reduce import *  # noqa: F401,F403
from minitf.ops.array import *  # noqa: F401,F403
from minitf.ops.clip import *  # noqa: F401,F403
from minitf.ops.linalg import *  # noqa: F401,F403
from minitf.ops.control_flow import *  # noqa: F401,F403
from minitf.ops.math import abs, pow, round  # noqa: F401,A004
from minitf.module import Module  # noqa: F401
from minitf.function import function, TensorSpec  # noqa: F401
from minitf.graph.tracing import executing_eagerly, init_scope, inside_function  # noqa: F401
from minitf.custom_gradient import custom_gradient  # noqa: F401
from minitf.device import device  # noqa: F401
from minitf.indexed_slices import IndexedSlices  # noqa: F401
from minitf.initializers import (random_normal_initializer, random_uniform_initializer,  # noqa: F401
                                 zeros_initializer, ones_initializer, constant_initializer)
from minitf import math, nn, linalg, image, random, debugging, config  # noqa: F401
from minitf import testing as test  # noqa: F401
from minitf.ops.debugging import assert_equal, assert_greater, assert_less, assert_rank  # noqa: F401
from minitf.ops.debugging import Assert  # noqa: F401
from minitf import bitwise  # noqa: F401
from minitf import io  # noqa: F401
from minitf import strings  # noqa: F401
from minitf.ops.logging_ops import print  # noqa: F401,A004
from minitf.ops.script_ops import py_function, numpy_function  # noqa: F401
from minitf.ops.tensor_array import TensorArray  # noqa: F401
from minitf.ops.searchsorted import searchsorted  # noqa: F401
from minitf.ops.complex_ops import complex  # noqa: F401,A004 (TF's name)
from minitf import version  # noqa: F401

# TF 2 keeps these in tf.math, tf.linalg, tf.debugging or tf.bitwise only: `tf.log` is an
# AttributeError there, so it is one here too (the star imports above brought them in).
for _name in (
        "adjoint", "band_part", "cholesky", "det", "diag", "diag_part", "global_norm", "inv",
        "logdet", "matrix_transpose", "matvec", "slogdet", "solve", "trace", "l2_normalize",
        "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "ceil", "count_nonzero", "cumprod",
        "divide_no_nan", "erf", "expm1", "floor_div", "floordiv", "floormod", "mod", "is_finite",
        "is_inf", "is_nan", "log", "log1p", "log_sigmoid", "logical_xor", "real_div", "reciprocal",
        "reduce_std", "reduce_variance", "rint", "rsqrt", "softplus", "squared_difference", "xlogy",
        "reduce_euclidean_norm",
        "glorot_uniform_initializer", "Dimension"):
    globals().pop(_name, None)
del _name

__version__ = version.VERSION

newaxis = None
DType = dtypes.DType
as_dtype = dtypes.as_dtype

# Heavier namespaces load on first use: `tf.keras`, `tf.train`, `tf.data`, ...
_LAZY = {
    "keras": "minitf.keras", "train": "minitf.train", "data": "minitf.data",
    "datasets": "minitf.datasets", "layers": "minitf.layers", "models": "minitf.models",
    "optimizers": "minitf.optimizers", "losses": "minitf.losses", "metrics": "minitf.metrics",
    "activations": "minitf.activations", "initializers": "minitf.initializers",
    "regularizers": "minitf.regularizers", "callbacks": "minitf.callbacks",
    "checkpoint": "minitf.checkpoint", "applications": "minitf.applications",
    "utils": "minitf.utils", "ragged": "minitf.ragged", "sparse": "minitf.sparse",
    "autodiff": "minitf.autodiff", "summary": "minitf.summary",
    "distribute": "minitf.distribute", "types": "minitf.types",
}
_LAZY["signal"] = "minitf.signal"  # tf.signal: transforms, frames, windows, mel features
_LAZY["autograph"] = "minitf.autograph"  # tf.autograph: to_code, to_graph, do_not_convert
_LAZY["saved_model"] = "minitf.saved_model"  # tf.saved_model: save, load, signatures
_LAZY["experimental"] = "minitf.experimental"  # tf.experimental: DynamicRaggedShape, RowPartition
_LAZY["profiler"] = "minitf.profiler"  # tf.profiler.experimental: start/stop (records nothing)
_LAZY["lookup"] = "minitf.lookup"  # tf.lookup: StaticHashTable, StaticVocabularyTable, initializers
# Classes TF keeps at the top level whose modules load on first use: name -> (module, attribute)
_LAZY_CLASSES = {
    "RaggedTensor": ("minitf.ragged", "RaggedTensor"),
    "RaggedTensorSpec": ("minitf.ragged", "RaggedTensorSpec"),
    "SparseTensor": ("minitf.sparse", "SparseTensor"),
    "SparseTensorSpec": ("minitf.sparse.sparse_tensor", "SparseTensorSpec"),
}


def __getattr__(name):
    if name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        globals()[name] = module
        return module
    if name in _LAZY_CLASSES:
        module_name, attribute = _LAZY_CLASSES[name]
        value = getattr(importlib.import_module(module_name), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'minitf' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_LAZY_CLASSES))
