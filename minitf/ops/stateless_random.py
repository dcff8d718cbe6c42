"""Stateless random ops: numbers fully determined by a shape [2] integer seed, equal to TF's.

`stateless_uniform/normal/truncated_normal/categorical`, `split`, `fold_in` and `index_shuffle`
compute what TF's CPU kernels compute for the same seed: the seed pair is scrambled into a
Philox key and counter by one Philox call (TF's GenerateKey), and the numbers come from
`minitf.ops.philox`. Values are made on the host and placed with the default array module, so
a GPU run sees the same numbers as a CPU run (TF's GPU kernels differ from its CPU ones only in
the last bit of some normals). The argument checks shared by every random op live here too.
"""
import enum

import numpy as np

from minitf import backend, dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops import philox
from minitf.ops import random_binomial, random_poisson
from minitf.ops._core import Op, as_tensor
from minitf.ops.math import ADD, MUL, SUB
from minitf.tensor import Tensor
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["Algorithm", "stateless_normal", "stateless_uniform", "stateless_truncated_normal",
           "stateless_categorical", "stateless_binomial", "stateless_poisson",
           "split", "fold_in", "index_shuffle"]

STATELESS_GET_KEY_COUNTER = Op("StatelessRandomGetKeyCounter")
STATELESS_NORMAL = Op("StatelessRandomNormalV2")
STATELESS_UNIFORM = Op("StatelessRandomUniformV2")
STATELESS_UNIFORM_INT = Op("StatelessRandomUniformIntV2")
STATELESS_UNIFORM_FULL_INT = Op("StatelessRandomUniformFullIntV2")
STATELESS_TRUNCATED_NORMAL = Op("StatelessTruncatedNormalV2")
STATELESS_MULTINOMIAL = Op("StatelessMultinomial")
MULTINOMIAL = Op("Multinomial")
RANDOM_INDEX_SHUFFLE = Op("RandomIndexShuffle")
STATELESS_SHUFFLE = Op("StatelessShuffle")
STATELESS_BINOMIAL = Op("StatelessRandomBinomial")
STATELESS_POISSON = Op("StatelessRandomPoisson")
POISSON_TYPES = ("float16", "float32", "float64", "int32", "int64")

FLOAT_KERNEL = ("float16", "bfloat16", "float32", "float64")
UNIFORM_TYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64")
_STATELESS_UNIFORM_TYPES = UNIFORM_TYPES + ("uint32", "uint64")
_MASK64 = (1 << 64) - 1
_SCRAMBLE_KEY = 0x02461E293EC8F720  # TF's fixed key for turning a seed pair into key/counter


@export("random.Algorithm", "random.experimental.Algorithm")
class Algorithm(enum.Enum):
    """The random-number algorithms TF names: Philox, ThreeFry (XLA only) and auto-select."""
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def alg_id(alg):
    """TF's integer id for `alg` (a name, an Algorithm, or an int); ValueError/TypeError as TF."""
    if alg is None:
        return Algorithm.AUTO_SELECT.value
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, (int, np.integer)) and not isinstance(alg, bool):
        return int(alg)
    if isinstance(alg, str):
        canon = alg.strip().lower().replace("-", "").replace("_", "")
        ids = {"philox": 1, "threefry": 2, "autoselect": 3}
        if canon in ids:
            return ids[canon]
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are philox for the "
                         f"Philox algorithm, threefry for the ThreeFry algorithm, and auto_select for "
                         f"auto-selection.")
    raise TypeError(f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) to int.")


def check_cpu_alg(alg, op):
    """Philox (and auto-select, which picks it) is what TF's non-XLA kernels run."""
    alg = alg_id(alg)
    if alg not in (1, 3):
        raise op.invalid(f"Unsupported algorithm id: {alg}; only Philox (1) and auto_select (3) run outside "
                         f"XLA, pass alg='philox'")
    return alg


# -- argument checks shared by every random op --------------------------------------------------

def check_shape(shape, op, attr="T"):
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


def host(t):
    """A tensor's value as a numpy array."""
    return np.asarray(backend.to_host(t._value))


def place(array, dtype):
    """A host array as a tensor of `dtype` on the default device."""
    return Tensor(backend.default_module().asarray(np.asarray(array, dtype=dtype._np)))


def check_kernel_dtype(dtype, op, allowed, attr="dtype", names=None):
    """InvalidArgumentError, as a kernel's type attr check, when `dtype` is not allowed."""
    if dtype.name not in allowed:
        raise op.invalid(f"Value for attr '{attr}' of {dtype.name} is not in the list of allowed values: "
                         f"{names or ', '.join(allowed)}")


def check_accepted(dtype, accepted):
    """ValueError, as TF's Python wrappers raise, for a dtype outside `accepted`."""
    if dtype.name not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"({', '.join('tf.' + n for n in accepted)}).")


def normal_args(shape, mean, stddev, dtype, op, shape_attr="T"):
    """(shape, mean, stddev, dtype) checked in TF's order: the shape, then mean and stddev
    converted to `dtype` (a float mean for an int dtype: TypeError; a tensor of another dtype:
    ValueError), then the kernel's float-only dtype attr (InvalidArgumentError)."""
    dtype = dtypes.as_dtype(dtype)
    shape = check_shape(shape, op, shape_attr)
    mean, stddev = as_tensor(mean, dtype=dtype), as_tensor(stddev, dtype=dtype)
    check_kernel_dtype(dtype, op, FLOAT_KERNEL, names="half, bfloat16, float, double")
    return shape, mean, stddev, dtype


def scale_shift(values, scale, shift, dtype):
    """values * scale + shift in `dtype`, broadcasting as TF's Mul/AddV2 (InvalidArgumentError)."""
    v = np.asarray(values, dtype=dtype._np)
    a, b = host(scale), host(shift)
    for op, other in ((MUL, a), (ADD, b)):
        try:
            np.broadcast_shapes(v.shape, other.shape)
        except ValueError:
            raise op.invalid(f"Incompatible shapes: {list(v.shape)} vs. {list(other.shape)}") from None
        v = v * other if op is MUL else v + other
    return place(v, dtype)


def scale_unit(unit, lo, hi, dtype):
    """Uniform [0, 1) values mapped to [lo, hi) as TF does: unit * (hi - lo) + lo in `dtype`."""
    h, lo_v = host(hi), host(lo)
    try:
        np.broadcast_shapes(h.shape, lo_v.shape)
    except ValueError:
        raise SUB.invalid(f"Incompatible shapes: {list(h.shape)} vs. {list(lo_v.shape)} "
                          f"(maxval and minval)") from None
    return scale_shift(unit, Tensor(np.asarray(h - lo_v, dtype=dtype._np)), lo, dtype)


def int_bounds(shape, lo, hi, op):
    """(lo, hi) as Python ints, checked as TF's uniform-int kernels check them: scalars, and
    lo < hi unless the output is empty (then None)."""
    lo_v, hi_v = host(lo), host(hi)
    for which, v in (("minval", lo_v), ("maxval", hi_v)):
        if v.ndim != 0:
            raise op.invalid(f"{which} must be 0-D, got shape {list(v.shape)}; integer bounds do not "
                             f"broadcast")
    if int(np.prod(shape)) == 0:
        return None
    if lo_v >= hi_v:
        raise op.invalid(f"Need minval < maxval: {lo_v} >= {hi_v}")
    return int(lo_v), int(hi_v)


# -- seeds to Philox keys -----------------------------------------------------------------------

def scramble(seed0, seed1):
    """The (key, counter) TF derives from a seed pair: one Philox block of the pair under a
    fixed key gives the new key (first two words) and the counter's high half (last two)."""
    s0, s1 = int(seed0) & _MASK64, int(seed1) & _MASK64
    words = [np.array([w], dtype=np.uint32) for w in (s0 & 0xFFFFFFFF, s0 >> 32, s1 & 0xFFFFFFFF, s1 >> 32)]
    mix = [int(w[0]) for w in philox.philox(_SCRAMBLE_KEY, words)]
    return mix[0] | (mix[1] << 32), (0, mix[2] | (mix[3] << 32))


def seed_key_counter(seed, op=STATELESS_GET_KEY_COUNTER, alg="auto_select"):
    """(key, counter) for a stateless op's `seed`: an int32/int64 tensor of shape [2]."""
    seed_t = as_tensor(seed)
    if seed_t.dtype.name not in ("int32", "int64"):
        raise op.invalid(f"Value for attr 'Tseed' of {seed_t.dtype.name} is not in the list of allowed values: "
                         f"int32, int64; pass an integer seed pair")
    value = host(seed_t)
    if value.shape != (2,):
        raise op.invalid(f"seed must have shape [2], not {list(value.shape)}; pass a pair such as [1, 2]")
    check_cpu_alg(alg, op)
    return scramble(int(value[0]), int(value[1]))


# -- drawing by (key, counter): shared with tf.random.Generator ----------------------------------

def draw_normal(key, counter, shape, dtype):
    """Standard normals of `shape` and float `dtype` from the Philox stream at (key, counter)."""
    return philox.normal(key, counter, int(np.prod(shape)), dtype.name).reshape(shape)


def draw_truncated(key, counter, shape, dtype):
    """Standard normals within two standard deviations, as TF's truncated normal kernel."""
    return philox.truncated_normal(key, counter, int(np.prod(shape)), dtype.name).reshape(shape)


def draw_unit(key, counter, shape, dtype):
    """Uniform [0, 1) values of `shape` and float `dtype`."""
    return philox.uniform(key, counter, int(np.prod(shape)), dtype.name).reshape(shape)


def draw_full_int(key, counter, shape, dtype):
    """Integers covering all of `dtype` (int32, int64, uint32 or uint64)."""
    return philox.full_int(key, counter, int(np.prod(shape)), dtype.name).reshape(shape)


def draw_int(key, counter, shape, bounds, dtype):
    """Integers in [lo, hi) for `bounds` = (lo, hi), or zeros when the output is empty."""
    if bounds is None:
        return np.zeros(shape, dtype=dtype._np)
    return philox.uniform_int(key, counter, int(np.prod(shape)), bounds[0], bounds[1], dtype.name).reshape(shape)


# -- stateless ops -------------------------------------------------------------------------------

@export("random.stateless_normal")
@dispatch.add_dispatch_support
def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"):
    """Normal values fully determined by `shape` and the [2] integer `seed` (TF's numbers)."""
    shape, mean, stddev, dtype = normal_args(shape, mean, stddev, dtype, STATELESS_NORMAL, "Tshape")
    key, counter = seed_key_counter(seed, STATELESS_NORMAL, alg)
    return scale_shift(draw_normal(key, counter, shape, dtype), stddev, mean, dtype)


@export("random.stateless_truncated_normal")
@dispatch.add_dispatch_support
def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                               alg="auto_select"):
    """Truncated normal values fully determined by `shape` and the [2] integer `seed`."""
    shape, mean, stddev, dtype = normal_args(shape, mean, stddev, dtype, STATELESS_TRUNCATED_NORMAL, "Tshape")
    key, counter = seed_key_counter(seed, STATELESS_TRUNCATED_NORMAL, alg)
    return scale_shift(draw_truncated(key, counter, shape, dtype), stddev, mean, dtype)


@export("random.stateless_uniform")
@dispatch.add_dispatch_support
def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None, alg="auto_select"):
    """Uniform values fully determined by `shape` and the [2] integer `seed` (TF's numbers).

    Floats lie in [minval, maxval) (bounds broadcast). For integer dtypes pass both bounds
    (scalars, int32/int64), or neither (minval=None, maxval=None) for the full range, where
    uint32 and uint64 are allowed too.
    """
    dtype = dtypes.as_dtype(dtype)
    check_accepted(dtype, _STATELESS_UNIFORM_TYPES)
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype}, argument `minval` and `maxval` must "
                             f"be both None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        if minval is not None and dtype.name in ("uint32", "uint64"):
            raise ValueError(f"Argument `dtype` got invalid value {dtype} when argument `minval` is not "
                             f"None. Please don't use unsigned integers in this case.")
    elif maxval is None:
        maxval = 1
    if dtype.is_integer and minval is None:
        shape = check_shape(shape, STATELESS_UNIFORM_FULL_INT, "Tshape")
        key, counter = seed_key_counter(seed, STATELESS_UNIFORM_FULL_INT, alg)
        return place(draw_full_int(key, counter, shape, dtype), dtype)
    op = STATELESS_UNIFORM_INT if dtype.is_integer else STATELESS_UNIFORM
    shape = check_shape(shape, op, "Tshape")
    lo, hi = as_tensor(minval, dtype=dtype), as_tensor(maxval, dtype=dtype)
    key, counter = seed_key_counter(seed, op, alg)
    if dtype.is_integer:
        return place(draw_int(key, counter, shape, int_bounds(shape, lo, hi, op), dtype), dtype)
    return scale_unit(draw_unit(key, counter, shape, dtype), lo, hi, dtype)


@export("random.split", "random.experimental.stateless_split")
@dispatch.add_dispatch_support
def split(seed, num=2, alg="auto_select"):
    """`num` new seeds, shape [num, 2], drawn from `seed` (same dtype as the seed)."""
    seed = as_tensor(seed)
    return stateless_uniform([num, 2], seed, minval=None, maxval=None, dtype=seed.dtype, alg=alg)


@export("random.fold_in", "random.experimental.stateless_fold_in")
@dispatch.add_dispatch_support
def fold_in(seed, data, alg="auto_select"):
    """A new seed [draw from `seed`, data]: folds an integer (e.g. a replica id) into `seed`."""
    data = as_tensor(data)
    first = stateless_uniform([], seed, minval=None, maxval=None, dtype=data.dtype, alg=alg)
    return place(np.stack([host(first), host(data)]), data.dtype)


# -- categorical ---------------------------------------------------------------------------------

def categorical_args(logits, num_samples, dtype, op):
    """(logits array, num_samples, dtype) checked as TF's Multinomial kernels check them."""
    logits = as_tensor(logits)
    dtype = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    check_accepted(dtype, ("int32", "int64"))
    if isinstance(num_samples, (Tensor, Variable)) and num_samples.dtype.name != "int32":
        raise op.invalid(f"cannot compute {op.name} as input #1(zero-based) was expected to be "
                         f"a int32 tensor but is a {num_samples.dtype.name} tensor")
    n = host(as_tensor(num_samples, dtype=dtypes.int32))
    name_ = logits.dtype.name
    if name_ not in FLOAT_KERNEL or name_ == "bfloat16":
        if logits.dtype.is_integer:
            raise errors.NotFoundError(None, None, f"Could not find device for node: {op.name}"
                                                   f"[T={name_}]: no CPU kernel for {name_} logits; "
                                                   f"cast them to float32")
        check_kernel_dtype(logits.dtype, op, ("float16", "float32", "float64"), attr="T",
                           names="half, float, double")
    v = host(logits)
    if v.ndim != 2:
        raise op.invalid(f"logits should be a matrix [batch_size, num_classes], got shape {list(v.shape)}")
    if n.ndim != 0:
        raise op.invalid(f"num_samples should be a scalar, got shape {list(n.shape)}")
    if n < 0:
        raise op.invalid(f"num_samples should be nonnegative, got {int(n)}")
    if v.shape[1] == 0:
        raise op.invalid("num_classes should be positive, got 0")
    return v, int(n), dtype


def sample_categorical(key, counter, logits, num_samples):
    """[batch, num_samples] class indices as TF's CPU Multinomial kernel draws them: per row an
    unnormalised float64 CDF of exp(logit - max) over the finite logits, searched with one
    uniform double (two uint32 samples) per draw, rows reading the stream one after another.
    (TF splits very large batches across threads, each restarting at its own offset.)"""
    batch, classes = logits.shape
    if batch * num_samples == 0:
        return np.zeros((batch, num_samples), dtype=np.int64)
    words = philox.blocks(key, counter, -(-2 * batch * num_samples // 4)).reshape(-1)[:2 * batch * num_samples]
    unit = philox.uint64_to_double(words[0::2], words[1::2]).reshape(batch, num_samples)
    finite = np.isfinite(logits)
    lowest = np.finfo(logits.dtype).min
    top = np.where(finite, logits, lowest).max(axis=1, keepdims=True).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        weights = np.where(finite, np.exp(logits.astype(np.float64) - top), 0.0)
    cdf = np.cumsum(weights, axis=1)
    targets = unit * cdf[:, -1:]
    return np.stack([np.searchsorted(cdf[b], targets[b], side="right") for b in range(batch)])


@export("random.stateless_categorical")
@dispatch.add_dispatch_support
def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """`num_samples` class indices per row of `logits` [batch, classes], fixed by `seed`."""
    v, n, dtype = categorical_args(logits, num_samples, dtype, STATELESS_MULTINOMIAL)
    key, counter = seed_key_counter(seed, STATELESS_MULTINOMIAL)
    return place(sample_categorical(key, counter, v, n), dtype)


# -- shuffles -----------------------------------------------------------------------------------

def permutation(key, counter, n):
    """TF's shuffle of range(n): Fisher-Yates from the front, swapping position i with
    i + (sample % (n - i)) for the i-th uint32 sample of the Philox stream."""
    perm = np.arange(n)
    if n <= 1:
        return perm
    samples = philox.blocks(key, counter, -(-(n - 1) // 4)).reshape(-1)[:n - 1].tolist()
    order = perm.tolist()
    for i, sample in enumerate(samples):
        j = i + sample % (n - i)
        order[i], order[j] = order[j], order[i]
    return np.array(order)


def shuffle_first_axis(x, perm):
    """`x` (a tensor) with its first axis reordered by the host permutation `perm`."""
    xp = backend.array_module(x._value)
    return Tensor(x._value[xp.asarray(perm)])


@export("random.experimental.stateless_shuffle")
def stateless_shuffle(value, seed, alg="auto_select", name=None):
    """`value` with its first dimension permuted as fixed by the [2] `seed` (TF's order)."""
    x = as_tensor(value)
    if x.shape.rank == 0:
        raise STATELESS_SHUFFLE.invalid("value must have at least one dimension; got a scalar")
    key, counter = seed_key_counter(seed, STATELESS_SHUFFLE, alg)
    return shuffle_first_axis(x, permutation(key, counter, int(x._value.shape[0])))


# -- binomial -----------------------------------------------------------------------------------

def binomial_args(shape, counts, probs, dtype, op):
    """The broadcast batch shape of counts and probs, checked as TF's binomial kernels check
    them: one float dtype for both, an allowed output dtype, and a shape ending with the batch
    shape."""
    if counts.dtype != probs.dtype:
        raise op.invalid(f"cannot compute {op.name} as input #1(zero-based) was expected to be a "
                         f"{counts.dtype.name} tensor but is a {probs.dtype.name} tensor; give counts and "
                         f"probs one float dtype")
    if counts.dtype.name not in ("float16", "float32", "float64"):
        raise errors.NotFoundError(None, None, f"Could not find device for node: {op.name}"
                                               f"[T={counts.dtype.name}]: counts and probs must be float16, "
                                               f"float32 or float64")
    check_kernel_dtype(dtype, op, ("float16", "float32", "float64", "int32", "int64"),
                       names="half, float, double, int32, int64")
    n, p = host(counts), host(probs)
    try:
        batch = np.broadcast_shapes(n.shape, p.shape)
    except ValueError:
        raise op.invalid(f"counts and probs must have compatible batch dimensions: {list(n.shape)} vs. "
                         f"{list(p.shape)}") from None
    if len(batch) > len(shape) or tuple(shape[len(shape) - len(batch):]) != tuple(batch):
        raise op.invalid(f"Shape passed in must end with broadcasted shape: shape {list(shape)}, counts/probs "
                         f"broadcast to {list(batch)}")
    return batch


def _hinted(x, hint):
    """`x` as a tensor, Python numbers taking the `hint` dtype (TF's dtype_hint)."""
    if isinstance(x, (Tensor, Variable, np.ndarray, np.generic)):
        return as_tensor(x)
    return as_tensor(x, dtype=hint)


@export("random.stateless_binomial")
@dispatch.add_dispatch_support
def stateless_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32, name=None):
    """Binomial draws of `shape` fixed by `seed`: `counts` trials with success probability
    `probs` (broadcasting against the rightmost dimensions of `shape`). TF's numbers."""
    probs = _hinted(probs, dtypes.float32)
    counts = _hinted(counts, probs.dtype)
    dtype = dtypes.as_dtype(output_dtype)
    shape = check_shape(shape, STATELESS_BINOMIAL)
    binomial_args(shape, counts, probs, dtype, STATELESS_BINOMIAL)
    key, counter = seed_key_counter(seed, STATELESS_BINOMIAL)
    return place(random_binomial.sample(key, counter, shape, host(counts), host(probs)), dtype)


# -- poisson ------------------------------------------------------------------------------------

def poisson_args(lam, dtype, op):
    """(rates as a float64 flat array, lam shape, output dtype), dtypes checked as TF's kernels."""
    lam = as_tensor(lam)
    dtype = dtypes.as_dtype(dtype)
    check_kernel_dtype(lam.dtype, op, POISSON_TYPES, attr="Rtype", names="half, float, double, int32, int64")
    check_kernel_dtype(dtype, op, POISSON_TYPES, names="half, float, double, int32, int64")
    rates = host(lam)
    return rates.astype(np.float64).reshape(-1), rates.shape, dtype


@export("random.stateless_poisson")
@dispatch.add_dispatch_support
def stateless_poisson(shape, seed, lam, dtype=dtypes.int32, name=None):
    """Poisson draws of `shape` fixed by `seed`, with rates `lam` matching the rightmost
    dimensions of `shape` (TF's numbers)."""
    shape = check_shape(shape, STATELESS_POISSON)
    rates, lam_shape, dtype = poisson_args(lam, dtype, STATELESS_POISSON)
    key, counter = seed_key_counter(seed, STATELESS_POISSON)
    if int(np.prod(shape)) == 0:
        return place(np.zeros(shape), dtype)
    if len(lam_shape) > len(shape) or tuple(shape[len(shape) - len(lam_shape):]) != tuple(lam_shape):
        raise STATELESS_POISSON.invalid(f"Shape passed in must end with broadcasted shape: shape {list(shape)}, "
                                        f"lam shape {list(lam_shape)}")
    samples = int(np.prod(shape)) // rates.size
    return place(random_poisson.sample(key, counter, samples, rates, dtype._np).reshape(shape), dtype)


# -- index_shuffle -------------------------------------------------------------------------------

_SHUFFLE_PAD = 498247692  # TF prepends this word to the [2] seed to make the cipher's 3-word key


def _rot(x, r, w, mask):
    return ((x << np.uint64(r)) | (x >> np.uint64(w - r))) & mask


def _simon_permute(index, keys, max_index, w):
    """Cycle-walk `index` through a 4-round, 2w-bit Simon cipher keyed by the [n, 3] `keys`
    until it lands in [0, max_index] (TF's random_index_shuffle)."""
    mask = np.uint64((1 << w) - 1)
    c = np.uint64(0xFFFFFFFC) & mask
    z0 = np.uint64(0x7369F885192C0EF5 & 1)
    rk = [keys[:, 0] & mask, keys[:, 1] & mask, keys[:, 2] & mask]
    rk.append(c ^ z0 ^ rk[0] ^ (((rk[2] >> np.uint64(3)) | (rk[2] << np.uint64(w - 3))) & mask)
              ^ (((rk[2] >> np.uint64(4)) | (rk[2] << np.uint64(w - 4))) & mask))

    def f(x):
        return (_rot(x, 1, w, mask) & _rot(x, 8, w, mask)) ^ _rot(x, 2, w, mask)

    out = index.copy()
    todo = np.ones(out.shape, dtype=bool)
    while todo.any():
        left, right = out[todo] >> np.uint64(w), out[todo] & mask
        for i in (0, 2):
            left = left ^ f(right) ^ rk[i][todo]
            right = right ^ f(left) ^ rk[i + 1][todo]
        out[todo] = (left << np.uint64(w)) | right
        todo = out > max_index
    return out


@export("random.experimental.index_shuffle")
@dispatch.add_dispatch_support
def index_shuffle(index, seed, max_index):
    """The position of `index` in a pseudorandom permutation of [0, max_index] fixed by the [2]
    `seed`; `index` and `max_index` are scalars or equal-length vectors (scalars broadcast)."""
    index_t, seed_t, max_t = as_tensor(index), as_tensor(seed), as_tensor(max_index)
    op = RANDOM_INDEX_SHUFFLE
    if index_t.dtype.name not in ("int32", "int64", "uint32", "uint64"):
        raise op.invalid(f"Value for attr 'dtype' of {index_t.dtype.name} is not in the list of allowed values: "
                         f"int32, int64, uint32, uint64")
    if seed_t.dtype.name not in ("int32", "int64", "uint32", "uint64"):
        raise op.invalid(f"Invalid seed type: {seed_t.dtype.name}; pass an integer seed pair")
    if max_t.dtype != index_t.dtype:
        raise op.invalid(f"max_index must have the dtype of index ({index_t.dtype.name}), got {max_t.dtype.name}")
    idx, seeds, top = host(index_t), host(seed_t), host(max_t)
    if seeds.ndim == 2:
        # TF pads the seed's first axis to make the cipher key, so a [n, 2] batch reaches the
        # kernel as [n + 1, 2] and is refused there.
        raise op.invalid(f"Seed must be a vector of size [3] or a matrix of size [{seeds.shape[0]}, 3] but got "
                         f"[{seeds.shape[0] + 1},{seeds.shape[1]}]; pass one [2] seed per call")
    if seeds.shape != (2,) or idx.ndim > 1 or top.ndim > 1:
        raise op.invalid(f"index and max_index must be scalars or vectors and seed a [2] vector; got shapes "
                         f"{list(idx.shape)}, {list(seeds.shape)}, {list(top.shape)}")
    seeds = seeds.reshape(-1, 2).astype(np.int64).astype(np.uint64) & np.uint64(0xFFFFFFFF)
    n = max(idx.size, top.size, seeds.shape[0])
    for what, size in (("index", idx.size), ("max_index", top.size), ("seed", seeds.shape[0])):
        if size not in (1, n):
            raise op.invalid(f"{what} has {size} entries but the batch has {n}; sizes must match or be 1")
    keys = np.concatenate([np.full((seeds.shape[0], 1), _SHUFFLE_PAD, dtype=np.uint64), seeds], axis=1)
    keys = np.broadcast_to(keys, (n, 3))
    i64 = np.broadcast_to(idx.reshape(-1).astype(np.uint64), (n,))
    m64 = np.broadcast_to(top.reshape(-1).astype(np.uint64), (n,))
    out = np.zeros(n, dtype=np.uint64)
    bits = np.array([int(np.ceil(np.log2(float(m)))) if m > 0 else 0 for m in m64])
    bits = np.maximum(bits + bits % 2, 16)
    for b in np.unique(bits):
        rows = (bits == b) & (m64 > 0)
        if rows.any():
            out[rows] = _simon_permute(i64[rows], keys[rows], m64[rows], int(b) // 2)
    result = out.astype(index_t.dtype._np)
    if idx.ndim == 0 and seed_t.shape.rank == 1 and top.ndim == 0:
        result = result.reshape(())
    return place(result, index_t.dtype)
