"""keras.random: SeedGenerator and the seeded random functions of Keras 3 on TensorFlow.

Every draw is a TF stateless op seeded by a 2-element seed: an int seed gives [seed, 0]; a
SeedGenerator hands out its state [seed, counter] and then counts up; no seed uses a global
SeedGenerator (made on first use from Python's `random`, forgotten by clear_session). The int64
seed is reduced modulo 2**31 - 2 to int32 as Keras does, and minitf's stateless ops reproduce
TF's Philox streams, so seeded draws (normal, uniform, truncated_normal, randint, categorical,
dropout, shuffle, binomial) equal TF's bit for bit. TF's stateless gamma is not reproduced:
gamma and beta draw from the right distributions with other numbers.
"""
import random as python_random

import numpy as np

from minitf.keras_core import config
from minitf.keras_ops.core import convert, keras_op
from minitf.keras_ops.dtypes import is_float_dtype, is_int_dtype, standardize_dtype
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.ops import stateless_random
from minitf.ops.gather import where as tf_where
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["SeedGenerator", "normal", "uniform", "truncated_normal", "randint", "categorical",
           "dropout", "shuffle", "gamma", "binomial", "beta", "draw_seed", "tf_draw_seed",
           "make_default_seed", "global_seed_generator", "reset_global_seed_generator"]

_names = {}
_global = []


def _auto_name(base):
    count = _names.get(base, 0)
    _names[base] = count + 1
    return base if count == 0 else f"{base}_{count}"


@export("keras.random.SeedGenerator")
class SeedGenerator:
    """A random state for the keras.random functions: each draw with `seed=generator` uses the
    current state [seed, counter] and advances the counter, so repeated draws differ but a
    generator made with the same seed repeats the sequence.

    Args:
        seed: the initial int seed (random when None).
        name: the generator's name (`seed_generator`, `seed_generator_1`, ... by default).
    """

    def __init__(self, seed=None, name=None, **kwargs):
        self.name = _auto_name("seed_generator") if name is None else name
        kwargs.pop("backend", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
        self._initial_seed = seed
        if seed is None:
            seed = make_default_seed()
        if not isinstance(seed, int):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        self.state = Variable(np.array([seed, 0], dtype=np.int64), trainable=False,
                              name=f"{self.name}/seed_generator_state")

    def next(self, ordered=True):
        """The current state, then the state advanced ([s, c] -> [s, c + 1]; unordered:
        (state + 1) * 5387 % 933199, the global generator's scramble)."""
        current = constant_ops.identity(self.state.value())
        if ordered:
            self.state.assign(math_ops.add(current, constant_ops.constant([0, 1], dtype="int64")))
        else:
            self.state.assign(math_ops.floormod(math_ops.multiply(math_ops.add(current, 1), 5387), 933199))
        return current

    def get_config(self):
        """{'seed': the initial seed, 'name': the name}."""
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config):
        """A generator from `get_config()`'s dict."""
        return cls(**config)


def global_seed_generator():
    """The generator used when no seed is given (made on first use)."""
    if not _global:
        _global.append(SeedGenerator())
    return _global[0]


def reset_global_seed_generator():
    """Forget the global generator; the next unseeded draw makes a new one."""
    _global.clear()


def _reset_names():
    _names.clear()


config.on_clear_session(reset_global_seed_generator)
config.on_clear_session(_reset_names)


def draw_seed(seed):
    """The int64 [2] seed tensor for `seed` (a SeedGenerator, an int or None)."""
    if isinstance(seed, SeedGenerator):
        return seed.next()
    if isinstance(seed, int) and not isinstance(seed, bool):
        return constant_ops.constant([seed, 0], dtype="int64")
    if seed is None:
        return global_seed_generator().next(ordered=False)
    raise ValueError(f"Argument `seed` must be either an integer or an instance of "
                     f"`SeedGenerator`. Received: seed={seed} (of type {type(seed)})")


def make_default_seed():
    """A seed for an object built without one, as Keras 3 draws it: from Python's `random` (so
    `keras.utils.set_random_seed` makes it repeat)."""
    return python_random.randint(1, int(1e9))


def tf_draw_seed(seed):
    """draw_seed reduced to TF's int32 stateless seed, as Keras does (floormod 2**31 - 2)."""
    s = draw_seed(seed)
    if s.dtype.name == "int32":
        return s
    return constant_ops.cast(math_ops.floormod(s, np.iinfo(np.int32).max - 1), "int32")


def _shape(shape):
    return [int(d) for d in (shape.numpy() if constant_ops.is_tensor(shape) else shape)]


@export("keras.random.normal")
@keras_op
def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Samples of the normal distribution N(mean, stddev^2)."""
    dtype = standardize_dtype(dtype or config.floatx())
    return stateless_random.stateless_normal(_shape(shape), seed=tf_draw_seed(seed), mean=mean, stddev=stddev,
                               dtype=dtype)


@export("keras.random.uniform")
@keras_op
def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Samples of the uniform distribution on [minval, maxval); `dtype` must be a float."""
    if dtype and not is_float_dtype(dtype):
        raise ValueError(f"`keras.random.uniform` requires a floating point `dtype`. Received: "
                         f"dtype={dtype} ")
    dtype = standardize_dtype(dtype or config.floatx())
    return stateless_random.stateless_uniform(_shape(shape), seed=tf_draw_seed(seed), minval=constant_ops.cast(convert(minval),
                                dtype), maxval=constant_ops.cast(convert(maxval), dtype), dtype=dtype)


@export("keras.random.truncated_normal")
@keras_op
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Samples of N(mean, stddev^2) redrawn until within two standard deviations."""
    dtype = standardize_dtype(dtype or config.floatx())
    return stateless_random.stateless_truncated_normal(_shape(shape), seed=tf_draw_seed(seed), mean=mean,
                                         stddev=stddev, dtype=dtype)


@export("keras.random.randint")
@keras_op
def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Random integers in [minval, maxval)."""
    if dtype and not is_int_dtype(dtype):
        raise ValueError(f"`keras.random.randint` requires an integer `dtype`. Received: "
                         f"dtype={dtype} ")
    dtype = standardize_dtype(dtype)
    inner = dtype if dtype in ("int32", "int64") else "int64"
    out = stateless_random.stateless_uniform(_shape(shape), seed=tf_draw_seed(seed), minval=minval, maxval=maxval,
                               dtype=inner)
    return constant_ops.cast(out, dtype)


@export("keras.random.categorical")
@keras_op
def categorical(logits, num_samples, dtype="int32", seed=None):
    """`num_samples` class indices per row of the [batch, classes] unnormalised log-probs."""
    logits = convert(logits)
    if logits.shape.rank != 2:
        raise ValueError(f"`logits` should be a 2-D tensor with shape [batch_size, num_classes]. "
                         f"Received: logits={logits}")
    out = stateless_random.stateless_categorical(logits, num_samples, seed=tf_draw_seed(seed))
    return constant_ops.cast(out, standardize_dtype(dtype))


@export("keras.random.dropout")
@keras_op
def dropout(inputs, rate, noise_shape=None, seed=None):
    """`inputs` with each element (or each slice, per `noise_shape`) zeroed with probability
    `rate` and the rest scaled by 1 / (1 - rate)."""
    if rate == 1.0:
        return array_ops.zeros_like(convert(inputs))
    x = convert(inputs)
    if rate == 0.0:
        return inputs
    if not x.dtype.is_floating:
        raise ValueError(f"x has to be a floating point tensor since it's going to be scaled. "
                         f"Got a {x.dtype.name} tensor instead.")
    if not 0 <= rate < 1:
        raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), got "
                         f"{rate:g}")
    seed = tf_draw_seed(seed)
    shape = _concrete_noise_shape(x, noise_shape)
    scaled = math_ops.multiply(x, constant_ops.constant(1 / (1 - rate), dtype=x.dtype))
    draws = stateless_random.stateless_uniform(shape, seed=seed, dtype=x.dtype.name)
    keep = CMP.greater_equal(draws, constant_ops.constant(rate, dtype=x.dtype))
    return tf_where(keep, scaled, constant_ops.constant(0, dtype=x.dtype))


def _concrete_noise_shape(x, noise_shape):
    """`noise_shape` with each None replaced by `x`'s size on that axis (all of `x`'s shape when
    None): Python ints where the sizes are known, else a shape tensor (traced with unknown
    sizes), as Keras' TF backend builds it from tf.shape."""
    known = x.shape.as_list() if x.shape.rank is not None else None
    wanted = [None] * len(known) if noise_shape is None and known is not None else noise_shape
    if noise_shape is None and known is None:
        return array_ops.shape(x)
    dims = [known[i] if d is None and known is not None else d for i, d in enumerate(wanted)]
    if all(d is not None for d in dims):
        return [int(d) for d in dims]
    dynamic = array_ops.shape(x)
    return array_ops.stack([dynamic[i] if d is None else constant_ops.constant(int(d), dtype=dynamic.dtype)
                            for i, d in enumerate(dims)])


@export("keras.random.shuffle")
@keras_op
def shuffle(x, axis=0, seed=None):
    """`x` with its slices along `axis` in a random order."""
    x = convert(x)
    seed = tf_draw_seed(seed)
    order = array_ops.argsort(stateless_random.stateless_uniform([int(x.shape[axis])], seed=seed))
    return array_ops.gather(x, order, axis=axis)


def _gamma_raw(shape, alpha, dtype, seed):
    """Marsaglia and Tsang's method, with stateless normal and uniform draws from `seed`."""
    alpha = np.broadcast_to(np.asarray(convert(alpha, "float64").numpy()), shape)
    boost = alpha < 1
    a = np.where(boost, alpha + 1.0, alpha)
    d = a - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    out = np.zeros(shape)
    pending = np.ones(shape, dtype=bool)
    rounds = 0
    while pending.any() and rounds < 64:
        keys = stateless_random.split(seed, 3)
        seed = keys[0]
        z = stateless_random.stateless_normal(shape, seed=keys[1], dtype="float64").numpy()
        u = stateless_random.stateless_uniform(shape, seed=keys[2], dtype="float64").numpy()
        v = (1 + c * z) ** 3
        with np.errstate(all="ignore"):
            ok = (v > 0) & (np.log(np.maximum(u, 1e-300)) < 0.5 * z * z + d - d * v +
                            d * np.log(np.where(v > 0, v, 1)))
        take = pending & ok
        out = np.where(take, d * v, out)
        pending &= ~ok
        rounds += 1
    if boost.any():
        u = stateless_random.stateless_uniform(shape, seed=stateless_random.split(seed, 1)[0], dtype="float64").numpy()
        with np.errstate(all="ignore"):
            out = np.where(boost, out * u ** (1.0 / np.where(boost, alpha, 1.0)), out)
    return constant_ops.constant(out.astype(np.dtype(dtype if dtype != "bfloat16" else "float32")))


@export("keras.random.gamma")
@keras_op
def gamma(shape, alpha, dtype=None, seed=None):
    """Samples of the Gamma(alpha, 1) distribution."""
    dtype = standardize_dtype(dtype or config.floatx())
    return constant_ops.cast(_gamma_raw(_shape(shape), alpha, dtype, tf_draw_seed(seed)), dtype)


@export("keras.random.binomial")
@keras_op
def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Samples of Binomial(counts, probabilities)."""
    dtype = standardize_dtype(dtype or config.floatx())
    inner = "float32" if dtype == "bfloat16" else dtype
    out = stateless_random.stateless_binomial(_shape(shape), seed=tf_draw_seed(seed), counts=counts,
                                probs=probabilities, output_dtype=inner)
    return constant_ops.cast(out, dtype)


@export("keras.random.beta")
@keras_op
def beta(shape, alpha, beta, dtype=None, seed=None):
    """Samples of Beta(alpha, beta), as X / (X + Y) with X ~ Gamma(alpha), Y ~ Gamma(beta)."""
    dtype = standardize_dtype(dtype or config.floatx())
    shape = _shape(shape)
    first = tf_draw_seed(seed)
    second = math_ops.add(first, 12)
    a = _gamma_raw(shape, alpha, dtype, first)
    b = _gamma_raw(shape, beta, dtype, second)
    return constant_ops.cast(math_ops.divide(a, math_ops.add(a, b)), dtype)
