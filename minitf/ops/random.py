"""Random ops (tf.random) with TensorFlow's seed rules, and the stateful `Generator`.

Numbers are drawn on the host with numpy's counter-based Philox generator, keyed by
(global seed, op seed) and positioned by how many times that pair has been used, then placed
with the default array module, so a seeded program gives identical values on CPU and GPU.

Seed rules (as TF): with neither seed set, results are non-deterministic. With a global seed
(`set_seed`), each call gives new values but the whole sequence repeats after `set_seed` again.
An op seed alone uses a fixed default global seed. Random ops record no gradients.
"""
import collections

import numpy as np

from minitf import backend, dtypes, errors
from minitf.ops._core import Op, as_tensor
from minitf.ops.math import ADD, MUL, SUB
from minitf.tensor import Tensor
from minitf.trackable import Trackable
from minitf.variable import Variable

__all__ = ["set_seed", "get_seed", "normal", "uniform", "truncated_normal", "categorical", "shuffle",
           "stateless_normal", "stateless_uniform", "stateless_truncated_normal", "Generator",
           "get_global_generator", "set_global_generator"]

_DEFAULT_GLOBAL_SEED = 87654321  # TF's default graph seed, used when only an op seed is given
_MASK64 = (1 << 64) - 1


class _SeedState:
    """The global seed and how many draws each (global, op) seed pair has made since."""

    def __init__(self):
        self.global_seed = None
        self.op_counter = 0  # stands in for the op seed when only the global seed is set
        self.calls = collections.defaultdict(int)


_seeds = _SeedState()
_entropy = np.random.Generator(np.random.Philox())


def set_seed(seed):
    """Set the global random seed; the sequence of random values restarts from it."""
    _seeds.global_seed = None if seed is None else int(seed)
    _seeds.op_counter = 0
    _seeds.calls.clear()


def get_seed(op_seed):
    """The (global seed, op seed) pair an op with `op_seed` would use (TF's rules)."""
    if _seeds.global_seed is None and op_seed is None:
        return None, None
    if _seeds.global_seed is None:
        return _DEFAULT_GLOBAL_SEED, int(op_seed)
    if op_seed is None:
        _seeds.op_counter += 1
        return _seeds.global_seed, _seeds.op_counter
    return _seeds.global_seed, int(op_seed)


def _philox(key0, key1, position=0):
    """A numpy Generator on Philox with a 128-bit key, started at block `position`."""
    bits = np.random.Philox(key=np.array([key0 & _MASK64, key1 & _MASK64], dtype=np.uint64),
                            counter=np.array([0, position & _MASK64, 0, 0], dtype=np.uint64))
    return np.random.Generator(bits)


def _host_rng(seed):
    """The host generator for one stateful random op call with op seed `seed`."""
    global_seed, op_seed = get_seed(seed)
    if global_seed is None:
        return _entropy
    pair = (global_seed, op_seed)
    count = _seeds.calls[pair]
    _seeds.calls[pair] = count + 1
    return _philox(global_seed, op_seed, count)


_FLOAT_KERNEL = ("float16", "bfloat16", "float32", "float64")

# The kernels behind the random ops: they record no gradients, so each declaration names the op
# in errors only.
RANDOM_STANDARD_NORMAL = Op("RandomStandardNormal")
RANDOM_UNIFORM = Op("RandomUniform")
RANDOM_UNIFORM_INT = Op("RandomUniformInt")
TRUNCATED_NORMAL = Op("TruncatedNormal")
MULTINOMIAL = Op("Multinomial")
STATELESS_GET_KEY_COUNTER = Op("StatelessRandomGetKeyCounter")
STATELESS_NORMAL = Op("StatelessRandomNormalV2")
STATELESS_UNIFORM = Op("StatelessRandomUniformV2")
STATELESS_UNIFORM_INT = Op("StatelessRandomUniformIntV2")
STATELESS_UNIFORM_FULL_INT = Op("StatelessRandomUniformFullIntV2")
STATELESS_TRUNCATED_NORMAL = Op("StatelessTruncatedNormalV2")
STATEFUL_BINOMIAL = Op("StatefulRandomBinomial")


def _shape(shape, op, attr="T"):
    """An output shape checked as TF's random kernels check it: a vector (list, tuple,
    TensorShape or 1-D tensor) of int32/int64 sizes, none negative (InvalidArgumentError)."""
    if isinstance(shape, (list, tuple)) and len(shape) == 0:
        return ()
    if not isinstance(shape, (Tensor, Variable)) and hasattr(shape, "as_list"):
        shape = shape.as_list()
    s = as_tensor(shape)
    if s.dtype.name not in ("int32", "int64"):
        raise op.invalid(f"Value for attr '{attr}' of {s.dtype.name} is not in the list of allowed values: "
                         f"int32, int64; pass the shape as integers")
    v = np.asarray(backend.to_host(s._value))
    if v.ndim != 1:
        raise op.invalid(f"shape must be a vector of {{int32,int64}}, got shape {list(v.shape)}; pass a list "
                         f"such as [{', '.join(str(int(d)) for d in v.reshape(-1)[:2]) or 'n'}]")
    if (v < 0).any():
        raise op.invalid(f"Dimension {int(v[v < 0][0])} must be >= 0")
    return tuple(int(d) for d in v)


def _host(t):
    return np.asarray(backend.to_host(t._value))


def _host_scalar(x):
    """A Python/numpy value for a scalar or tensor argument (mean, stddev, minval, ...)."""
    if hasattr(x, "numpy"):
        return np.asarray(x.numpy())
    return np.asarray(x)


def _place(array, dtype):
    return Tensor(backend.default_module().asarray(np.asarray(array, dtype=dtype._np)))


def _kernel_dtype(dtype, op, allowed, attr="dtype", names=None):
    if dtype.name not in allowed:
        raise op.invalid(f"Value for attr '{attr}' of {dtype.name} is not in the list of allowed values: "
                         f"{names or ', '.join(allowed)}")


def _normal_args(shape, mean, stddev, dtype, op, shape_attr="T"):
    """(shape, mean, stddev, dtype) checked in TF's order: the shape, then mean and stddev
    converted to `dtype` (a float mean for an int dtype: TypeError; a tensor of another dtype:
    ValueError), then the kernel's float-only dtype attr (InvalidArgumentError)."""
    dtype = dtypes.as_dtype(dtype)
    shape = _shape(shape, op, shape_attr)
    mean, stddev = as_tensor(mean, dtype=dtype), as_tensor(stddev, dtype=dtype)
    _kernel_dtype(dtype, op, _FLOAT_KERNEL, names="half, bfloat16, float, double")
    return shape, mean, stddev, dtype


def _scale_shift(values, scale, shift, dtype):
    """values * scale + shift in `dtype`, broadcasting as TF's Mul/AddV2 (InvalidArgumentError)."""
    v = np.asarray(values, dtype=dtype._np)
    a, b = _host(scale), _host(shift)
    for op, other in ((MUL, a), (ADD, b)):
        try:
            np.broadcast_shapes(v.shape, other.shape)
        except ValueError:
            raise op.invalid(f"Incompatible shapes: {list(v.shape)} vs. {list(other.shape)}") from None
        v = v * other if op is MUL else v + other
    return _place(v, dtype)


def _draw_normal(rng, shape, dtype):
    draw_dtype = np.float64 if dtype._np == np.float64 else np.float32
    return rng.standard_normal(shape, dtype=draw_dtype)


def _draw_truncated(rng, shape, dtype):
    """Standard normals, redrawing every value beyond two standard deviations."""
    out = _draw_normal(rng, shape, dtype)
    bad = np.abs(out) > 2
    while bad.any():
        out[bad] = _draw_normal(rng, int(bad.sum()), dtype)
        bad = np.abs(out) > 2
    return out


def _draw_int(rng, shape, lo, hi, dtype, op):
    """Integers in [lo, hi) as TF's uniform-int kernels: scalar bounds, lo < hi unless empty."""
    lo_v, hi_v = _host(lo), _host(hi)
    for which, v in (("minval", lo_v), ("maxval", hi_v)):
        if v.ndim != 0:
            raise op.invalid(f"{which} must be 0-D, got shape {list(v.shape)}; integer bounds do not "
                             f"broadcast")
    if int(np.prod(shape)) == 0:
        return np.zeros(shape, dtype=dtype._np)
    if lo_v >= hi_v:
        raise op.invalid(f"Need minval < maxval: {lo_v} >= {hi_v}")
    return rng.integers(lo_v, hi_v, size=shape, dtype=dtype._np)


def _draw_full_int(rng, shape, dtype):
    info = np.iinfo(dtype._np)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype._np, endpoint=True)


def _draw_float_uniform(rng, shape, lo, hi, dtype):
    draw_dtype = np.float64 if dtype._np == np.float64 else np.float32
    unit = rng.random(shape, dtype=draw_dtype)
    h, lo_v = _host(hi), _host(lo)
    try:
        np.broadcast_shapes(h.shape, lo_v.shape)
    except ValueError:
        raise SUB.invalid(f"Incompatible shapes: {list(h.shape)} vs. {list(lo_v.shape)} "
                          f"(maxval and minval)") from None
    return _scale_shift(unit, Tensor(np.asarray(h - lo_v, dtype=dtype._np)), lo, dtype)


_UNIFORM_TYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64")


def _accepted(dtype, accepted):
    if dtype.name not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"({', '.join('tf.' + n for n in accepted)}).")


# -- stateful ops ------------------------------------------------------------------------------

def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Values from a normal distribution with the given mean and standard deviation.

    `mean` and `stddev` broadcast against `shape`; `dtype` must be a float type.
    """
    shape, mean, stddev, dtype = _normal_args(shape, mean, stddev, dtype, RANDOM_STANDARD_NORMAL)
    return _scale_shift(_draw_normal(_host_rng(seed), shape, dtype), stddev, mean, dtype)


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
    _accepted(dtype, _UNIFORM_TYPES)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r} in tf.random.uniform")
        maxval = 1
    shape = _shape(shape, RANDOM_UNIFORM_INT if dtype.is_integer else RANDOM_UNIFORM)
    lo, hi = as_tensor(minval, dtype=dtype), as_tensor(maxval, dtype=dtype)
    rng = _host_rng(seed)
    if dtype.is_integer:
        return _place(_draw_int(rng, shape, lo, hi, dtype, RANDOM_UNIFORM_INT), dtype)
    return _draw_float_uniform(rng, shape, lo, hi, dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values, with any value more than two standard deviations from the mean redrawn."""
    shape, mean, stddev, dtype = _normal_args(shape, mean, stddev, dtype, TRUNCATED_NORMAL)
    return _scale_shift(_draw_truncated(_host_rng(seed), shape, dtype), stddev, mean, dtype)


def _sample_categorical(rng, logits, num_samples, dtype):
    """[batch, num_samples] class indices drawn with probabilities softmax(logits)."""
    logits = logits.astype(np.float64)
    shifted = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(shifted)
    cdf = np.cumsum(probs, axis=1)
    cdf /= cdf[:, -1:]
    u = rng.random((logits.shape[0], int(num_samples)))
    index = (u[:, :, None] >= cdf[:, None, :]).sum(axis=2)
    return np.minimum(index, logits.shape[1] - 1).astype(dtype._np)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Draw `num_samples` class indices per row of `logits` [batch, classes] (int64 by default).

    As TF's Multinomial kernel: float logits only (integer logits: NotFoundError), a matrix with
    at least one class, and a non-negative int32 scalar `num_samples`.
    """
    logits = as_tensor(logits)
    dtype = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    _accepted(dtype, ("int32", "int64"))
    if isinstance(num_samples, (Tensor, Variable)) and num_samples.dtype.name != "int32":
        raise MULTINOMIAL.invalid(f"cannot compute Multinomial as input #1(zero-based) was expected to be "
                                  f"a int32 tensor but is a {num_samples.dtype.name} tensor")
    n = _host(as_tensor(num_samples, dtype=dtypes.int32))
    name_ = logits.dtype.name
    if name_ not in _FLOAT_KERNEL:
        if logits.dtype.is_integer:
            raise errors.NotFoundError(None, None, f"Could not find device for node: Multinomial"
                                                   f"[T={name_}]: no CPU kernel for {name_} logits; "
                                                   f"cast them to float32")
        _kernel_dtype(logits.dtype, MULTINOMIAL, _FLOAT_KERNEL, attr="T")
    v = _host(logits)
    if v.ndim != 2:
        raise MULTINOMIAL.invalid(f"logits should be a matrix [batch_size, num_classes], got shape "
                                  f"{list(v.shape)}")
    if n.ndim != 0:
        raise MULTINOMIAL.invalid(f"num_samples should be a scalar, got shape {list(n.shape)}")
    if n < 0:
        raise MULTINOMIAL.invalid(f"num_samples should be nonnegative, got {int(n)}")
    if v.shape[1] == 0:
        raise MULTINOMIAL.invalid("num_classes should be positive, got 0")
    return _place(_sample_categorical(_host_rng(seed), v, int(n), dtype), dtype)


def shuffle(value, seed=None, name=None):
    """`value` with its first dimension randomly permuted."""
    x = as_tensor(value)
    if x._value.ndim == 0:
        return x
    perm = _host_rng(seed).permutation(x._value.shape[0])
    xp = backend.array_module(x._value)
    return Tensor(x._value[xp.asarray(perm)])


# -- stateless ops -------------------------------------------------------------------------------

def _stateless_rng(seed):
    key = as_tensor(seed)
    if key.dtype.name not in ("int32", "int64"):
        raise STATELESS_GET_KEY_COUNTER.invalid(
            f"Value for attr 'Tseed' of {key.dtype.name} is not in the list of allowed values: int32, int64; "
            f"pass an integer seed pair")
    key = _host(key)
    if key.shape != (2,):
        raise STATELESS_GET_KEY_COUNTER.invalid(f"seed must have shape [2], not {list(key.shape)}; pass a "
                                                f"pair such as [1, 2]")
    return _philox(int(key[0]), int(key[1]))


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"):
    """Normal values fully determined by `shape` and the [2] integer `seed`."""
    shape, mean, stddev, dtype = _normal_args(shape, mean, stddev, dtype, STATELESS_NORMAL, "Tshape")
    rng = _stateless_rng(seed)
    return _scale_shift(_draw_normal(rng, shape, dtype), stddev, mean, dtype)


_STATELESS_UNIFORM_TYPES = _UNIFORM_TYPES + ("uint32", "uint64")


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None, alg="auto_select"):
    """Uniform values fully determined by `shape` and the [2] integer `seed`.

    For integer dtypes pass both bounds, or neither (minval=None, maxval=None) for the full range.
    """
    dtype = dtypes.as_dtype(dtype)
    _accepted(dtype, _STATELESS_UNIFORM_TYPES)
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype}, argument `minval` and `maxval` must "
                             f"be both None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        if minval is not None and dtype.name in ("uint32", "uint64"):
            raise ValueError(f"Argument `dtype` got invalid value {dtype} when argument `minval` is not "
                             f"None. Please don't use unsigned integers in this case.")
    elif maxval is None:
        maxval = 1
    shape = _shape(shape, STATELESS_UNIFORM, "Tshape")
    rng = _stateless_rng(seed)
    if dtype.is_integer and minval is None:
        return _place(_draw_full_int(rng, shape, dtype), dtype)
    lo, hi = as_tensor(minval, dtype=dtype), as_tensor(maxval, dtype=dtype)
    if dtype.is_integer:
        return _place(_draw_int(rng, shape, lo, hi, dtype, STATELESS_UNIFORM_INT), dtype)
    return _draw_float_uniform(rng, shape, lo, hi, dtype)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                               alg="auto_select"):
    """Truncated normal values fully determined by `shape` and the [2] integer `seed`."""
    shape, mean, stddev, dtype = _normal_args(shape, mean, stddev, dtype, STATELESS_TRUNCATED_NORMAL,
                                              "Tshape")
    rng = _stateless_rng(seed)
    return _scale_shift(_draw_truncated(rng, shape, dtype), stddev, mean, dtype)


# -- Generator -----------------------------------------------------------------------------------

def _to_int64_bits(words):
    return np.array([w & _MASK64 for w in words], dtype=np.uint64).view(np.int64)


class Generator(Trackable):
    """A stateful random generator whose whole state lives in the int64 variable `state`.

    The state is [counter_low, counter_high, key] of a Philox generator; every draw advances
    the counter, so saving `state` in a checkpoint and restoring it resumes the exact stream.
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            initial = np.asarray(copy_from.state.numpy(), dtype=np.int64)
        elif state is not None:
            initial = np.asarray(_host_scalar(state), dtype=np.int64).reshape(-1)
            if initial.shape != (3,):
                raise ValueError(f"Generator state must have shape [3], got {list(initial.shape)}")
        else:
            initial = _to_int64_bits([0, 0, int(_entropy.integers(0, 2 ** 63))])
        self._alg = _alg_id(alg)
        self._state_var = Variable(initial, trainable=False, dtype=dtypes.int64, name="StateVar")

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose stream is determined by the integer `seed`."""
        return cls(state=_to_int64_bits([0, 0, int(seed)]), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from operating-system entropy."""
        return cls(alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        """A generator starting from an explicit [3] state."""
        return cls(state=state, alg=alg)

    def reset_from_seed(self, seed):
        """Restart the stream as if created with `from_seed(seed)`."""
        self._state_var.assign(_to_int64_bits([0, 0, int(seed)]))

    def reset(self, state):
        """Set the state to an explicit [3] value."""
        self._state_var.assign(np.asarray(_host_scalar(state), dtype=np.int64))

    @property
    def state(self):
        """The int64 [3] variable holding the generator state."""
        return self._state_var

    @property
    def algorithm(self):
        """TF's id of the bit-generation algorithm (1, Philox; draws always use Philox here)."""
        return self._alg

    def _checkpoint_dependencies(self):
        return [("state", self._state_var)]

    def _rng(self):
        """A host generator positioned at the current state; `_advance` stores where it ended."""
        words = np.asarray(self._state_var.numpy(), dtype=np.int64).view(np.uint64)
        bits = np.random.Philox(key=np.array([int(words[2]), 0], dtype=np.uint64),
                                counter=np.array([int(words[0]), int(words[1]), 0, 0], dtype=np.uint64))
        return np.random.Generator(bits)

    def _advance(self, rng):
        counter = rng.bit_generator.state["state"]["counter"]
        key = int(np.asarray(self._state_var.numpy(), dtype=np.int64).view(np.uint64)[2])
        self._state_var.assign(_to_int64_bits([int(counter[0]), int(counter[1]), key]))

    def _draw(self, fn):
        rng = self._rng()
        out = fn(rng)
        self._advance(rng)
        return out

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Normal values; advances the state."""
        shape, mean, stddev, dtype = _normal_args(shape, mean, stddev, dtype, STATELESS_NORMAL,
                                                  "Tshape")
        return _scale_shift(self._draw(lambda rng: _draw_normal(rng, shape, dtype)), stddev, mean, dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        """Uniform values in [minval, maxval); advances the state.

        For integer dtypes pass both bounds (int32/int64), or neither for the full range.
        """
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(f"For integer dtype {dtype}, minval and maxval must be both `None` or "
                                 f"both non-`None`; got minval={minval} and maxval={maxval}")
        elif maxval is None:
            maxval = 1
        if dtype.is_integer and minval is None:
            return self.uniform_full_int(shape, dtype)
        op = STATELESS_UNIFORM_INT if dtype.is_integer else STATELESS_UNIFORM
        shape = _shape(shape, op, "Tshape")
        lo, hi = as_tensor(minval, dtype=dtype), as_tensor(maxval, dtype=dtype)
        if dtype.is_integer:
            if dtype.name in ("uint32", "uint64"):
                raise errors.NotFoundError(None, None, f"Could not find device for node: {op.name}"
                                                       f"[dtype={dtype.name}]: no CPU kernel for bounded "
                                                       f"{dtype.name} draws; use int32 or int64")
            _kernel_dtype(dtype, op, ("int32", "int64", "uint32", "uint64"))
            return _place(self._draw(lambda rng: _draw_int(rng, shape, lo, hi, dtype, op)), dtype)
        _kernel_dtype(dtype, op, _FLOAT_KERNEL, names="half, bfloat16, float, double")
        return self._draw(lambda rng: _draw_float_uniform(rng, shape, lo, hi, dtype))

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        """Integers covering the whole range of `dtype` (int32, int64, uint32 or uint64)."""
        dtype = dtypes.as_dtype(dtype)
        op = STATELESS_UNIFORM_FULL_INT
        shape = _shape(shape, op, "Tshape")
        _kernel_dtype(dtype, op, ("int32", "int64", "uint32", "uint64"))
        return _place(self._draw(lambda rng: _draw_full_int(rng, shape, dtype)), dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Normal values redrawn beyond two standard deviations; advances the state."""
        shape, mean, stddev, dtype = _normal_args(shape, mean, stddev, dtype, STATELESS_TRUNCATED_NORMAL,
                                                  "Tshape")
        return _scale_shift(self._draw(lambda rng: _draw_truncated(rng, shape, dtype)), stddev, mean, dtype)

    def binomial(self, shape, counts, probs, dtype=dtypes.int32, name=None):
        """Binomial draws of `shape`: counts trials with success probability probs, both
        broadcasting against the rightmost dimensions of `shape`; advances the state."""
        dtype = dtypes.as_dtype(dtype)
        counts, probs = as_tensor(counts), as_tensor(probs)
        op = STATEFUL_BINOMIAL
        shape = _shape(shape, op)
        _kernel_dtype(dtype, op, ("float16", "float32", "float64", "int32", "int64"))
        n, p = _host(counts), _host(probs)
        try:
            np.broadcast_shapes(n.shape, p.shape, shape)
        except ValueError:
            raise op.invalid(f"counts {list(n.shape)} and probs {list(p.shape)} must broadcast to the "
                             f"rightmost dimensions of shape {list(shape)}") from None
        return _place(self._draw(lambda rng: rng.binomial(n.astype(np.int64), p.astype(np.float64),
                                                          size=shape)), dtype)

    def make_seeds(self, count=1):
        """An int64 [2, count] tensor of seeds for stateless ops; advances the state."""
        info = np.iinfo(np.int64)
        seeds = self._draw(lambda rng: rng.integers(info.min, info.max, size=(2, int(count)), dtype=np.int64))
        return _place(seeds, dtypes.int64)

    def split(self, count=1):
        """`count` new, independent generators seeded from this one (which advances)."""
        seeds = np.asarray(self.make_seeds(count).numpy())
        return [Generator(state=_to_int64_bits([0, int(seeds[0, i]), int(seeds[1, i])]), alg=self._alg)
                for i in range(int(count))]


_ALGORITHMS = {"philox": 1, "threefry": 2, "auto_select": 3}


def _alg_id(alg):
    """TF's integer id for an RNG algorithm given by name, id or tf.random.Algorithm."""
    if alg is None:
        return 1
    alg = getattr(alg, "value", alg)
    if isinstance(alg, str):
        if alg.lower() not in _ALGORITHMS:
            raise ValueError(f"Unsupported random algorithm {alg!r}; use one of {sorted(_ALGORITHMS)}")
        return _ALGORITHMS[alg.lower()]
    return int(alg)


_global_generator = None


def get_global_generator():
    """The process-wide Generator (seeded from the global seed if one is set, else from entropy)."""
    global _global_generator
    if _global_generator is None:
        seed = _seeds.global_seed
        _global_generator = Generator.from_non_deterministic_state() if seed is None else Generator.from_seed(seed)
    return _global_generator


def set_global_generator(generator):
    """Replace the process-wide Generator (unchecked, as in TF)."""
    global _global_generator
    _global_generator = generator
