"""tf.data.TFRecordDataset, tf.io.TFRecordWriter/TFRecordOptions and the CRC-32C behind them,
including hostile files (bad checksums, truncation, absurd lengths)."""
import gzip
import os
import struct
import tracemalloc
import zlib

import numpy as np
import pytest

import minitf as tf
from minitf.ops import crc32c as crc

# the bytes TF 2.21 writes for the records b"hello" and b"world!!" (uncompressed)
TF_HELLO_WORLD = bytes.fromhex("0500000000000000eab2043e68656c6c6fbb1f1c19"
                               "0700000000000000bbd79f11776f726c6421217754cd5a")


def _write(path, records, compression=None):
    with tf.io.TFRecordWriter(str(path), tf.io.TFRecordOptions(compression)) as w:
        for r in records:
            w.write(r)
    return str(path)


def _read(path, **kw):
    return [r.numpy() for r in tf.data.TFRecordDataset(str(path), **kw)]


# --- CRC-32C ---
def test_crc32c_known_values():
    assert crc.crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value
    assert crc.crc32c(b"") == 0
    assert crc._crc_python(b"123456789") == 0xE3069283


@pytest.mark.parametrize("n", [0, 1, 4, 15, 16, 17, 1023, 1024, 1025, 4096, 70001, 1 << 18])
def test_crc32c_numpy_chunks_agree_with_the_byte_loop(n):
    data = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8).tobytes()
    want = crc._crc_python(data)
    assert crc._crc_fallback(data) == want
    if n >= 4:
        assert crc._crc_numpy(data) == want
    assert crc.crc32c(data) == want  # whichever implementation is active


def test_masked_crc_matches_tf_framing():
    assert struct.pack("<I", crc.masked_crc32c(struct.pack("<Q", 5))) == TF_HELLO_WORLD[8:12]
    assert struct.pack("<I", crc.masked_crc32c(b"hello")) == TF_HELLO_WORLD[17:21]


# --- writer and reader ---
def test_writer_writes_tf_bytes(tmp_path):
    path = _write(tmp_path / "a.tfr", [b"hello", "world!!"])
    assert open(path, "rb").read() == TF_HELLO_WORLD
    assert _read(path) == [b"hello", b"world!!"]


@pytest.mark.parametrize("compression", [None, "", "GZIP", "ZLIB", "gzip"])
def test_round_trip_with_compression(tmp_path, compression):
    records = [b"", b"x", os.urandom(3000), b"\x00" * 70000]
    path = _write(tmp_path / "c.tfr", records, compression)
    assert _read(path, compression_type=compression) == records
    if compression:
        unpack = gzip.decompress if compression.upper() == "GZIP" else zlib.decompress
        raw = unpack(open(path, "rb").read())
        assert raw[:8] == struct.pack("<Q", 0)  # the framing inside the compression


def test_zlib_level_and_flush(tmp_path):
    path = str(tmp_path / "z.tfr")
    w = tf.io.TFRecordWriter(path, tf.io.TFRecordOptions("ZLIB", compression_level=9))
    w.write(b"abc")
    w.flush()
    w.write(b"def")
    w.close()
    w.close()  # idempotent
    assert _read(path, compression_type="ZLIB") == [b"abc", b"def"]
    with pytest.raises(tf.errors.FailedPreconditionError, match="closed"):
        w.write(b"more")


def test_writer_errors(tmp_path):
    with tf.io.TFRecordWriter(str(tmp_path / "e.tfr")) as w:
        with pytest.raises(TypeError, match="numpy"):
            w.write(tf.constant(b"abc"))
        with pytest.raises(TypeError, match="bytes"):
            w.write(3)
    with pytest.raises(tf.errors.NotFoundError, match="No such file"):
        tf.io.TFRecordWriter(str(tmp_path / "missing" / "x.tfr"))


def test_options():
    o = tf.io.TFRecordOptions("GZIP")
    assert o.compression_type == "GZIP" and o.compression_level is None
    assert tf.io.TFRecordOptions.get_compression_type_string(None) == ""
    assert tf.io.TFRecordOptions.get_compression_type_string("zlib") == "ZLIB"
    assert tf.io.TFRecordOptions.get_compression_type_string(o) == "GZIP"
    with pytest.raises(ValueError, match='Not a valid compression_type: "bz"'):
        tf.io.TFRecordOptions("bz")
    with pytest.raises(ValueError, match="compression_type"):
        tf.data.TFRecordDataset("x.tfr", compression_type="BZ2")


def test_dataset_spec_cardinality_and_inputs(tmp_path):
    a = _write(tmp_path / "a.tfr", [b"a0", b"a1"])
    b = _write(tmp_path / "b.tfr", [b"b0"])
    ds = tf.data.TFRecordDataset([a, b])
    assert ds.element_spec == tf.TensorSpec([], tf.string)
    assert int(ds.cardinality()) == tf.data.UNKNOWN_CARDINALITY
    assert list(ds.as_numpy_iterator()) == [b"a0", b"a1", b"b0"]
    assert list(tf.data.TFRecordDataset(tf.constant([b, a])).as_numpy_iterator()) == [b"b0", b"a0", b"a1"]
    files = tf.data.Dataset.from_tensor_slices([b, a, b])
    assert list(tf.data.TFRecordDataset(files).as_numpy_iterator()) == [b"b0", b"a0", b"a1", b"b0"]
    with pytest.raises(TypeError, match="filenames"):
        tf.data.TFRecordDataset([])
    with pytest.raises(TypeError, match="tf.string"):
        tf.data.TFRecordDataset([a, 3])


def test_num_parallel_reads_interleaves_in_tf_order(tmp_path):
    five = _write(tmp_path / "r.tfr", [b"r%d" % i * i for i in range(5)])
    two = _write(tmp_path / "b.tfr", [b"b0", b"b1"])
    got = list(tf.data.TFRecordDataset([five, two, five], num_parallel_reads=2).as_numpy_iterator())
    # TF 2.21's order for the same files
    assert got == [b"", b"b0", b"r1", b"b1", b"r2r2", b"r3r3r3", b"", b"r4r4r4r4", b"r1", b"r2r2",
                   b"r3r3r3", b"r4r4r4r4"]
    got = list(tf.data.TFRecordDataset([two, five, two, five], num_parallel_reads=2).as_numpy_iterator())
    assert got == [b"b0", b"", b"b1", b"r1", b"r2r2", b"b0", b"r3r3r3", b"b1", b"r4r4r4r4", b"",
                   b"r1", b"r2r2", b"r3r3r3", b"r4r4r4r4"]


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="nope.tfr"):
        _read(tmp_path / "nope.tfr")


# --- hostile files ---
def _hostile(tmp_path, name, content, match, **kw):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(tf.errors.DataLossError, match=match) as info:
        _read(path, **kw)
    assert name in str(info.value)  # the message names the file
    return str(info.value)


def test_truncated_record(tmp_path):
    msg = _hostile(tmp_path, "t.tfr", TF_HELLO_WORLD[:-3], "truncated record at 21")
    assert "claims 7 bytes" in msg


def test_partial_header_at_the_end_reads_as_end_of_file_as_in_tf(tmp_path):
    path = tmp_path / "p.tfr"
    path.write_bytes(TF_HELLO_WORLD[:26])
    assert _read(path) == [b"hello"]


def test_bad_data_checksum(tmp_path):
    bad = TF_HELLO_WORLD[:12] + b"j" + TF_HELLO_WORLD[13:]
    _hostile(tmp_path, "c.tfr", bad, "corrupted record at 0 .*bad data checksum")


def test_bad_length_checksum(tmp_path):
    bad = TF_HELLO_WORLD[:21] + b"\x09" + TF_HELLO_WORLD[22:]
    _hostile(tmp_path, "l.tfr", bad, "corrupted record at 21 .*length checksum")


def _huge_header():
    length = struct.pack("<Q", 1 << 60)
    return length + struct.pack("<I", crc.masked_crc32c(length))


def test_huge_claimed_length_allocates_nothing(tmp_path):
    content = TF_HELLO_WORLD[:21] + _huge_header() + b"x" * 100
    tracemalloc.start()
    try:
        msg = _hostile(tmp_path, "h.tfr", content, "truncated record at 21")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(1 << 60) in msg
    assert peak < 4 << 20


def test_huge_claimed_length_in_a_compressed_stream_reads_in_bounded_pieces(tmp_path):
    content = gzip.compress(TF_HELLO_WORLD[:21] + _huge_header() + b"x" * 100)
    tracemalloc.start()
    try:
        _hostile(tmp_path, "h.gz", content, "truncated record at 21", compression_type="GZIP")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20


def test_broken_compression(tmp_path):
    _hostile(tmp_path, "n.gz", TF_HELLO_WORLD, "GZIP", compression_type="GZIP")
    _hostile(tmp_path, "n.z", TF_HELLO_WORLD, "ZLIB", compression_type="ZLIB")
    _hostile(tmp_path, "cut.gz", gzip.compress(TF_HELLO_WORLD)[:-10], "record at 21",
             compression_type="GZIP")


def test_error_surfaces_after_good_records(tmp_path):
    path = tmp_path / "g.tfr"
    path.write_bytes(TF_HELLO_WORLD[:-1])
    it = iter(tf.data.TFRecordDataset(str(path)))
    assert next(it).numpy() == b"hello"
    with pytest.raises(tf.errors.DataLossError):
        next(it)
