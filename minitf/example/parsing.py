"""tf.io.parse_single_example / parse_example with FixedLenFeature, VarLenFeature and RaggedFeature:
serialized tf.train.Example records to dicts of tensors (VarLenFeature: tf.SparseTensor,
RaggedFeature: tf.RaggedTensor, see `ragged_feature`).

The records are decoded with the protobuf classes of `minitf.example.proto` (protobuf is an
optional dependency; without it these functions raise ImportError naming the extra). The errors
are TF's: InvalidArgumentError with TF's wording ("Key: x.  Data types don't match. ...",
"Feature: x (data type: int64) is required but could not be found."), ValueError for a bad
feature description.
"""
import collections

import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.example.proto import message_class
from minitf.example.ragged_feature import RaggedFeature, parse_ragged
from minitf.sparse.sparse_tensor import SparseTensor
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["FixedLenFeature", "VarLenFeature", "RaggedFeature", "parse_single_example", "parse_example"]

_KINDS = {dtypes.float32: ("float_list", "float", np.float32), dtypes.int64: ("int64_list", "int64", np.int64),
          dtypes.string: ("bytes_list", "string", object)}
_KIND_TYPE = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


@export("io.FixedLenFeature")
class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of a known number of values, parsed to a dense tensor of `shape` and `dtype`
    (tf.float32, tf.int64 or tf.string); `default_value` (broadcast to nothing: it must hold
    exactly prod(shape) values) fills in when an Example lacks the feature, else it is required."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtypes.as_dtype(dtype), default_value)


@export("io.VarLenFeature")
class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature with any number of values, parsed to a tf.SparseTensor of `dtype`."""

    def __new__(cls, dtype):
        return super().__new__(cls, dtypes.as_dtype(dtype))


def _check_features(features):
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    for key, spec in features.items():
        if isinstance(spec, RaggedFeature):
            continue  # checked when it was made
        if not isinstance(spec, (FixedLenFeature, VarLenFeature)):
            raise ValueError(f"Unsupported {type(spec).__name__} {spec!r} for key '{key}'; use "
                             f"tf.io.FixedLenFeature, tf.io.VarLenFeature or tf.io.RaggedFeature")
        if spec.dtype not in _KINDS:
            raise errors.invalid_argument("ParseExampleV2", f"Feature '{key}': dtype {spec.dtype.name} is not "
                                                            f"one of float32, int64, string")
        if isinstance(spec, FixedLenFeature):
            if any(d is None or int(d) < 0 for d in _dims(spec.shape)):
                raise ValueError(f"First dimension of shape for feature {key} unknown. Consider using "
                                 f"FixedLenSequenceFeature. Received feature={spec!r}.")


def _dims(shape):
    shape = getattr(shape, "as_list", lambda: shape)()
    return [shape] if isinstance(shape, int) else list(shape)


def _default(key, spec):
    """The default value as an array of the feature's shape, or None."""
    if spec.default_value is None:
        return None
    dims = _dims(spec.shape)
    value = np.asarray(getattr(spec.default_value, "numpy", lambda: spec.default_value)(),
                       dtype=_KINDS[spec.dtype][2])
    if spec.dtype == dtypes.string:
        value = np.vectorize(lambda v: v.encode() if isinstance(v, str) else v, otypes=[object])(value)
    if value.size != int(np.prod(dims)):
        raise errors.invalid_argument("Reshape", f"Input to reshape is a tensor with {value.size} values, but the "
                                                 f"requested shape has {int(np.prod(dims))} (default_value of "
                                                 f"feature '{key}', shape {dims})")
    return value.reshape(dims)


def _records(serialized, op, single, dense_only=False):
    # A graph value's .numpy() raises AttributeError: inside a traced function (a dataset's map)
    # the whole parse then becomes one node of the graph, which learns its outputs by parsing an
    # empty record. That gives the right outputs only when every feature is dense with a default
    # (`dense_only`); otherwise np.asarray refuses the graph value (NotImplementedError).
    value = serialized.numpy() if isinstance(serialized, Tensor) and dense_only else \
        getattr(serialized, "numpy", lambda: serialized)()
    if isinstance(value, (bytes, str)):
        value = np.asarray(value, dtype=object)
    elif isinstance(value, (list, tuple)) and all(isinstance(v, (bytes, str)) for v in value):
        value = np.array(list(value) + [None], dtype=object)[:-1]  # numpy's 'S' would drop trailing NULs
    value = np.asarray(value)
    if value.dtype.kind not in "OSU":
        raise ValueError(f"{op}: `serialized` must be a string tensor of serialized tf.train.Example "
                         f"records, got dtype {value.dtype}")
    if single and value.ndim != 0:
        raise ValueError(f"Input serialized must be a scalar (got shape {list(value.shape)}); use "
                         f"tf.io.parse_example for a batch")
    if value.ndim > 1:
        raise ValueError(f"{op}: `serialized` must be a scalar or a vector, got shape {list(value.shape)}")
    records = [v.encode() if isinstance(v, str) else bytes(v) for v in value.reshape(-1).tolist()]
    return records, value.ndim == 0


def _decode(record, op):
    example = message_class("Example")()
    try:
        example.ParseFromString(record)
    except Exception:  # protobuf's DecodeError (its class depends on the protobuf backend)
        shown = record[:40]
        raise errors.invalid_argument(op, f"Could not parse example input, value: {shown!r}") from None
    return example.features.feature


def _values(feature_map, key, spec, where):
    """The values of feature `key` as a numpy array, or None when the Example lacks it."""
    feature = feature_map.get(key) if key in feature_map else None
    kind = feature.WhichOneof("kind") if feature is not None else None
    if kind is None:
        return None
    want_kind, want_type, np_type = _KINDS[spec.dtype]
    if kind != want_kind:
        actual = _KIND_TYPE[kind]
        detail = (f"Data type: {actual} but expected type: {want_type}" if isinstance(spec, FixedLenFeature)
                  else f"Expected type: {want_type}, Actual type: {actual}")
        raise errors.invalid_argument("ParseExampleV2", f"{where}Key: {key}.  Data types don't match. {detail}")
    values = getattr(feature, kind).value
    return np.array(list(values), dtype=object) if np_type is object else np.array(values, dtype=np_type)


def _dense(key, spec, values, default, where):
    dims = _dims(spec.shape)
    if values is None:
        if default is None:
            raise errors.invalid_argument("ParseExampleV2", f"{where}Feature: {key} (data type: "
                                                            f"{_KINDS[spec.dtype][1]}) is required but could "
                                                            f"not be found.")
        return default
    if values.size != int(np.prod(dims)):
        raise errors.invalid_argument("ParseExampleV2", f"{where}Key: {key}.  Can't parse serialized Example: "
                                                        f"it has {values.size} values, the FixedLenFeature "
                                                        f"shape {dims} needs {int(np.prod(dims))}.")
    return values.reshape(dims)


def _parse(serialized, features, op, single):
    if not isinstance(features, dict):
        raise TypeError(f"{op}: `features` must be a dict of feature name to tf.io.FixedLenFeature or "
                        f"tf.io.VarLenFeature, got {type(features).__name__}")
    _check_features(features)
    defaults = {k: _default(k, s) for k, s in features.items() if isinstance(s, FixedLenFeature)}
    dense_only = all(isinstance(s, FixedLenFeature) and s.default_value is not None for s in features.values())
    records, scalar = _records(serialized, op, single, dense_only)
    where = "" if scalar else "Name: <unknown>, "
    maps = [_decode(r, op) for r in records]
    out = {}
    for key in sorted(features):
        spec = features[key]
        if isinstance(spec, RaggedFeature):
            out[key] = parse_ragged(maps, key, spec, scalar)
            continue
        np_type = _KINDS[spec.dtype][2]
        columns = [_values(m, key, spec, where) for m in maps]
        if isinstance(spec, FixedLenFeature):
            dense = [_dense(key, spec, v, defaults[key], where) for v in columns]
            value = dense[0] if scalar else np.stack(dense) if dense else \
                np.zeros([0] + _dims(spec.shape), dtype=np_type)
            out[key] = convert_to_tensor(value, dtype=spec.dtype)
            continue
        columns = [np.zeros(0, dtype=np_type) if v is None else v for v in columns]
        lengths = [len(v) for v in columns]
        values = np.concatenate(columns) if columns else np.zeros(0, dtype=np_type)
        positions = np.concatenate([np.arange(n) for n in lengths]) if columns else np.zeros(0, np.int64)
        if scalar:
            indices, shape = positions[:, None], [lengths[0]]
        else:
            rows = np.repeat(np.arange(len(lengths)), lengths)
            indices, shape = np.stack([rows, positions], axis=1), [len(lengths), max(lengths, default=0)]
        out[key] = SparseTensor(indices.astype(np.int64).reshape(-1, 1 if scalar else 2),
                                convert_to_tensor(values.astype(np_type), dtype=spec.dtype), shape)
    return out


@export("io.parse_single_example")
@dispatch.add_dispatch_support
def parse_single_example(serialized, features, name=None, example_names=None):
    """Parse one serialized tf.train.Example (a 0-d string tensor or bytes) into a dict of tensors,
    one per key of `features`: FixedLenFeature -> a dense tensor of its shape, VarLenFeature -> a
    1-D tf.SparseTensor, RaggedFeature -> a Tensor or tf.RaggedTensor (see `RaggedFeature`).

    Raises:
      ValueError: `features` is empty, holds something other than FixedLen/VarLenFeature, or
        `serialized` is not a scalar string.
      InvalidArgumentError: a record that does not parse, a required feature missing, a value
        count that does not fit the shape, or a feature of another type than declared.
      ImportError: the protobuf package is not installed.
    """
    return _parse(serialized, features, "ParseExampleV2", single=True)


@export("io.parse_example")
@dispatch.add_dispatch_support
def parse_example(serialized, features, name=None, example_names=None):
    """Parse a vector of serialized tf.train.Example records into a dict of batched tensors:
    FixedLenFeature -> [batch] + shape, VarLenFeature -> a 2-D tf.SparseTensor [batch, longest],
    RaggedFeature -> a tf.RaggedTensor with the batch as its rows (a scalar `serialized` parses
    like parse_single_example).

    Raises the same errors as `parse_single_example`.
    """
    return _parse(serialized, features, "ParseExampleV2", single=False)
