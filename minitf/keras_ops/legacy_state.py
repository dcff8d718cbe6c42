"""tf.keras.backend: the Keras 2 backend functions about state and values: variables,
constants, get/set_value, eval, random draws (TF's stateful ops, seeded like Keras 2), get_uid,
shapes and sparse checks."""
import collections
import math

import numpy as np

from minitf.keras_core import keras_tensor
from minitf.keras_core import config
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.ops import random as RND
from minitf.ops.gather import where as tf_where
from minitf.sparse.conversion import to_dense as sparse_to_dense
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.variable import Variable, name_scope as tf_name_scope
from minitf.api_export import export

__all__ = ["batch_get_value", "batch_set_value", "cast_to_floatx", "constant", "count_params",
           "dropout", "dtype", "get_value", "eval", "eye", "get_uid", "gradients", "int_shape",
           "is_keras_tensor", "is_sparse", "moving_average_update", "name_scope", "ones", "zeros",
           "random_bernoulli", "random_normal", "random_uniform", "truncated_normal",
           "random_normal_variable", "random_uniform_variable", "set_value", "to_dense", "update",
           "update_add", "update_sub", "variable"]

_uids = collections.defaultdict(int)
config.on_clear_session(_uids.clear)


def _random_seed(seed):
    return np.random.randint(10e6) if seed is None else seed


@export("keras.backend.batch_get_value")
def batch_get_value(tensors):
    """The values of a list of tensors or variables, as numpy arrays."""
    return [x.numpy() for x in tensors]


@export("keras.backend.batch_set_value")
def batch_set_value(tuples):
    """Assign each (variable, value) pair."""
    for x, value in tuples:
        x.assign(np.asarray(value, dtype=x.dtype.name))


@export("keras.backend.cast_to_floatx")
def cast_to_floatx(x):
    """x cast to floatx (a tensor stays a tensor; anything else becomes a numpy array)."""
    if isinstance(x, (Variable, SparseTensor)) or constant_ops.is_tensor(x):
        return constant_ops.cast(x, config.floatx())
    return np.asarray(x, dtype=config.floatx())


@export("keras.backend.constant")
def constant(value, dtype=None, shape=None, name=None):
    """A constant tensor (floatx by default)."""
    return constant_ops.constant(value, dtype=dtype or config.floatx(), shape=shape)


@export("keras.backend.count_params")
def count_params(x):
    """The number of elements of x."""
    return math.prod(list(x.shape))


@export("keras.backend.dropout")
def dropout(x, level, noise_shape=None, seed=None):
    """x with elements zeroed with probability `level` and the rest scaled up (TF 2's dropout:
    a stateful uniform draw seeded by `seed`, kept where it is >= level)."""
    x = constant_ops.convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"x has to be a floating point tensor since it's going to be scaled. "
                         f"Got a {x.dtype.name} tensor instead.")
    if not 0 <= level < 1:
        raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), got "
                         f"{level:g}")
    if level == 0:
        return x
    shape = list(x.shape) if noise_shape is None else \
        [int(x.shape[i]) if d is None else int(d) for i, d in enumerate(noise_shape)]
    scaled = math_ops.multiply(x, constant_ops.constant(1 / (1 - level), dtype=x.dtype))
    draws = RND.uniform(shape, dtype=x.dtype, seed=_random_seed(seed))
    keep = CMP.greater_equal(draws, constant_ops.constant(level, dtype=x.dtype))
    return tf_where(keep, scaled, constant_ops.constant(0, dtype=x.dtype))


@export("keras.backend.dtype")
def dtype(x):
    """The dtype name of x."""
    return x.dtype.name


@export("keras.backend.get_value")
def get_value(x):
    """The value of a tensor or variable as numpy (anything else unchanged)."""
    if not constant_ops.is_tensor(x):
        return x
    return x.numpy()


@export("keras.backend.eval")
def eval(x):  # noqa: A001 (Keras' name)
    """The value of x as numpy (a sparse tensor densified)."""
    return get_value(to_dense(x))


@export("keras.backend.eye")
def eye(size, dtype=None, name=None):
    """An identity-matrix variable."""
    dtype = dtype or config.floatx()
    return variable(array_ops.eye(size, dtype=dtype), dtype, name)


@export("keras.backend.get_uid")
def get_uid(prefix=""):
    """A counter per prefix: 1, 2, 3, ... on successive calls (reset by clear_session)."""
    _uids[prefix] += 1
    return _uids[prefix]


@export("keras.backend.gradients")
def gradients(loss, variables):
    """tf.gradients: graph mode only; minitf is eager, so it raises as TF 2 does eagerly."""
    raise RuntimeError("tf.gradients is not supported when eager execution is enabled. Use "
                       "tf.GradientTape instead.")


@export("keras.backend.int_shape")
def int_shape(x):
    """The static shape of x as a tuple of ints (None for unknown)."""
    try:
        shape = x.shape
        return shape if isinstance(shape, tuple) else tuple(shape.as_list())
    except ValueError:
        return None


@export("keras.backend.is_keras_tensor", "keras.utils.is_keras_tensor", "utils.is_keras_tensor")
def is_keras_tensor(x):
    """Whether x is a symbolic KerasTensor."""
    return keras_tensor.is_keras_tensor(x)


@export("keras.backend.is_sparse")
def is_sparse(tensor):
    """Whether `tensor` is a SparseTensor."""
    return isinstance(tensor, SparseTensor)


@export("keras.backend.moving_average_update")
def moving_average_update(x, value, momentum):
    """x <- x * momentum + value * (1 - momentum), in place."""
    momentum = constant_ops.cast(momentum, x.dtype)
    value = constant_ops.cast(value, x.dtype)
    return x.assign_sub(math_ops.multiply(math_ops.subtract(x.value(), value), math_ops.subtract(1.0, momentum)))


@export("keras.backend.name_scope")
def name_scope(name):
    """A context manager prefixing the names of the variables made inside it."""
    return tf_name_scope(name)


def _filled(fill, shape, dtype):
    dtype = dtype or config.floatx()
    v = fill(shape=shape, dtype=dtype)
    if 0 not in list(v.shape):  # Keras makes a variable only when no dimension is 0
        return variable(v, dtype=dtype)
    return v


@export("keras.backend.ones")
def ones(shape, dtype=None, name=None):
    """A variable of ones (a plain tensor when a dimension is 0)."""
    return _filled(array_ops.ones, shape, dtype)


@export("keras.backend.zeros")
def zeros(shape, dtype=None, name=None):
    """A variable of zeros (a plain tensor when a dimension is 0)."""
    return _filled(array_ops.zeros, shape, dtype)


@export("keras.backend.random_bernoulli")
def random_bernoulli(shape, p=0.0, dtype=None, seed=None):
    """1 with probability p, else 0 (a stateful draw seeded by `seed`)."""
    dtype = dtype or config.floatx()
    draws = RND.uniform(shape, dtype=dtype, seed=_random_seed(seed))
    return tf_where(CMP.less_equal(draws, p), array_ops.ones(shape, dtype=dtype), array_ops.zeros(shape, dtype=dtype))


@export("keras.backend.random_normal")
def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples (a stateful draw seeded by `seed`)."""
    return RND.normal(shape, mean=mean, stddev=stddev, dtype=dtype or config.floatx(),
                      seed=_random_seed(seed))


@export("keras.backend.random_uniform")
def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Uniform samples in [minval, maxval) (a stateful draw seeded by `seed`)."""
    return RND.uniform(shape, minval=minval, maxval=maxval, dtype=dtype or config.floatx(),
                       seed=_random_seed(seed))


@export("keras.backend.truncated_normal")
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Truncated normal samples (a stateful draw seeded by `seed`)."""
    return RND.truncated_normal(shape, mean, stddev, dtype=dtype or config.floatx(),
                                seed=_random_seed(seed))


@export("keras.backend.random_normal_variable")
def random_normal_variable(shape, mean, scale, dtype=None, name=None, seed=None):
    """A variable holding normal samples."""
    dtype = dtype or config.floatx()
    seed = np.random.randint(10e8) if seed is None else seed
    return variable(RND.normal(shape, mean, scale, dtype=dtype, seed=seed), dtype=dtype, name=name)


@export("keras.backend.random_uniform_variable")
def random_uniform_variable(shape, low, high, dtype=None, name=None, seed=None):
    """A variable holding uniform samples in [low, high)."""
    dtype = dtype or config.floatx()
    seed = np.random.randint(10e8) if seed is None else seed
    return variable(RND.uniform(shape, low, high, dtype=dtype, seed=seed), dtype=dtype, name=name)


@export("keras.backend.set_value")
def set_value(x, value):
    """Assign `value` (converted to x's dtype) to the variable x."""
    x.assign(np.asarray(value, dtype=x.dtype.name))


@export("keras.backend.to_dense")
def to_dense(tensor):
    """A SparseTensor densified (anything else unchanged)."""
    return sparse_to_dense(tensor) if is_sparse(tensor) else tensor


@export("keras.backend.update")
def update(x, new_x):
    """x.assign(new_x)."""
    return x.assign(new_x)


@export("keras.backend.update_add")
def update_add(x, increment):
    """x.assign_add(increment)."""
    return x.assign_add(increment)


@export("keras.backend.update_sub")
def update_sub(x, decrement):
    """x.assign_sub(decrement)."""
    return x.assign_sub(decrement)


@export("keras.backend.variable")
def variable(value, dtype=None, name=None, constraint=None):
    """A tf.Variable of `value` (floatx by default)."""
    dtype = dtype or config.floatx()
    return Variable(value, dtype=dtype, name=name, constraint=constraint)
