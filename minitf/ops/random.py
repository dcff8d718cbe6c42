"""Random ops of tf.random with TensorFlow's seed rules, drawing TF's own numbers in eager mode.

Seed rules (as TF): with neither seed set, results are non-deterministic. `set_seed(s)` makes a
program's sequence of random values repeat: an op without its own seed gets one from
`random.Random(s).randint(0, 2**31 - 2)` per call (TF's eager "internal operation seed"). An op
seed alone pairs with TF's default global seed 87654321.

The numbers equal TF's eager CPU kernels: an op with seeds (seed, seed2) owns a Philox stream
keyed by `seed` with `seed2` in the counter's high half, and each call takes `n * 256` blocks of
it (a shuffle: one uint32 per swap), so repeated calls with the same seeds continue the stream
as TF's cached kernels do (one stream per op, dtype and seed pair; `set_seed` restarts them all).
tf.nn.dropout's mask comes from `unit_uniform`, the RandomUniform draw TF's dropout makes.
Random ops record no gradients. Stateless ops and `Generator` live in `minitf.ops.stateless_random` and
`minitf.ops.random_generator` and are re-exported here.
"""
import contextlib
import functools
import random as _py_random

import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops import philox, random_poisson
from minitf.ops._core import Op, as_tensor
from minitf.ops.arg_checks import named
from minitf.ops.random_generator import (Generator, create_rng_state, get_global_generator,  # noqa: F401
                                         set_global_generator)
from minitf.ops.stateless_random import (Algorithm, fold_in, split,  # noqa: F401
                                         stateless_binomial, stateless_categorical, stateless_normal,
                                         stateless_poisson, stateless_truncated_normal, stateless_uniform)
from minitf.ops import stateless_random as sr
from minitf.api_export import export

__all__ = ["set_seed", "get_seed", "normal", "uniform", "truncated_normal", "categorical", "shuffle",
           "stateless_normal", "stateless_uniform", "stateless_truncated_normal", "stateless_categorical",
           "stateless_binomial", "stateless_poisson", "poisson",
           "split", "fold_in", "Algorithm", "Generator", "create_rng_state",
           "get_global_generator", "set_global_generator"]

_DEFAULT_GLOBAL_SEED = 87654321  # TF's DEFAULT_GRAPH_SEED, used when only an op seed is given
_MAXINT32 = 2 ** 31 - 1
_MASK64 = (1 << 64) - 1


class _SeedState:
    """The global seed, the generator of per-op seeds, and each op's Philox stream position."""

    def __init__(self):
        self.global_seed = None
        self.op_seeds = _py_random.Random()
        self.kernels = {}  # (op, dtype, seed, seed2) -> [key, counter high word, blocks used]


_seeds = _SeedState()
_entropy = np.random.Generator(np.random.Philox())


@contextlib.contextmanager
def state_preserved():
    """Run code that draws random numbers, then put the global random state back (op seeds,
    stream positions): what tracing a function needs, as TF's tracing draws nothing."""
    saved = (_seeds.global_seed, _seeds.op_seeds.getstate(),
             {k: list(v) for k, v in _seeds.kernels.items()})
    try:
        yield
    finally:
        _seeds.global_seed, state, _seeds.kernels = saved
        _seeds.op_seeds.setstate(state)


def random_op(fn):
    """Decorate an op that draws from the global random state: inside a traced function it is a
    node drawing anew each time the graph runs, and its draw while tracing (to learn the output's
    shape) leaves the state as it found it."""
    def abstract(*args, **kwargs):
        with state_preserved():
            return fn(*args, **kwargs)
    wrapper = dispatch.stateful_op(fn, abstract=abstract)
    wrapper._draws_random = True  # a compiled plan may run it again after a failed guard
    return wrapper


@export("random.set_seed")
def set_seed(seed):
    """Set the global random seed; the sequence of random values restarts from it."""
    _seeds.global_seed = None if seed is None else int(seed)
    _seeds.op_seeds = _py_random.Random(_seeds.global_seed)
    _seeds.kernels.clear()


def get_seed(op_seed):
    """The (global seed, op seed) pair an op with `op_seed` uses, by TF's eager rules."""
    if _seeds.global_seed is not None:
        if op_seed is None:
            op_seed = _seeds.op_seeds.randint(0, _MAXINT32)
        seeds = _seeds.global_seed % _MAXINT32, _seed_int(op_seed) % _MAXINT32
    elif op_seed is not None:
        seeds = _DEFAULT_GLOBAL_SEED, _seed_int(op_seed) % _MAXINT32
    else:
        return None, None
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def _seed_int(seed):
    """An op seed as an int (TF: TypeError for a seed that is not a number)."""
    if isinstance(seed, (str, bytes)):
        raise TypeError(f"the op seed must be an integer, not {seed!r}")
    try:
        return int(seed)
    except (TypeError, ValueError):
        raise TypeError(f"the op seed must be an integer, not {seed!r}") from None


def _names_errors(fn):
    """`fn`'s errors re-made to name tf.random.<fn> (its kernels' errors name Mul, AddV2...)."""
    @functools.wraps(fn)
    def naming(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError, errors.OpError) as e:
            raise named(e, f"tf.random.{fn.__name__}") from None
    return naming


def _stream(op, dtype, shape_dtype, seed, blocks):
    """(key, counter) where this op's next draw starts, reserving `blocks` Philox blocks."""
    seed1, seed2 = get_seed(seed)
    cache_key = (op.name, dtype.name, shape_dtype, seed1 or 0, seed2 or 0)
    state = _seeds.kernels.get(cache_key)
    if state is None:
        if seed1 is None:  # TF's kernels draw 64 random bits for each of seed and seed2
            seed1, seed2 = (int(w) for w in _entropy.integers(0, 2 ** 64, size=2, dtype=np.uint64))
        state = _seeds.kernels[cache_key] = [seed1 & _MASK64, seed2 & _MASK64, 0]
    key, high, used = state
    state[2] = used + int(blocks)
    return key, philox.skip((0, high), used)


def _shape_dtype(shape):
    """The dtype name TF's kernel sees for `shape` (part of what identifies its stream)."""
    if hasattr(shape, "dtype") and not hasattr(shape, "as_list"):
        return dtypes.as_dtype(shape.dtype).name
    return "int32"


# The kernels behind the stateful ops: they record no gradients, so each declaration names the
# op in errors and identifies its stream.
RANDOM_STANDARD_NORMAL = Op("RandomStandardNormal")
RANDOM_UNIFORM = Op("RandomUniform")
RANDOM_UNIFORM_INT = Op("RandomUniformInt")
TRUNCATED_NORMAL = Op("TruncatedNormal")
MULTINOMIAL = sr.MULTINOMIAL
RANDOM_POISSON = Op("RandomPoissonV2")
RANDOM_SHUFFLE = Op("RandomShuffle")
_RESERVE = 256  # Philox blocks TF reserves per output value


# -- stateful ops ------------------------------------------------------------------------------

def unit_uniform(shape, dtype, seed, shape_dtype="int32"):
    """The host array tf.random.uniform(shape, dtype=dtype, seed=seed) draws with its default
    bounds: TF's RandomUniform kernel, its [0, 1) values unscaled (random_uniform skips the
    scaling for minval=0, maxval=1). It takes the op's seeds and stream as that call would, so
    dropout's masks continue the same streams (`shape_dtype`: the shape tensor's dtype, part of
    the kernel's identity)."""
    dtype = dtypes.as_dtype(dtype)
    shape = tuple(int(d) for d in shape)
    key, counter = _stream(RANDOM_UNIFORM, dtype, shape_dtype, seed, _RESERVE * int(np.prod(shape)))
    return sr.draw_unit(key, counter, shape, dtype)


@export("random.normal")
@random_op
@_names_errors
def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Values from a normal distribution with the given mean and standard deviation.

    `mean` and `stddev` broadcast against `shape`; `dtype` must be a float type.
    """
    shape_t = _shape_dtype(shape)
    shape, mean, stddev, dtype = sr.normal_args(shape, mean, stddev, dtype, RANDOM_STANDARD_NORMAL)
    key, counter = _stream(RANDOM_STANDARD_NORMAL, dtype, shape_t, seed, _RESERVE * int(np.prod(shape)))
    return sr.scale_shift(sr.draw_normal(key, counter, shape, dtype), stddev, mean, dtype)


@export("random.uniform")
@random_op
@_names_errors
def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Values uniform in [minval, maxval), following TF's seed rules.

    Args:
      shape: the output shape (a list, TensorShape or 1-D int tensor).
      minval: the lower bound (a scalar for integer dtypes; float bounds broadcast).
      maxval: the upper bound; 1 by default for floats, required for integers.
      dtype: float16, bfloat16, float32, float64, int32 or int64.
      seed: the op seed, combined with the global seed of `set_seed`.
      name: ignored.

    Returns:
      A tensor of `shape` and `dtype` (no gradient).

    Raises:
      ValueError: another dtype, or an integer dtype without maxval.
      InvalidArgumentError: a bad shape, or integer bounds that are not scalars with
        minval < maxval.
    """
    dtype = dtypes.as_dtype(dtype)
    sr.check_accepted(dtype, sr.UNIFORM_TYPES)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r} in tf.random.uniform")
        maxval = 1
    op = RANDOM_UNIFORM_INT if dtype.is_integer else RANDOM_UNIFORM
    shape_t = _shape_dtype(shape)
    shape = sr.check_shape(shape, op)
    lo, hi = as_tensor(minval, dtype=dtype), as_tensor(maxval, dtype=dtype)
    if dtype.is_integer:
        bounds = sr.int_bounds(shape, lo, hi, op)
        key, counter = _stream(op, dtype, shape_t, seed, _RESERVE * int(np.prod(shape)))
        return sr.place(sr.draw_int(key, counter, shape, bounds, dtype), dtype)
    key, counter = _stream(op, dtype, shape_t, seed, _RESERVE * int(np.prod(shape)))
    return sr.scale_unit(sr.draw_unit(key, counter, shape, dtype), lo, hi, dtype)


@export("random.truncated_normal")
@random_op
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values, with any value more than two standard deviations from the mean redrawn."""
    shape_t = _shape_dtype(shape)
    shape, mean, stddev, dtype = sr.normal_args(shape, mean, stddev, dtype, TRUNCATED_NORMAL)
    key, counter = _stream(TRUNCATED_NORMAL, dtype, shape_t, seed, _RESERVE * int(np.prod(shape)))
    return sr.scale_shift(sr.draw_truncated(key, counter, shape, dtype), stddev, mean, dtype)


@export("random.categorical")
@random_op
def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Draw `num_samples` class indices per row of `logits` [batch, classes] (int64 by default).

    As TF's Multinomial kernel: float logits only (integer logits: NotFoundError), a matrix with
    at least one class, and a non-negative int32 scalar `num_samples`.
    """
    v, n, out_dtype = sr.categorical_args(logits, num_samples, dtype, MULTINOMIAL)
    logits_dtype = dtypes.as_dtype(v.dtype)
    reserve = v.shape[0] * (-(-n // 4) * 4) * 2 * _RESERVE if v.shape[0] * n else 0
    key, counter = _stream(MULTINOMIAL, logits_dtype, out_dtype.name, seed, reserve)
    return sr.place(sr.sample_categorical(key, counter, v, n), out_dtype)


@export("random.poisson")
@random_op
def poisson(shape, lam, dtype=dtypes.float32, seed=None, name=None):
    """Poisson draws of shape `shape + lam.shape` with rates `lam` (TF's numbers when seeded)."""
    shape_t = "int32"  # TF converts the shape to int32 first
    shape = sr.check_shape(shape, RANDOM_POISSON)
    rates, lam_shape, dtype = sr.poisson_args(lam, dtype, RANDOM_POISSON)
    samples = int(np.prod(shape))
    lam_dtype = dtypes.as_dtype(as_tensor(lam).dtype)
    key, counter = _stream(RANDOM_POISSON, dtype, f"{shape_t}/{lam_dtype.name}", seed,
                           _RESERVE * samples * rates.size)
    if samples * rates.size == 0:
        return sr.place(np.zeros(shape + lam_shape), dtype)
    values = random_poisson.sample(key, counter, samples, rates, dtype._np)
    return sr.place(values.reshape(shape + lam_shape), dtype)


@export("random.shuffle")
@random_op
def shuffle(value, seed=None, name=None):
    """`value` with its first dimension randomly permuted (TF's order when seeded)."""
    x = as_tensor(value)
    n = int(x._value.shape[0]) if x._value.ndim else 0
    if x._value.size <= 1 or n <= 1:
        return x
    key, counter = _stream(RANDOM_SHUFFLE, x.dtype, "", seed, -(-(n - 1) // 4))
    return sr.shuffle_first_axis(x, sr.permutation(key, counter, n))
