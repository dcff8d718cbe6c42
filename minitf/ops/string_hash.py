"""tf.strings.to_hash_bucket_fast: TF's Fingerprint64 (FarmHash's farmhashna Hash64) of each
string, modulo the number of buckets, so minitf puts words in the same buckets as TF (the ragged
guide hashes words this way). Python ints are masked to 64 bits after each step, as the C++
uint64 arithmetic wraps."""
import numpy as np

from minitf import dispatch
from minitf.errors import errors
from minitf.ops._core import Tensor, as_tensor
from minitf.api_export import export

__all__ = ["to_hash_bucket_fast", "fingerprint64"]

_M = (1 << 64) - 1
K0, K1, K2 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F


def _rot(v, s):
    return ((v >> s) | (v << (64 - s))) & _M if s else v


def _f64(b, i):
    return int.from_bytes(b[i:i + 8], "little")


def _f32(b, i):
    return int.from_bytes(b[i:i + 4], "little")


def _smix(v):
    return v ^ (v >> 47)


def _h16(u, v, mul):
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _len0to16(s, n):
    if n >= 8:
        mul = K2 + n * 2
        a = (_f64(s, 0) + K2) & _M
        b = _f64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _h16(c, d, mul)
    if n >= 4:
        mul = K2 + n * 2
        return _h16((n + (_f32(s, 0) << 3)) & _M, _f32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_smix(((y * K2) ^ (z * K0)) & _M) * K2) & _M
    return K2


def _len17to32(s, n):
    mul = K2 + n * 2
    a = (_f64(s, 0) * K1) & _M
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _M
    d = (_f64(s, n - 16) * K2) & _M
    return _h16((_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M, (a + _rot((b + K2) & _M, 18) + c) & _M, mul)


def _len33to64(s, n):
    mul = K2 + n * 2
    a = (_f64(s, 0) * K2) & _M
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _M
    d = (_f64(s, n - 16) * K2) & _M
    y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
    z = _h16(y, (a + _rot((b + K2) & _M, 18) + c) & _M, mul)
    e = (_f64(s, 16) * mul) & _M
    f = _f64(s, 24)
    g = ((y + _f64(s, n - 32)) * mul) & _M
    h = ((z + _f64(s, n - 24)) * mul) & _M
    return _h16((_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M, (e + _rot((f + a) & _M, 18) + g) & _M, mul)


def _weak32(s, i, a, b):
    w, x, y, z = _f64(s, i), _f64(s, i + 8), _f64(s, i + 16), _f64(s, i + 24)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


@dispatch.add_dispatch_support
def fingerprint64(s):
    """TF's Fingerprint64 of bytes `s` (FarmHash farmhashna::Hash64), an unsigned 64-bit int."""
    n = len(s)
    if n <= 16:
        return _len0to16(s, n)
    if n <= 32:
        return _len17to32(s, n)
    if n <= 64:
        return _len33to64(s, n)
    seed = 81
    x = seed
    y = (seed * K1 + 113) & _M
    z = (_smix((y * K2 + 113) & _M) * K2) & _M
    v = (0, 0)
    w = (0, 0)
    x = (x * K2 + _f64(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v[0] + _f64(s, i + 8)) & _M, 37) * K1) & _M
        y = (_rot((y + v[1] + _f64(s, i + 48)) & _M, 42) * K1) & _M
        x ^= w[1]
        y = (y + v[0] + _f64(s, i + 40)) & _M
        z = (_rot((z + w[0]) & _M, 33) * K1) & _M
        v = _weak32(s, i, (v[1] * K1) & _M, (x + w[0]) & _M)
        w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _f64(s, i + 16)) & _M)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = K1 + ((z & 0xFF) << 1)
    i = last64
    w = ((w[0] + ((n - 1) & 63)) & _M, w[1])
    v = ((v[0] + w[0]) & _M, v[1])
    w = ((w[0] + v[0]) & _M, w[1])
    x = (_rot((x + y + v[0] + _f64(s, i + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v[1] + _f64(s, i + 48)) & _M, 42) * mul) & _M
    x ^= (w[1] * 9) & _M
    y = (y + v[0] * 9 + _f64(s, i + 40)) & _M
    z = (_rot((z + w[0]) & _M, 33) * mul) & _M
    v = _weak32(s, i, (v[1] * mul) & _M, (x + w[0]) & _M)
    w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _f64(s, i + 16)) & _M)
    z, x = x, z
    return _h16((_h16(v[0], w[0], mul) + _smix(y) * K0 + z) & _M, (_h16(v[1], w[1], mul) + x) & _M, mul)


@export("strings.to_hash_bucket_fast")
@dispatch.add_dispatch_support(elementwise="unary")
def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """Each string's Fingerprint64 modulo `num_buckets`, as int64 (the same buckets as TF's)."""
    t = as_tensor(input)
    if t.dtype.name != "string":
        raise errors.invalid_argument(
            "StringToHashBucketFast", f"cannot compute StringToHashBucketFast as input #0(zero-based) was "
                                      f"expected to be a string tensor but is a {t.dtype.name} tensor; format "
                                      f"numbers with tf.strings.as_string first")
    if int(num_buckets) < 1:
        raise errors.invalid_argument(
            "StringToHashBucketFast", f"Value for attr 'num_buckets' of {num_buckets} must be at least "
                                      f"minimum 1")
    arr = np.asarray(t.numpy(), dtype=object)
    out = np.empty(arr.shape, dtype=np.int64)
    flat, src = out.reshape(-1), arr.reshape(-1)
    for i, v in enumerate(src):
        flat[i] = fingerprint64(bytes(v)) % int(num_buckets)
    return Tensor(out)
