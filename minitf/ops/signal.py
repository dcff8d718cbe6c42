"""tf.signal's framing and windows: frame, overlap_and_add (its adjoint), and the hann, hamming,
kaiser, kaiser-bessel-derived and vorbis windows.

frame is a pad and one gather, so its gradient is gather's (a scatter-add); overlap_and_add's
gradient frames the upstream gradient again. Windows are constants (no gradient), made on the
default device in the requested floating dtype.
"""
import numpy as np

from minitf import backend, dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops._core import Op, Tensor, Variable, thread_state, array_module, as_tensor, record
from minitf.ops.gather import gather, pad
from minitf.ops.shaping import reshape
from minitf.api_export import export

__all__ = ["frame", "overlap_and_add", "hann_window", "hamming_window", "kaiser_window",
           "kaiser_bessel_derived_window", "vorbis_window"]


def scalar_int(value, what, op_name, allow_float=False):
    """A Python int from a scalar argument, with TF's errors: ValueError for a non-scalar,
    InvalidArgumentError (TF's integer arithmetic on it) for a float."""
    if isinstance(value, (Tensor, Variable)):
        raw = np.asarray(value.numpy())
    else:
        raw = np.asarray(value)
    if raw.ndim != 0:
        raise ValueError(f"Shape {raw.shape} must have rank 0: {op_name}'s {what} is a scalar")
    if raw.dtype.kind not in "iu":
        if allow_float:
            return raw.item()
        raise errors.invalid_argument(
            "FloorDiv", f"{op_name}: {what} must be an integer, got {raw.item()!r} ({raw.dtype.name})")
    return int(raw)


def _signal_tensor(signal, op_name, min_rank):
    x = as_tensor(signal)
    if x.dtype.name == "string":
        raise TypeError(f"{op_name}: a string signal cannot be framed; pass numbers")
    if x._value.ndim < min_rank:
        raise ValueError(f"Shape {tuple(x.shape)} must have rank at least {min_rank} ({op_name})")
    return x


@export("signal.frame")
@dispatch.add_dispatch_support
def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Overlapping frames of `frame_length` samples taken every `frame_step` samples along `axis`.

    Args:
      signal: a tensor of rank >= 1.
      frame_length, frame_step: non-negative / positive scalar ints.
      pad_end: pad the end with `pad_value` so the last samples start a frame too.
      pad_value: a scalar of the signal's dtype.
      axis: the axis to frame (negative counts from the end).
      name: ignored.

    Returns:
      A tensor of shape signal.shape[:axis] + [frames, frame_length] + signal.shape[axis + 1:]:
      frames = max(0, 1 + (n - frame_length) // frame_step), or ceil(n / frame_step) with
      pad_end. The gradient scatter-adds back into the samples.

    Raises:
      ValueError: a scalar signal or non-scalar lengths. IndexError: an axis out of range.
      InvalidArgumentError: a zero frame_step, a negative frame_length or a float length.
      TypeError: a pad_value that does not convert to the signal's dtype.
    """
    x = _signal_tensor(signal, "frame", 1)
    # TF checks the ranks, then indexes the shape with axis, then does arithmetic on the lengths
    length = scalar_int(frame_length, "frame_length", "frame", allow_float=True)
    step = scalar_int(frame_step, "frame_step", "frame", allow_float=True)
    axis = scalar_int(axis, "axis", "frame")
    nd = x._value.ndim
    axis = range(nd)[axis]  # IndexError out of range, as TF's static shape code raises
    length = scalar_int(length, "frame_length", "frame")
    step = scalar_int(step, "frame_step", "frame")
    if step == 0:
        raise errors.invalid_argument("FloorDiv", f"Integer division by zero: frame's frame_step is 0; "
                                                  f"pass a positive step")
    if length < 0:
        raise errors.invalid_argument("Range", f"Requires start <= limit when delta > 0: 0/{length} "
                                               f"(frame_length must be >= 0)")
    n = x._value.shape[axis]
    if pad_end:
        fill = convert_to_tensor(pad_value, dtype=x.dtype)
        if fill._value.ndim != 0:
            raise ValueError(f"Shape {tuple(fill.shape)} must have rank 0: frame's pad_value is a scalar")
        frames = max(0, -(-n // step))
        extra = max(0, length + step * (frames - 1) - n)
        if extra:
            paddings = [[0, 0]] * nd
            paddings[axis] = [0, extra]
            x = pad(x, paddings, constant_values=fill)
    else:
        frames = max(0, (n - length + step) // step)
    return take_frames(x, frames, length, step, axis)


def take_frames(x, frames, length, step, axis):
    """[..., frames, length, ...] slices of x along `axis`, one gather. The gather runs on a
    leading axis of size 1 added to x, so its gradient is a dense tensor (a gather along axis 0
    would hand back IndexedSlices, where TF's frame gives a dense gradient)."""
    index = (np.arange(frames, dtype=np.int64)[:, None] * step
             + np.arange(length, dtype=np.int64)[None, :])
    xp = array_module(x._value)
    shape = tuple(x._value.shape)
    lifted = reshape(x, (1,) + shape)
    out = gather(lifted, Tensor(xp.asarray(index)), axis=axis + 1)
    return reshape(out, shape[:axis] + (frames, length) + shape[axis + 1:])


OVERLAP_AND_ADD = Op("OverlapAndAdd", batchable=True)


def _overlap_add_raw(xp, v, step):
    frames, length = v.shape[-2], v.shape[-1]
    lead = v.shape[:-2]
    out_len = max(0, length + step * (frames - 1))
    if frames == 0 or length == 0:
        return xp.zeros(lead + (out_len,), dtype=v.dtype)
    segments = -(-length // step)
    padded = xp.zeros(lead + (frames, segments * step), dtype=v.dtype)
    padded[..., :length] = v
    parts = padded.reshape(lead + (frames, segments, step))
    out = xp.zeros(lead + (frames + segments - 1, step), dtype=v.dtype)
    for j in range(segments):  # one shifted add per step-long segment of a frame
        out[..., j:j + frames, :] += parts[..., :, j, :]
    return out.reshape(lead + ((frames + segments - 1) * step,))[..., :out_len]


def _overlap_add_op(x, step):
    xp = array_module(x._value)
    y = Tensor(_overlap_add_raw(xp, x._value, step))
    if thread_state.active:
        frames, length = x._value.shape[-2], x._value.shape[-1]

        record(OVERLAP_AND_ADD, (x,), (y,),
               lambda g: take_frames(g, frames, length, step, g._value.ndim - 1))
    return y


@export("signal.overlap_and_add")
@dispatch.add_dispatch_support
def overlap_and_add(signal, frame_step, name=None):
    """Reconstructs a signal from frames [..., frames, frame_length] placed `frame_step` apart
    and summed where they overlap: shape [..., frame_length + frame_step * (frames - 1)].

    Raises:
      ValueError: a signal of rank < 2, a float or non-scalar frame_step.
      InvalidArgumentError: frame_step 0.
    """
    x = _signal_tensor(signal, "overlap_and_add", 2)
    raw = np.asarray(frame_step.numpy() if isinstance(frame_step, (Tensor, Variable)) else frame_step)
    if raw.ndim != 0:
        raise ValueError(f"Shape {raw.shape} must have rank 0: overlap_and_add's frame_step is a scalar")
    if raw.dtype.kind not in "iu":
        raise ValueError(f"frame_step must be an integer. Got {raw.dtype.name} ({raw.item()!r}); "
                         f"pass an int")
    step = int(raw)
    if step == x._value.shape[-1]:  # TF's fast path: the frames laid end to end (a reshape)
        shape = tuple(x._value.shape)
        return reshape(x, shape[:-2] + (shape[-2] * shape[-1],))
    if step <= 0:
        raise errors.invalid_argument("Pad", f"Paddings must be non-negative: overlap_and_add's frame_step "
                                             f"is {step}; pass a positive step")
    return _overlap_add_op(x, step)


# -- windows -------------------------------------------------------------------------------------

def _window_args(window_length, dtype, op_name):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype!r}")
    if isinstance(window_length, float) or (isinstance(window_length, np.ndarray) and window_length.dtype.kind == "f"):
        raise TypeError(f"Cannot convert {window_length!r} to EagerTensor of dtype int32 ({op_name}'s "
                        f"window_length is an integer)")
    n = scalar_int(window_length, "window_length", op_name)
    if n < 0:
        raise errors.invalid_argument("Range", f"Requires start <= limit when delta > 0: 0/{n} "
                                               f"({op_name}'s window_length must be >= 0)")
    return n, dtype


def _as_window(values, dtype):
    """A host float array as a tensor of `dtype` on the default device (computed in that dtype's
    precision, as TF computes the window)."""
    xp = backend.default_module()
    return Tensor(xp.asarray(np.asarray(values).astype(dtype.as_numpy_dtype)))


def _raised_cosine(window_length, periodic, dtype, a, b, op_name):
    n, dtype = _window_args(window_length, dtype, op_name)
    if n == 1:
        return _as_window(np.ones(1), dtype)
    periodic = bool(np.asarray(periodic.numpy() if isinstance(periodic, (Tensor, Variable)) else periodic))
    even = 1 - n % 2
    np_dtype = dtype.as_numpy_dtype
    denom = np_dtype(n + int(periodic) * even - 1)
    count = np.arange(n).astype(np_dtype)
    cos_arg = np_dtype(2 * np.pi) * count / denom
    return _as_window(np_dtype(a) - np_dtype(b) * np.cos(cos_arg), dtype)


@export("signal.hann_window")
@dispatch.add_dispatch_support
def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """The Hann window 0.5 - 0.5 cos(2 pi k / (N - 1)) of `window_length` samples; periodic
    (the default) uses N = window_length + 1 for even lengths, for spectral analysis.

    Raises:
      ValueError: a non-floating dtype or a non-scalar length. TypeError: a float length.
    """
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5, "hann_window")


@export("signal.hamming_window")
@dispatch.add_dispatch_support
def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """The Hamming window 0.54 - 0.46 cos(2 pi k / (N - 1)) (periodic as hann_window)."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46, "hamming_window")


def _kaiser_host(n, beta, np_dtype):
    if n == 1:
        return np.ones(1, np_dtype)
    half = (np.float32(n) - 1) / 2
    arg = np.arange(-half, half + 0.1, dtype=np.float32).astype(np_dtype)
    half = np_dtype(half)
    beta = np_dtype(beta)
    num = beta * np.sqrt(np.maximum(0, 1 - (arg / half) ** 2)) if n else arg
    with np.errstate(over="ignore", invalid="ignore"):
        return (np.exp(num - beta) * (np.i0(num.astype(np.float64)) * np.exp(-np.abs(num.astype(np.float64)))
                                      / (np.i0(float(beta)) * np.exp(-abs(float(beta)))))).astype(np_dtype)


@export("signal.kaiser_window")
@dispatch.add_dispatch_support
def kaiser_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """The Kaiser window I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta) of `window_length`
    samples (computed with exponentially scaled Bessel functions, as TF)."""
    n, dtype = _window_args(window_length, dtype, "kaiser_window")
    return _as_window(_kaiser_host(n, float(np.asarray(beta)), dtype.as_numpy_dtype), dtype)


@export("signal.kaiser_bessel_derived_window")
@dispatch.add_dispatch_support
def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """The Kaiser-Bessel-derived window (for MDCTs): square roots of the normalized cumulative
    sums of a Kaiser window of window_length // 2 + 1 samples, mirrored."""
    n, dtype = _window_args(window_length, dtype, "kaiser_bessel_derived_window")
    np_dtype = dtype.as_numpy_dtype
    kaiser = _kaiser_host(n // 2 + 1, float(np.asarray(beta)), np_dtype)
    csum = np.cumsum(kaiser).astype(np_dtype)
    half = np.sqrt(csum[:-1] / csum[-1]).astype(np_dtype)
    return _as_window(np.concatenate([half, half[::-1]]), dtype)


@export("signal.vorbis_window")
@dispatch.add_dispatch_support
def vorbis_window(window_length, dtype=dtypes.float32, name=None):
    """The Vorbis power-complementary window sin(pi / 2 sin^2(pi (k + 0.5) / N))."""
    n, dtype = _window_args(window_length, dtype, "vorbis_window")
    np_dtype = dtype.as_numpy_dtype
    arg = np.arange(n).astype(np_dtype)
    inner = np.sin(np_dtype(np.pi) / np_dtype(max(n, 1)) * (arg + np_dtype(0.5)))
    return _as_window(np.sin(np_dtype(np.pi / 2.0) * inner ** 2), dtype)
