"""Helpers for the summary tests: read an event file back with minitf's own record reader and
protobuf classes (independent of TensorBoard), as (step, tag, plugin, array) rows."""
import glob
import io
import os

import numpy as np

from minitf.ops.tfrecord_io import read_records
from minitf.summary._proto import DTYPE_ENUM, messages

_NUMPY_OF_ENUM = {number: name for name, number in DTYPE_ENUM.items()}


def event_files(logdir):
    """The event files directly in `logdir`, oldest first."""
    return sorted(glob.glob(os.path.join(str(logdir), "events.out.tfevents.*")))


def events(path):
    """The Event messages of one file."""
    event = messages()["Event"]
    return [event.FromString(record) for record in read_records(path)]


def to_array(tensor):
    """numpy value of a TensorProto written by minitf (tensor_content or string_val)."""
    shape = [d.size for d in tensor.tensor_shape.dim]
    name = _NUMPY_OF_ENUM[tensor.dtype]
    if name == "string":
        return np.array(list(tensor.string_val), dtype=object).reshape(shape)
    return np.frombuffer(tensor.tensor_content, dtype=np.dtype(name).newbyteorder("<")).reshape(shape)


def rows(logdir):
    """(step, tag, plugin name, value array) of every summary value in `logdir`'s one file."""
    files = event_files(logdir)
    assert len(files) == 1, files
    out = []
    for event in events(files[0])[1:]:
        for value in event.summary.value:
            out.append((event.step, value.tag, value.metadata.plugin_data.plugin_name,
                        to_array(value.tensor)))
    return out


def png_pixels(data):
    """uint8 pixels [h, w, c] of PNG bytes, decoded by Pillow (an independent decoder)."""
    from PIL import Image  # the test extra installs Pillow
    image = Image.open(io.BytesIO(data))
    array = np.asarray(image)
    return array[..., None] if array.ndim == 2 else array
