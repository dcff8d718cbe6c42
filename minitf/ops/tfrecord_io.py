"""TFRecord files: TF's record framing, its writer (tf.io.TFRecordWriter, tf.io.TFRecordOptions)
and a checked record reader used by tf.data.TFRecordDataset.

A TFRecord file is a sequence of records, each framed as

    uint64 length (little-endian) | uint32 masked CRC-32C of those 8 bytes | data | uint32 masked CRC-32C of data

optionally compressed as a whole (GZIP or ZLIB). Files are treated as hostile input: every
length is checked against the bytes actually present before anything of that size is read, and
every defect (bad checksum, truncation, broken compression) raises tf.errors.DataLossError
naming the file and the byte offset of the record. As in TF, a partial header at the very end of
a file (fewer than 12 bytes) is read as the end of the file, since a writer may still be
appending to it.
"""
import gzip
import os
import struct
import zlib

from minitf.errors import errors
from minitf.ops.crc32c import masked_crc32c
from minitf.api_export import export

__all__ = ["TFRecordOptions", "TFRecordWriter", "read_records", "compression_of"]

_COMPRESSIONS = {"": "", "NONE": "", "GZIP": "GZIP", "ZLIB": "ZLIB"}
_HEADER = struct.Struct("<QI")
_FOOTER = struct.Struct("<I")
_PIECE = 1 << 20  # a claimed length is read in pieces of at most 1 MiB, so a lie costs no memory


def compression_of(compression_type, what):
    """'' , 'GZIP' or 'ZLIB' from None, a string (any case) or a TFRecordOptions.

    Raises:
      ValueError: an unknown compression name.
    """
    if isinstance(compression_type, TFRecordOptions):
        compression_type = compression_type.compression_type
    if compression_type is None:
        return ""
    value = getattr(compression_type, "numpy", lambda: compression_type)()
    if isinstance(value, bytes):
        value = value.decode()
    if not isinstance(value, str) or value.upper() not in _COMPRESSIONS:
        raise ValueError(f'{what}: Not a valid compression_type: "{compression_type}"; use None, '
                         f"'', 'GZIP' or 'ZLIB'")
    return _COMPRESSIONS[value.upper()]


@export("io.TFRecordOptions")
class TFRecordOptions:
    """How a TFRecord file is compressed: `compression_type` None/'' (none), 'GZIP' or 'ZLIB',
    and `compression_level` (0-9, None for zlib's default). The other zlib tuning arguments of
    TF are accepted and kept; only the level changes what is written here."""

    compression_type_map = {"": "", "NONE": "", "GZIP": "GZIP", "ZLIB": "ZLIB"}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        compression_of(compression_type, "TFRecordOptions")  # validate now, as TF does
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """'' , 'GZIP' or 'ZLIB' for `options` (a TFRecordOptions, a string or None)."""
        return compression_of(options, "TFRecordOptions")


class _ZlibWriter:
    """A write-only file object compressing into a raw zlib stream (TF's 'ZLIB')."""

    def __init__(self, raw, level):
        self._raw, self._z = raw, zlib.compressobj(level)

    def write(self, data):
        self._raw.write(self._z.compress(data))

    def flush(self):
        self._raw.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._raw.flush()

    def close(self):
        self._raw.write(self._z.flush())
        self._raw.close()


@export("io.TFRecordWriter")
class TFRecordWriter:
    """Writes records (bytes) to a TFRecord file, each framed with its length and checksums.

    Use it as a context manager (`with tf.io.TFRecordWriter(path) as w: w.write(b)`), or call
    `close()`. `options` is a TFRecordOptions or a compression name ('GZIP', 'ZLIB').

    Raises:
      NotFoundError: the parent directory of `path` does not exist.
    """

    def __init__(self, path, options=None):
        self._path = os.fspath(path)
        compression = compression_of(options, "TFRecordWriter")
        level = getattr(options, "compression_level", None)
        level = zlib.Z_DEFAULT_COMPRESSION if level is None or level < 0 else int(level)
        try:
            raw = open(self._path, "wb")
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{self._path}; No such file or directory") from None
        if compression == "GZIP":
            self._file = gzip.GzipFile(filename="", fileobj=raw, mode="wb",  # no name in the header, as TF
                                       compresslevel=6 if level == -1 else level, mtime=0)
            self._raw = raw  # GzipFile leaves the file it was given open
        elif compression == "ZLIB":
            self._file, self._raw = _ZlibWriter(raw, level), None
        else:
            self._file, self._raw = raw, None
        self._closed = False

    def _check_open(self):
        if self._closed:
            raise errors.FailedPreconditionError(None, None, f"Writer is closed ({self._path}).")

    def write(self, record):
        """Append one record: bytes (or a str, written as UTF-8).

        Raises:
          TypeError: `record` is not bytes or str (call `.numpy()` on a string tensor first).
          FailedPreconditionError: the writer is closed.
        """
        self._check_open()
        if isinstance(record, str):
            record = record.encode()
        if not isinstance(record, (bytes, bytearray, memoryview)):
            raise TypeError(f"TFRecordWriter.write() expects bytes, got {type(record).__name__}; "
                            f"for a string tensor pass `t.numpy()`, for a tf.train.Example "
                            f"`example.SerializeToString()`.")
        record = bytes(record)
        length = struct.pack("<Q", len(record))
        self._file.write(length + struct.pack("<I", masked_crc32c(length)) + record
                         + struct.pack("<I", masked_crc32c(record)))

    def flush(self):
        """Push the records written so far to the file."""
        self._check_open()
        self._file.flush()

    def close(self):
        """Finish the file (closing is idempotent)."""
        if not self._closed:
            self._file.close()
            if self._raw is not None:
                self._raw.close()
            self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        if not getattr(self, "_closed", True):
            self.close()


class _ZlibReader:
    """A read-only file object decompressing a raw zlib stream, at most `n` bytes per read."""

    def __init__(self, raw):
        self._raw, self._z, self._pending = raw, zlib.decompressobj(), b""

    def read(self, n):
        out = []
        while n > 0:
            if not self._pending:
                if self._z.eof:
                    break
                self._pending = self._raw.read(1 << 16)
                if not self._pending:
                    break
            piece = self._z.decompress(self._pending, n)
            self._pending = self._z.unconsumed_tail
            out.append(piece)
            n -= len(piece)
        return b"".join(out)

    def close(self):
        self._raw.close()


def _open(path, compression, buffer_size):
    try:
        raw = open(path, "rb", buffering=buffer_size if buffer_size and buffer_size > 0 else -1)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    if compression == "GZIP":
        return gzip.GzipFile(fileobj=raw, mode="rb"), raw
    if compression == "ZLIB":
        return _ZlibReader(raw), raw
    return raw, raw


def _read_exact(f, n):
    """Up to `n` bytes of `f`, read in bounded pieces (fewer only at the end of the stream)."""
    if n <= _PIECE:
        return f.read(n)
    pieces = []
    while n > 0:
        piece = f.read(min(n, _PIECE))
        if not piece:
            break
        pieces.append(piece)
        n -= len(piece)
    return b"".join(pieces)


def _loss(path, offset, kind, detail):
    """TF's "corrupted record at <offset>" wording, plus the file and what was wrong."""
    return errors.DataLossError(None, None, f"{kind} record at {offset} in TFRecord file {path!r}: {detail}")


def read_records(path, compression="", buffer_size=None):
    """Yield the records (bytes) of the TFRecord file `path`, each checked against its checksums.

    Raises:
      NotFoundError: the file does not exist.
      DataLossError: a bad checksum, a record cut short, or broken compressed data.
    """
    f, raw = _open(path, compression, buffer_size)
    size = os.fstat(raw.fileno()).st_size if compression == "" else None
    offset = 0
    try:
        while True:
            header = f.read(12)
            if len(header) < 12:
                return  # TF reads a partial header as the end of the file
            length, length_crc = _HEADER.unpack(header)
            if masked_crc32c(header[:8]) != length_crc:
                raise _loss(path, offset, "corrupted", "bad length checksum (is this a TFRecord file, "
                                                       "and is its compression_type right?)")
            if size is not None and length + 4 > size - offset - 12:
                raise _loss(path, offset, "truncated", f"the record claims {length} bytes, the file has "
                                                       f"{max(size - offset - 16, 0)} left")
            data = _read_exact(f, length + 4)
            if len(data) < length + 4:
                raise _loss(path, offset, "truncated", f"the record claims {length} bytes, the stream "
                                                       f"ended after {max(len(data) - 4, 0)}")
            record = data[:length]
            if masked_crc32c(record) != _FOOTER.unpack_from(data, length)[0]:
                raise _loss(path, offset, "corrupted", "bad data checksum")
            yield record
            offset += length + 16
    except (OSError, EOFError, zlib.error) as e:
        if isinstance(e, (FileNotFoundError, IsADirectoryError)):
            raise
        raise _loss(path, offset, "unreadable", f"broken {compression or 'uncompressed'} data ({e})") from None
    finally:
        f.close()
        raw.close()
