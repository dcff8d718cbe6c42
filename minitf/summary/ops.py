"""tf.summary.write and the typed summaries TensorBoard draws: scalar, histogram, image, text.

Each writes what TF 2 (with TensorBoard's summary ops) writes, so TensorBoard's dashboards and
readers treat the files as TF's: a `Summary.Value` whose tensor is
  scalar    float32, shape []
  histogram float64 [buckets, 3] rows (left edge, right edge, count)
  image     string [2 + k]: width and height as decimal strings, then k PNG files
  text      the string tensor as given
with `SummaryMetadata` naming the plugin ('scalars', 'histograms', 'images', 'text') and the
description. The tag is the name under the active tf.name_scope ('outer/loss').

A summary is written only with a default writer (`writer.as_default()`) while `record_if`
allows it; otherwise the functions return False and write nothing. The step is the `step`
argument, else the default step (`as_default(step)` / `experimental.set_step`); with neither,
a summary that would be written raises ValueError, as in TF.
"""
import contextlib
import re
import time

import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops.constant import cast
from minitf.ops.image_color import convert_image_dtype
from minitf.summary._png import encode_png
from minitf.summary._proto import DTYPE_ENUM, PLUGIN_NAMES, messages
from minitf.summary.writer import bool_tensor, current_writer, get_step, recording
from minitf.variable import current_scope_prefix, name_scope
from minitf.api_export import export

__all__ = ["write", "scalar", "histogram", "image", "text", "write_raw_pb", "summary_scope",
           "histogram_buckets", "tensor_proto"]

_NO_STEP = ("No step set. Please specify one either through the `step` argument or through "
            "tf.summary.experimental.set_step()")
_INVALID_SCOPE_CHARACTERS = re.compile(r"[^-_/.A-Za-z0-9]")
DEFAULT_BUCKET_COUNT = 30


def step_value(step):
    """The int step of a write; ValueError when there is none."""
    if step is None:
        step = get_step()
    if step is None:
        raise ValueError(_NO_STEP)
    return int(convert_to_tensor(step, dtype=dtypes.int64).numpy())


def tensor_proto(value):
    """A TensorProto message of `value` (a tensor, array or Python value), TF's encoding:
    numbers in `tensor_content` (little-endian), strings in `string_val`."""
    tensor = convert_to_tensor(value)
    array = np.asarray(tensor.numpy())
    proto = messages()["TensorProto"]()
    name = tensor.dtype.name
    if name not in DTYPE_ENUM:
        raise TypeError(f"tf.summary.write: tensors of dtype {name} cannot be written to an event "
                        f"file; cast the data to a number, bool or string dtype first")
    proto.dtype = DTYPE_ENUM[name]
    proto.tensor_shape.SetInParent()  # TF writes the shape of a scalar as an empty message
    for size in array.shape:
        proto.tensor_shape.dim.add(size=int(size))
    if name == "string":
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode()
                                for v in array.reshape(-1).tolist())
    else:
        proto.tensor_content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return proto


def _metadata_message(metadata):
    """Our SummaryMetadata message from None, bytes, or any SummaryMetadata-like message."""
    cls = messages()["SummaryMetadata"]
    if metadata is None:
        return None
    if hasattr(metadata, "SerializeToString"):
        metadata = metadata.SerializeToString()
    if isinstance(metadata, str):
        metadata = metadata.encode()
    if not isinstance(metadata, (bytes, bytearray)):
        raise TypeError(f"tf.summary.write: metadata must be a SummaryMetadata message or its "
                        f"serialized bytes, got {type(metadata).__name__}")
    return cls.FromString(bytes(metadata)) if metadata else None


def _plugin_metadata(kind, description):
    metadata = messages()["SummaryMetadata"]()
    metadata.plugin_data.plugin_name = PLUGIN_NAMES[kind]
    if description:
        metadata.summary_description = description
    return metadata


@export("summary.write")
def write(tag, tensor, step=None, metadata=None, name=None):
    """Write `tensor` (or the result of calling it, computed only when recorded) under `tag`
    to the default writer, with `metadata` (a SummaryMetadata message or its bytes).

    Returns:
      A bool tensor: True if written, False without a default writer or when `record_if`
      says no.

    Raises:
      ValueError: the summary is recorded but there is no step.
    """
    return _write(tag, tensor, step, lambda: _metadata_message(metadata))


def _write(tag, tensor, step, make_metadata):
    """`write` with the metadata made only when the summary is recorded, so that nothing
    needs protobuf while no writer is active."""
    writer = current_writer()
    if writer is None or not recording():
        return bool_tensor(False)
    step = step_value(step)
    value = messages()["Summary"].Value(tag=str(tag))
    value.tensor.CopyFrom(tensor_proto(tensor() if callable(tensor) else tensor))
    metadata = make_metadata()
    if metadata is not None:
        value.metadata.CopyFrom(metadata)
    write_value = getattr(writer, "_write_value", None)
    if write_value is not None:
        write_value(value, step)
    return bool_tensor(True)


@export("summary.experimental.write_raw_pb")
def write_raw_pb(tensor, step=None, name=None):
    """Write serialized `Summary` protocol buffers (bytes, or a string tensor of them) as they
    are, one event each (TF 1 style summaries). Returns a bool tensor as `write` does."""
    writer = current_writer()
    if writer is None or not recording():
        return bool_tensor(False)
    step = step_value(step)
    events = getattr(writer, "_events", None)
    for raw in np.asarray(convert_to_tensor(tensor).numpy(), dtype=object).reshape(-1).tolist():
        event = messages()["Event"](wall_time=time.time(), step=step)
        try:
            event.summary.ParseFromString(raw)
        except Exception:  # noqa: BLE001 - protobuf's DecodeError class depends on its backend
            raise errors.InvalidArgumentError(None, None, "tf.summary.experimental.write_raw_pb: "
                                              "the bytes are not a serialized Summary; pass "
                                              "summary.SerializeToString()") from None
        if events is not None:
            events.add_event(event)
    return bool_tensor(True)


@export("summary.experimental.summary_scope")
@contextlib.contextmanager
def summary_scope(name, default_name=None, values=None):
    """A name scope for a summary op, yielding (tag, scope): the tag is `name` under the
    active name scopes, as the typed summaries name their values."""
    name = name or default_name
    prefix = current_scope_prefix()
    tag = prefix + name
    with name_scope(_INVALID_SCOPE_CHARACTERS.sub("", name) or default_name or "") as scope:
        yield tag, scope


def _tag(name):
    return current_scope_prefix() + str(name)


@export("summary.scalar")
def scalar(name, data, step=None, description=None):
    """Write a scalar (cast to float32) for TensorBoard's Scalars dashboard.

    Raises:
      ValueError: `data` is not a scalar, or there is no step.
    """
    data = convert_to_tensor(data)
    if data.shape.rank != 0:
        raise ValueError(f"Expected scalar shape, saw shape: {tuple(data.shape.as_list())}. "
                         f"tf.summary.scalar('{name}') takes one number; reduce the tensor first "
                         f"(e.g. tf.reduce_mean)")
    data = cast(data, dtypes.float32)
    return _write(_tag(name), data, step, lambda: _plugin_metadata("scalar", description))


def histogram_buckets(data, bucket_count=None):
    """TensorBoard's histogram of `data`: float64 rows [left, right, count], `bucket_count`
    (default 30) equal-width buckets from min to max. Empty data gives zero rows; a single
    distinct value gives buckets of zero width with every count in the last one."""
    k = DEFAULT_BUCKET_COUNT if bucket_count is None else int(bucket_count)
    k = max(k, 0)
    x = np.asarray(cast(convert_to_tensor(data), dtypes.float64).numpy(), dtype=np.float64).reshape(-1)
    if x.size == 0 or k == 0:
        return np.zeros((k, 3), dtype=np.float64)
    low, high = x.min(), x.max()
    width = high - low
    if width == 0:
        counts = np.zeros(k)
        counts[-1] = x.size
        return np.stack([np.full(k, high), np.full(k, high), counts], axis=1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        position = np.floor((x - low) / (width / k))
    known = np.isfinite(position) & (position >= 0)  # TF's one_hot drops what it cannot place
    index = np.minimum(position[known], k - 1).astype(np.int64)
    counts = np.bincount(index, minlength=k).astype(np.float64)
    edges = np.linspace(low, high, k + 1)
    edges[-1] = high
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


@export("summary.histogram")
def histogram(name, data, step=None, buckets=None, description=None):
    """Write a histogram of the values of `data` (any shape) for TensorBoard's Histograms
    and Distributions dashboards; `buckets` equal-width buckets (default 30).

    Raises:
      ValueError: the summary is recorded but there is no step.
    """
    return _write(_tag(name), lambda: histogram_buckets(data, buckets), step,
                 lambda: _plugin_metadata("histogram", description))


def _encoded_images(name, data, max_outputs):
    images = convert_to_tensor(data)
    shape = images.shape.as_list()
    if len(shape) != 4:
        raise ValueError(f"Tensor  must have rank 4.  Received rank {len(shape)}, shape "
                         f"{tuple(shape)}: tf.summary.image('{name}') takes images "
                         f"[k, height, width, channels]; add a batch axis for one image")
    if max_outputs < 0:
        raise errors.InvalidArgumentError(None, None, f"tf.summary.image('{name}'): max_outputs "
                                          f"must be >= 0, got {max_outputs}")
    if not 1 <= shape[3] <= 4:
        raise errors.InvalidArgumentError(None, None, f"tf.summary.image('{name}'): images must have "
                                          f"1 to 4 channels, got {shape[3]}")
    pixels = convert_image_dtype(images, dtypes.uint8, saturate=True).numpy()
    pngs = [encode_png(pixels[i]) for i in range(min(max_outputs, shape[0]))]
    return np.array([str(shape[2]).encode(), str(shape[1]).encode()] + pngs, dtype=object)


@export("summary.image")
def image(name, data, step=None, max_outputs=3, description=None):
    """Write images [k, height, width, channels] (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA) as PNG
    for TensorBoard's Images dashboard; floats are in [0, 1], integers scale to uint8. Only the
    first `max_outputs` images are kept.

    Raises:
      ValueError: `data` is not of rank 4, or there is no step.
      InvalidArgumentError: a negative `max_outputs`, or not 1-4 channels.
    """
    return _write(_tag(name), lambda: _encoded_images(name, data, int(max_outputs)), step,
                 lambda: _plugin_metadata("image", description))


@export("summary.text")
def text(name, data, step=None, description=None):
    """Write a string tensor (Markdown; rank 1 and 2 show as tables) for TensorBoard's Text
    dashboard.

    Raises:
      TypeError: `data` is not of dtype string.
      ValueError: the summary is recorded but there is no step.
    """
    data = convert_to_tensor(data)
    if data.dtype != dtypes.string:
        raise TypeError(f"tensor must be of type tf.string; got tf.{data.dtype.name}: "
                        f"tf.summary.text('{name}') writes strings; use tf.strings.as_string "
                        f"for numbers")
    return _write(_tag(name), data, step, lambda: _plugin_metadata("text", description))
