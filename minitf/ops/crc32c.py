"""CRC-32C (Castagnoli), the checksum of TFRecord framing, and TF's "masked" form of it.

The standard library has no CRC-32C (`zlib.crc32` uses another polynomial). When the
`google-crc32c` package (a well-kept C library, in the `tfrecord` extra) is installed with its C
build, it computes the checksum; without it a fallback written here does:

* short inputs run a byte-at-a-time table loop in Python;
* long inputs are cut into 16-byte chunks whose CRC registers are advanced together as numpy
  vectors (one step per byte position, over all chunks at once), then combined pairwise with
  precomputed "advance the register over k zero bytes" operators. CRC is linear over GF(2), so
  crc(A + B) = shift(crc(A), len(B)) ^ crc(B) for zero-initialised registers; the 0xFFFFFFFF
  initial value is folded in by XOR-ing it into the first four bytes.
"""
import numpy as np

__all__ = ["crc32c", "masked_crc32c", "implementation"]

_POLY = 0x82F63B78  # the Castagnoli polynomial, bit-reflected
_MASK_DELTA = 0xA282EAD8
_NUMPY_MIN_BYTES = 1024  # below this the Python loop beats numpy's per-call costs
_CHUNK = 16  # bytes per chunk: few sequential steps over long vectors (measured best of 16-128)


def _make_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (_POLY if c & 1 else 0)
        table.append(c)
    return table


_TABLE = _make_table()
_NP_TABLE = np.array(_TABLE, dtype=np.uint32)
_BITS = np.arange(32, dtype=np.uint32)


def _crc_python(data):
    c = 0xFFFFFFFF
    table = _TABLE
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def _apply(columns, values):
    """The GF(2) matrix with 32 `columns` (images of the register's bits) times each of `values`."""
    mask = ((values[:, None] >> _BITS[None, :]) & 1).astype(bool)
    return np.bitwise_xor.reduce(np.where(mask, columns[None, :], np.uint32(0)), axis=1)


_SHIFT_TABLES = {}


def _shift_tables(nbytes):
    """Four 256-entry tables advancing a zero-initialised register over `nbytes` zero bytes:
    shift(c) = T0[c & 255] ^ T1[(c >> 8) & 255] ^ T2[(c >> 16) & 255] ^ T3[c >> 24]."""
    tables = _SHIFT_TABLES.get(nbytes)
    if tables is not None:
        return tables
    basis = np.left_shift(np.uint32(1), _BITS)
    one = _NP_TABLE[basis & 0xFF] ^ (basis >> 8)  # columns of the one-zero-byte operator
    result, power, k = basis.copy(), one, nbytes  # result starts as the identity
    while k:
        if k & 1:
            result = _apply(power, result)
        power = _apply(power, power)
        k >>= 1
    byte = np.arange(256, dtype=np.uint32)
    tables = [_apply(result, byte << np.uint32(8 * i)) for i in range(4)]
    _SHIFT_TABLES[nbytes] = tables
    return tables


def _shift(regs, nbytes):
    t0, t1, t2, t3 = _shift_tables(nbytes)
    return t0[regs & 0xFF] ^ t1[(regs >> 8) & 0xFF] ^ t2[(regs >> 16) & 0xFF] ^ t3[regs >> 24]


def _crc_numpy(data):
    n = len(data)
    chunk = _CHUNK
    count = 1 << max(0, ((n + chunk - 1) // chunk - 1).bit_length())  # chunks, a power of two
    buf = np.zeros(count * chunk, dtype=np.uint8)  # leading zeros leave a zero register at zero
    buf[count * chunk - n:] = np.frombuffer(data, dtype=np.uint8)
    buf[count * chunk - n:count * chunk - n + 4] ^= 0xFF  # the initial 0xFFFFFFFF register
    columns = np.ascontiguousarray(buf.reshape(count, chunk).T)
    regs = np.zeros(count, dtype=np.uint32)
    for col in columns:
        regs = _NP_TABLE[(regs ^ col) & 0xFF] ^ (regs >> 8)
    span = chunk
    while len(regs) > 1:
        regs = _shift(regs[0::2], span) ^ regs[1::2]
        span *= 2
    return int(regs[0]) ^ 0xFFFFFFFF


def _crc_fallback(data):
    if len(data) < _NUMPY_MIN_BYTES:
        return _crc_python(data)
    return _crc_numpy(data)


def _pick():
    try:
        import google_crc32c  # lazy: optional accelerator (the `tfrecord` extra)
    except ImportError:
        return _crc_fallback, "numpy"
    if getattr(google_crc32c, "implementation", "") != "c":
        return _crc_fallback, "numpy"  # its pure-Python build is slower than the fallback
    return google_crc32c.value, "google-crc32c"


_crc, implementation = _pick()


def crc32c(data):
    """The CRC-32C of the bytes `data`, an int in [0, 2**32)."""
    return _crc(bytes(data) if not isinstance(data, bytes) else data)


def masked_crc32c(data):
    """TFRecord's masked CRC-32C of `data` (rotated right by 15 bits plus a constant, so that a
    checksum stored inside checksummed data does not cancel out)."""
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF
