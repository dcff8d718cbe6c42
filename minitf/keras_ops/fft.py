"""keras.ops (math): Fourier transforms on (real, imag) pairs, and the short-time transforms.

Keras passes complex numbers as a pair of float tensors, and so do these. The transforms run on
the raw arrays of the input's array module (`xp.fft`); their gradients are declared with
`custom_gradient` and written with the transforms themselves, so they differentiate again:
the adjoint of the DFT F is n * ifft = conj(F(conj(.))).
"""
import numpy as np

from minitf.errors import errors
from minitf.custom_gradient import custom_gradient
from minitf.keras_ops.core import convert, keras_op, xp_of
from minitf.keras_ops.math_ops import frames
from minitf.ops import array as array_ops
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.indexing import getitem
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["fft", "fft2", "ifft2", "rfft", "irfft", "stft", "istft"]


def _complex(xr, xi):
    return xr._value + 1j * xi._value


def _split(xp, z, dtype):
    return Tensor(xp.real(z).astype(dtype)), Tensor(xp.imag(z).astype(dtype))


def _cfft_raw(xr, xi, axes):
    xp = xp_of(xr)
    z = _complex(xr, xi)
    z = xp.fft.fft(z, axis=-1) if len(axes) == 1 else xp.fft.fft2(z, axes=(-2, -1))
    return _split(xp, z, xr._value.dtype)


@custom_gradient
def _fft1(xr, xi):
    yr, yi = _cfft_raw(xr, xi, (-1,))

    def grad(gr, gi):
        a, b = _fft1(gr, math_ops.negative(gi))
        return a, math_ops.negative(b)
    return (yr, yi), grad


@custom_gradient
def _fft2(xr, xi):
    yr, yi = _cfft_raw(xr, xi, (-2, -1))

    def grad(gr, gi):
        a, b = _fft2(gr, math_ops.negative(gi))
        return a, math_ops.negative(b)
    return (yr, yi), grad


def _pair(x):
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(f"Input `x` should be a tuple of two tensors - real and imaginary."
                         f"Received: x={x}")
    real, imag = convert(x[0]), convert(x[1])
    if list(real.shape) != list(imag.shape):
        raise ValueError(f"Input `x` should be a tuple of two tensors - real and imaginary.Both "
                         f"the real and imaginary parts should have the same shape. Received: "
                         f"x[0].shape = {tuple(real.shape)}, x[1].shape = {tuple(imag.shape)}")
    if not real.dtype.is_floating or not imag.dtype.is_floating:
        raise ValueError(f"At least one tensor in input `x` is not of type float.Received: x={x}.")
    if real.dtype != imag.dtype:
        raise TypeError(f"The real and imaginary parts must have one dtype; received "
                        f"{real.dtype.name} and {imag.dtype.name}.")
    if real.dtype.name not in ("float32", "float64"):
        raise TypeError(f"Fourier transforms take float32 or float64 parts; received "
                        f"{real.dtype.name}.")
    return real, imag


@export("keras.ops.fft")
@keras_op
def fft(x):
    """The discrete Fourier transform along the last axis of the complex numbers x = (real,
    imag); returns (real, imag)."""
    return _fft1(*_pair(x))


def _at_least_2d(real, op):
    if real.shape.rank < 2:
        raise errors.invalid_argument(op, f"Input must have rank of at least 2 but got: "
                                          f"{list(real.shape)}")


@export("keras.ops.fft2")
@keras_op
def fft2(x):
    """The 2-D discrete Fourier transform over the last two axes; x and the result are
    (real, imag) pairs."""
    real, imag = _pair(x)
    _at_least_2d(real, "FFT2D")
    return _fft2(real, imag)


@export("keras.ops.ifft2")
@keras_op
def ifft2(x):
    """The inverse 2-D Fourier transform over the last two axes of (real, imag)."""
    real, imag = _pair(x)
    _at_least_2d(real, "StridedSlice")
    h = constant_ops.cast(int(real.shape[-2]), real.dtype)
    w = constant_ops.cast(int(real.shape[-1]), real.dtype)
    fr, fi = _fft2(real, math_ops.negative(imag))
    scale = math_ops.multiply(h, w)
    return math_ops.divide(fr, scale), math_ops.divide(math_ops.negative(fi), scale)


@custom_gradient
def _rfft_core(x):
    xp = xp_of(x)
    z = xp.fft.rfft(x._value, axis=-1)
    yr, yi = _split(xp, z, x._value.dtype)
    n = int(x.shape[-1])

    def grad(gr, gi):
        pad = [[0, 0]] * (gr.shape.rank - 1) + [[0, n - int(gr.shape[-1])]]
        a, _ = _fft1(array_ops.pad(gr, pad), math_ops.negative(array_ops.pad(gi, pad)))
        return a
    return (yr, yi), grad


def _weights(n, m, dtype):
    """How often each half-spectrum bin appears in the full spectrum (1 at 0 and Nyquist)."""
    w = np.full(m, 2.0)
    w[0] = 1.0
    if n % 2 == 0 and m > 1:
        w[-1] = 1.0
    return constant_ops.constant(w / n, dtype=dtype)


def _irfft_core(zr, zi, n):
    @custom_gradient
    def core(zr, zi):
        xp = xp_of(zr)
        out = xp.fft.irfft(_complex(zr, zi), n=n, axis=-1)
        y = Tensor(out.astype(zr._value.dtype))

        def grad(g):
            gr, gi = _rfft_core(g)
            w = _weights(n, int(zr.shape[-1]), zr.dtype)
            return math_ops.multiply(gr, w), math_ops.multiply(gi, w)
        return y, grad
    return core(zr, zi)


def _fit_last(x, length):
    """`x` cropped or zero-padded along its last axis to `length`."""
    have = int(x.shape[-1])
    if have > length:
        return getitem(x, (Ellipsis, slice(0, length)))
    if have < length:
        return array_ops.pad(x, [[0, 0]] * (x.shape.rank - 1) + [[0, length - have]])
    return x


@export("keras.ops.rfft")
@keras_op
def rfft(x, fft_length=None):
    """The Fourier transform of the real signal x along its last axis (the n//2 + 1
    non-negative frequencies), as (real, imag); x is cropped or padded to `fft_length`."""
    x = convert(x)
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"rfft takes float32 or float64 signals; received {x.dtype.name}.")
    if fft_length is not None:
        x = _fit_last(x, int(fft_length))
    return _rfft_core(x)


@export("keras.ops.irfft")
@keras_op
def irfft(x, fft_length=None):
    """The real signal of length `fft_length` (2 * (m - 1) by default) whose half spectrum is
    the (real, imag) pair x."""
    real, imag = _pair(x)
    m = int(real.shape[-1])
    n = 2 * (m - 1) if fft_length is None else int(fft_length)
    keep = n // 2 + 1
    return _irfft_core(_fit_last(real, keep), _fit_last(imag, keep), n)


def _window(window, length, dtype, name):
    if isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError(f'If a string is passed to `window`, it must be one of `"hann"`, '
                             f'`"hamming"`. Received: window={window}')
        a, b = (0.5, 0.5) if window == "hann" else (0.54, 0.46)
        n = np.arange(length)
        values = a - b * np.cos(2 * np.pi * n / length)
        return constant_ops.constant(values, dtype=dtype)
    w = convert(window, dtype)
    if w.shape.rank != 1 or int(w.shape[-1]) != length:
        raise ValueError(f"The shape of `window` must be equal to [sequence_length].Received: "
                         f"window shape={tuple(w.shape)}")
    return w


@export("keras.ops.stft")
@keras_op
def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """The short-time Fourier transform of the real signal x along its last axis, as (real,
    imag) of shape (..., frames, fft_length // 2 + 1)."""
    if not isinstance(sequence_stride, int) or sequence_stride <= 0:
        raise ValueError(f"`sequence_stride` must be a positive integer. Received: "
                         f"sequence_stride={sequence_stride}")
    x = convert(x)
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"Invalid input type. Expected `float32` or `float64`. Received: input "
                        f"type={x.dtype.name}")
    if fft_length < sequence_length:
        raise ValueError(f"`fft_length` must equal or larger than `sequence_length`. Received: "
                         f"sequence_length={sequence_length}, fft_length={fft_length}")
    if isinstance(window, str) and window not in ("hann", "hamming"):
        _window(window, sequence_length, x.dtype.name, "stft")
    if center:
        pad = [[0, 0]] * (x.shape.rank - 1) + [[fft_length // 2, fft_length // 2]]
        x = array_ops.pad(x, pad, mode="REFLECT")
    left = (fft_length - sequence_length) // 2
    right = fft_length - sequence_length - left
    framed = frames(x, fft_length, sequence_stride)
    if window is not None:
        w = array_ops.pad(_window(window, sequence_length, x.dtype.name, "stft"), [[left, right]])
        framed = math_ops.multiply(framed, w)
    return _rfft_core(framed)


def _overlap_add(framed, step):
    """Frames (..., n, length) summed at offsets of `step`: (..., (n - 1) * step + length)."""
    n, length = int(framed.shape[-2]), int(framed.shape[-1])
    total = (n - 1) * step + length if n else 0
    index = (np.arange(n)[:, None] * step + np.arange(length)[None, :]).reshape(-1)
    lead = list(framed.shape[:-2])
    flat = array_ops.reshape(framed, [-1, n * length])
    moved = array_ops.transpose(flat)  # (n*length, batch)
    out = array_ops.scatter_nd(index.reshape(-1, 1).astype(np.int32), moved,
                       [total, int(flat.shape[0])])
    return array_ops.reshape(array_ops.transpose(out), lead + [total])


@export("keras.ops.istft")
@keras_op
def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
          center=True):
    """The inverse of `stft`: the real signal from its (real, imag) short-time transform."""
    if not isinstance(sequence_stride, int) or sequence_stride <= 0:
        raise ValueError(f"`sequence_stride` must be a positive integer. Received: "
                         f"sequence_stride={sequence_stride}")
    real, imag = _pair(x)
    dtype = real.dtype.name
    n_frames = int(real.shape[-2])
    expected = fft_length + sequence_stride * (n_frames - 1)
    left = (fft_length - sequence_length) // 2
    right = fft_length - sequence_length - left
    keep = fft_length // 2 + 1
    framed = _irfft_core(_fit_last(real, keep), _fit_last(imag, keep), fft_length)
    if window is not None:
        w = array_ops.pad(_window(window, sequence_length, dtype, "istft"), [[left, right]])
        overlaps = -(-fft_length // sequence_stride)
        denom = array_ops.pad(math_ops.square(w), [[0, overlaps * sequence_stride - fft_length]])
        denom = array_ops.reshape(denom, [overlaps, sequence_stride])
        denom = reduce_ops.reduce_sum(denom, axis=0, keepdims=True)
        denom = array_ops.reshape(array_ops.tile(denom, [overlaps, 1]), [-1])
        framed = math_ops.multiply(framed, math_ops.divide(w, getitem(denom, slice(0, fft_length))))
    signal = _overlap_add(framed, sequence_stride)
    start = 0 if center is False else fft_length // 2
    if length is not None:
        end = start + length
    elif center is True:
        end = -(fft_length // 2)
    else:
        end = expected
    return getitem(signal, (Ellipsis, slice(start, end)))
