"""keras.ops (numpy-like): products (matmul, dot, tensordot, einsum, inner, outer, kron, cross),
differences and integrals (diff, trapezoid), correlation (correlate, corrcoef) and slogdet.

Integer products compute in a float type (Keras on TF does, for GPU support) and are cast back
to the promoted integer dtype; int8 x int8 matrix products give int32.
"""
import string

import numpy as np

from minitf.keras_core import config
from minitf.keras_ops.core import canonical_axis, convert, keras_op
from minitf.keras_ops.dtypes import result_type
from minitf.keras_ops.np_shape import moveaxis
from minitf.ops import array as array_ops
from minitf.ops import compare as CMP
from minitf.ops import constant as constant_ops
from minitf.ops import conv as conv_ops
from minitf.ops import linalg as linalg_ops
from minitf.ops import linalg_decompositions as decompositions
from minitf.ops import math as math_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.indexing import getitem
from minitf.api_export import export

__all__ = ["matmul", "dot", "tensordot", "einsum", "inner", "outer", "vdot", "kron", "cross",
           "correlate", "trapezoid", "diff", "corrcoef", "slogdet"]


@export("keras.ops.matmul", "keras.ops.numpy.matmul")
@keras_op
def matmul(x1, x2):
    """The matrix product of x1 and x2 (numpy's matmul: 1-D operands are vectors, leading
    axes broadcast)."""
    x1, x2 = convert(x1), convert(x2)
    r1, r2 = x1.shape.rank, x2.shape.rank
    if x1.dtype.name == "int8" and x2.dtype.name == "int8" and r1 != 1 and r2 != 1:
        compute, out_dtype = "int32", "int32"
    else:
        compute = result_type(x1.dtype, x2.dtype, float)
        out_dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = constant_ops.cast(x1, compute), constant_ops.cast(x2, compute)
    if r1 == 2 and r2 == 2:
        out = linalg_ops.matmul(x1, x2)
    elif r2 == 1:
        out = linalg_ops.tensordot(x1, x2, axes=1)
    elif r1 == 1:
        out = linalg_ops.tensordot(x1, x2, axes=[[0], [-2]])
    elif r2 == 2 and r1 > 2:
        out = linalg_ops.tensordot(x1, x2, axes=[[-1], [0]])
    else:
        out = linalg_ops.matmul(x1, x2)
    return constant_ops.cast(out, out_dtype)


@export("keras.ops.dot", "keras.ops.numpy.dot")
@keras_op
def dot(x1, x2):
    """numpy's dot: a product over the last axis of x1 and the second-to-last of x2."""
    x1, x2 = convert(x1), convert(x2)
    out_dtype = result_type(x1.dtype, x2.dtype)
    compute = result_type(out_dtype, float)
    x1, x2 = constant_ops.cast(x1, compute), constant_ops.cast(x2, compute)
    if x1.shape.rank == 0 or x2.shape.rank == 0:
        out = math_ops.multiply(x1, x2)
    elif x2.shape.rank == 1:
        out = linalg_ops.tensordot(x1, x2, axes=[[-1], [-1]])
    else:
        out = linalg_ops.tensordot(x1, x2, axes=[[-1], [-2]])
    return constant_ops.cast(out, out_dtype)


_NATIVE_TENSORDOT = ("int32", "int64", "float16", "float32", "float64", "bfloat16", "complex64",
                     "complex128")


@export("keras.ops.tensordot", "keras.ops.numpy.tensordot")
@keras_op
def tensordot(x1, x2, axes=2):
    """The sum of products over the `axes` of x1 and x2."""
    x1, x2 = convert(x1), convert(x2)
    out_dtype = result_type(x1.dtype, x2.dtype)
    compute = out_dtype if out_dtype in _NATIVE_TENSORDOT else result_type(out_dtype, float)
    return constant_ops.cast(linalg_ops.tensordot(constant_ops.cast(x1, compute), constant_ops.cast(x2, compute), axes=axes), out_dtype)


def _normalize_subscripts(subscripts):
    mapping, out = {}, ""
    for c in subscripts:
        if c in string.ascii_letters:
            if c not in mapping:
                mapping[c] = string.ascii_letters[len(mapping)]
            out += mapping[c]
        else:
            out += c
    return out


@export("keras.ops.einsum", "keras.ops.numpy.einsum")
@keras_op
def einsum(subscripts, *operands, **kwargs):
    """Einstein summation over `operands` (`'ij,jk->ik'` is a matrix product)."""
    operands = [convert(x) for x in operands]
    subscripts = _normalize_subscripts(subscripts)
    names = {x.dtype.name for x in operands}
    if names == {"int8"}:
        compute, out_dtype = config.floatx(), "int32"
    else:
        out_dtype = result_type(*names)
        compute = config.floatx() if "int" in out_dtype else out_dtype
    kwargs.pop("optimize", None)
    out = linalg_ops.einsum(subscripts, *[constant_ops.cast(x, compute) for x in operands], **kwargs)
    return constant_ops.cast(out, out_dtype)


def _float_pair(x1, x2):
    x1, x2 = convert(x1), convert(x2)
    out_dtype = result_type(x1.dtype, x2.dtype)
    compute = result_type(out_dtype, float)
    return constant_ops.cast(x1, compute), constant_ops.cast(x2, compute), out_dtype


@export("keras.ops.inner", "keras.ops.numpy.inner")
@keras_op
def inner(x1, x2):
    """The sum of products over the last axes (a product when either is a scalar)."""
    x1, x2, out_dtype = _float_pair(x1, x2)
    if x1.shape.rank == 0 or x2.shape.rank == 0:
        return constant_ops.cast(math_ops.multiply(x1, x2), out_dtype)
    return constant_ops.cast(linalg_ops.tensordot(x1, x2, axes=[[-1], [-1]]), out_dtype)


@export("keras.ops.outer", "keras.ops.numpy.outer")
@keras_op
def outer(x1, x2):
    """The outer product of the flattened x1 and x2."""
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    return math_ops.multiply(array_ops.reshape(constant_ops.cast(x1, dtype), [-1, 1]), array_ops.reshape(constant_ops.cast(x2, dtype), [-1]))


@export("keras.ops.vdot", "keras.ops.numpy.vdot")
@keras_op
def vdot(x1, x2):
    """The dot product of the flattened x1 and x2."""
    x1, x2, out_dtype = _float_pair(x1, x2)
    return constant_ops.cast(dot(array_ops.reshape(x1, [-1]), array_ops.reshape(x2, [-1])), out_dtype)


@export("keras.ops.kron", "keras.ops.numpy.kron")
@keras_op
def kron(x1, x2):
    """The Kronecker product: blocks of x1[i] * x2."""
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = constant_ops.cast(x1, dtype), constant_ops.cast(x2, dtype)
    while x1.shape.rank < x2.shape.rank:
        x1 = array_ops.expand_dims(x1, 0)
    while x2.shape.rank < x1.shape.rank:
        x2 = array_ops.expand_dims(x2, 0)
    s1, s2 = list(x1.shape), list(x2.shape)
    a = array_ops.reshape(x1, [d for pair in zip(s1, [1] * len(s1)) for d in pair])
    b = array_ops.reshape(x2, [d for pair in zip([1] * len(s2), s2) for d in pair])
    return array_ops.reshape(math_ops.multiply(a, b), [p * q for p, q in zip(s1, s2)])


@export("keras.ops.cross", "keras.ops.numpy.cross")
@keras_op
def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 2- or 3-element vectors along the given axes (for two 2-D vectors,
    the z component)."""
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = constant_ops.cast(x1, dtype), constant_ops.cast(x2, dtype)
    if axis is not None:
        axisa = axisb = axisc = axis
    x1, x2 = moveaxis(x1, axisa, -1), moveaxis(x2, axisb, -1)
    d1, d2 = int(x1.shape[-1]), int(x2.shape[-1])
    for d in (d1, d2):
        if d not in (2, 3):
            raise ValueError(f"Incompatible dimensions for cross product (dimension must be 2 "
                             f"or 3); received vectors of size {d1} and {d2}.")

    def lift(x, d):
        return array_ops.pad(x, [[0, 0]] * (x.shape.rank - 1) + [[0, 1]]) if d == 2 else x
    x1, x2 = lift(x1, d1), lift(x2, d2)
    try:
        shape = list(np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape)))
    except ValueError:
        raise ValueError(f"cross: the vectors' other axes do not broadcast: shapes "
                         f"{tuple(x1.shape)} and {tuple(x2.shape)}") from None
    x1, x2 = array_ops.broadcast_to(x1, shape), array_ops.broadcast_to(x2, shape)
    c = decompositions.cross(x1, x2)
    if d1 == 2 and d2 == 2:
        return c[..., 2]
    return moveaxis(c, -1, axisc)


@export("keras.ops.correlate", "keras.ops.numpy.correlate")
@keras_op
def correlate(x1, x2, mode="valid"):
    """The cross-correlation of two 1-D tensors ('valid', 'same' or 'full' length)."""
    x1, x2 = convert(x1), convert(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    if dtype == "int64":
        dtype = "float64"
    elif dtype not in ("bfloat16", "float16", "float64"):
        dtype = "float32"
    x1, x2 = constant_ops.cast(x1, dtype), constant_ops.cast(x2, dtype)
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"Invalid mode: '{mode}'. Mode must be one of: 'full', 'same', 'valid'.")
    n, m = int(x1.shape[0]), int(x2.shape[0])

    def corr(a, b):
        out = conv_ops.conv1d(array_ops.reshape(a, [1, -1, 1]), array_ops.reshape(b, [-1, 1, 1]), 1, "VALID")
        return array_ops.reshape(out, [-1])
    if mode == "valid":
        return corr(x1, x2)
    pad = max(m - 1, 0)
    full = corr(array_ops.pad(x1, [[pad, pad]]), x2)
    if mode == "full":
        return full
    length = max(n, m)
    start = (n + m - 1 - length) // 2
    return array_ops.slice(full, [start], [length])


@export("keras.ops.trapezoid", "keras.ops.numpy.trapezoid")
@keras_op
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of y by the trapezoidal rule along `axis`, over sample points x (or with
    spacing dx)."""
    y = convert(y)
    dtype = result_type(y.dtype, float)
    y = constant_ops.cast(y, dtype)
    if x is None:
        spacing = constant_ops.cast(convert(dx), dtype)
    else:
        spacing = moveaxis(diff(convert(x, dtype), axis=axis), axis, -1)
    y = moveaxis(y, axis, -1)
    heights = math_ops.multiply(math_ops.add(getitem(y, (Ellipsis, slice(1, None))),
                               getitem(y, (Ellipsis, slice(None, -1)))), 0.5)
    return reduce_ops.reduce_sum(math_ops.multiply(heights, spacing), axis=-1)


@export("keras.ops.diff", "keras.ops.numpy.diff")
@keras_op
def diff(a, n=1, axis=-1):
    """The n-th discrete difference along `axis` (for bools, whether neighbours differ)."""
    a = convert(a)
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"Order `n` must be non-negative. Received n={n}")
    if a.shape.rank == 0:
        raise ValueError(f"`diff` requires input that is at least one dimensional. Received: a={a}")
    axis = canonical_axis(axis, a.shape.rank)
    later = tuple(slice(1, None) if i == axis else slice(None) for i in range(a.shape.rank))
    earlier = tuple(slice(None, -1) if i == axis else slice(None) for i in range(a.shape.rank))
    for _ in range(n):
        if a.dtype.name == "bool":
            a = CMP.not_equal(getitem(a, later), getitem(a, earlier))
        else:
            a = math_ops.subtract(getitem(a, later), getitem(a, earlier))
    return a


@export("keras.ops.corrcoef", "keras.ops.numpy.corrcoef")
@keras_op
def corrcoef(x):
    """The Pearson correlation matrix of the rows of x (clipped to [-1, 1])."""
    name = getattr(getattr(x, "dtype", None), "name", str(getattr(x, "dtype", "")))
    x = convert(x, config.floatx() if name in ("bool", "int8", "int16", "int32", "uint8",
                                               "uint16", "uint32") else None)
    if x.shape.rank == 0:
        return constant_ops.constant(float("nan"), dtype=config.floatx())
    centred = math_ops.subtract(x, reduce_ops.reduce_mean(x, axis=-1, keepdims=True))
    samples = constant_ops.cast(int(x.shape[-1]), x.dtype)
    cov = math_ops.divide(linalg_ops.matmul(centred, centred, adjoint_b=True), math_ops.subtract(samples, 1))
    stddev = math_ops.sqrt(linalg_ops.diag_part(cov) if cov.shape.rank == 2 else cov)
    outer_std = linalg_ops.tensordot(stddev, stddev, axes=0)
    return math_ops.clip_by_value(math_ops.divide(cov, outer_std), -1.0, 1.0)


@export("keras.ops.slogdet", "keras.ops.numpy.slogdet")
@keras_op
def slogdet(x):
    """(sign, log|det|) of the square matrices x."""
    return tuple(linalg_ops.slogdet(convert(x)))
