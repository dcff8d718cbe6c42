"""Numeric preprocessing layers: Normalization, CategoryEncoding, Hashing and Discretization.

Normalization keeps Keras 3's weight layout (non-trainable `mean`, `variance`, `count`, in that
order) so its adapted statistics move through `.weights.h5` and `.keras` files both ways.
"""
import math

import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors.errors import InvalidArgumentError
from minitf.keras_core import config as keras_config
from minitf.layers.preprocessing import utils as preprocessing_utils
from minitf.layers.base import Layer
from minitf.ops import math as math_ops
from minitf.ops import shaping
from minitf.ops.constant import cast, convert_to_tensor
from minitf.ops.string_hash import to_hash_bucket_fast
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Normalization", "CategoryEncoding", "Hashing", "Discretization"]


@export("layers.Normalization", "keras.layers.Normalization")
class Normalization(Layer):
    """Shifts and scales inputs to zero mean and unit variance: (x - mean) / sqrt(variance).

    The statistics come either from the `mean` and `variance` arguments or from `adapt(data)`,
    which computes them over every axis except those in `axis` (datasets and lists of batches
    are accumulated batch by batch with the same update formula Keras uses). `invert=True`
    maps normalized values back: mean + x * sqrt(variance). The denominator is never below
    `keras.backend.epsilon()`.

    Args:
        axis: the axis (or axes) that keep their own statistics; default -1 (features);
            None for one scalar mean and variance.
        mean, variance: fixed statistics (both or neither), broadcast to the kept axes.
        invert: apply the inverse transformation.
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        else:
            axis = tuple(axis)
        self.axis = axis
        self.input_mean = mean
        self.input_variance = variance
        self.invert = invert
        if (mean is not None) != (variance is not None):
            raise ValueError(f"Normalization {self.name!r}: when setting values directly, both `mean` and "
                             f"`variance` must be set. Received: mean={mean} and variance={variance}")
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError(f"Normalization {self.name!r}: when setting values directly, `mean` and "
                                 f"`variance` must have the same shape. Received: mean shape "
                                 f"{np.shape(mean)} and variance shape {np.shape(variance)}")
            if len(np.shape(mean)) > len(self.axis):
                raise ValueError(f"Normalization {self.name!r}: the rank of `mean` must be less than or "
                                 f"equal to the number of axes ({len(self.axis)}). Received: mean shape "
                                 f"{np.shape(mean)} for axis {self.axis}")

    def build(self, input_shape):
        if input_shape is None:
            return
        shape = TensorShape(input_shape).as_list()
        ndim = len(shape)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(f"Normalization {self.name!r}: all `axis` values must be in the range "
                             f"[-ndim, ndim). Received inputs with ndim={ndim}, while axis={self.axis}")
        self._keep_axis = tuple(sorted(d % ndim for d in self.axis))
        for d in self._keep_axis:
            if shape[d] is None:
                raise ValueError(f"Normalization {self.name!r}: all `axis` values to be kept must have a "
                                 f"known shape. Received axis={self.axis}, inputs.shape={tuple(shape)}, "
                                 f"with unknown axis at index {d}")
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = [shape[d] if d in self._keep_axis else 1 for d in range(ndim)]
        self._mean_and_var_shape = tuple(shape[d] for d in self._keep_axis)
        self._build_input_shape = tuple(shape)
        if self.input_mean is None:
            # Keras' order and names: the weight files depend on them
            self.adapt_mean = self.add_weight("mean", shape=self._mean_and_var_shape, initializer="zeros",
                                              trainable=False)
            self.adapt_variance = self.add_weight("variance", shape=self._mean_and_var_shape,
                                                  initializer="ones", trainable=False)
            self.count = self.add_weight("count", shape=(), dtype="int64", initializer="zeros", trainable=False)
            self._fixed = None
        else:
            self._fixed = (self._expand(self.input_mean, ndim), self._expand(self.input_variance, ndim))
        self.built = True

    def _expand(self, value, ndim):
        value = np.asarray(value, dtype=np.float64)
        if value.ndim:
            expanded = [1] * ndim
            for i in range(1, value.ndim + 1):
                expanded[self._keep_axis[-i]] = value.shape[-i]
            value = value.reshape(expanded)
        return np.broadcast_to(value, self._broadcast_shape)

    @property
    def mean(self):
        """The mean subtracted from the inputs, in the inputs' broadcast shape (None before the
        layer is built). Keras keeps a copy made when `adapt` ends; this one follows the weights."""
        return self._statistics()[0] if self.built and hasattr(self, "_fixed") else None

    @property
    def variance(self):
        """The variance the inputs are scaled by, in the inputs' broadcast shape (None before build)."""
        return self._statistics()[1] if self.built and hasattr(self, "_fixed") else None

    def _statistics(self):
        dtype = self.dtype
        if self._fixed is not None:
            return (convert_to_tensor(self._fixed[0].astype(dtype)),
                    convert_to_tensor(self._fixed[1].astype(dtype)))
        mean = shaping.reshape(cast(self.adapt_mean, dtype), self._broadcast_shape)
        variance = shaping.reshape(cast(self.adapt_variance, dtype), self._broadcast_shape)
        return mean, variance

    @dispatch.add_dispatch_support  # works on raw arrays: one graph node when traced
    def call(self, inputs):
        if not self.built or not hasattr(self, "_fixed"):
            raise ValueError(f"Normalization {self.name!r}: you must call `.build(input_shape)` on the "
                             f"layer before using it.")
        x = cast(inputs, self.dtype)
        mean, variance = self._statistics()
        scale = math_ops.maximum(math_ops.sqrt(variance), cast(keras_config.epsilon(), self.dtype))
        if self.invert:
            return mean + x * scale
        return (x - mean) / scale

    def _build_for_adapt(self, data):
        """What `adapt` does while a tf.function is traced: build (the variables are made on the
        first trace); the statistics are computed each time the graph runs."""
        if not self.built:
            self.build(data.shape)

    @preprocessing_utils.adapts_when_run(abstract=_build_for_adapt)
    def adapt(self, data):
        """Compute the mean and variance of `data` (an array, tensor, tf.data.Dataset of batches
        or an iterable of batches) over the non-kept axes and store them in the layer's weights.

        A dataset whose elements are single samples (rank-1 element spec) is batched by 128 first,
        as Keras does. (features, labels) tuples contribute their features. Inside a tf.function
        it is a node of the graph that adapts on every run, as in Keras.
        """
        batches, first_shape = preprocessing_utils.adapt_batches(data, self.name, batch_rank1=True)
        if not self.built:
            self.build(first_shape)
        elif self._fixed is not None:
            raise ValueError(f"Normalization {self.name!r} was given `mean` and `variance`; it cannot be adapted.")
        else:
            for d in self._keep_axis:
                if first_shape[d] != self._build_input_shape[d]:
                    raise ValueError(f"Normalization {self.name!r}: the layer was built with "
                                     f"input_shape={self._build_input_shape}, but adapt() is being called "
                                     f"with data with an incompatible shape, data.shape={first_shape}")
        total_mean = np.zeros(self._mean_and_var_shape)
        total_var = np.zeros(self._mean_and_var_shape)
        total_count = 0
        for batch in batches:
            batch = np.asarray(batch, dtype=np.float64)
            for d in self._keep_axis:
                if batch.shape[d] != self._build_input_shape[d]:
                    raise ValueError(f"Normalization {self.name!r}: adapt() yielded a batch with incompatible "
                                     f"shape. Expected {self._build_input_shape}, got {batch.shape}.")
            batch_mean = batch.mean(axis=self._reduce_axis)
            batch_var = batch.var(axis=self._reduce_axis)
            batch_count = math.prod(batch.shape[d] for d in self._reduce_axis) if self._reduce_axis else 1
            if batch_count == 0:
                continue
            # Keras' running update: each batch weighs by its share of the samples seen so far
            total_count += batch_count
            batch_weight = batch_count / total_count
            existing_weight = 1.0 - batch_weight
            new_mean = total_mean * existing_weight + batch_mean * batch_weight
            total_var = ((total_var + (total_mean - new_mean) ** 2) * existing_weight
                         + (batch_var + (batch_mean - new_mean) ** 2) * batch_weight)
            total_mean = new_mean
        self.adapt_mean.assign(total_mean.astype(self.adapt_mean.dtype.as_numpy_dtype))
        self.adapt_variance.assign(total_var.astype(self.adapt_variance.dtype.as_numpy_dtype))

    def finalize_state(self):
        """Nothing to do: minitf reads the statistics from the weights at every call."""

    def compute_output_shape(self, input_shape):
        """Same as the input shape."""
        return TensorShape(input_shape)

    def get_config(self):
        """axis, invert, mean and variance (None unless given to the constructor)."""
        config = super().get_config()
        config.update({"axis": self.axis, "invert": self.invert,
                       "mean": np.array(self.input_mean).tolist(),
                       "variance": np.array(self.input_variance).tolist()})
        return config


_ENCODE_MODES = ("one_hot", "multi_hot", "count")


def encode_categorical(ids, output_mode, depth, count_weights=None, dtype="float32"):
    """Keras' categorical encoding of integer ids (numpy), into `depth` bins.

    'one_hot' adds a last axis (a trailing axis of size 1 is replaced); 'multi_hot' and 'count'
    reduce the last axis of the ids into bins (a scalar or a vector is one sample). Ids outside
    [0, depth) count nowhere.
    """
    ids = np.asarray(ids)
    if output_mode == "one_hot":
        if ids.ndim == 0:
            ids = ids.reshape(1)
        if ids.ndim > 1 and ids.shape[-1] == 1:
            ids = ids[..., 0]
        valid = (ids >= 0) & (ids < depth)
        out = (np.arange(depth) == np.where(valid, ids, -1)[..., None])
        return out.astype(dtype)
    if ids.ndim == 0:
        ids = ids[None]
    flat = ids.reshape(int(np.prod(ids.shape[:-1])), ids.shape[-1])
    weights = None if count_weights is None else np.asarray(count_weights).reshape(flat.shape)
    out = np.zeros((flat.shape[0], depth), dtype=np.float64)
    rows = np.repeat(np.arange(flat.shape[0]), flat.shape[1])
    cols = flat.reshape(-1)
    keep = (cols >= 0) & (cols < depth)
    vals = np.ones(cols.shape) if weights is None else weights.reshape(-1).astype(np.float64)
    np.add.at(out, (rows[keep], cols[keep]), vals[keep])
    if output_mode == "multi_hot":
        out = (out > 0).astype(np.float64)
    out = out.reshape(ids.shape[:-1] + (depth,))
    if count_weights is not None and output_mode == "count":
        dtype = np.asarray(count_weights).dtype
    return out.astype(dtype)


@export("layers.CategoryEncoding", "keras.layers.CategoryEncoding")
class CategoryEncoding(Layer):
    """Encodes integer category ids as one-hot, multi-hot or count vectors of length `num_tokens`.

    Args:
        num_tokens: the number of categories; ids must lie in [0, num_tokens).
        output_mode: 'multi_hot' (default), 'one_hot' or 'count'.
        sparse: must be False in minitf (dense outputs only).

    Call arguments:
        inputs: integer ids, a scalar, [n] or [batch, n].
        count_weights: weights of the same shape as `inputs`, summed per bin in 'count' mode.
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in _ENCODE_MODES:
            raise ValueError(f"CategoryEncoding {self.name!r}: unknown arg for output_mode: {output_mode}. "
                             f"Allowed values are: {list(_ENCODE_MODES)}")
        if num_tokens is None:
            raise ValueError(f"CategoryEncoding {self.name!r}: num_tokens must be set to use this layer. "
                             f"If the number of tokens is not known beforehand, use the IntegerLookup layer "
                             f"instead.")
        if num_tokens < 1:
            raise ValueError(f"CategoryEncoding {self.name!r}: `num_tokens` must be >= 1. "
                             f"Received: num_tokens={num_tokens}.")
        preprocessing_utils.refuse_sparse(sparse, self)
        self.num_tokens = num_tokens
        self.output_mode = output_mode
        self.sparse = sparse

    @dispatch.add_dispatch_support  # works on raw arrays: one graph node when traced
    def call(self, inputs, count_weights=None):
        ids = preprocessing_utils.numpy_of(inputs)
        if ids.size and (ids.min() < 0 or ids.max() >= self.num_tokens):
            raise InvalidArgumentError(None, None, f"CategoryEncoding {self.name!r}: input values must be in "
                                       f"the range 0 <= values < num_tokens with num_tokens={self.num_tokens}; "
                                       f"got values in [{ids.min()}, {ids.max()}]")
        weights = None if count_weights is None else preprocessing_utils.numpy_of(count_weights)
        out = encode_categorical(ids, self.output_mode, self.num_tokens, weights, self.dtype)
        return convert_to_tensor(out)

    def compute_output_shape(self, input_shape):
        """One bin axis: appended ('one_hot') or replacing the last axis."""
        return preprocessing_utils.encoded_shape(input_shape, self.output_mode, self.num_tokens)

    def get_config(self):
        """num_tokens and output_mode (Keras writes no `sparse`)."""
        config = super().get_config()
        config.update({"num_tokens": self.num_tokens, "output_mode": self.output_mode})
        return config


@export("layers.Hashing", "keras.layers.Hashing")
class Hashing(Layer):
    """Hashes values (strings or integers) into `num_bins` buckets with TF's Fingerprint64.

    Integers are hashed through their decimal text, as Keras does. With `mask_value`, that value
    maps to bin 0 and the others to [1, num_bins). A `salt` (Keras' SipHash variant) is refused:
    minitf has no keyed hash.

    Args:
        num_bins: the number of buckets (including the mask bin, if any).
        mask_value: a value that maps to 0.
        salt: must be None in minitf.
        output_mode: 'int' (default), 'one_hot', 'multi_hot' or 'count'.
        sparse: must be False in minitf.
    """

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False, **kwargs):
        kwargs.setdefault("dtype", "float32" if output_mode != "int" else "int64")
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError(f"Hashing {self.name!r}: the `num_bins` for `Hashing` cannot be `None` or "
                             f"non-positive values. Received: num_bins={num_bins}.")
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("int",) + _ENCODE_MODES:
            raise ValueError(f"Hashing {self.name!r}: unknown output_mode {output_mode!r}; use one of "
                             f"{['int', *_ENCODE_MODES]}")
        if salt is not None:
            raise NotImplementedError(f"Hashing {self.name!r}: a `salt` needs TF's keyed SipHash, which minitf "
                                      f"does not implement; leave salt=None.")
        preprocessing_utils.refuse_sparse(sparse, self)
        self.num_bins = num_bins
        self.mask_value = mask_value
        self.salt = salt
        self.output_mode = output_mode
        self.sparse = sparse

    @dispatch.add_dispatch_support  # works on raw arrays: one graph node when traced
    def call(self, inputs):
        values = preprocessing_utils.numpy_of(inputs)
        if values.dtype.kind == "f":
            values = values.astype(np.int64)  # Keras hashes floats by their integer part
        text_mask = isinstance(self.mask_value, (str, bytes))
        if self.mask_value is not None and self.num_bins > 1 and text_mask != (values.dtype == object):
            raise TypeError(f"Hashing {self.name!r}: mask_value={self.mask_value!r} cannot be compared with "
                            f"{values.dtype} inputs; use a mask value of the inputs' type.")
        if values.dtype.kind in "iub":
            text = np.vectorize(lambda v: str(int(v)).encode(), otypes=[object])(values) if values.size else \
                values.astype(object)
        else:
            text = values
        if self.mask_value is not None and self.num_bins > 1:
            hashed = to_hash_bucket_fast(convert_to_tensor(text, dtypes.string), self.num_bins - 1).numpy() + 1
            mask = values == (self.mask_value.encode() if isinstance(self.mask_value, str) and
                              values.dtype.kind not in "iu" else self.mask_value)
            hashed = np.where(mask, 0, hashed)
        else:
            hashed = to_hash_bucket_fast(convert_to_tensor(text, dtypes.string), self.num_bins).numpy()
        if self.output_mode == "int":
            return convert_to_tensor(hashed.astype(np.int64))
        return convert_to_tensor(encode_categorical(hashed, self.output_mode, self.num_bins, dtype=self.dtype))

    def compute_output_shape(self, input_shape):
        """The input shape ('int') or the encoded shape."""
        return preprocessing_utils.encoded_shape(input_shape, self.output_mode, self.num_bins)

    def get_config(self):
        """num_bins, salt, mask_value, output_mode and sparse."""
        config = super().get_config()
        config.update({"num_bins": self.num_bins, "salt": self.salt, "mask_value": self.mask_value,
                       "output_mode": self.output_mode, "sparse": self.sparse})
        return config


def _summarize(values, epsilon):
    """Sorted values thinned to about 1/epsilon points, each weighted by the count it stands for."""
    values = np.sort(np.asarray(values, dtype=np.float32).reshape(-1))
    step = max(values.size * epsilon, 1)
    points = values[int(step - 1)::int(step)]
    return np.stack([points, np.full(points.shape, step, dtype=points.dtype)])


def _compress(summary, epsilon):
    """A summary re-cut into 1/epsilon equal-weight bins by interpolating its cumulative weights."""
    if summary.shape[1] * epsilon < 1:
        return summary
    targets = epsilon + np.arange(0.0, 1.0, epsilon)
    cumulative = summary[1].cumsum()
    share = cumulative / cumulative[-1]
    bins = np.interp(targets, share, summary[0])
    cumulative = np.interp(targets, share, cumulative)
    weights = cumulative - np.concatenate([[0.0], cumulative[:-1]])
    return np.stack([bins, weights]).astype(np.float32)


@export("layers.Discretization", "keras.layers.Discretization")
class Discretization(Layer):
    """Buckets continuous values by `bin_boundaries` (index i for boundaries[i-1] <= x < boundaries[i]).

    The boundaries are given, or learnt by `adapt(data)` as `num_bins` approximate quantiles of
    the data (Keras' summary algorithm, with its `epsilon`).

    Args:
        bin_boundaries: sorted boundaries (len = bins - 1).
        num_bins: the number of bins to learn with adapt.
        epsilon: the approximation error of the quantile summary (default 0.01).
        output_mode: 'int' (default), 'one_hot', 'multi_hot' or 'count'.
        sparse: must be False in minitf.
    """

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int", sparse=False,
                 dtype=None, name=None):
        super().__init__(name=name, dtype=dtype)
        if output_mode not in ("int",) + _ENCODE_MODES:
            raise ValueError(f"Discretization {self.name!r}: unknown output_mode {output_mode!r}; use one of "
                             f"{['int', *_ENCODE_MODES]}")
        if num_bins is not None and num_bins < 0:
            raise ValueError(f"Discretization {self.name!r}: `num_bins` must be greater than or equal to 0. "
                             f"Received: `num_bins={num_bins}`")
        if num_bins is not None and bin_boundaries is not None:
            if len(bin_boundaries) != num_bins - 1:
                raise ValueError(f"Discretization {self.name!r}: both `num_bins` and `bin_boundaries` should "
                                 f"not be set. Received: `num_bins={num_bins}` and "
                                 f"`bin_boundaries={bin_boundaries}`")
        preprocessing_utils.refuse_sparse(sparse, self)
        self.input_bin_boundaries = bin_boundaries
        self.bin_boundaries = list(bin_boundaries) if bin_boundaries is not None else []
        self.num_bins = num_bins
        self.epsilon = epsilon
        self.output_mode = output_mode
        self.sparse = sparse

    @preprocessing_utils.adapts_when_run()
    def adapt(self, data, steps=None):
        """Learn `num_bins - 1` boundaries from `data` with Keras' quantile summary: each batch is
        summarized to about 1/epsilon weighted points, summaries are merged, and the boundaries are
        interpolated from the cumulative weights (so they match Keras' exactly)."""
        if self.num_bins is None:
            raise ValueError(f"Discretization {self.name!r}: cannot adapt a Discretization layer that has "
                             f"been initialized with `bin_boundaries`, use `num_bins` instead.")
        if isinstance(data, (list, tuple)):
            batches = list(data)[:steps] if steps is not None else list(data)  # Keras iterates lists
        else:
            batches, _ = preprocessing_utils.adapt_batches(data, self.name, batch_rank1=False, steps=steps)
        summary = np.zeros((2, 0), dtype=np.float32)
        for batch in batches:
            merged = np.concatenate([summary, _summarize(preprocessing_utils.numpy_of(batch), self.epsilon)], axis=1)
            summary = _compress(merged[:, np.argsort(merged[0], kind="stable")], self.epsilon)
        self.bin_boundaries = _compress(summary, 1.0 / self.num_bins)[0, :-1].tolist()

    @dispatch.add_dispatch_support  # works on raw arrays: one graph node when traced
    def call(self, inputs):
        values = preprocessing_utils.numpy_of(inputs)
        ids = np.searchsorted(np.asarray(self.bin_boundaries, dtype=np.float64), values, side="right")
        depth = len(self.bin_boundaries) + 1
        if self.output_mode == "int":
            return convert_to_tensor(ids.astype(np.int32))  # Keras' output dtype in 'int' mode
        return convert_to_tensor(encode_categorical(ids, self.output_mode, depth, dtype=self.dtype))

    def compute_output_shape(self, input_shape):
        """The input shape ('int') or the encoded shape."""
        return preprocessing_utils.encoded_shape(input_shape, self.output_mode, len(self.bin_boundaries) + 1)

    def get_config(self):
        """bin_boundaries, num_bins, epsilon, output_mode, sparse, name and dtype (Keras' keys)."""
        return {"bin_boundaries": self.bin_boundaries, "num_bins": self.num_bins, "epsilon": self.epsilon,
                "output_mode": self.output_mode, "sparse": self.sparse, "name": self.name, "dtype": self.dtype}

