"""tf.random.Generator: a stateful Philox stream whose state is one int64 variable, as TF's.

The state of a Philox generator is [counter_low, counter_high, key]. Every draw of n values
reads the state, advances the counter by n * 256 blocks (TF's RngReadAndSkip) and fills the
output from the stateless kernels at the old (key, counter), so the numbers, the state after
each call, `make_seeds` and `split` all equal TF's for the same seed. Saving the state variable
in a checkpoint (dependency name `_state_var`, as TF) and restoring it resumes the stream.

A generator made inside a tf.distribute strategy's scope (or `run`) gives each replica its own
stream, as TF's does: inside `run` the key is hashed with the replica's id (and each replica of
a process advances its own copy of the state variable, minitf.distribute.replica_copies).
"""
import functools
import inspect

import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf import distribution_context as distribute_context
from minitf.ops import random_binomial as rb
from minitf.ops import stateless_random as sr
from minitf.ops._core import Op, as_tensor
from minitf.recording import active_graph
from minitf.tensor import Tensor
from minitf.tensor_spec import TensorSpec
from minitf.trackable import Trackable
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["Generator", "create_rng_state", "get_global_generator", "set_global_generator"]

RNG_READ_AND_SKIP = Op("RngReadAndSkip")
STATEFUL_BINOMIAL = Op("StatefulRandomBinomial")

_MASK64 = (1 << 64) - 1
_SKIP_PER_VALUE = 256  # counter blocks reserved per output value (TF's multiplier)
_STATE_SIZE = {1: 3, 2: 2, 3: 3}
_entropy = np.random.default_rng()


def _state_size(alg):
    if alg not in _STATE_SIZE:
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are 1 for the Philox "
                         f"algorithm, 2 for the ThreeFry algorithm, and 3 for auto-selection.")
    return _STATE_SIZE[alg]


def _to_int64(words):
    """Python ints (any sign, up to 64 bits) as an int64 array, wrapping as a bitcast."""
    return np.array([int(w) & _MASK64 for w in words], dtype=np.uint64).view(np.int64)


def _state_from_seed(seed, alg):
    """TF's seed-to-state rule: a Python int is cut into 64-bit words, lowest first; a vector
    keeps its first `size` entries and is padded with zeros on the left."""
    size = _state_size(sr.alg_id(alg))
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        seed, words = int(seed), []
        for _ in range(size):
            words.append(seed & _MASK64)
            seed >>= 64
        return _to_int64(words)
    if isinstance(seed, (Tensor, Variable)):
        flat = np.asarray(seed.numpy()).reshape(-1).astype(np.int64)
    else:
        flat = _to_int64(np.asarray(seed, dtype=object).reshape(-1).tolist())
    flat = flat[:size]
    return np.concatenate([np.zeros(size - flat.size, dtype=np.int64), flat])


def _skipped(state, count):
    """`state` with its 128-bit counter advanced by `count` values (TF's RngReadAndSkip)."""
    words = state.view(np.uint64)
    value = int(words[0]) | (int(words[1]) << 64)
    value = (value + int(count) * _SKIP_PER_VALUE) & ((1 << 128) - 1)
    return _to_int64([value & _MASK64, value >> 64, int(words[2])])


@export("random.create_rng_state", "random.experimental.create_rng_state")
def create_rng_state(seed, alg):
    """The int64 state vector a Generator with `seed` and algorithm `alg` starts from."""
    return sr.place(_state_from_seed(seed, sr.alg_id(alg)), dtypes.int64)


def _static_shape(shape):
    """`shape` as a list of ints (None entries where unknown), or None when its length is unknown."""
    if isinstance(shape, Tensor):
        return [int(d) for d in np.asarray(shape.numpy()).reshape(-1)]
    if isinstance(shape, (list, tuple)):
        return [d if isinstance(d, (int, np.integer)) else None for d in shape]
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return None


def _draws_in_graphs(output_spec):
    """Decorate a Generator method that advances the state: inside a traced function it is a
    stateful node of the graph, so each run of the graph draws anew and advances the state (as
    TF's stateful random ops do); the trace itself draws nothing. `output_spec(arguments)` gives
    the TensorSpec of its result from the call's bound arguments."""
    def wrap(method):
        signature = inspect.signature(method)

        def abstract(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return output_spec(bound.arguments)

        @functools.wraps(method)
        def run(self, *args, **kwargs):
            graph = active_graph()
            if graph is None:
                return method(self, *args, **kwargs)
            return graph.call(method, (self,) + args, kwargs, stateful=True, abstract=abstract,
                              op_type="RandomGenerator", name=method.__name__)
        return run
    return wrap


def _drawn(default_dtype):
    return _draws_in_graphs(lambda a: TensorSpec(_static_shape(a["shape"]), a.get("dtype") or default_dtype))


@export("random.Generator", "random.experimental.Generator")
class Generator(Trackable):
    """A random-number generator whose whole state lives in the int64 variable `state`.

    Draws advance the state, so two generators made from the same seed produce the same
    sequence, and restoring a saved state resumes the exact stream. Numbers equal TF's for the
    same seed and algorithm (Philox; ThreeFry states are accepted but, as on TF's CPU, cannot
    draw).
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        entry = distribute_context.top()
        self._distributed = entry is not None  # made in a strategy's scope or run: a stream per replica
        if copy_from is not None:
            if alg is not None or state is not None:
                raise ValueError("Generator(copy_from=...) takes no `state` or `alg`; it copies both")
            self._alg = copy_from.algorithm
            initial = np.asarray(copy_from.state.numpy(), dtype=np.int64)
            self._state_var = Variable(initial, trainable=False, dtype=dtypes.int64, name="StateVar")
            return
        if state is None or alg is None:
            raise ValueError("Generator needs both `state` and `alg` (or `copy_from`); use "
                             "Generator.from_seed(seed) or Generator.from_non_deterministic_state()")
        self._alg = sr.alg_id(alg)
        size = _state_size(self._alg)
        if isinstance(state, Variable):
            if state.shape.as_list() != [size]:
                raise ValueError(f"Shapes {tuple(state.shape.as_list())} and ({size},) are incompatible: a "
                                 f"state for algorithm {self._alg} has {size} entries")
            self._state_var = state
            return
        if isinstance(state, Tensor):
            initial = np.asarray(state.numpy()).astype(np.int64)
        else:
            initial = _to_int64(np.asarray(state, dtype=object).reshape(-1).tolist()).reshape(np.shape(state))
        if initial.shape != (size,):
            raise ValueError(f"Shapes {initial.shape} and ({size},) are incompatible: a state for algorithm "
                             f"{self._alg} has {size} entries")
        self._state_var = Variable(initial, trainable=False, dtype=dtypes.int64, name="StateVar")

    @classmethod
    def from_state(cls, state, alg):
        """A generator starting from an explicit state vector."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose stream is determined by `seed` (an int or a vector of ints)."""
        alg = sr.Algorithm.PHILOX.value if alg is None else sr.alg_id(alg)
        return cls(state=_state_from_seed(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator whose state is drawn from operating-system entropy."""
        alg = sr.Algorithm.PHILOX.value if alg is None else sr.alg_id(alg)
        words = _entropy.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=_state_size(alg),
                                  dtype=np.int64, endpoint=True)
        return cls(state=words, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A generator with state counter + [key]."""
        alg = sr.alg_id(alg)
        return cls(state=cls._key_counter_state(key, counter, alg), alg=alg)

    @staticmethod
    def _key_counter_state(key, counter, alg):
        counter = np.asarray(as_tensor(counter, dtype=dtypes.int64).numpy()).reshape(-1)
        key = np.asarray(as_tensor(key, dtype=dtypes.int64).numpy())
        if counter.shape != (_state_size(alg) - 1,) or key.shape != ():
            raise ValueError(f"key must be a scalar and counter a vector of {_state_size(alg) - 1} int64 values; "
                             f"got shapes {list(key.shape)} and {list(counter.shape)}")
        return np.concatenate([counter, key.reshape(1)])

    def reset(self, state):
        """Set the state to an explicit vector."""
        value = np.asarray(as_tensor(state, dtype=dtypes.int64).numpy())
        if value.shape != (_state_size(self._alg),):
            raise ValueError(f"Shapes {value.shape} and ({_state_size(self._alg)},) are incompatible")
        self._state_var.assign(value)

    def reset_from_seed(self, seed):
        """Restart the stream as if the generator were made with `from_seed(seed)`."""
        self._state_var.assign(_state_from_seed(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        """Set the state to counter + [key]."""
        self._state_var.assign(self._key_counter_state(key, counter, self._alg))

    @property
    def state(self):
        """The int64 variable holding the generator state."""
        return self._state_var

    @property
    def algorithm(self):
        """TF's id of the algorithm: 1 Philox, 2 ThreeFry, 3 auto-select."""
        return self._alg

    @property
    def key(self):
        """The key part (last entry) of the state."""
        return self._state_var[-1]

    def _checkpoint_dependencies(self):
        return [("_state_var", self._state_var)]

    def _read_and_skip(self, count):
        """The state before advancing the counter by `count` values (TF's RngReadAndSkip)."""
        if self._alg == sr.Algorithm.THREEFRY.value:
            raise errors.UnimplementedError(None, None, "Non-XLA devices don't support the ThreeFry algorithm; "
                                                        "use a Philox generator (the default)")
        old = np.asarray(self._state_var.numpy()).astype(np.int64)
        self._state_var.assign(_skipped(old, count))
        return old

    @_draws_in_graphs(lambda a: TensorSpec([_state_size(a["self"]._alg)], dtypes.int64))
    def skip(self, delta):
        """Advance the stream as `normal([delta])` would; returns the state before."""
        return sr.place(self._read_and_skip(int(delta)), dtypes.int64)

    def _key_counter(self, shape):
        """(key, counter) for a draw of `shape`, advancing the state; inside a strategy's `run`
        the key is hashed with the replica id, as TF does."""
        words = self._read_and_skip(int(np.prod(shape))).view(np.uint64)
        key = int(words[2])
        entry = distribute_context.top() if self._distributed else None
        if entry is not None and entry[1] is not None:
            replica = int(entry[1]._replica_id)
            key = int(np.asarray(sr.draw_full_int(key, (replica, 0), (1,), dtypes.uint64)).reshape(-1)[0])
        return key, (int(words[0]), int(words[1]))

    @_drawn(dtypes.float32)
    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Normal values with the given mean and standard deviation; advances the state."""
        shape, mean, stddev, dtype = sr.normal_args(shape, mean, stddev, dtype, sr.STATELESS_NORMAL, "Tshape")
        key, counter = self._key_counter(shape)
        return sr.scale_shift(sr.draw_normal(key, counter, shape, dtype), stddev, mean, dtype)

    @_drawn(dtypes.float32)
    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Normal values redrawn beyond two standard deviations; advances the state."""
        shape, mean, stddev, dtype = sr.normal_args(shape, mean, stddev, dtype, sr.STATELESS_TRUNCATED_NORMAL,
                                                    "Tshape")
        key, counter = self._key_counter(shape)
        return sr.scale_shift(sr.draw_truncated(key, counter, shape, dtype), stddev, mean, dtype)

    @_drawn(dtypes.float32)
    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        """Uniform values in [minval, maxval); advances the state.

        For integer dtypes pass both bounds (int32/int64 scalars), or neither for the full range.
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
        op = sr.STATELESS_UNIFORM_INT if dtype.is_integer else sr.STATELESS_UNIFORM
        shape = sr.check_shape(shape, op, "Tshape")
        lo, hi = as_tensor(minval, dtype=dtype), as_tensor(maxval, dtype=dtype)
        if dtype.is_integer:
            if dtype.name in ("uint32", "uint64"):
                raise errors.NotFoundError(None, None, f"Could not find device for node: {op.name}"
                                                       f"[dtype={dtype.name}]: no CPU kernel for bounded "
                                                       f"{dtype.name} draws; use int32 or int64")
            sr.check_kernel_dtype(dtype, op, ("int32", "int64", "uint32", "uint64"))
            bounds = sr.int_bounds(shape, lo, hi, op)
            key, counter = self._key_counter(shape)
            return sr.place(sr.draw_int(key, counter, shape, bounds, dtype), dtype)
        sr.check_kernel_dtype(dtype, op, sr.FLOAT_KERNEL, names="half, bfloat16, float, double")
        key, counter = self._key_counter(shape)
        return sr.scale_unit(sr.draw_unit(key, counter, shape, dtype), lo, hi, dtype)

    @_drawn(dtypes.uint64)
    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        """Integers covering the whole range of `dtype` (int32, int64, uint32 or uint64)."""
        dtype = dtypes.as_dtype(dtype)
        op = sr.STATELESS_UNIFORM_FULL_INT
        shape = sr.check_shape(shape, op, "Tshape")
        sr.check_kernel_dtype(dtype, op, ("int32", "int64", "uint32", "uint64"))
        key, counter = self._key_counter(shape)
        return sr.place(sr.draw_full_int(key, counter, shape, dtype), dtype)

    @_drawn(dtypes.int32)
    def binomial(self, shape, counts, probs, dtype=dtypes.int32, name=None):
        """Binomial draws of `shape`: `counts` trials with success probability `probs` (float
        tensors of one dtype, broadcasting against the rightmost dimensions of `shape`);
        advances the state. TF's numbers."""
        dtype = dtypes.as_dtype(dtype)
        counts, probs = as_tensor(counts), as_tensor(probs)
        shape = sr.check_shape(shape, STATEFUL_BINOMIAL)
        batch_shape = sr.binomial_args(shape, counts, probs, dtype, STATEFUL_BINOMIAL)
        if self._alg != sr.Algorithm.PHILOX.value:
            raise STATEFUL_BINOMIAL.invalid(f"Unsupported algorithm id: {self._alg}; binomial draws need a "
                                            f"Philox generator (alg='philox')")
        key, counter = self._key_counter((rb.state_skip(shape, batch_shape),))
        return sr.place(rb.sample(key, counter, shape, sr.host(counts), sr.host(probs)), dtype)

    @_draws_in_graphs(lambda a: TensorSpec([2, int(a["count"])], dtypes.int64))
    def make_seeds(self, count=1):
        """An int64 [2, count] tensor of seeds for stateless ops (second row zeros, as TF)."""
        keys = np.asarray(self.uniform_full_int([count], dtypes.int64).numpy())
        return sr.place(np.stack([keys, np.zeros_like(keys)]), dtypes.int64)

    def split(self, count=1):
        """`count` new, independent generators keyed from this one (which advances)."""
        keys = np.asarray(self.uniform_full_int([count], dtypes.int64).numpy())
        size = _state_size(self._alg)
        return [Generator(state=[0] * (size - 1) + [int(k)], alg=self._alg) for k in keys]


_global_generator = None


@export("random.get_global_generator", "random.experimental.get_global_generator")
def get_global_generator():
    """The process-wide Generator, made from operating-system entropy on first use (as TF)."""
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


@export("random.set_global_generator", "random.experimental.set_global_generator")
def set_global_generator(generator):
    """Replace the process-wide Generator (unchecked, as in TF)."""
    global _global_generator
    _global_generator = generator
