"""tf.signal's short-time transforms, built from frame, the windows, rfft/irfft, dct and
overlap_and_add exactly as TF composes them (so their gradients are those parts' gradients):
stft, inverse_stft, inverse_stft_window_fn, mdct and inverse_mdct.
"""
import numpy as np

from minitf import dispatch
from minitf.convert import convert_to_tensor
from minitf.ops._core import Tensor, array_module, as_tensor
from minitf.ops.dct import dct
from minitf.ops.fft import fit_tensor, irfft, rfft
from minitf.ops.math import multiply, negative, subtract
from minitf.ops.reorder import reverse
from minitf.ops.shaping import concat, split
from minitf.ops.signal import frame, hann_window, overlap_and_add, scalar_int, vorbis_window
from minitf.api_export import export

__all__ = ["stft", "inverse_stft", "inverse_stft_window_fn", "mdct", "inverse_mdct"]


def _enclosing_power_of_two(n):
    """TF's default fft_length: the smallest power of two >= n."""
    return int(2 ** np.ceil(np.log(n) / np.log(2.0))) if n > 0 else 0


def _apply_window(frames, window_fn, length, dtype):
    if window_fn is None:
        return frames
    return multiply(frames, window_fn(length, dtype=dtype))


@export("signal.stft")
@dispatch.add_dispatch_support
def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False,
         name=None):
    """The short-time Fourier transform of real signals along their innermost dimension.

    Args:
      signals: a float32/float64 tensor [..., samples].
      frame_length, frame_step: scalar ints, the window length and hop in samples.
      fft_length: the FFT length (default: the smallest power of two >= frame_length).
      window_fn: a callable (length, dtype=...) -> window, or None for no window.
      pad_end: pad the end of the signals with zeros so every sample starts a frame.
      name: ignored.

    Returns:
      complex64/complex128 [..., frames, fft_length // 2 + 1]: rfft of each windowed frame.
      Differentiable with respect to `signals` (through frame, the window product and rfft).

    Raises:
      ValueError: a scalar signal, non-scalar lengths, an integer signal (its window has no
        integer form) or a dtype rfft does not take.
    """
    x = convert_to_tensor(signals)
    if x._value.ndim < 1:
        raise ValueError(f"Shape {tuple(x.shape)} must have rank at least 1 (stft frames the innermost "
                         f"dimension)")
    length = scalar_int(frame_length, "frame_length", "stft")
    step = scalar_int(frame_step, "frame_step", "stft")
    if fft_length is None:
        fft_length = _enclosing_power_of_two(length)
    else:
        fft_length = scalar_int(fft_length, "fft_length", "stft")
    framed = frame(x, length, step, pad_end=pad_end)
    framed = _apply_window(framed, window_fn, length, framed.dtype)
    return rfft(framed, [fft_length])


@export("signal.inverse_stft_window_fn")
@dispatch.add_dispatch_support
def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window_fn for inverse_stft that undoes `forward_window_fn` applied at hop `frame_step`:
    the forward window divided by the overlap-added sum of its squares (0 where that is 0)."""
    def inverse_stft_window_fn_inner(frame_length, dtype):
        step = scalar_int(frame_step, "frame_step", "inverse_stft_window_fn")
        length = scalar_int(frame_length, "frame_length", "inverse_stft_window_fn")
        window = as_tensor(forward_window_fn(length, dtype=dtype))
        w = window._value
        xp = array_module(w)
        overlaps = -(-length // step)
        denom = xp.zeros(overlaps * step, dtype=w.dtype)
        denom[:length] = w * w
        denom = xp.tile(denom.reshape(overlaps, step).sum(axis=0, keepdims=True), (overlaps, 1))
        denom = denom.reshape(overlaps * step)[:length]
        safe = xp.where(denom == 0, xp.ones((), w.dtype), denom)
        return Tensor(xp.where(denom == 0, xp.zeros((), w.dtype), w / safe))
    return inverse_stft_window_fn_inner


@export("signal.inverse_stft")
@dispatch.add_dispatch_support
def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """Signals from their STFT: irfft of each frame, cropped or zero-padded to frame_length,
    windowed, then overlap-added every frame_step samples. With
    `window_fn=tf.signal.inverse_stft_window_fn(frame_step)` it inverts stft's default window.

    Raises:
      ValueError: stfts of rank < 2, non-scalar lengths, or a dtype irfft does not take.
    """
    z = convert_to_tensor(stfts)
    if z._value.ndim < 2:
        raise ValueError(f"Shape {tuple(z.shape)} must have rank at least 2 (inverse_stft takes "
                         f"[..., frames, fft_unique_bins])")
    length = scalar_int(frame_length, "frame_length", "inverse_stft")
    step = scalar_int(frame_step, "frame_step", "inverse_stft")
    if fft_length is None:
        fft_length = _enclosing_power_of_two(length)
    else:
        fft_length = scalar_int(fft_length, "fft_length", "inverse_stft")
    frames = fit_tensor(irfft(z, [fft_length]), (length,))
    real_dtype = {"complex64": "float32", "complex128": "float64"}.get(z.dtype.name, z.dtype.name)
    frames = _apply_window(frames, window_fn, length, real_dtype)
    return overlap_and_add(frames, step)


@export("signal.mdct")
@dispatch.add_dispatch_support
def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """The modified discrete cosine transform of frames of `frame_length` samples (a multiple of
    4) taken every frame_length // 2 samples: [..., frames, frame_length // 2].

    Raises:
      ValueError: a frame_length that is not a multiple of 4, or a scalar signal.
    """
    x = convert_to_tensor(signals)
    if x._value.ndim < 1:
        raise ValueError(f"Shape {tuple(x.shape)} must have rank at least 1 (mdct frames the innermost "
                         f"dimension)")
    length = scalar_int(frame_length, "frame_length", "mdct")
    if length % 4 != 0:
        raise ValueError("The frame length must be a multiple of 4.")
    framed = frame(x, length, length // 2, pad_end=pad_end)
    if window_fn is not None:
        framed = multiply(framed, window_fn(length, dtype=framed.dtype))
    else:
        framed = multiply(framed, Tensor(array_module(framed._value).asarray(1.0 / np.sqrt(2), framed._value.dtype)))
    a, b, c, d = split(framed, 4, axis=-1)
    first = subtract(negative(reverse(c, [-1])), d)
    second = subtract(a, reverse(b, [-1]))
    return dct(concat([first, second], axis=-1), type=4, norm=norm)


@export("signal.inverse_mdct")
@dispatch.add_dispatch_support
def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """Signals from their MDCT: a type-4 DCT of each frame, unfolded to twice its length,
    windowed and overlap-added (the inverse of mdct with the same window and norm)."""
    z = convert_to_tensor(mdcts)
    if z._value.ndim < 2:
        raise ValueError(f"Shape {tuple(z.shape)} must have rank at least 2 (inverse_mdct takes "
                         f"[..., frames, frame_length // 2])")
    half = z._value.shape[-1]
    xp = array_module(z._value)
    if norm is None:
        idct4 = multiply(dct(z, type=4), Tensor(xp.asarray(0.5 / half, z._value.dtype)))
    elif norm == "ortho":
        idct4 = dct(z, type=4, norm="ortho")
    else:
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    lo, hi = split(idct4, 2, axis=-1)
    frames = concat([hi, negative(reverse(hi, [-1])), negative(reverse(lo, [-1])), negative(lo)], axis=-1)
    if window_fn is not None:
        frames = multiply(frames, window_fn(2 * half, dtype=z.dtype))
    else:
        frames = multiply(frames, Tensor(xp.asarray(1.0 / np.sqrt(2), z._value.dtype)))
    return overlap_and_add(frames, half)
