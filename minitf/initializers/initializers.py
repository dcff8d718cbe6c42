"""tf.keras.initializers: callables that produce a variable's starting value from a shape.

`init(shape, dtype=None)` returns a Tensor placed with `minitf.backend.default_module()`.
Random initializers seed as Keras 3 does, so they give TF's values: an int seed, or for an
initializer built without one a seed drawn then from Python's `random` (which
`keras.utils.set_random_seed` seeds), feeds TF's stateless random ops, so every call repeats
the same values; a `keras.random.SeedGenerator` seed gives new values on each call. The TF-core
spellings (`tf.random_normal_initializer`, ...) without a seed draw from minitf's global random
state (`tf.random`), as TF's do.
"""
import functools
import math

import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf._keras_objects import Registry
from minitf.backend import default_module
from minitf.convert import convert_to_tensor
from minitf.keras_ops import random as keras_random
from minitf.ops import random as random_ops
from minitf.ops import stateless_random
from minitf.recording import init_scope, tracing
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomNormal", "RandomUniform",
           "TruncatedNormal", "VarianceScaling", "GlorotUniform", "GlorotNormal", "HeNormal",
           "HeUniform", "LecunNormal", "LecunUniform", "Identity", "Orthogonal", "get",
           "serialize", "deserialize"]

# sqrt(scale) / this = the stddev of a normal truncated at 2 stddevs with variance `scale`
_TRUNCATION_CORRECTION = 0.87962566103423978


def _dtype(dtype, need_float=True, who="initializer"):
    """The DType to build; random initializers also take integer dtypes (they fail later, in
    the sampling op, as Keras' do) but refuse the rest (bool, complex, string)."""
    dtype = dtypes.as_dtype(dtype or "float32")
    if need_float and not (dtype.is_floating or dtype.is_integer):
        raise ValueError(f"{who}: expected a floating-point dtype, got {dtype.name}.")
    return dtype


def _no_int_normal(dtype, first, who):
    """Keras draws normal samples in the requested dtype: an integer one fails (TypeError) when
    TF converts the first float argument (`first`, e.g. the mean 0.0) to it."""
    if dtype.is_integer:
        raise TypeError(f"Cannot convert {float(first)!r} to EagerTensor of dtype {dtype.name} "
                        f"({who} samples floats; pass a floating-point dtype such as 'float32').")


def _int_uniform(seed, shape, minval, maxval, dtype, who):
    """Keras' uniform in an integer dtype: the bounds cast (truncated) to it, integers drawn
    in [minval, maxval); equal bounds fail for a non-empty shape, as TF's op does."""
    lo, hi = int(minval), int(maxval)
    if int(np.prod(shape)) == 0:
        return _place(np.zeros(shape), dtype)
    if lo >= hi:
        raise errors.invalid_argument(
            "StatelessRandomUniformIntV2",
            f"Need minval < maxval, got {lo} >= {hi} ({who}: the bounds {minval}, {maxval} "
            f"truncate to {dtype.name}; use a floating-point dtype)")
    if seed is None:
        return random_ops.uniform(shape, minval=lo, maxval=hi, dtype=dtype)
    return stateless_random.stateless_uniform(list(shape), seed=keras_random.tf_draw_seed(seed), minval=lo,
                                              maxval=hi, dtype=dtype)


def _shape(shape):
    return tuple(int(d) for d in TensorShape(shape).as_list())


def _place(host_array, dtype):
    """A Tensor holding `host_array` (numpy) as `dtype`, on the default device module."""
    xp = default_module()
    return Tensor(xp.asarray(np.asarray(host_array, dtype=dtype._np)))


def compute_fans(shape, input_axes=None, output_axes=None):
    """(fan_in, fan_out) as Keras computes them; conv kernels multiply by the receptive field.

    With both `input_axes` and `output_axes` given, the fans are the products of those axes.
    """
    shape = _shape(shape)
    if input_axes is not None and output_axes is not None:
        return (int(np.prod([shape[a] for a in input_axes])),
                int(np.prod([shape[a] for a in output_axes])))
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


def _outside_graphs(call):
    """An initializer's `__call__` that runs eagerly even inside a traced function: initial values
    are computed once, outside the graph, as Keras initializes variables under tf.init_scope."""
    @functools.wraps(call)
    def run(self, shape, dtype=None, **kwargs):
        if not tracing[0]:
            return call(self, shape, dtype=dtype, **kwargs)
        with init_scope():
            return call(self, shape, dtype=dtype, **kwargs)
    run._outside_graphs = True
    return run


@export("initializers.Initializer", "keras.initializers.Initializer")
class Initializer:
    """Base class: subclasses implement `__call__(shape, dtype=None)` and `get_config()`."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        call = cls.__dict__.get("__call__")
        if call is not None and not getattr(call, "_outside_graphs", False):
            cls.__call__ = _outside_graphs(call)

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(shape, dtype=None).")

    def get_config(self):
        """The constructor arguments as a dict (empty for argument-free initializers)."""
        return {}

    @classmethod
    def from_config(cls, config):
        """A new initializer from the dict `get_config` produced."""
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


class _Random(Initializer):
    """Keras 3's seeding (see the module docstring). `seed` may be an int, a
    `keras.random.SeedGenerator` or None; `get_config` gives back what was passed."""

    _seed_when_none = True  # draw a seed from Python's `random` when built without one

    def __init__(self, seed=None):
        if seed is not None and not isinstance(seed, keras_random.SeedGenerator) and (
                not isinstance(seed, (int, np.integer)) or isinstance(seed, bool)):
            raise ValueError(f"{type(self).__name__}: `seed` argument should be an instance of "
                             f"`keras.random.SeedGenerator()` or an integer. Received: seed={seed!r}")
        self._init_seed = int(seed) if isinstance(seed, (int, np.integer)) else seed
        if seed is None and self._seed_when_none:
            seed = keras_random.make_default_seed()
        self.seed = int(seed) if isinstance(seed, (int, np.integer)) else seed

    def _normal(self, shape, mean, stddev, dtype):
        _no_int_normal(dtype, mean, type(self).__name__)
        if self.seed is None:
            return random_ops.normal(shape, mean=mean, stddev=stddev, dtype=dtype)
        return keras_random.normal(shape, mean=mean, stddev=stddev, dtype=dtype.name, seed=self.seed)

    def _uniform(self, shape, minval, maxval, dtype):
        if dtype.is_integer:
            return _int_uniform(self.seed, shape, minval, maxval, dtype, type(self).__name__)
        if self.seed is None:
            return random_ops.uniform(shape, minval=minval, maxval=maxval, dtype=dtype)
        return keras_random.uniform(shape, minval=minval, maxval=maxval, dtype=dtype.name, seed=self.seed)

    def _truncated(self, shape, mean, stddev, dtype):
        _no_int_normal(dtype, mean, type(self).__name__)
        if self.seed is None:
            return random_ops.truncated_normal(shape, mean=mean, stddev=stddev, dtype=dtype)
        return keras_random.truncated_normal(shape, mean=mean, stddev=stddev, dtype=dtype.name, seed=self.seed)

    def get_config(self):
        return {"seed": self._init_seed}


@export("initializers.Zeros", "initializers.zeros", "keras.initializers.Zeros",
        "keras.initializers.zeros")
class Zeros(Initializer):
    """All zeros."""

    def __call__(self, shape, dtype=None, **kwargs):
        dtype = _dtype(dtype, need_float=False)
        return _place(np.zeros(_shape(shape)), dtype)


@export("initializers.Ones", "initializers.ones", "keras.initializers.Ones",
        "keras.initializers.ones")
class Ones(Initializer):
    """All ones."""

    def __call__(self, shape, dtype=None, **kwargs):
        dtype = _dtype(dtype, need_float=False)
        return _place(np.ones(_shape(shape)), dtype)


@export("initializers.Constant", "initializers.constant", "keras.initializers.Constant",
        "keras.initializers.constant")
class Constant(Initializer):
    """`value` (cast to the dtype) times ones of `shape`, broadcasting as Keras does: an array
    value repeats along the shape's leading axes, and shape () gives the value's own shape."""

    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype=None, **kwargs):
        dtype = _dtype(dtype, need_float=False)
        value = np.asarray(self.value.numpy() if hasattr(self.value, "numpy") else self.value)
        value = value.astype(dtype._np)  # cast first: Constant(2.5) in int32 is 2
        shape = _shape(shape)
        try:
            out_shape = np.broadcast_shapes(value.shape, shape)
        except ValueError:
            raise errors.invalid_argument(
                "Mul", f"Incompatible shapes: {list(value.shape)} vs. {list(shape)} (Constant "
                "initializer: the value must broadcast against the variable's shape)") from None
        return _place(np.broadcast_to(value, out_shape), dtype)

    def get_config(self):
        value = self.value
        if isinstance(value, np.ndarray):
            value = value.tolist()
        return {"value": value}


@export("initializers.RandomNormal", "initializers.random_normal",
        "keras.initializers.RandomNormal", "keras.initializers.random_normal")
class RandomNormal(_Random):
    """Samples from a normal distribution N(mean, stddev^2)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=None, **kwargs):
        return self._normal(_shape(shape), self.mean, self.stddev, _dtype(dtype, who="RandomNormal"))

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self._init_seed}


@export("initializers.RandomUniform", "initializers.random_uniform",
        "keras.initializers.RandomUniform", "keras.initializers.random_uniform")
class RandomUniform(_Random):
    """Samples uniformly from [minval, maxval)."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape, dtype=None, **kwargs):
        return self._uniform(_shape(shape), self.minval, self.maxval, _dtype(dtype, who="RandomUniform"))

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self._init_seed}


@export("initializers.TruncatedNormal", "initializers.truncated_normal",
        "keras.initializers.TruncatedNormal", "keras.initializers.truncated_normal")
class TruncatedNormal(_Random):
    """Normal samples, redrawn when more than two standard deviations from the mean."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=None, **kwargs):
        return self._truncated(_shape(shape), self.mean, self.stddev, _dtype(dtype, who="TruncatedNormal"))

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self._init_seed}


@export("initializers.VarianceScaling", "initializers.variance_scaling",
        "keras.initializers.VarianceScaling", "keras.initializers.variance_scaling")
class VarianceScaling(_Random):
    """Samples whose variance is `scale / n`, n being fan_in, fan_out or their average (`mode`).

    distribution: 'truncated_normal' (stddev corrected for the truncation), 'untruncated_normal'
    or 'uniform' (limit sqrt(3 * scale / n)).
    """

    _MODES = ("fan_in", "fan_out", "fan_avg")
    _DISTRIBUTIONS = ("normal", "truncated_normal", "untruncated_normal", "uniform")

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 input_axes=None, output_axes=None):
        super().__init__(seed)
        self.input_axes, self.output_axes = input_axes, output_axes
        if scale <= 0.0:
            raise ValueError(f"VarianceScaling: scale must be positive, got {scale}.")
        mode = mode.lower() if isinstance(mode, str) else mode
        distribution = distribution.lower() if isinstance(distribution, str) else distribution
        if mode not in self._MODES:
            raise ValueError(f"VarianceScaling: invalid mode {mode!r}; use one of {self._MODES}.")
        if distribution not in self._DISTRIBUTIONS:
            raise ValueError(f"VarianceScaling: invalid distribution {distribution!r}; use one of "
                             f"{self._DISTRIBUTIONS}.")
        if distribution == "normal":  # the old name of truncated_normal
            distribution = "truncated_normal"
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def __call__(self, shape, dtype=None, **kwargs):
        shape = _shape(shape)
        dtype = _dtype(dtype, who=type(self).__name__)
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "truncated_normal":
            return self._truncated(shape, 0.0, math.sqrt(scale) / _TRUNCATION_CORRECTION, dtype)
        if self.distribution == "untruncated_normal":
            return self._normal(shape, 0.0, math.sqrt(scale), dtype)
        limit = math.sqrt(3.0 * scale)
        return self._uniform(shape, -limit, limit, dtype)

    def get_config(self):
        return {"seed": self._init_seed, "scale": self.scale, "mode": self.mode,
                "distribution": self.distribution, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class _FixedVarianceScaling(VarianceScaling):
    """A VarianceScaling with fixed scale/mode/distribution: only `seed` and the fan axes
    are configurable."""
    _ARGS = (1.0, "fan_in", "truncated_normal")

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(*self._ARGS, seed=seed, input_axes=input_axes, output_axes=output_axes)

    def get_config(self):
        return {"seed": self._init_seed, "input_axes": self.input_axes, "output_axes": self.output_axes}


@export("initializers.GlorotUniform", "initializers.glorot_uniform",
        "keras.initializers.GlorotUniform", "keras.initializers.glorot_uniform")
class GlorotUniform(_FixedVarianceScaling):
    """Uniform in +-sqrt(6 / (fan_in + fan_out)) (Xavier uniform)."""
    _ARGS = (1.0, "fan_avg", "uniform")


@export("initializers.GlorotNormal", "initializers.glorot_normal",
        "keras.initializers.GlorotNormal", "keras.initializers.glorot_normal")
class GlorotNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out)) (Xavier normal)."""
    _ARGS = (1.0, "fan_avg", "truncated_normal")


@export("initializers.HeNormal", "initializers.he_normal", "keras.initializers.HeNormal",
        "keras.initializers.he_normal")
class HeNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(2 / fan_in)."""
    _ARGS = (2.0, "fan_in", "truncated_normal")


@export("initializers.HeUniform", "initializers.he_uniform", "keras.initializers.HeUniform",
        "keras.initializers.he_uniform")
class HeUniform(_FixedVarianceScaling):
    """Uniform in +-sqrt(6 / fan_in)."""
    _ARGS = (2.0, "fan_in", "uniform")


@export("initializers.LecunNormal", "initializers.lecun_normal", "keras.initializers.LecunNormal",
        "keras.initializers.lecun_normal")
class LecunNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(1 / fan_in)."""
    _ARGS = (1.0, "fan_in", "truncated_normal")


@export("initializers.LecunUniform", "initializers.lecun_uniform",
        "keras.initializers.LecunUniform", "keras.initializers.lecun_uniform")
class LecunUniform(_FixedVarianceScaling):
    """Uniform in +-sqrt(3 / fan_in)."""
    _ARGS = (1.0, "fan_in", "uniform")


@export("initializers.Identity", "initializers.identity", "keras.initializers.Identity",
        "keras.initializers.identity")
class Identity(Initializer):
    """`gain` times the identity matrix (2-D shapes only; non-square ones get a partial eye)."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None, **kwargs):
        shape = _shape(shape)
        if len(shape) != 2:
            raise ValueError(f"Identity initializer can only be used for 2D matrices, got shape {list(shape)}.")
        dtype = _dtype(dtype, who="Identity")
        _no_int_normal(dtype, 1.0, "Identity")  # Keras builds eye() in float, then casts
        return _place(self.gain * np.eye(*shape), dtype)

    def get_config(self):
        return {"gain": self.gain}


@export("initializers.Orthogonal", "initializers.orthogonal", "keras.initializers.Orthogonal",
        "keras.initializers.orthogonal")
class Orthogonal(_Random):
    """A (semi-)orthogonal matrix times `gain`, from the QR decomposition of a normal matrix.

    Shapes of rank > 2 are treated as (prod(shape[:-1]), shape[-1]) and reshaped back.
    """

    def __init__(self, gain=1.0, seed=None):
        super().__init__(seed)
        self.gain = gain

    def __call__(self, shape, dtype=None, **kwargs):
        shape = _shape(shape)
        if len(shape) < 2:
            raise ValueError(f"Orthogonal initializer needs a shape of rank >= 2, got {list(shape)}.")
        dtype = _dtype(dtype, who="Orthogonal")
        _no_int_normal(dtype, 0.0, "Orthogonal")
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        a = np.asarray(self._normal(flat, 0.0, 1.0, dtype).numpy(), dtype=np.float64)
        q, r = np.linalg.qr(a)  # in float64: the same matrix as TF's float32 QR to rounding
        q = q * np.sign(np.diag(r))  # makes the result uniformly distributed
        if rows < cols:
            q = q.T
        return _place(self.gain * q.reshape(shape), dtype)

    def get_config(self):
        return {"gain": self.gain, "seed": self._init_seed}


# -- TF-core spellings (tf.random_normal_initializer, ...) -------------------------------------

@export("random_normal_initializer")
class random_normal_initializer(RandomNormal):  # noqa: N801 (TF's name)
    """tf.random_normal_initializer: RandomNormal(mean=0.0, stddev=0.05, seed=None)."""

    _seed_when_none = False  # TF core: unseeded draws come from the global random state


@export("random_uniform_initializer")
class random_uniform_initializer(RandomUniform):  # noqa: N801
    """tf.random_uniform_initializer: RandomUniform(minval=-0.05, maxval=0.05, seed=None)."""

    _seed_when_none = False


@export("zeros_initializer")
class zeros_initializer(Zeros):  # noqa: N801
    """tf.zeros_initializer: all zeros."""


@export("ones_initializer")
class ones_initializer(Ones):  # noqa: N801
    """tf.ones_initializer: all ones."""


@export("constant_initializer")
class constant_initializer(Constant):  # noqa: N801
    """tf.constant_initializer: every element equal to `value`.

    Unlike Keras' `Constant` (float32 by default), it takes its default dtype from `value` as
    `tf.constant` would: `tf.constant_initializer(3)([2])` is int32.
    """

    def __call__(self, shape, dtype=None, **kwargs):
        if dtype is None:
            dtype = convert_to_tensor(self.value).dtype
        return super().__call__(shape, dtype, **kwargs)


class glorot_uniform_initializer(GlorotUniform):  # noqa: N801
    """tf.glorot_uniform_initializer (TF1 spelling kept for old code): GlorotUniform."""


TF_ALIASES = ["random_normal_initializer", "random_uniform_initializer", "zeros_initializer",
              "ones_initializer", "constant_initializer", "glorot_uniform_initializer"]

# snake_case names Keras accepts as identifiers (they are the classes themselves)
zeros = Zeros
ones = Ones
constant = Constant
random_normal = RandomNormal
random_uniform = RandomUniform
truncated_normal = TruncatedNormal
variance_scaling = VarianceScaling
glorot_uniform = GlorotUniform
glorot_normal = GlorotNormal
he_normal = HeNormal
he_uniform = HeUniform
lecun_normal = LecunNormal
lecun_uniform = LecunUniform
identity = Identity
orthogonal = Orthogonal

INITIALIZERS = Registry("initializer", "keras.initializers")
for _name, _cls in {
        "zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
        "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal,
        "variance_scaling": VarianceScaling, "glorot_uniform": GlorotUniform,
        "glorot_normal": GlorotNormal, "he_normal": HeNormal, "he_uniform": HeUniform,
        "lecun_normal": LecunNormal, "lecun_uniform": LecunUniform, "identity": Identity,
        "orthogonal": Orthogonal}.items():
    INITIALIZERS.register(_cls, aliases=(_name,))
INITIALIZERS.alias("uniform", RandomUniform)  # Keras' short names (Embedding's default)
INITIALIZERS.alias("normal", RandomNormal)
for _name in TF_ALIASES:  # found by name, but serialized under their own module
    INITIALIZERS.register(globals()[_name], builtin=False)
# tf.keras.initializers lists the lower-case Keras names; the TF-1 style aliases and the short
# "normal"/"uniform" stay reachable (get, deserialize, attribute access) but are not exported
__all__ += sorted(k for k in INITIALIZERS.names()
                  if k.islower() and k not in TF_ALIASES and k not in ("normal", "uniform"))


@export("initializers.serialize", "keras.initializers.serialize")
def serialize(initializer):
    """The config form of an initializer, as Keras 3 writes it.

    Args:
        initializer: an initializer object.

    Returns:
        `{'module', 'class_name', 'config', 'registered_name'}`: a built-in Keras initializer
        names the public module 'keras.initializers' and no registered name; any other class
        its own module (None for `__main__`) and its class name.
    """
    return INITIALIZERS.serialize(initializer)


@export("initializers.deserialize", "keras.initializers.deserialize")
def deserialize(config, custom_objects=None):
    """A new initializer from a name or a dict made by `serialize`.

    Args:
        config: a name ('glorot_uniform', 'GlorotUniform') or a serialized dict.
        custom_objects: optional `{name: class}` searched before the built-ins.

    Returns:
        The initializer object.

    Raises:
        ValueError: when the name or class name is unknown.
    """
    return INITIALIZERS.deserialize(config, custom_objects)


@export("initializers.get", "keras.initializers.get")
def get(identifier):
    """An initializer from an identifier, as `tf.keras.initializers.get`.

    Args:
        identifier: None (returned as None), a name ('glorot_uniform'), a config dict, a
            class (instantiated with its defaults) or a callable (returned as it is).

    Returns:
        The initializer, or None.

    Raises:
        ValueError: when the identifier cannot be interpreted.
    """
    return INITIALIZERS.get(identifier)
