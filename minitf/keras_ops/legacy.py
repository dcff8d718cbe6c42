"""tf.keras.backend: the Keras 2 backend functions Keras 3 still exports there (keras.src.legacy.
backend), as thin TF wrappers with TF's dtypes (argmax gives int64, mean of ints stays int, ...).

Variables, values and random draws are in `legacy_state`; convolutions, pooling, padding,
resizing, the crossentropies and `rnn` in `legacy_nn`.
"""
import builtins

import numpy as np

from minitf.custom_gradient import custom_gradient
from minitf.keras_core import config
from minitf.keras_ops.legacy_state import to_dense
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.ops import control_flow as control_flow_ops
from minitf.ops import linalg as linalg_ops
from minitf.ops import math as math_ops
from minitf.ops import nn as nn_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.gather import where as tf_where
from minitf.api_export import export

__all__ = ["abs", "all", "any", "argmax", "argmin", "arange", "batch_dot", "batch_flatten",
           "cast", "clip", "concatenate", "cos", "cumprod", "cumsum", "dot", "elu", "equal",
           "exp", "expand_dims", "flatten", "foldl", "foldr", "gather", "greater",
           "greater_equal", "hard_sigmoid", "in_top_k", "l2_normalize", "less", "less_equal",
           "log", "map_fn", "max", "maximum", "mean", "min", "minimum", "ndim", "not_equal",
           "one_hot", "ones_like", "permute_dimensions", "pow", "prod", "relu", "repeat",
           "repeat_elements", "reshape", "reverse", "round", "shape", "sigmoid", "sign", "sin",
           "softmax", "softplus", "softsign", "sqrt", "square", "squeeze", "stack", "std",
           "stop_gradient", "sum", "switch", "tanh", "tile", "transpose", "var", "zeros_like"]

def _t(x):
    return constant_ops.convert_to_tensor(x)


@export("keras.backend.abs")
def abs(x):  # noqa: A001 (Keras' name)
    """|x|."""
    return math_ops.abs(x)


@export("keras.backend.all")
def all(x, axis=None, keepdims=False):  # noqa: A001
    """Logical AND over `axis` (x cast to bool)."""
    return reduce_ops.reduce_all(constant_ops.cast(x, "bool"), axis, keepdims)


@export("keras.backend.any")
def any(x, axis=None, keepdims=False):  # noqa: A001
    """Logical OR over `axis` (x cast to bool)."""
    return reduce_ops.reduce_any(constant_ops.cast(x, "bool"), axis, keepdims)


@export("keras.backend.argmax")
def argmax(x, axis=-1):
    """The index of the maximum along `axis` (int64)."""
    return reduce_ops.argmax(x, axis)


@export("keras.backend.argmin")
def argmin(x, axis=-1):
    """The index of the minimum along `axis` (int64)."""
    return reduce_ops.argmin(x, axis)


@export("keras.backend.arange")
def arange(start, stop=None, step=1, dtype="int32"):
    """tf.range(start, stop, step) as `dtype` (a negative start alone gives an empty range)."""
    if stop is None and start < 0:
        start = 0
    result = array_ops.range(start, stop, step)
    return result if dtype == "int32" else constant_ops.cast(result, dtype)


@export("keras.backend.batch_dot")
def batch_dot(x, y, axes=None):
    """The dot product of x and y along `axes`, batch by batch (axis 0 is the batch)."""
    x, y = _t(x), _t(y)
    x_shape, y_shape = list(x.shape), list(y.shape)
    x_ndim, y_ndim = len(x_shape), len(y_shape)
    if x_ndim < 2 or y_ndim < 2:
        raise ValueError(f"Cannot do batch_dot on inputs with rank < 2. Received inputs with "
                         f"tf.shapes {tuple(x_shape)} and {tuple(y_shape)}.")
    if x_shape[0] != y_shape[0]:
        raise ValueError(f"Cannot do batch_dot on inputs with different batch sizes. Received "
                         f"inputs with tf.shapes {tuple(x_shape)} and {tuple(y_shape)}.")
    if isinstance(axes, int):
        axes = [axes, axes]
    if axes is None:
        axes = [x_ndim - 1, y_ndim - 1] if y_ndim == 2 else [x_ndim - 1, y_ndim - 2]
    if builtins.any(isinstance(a, (list, tuple)) for a in axes):
        raise ValueError(f"Multiple target dimensions are not supported. Expected: None, int, "
                         f"(int, int), Provided: {axes}")
    axes = list(axes)
    axes[0] += x_ndim if axes[0] < 0 else 0
    axes[1] += y_ndim if axes[1] < 0 else 0
    if 0 in axes:
        raise ValueError("Cannot perform batch_dot over axis 0. If your inputs are not batched, "
                         "add a dummy batch dimension to your inputs using K.expand_dims(x, 0)")
    a0, a1 = axes
    if x_shape[a0] != y_shape[a1]:
        raise ValueError(f"Cannot do batch_dot on inputs with tf.shapes {tuple(x_shape)} and "
                         f"{tuple(y_shape)} with axes={axes}. x.shape[{a0}] != y.shape[{a1}] "
                         f"({x_shape[a0]} != {y_shape[a1]}).")
    orig_x, orig_y = x_ndim, y_ndim
    if x_ndim == 2:
        x, a0, x_ndim = array_ops.expand_dims(x, 1), a0 + 1, x_ndim + 1
    if y_ndim == 2:
        y, y_ndim = array_ops.expand_dims(y, 2), y_ndim + 1
    if a0 != x_ndim - 1:
        pattern = list(range(x_ndim))
        for i in range(a0, x_ndim - 1):
            pattern[i] = pattern[i + 1]
        pattern[-1] = a0
        x = array_ops.transpose(x, pattern)
    if a1 != 1:
        pattern = list(range(y_ndim))
        for i in range(a1, 1, -1):
            pattern[i] = pattern[i - 1]
        pattern[1] = a1
        y = array_ops.transpose(y, pattern)
    xs, ys = list(x.shape), list(y.shape)
    if x_ndim > 3:
        x = array_ops.reshape(x, [xs[0], -1, xs[-1]])
    if y_ndim > 3:
        y = array_ops.reshape(y, [ys[0], ys[1], -1])
    result = linalg_ops.matmul(x, y)
    out_shape = list(result.shape)
    if x_ndim > 3:
        out_shape = out_shape[:1] + xs[1:-1] + out_shape[-1:]
    if y_ndim > 3:
        out_shape = out_shape[:-1] + ys[2:]
    result = array_ops.reshape(result, out_shape)
    if orig_x == 2:
        result = array_ops.squeeze(result, [1])
    elif orig_y == 2:
        result = array_ops.squeeze(result, [-1])
    return result


@export("keras.backend.batch_flatten")
def batch_flatten(x):
    """x reshaped to (batch, everything else)."""
    x = _t(x)
    return array_ops.reshape(x, [-1, int(np.prod(x.shape[1:], dtype=np.int64))])


@export("keras.backend.cast")
def cast(x, dtype):
    """x cast to `dtype`."""
    return constant_ops.cast(x, dtype)


@export("keras.backend.clip")
def clip(x, min_value, max_value):
    """x limited to [min_value, max_value] (None: unbounded on that side)."""
    if isinstance(min_value, (int, float)) and isinstance(max_value, (int, float)):
        if max_value < min_value:
            max_value = min_value
    min_value = -np.inf if min_value is None else min_value
    max_value = np.inf if max_value is None else max_value
    return math_ops.clip_by_value(x, min_value, max_value)


@export("keras.backend.concatenate")
def concatenate(tensors, axis=-1):
    """The tensors joined along `axis`."""
    if axis < 0:
        rank = ndim(tensors[0])
        axis = axis % rank if rank else 0
    return array_ops.concat([to_dense(t) for t in tensors], axis)


@export("keras.backend.cos")
def cos(x):
    """cos(x)."""
    return math_ops.cos(x)


@export("keras.backend.cumprod")
def cumprod(x, axis=0):
    """The running product along `axis`."""
    return reduce_ops.cumprod(x, axis=axis)


@export("keras.backend.cumsum")
def cumsum(x, axis=0):
    """The running sum along `axis`."""
    return reduce_ops.cumsum(x, axis=axis)


@export("keras.backend.dot")
def dot(x, y):
    """The product of x and y over the last axis of x and the second-to-last of y."""
    x, y = _t(x), _t(y)
    if x.shape.rank > 2 or y.shape.rank > 2:
        xs, ys = list(x.shape), list(y.shape)
        perm = list(range(len(ys)))
        perm = [perm.pop(-2)] + perm
        xt = array_ops.reshape(x, [-1, xs[-1]])
        yt = array_ops.reshape(array_ops.transpose(y, perm), [ys[-2], -1])
        return array_ops.reshape(linalg_ops.matmul(xt, yt), xs[:-1] + ys[:-2] + ys[-1:])
    return linalg_ops.matmul(x, y)


@export("keras.backend.elu")
def elu(x, alpha=1.0):
    """x above 0, alpha * (exp(x) - 1) below."""
    x = _t(x)
    out = nn_ops.elu(x)
    return out if alpha == 1 else tf_where(CMP.greater(x, 0), out, math_ops.multiply(out, alpha))


@export("keras.backend.equal")
def equal(x, y):
    """x == y."""
    return CMP.equal(x, y)


@export("keras.backend.exp")
def exp(x):
    """e ** x."""
    return math_ops.exp(x)


@export("keras.backend.expand_dims")
def expand_dims(x, axis=-1):
    """x with a size-1 axis inserted at `axis`."""
    return array_ops.expand_dims(x, axis)


@export("keras.backend.flatten")
def flatten(x):
    """x reshaped to one dimension."""
    return array_ops.reshape(x, [-1])


@export("keras.backend.foldl")
def foldl(fn, elems, initializer=None, name=None):
    """fn folded over the first axis of elems, left to right."""
    return control_flow_ops.foldl(fn, elems, initializer=initializer)


@export("keras.backend.foldr")
def foldr(fn, elems, initializer=None, name=None):
    """fn folded over the first axis of elems, right to left."""
    return control_flow_ops.foldr(fn, elems, initializer=initializer)


@export("keras.backend.gather")
def gather(reference, indices):
    """The rows of `reference` at `indices`."""
    return array_ops.gather(reference, indices)


@export("keras.backend.greater")
def greater(x, y):
    """x > y."""
    return CMP.greater(x, y)


@export("keras.backend.greater_equal")
def greater_equal(x, y):
    """x >= y."""
    return CMP.greater_equal(x, y)


@export("keras.backend.hard_sigmoid")
def hard_sigmoid(x):
    """The Keras 2 hard sigmoid: clip(0.2 x + 0.5, 0, 1)."""
    x = _t(x)
    out = math_ops.add(math_ops.multiply(x, constant_ops.constant(0.2, dtype=x.dtype)), constant_ops.constant(0.5, dtype=x.dtype))
    return math_ops.clip_by_value(out, 0.0, 1.0)


@export("keras.backend.in_top_k")
def in_top_k(predictions, targets, k):
    """Whether each target is among the k highest predictions of its row."""
    return nn_ops.in_top_k(targets, predictions, k)


@export("keras.backend.l2_normalize")
def l2_normalize(x, axis=None):
    """x / ||x||_2 along `axis`."""
    return linalg_ops.l2_normalize(x, axis=axis)


@export("keras.backend.less")
def less(x, y):
    """x < y."""
    return CMP.less(x, y)


@export("keras.backend.less_equal")
def less_equal(x, y):
    """x <= y."""
    return CMP.less_equal(x, y)


@export("keras.backend.log")
def log(x):
    """The natural logarithm."""
    return math_ops.log(x)


@export("keras.backend.map_fn")
def map_fn(fn, elems, name=None, dtype=None):
    """fn applied to each slice of elems along the first axis."""
    return control_flow_ops.map_fn(fn, elems, dtype=dtype)


@export("keras.backend.max")
def max(x, axis=None, keepdims=False):  # noqa: A001
    """The maximum over `axis`."""
    return reduce_ops.reduce_max(x, axis, keepdims)


@export("keras.backend.maximum")
def maximum(x, y):
    """The elementwise maximum."""
    return math_ops.maximum(x, y)


@export("keras.backend.mean")
def mean(x, axis=None, keepdims=False):
    """The mean over `axis` (bools as floatx; ints stay ints, as in TF)."""
    x = _t(x)
    if x.dtype.name == "bool":
        x = constant_ops.cast(x, config.floatx())
    return reduce_ops.reduce_mean(x, axis, keepdims)


@export("keras.backend.min")
def min(x, axis=None, keepdims=False):  # noqa: A001
    """The minimum over `axis`."""
    return reduce_ops.reduce_min(x, axis, keepdims)


@export("keras.backend.minimum")
def minimum(x, y):
    """The elementwise minimum."""
    return math_ops.minimum(x, y)


@export("keras.backend.ndim")
def ndim(x):
    """The rank of x."""
    return x.shape.rank


@export("keras.backend.not_equal")
def not_equal(x, y):
    """x != y."""
    return CMP.not_equal(x, y)


@export("keras.backend.one_hot")
def one_hot(indices, num_classes):
    """The integer `indices` as one-hot float32 vectors of length `num_classes`."""
    return array_ops.one_hot(indices, depth=num_classes, axis=-1)


@export("keras.backend.ones_like")
def ones_like(x, dtype=None, name=None):
    """Ones shaped like x."""
    return array_ops.ones_like(x, dtype=dtype)


@export("keras.backend.zeros_like")
def zeros_like(x, dtype=None, name=None):
    """Zeros shaped like x."""
    return array_ops.zeros_like(x, dtype=dtype)


@export("keras.backend.permute_dimensions")
def permute_dimensions(x, pattern):
    """x with its axes permuted by `pattern`."""
    return array_ops.transpose(x, perm=pattern)


@export("keras.backend.pow")
def pow(x, a):  # noqa: A001
    """x ** a."""
    return math_ops.pow(x, a)


@export("keras.backend.prod")
def prod(x, axis=None, keepdims=False):
    """The product over `axis`."""
    return reduce_ops.reduce_prod(x, axis, keepdims)


@export("keras.backend.relu")
def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """The Keras 2 relu: leaky below `threshold` with slope alpha, capped at max_value."""
    x = _t(x)
    if alpha != 0.0:
        if max_value is None and threshold == 0:
            return nn_ops.leaky_relu(x, alpha=alpha)
        negative = nn_ops.relu(math_ops.add(math_ops.negative(x), threshold) if threshold != 0 else math_ops.negative(x))
    clip_max = max_value is not None
    if threshold != 0:
        x = math_ops.multiply(x, constant_ops.cast(CMP.greater(x, threshold), x.dtype))
    elif max_value == 6:
        x, clip_max = nn_ops.relu6(x), False
    else:
        x = nn_ops.relu(x)
    if clip_max:
        x = math_ops.clip_by_value(x, constant_ops.constant(0, dtype=x.dtype), constant_ops.constant(max_value, dtype=x.dtype))
    if alpha != 0.0:
        x = math_ops.subtract(x, math_ops.multiply(constant_ops.constant(alpha, dtype=x.dtype), negative))
    return x


@export("keras.backend.repeat")
def repeat(x, n):
    """A rank-2 x repeated n times along a new axis 1: (batch, n, features)."""
    if ndim(_t(x)) != 2:
        raise ValueError(f"Expected input `x` to have rank 2. Received: rank(x)={ndim(_t(x))}")
    return array_ops.tile(array_ops.expand_dims(x, 1), [1, n, 1])


@export("keras.backend.repeat_elements")
def repeat_elements(x, rep, axis):
    """Each slice of x along `axis` repeated `rep` times (numpy's repeat)."""
    x = _t(x)
    parts = array_ops.split(x, int(x.shape[axis]), axis=axis)
    return concatenate([p for p in parts for _ in range(rep)], axis)


@export("keras.backend.reshape")
def reshape(x, shape):
    """x with shape `shape`."""
    return array_ops.reshape(x, shape)


@export("keras.backend.reverse")
def reverse(x, axes):
    """x reversed along `axes`."""
    return array_ops.reverse(x, [axes] if isinstance(axes, int) else axes)


@export("keras.backend.round")
def round(x):  # noqa: A001
    """x rounded half to even."""
    return math_ops.round(x)


@export("keras.backend.shape")
def shape(x):
    """The shape of x as an int32 tensor."""
    return array_ops.shape(x)


@export("keras.backend.sigmoid")
def sigmoid(x):
    """1 / (1 + exp(-x))."""
    return math_ops.sigmoid(x)


@export("keras.backend.sign")
def sign(x):
    """The sign of x."""
    return math_ops.sign(x)


@export("keras.backend.sin")
def sin(x):
    """sin(x)."""
    return math_ops.sin(x)


@export("keras.backend.softmax")
def softmax(x, axis=-1):
    """The softmax along `axis` (a tuple of axes: over them jointly); x must be at least 2-D."""
    x = _t(x)
    if x.shape.rank <= 1:
        raise ValueError(f"Cannot apply softmax to a tensor that is 1D. Received input: {x}")
    if isinstance(axis, int):
        return nn_ops.softmax(x, axis=axis)
    e = math_ops.exp(math_ops.subtract(x, reduce_ops.reduce_max(x, axis=axis, keepdims=True)))
    return math_ops.divide(e, reduce_ops.reduce_sum(e, axis=axis, keepdims=True))


@export("keras.backend.softplus")
def softplus(x):
    """log(1 + exp(x))."""
    return math_ops.softplus(x)


@export("keras.backend.softsign")
def softsign(x):
    """x / (1 + |x|)."""
    return nn_ops.softsign(x)


@custom_gradient
def _sqrt_of_positive(x):
    y = math_ops.sqrt(math_ops.maximum(x, constant_ops.constant(0.0, dtype=x.dtype)))

    def grad(g):
        # TF's Maximum gradient selects (zeros below 0, never inf * 0 = NaN)
        return tf_where(CMP.greater_equal(x, 0), math_ops.divide(math_ops.multiply(g, 0.5), y), array_ops.zeros_like(g))
    return y, grad


@export("keras.backend.sqrt")
def sqrt(x):
    """sqrt(max(x, 0))."""
    return _sqrt_of_positive(_t(x))


@export("keras.backend.square")
def square(x):
    """x * x."""
    return math_ops.square(x)


@export("keras.backend.squeeze")
def squeeze(x, axis):
    """x without its size-1 axis `axis`."""
    return array_ops.squeeze(x, [axis])


@export("keras.backend.stack")
def stack(x, axis=0):
    """The tensors x stacked along a new axis."""
    return array_ops.stack(x, axis=axis)


@export("keras.backend.std")
def std(x, axis=None, keepdims=False):
    """The standard deviation over `axis` (bools as floatx)."""
    x = _t(x)
    if x.dtype.name == "bool":
        x = constant_ops.cast(x, config.floatx())
    return reduce_ops.reduce_std(x, axis=axis, keepdims=keepdims)


@export("keras.backend.var")
def var(x, axis=None, keepdims=False):
    """The variance over `axis` (bools as floatx)."""
    x = _t(x)
    if x.dtype.name == "bool":
        x = constant_ops.cast(x, config.floatx())
    return reduce_ops.reduce_variance(x, axis=axis, keepdims=keepdims)


@export("keras.backend.stop_gradient")
def stop_gradient(variables):
    """x with no gradient flowing back (a list gives a map object, as Keras 2 did)."""
    if isinstance(variables, (list, tuple)):
        return map(constant_ops.stop_gradient, variables)
    return constant_ops.stop_gradient(variables)


@export("keras.backend.sum")
def sum(x, axis=None, keepdims=False):  # noqa: A001
    """The sum over `axis`."""
    return reduce_ops.reduce_sum(x, axis, keepdims)


@export("keras.backend.switch")
def switch(condition, then_expression, else_expression):
    """then_expression where `condition` holds, else else_expression (a scalar condition picks
    one whole branch; callables are called)."""
    condition = _t(condition)
    if condition.dtype.name != "bool":
        condition = constant_ops.cast(condition, "bool")
    cond_ndim = condition.shape.rank
    if not cond_ndim:
        then_fn = then_expression if callable(then_expression) else (lambda: then_expression)
        else_fn = else_expression if callable(else_expression) else (lambda: else_expression)
        return control_flow_ops.cond(condition, then_fn, else_fn)
    then_expression = then_expression() if callable(then_expression) else then_expression
    else_expression = else_expression() if callable(else_expression) else else_expression
    expr_ndim = ndim(_t(then_expression))
    if cond_ndim > expr_ndim:
        raise ValueError(f"Rank of `condition` should be less than or equal to rank of "
                         f"`then_expression` and `else_expression`. ndim(condition)={cond_ndim}, "
                         f"ndim(then_expression)={expr_ndim}")
    if cond_ndim > 1:
        cond_shape = list(condition.shape) + [1] * (expr_ndim - cond_ndim)
        condition = array_ops.reshape(condition, cond_shape)
        expr_shape = list(_t(then_expression).shape)
        tiles = [e if e - c > 0 else 1 for e, c in zip(expr_shape, cond_shape)]
        condition = array_ops.tile(condition, tiles)
    return tf_where(condition, then_expression, else_expression)


@export("keras.backend.tanh")
def tanh(x):
    """tanh(x)."""
    return math_ops.tanh(x)


@export("keras.backend.tile")
def tile(x, n):
    """x tiled n times (an int tiles the first axis)."""
    return array_ops.tile(x, [n] if isinstance(n, int) else n)


@export("keras.backend.transpose")
def transpose(x):
    """x with its axes reversed."""
    return array_ops.transpose(x)


