"""Op table entries for reading files, WAV audio and spectrograms: ReadFile, DecodeWav, EncodeWav,
RFFT and framing (tf.signal.frame, exported as TF builds it for a known signal length: a gather
of every frame's sample indices)."""
import numpy as np

from minitf.dtypes import dtypes
from minitf.ops import audio_ops, fft, io_ops, signal
from minitf.saved_model.op_table import define, exports
from minitf.saved_model.ops_math import static_list
from minitf.saved_model.tensors import Attr

__all__ = []

_I32 = dtypes.int32
_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


@define("ReadFile", ("contents",))
def _read_file(ins, a, ctx):
    return io_ops.read_file(ins[0])


@exports(io_ops.read_file)
def _export_read_file(e, args, op):
    return e.node("ReadFile", [e.ref(args["filename"], dtypes.string)])


@define("DecodeWav", ("audio", "sample_rate"))
def _decode_wav(ins, a, ctx):
    return list(audio_ops.decode_wav(ins[0], desired_channels=a.get("desired_channels", -1),
                                     desired_samples=a.get("desired_samples", -1)))


@exports(audio_ops.decode_wav_node)
def _export_decode_wav(e, args, op):
    return e.node("DecodeWav", [e.ref(args["contents"], dtypes.string)],
                  {"desired_channels": Attr.int(args["desired_channels"]),
                   "desired_samples": Attr.int(args["desired_samples"])}, n_out=2)


@define("EncodeWav", ("contents",))
def _encode_wav(ins, a, ctx):
    return audio_ops.encode_wav(ins[0], ins[1])


@exports(audio_ops.encode_wav_node)
def _export_encode_wav(e, args, op):
    return e.node("EncodeWav", [e.ref(args["audio"], dtypes.float32), e.ref(args["sample_rate"], _I32)])


@define("RFFT")
def _rfft(ins, a, ctx):
    return fft.rfft(ins[0], fft_length=static_list(ins[1]))


@exports(fft.rfft)
def _export_rfft(e, args, op):
    x = args["input_tensor"]
    length = args["fft_length"]
    if length is None:
        length = [x.shape[-1]]
    length = static_list(length)
    if length is None or any(d is None for d in np.asarray(length, dtype=object).reshape(-1)):
        raise e.error("the transform length is unknown; pass fft_length or give the signal a known length")
    real = x.dtype if e.symbolic(x) else dtypes.float32
    n = int(np.asarray(length).reshape(-1)[0])
    source, inner = e.ref(x, real), x.shape[-1]
    rank = len(x.shape)
    if inner is None:
        raise e.error("the signal's innermost length is unknown")
    if inner < n:  # the kernel wants at least n samples: pad as TF's rfft wrapper does
        paddings = np.zeros((rank, 2), np.int32)
        paddings[-1, 1] = n - inner
        source = e.node("Pad", [source, e.const(paddings, _I32, "paddings")],
                        {"T": Attr.type(real), "Tpaddings": Attr.type(_I32)}, suffix="pad")[0]
    elif inner > n:  # and uses only the first n
        begin, size = np.zeros(rank, np.int32), np.full(rank, -1, np.int32)
        size[-1] = n
        source = e.node("Slice", [source, e.const(begin, _I32, "begin"), e.const(size, _I32, "size")],
                        {"T": Attr.type(real), "Index": Attr.type(_I32)}, suffix="crop")[0]
    return e.node("RFFT", [source, e.const(np.asarray([n]), _I32, "fft_length")],
                  {"Treal": Attr.type(real), "Tcomplex": Attr.type(_COMPLEX_OF[real])})


@exports(signal.frame)
def _export_frame(e, args, op):
    x = args["signal"]
    rank = len(x.shape)
    axis = args["axis"] + rank if args["axis"] < 0 else args["axis"]
    length, step = static_list(args["frame_length"]), static_list(args["frame_step"])
    size = x.shape[axis]
    if size is None or not isinstance(length, int) or not isinstance(step, int):
        raise e.error("framing is exported for a known signal length and frame sizes only")
    source = e.ref(x)
    if args["pad_end"]:
        frames = -(-size // step)
        pad = max(0, (frames - 1) * step + length - size)
        paddings = np.zeros((rank, 2), np.int32)
        paddings[axis, 1] = pad
        source = e.node("PadV2", [source, e.const(paddings, _I32, "paddings"),
                                  e.ref(args["pad_value"], x.dtype, "pad_value")],
                        {"T": Attr.type(x.dtype), "Tpaddings": Attr.type(_I32)}, suffix="pad")[0]
        size += pad
    frames = max(0, 1 + (size - length) // step) if size >= length else 0
    indices = np.arange(frames, dtype=np.int32)[:, None] * step + np.arange(length, dtype=np.int32)[None, :]
    return e.node("GatherV2", [source, e.const(indices, _I32, "indices"), e.const(axis, _I32, "axis")],
                  {"Tparams": Attr.type(x.dtype), "Tindices": Attr.type(_I32), "Taxis": Attr.type(_I32),
                   "batch_dims": Attr.int(0)})
