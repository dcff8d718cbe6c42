"""tf.io.RaggedFeature: a feature of tf.train.Example records parsed into a RaggedTensor.

The values come from the feature `value_key` (the feature's own key by default); `partitions`
(outermost first) name int64 features that split them into rows: RowSplits, RowLengths,
RowStarts, RowLimits, ValueRowIds, or a constant UniformRowLength. One Example gives a Tensor
(no partitions, or only uniform ones innermost, which reshape) or a RaggedTensor of ragged_rank
len(partitions); a batch adds the batch dimension as one more ragged dimension in front. A
missing feature is an empty list, as in TF.

Partitions are always checked (TF checks them only with `validate=True`, and without it
returns rows cut from whatever the partition says): one that does not fit the values raises
InvalidArgumentError.
"""
import collections

import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops._core import Tensor
from minitf.ragged.ragged_tensor import RaggedTensor, concat_axis0
from minitf.api_export import export

__all__ = ["RaggedFeature", "parse_ragged"]

_NP_TYPES = {dtypes.float32: np.float32, dtypes.int64: np.int64, dtypes.string: object}
_KIND_NAMES = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}
_WANT = {dtypes.float32: "float_list", dtypes.int64: "int64_list", dtypes.string: "bytes_list"}


@export("io.RaggedFeature")
class RaggedFeature(collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """A feature parsed into a RaggedTensor of `dtype` (tf.int64, tf.float32 or tf.string).

    Args:
      dtype: the values' dtype.
      value_key: the feature holding the values (default: the key this feature is parsed under).
      partitions: RaggedFeature.RowSplits(key), RowLengths(key), RowStarts(key), RowLimits(key),
        ValueRowIds(key) or UniformRowLength(length), outermost first.
      row_splits_dtype: tf.int32 (the default) or tf.int64 for the result's row splits.
      validate: accepted as in TF (minitf always checks the partitions).

    Raises:
      ValueError: a dtype or row_splits_dtype TF does not parse, an empty value_key.
      TypeError: partitions that are not a list of partition objects, a non-bool validate.
    """

    RowSplits = collections.namedtuple("RowSplits", ["key"])
    RowLengths = collections.namedtuple("RowLengths", ["key"])
    RowStarts = collections.namedtuple("RowStarts", ["key"])
    RowLimits = collections.namedtuple("RowLimits", ["key"])
    ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])
    UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])
    _PARTITION_TYPES = (RowSplits, RowLengths, RowStarts, RowLimits, ValueRowIds, UniformRowLength)

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=dtypes.int32, validate=False):
        if value_key is not None:
            if not isinstance(value_key, str):
                raise ValueError(f"Argument `value_key` must be a string; got {value_key}")
            if not value_key:
                raise ValueError("Argument `value_key` must not be empty")
        dtype = dtypes.as_dtype(dtype)
        if dtype not in _NP_TYPES:
            raise ValueError(f"Argument `dtype` must be int64, float32, or bytes; got {dtype!r}")
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if row_splits_dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"Argument `row_splits_dtype` must be int32 or int64; got{row_splits_dtype!r}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"Argument `partitions` must be a list or tuple. Received"
                            f"partitions={partitions} of type {type(partitions).__name__}.")
        for partition in partitions:
            if not isinstance(partition, cls._PARTITION_TYPES):
                raise TypeError(f"Argument `partitions` cannot be cast to any of the partition types in "
                                f"{cls._PARTITION_TYPES}; got: {partition!r} with type {type(partition)}")
        if not isinstance(validate, bool):
            raise TypeError(f"Argument `validate` must be a bool; got {validate!r}")
        return super().__new__(cls, dtype, value_key, tuple(partitions), row_splits_dtype, validate)


def _list(feature_map, key, dtype, where, index):
    """The values of feature `key` (an empty array when the Example lacks it)."""
    np_type = _NP_TYPES[dtype]
    feature = feature_map[key] if key in feature_map else None
    kind = feature.WhichOneof("kind") if feature is not None else None
    if kind is None:
        return np.zeros(0, dtype=np_type)
    if kind != _WANT[dtype]:
        at = f"{where}Key: {key}, Index: {index}." if where else f"Key: {key}."
        raise errors.invalid_argument("ParseExampleV2", f"{at}  Data types don't match. Expected type: "
                                                        f"{_KIND_NAMES[_WANT[dtype]]}, Actual type: "
                                                        f"{_KIND_NAMES[kind]}")
    values = getattr(feature, kind).value
    return np.array(list(values), dtype=object) if np_type is object else np.array(values, dtype=np_type)


def _with_splits_dtype(value, dtype):
    if not isinstance(value, RaggedTensor):
        return value
    return RaggedTensor._make(_with_splits_dtype(value.values, dtype), value._splits_np,
                              value._uniform_row_length, dtype)


def _partitioned(values, partition, feature_map, where, index):
    if isinstance(partition, RaggedFeature.UniformRowLength):
        length = int(partition.length)
        if isinstance(values, RaggedTensor):
            return RaggedTensor.from_uniform_row_length(values, length)
        n = int(values.shape[0])
        if length <= 0 or n % length:
            raise errors.invalid_argument("Reshape", f"Input to reshape is a tensor with {n} values, but the "
                                                     f"requested shape requires a multiple of {length}")
        return Tensor(values._value.reshape((n // length, length) + values._value.shape[1:]))
    rows = _list(feature_map, partition.key, dtypes.int64, where, index)
    factory = {RaggedFeature.RowSplits: RaggedTensor.from_row_splits,
               RaggedFeature.RowLengths: RaggedTensor.from_row_lengths,
               RaggedFeature.RowStarts: RaggedTensor.from_row_starts,
               RaggedFeature.RowLimits: RaggedTensor.from_row_limits,
               RaggedFeature.ValueRowIds: RaggedTensor.from_value_rowids}[type(partition)]
    if isinstance(partition, RaggedFeature.RowSplits) and rows.size == 0:
        rows = np.zeros(1, np.int64)  # a missing splits feature: no rows
    return factory(values, rows)


def _one(feature_map, key, spec, where, index):
    """One Example's value of ragged feature `spec` (a Tensor or RaggedTensor)."""
    result = Tensor(_list(feature_map, spec.value_key or key, spec.dtype, where, index))
    for partition in reversed(spec.partitions):
        result = _partitioned(result, partition, feature_map, where, index)
    return _with_splits_dtype(result, spec.row_splits_dtype)


def parse_ragged(feature_maps, key, spec, scalar):
    """Feature `key` of parsed Examples (`feature_maps`): one value for a scalar input, else the
    batch as the rows of a RaggedTensor."""
    where = "" if scalar else "Name: <unknown>, "
    values = [_one(m, key, spec, where, i) for i, m in enumerate(feature_maps)]
    if scalar:
        return values[0]
    if values:
        inner = _with_splits_dtype(concat_axis0(values), spec.row_splits_dtype)
        lengths = [v.nrows_int() if isinstance(v, RaggedTensor) else int(v.shape[0]) for v in values]
    else:  # an empty batch: no rows, no values
        inner = Tensor(np.zeros(0, dtype=_NP_TYPES[spec.dtype]))
        for partition in spec.partitions:
            inner = RaggedTensor._make(inner, np.zeros(1, np.int64), row_splits_dtype=spec.row_splits_dtype)
        lengths = []
    splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return RaggedTensor._make(inner, splits, row_splits_dtype=spec.row_splits_dtype)
