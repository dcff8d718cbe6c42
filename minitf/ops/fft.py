"""tf.signal's discrete Fourier transforms over the innermost 1, 2 or 3 dimensions (fft, ifft,
rfft, irfft and their 2d/3d forms) and fftshift/ifftshift, with TF's gradients.

Complex transforms take complex64/complex128 and give the same dtype; real transforms take
float32/float64 and give complex64/complex128 (irfft the reverse). `fft_length` crops or
zero-pads each transformed dimension as TF's kernels do. Gradients (for a real loss, TF's
convention dL/dx + i dL/dy): fft's is size * ifft(g), ifft's fft(g) / size; rfft's is the real
adjoint of the half spectrum, irfft's rfft(g) weighted [1, 2, ..., 2, 1] / size. TF registers
no gradient for rfft3d and irfft3d: backprop through them raises LookupError, as in TF.
"""
import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops._core import Op, Tensor, Variable, thread_state, array_module, as_tensor, record
from minitf.ops.gather import pad
from minitf.ops.indexing import slice_
from minitf.ops.math import multiply
from minitf.ops.reorder import roll
from minitf.api_export import export

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d",
           "irfft2d", "rfft3d", "irfft3d", "fftshift", "ifftshift"]

_COMPLEX = ("complex64", "complex128")
_TO_COMPLEX = {"float32": "complex64", "float64": "complex128"}
_TO_REAL = {"complex64": "float32", "complex128": "float64"}


def preferred(x, dtype):
    """`x` converted as TF's Python layer converts with a preferred dtype: tensors keep theirs,
    other values take `dtype` when they convert to it, else their own."""
    if isinstance(x, (Tensor, Variable)):
        return as_tensor(x)
    try:
        return convert_to_tensor(x, dtype=dtype)
    except (TypeError, ValueError):
        return convert_to_tensor(x)


def _size(shape, rank):
    return int(np.prod(shape[len(shape) - rank:], dtype=np.int64))


def _scale(t, factor):
    """t * factor, the factor a real number in t's dtype (a plain product: no conjugate needed)."""
    xp = array_module(t._value)
    return multiply(t, Tensor(xp.asarray(factor, dtype=t._value.dtype)))


# -- complex transforms --------------------------------------------------------------------------

def _complex_op(name):
    return Op(name, batchable=True, dtypes=_COMPLEX)


_CFFT = {(1, False): _complex_op("FFT"), (1, True): _complex_op("IFFT"),
         (2, False): _complex_op("FFT2D"), (2, True): _complex_op("IFFT2D"),
         (3, False): _complex_op("FFT3D"), (3, True): _complex_op("IFFT3D")}


def _cfft_raw(xp, v, rank, inverse):
    if v.size == 0:
        return v.copy()
    fn = xp.fft.ifftn if inverse else xp.fft.fftn
    return fn(v, axes=tuple(range(-rank, 0))).astype(v.dtype, copy=False)


def _cfft(x, rank, inverse):
    op = _CFFT[(rank, inverse)]
    x = preferred(x, dtypes.complex64) if not isinstance(x, (Tensor, Variable)) else as_tensor(x)
    op.check_dtype(x, "Tcomplex")
    if x._value.ndim < rank:
        raise op.invalid(f"Input must have rank of at least {rank} but got: {list(x.shape)}; "
                         f"{op.name} transforms the innermost {rank} dimension(s)")
    return _cfft_op(x, rank, inverse)


def _cfft_op(x, rank, inverse):
    op = _CFFT[(rank, inverse)]
    y = Tensor(_cfft_raw(array_module(x._value), x._value, rank, inverse))
    if thread_state.active:
        def grad(g):
            n = _size(g._value.shape, rank)
            back = _cfft_op(g, rank, not inverse)
            return _scale(back, 1.0 / n if inverse else float(n)) if n else back
        record(op, (x,), (y,), grad)
    return y


@export("signal.fft")
@dispatch.add_dispatch_support
def fft(input, name=None):  # noqa: A002 (TF's argument name)
    """The discrete Fourier transform over the innermost dimension of a complex64/complex128
    tensor (rank >= 1); non-tensor input converts to complex64, as TF's generated op does.

    Raises:
      InvalidArgumentError: a real or integer dtype (cast with tf.cast, or use rfft), or a scalar.
    """
    return _cfft(input, 1, False)


@export("signal.ifft")
@dispatch.add_dispatch_support
def ifft(input, name=None):  # noqa: A002
    """The inverse discrete Fourier transform over the innermost dimension (1/n normalized)."""
    return _cfft(input, 1, True)


@export("signal.fft2d")
@dispatch.add_dispatch_support
def fft2d(input, name=None):  # noqa: A002
    """The 2-D discrete Fourier transform over the innermost two dimensions (rank >= 2)."""
    return _cfft(input, 2, False)


@export("signal.ifft2d")
@dispatch.add_dispatch_support
def ifft2d(input, name=None):  # noqa: A002
    """The 2-D inverse discrete Fourier transform over the innermost two dimensions."""
    return _cfft(input, 2, True)


@export("signal.fft3d")
@dispatch.add_dispatch_support
def fft3d(input, name=None):  # noqa: A002
    """The 3-D discrete Fourier transform over the innermost three dimensions (rank >= 3)."""
    return _cfft(input, 3, False)


@export("signal.ifft3d")
@dispatch.add_dispatch_support
def ifft3d(input, name=None):  # noqa: A002
    """The 3-D inverse discrete Fourier transform over the innermost three dimensions."""
    return _cfft(input, 3, True)


# -- real transforms -----------------------------------------------------------------------------

_RFFT = {1: Op("RFFT", batchable=True), 2: Op("RFFT2D", batchable=True), 3: Op("RFFT3D", batchable=True)}
_IRFFT = {1: Op("IRFFT", batchable=True), 2: Op("IRFFT2D", batchable=True), 3: Op("IRFFT3D", batchable=True)}
RFFT_ADJOINT = Op("RFFTGrad", batchable=True)


def _lengths(fft_length, x, rank, inverse, op):
    """fft_length as a tuple of `rank` ints (inferred from x when None, as TF infers it)."""
    if fft_length is None:
        dims = list(x._value.shape[x._value.ndim - rank:])
        if inverse and dims:
            dims[-1] = max(0, 2 * (dims[-1] - 1))
        return tuple(int(d) for d in dims)
    raw = np.asarray(fft_length.numpy() if isinstance(fft_length, (Tensor, Variable)) else fft_length)
    if raw.ndim == 0:
        raise TypeError(f"'{raw.dtype.name}' object is not iterable: {op.name}'s fft_length must be a "
                        f"list of {rank} int(s), e.g. [{int(raw)}]")
    if raw.dtype.kind not in "iu":
        raise TypeError(f"{op.name}: fft_length must hold integers, got {raw.tolist()!r}")
    if raw.shape != (rank,):
        raise op.invalid(f"fft_length must be a vector of length {rank}, got {raw.tolist()}")
    lengths = tuple(int(v) for v in raw)
    if min(lengths) <= 0:
        raise op.invalid(f"fft_length must be positive, got {list(lengths)}: a zero-point FFT is "
                         f"undefined (TF's kernel aborts the process on it)")
    return lengths


def _fit(xp, v, shape_tail):
    """v cropped or zero-padded along its last len(shape_tail) dimensions to shape_tail."""
    rank = len(shape_tail)
    lead = v.ndim - rank
    crop = tuple(slice(None) for _ in range(lead)) + tuple(slice(0, n) for n in shape_tail)
    v = v[crop]
    pads = [(0, 0)] * lead + [(0, max(0, n - d)) for n, d in zip(shape_tail, v.shape[lead:])]
    if any(p for _, p in pads):
        v = xp.pad(v, pads)
    return v


def _rfft_raw(xp, v, lengths, complex_dtype):
    rank = len(lengths)
    lead = v.shape[:v.ndim - rank]
    out_tail = lengths[:-1] + ((lengths[-1] // 2 + 1) if lengths[-1] else 0,)
    if v.size == 0 or 0 in lengths:
        return xp.zeros(lead + out_tail, dtype=complex_dtype)
    return xp.fft.rfftn(v, s=lengths, axes=tuple(range(-rank, 0))).astype(complex_dtype, copy=False)


def _rfft_op(x, lengths):
    rank = len(lengths)
    cdt = _TO_COMPLEX[x.dtype.name]
    y = Tensor(_rfft_raw(array_module(x._value), x._value, lengths, cdt))
    if thread_state.active:
        in_tail = tuple(x._value.shape[x._value.ndim - rank:])
        if rank == 3:
            record(_RFFT[3], (x,), (y,), _no_gradient("RFFT3D"))
        else:
            record(_RFFT[rank], (x,), (y,), lambda g: _rfft_adjoint(g, lengths, in_tail))
    return y


def _rfft_adjoint(g, lengths, in_tail):
    """The gradient of rfft with respect to its real input: Re(sum over the half spectrum of
    g_k e^{+2 pi i k n / N}), i.e. size * Re(ifftn(g zero-padded to the full last axis)), then
    cropped or padded back to the input's length."""
    xp = array_module(g._value)
    rank = len(lengths)
    real_dtype = _TO_REAL[g.dtype.name]
    v = g._value
    if v.size == 0:
        full = xp.zeros(v.shape[:v.ndim - rank] + lengths, dtype=real_dtype)
    else:
        half = _fit(xp, v, lengths[:-1] + (lengths[-1] // 2 + 1,))
        padded = _fit(xp, half, lengths)
        full = (xp.fft.ifftn(padded, axes=tuple(range(-rank, 0))).real * _size(lengths, rank))
    y = Tensor(_fit(xp, full, in_tail).astype(real_dtype, copy=False))
    if thread_state.active:
        record(RFFT_ADJOINT, (g,), (y,), lambda u: _rfft_op(u, lengths))
    return y


def _no_gradient(name):
    def grad(*_):
        raise LookupError(f"gradient registry has no entry for: {name} (TF defines no gradient for "
                          f"the 3-D real FFTs; use fft3d on a complex cast, or a 1-D/2-D transform)")
    return grad


def _real_input(x, rank, op):
    x = preferred(x, dtypes.float32)
    if x.dtype.name not in _TO_COMPLEX:
        raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x!r}")
    if x._value.ndim < rank:
        raise ValueError(f"Shape {tuple(x.shape)} must have rank at least {rank} ({op.name} transforms "
                         f"the innermost {rank} dimension(s))")
    return x


def _rfft(input_tensor, fft_length, rank):
    op = _RFFT[rank]
    x = _real_input(input_tensor, rank, op)
    return _rfft_op(x, _lengths(fft_length, x, rank, False, op))


def _irfft_raw(xp, v, lengths, real_dtype):
    rank = len(lengths)
    lead = v.shape[:v.ndim - rank]
    if v.size == 0:
        return xp.zeros(lead + lengths, dtype=real_dtype)
    return xp.fft.irfftn(v, s=lengths, axes=tuple(range(-rank, 0))).astype(real_dtype, copy=False)


def _irfft_op(z, lengths):
    rank = len(lengths)
    op = _IRFFT[rank]
    rdt = _TO_REAL[z.dtype.name]
    y = Tensor(_irfft_raw(array_module(z._value), z._value, lengths, rdt))
    if thread_state.active:
        if rank == 3:
            record(op, (z,), (y,), _no_gradient("IRFFT3D"))
        else:
            in_tail = tuple(z._value.shape[z._value.ndim - rank:])
            record(op, (z,), (y,), lambda g: _irfft_grad(g, lengths, in_tail))
    return y


def _irfft_grad(g, lengths, in_tail):
    """TF's IRFFT gradient: rfft(g) * [1, 2, ..., 2, (1 if the length is even)] / size, then
    cropped or zero-padded to the input's inner shape."""
    xp = array_module(g._value)
    rank = len(lengths)
    n_last = lengths[-1]
    half = n_last // 2 + 1
    mask = np.full(half, 2.0)
    mask[0] = 1.0
    if n_last % 2 == 0:
        mask[-1] = 1.0
    mask /= _size(lengths, rank)
    spectrum = _rfft_op(g, lengths)
    weighted = multiply(spectrum, Tensor(xp.asarray(mask.astype(_TO_COMPLEX[g.dtype.name]))))
    return fit_tensor(weighted, in_tail)


def fit_tensor(t, shape_tail):
    """Differentiable crop / zero-pad of t's last dimensions to shape_tail."""
    rank = len(shape_tail)
    shape = t._value.shape
    lead = len(shape) - rank
    have = shape[lead:]
    if any(h > n for h, n in zip(have, shape_tail)):
        t = slice_(t, [0] * len(shape), list(shape[:lead]) + [min(h, n) for h, n in zip(have, shape_tail)])
        have = t._value.shape[lead:]
    if any(h < n for h, n in zip(have, shape_tail)):
        t = pad(t, [[0, 0]] * lead + [[0, n - h] for h, n in zip(have, shape_tail)])
    return t


def _irfft(input_tensor, fft_length, rank):
    op = _IRFFT[rank]
    z = preferred(input_tensor, dtypes.complex64)
    if z._value.ndim < rank:
        raise ValueError(f"Shape {tuple(z.shape)} must have rank at least {rank} ({op.name} transforms "
                         f"the innermost {rank} dimension(s))")
    if z.dtype.name not in _TO_REAL:
        raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {z!r}")
    lengths = _lengths(fft_length, z, rank, True, op)
    if min(lengths, default=1) <= 0:
        raise op.invalid(f"the inferred fft_length {list(lengths)} is not positive: an inner dimension "
                         f"of 1 infers an output length of 0; pass fft_length")
    return _irfft_op(z, lengths)


@export("signal.rfft")
@dispatch.add_dispatch_support
def rfft(input_tensor, fft_length=None, name=None):
    """The discrete Fourier transform of a real signal over its innermost dimension: the
    fft_length // 2 + 1 non-negative frequencies.

    Args:
      input_tensor: a float32/float64 tensor of rank >= 1 (Python values convert to float32).
      fft_length: a list of one int, the transform length (the signal is cropped or
        zero-padded to it); defaults to the innermost dimension.
      name: ignored.

    Returns:
      complex64 (from float32) or complex128 (from float64), shape [..., fft_length // 2 + 1].

    Raises:
      ValueError: another dtype or a scalar. TypeError: an fft_length that is not a list.
      InvalidArgumentError: an fft_length of the wrong size or not positive.
    """
    return _rfft(input_tensor, fft_length, 1)


@export("signal.irfft")
@dispatch.add_dispatch_support
def irfft(input_tensor, fft_length=None, name=None):
    """The real signal whose half spectrum (innermost dimension) is `input_tensor`: the inverse of
    rfft. `fft_length` defaults to 2 * (n - 1) for an innermost size n; the spectrum is cropped or
    zero-padded to fft_length // 2 + 1 entries and the imaginary parts of the zero (and, for even
    lengths, the Nyquist) frequency are ignored. complex64 gives float32, complex128 float64."""
    return _irfft(input_tensor, fft_length, 1)


@export("signal.rfft2d")
@dispatch.add_dispatch_support
def rfft2d(input_tensor, fft_length=None, name=None):
    """The 2-D real-input transform over the innermost two dimensions (fft_length: two ints)."""
    return _rfft(input_tensor, fft_length, 2)


@export("signal.irfft2d")
@dispatch.add_dispatch_support
def irfft2d(input_tensor, fft_length=None, name=None):
    """The inverse of rfft2d over the innermost two dimensions (fft_length: two ints)."""
    return _irfft(input_tensor, fft_length, 2)


@export("signal.rfft3d")
@dispatch.add_dispatch_support
def rfft3d(input_tensor, fft_length=None, name=None):
    """The 3-D real-input transform over the innermost three dimensions (no gradient, as TF)."""
    return _rfft(input_tensor, fft_length, 3)


@export("signal.irfft3d")
@dispatch.add_dispatch_support
def irfft3d(input_tensor, fft_length=None, name=None):
    """The inverse of rfft3d over the innermost three dimensions (no gradient, as TF)."""
    return _irfft(input_tensor, fft_length, 3)


# -- shifts --------------------------------------------------------------------------------------

def _shift(x, axes, sign, name):
    x = as_tensor(x)
    nd = x._value.ndim
    if nd == 0:
        raise errors.invalid_argument("Roll", f"{name}: input must be 1-D or higher, got a scalar")
    if axes is None:
        axes = list(range(nd))
    elif isinstance(axes, (int, np.integer)):
        axes = [int(axes)]
    else:
        axes = [int(a) for a in np.asarray(axes.numpy() if isinstance(axes, (Tensor, Variable)) else axes).reshape(-1)]
    for a in axes:
        if not -nd <= a < nd:
            raise errors.invalid_argument(
                "StridedSlice" if len(axes) == 1 else "GatherV2",
                f"{name}: axis {a} is out of range for a tensor of rank {nd}; use an axis in [{-nd}, {nd})")
    shape = x._value.shape
    shifts = [sign * (shape[a] // 2) for a in axes]
    return roll(x, shifts, axes)


@export("signal.fftshift")
@dispatch.add_dispatch_support
def fftshift(x, axes=None, name=None):
    """Rolls each of `axes` (default all) by half its length, moving the zero frequency to the
    centre (numpy.fft.fftshift)."""
    return _shift(x, axes, 1, "fftshift")


@export("signal.ifftshift")
@dispatch.add_dispatch_support
def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift (they differ by one sample for odd lengths)."""
    return _shift(x, axes, -1, "ifftshift")
