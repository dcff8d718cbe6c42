"""The sorted string table of a checkpoint's `.index` file (TF's copy of LevelDB's table).

Layout, as `tsl/lib/io/table_builder.cc` writes it with TF's checkpoint options (no compression,
blocks of 256 KiB, a restart point every 16 keys):

    data block 0, data block 1, ...   sorted key/value entries
    metaindex block                   empty
    index block                       per data block: a key >= its last key, its BlockHandle
    footer (48 bytes)                 metaindex handle, index handle (varint64 offset and size
                                      each), zero padding to 40 bytes, magic 0xdb4775248b80fb57

A block is its entries (varint32 shared key prefix length, unshared length, value length, the
unshared key bytes, the value), then the restart offsets (uint32 each) and their count
(uint32); on disk it is followed by a 5-byte trailer: the compression type (0: none) and the
masked CRC-32C of the block and that byte.

`build_table` writes exactly what TF writes for the same entries. `read_table` trusts nothing:
the footer's magic, every handle against the file and the other blocks, every block's checksum,
the restart array, every entry's lengths against its block, and the key order are checked;
anything wrong is TableError (a ValueError) saying what.
"""
import struct

from minitf.checkpoint.proto_wire import WireError, read_varint, varint
from minitf.ops.crc32c import crc32c

__all__ = ["TableError", "build_table", "read_table", "MAGIC", "FOOTER_SIZE"]

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
_HANDLE_AREA = 40  # two BlockHandles of at most 20 bytes each
_TRAILER = 5
_NO_COMPRESSION = 0
_SNAPPY = 1
_MASK_DELTA = 0xA282EAD8


class TableError(ValueError):
    """An `.index` table that is truncated, corrupt, or not one minitf reads."""


def _mask(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


class _BlockBuilder:
    """Entries with shared-prefix compression and a restart point every `interval` keys."""

    def __init__(self, interval):
        self.interval = interval
        self.parts, self.size = [], 0
        self.restarts, self.counter = [0], 0
        self.last_key = b""

    def add(self, key, value):
        shared = 0
        if self.counter < self.interval:
            limit = min(len(key), len(self.last_key))
            while shared < limit and key[shared] == self.last_key[shared]:
                shared += 1
        else:
            self.restarts.append(self.size)
            self.counter = 0
        piece = varint(shared) + varint(len(key) - shared) + varint(len(value)) + key[shared:] + value
        self.parts.append(piece)
        self.size += len(piece)
        self.last_key = key
        self.counter += 1

    def estimate(self):
        return self.size + 4 * len(self.restarts) + 4

    def empty(self):
        return not self.parts

    def finish(self):
        tail = struct.pack(f"<{len(self.restarts)}I", *self.restarts)
        return b"".join(self.parts) + tail + struct.pack("<I", len(self.restarts))


def _shortest_separator(start, limit):
    """LevelDB's bytewise FindShortestSeparator: a short key in [start, limit)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n and start[i] < 0xFF and start[i] + 1 < limit[i]:
        return start[:i] + bytes([start[i] + 1])
    return start


def _short_successor(key):
    """LevelDB's bytewise FindShortSuccessor: a short key >= `key`."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


def _handle(offset, size):
    return varint(offset) + varint(size)


def build_table(items, block_size=262144, restart_interval=16):
    """The bytes of a table holding `items`, (key bytes, value bytes) pairs sorted by key."""
    out, offset = [], 0

    def write_block(builder):
        nonlocal offset
        contents = builder.finish()
        trailer = bytes([_NO_COMPRESSION])
        trailer += struct.pack("<I", _mask(crc32c(contents + trailer)))
        out.append(contents + trailer)
        handle = (offset, len(contents))
        offset += len(contents) + _TRAILER
        return handle

    data, index = _BlockBuilder(restart_interval), _BlockBuilder(1)
    pending, last_key = None, b""
    for key, value in items:
        if pending is not None:
            index.add(_shortest_separator(last_key, key), _handle(*pending))
            pending = None
        data.add(key, value)
        last_key = key
        if data.estimate() >= block_size:
            pending = write_block(data)
            data = _BlockBuilder(restart_interval)
    if not data.empty():
        pending = write_block(data)
    meta = write_block(_BlockBuilder(restart_interval))
    if pending is not None:
        index.add(_short_successor(last_key), _handle(*pending))
    index_handle = write_block(index)
    handles = _handle(*meta) + _handle(*index_handle)
    footer = handles + b"\0" * (_HANDLE_AREA - len(handles)) + struct.pack("<Q", MAGIC)
    return b"".join(out) + footer


def _read_handle(buf, pos, end):
    offset, pos = read_varint(buf, pos, end)
    size, pos = read_varint(buf, pos, end)
    return offset, size, pos


def _block(data, offset, size, what, limit):
    """The contents of the block at (offset, size), its trailer checked; `limit` is where the
    blocks end (the footer)."""
    if offset + size + _TRAILER > limit:
        raise TableError(f"the {what} block (offset {offset}, size {size}) runs past the end "
                         f"of the table ({limit} bytes before the footer)")
    contents = data[offset:offset + size]
    kind = data[offset + size]
    stored = struct.unpack_from("<I", data, offset + size + 1)[0]
    if _mask(crc32c(bytes(contents) + bytes([kind]))) != stored:
        raise TableError(f"checksum of the {what} block does not match its contents")
    if kind == _SNAPPY:
        raise TableError(f"the {what} block is snappy-compressed; TF writes checkpoint "
                         "indexes uncompressed and minitf reads only those")
    if kind != _NO_COMPRESSION:
        raise TableError(f"the {what} block has unknown compression type {kind}")
    return contents


def _entries(block, what):
    """[(key, value)] of a block's contents, every length and restart point checked."""
    size = len(block)
    if size < 4:
        raise TableError(f"the {what} block is {size} bytes, too short for its restart count")
    count = struct.unpack_from("<I", block, size - 4)[0]
    if count < 1 or 4 * (count + 1) > size:
        raise TableError(f"the {what} block declares {count} restart points, which do not fit "
                         f"its {size} bytes")
    end = size - 4 * (count + 1)
    restarts = struct.unpack_from(f"<{count}I", block, end)
    out, starts, pos, last = [], set(), 0, b""
    try:
        while pos < end:
            starts.add(pos)
            shared, pos = read_varint(block, pos, end)
            unshared, pos = read_varint(block, pos, end)
            length, pos = read_varint(block, pos, end)
            if shared > len(last) or unshared > end - pos or length > end - pos - unshared:
                raise TableError(f"an entry of the {what} block has lengths outside the block")
            key = last[:shared] + bytes(block[pos:pos + unshared])
            pos += unshared
            if out and key <= last:
                raise TableError(f"keys of the {what} block are not in increasing order")
            out.append((key, bytes(block[pos:pos + length]), shared))
            pos += length
            last = key
    except WireError as e:
        raise TableError(f"an entry of the {what} block is malformed: {e}") from None
    entry_shared = {start: item[2] for start, item in zip(sorted(starts), out)}
    if restarts[0] != 0 or any(b <= a for a, b in zip(restarts, restarts[1:])):
        raise TableError(f"the restart points of the {what} block are out of order")
    if out and any(entry_shared.get(r) != 0 for r in restarts):
        raise TableError(f"a restart point of the {what} block is not at a full key")
    return [(k, v) for k, v, _ in out]


def read_table(data, max_entries):
    """[(key, value)] of every entry of the table `data` (bytes), in key order.

    At most `max_entries` entries are accepted. Raises TableError for a damaged table.
    """
    size = len(data)
    if size < FOOTER_SIZE:
        raise TableError(f"{size} bytes is too short for a table footer ({FOOTER_SIZE} bytes)")
    limit = size - FOOTER_SIZE
    if struct.unpack_from("<Q", data, size - 8)[0] != MAGIC:
        raise TableError("the footer's magic number is wrong: not a TF checkpoint index")
    try:
        meta_off, meta_size, pos = _read_handle(data, limit, limit + _HANDLE_AREA)
        index_off, index_size, _ = _read_handle(data, pos, limit + _HANDLE_AREA)
    except WireError as e:
        raise TableError(f"the footer's block handles are malformed: {e}") from None
    _entries(_block(data, meta_off, meta_size, "metaindex", limit), "metaindex")
    index = _entries(_block(data, index_off, index_size, "index", limit), "index")
    taken = [(meta_off, meta_off + meta_size + _TRAILER),
             (index_off, index_off + index_size + _TRAILER)]
    out, previous_bound = [], None
    for n, (bound, handle) in enumerate(index):
        try:
            offset, block_size, used = _read_handle(handle, 0, len(handle))
        except WireError as e:
            raise TableError(f"index entry {n} holds a malformed block handle: {e}") from None
        if used != len(handle):
            raise TableError(f"index entry {n} holds trailing bytes after its block handle")
        span = (offset, offset + block_size + _TRAILER)
        if any(span[0] < b and a < span[1] for a, b in taken):
            raise TableError(f"data block {n} overlaps another block of the table")
        taken.append(span)
        entries = _entries(_block(data, offset, block_size, f"data {n}", limit), f"data {n}")
        if not entries:
            raise TableError(f"data block {n} is empty")
        if entries[-1][0] > bound or (previous_bound is not None and
                                      entries[0][0] <= previous_bound):
            raise TableError(f"data block {n} holds keys outside its index range")
        if out and entries[0][0] <= out[-1][0]:
            raise TableError(f"data block {n} is out of key order")
        previous_bound = bound
        out.extend(entries)
        if len(out) > max_entries:
            raise TableError(f"the table holds more than {max_entries} entries")
    return out
