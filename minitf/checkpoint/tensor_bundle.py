"""TF's tensor bundle: a checkpoint's `<prefix>.index` table and `<prefix>.data-*` shards.

The index (an `sstable`) maps each tensor's key to a BundleEntryProto (dtype, shape, shard,
offset, size, masked CRC-32C of its bytes); the empty key holds the BundleHeaderProto (shard
count, endianness, version). A shard is the tensors' raw little-endian bytes back to back; a
string tensor is its elements' varint lengths, the masked CRC-32C of those lengths (each taken
as a little-endian uint32), then the bytes.

`write_bundle` writes one shard then the index, each atomically (temp file, fsync, rename,
directory fsync; `h5format.atomic_replace`), so a reader never meets a half-written file.

`BundleReader` trusts nothing: the index and shards are opened without following a symlink or
blocking on a FIFO and must be regular files; the index is read whole under a size cap and
every structure in it checked (`sstable`, `protos`); an entry's dtype, shape and size must agree
before anything is allocated; its offset and size are checked against the shard before a byte
is read, and its checksum after. Anything wrong is DataLossError naming the file and the tensor.
"""
import os
import stat
import struct

import numpy as np

from minitf.errors import errors
from minitf.checkpoint import h5format, protos, sstable
from minitf.checkpoint.proto_wire import WireError, read_varint, varint
from minitf.ops.crc32c import crc32c, masked_crc32c

__all__ = ["BundleReader", "BundleValue", "write_bundle", "index_path", "data_path",
           "is_bundle", "HEADER_KEY"]

HEADER_KEY = b""
INDEX_SUFFIX = ".index"
_INDEX_LIMIT = 1 << 30        # bytes of index read at most
_MAX_ENTRIES = 10_000_000
_MAX_SHARDS = 4096
_MAX_RANK = 254               # TF's largest rank
_READ_FLOOR = 64 << 20        # reads with no variable to compare with: this much plus the data
_NUMERIC = {"float32": "<f4", "float64": "<f8", "int32": "<i4", "uint8": "u1", "int16": "<i2",
            "int8": "i1", "complex64": "<c8", "int64": "<i8", "bool": "?", "uint16": "<u2",
            "complex128": "<c16", "float16": "<f2", "uint32": "<u4", "uint64": "<u8",
            "bfloat16": "<u2"}
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) \
    | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def index_path(prefix):
    """'<prefix>.index'."""
    return prefix + INDEX_SUFFIX


def data_path(prefix, shard=0, num_shards=1):
    """'<prefix>.data-00000-of-00001' (TF's shard file name)."""
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def is_bundle(prefix):
    """Whether `prefix` names a tensor bundle (its '.index' file exists)."""
    return os.path.lexists(index_path(prefix))


class BundleValue:
    """A tensor to write: a host array and its minitf dtype name ('string': a list of bytes
    objects, the flat elements, with `shape`)."""

    __slots__ = ("array", "dtype_name", "shape")

    def __init__(self, array, dtype_name, shape=None):
        self.array, self.dtype_name = array, dtype_name
        self.shape = tuple(shape if shape is not None else np.shape(array))


def _tensor_bytes(value):
    """(pieces to write, crc32c before masking, size) of one tensor."""
    if value.dtype_name == "string":
        lengths = [len(s) for s in value.array]
        crc_input = b"".join(struct.pack("<I" if n <= 0xFFFFFFFF else "<Q", n) for n in lengths)
        head = b"".join(varint(n) for n in lengths)
        check = struct.pack("<I", masked_crc32c(crc_input))
        pieces = [head, check] + [bytes(s) for s in value.array]
        body = crc_input + check + b"".join(pieces[2:])
        return pieces, crc32c(body), sum(len(p) for p in pieces)
    array = np.asarray(value.array)
    if value.dtype_name == "bfloat16":
        bits = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32)
        rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
        array = (rounded >> np.uint32(16)).astype("<u2")
    else:
        array = np.ascontiguousarray(array, dtype=np.dtype(_NUMERIC[value.dtype_name]))
    data = array.reshape(-1).view(np.uint8)
    raw = data.tobytes()
    return [raw], crc32c(raw), len(raw)


def _mask(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def write_bundle(prefix, values):
    """Write {key: BundleValue} as the bundle `prefix` (one shard, then the index; each
    atomically). Returns `prefix`."""
    keys = sorted(values, key=lambda k: k.encode("utf-8"))
    entries = []
    size_hint = sum(getattr(np.asarray(v.array) if v.dtype_name != "string" else b"", "nbytes", 0)
                    for v in values.values())

    def write_data(tmp):
        offset = 0
        with open(tmp, "wb") as f:
            for key in keys:
                value = values[key]
                pieces, crc, size = _tensor_bytes(value)
                for piece in pieces:
                    f.write(piece)
                entries.append((key.encode("utf-8"), protos.encode_entry(
                    protos.DTYPE_ENUMS[value.dtype_name], value.shape, 0, offset, size,
                    _mask(crc))))
                offset += size
    h5format.atomic_replace(write_data, data_path(prefix), size_hint=size_hint)
    table = sstable.build_table([(HEADER_KEY, protos.encode_header(1))] + entries)

    def write_index(tmp):
        with open(tmp, "wb") as f:
            f.write(table)
    h5format.atomic_replace(write_index, index_path(prefix), size_hint=len(table))
    return prefix


class Entry:
    """One tensor of a bundle as its index declares it (nothing read yet).

    `path` is its key, `shape` a tuple, `dtype` the numpy dtype it is read as (None for
    strings, variants and resources), `dtype_name` minitf's name for TF's dtype.
    """

    __slots__ = ("path", "shape", "dtype", "dtype_name", "count", "nbytes", "shard", "offset",
                 "size", "crc32c", "sliced")

    def __init__(self, key, proto):
        self.path = key
        self.shape = tuple(proto.shape)
        self.dtype_name = protos.ENUM_DTYPES.get(proto.dtype_enum)
        host = _NUMERIC.get(self.dtype_name)
        self.dtype = (np.dtype(np.float32) if self.dtype_name == "bfloat16" else
                      np.dtype(host).newbyteorder("=") if host else None)
        self.shard, self.offset, self.size = proto.shard_id, proto.offset, proto.size
        self.crc32c, self.sliced = proto.crc32c, proto.sliced
        self.count = 1
        for d in self.shape:
            self.count *= d
        self.nbytes = self.count * self.dtype.itemsize if self.dtype is not None else self.size

    @property
    def numeric(self):
        """Whether the tensor holds numbers (or bools) a variable can take."""
        return self.dtype is not None


class BundleReader:
    """A tensor bundle opened for reading: `entries` maps each key to its `Entry`.

    Use as a context manager (or call `close()`): the shard files stay open between reads.
    Raises NotFoundError when the index is missing and DataLossError for anything wrong in it.
    """

    def __init__(self, prefix, kind="Checkpoint"):
        self.prefix, self.kind = os.fspath(prefix), kind
        self.path = index_path(self.prefix)
        self._shards = {}
        data = self._read_index()
        try:
            items = sstable.read_table(data, _MAX_ENTRIES)
        except sstable.TableError as e:
            raise self.refuse(None, f"is not a valid checkpoint index: {e}") from None
        if not items or items[0][0] != HEADER_KEY:
            raise self.refuse(None, "has no bundle header (the entry with the empty key)")
        self.header = self._header(items[0][1])
        self.entries = {}
        for raw_key, value in items[1:]:
            try:
                key = raw_key.decode("utf-8")
            except UnicodeDecodeError:
                raise self.refuse(None, f"holds a key that is not UTF-8: {raw_key[:80]!r}") from None
            try:
                proto = protos.decode_entry(value)
            except WireError as e:
                raise self.refuse(key, f"has a malformed index entry: {e}") from None
            self.entries[key] = self._check_entry(key, proto)

    def refuse(self, key, what, path=None):
        """The DataLossError for `what` is wrong with tensor `key` (None: the file itself)."""
        where = f", tensor {key!r}" if key is not None else ""
        return errors.DataLossError(None, None, f"{self.kind} {path or self.path!r}{where}: {what}")

    def _open(self, path, limit):
        """(fd, size) of the regular file `path`, opened without following a final symlink
        or blocking on a FIFO; refused when it is over `limit` bytes."""
        try:
            fd = os.open(path, _OPEN_FLAGS)
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{self.kind} file {path!r} does not "
                                       "exist.") from None
        except OSError as e:
            raise self.refuse(None, f"cannot be opened ({e.strerror}); minitf reads checkpoint "
                               "files only as regular files, never through a symlink", path) from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise self.refuse(None, "is not a regular file; minitf reads checkpoints only "
                                   "from regular files", path)
            if st.st_size > limit:
                raise self.refuse(None, f"is {st.st_size} bytes, over the {limit} bytes "
                                   "minitf reads for it", path)
        except BaseException:
            os.close(fd)
            raise
        return fd, st.st_size

    def _read_index(self):
        fd, size = self._open(self.path, _INDEX_LIMIT)
        try:
            data = _pread(fd, size, 0)
        finally:
            os.close(fd)
        if len(data) != size:
            raise self.refuse(None, "changed size while being read")
        return data

    def _header(self, value):
        try:
            header = protos.decode_header(value)
        except WireError as e:
            raise self.refuse(None, f"has a malformed bundle header: {e}") from None
        if not 1 <= header["num_shards"] <= _MAX_SHARDS:
            raise self.refuse(None, f"declares {header['num_shards']} data shards (1 to "
                               f"{_MAX_SHARDS} are read)")
        if header["endianness"] != 0:
            raise self.refuse(None, "was written big-endian; minitf reads only little-endian "
                               "checkpoints")
        if header["min_consumer"] > 1 or 1 in header["bad_consumers"]:
            raise self.refuse(None, f"needs a newer reader (bundle version "
                               f"{header['min_consumer']}; minitf reads version 1)")
        return header

    def _check_entry(self, key, proto):
        if proto.dtype_enum not in protos.ENUM_DTYPES:
            raise self.refuse(key, f"has unknown dtype enum {proto.dtype_enum}")
        if proto.unknown_rank or len(proto.shape) > _MAX_RANK or any(d < 0 for d in proto.shape):
            raise self.refuse(key, f"has an invalid shape {proto.shape}")
        if not 0 <= proto.shard_id < self.header["num_shards"]:
            raise self.refuse(key, f"lives in shard {proto.shard_id} of "
                               f"{self.header['num_shards']}")
        if proto.offset < 0 or proto.size < 0:
            raise self.refuse(key, f"has a negative offset or size ({proto.offset}, {proto.size})")
        entry = Entry(key, proto)
        if entry.dtype is not None and not entry.sliced:
            stored = entry.count * np.dtype(_NUMERIC[entry.dtype_name]).itemsize
            if stored != entry.size:
                raise self.refuse(key, f"declares shape {list(entry.shape)} of {entry.dtype_name} "
                                   f"({stored} bytes) but {entry.size} bytes of data")
        elif entry.dtype_name == "string" and entry.count and entry.size < entry.count + 4:
            raise self.refuse(key, f"declares {entry.count} strings in {entry.size} bytes")
        return entry

    def _shard(self, index):
        """(fd, size, path, bytes on disk) of data shard `index`, opened once."""
        shard = self._shards.get(index)
        if shard is None:
            path = data_path(self.prefix, index, self.header["num_shards"])
            try:
                fd, size = self._open(path, float("inf"))
            except errors.NotFoundError:
                raise self.refuse(None, f"names data file {path!r}, which is missing: the "
                                  "checkpoint is incomplete") from None
            allocated = getattr(os.fstat(fd), "st_blocks", None)
            on_disk = size if allocated is None else min(size, allocated * 512)
            shard = self._shards[index] = (fd, size, path, on_disk)
        return shard

    def _budget(self, entries):
        """Bytes a read with no variable to compare with may take: 64 MiB plus twice what the
        shards hold on disk (a sparse file declaring terabytes holds next to nothing)."""
        shards = {e.shard for e in entries}
        return _READ_FLOOR + 2 * sum(self._shard(i)[3] for i in shards)

    def _data(self, entry, into=None, verify=True):
        """The bytes of `entry` (into the writable buffer `into` if given), bounds checked, and
        with `verify` the checksum of the raw bytes (a numeric tensor's)."""
        fd, size, path, _ = self._shard(entry.shard)
        if entry.offset + entry.size > size:
            raise self.refuse(entry.path, f"lies at bytes {entry.offset}..{entry.offset + entry.size} "
                               f"but the data file {path!r} has {size} bytes (truncated?)")
        data = _pread(fd, entry.size, entry.offset, into)
        if len(data) != entry.size:
            raise self.refuse(entry.path, f"could not be read whole from {path!r} (the file "
                               "shrank?)")
        if verify and _mask(crc32c(data)) != entry.crc32c:
            raise self._corrupt(entry, path)
        return data

    def _corrupt(self, entry, path=None):
        path = path or data_path(self.prefix, entry.shard, self.header["num_shards"])
        return self.refuse(entry.path, f"checksum does not match its data in {path!r}; the "
                            "file is corrupt")

    def check_value(self, entry, expected_shape=None):
        """Refuse (DataLossError) an entry no variable can take: not numeric, or sliced."""
        if entry.sliced:
            raise self.refuse(entry.path, "is a slice of a partitioned variable; minitf "
                               "restores only whole tensors")
        if not entry.numeric:
            raise self.refuse(entry.path, f"holds {entry.dtype_name}, not numbers")

    def check_budget(self, entries):
        """Refuse (DataLossError) reading `entries` together, none of them checked against a
        variable, when they need more memory than the checkpoint's data can fill (`_budget`)."""
        entries = [e for e in entries if e.numeric]
        total = sum(e.nbytes for e in entries)
        if entries and total > self._budget(entries):
            biggest = max(entries, key=lambda e: e.nbytes)
            raise self.refuse(biggest.path, f"would take {total} bytes of memory (with the other "
                              f"values read along, none of them checked against a variable), more "
                              f"than the data files hold on disk plus 64 MiB "
                              f"({self._budget(entries)} bytes); refusing to allocate it")

    def read(self, entry, shape=None):
        """The numpy value of numeric `entry` (a fresh writable array). With `shape`, the
        declared shape must be it."""
        self.check_value(entry)
        if shape is not None and tuple(shape) != entry.shape:
            raise self.refuse(entry.path, f"has shape {list(entry.shape)}, expected {list(shape)}")
        if shape is None:
            self.check_budget([entry])
        if entry.dtype_name == "bfloat16":
            raw = np.frombuffer(self._data(entry), dtype="<u2").astype(np.uint32) << np.uint32(16)
            return raw.view(np.float32).reshape(entry.shape)
        out = np.empty(entry.shape, dtype=np.dtype(_NUMERIC[entry.dtype_name]))
        self._data(entry, out.reshape(-1).view(np.uint8) if out.size else None)
        return out.astype(entry.dtype, copy=False)

    def read_strings(self, entry):
        """The elements of string tensor `entry`: a list of bytes (row-major), checksums checked."""
        if entry.dtype_name != "string":
            raise self.refuse(entry.path, f"holds {entry.dtype_name}, not strings")
        if not entry.count:
            return []
        data = self._data(entry, verify=False)
        lengths, pos = [], 0
        try:
            for _ in range(entry.count):
                n, pos = read_varint(data, pos, len(data))
                lengths.append(n)
        except WireError as e:
            raise self.refuse(entry.path, f"has malformed string lengths: {e}") from None
        if pos + 4 + sum(lengths) != len(data):
            raise self.refuse(entry.path, "string lengths do not add up to its size")
        crc_input = b"".join(struct.pack("<I" if n <= 0xFFFFFFFF else "<Q", n) for n in lengths)
        check = bytes(data[pos:pos + 4])
        if struct.pack("<I", masked_crc32c(crc_input)) != check or \
                _mask(crc32c(crc_input + check + bytes(data[pos + 4:]))) != entry.crc32c:
            raise self._corrupt(entry)
        pos += 4
        out = []
        for n in lengths:
            out.append(bytes(data[pos:pos + n]))
            pos += n
        return out

    def close(self):
        """Close the shard files."""
        shards, self._shards = self._shards, {}
        for shard in shards.values():
            os.close(shard[0])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 -- interpreter shutdown
            pass


def _pread(fd, size, offset, into=None):
    """`size` bytes of `fd` from `offset` (fewer at end of file), into `into` when given."""
    if into is not None and hasattr(os, "preadv"):
        view, done = memoryview(into), 0
        while done < size:
            got = os.preadv(fd, [view[done:]], offset + done)
            if got <= 0:
                break
            done += got
        return view[:done]
    chunks, done = [], 0
    while done < size:
        chunk = os.pread(fd, min(size - done, 1 << 30), offset + done)
        if not chunk:
            break
        chunks.append(chunk)
        done += len(chunk)
    data = b"".join(chunks)
    if into is not None:
        memoryview(into)[:len(data)] = data
    return data
