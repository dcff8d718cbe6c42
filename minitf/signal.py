"""tf.signal: Fourier and cosine transforms, framing, windows, short-time transforms and mel
features (re-exports; nothing is defined here)."""
from minitf.ops.dct import dct, idct  # noqa: F401
from minitf.ops.fft import (fft, fft2d, fft3d, fftshift, ifft, ifft2d, ifft3d, ifftshift,  # noqa: F401
                            irfft, irfft2d, irfft3d, rfft, rfft2d, rfft3d)
from minitf.ops.signal import (frame, hamming_window, hann_window, kaiser_bessel_derived_window,  # noqa: F401
                               kaiser_window, overlap_and_add, vorbis_window)
from minitf.ops.signal_mel import linear_to_mel_weight_matrix, mfccs_from_log_mel_spectrograms  # noqa: F401
from minitf.ops.signal_spectral import (inverse_mdct, inverse_stft, inverse_stft_window_fn, mdct,  # noqa: F401
                                        stft)

__all__ = ["dct", "idct", "fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft",
           "rfft2d", "irfft2d", "rfft3d", "irfft3d", "fftshift", "ifftshift", "frame",
           "overlap_and_add", "hann_window", "hamming_window", "kaiser_window",
           "kaiser_bessel_derived_window", "vorbis_window", "stft", "inverse_stft",
           "inverse_stft_window_fn", "mdct", "inverse_mdct", "linear_to_mel_weight_matrix",
           "mfccs_from_log_mel_spectrograms"]
