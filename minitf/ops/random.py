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
from minitf.tensor import Tensor
from minitf.trackable import Trackable

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


def _shape(shape):
    if isinstance(shape, Tensor):
        return tuple(int(d) for d in np.asarray(shape.numpy()).reshape(-1))
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def _host_scalar(x):
    """A Python/numpy value for a scalar or tensor argument (mean, stddev, minval, ...)."""
    if hasattr(x, "numpy"):
        return np.asarray(x.numpy())
    return np.asarray(x)


def _place(array, dtype):
    return Tensor(backend.default_module().asarray(np.asarray(array, dtype=dtype._np)))


def _float_dtype(dtype, op_name, *params):
    """A floating dtype for a normal-type op. As in TF, a non-float dtype first fails converting
    the float `params` (mean, stddev) to it (TypeError), else at the op's attr check."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        for p in params:
            if isinstance(p, float):
                raise TypeError(f"Cannot convert {p!r} to EagerTensor of dtype {dtype.name} in {op_name}; "
                                f"random normals need a floating dtype")
        raise errors.invalid_argument(
            op_name, f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values "
                     f"(floating types); pass dtype=tf.float32")
    return dtype


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


def _draw_uniform(rng, shape, minval, maxval, dtype, op_name):
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype.name} in {op_name}")
        for bound in (minval, maxval):
            if isinstance(bound, float):  # TF converts the bounds to the integer dtype first
                raise TypeError(f"Cannot convert {bound!r} to EagerTensor of dtype {dtype.name} in "
                                f"{op_name}; pass integer bounds for an integer dtype")
        lo, hi = _host_scalar(minval), _host_scalar(maxval)
        if np.any(lo >= hi):
            raise errors.invalid_argument(op_name, f"Need minval < maxval: {lo} >= {hi}")
        return rng.integers(lo, hi, size=shape, dtype=dtype._np)
    if not dtype.is_floating:
        raise ValueError(f"{op_name}: dtype must be floating or integer, got {dtype.name}")
    maxval = 1 if maxval is None else maxval
    draw_dtype = np.float64 if dtype._np == np.float64 else np.float32
    unit = rng.random(shape, dtype=draw_dtype)
    lo, hi = _host_scalar(minval), _host_scalar(maxval)
    return unit * (hi - lo) + lo


# -- stateful ops ------------------------------------------------------------------------------

def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Values from a normal distribution with the given mean and standard deviation."""
    dtype = _float_dtype(dtype, "RandomStandardNormal", mean, stddev)
    values = _draw_normal(_host_rng(seed), _shape(shape), dtype)
    return _place(values * _host_scalar(stddev) + _host_scalar(mean), dtype)


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Values uniform in [minval, maxval); maxval defaults to 1 for floats and is required for ints."""
    dtype = dtypes.as_dtype(dtype)
    values = _draw_uniform(_host_rng(seed), _shape(shape), minval, maxval, dtype, "RandomUniform")
    return _place(values, dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values, with any value more than two standard deviations from the mean redrawn."""
    dtype = _float_dtype(dtype, "TruncatedNormal", mean, stddev)
    values = _draw_truncated(_host_rng(seed), _shape(shape), dtype)
    return _place(values * _host_scalar(stddev) + _host_scalar(mean), dtype)


def _sample_categorical(rng, logits, num_samples, dtype):
    """[batch, num_samples] class indices drawn with probabilities softmax(logits)."""
    if logits.ndim != 2:
        raise errors.invalid_argument("Multinomial", f"logits should be a matrix [batch_size, "
                                                     f"num_classes], got shape {list(logits.shape)}")
    logits = logits.astype(np.float64)
    shifted = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(shifted)
    cdf = np.cumsum(probs, axis=1)
    cdf /= cdf[:, -1:]
    u = rng.random((logits.shape[0], int(num_samples)))
    index = (u[:, :, None] >= cdf[:, None, :]).sum(axis=2)
    return np.minimum(index, logits.shape[1] - 1).astype(dtype._np)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Draw `num_samples` class indices per row of `logits` [batch, classes] (int64 by default)."""
    dtype = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    host_logits = np.asarray(_host_scalar(logits))
    return _place(_sample_categorical(_host_rng(seed), host_logits, num_samples, dtype), dtype)


def shuffle(value, seed=None, name=None):
    """`value` with its first dimension randomly permuted."""
    from minitf.ops._core import as_tensor
    x = as_tensor(value)
    if x._value.ndim == 0:
        return x
    perm = _host_rng(seed).permutation(x._value.shape[0])
    xp = backend.array_module(x._value)
    return Tensor(x._value[xp.asarray(perm)])


# -- stateless ops -------------------------------------------------------------------------------

def _stateless_rng(seed, op_name):
    key = np.asarray(_host_scalar(seed))
    if key.dtype.kind not in "iu":
        raise errors.invalid_argument(
            op_name, f"Value for attr 'Tseed' of {key.dtype.name} is not in the list of allowed values: "
                     f"int32, int64; pass an integer seed pair")
    if key.shape != (2,):
        raise errors.invalid_argument(
            op_name, f"seed must have shape [2], not {list(key.shape)}; pass a pair such as [1, 2]")
    return _philox(int(key[0]), int(key[1]))


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"):
    """Normal values fully determined by `shape` and the [2] integer `seed`."""
    dtype = _float_dtype(dtype, "StatelessRandomNormal", mean, stddev)
    values = _draw_normal(_stateless_rng(seed, "StatelessRandomNormal"), _shape(shape), dtype)
    return _place(values * _host_scalar(stddev) + _host_scalar(mean), dtype)


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None, alg="auto_select"):
    """Uniform values fully determined by `shape` and the [2] integer `seed`."""
    dtype = dtypes.as_dtype(dtype)
    rng = _stateless_rng(seed, "StatelessRandomUniform")
    return _place(_draw_uniform(rng, _shape(shape), minval, maxval, dtype, "StatelessRandomUniform"), dtype)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                               alg="auto_select"):
    """Truncated normal values fully determined by `shape` and the [2] integer `seed`."""
    dtype = _float_dtype(dtype, "StatelessTruncatedNormal", mean, stddev)
    values = _draw_truncated(_stateless_rng(seed, "StatelessTruncatedNormal"), _shape(shape), dtype)
    return _place(values * _host_scalar(stddev) + _host_scalar(mean), dtype)


# -- Generator -----------------------------------------------------------------------------------

def _to_int64_bits(words):
    return np.array([w & _MASK64 for w in words], dtype=np.uint64).view(np.int64)


class Generator(Trackable):
    """A stateful random generator whose whole state lives in the int64 variable `state`.

    The state is [counter_low, counter_high, key] of a Philox generator; every draw advances
    the counter, so saving `state` in a checkpoint and restoring it resumes the exact stream.
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        from minitf.variable import Variable
        if copy_from is not None:
            initial = np.asarray(copy_from.state.numpy(), dtype=np.int64)
        elif state is not None:
            initial = np.asarray(_host_scalar(state), dtype=np.int64).reshape(-1)
            if initial.shape != (3,):
                raise ValueError(f"Generator state must have shape [3], got {list(initial.shape)}")
        else:
            initial = _to_int64_bits([0, 0, int(_entropy.integers(0, 2 ** 63))])
        self._alg = "philox" if alg is None else alg
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
        """The bit-generation algorithm (always Philox here)."""
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
        dtype = _float_dtype(dtype, "StatefulStandardNormal", mean, stddev)
        values = self._draw(lambda rng: _draw_normal(rng, _shape(shape), dtype))
        return _place(values * _host_scalar(stddev) + _host_scalar(mean), dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        """Uniform values in [minval, maxval) (maxval required for integers); advances the state."""
        dtype = dtypes.as_dtype(dtype)
        return _place(self._draw(lambda rng: _draw_uniform(rng, _shape(shape), minval, maxval, dtype,
                                                           "StatefulUniform")), dtype)

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        """Integers covering the whole range of `dtype`."""
        dtype = dtypes.as_dtype(dtype)
        info = np.iinfo(dtype._np)
        return _place(self._draw(lambda rng: rng.integers(info.min, info.max, size=_shape(shape),
                                                          dtype=dtype._np, endpoint=True)), dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Normal values redrawn beyond two standard deviations; advances the state."""
        dtype = _float_dtype(dtype, "StatefulTruncatedNormal", mean, stddev)
        values = self._draw(lambda rng: _draw_truncated(rng, _shape(shape), dtype))
        return _place(values * _host_scalar(stddev) + _host_scalar(mean), dtype)

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


_global_generator = None


def get_global_generator():
    """The process-wide Generator (seeded from the global seed if one is set, else from entropy)."""
    global _global_generator
    if _global_generator is None:
        seed = _seeds.global_seed
        _global_generator = Generator.from_non_deterministic_state() if seed is None else Generator.from_seed(seed)
    return _global_generator


def set_global_generator(generator):
    """Replace the process-wide Generator."""
    global _global_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"set_global_generator needs a tf.random.Generator, got {type(generator).__name__}")
    _global_generator = generator
