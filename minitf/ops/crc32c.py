"""CRC-32C (Castagnoli), the checksum of TFRecord framing and of TF's checkpoint bundles, and
TF's "masked" form of it.

The standard library has no CRC-32C (`zlib.crc32` uses another polynomial). When the
`google-crc32c` package (a well-kept C library, in the `tfrecord` extra) is installed with its C
build, it computes the checksum; without it a fallback written here does:

* short inputs run a byte-at-a-time table loop in Python;
* long inputs are cut into 32-byte lanes. CRC is linear over GF(2): a lane's register (started
  at zero) is the XOR of one table entry per 16-bit word of the lane, from a table for that word's
  position (the word's own CRC advanced over the zero bytes after it). numpy gathers one position
  of every lane of a 1 MiB segment at once (16 gathers per segment, tables of 256 KiB that stay
  in cache). The lanes' registers are then combined eight at a time the same way, with byte
  tables that advance a register over 0..7 lanes of zeros (crc(A + B) = shift(crc(A), len(B)) ^
  crc(B) for zero-started registers), until one register is left. The 0xFFFFFFFF initial value
  enters as the CRC of 0xFF x 4 followed by zeros, XOR-ed into the first lane's register.
"""
import numpy as np

__all__ = ["crc32c", "masked_crc32c", "implementation"]

_POLY = 0x82F63B78  # the Castagnoli polynomial, bit-reflected
_MASK_DELTA = 0xA282EAD8
_NUMPY_MIN_BYTES = 256  # below this the Python loop beats numpy's per-call costs
_LANE = 32  # bytes per lane: 16 word positions (measured best of 8-64)
_SEGMENT = 1 << 20  # bytes gathered per numpy call: keeps the temporaries in cache
_FAN_IN = 8  # registers combined per step (measured best of 4-64)
_COLUMNS_MIN = 16384  # registers from which one gather per byte position beats one flat gather


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


def _crc_python(data, c=0xFFFFFFFF, final=0xFFFFFFFF):
    table = _TABLE
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ final


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


_LANE_TABLES = []
_COMBINE_TABLES = {}


def _lane_tables():
    """Per word position j of a lane: word -> its contribution to the lane's register."""
    if not _LANE_TABLES:
        word = np.arange(1 << 16, dtype=np.uint32)
        own = _NP_TABLE[word & 0xFF]
        own = _NP_TABLE[(own ^ (word >> 8)) & 0xFF] ^ (own >> 8)  # the word's CRC from zero
        after = [_LANE - 2 * j - 2 for j in range(_LANE // 2)]
        _LANE_TABLES.extend(_shift(own, k) if k else own for k in after)
    return _LANE_TABLES


def _combine_tables(span):
    """Row 4*i + k: byte k of register i of `_FAN_IN` consecutive `span`-byte blocks -> its
    contribution to the register of the blocks together."""
    tables = _COMBINE_TABLES.get(span)
    if tables is None:
        byte = np.arange(256, dtype=np.uint32)
        rows = []
        for i in range(_FAN_IN):
            zeros = span * (_FAN_IN - 1 - i)
            for k in range(4):
                values = byte << np.uint32(8 * k)
                rows.append(_shift(values, zeros) if zeros else values)
        tables = _COMBINE_TABLES[span] = np.stack(rows)
    return tables


def _gather_xor(tables, columns):
    """XOR over j of tables[j][columns[:, j]]."""
    acc = tables[0].take(columns[:, 0])
    for j in range(1, columns.shape[1]):
        acc ^= tables[j].take(columns[:, j])
    return acc


_OFFSETS = np.arange(4 * _FAN_IN, dtype=np.intp) * 256


def _combine(columns, tables):
    """The registers of blocks of `_FAN_IN` registers (`columns`: their bytes, one row a block)."""
    if len(columns) >= _COLUMNS_MIN // _FAN_IN:
        return _gather_xor(tables, columns)
    # few rows: one gather from the stacked tables costs less than 32 calls
    return np.bitwise_xor.reduce(tables.ravel().take(columns + _OFFSETS), axis=1)


_INIT = None  # the lane register of 0xFF x 4 then zeros: the initial value's share


def _crc_numpy(data):
    global _INIT
    data = np.frombuffer(data, dtype=np.uint8)
    lanes = len(data) // _LANE
    if not lanes:
        return _crc_python(data.tobytes())
    body = lanes * _LANE
    words = data[:body].view(np.uint16).reshape(lanes, _LANE // 2)
    tables = _lane_tables()
    per = _SEGMENT // _LANE
    regs = np.empty(lanes, dtype=np.uint32)
    for start in range(0, lanes, per):
        regs[start:start + per] = _gather_xor(tables, words[start:start + per])
    if _INIT is None:
        _INIT = _crc_python(b"\xff" * 4 + bytes(_LANE - 4), 0, 0)
    regs[0] ^= _INIT
    span = _LANE
    while len(regs) > 1:
        pad = -len(regs) % _FAN_IN  # zero registers in front change nothing
        if pad:
            regs = np.concatenate([np.zeros(pad, np.uint32), regs])
        regs = _combine(regs.view(np.uint8).reshape(-1, 4 * _FAN_IN), _combine_tables(span))
        span *= _FAN_IN
    return _crc_python(data[body:].tobytes(), int(regs[0]))


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
    """The CRC-32C of the bytes `data` (any bytes-like object), an int in [0, 2**32)."""
    if isinstance(data, bytes) or (isinstance(data, bytearray) and _crc is _crc_fallback):
        return _crc(data)
    if isinstance(data, memoryview) and data.c_contiguous and _crc is _crc_fallback:
        return _crc(data.cast("B"))  # read in place: a restored tensor's buffer is not copied
    return _crc(bytes(data))


def masked_crc32c(data):
    """TFRecord's masked CRC-32C of `data` (rotated right by 15 bits plus a constant, so that a
    checksum stored inside checksummed data does not cancel out)."""
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF
