"""tf.signal's mel-scale tools: linear_to_mel_weight_matrix (a constant [spectrogram bins,
mel bins] matrix of triangular filters, HTK's mel scale) and mfccs_from_log_mel_spectrograms
(an orthonormal-scaled type-2 DCT of log-mel spectrograms, differentiable)."""
import numpy as np

from minitf import backend, dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops._core import Tensor, Variable, array_module
from minitf.ops.dct import dct
from minitf.ops.math import multiply
from minitf.api_export import export

__all__ = ["linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms"]

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(hz):
    return _MEL_HIGH_FREQUENCY_Q * np.log(1.0 + hz / _MEL_BREAK_FREQUENCY_HERTZ)


def _number(value):
    if isinstance(value, (Tensor, Variable)):
        return value.numpy().item()
    return value


@export("signal.linear_to_mel_weight_matrix")
@dispatch.add_dispatch_support
def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype=dtypes.float32, name=None):
    """The matrix that maps a linear spectrogram (the rfft's num_spectrogram_bins bins from 0 to
    sample_rate / 2) to num_mel_bins triangular mel bands between the two edge frequencies:
    `mel = tf.tensordot(spectrogram, matrix, 1)`. The zero-frequency bin gets no weight.

    Raises:
      ValueError: num_mel_bins <= 0, a negative lower edge, lower >= upper, a non-positive
        sample_rate, an upper edge above the Nyquist frequency, or a non-floating dtype.
    """
    sample_rate = _number(sample_rate)
    lower = _number(lower_edge_hertz)
    upper = _number(upper_edge_hertz)
    num_spectrogram_bins = int(_number(num_spectrogram_bins))
    dtype = dtypes.as_dtype(dtype)
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower}")
    if lower >= upper:
        raise ValueError(f"lower_edge_hertz {lower:.1f} >= upper_edge_hertz {upper:.1f}")
    if sample_rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if upper > sample_rate / 2:
        raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency "
                         f"(sample_rate / 2). Got {upper} for sample_rate: {sample_rate}")
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype!r}")
    linear = np.linspace(0.0, sample_rate / 2.0, num_spectrogram_bins)[1:]
    bins_mel = _hertz_to_mel(linear)[:, None]
    edges = np.linspace(_hertz_to_mel(lower), _hertz_to_mel(upper), num_mel_bins + 2)
    lower_mel, center_mel, upper_mel = edges[None, :-2], edges[None, 1:-1], edges[None, 2:]
    lower_slopes = (bins_mel - lower_mel) / (center_mel - lower_mel)
    upper_slopes = (upper_mel - bins_mel) / (upper_mel - center_mel)
    weights = np.maximum(0.0, np.minimum(lower_slopes, upper_slopes))
    weights = np.concatenate([np.zeros((1, num_mel_bins)), weights], axis=0)
    xp = backend.default_module()
    return Tensor(xp.asarray(weights.astype(dtype.as_numpy_dtype)))


@export("signal.mfccs_from_log_mel_spectrograms")
@dispatch.add_dispatch_support
def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """Mel-frequency cepstral coefficients: dct(x, type=2) * rsqrt(2 * num_mel_bins) over the
    innermost (mel) dimension of float32/float64 log-mel spectrograms; keep the first few
    coefficients for a compact feature.

    Raises:
      ValueError: an innermost dimension of 0, or a dtype dct does not take.
    """
    x = convert_to_tensor(log_mel_spectrograms)
    if x._value.ndim == 0:
        raise errors.invalid_argument("StridedSlice", "slice index -1 of dimension 0 out of bounds: "
                                                      "mfccs need a [..., num_mel_bins] tensor, got a scalar")
    if x._value.shape[-1] == 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {x!r}")
    num = x._value.shape[-1]
    dct2 = dct(x, type=2)
    scale = Tensor(array_module(dct2._value).asarray(1.0 / np.sqrt(num * 2.0), dct2._value.dtype))
    return multiply(dct2, scale)
