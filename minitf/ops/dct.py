"""tf.signal.dct and idct: discrete cosine transforms of types I-IV over the innermost
dimension, unnormalized or orthonormal ("ortho"), as scipy.fft.dct defines them.

Each transform is one product with a cosine matrix (built once per type, length and norm, in
float64, then cast), so the gradient is matmul's and works to any order; TF computes the same
values through an FFT of twice the length.
"""
import functools

import numpy as np

from minitf import dispatch
from minitf.ops._core import Tensor, array_module, as_tensor
from minitf.ops.fft import preferred
from minitf.ops.gather import pad
from minitf.ops.indexing import slice_
from minitf.ops.linalg import matmul
from minitf.ops.shaping import reshape
from minitf.api_export import export

__all__ = ["dct", "idct"]


@functools.lru_cache(maxsize=64)
def dct_matrix(kind, n, norm):
    """The [n, n] float64 matrix M with dct(x) = x @ M for a length-n innermost dimension."""
    k = np.arange(n)[None, :]  # output index (columns)
    j = np.arange(n)[:, None]  # input index (rows)
    if kind == 1:
        m = 2.0 * np.cos(np.pi * j * k / (n - 1))
        m[0, :] = 1.0
        m[-1, :] = (-1.0) ** np.arange(n)
        return m
    if kind == 2:
        m = 2.0 * np.cos(np.pi * k * (2 * j + 1) / (2 * n))
        if norm == "ortho":
            m[:, 0] *= np.sqrt(1.0 / (4 * n))
            m[:, 1:] *= np.sqrt(1.0 / (2 * n))
        return m
    if kind == 3:
        m = 2.0 * np.cos(np.pi * j * (2 * k + 1) / (2 * n))
        m[0, :] = 1.0
        if norm == "ortho":
            m[0, :] *= np.sqrt(1.0 / n)
            m[1:, :] *= np.sqrt(1.0 / (2 * n))
        return m
    m = 2.0 * np.cos(np.pi * (2 * j + 1) * (2 * k + 1) / (4 * n))
    if norm == "ortho":
        m *= np.sqrt(1.0 / (2 * n))
    return m


def _validate(x, kind, n, axis, norm):
    """TF's argument checks, in TF's order (before any conversion)."""
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if kind not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if kind == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        if not hasattr(x, "shape"):  # TF reads input.shape before converting
            raise AttributeError(f"'{type(x).__name__}' object has no attribute 'shape' (the type-I "
                                 f"dct reads the input's shape first; pass a tensor)")
        if not len(x.shape):
            raise IndexError("tuple index out of range: the type-I dct needs a tensor of rank >= 1")
        last = x.shape[-1]
        if last is not None and last < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _transform(input, kind, n, norm):
    x = preferred(input, "float32") if not hasattr(input, "_value") else as_tensor(input)
    # TF's errors, in its order, on the way through its FFT formulation: its zero constant has
    # no integer form, then it reads the innermost size, then types II-IV build a complex scale
    # of the input's dtype and type I calls rfft
    if not x.dtype.is_floating:
        raise TypeError(f"Cannot convert 0.0 to EagerTensor of dtype {x.dtype.name} (dct needs "
                        f"float32 or float64 input; cast it with tf.cast)")
    if x._value.ndim < 1:
        raise IndexError("tuple index out of range: dct transforms the innermost dimension of a "
                         "tensor of rank >= 1")
    if x.dtype.name not in ("float32", "float64"):
        if kind != 1:
            raise TypeError(f"The `real` and `imag` components have incorrect types: {x.dtype.name} "
                            f"{x.dtype.name}. They must be consistent, and one of [tf.float32, tf.float64] "
                            f"(dct needs float32 or float64 input; cast it with tf.cast)")
        raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x!r} (dct needs float32 "
                         f"or float64 input; cast it with tf.cast)")
    shape = tuple(x._value.shape)
    if n is not None:
        if n <= shape[-1]:
            x = slice_(x, [0] * len(shape), list(shape[:-1]) + [n])
        else:
            x = pad(x, [[0, 0]] * (len(shape) - 1) + [[0, n - shape[-1]]])
        shape = tuple(x._value.shape)
    length = shape[-1]
    if kind == 1 and length < 2:
        raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    xp = array_module(x._value)
    matrix = Tensor(xp.asarray(dct_matrix(kind, length, norm).astype(x._value.dtype)))
    flat = reshape(x, (-1, length))
    return reshape(matmul(flat, matrix), shape)


@export("signal.dct")
@dispatch.add_dispatch_support
def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 (TF's names)
    """The discrete cosine transform of `input` (float32/float64) over its innermost dimension.

    Args:
      input: a float32/float64 tensor of rank >= 1.
      type: 1, 2 (the default), 3 or 4, with scipy's definitions (type 2: y_k =
        2 sum_j x_j cos(pi k (2j + 1) / 2N)).
      n: the length to transform: the innermost dimension is cropped or zero-padded to it.
      axis: must be -1 (NotImplementedError otherwise, as TF).
      norm: None or "ortho" (orthonormal; not for type 1).
      name: ignored.

    Raises:
      ValueError: a bad type, n < 1, an unknown norm, type 1 with "ortho" or a length < 2, or an
        input that is not float32/float64 (TypeError for type 3, as TF's complex cast raises).
    """
    _validate(input, type, n, axis, norm)
    return _transform(input, type, n, norm)


@export("signal.idct")
@dispatch.add_dispatch_support
def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """The inverse DCT: the DCT of the inverse type (II <-> III, I and IV their own), as TF
    defines it. With norm="ortho" it inverts dct exactly; unnormalized, idct(dct(x)) is
    2N * x for types 2 and 3 (2(N - 1) for type 1)."""
    _validate(input, type, n, axis, norm)
    return _transform(input, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, norm)
