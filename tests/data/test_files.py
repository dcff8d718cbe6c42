"""tf.data.TextLineDataset: lines of plain, GZIP and ZLIB files, as TF 2.21 reads them."""
import gzip
import zlib

import pytest

import minitf as tf
from minitf.errors import errors


def test_lines_of_several_files_without_their_endings(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"one\ntwo\r\n\nthree")
    (tmp_path / "b.txt").write_bytes(b"four\n")
    ds = tf.data.TextLineDataset([str(tmp_path / "a.txt"), str(tmp_path / "b.txt")])
    assert list(ds.as_numpy_iterator()) == [b"one", b"two", b"", b"three", b"four"]  # TF 2.21's output
    assert ds.element_spec == tf.TensorSpec([], tf.string)
    assert int(ds.cardinality()) == tf.data.UNKNOWN_CARDINALITY
    assert isinstance(ds, tf.data.Dataset)
    assert [len(b) for b in ds.batch(2).as_numpy_iterator()] == [2, 2, 1]


def test_compressed_files(tmp_path):
    with gzip.open(tmp_path / "c.gz", "wb") as f:
        f.write(b"x\ny\n")
    (tmp_path / "d.z").write_bytes(zlib.compress(b"p\nq"))
    assert list(tf.data.TextLineDataset(str(tmp_path / "c.gz"), compression_type="GZIP")
                .as_numpy_iterator()) == [b"x", b"y"]
    assert list(tf.data.TextLineDataset(tf.constant(str(tmp_path / "d.z")), compression_type="ZLIB")
                .as_numpy_iterator()) == [b"p", b"q"]
    with pytest.raises(errors.InvalidArgumentError, match="compression_type"):
        tf.data.TextLineDataset(str(tmp_path / "d.z"), compression_type="BZ2")


def test_a_missing_file_fails_while_iterating(tmp_path):
    ds = tf.data.TextLineDataset(str(tmp_path / "missing.txt"))
    with pytest.raises(errors.NotFoundError, match="No such file"):
        list(ds)


def test_iterator_position_is_checkpointed(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"1\n2\n3\n")
    it = iter(tf.data.TextLineDataset(str(tmp_path / "a.txt")))
    next(it)
    path = tf.train.Checkpoint(it=it).write(str(tmp_path / "ck"))
    assert next(it).numpy() == b"2"
    tf.train.Checkpoint(it=it).read(path)
    assert next(it).numpy() == b"2"
