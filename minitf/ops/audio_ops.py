"""tf.audio: 16-bit PCM WAV files to float32 samples and back, as TF's DecodeWav/EncodeWav do.

A decoded file is a float32 [samples, channels] tensor of the int16 samples divided by 32768,
with the sample rate as an int32 scalar. `desired_channels` takes the file's first channels, or
repeats its last one; `desired_samples` cuts the file or pads it with zeros. Encoding rounds
`sample * 32768` to the nearest int16 (halves away from zero), clamped; NaN becomes 0. The reader checks the RIFF layout and refuses
anything but uncompressed 16-bit PCM with InvalidArgumentError, as TF's does.
"""
import struct

import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops._core import Tensor, as_tensor, is_graph_value, thread_state
from minitf.tensor_spec import TensorSpec
from minitf.api_export import export

__all__ = ["decode_wav", "encode_wav", "decode_wav_node", "encode_wav_node"]

_PCM = 1
_INT16_SCALE = 32768.0


def _fail(op, message):
    raise errors.invalid_argument(op, message)


def _contents(value, op):
    """The bytes of a 0-d string tensor."""
    t = as_tensor(value) if not isinstance(value, bytes) else convert_to_tensor(value)
    if t.dtype != dtypes.string:
        _fail(op, f"contents must be a string tensor (the file's bytes), got {t.dtype.name}")
    if t._value.ndim != 0:
        _fail(op, f"contents must be scalar, got shape {list(t.shape)}")
    item = t._value.item()
    return item.encode() if isinstance(item, str) else item


def _read_chunks(data):
    """(channels, sample rate, int16 samples [n, channels]) of a 16-bit PCM WAV file."""
    op = "DecodeWav"
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        _fail(op, f"Header mismatch: the contents are not a RIFF/WAVE file (first bytes {data[:12]!r})")
    offset, fmt = 12, None
    while offset + 8 <= len(data):
        chunk, size = data[offset:offset + 4], struct.unpack("<I", data[offset + 4:offset + 8])[0]
        body = offset + 8
        if chunk == b"fmt ":
            if size not in (16, 18) or body + size > len(data):
                _fail(op, f"Bad format chunk size for WAV: expected 16 or 18, but got {size}")
            fmt = struct.unpack("<HHIIHH", data[body:body + 16])
        elif chunk == b"data":
            if fmt is None:
                _fail(op, "The data chunk comes before the format chunk")
            audio_format, channels, rate, byte_rate, block_align, bits = fmt
            if audio_format != _PCM:
                _fail(op, f"Bad audio format for WAV: expected 1 (PCM), but got {audio_format}")
            if channels == 0:
                _fail(op, "Bad number of channels for WAV: expected at least 1 channel, but got 0")
            if bits != 16:
                _fail(op, f"Can only read 16-bit WAV files, but received {bits}")
            if block_align != 2 * channels or byte_rate != rate * block_align:
                _fail(op, f"Bad bytes per sample/second in WAV header: {block_align}/{byte_rate} for "
                          f"{channels} channels at {rate} Hz")
            if body + size > len(data):
                _fail(op, f"Data too short: the data chunk says {size} bytes, {len(data) - body} remain")
            frames = size // block_align
            samples = np.frombuffer(data, dtype="<i2", count=frames * channels, offset=body)
            return channels, rate, samples.reshape(frames, channels)
        offset = body + size + (size & 1)  # chunks are padded to even lengths
    _fail(op, "Data chunk not found in the WAV file" if fmt is not None else "Format chunk not found in the WAV file")


def decode_wav_node(contents, desired_channels, desired_samples):
    """What a DecodeWav node runs: `decode_wav` with its attributes given."""
    channels, rate, samples = _read_chunks(_contents(contents, "DecodeWav"))
    out_channels = channels if desired_channels == -1 else desired_channels
    out_samples = samples.shape[0] if desired_samples == -1 else desired_samples
    audio = np.zeros((out_samples, out_channels), dtype=np.float32)
    source = np.minimum(np.arange(out_channels), channels - 1)  # extra channels repeat the last
    kept = min(out_samples, samples.shape[0])
    audio[:kept] = samples[:kept][:, source].astype(np.float32) / np.float32(_INT16_SCALE)
    return Tensor(audio), Tensor(np.asarray(rate, dtype=np.int32))


def _int_attr(value, name, op):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{op}: expected an int for argument {name!r}, not {value!r}")
    if value < -1:
        _fail(op, f"{name} must be -1 (as in the file) or non-negative, got {value}")
    return int(value)


@export("audio.decode_wav")
def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """Decode a 16-bit PCM WAV file into float32 samples in [-1, 1).

    Args:
        contents: A 0-d tf.string tensor: the file's bytes (from `tf.io.read_file`).
        desired_channels: How many channels to return (-1: the file's); missing ones repeat the
            file's last channel.
        desired_samples: How many samples per channel to return (-1: all); a shorter file is
            padded with zeros.
        name: Unused; accepted for TF compatibility.

    Returns:
        `(audio, sample_rate)`: float32 [samples, channels] and an int32 scalar.

    Raises:
        InvalidArgumentError: The contents are not an uncompressed 16-bit PCM WAV file.
    """
    desired_channels = _int_attr(desired_channels, "desired_channels", "DecodeWav")
    desired_samples = _int_attr(desired_samples, "desired_samples", "DecodeWav")
    if is_graph_value(contents):
        specs = (TensorSpec([None if desired_samples == -1 else desired_samples,
                             None if desired_channels == -1 else desired_channels], dtypes.float32),
                 TensorSpec([], dtypes.int32))
        return thread_state.graph.call(decode_wav_node, (contents, desired_channels, desired_samples), {},
                                       abstract=lambda *a, **k: specs, op_type="DecodeWav")
    return decode_wav_node(contents, desired_channels, desired_samples)


def encode_wav_node(audio, sample_rate):
    """What an EncodeWav node runs: `encode_wav` on tensors."""
    op = "EncodeWav"
    if audio.dtype != dtypes.float32:
        _fail(op, f"audio must be float32, got {audio.dtype.name}; cast it with tf.cast")
    values = np.asarray(audio._value if hasattr(audio, "_value") else audio)
    if values.ndim != 2:
        _fail(op, f"audio must be 2-D [samples, channels], got shape {list(values.shape)}")
    rate = np.asarray(sample_rate._value if hasattr(sample_rate, "_value") else sample_rate)
    if rate.ndim != 0:
        _fail(op, f"sample_rate must be a scalar, got shape {list(rate.shape)}")
    frames, channels = values.shape
    if channels == 0:
        _fail(op, "audio must have at least one channel, got shape "
                  f"{list(values.shape)}")
    scaled = values.astype(np.float32) * np.float32(_INT16_SCALE)
    whole = np.trunc(scaled)
    rounded = whole + np.sign(scaled) * (np.abs(scaled - whole) >= 0.5)  # halves away from zero (roundf)
    samples = np.clip(np.nan_to_num(rounded, nan=0.0), -32768, 32767)  # NaN encodes as 0, as TF's
    body = samples.astype("<i2").tobytes()
    rate = int(rate)
    header = b"RIFF" + struct.pack("<I", 36 + len(body)) + b"WAVE" + b"fmt " + struct.pack(
        "<IHHIIHH", 16, _PCM, channels, rate, rate * 2 * channels, 2 * channels, 16) + b"data" + \
        struct.pack("<I", len(body))
    return Tensor(np.asarray(header + body, dtype=object))


@export("audio.encode_wav")
def encode_wav(audio, sample_rate, name=None):
    """Encode float32 samples [samples, channels] as a 16-bit PCM WAV file.

    Args:
        audio: float32 [samples, channels], nominally in [-1, 1); values are rounded to int16
            steps of 1/32768 and clamped.
        sample_rate: An int32 scalar (Hz).
        name: Unused; accepted for TF compatibility.

    Returns:
        A 0-d tf.string tensor: the file's bytes.

    Raises:
        InvalidArgumentError: `audio` is not 2-D float32 with a channel, or the rate not a scalar.
    """
    if is_graph_value(audio) or is_graph_value(sample_rate):
        return thread_state.graph.call(encode_wav_node, (audio, sample_rate), {},
                                       abstract=lambda *a, **k: TensorSpec([], dtypes.string),
                                       op_type="EncodeWav")
    return encode_wav_node(as_tensor(audio), as_tensor(sample_rate, dtype=dtypes.int32))
