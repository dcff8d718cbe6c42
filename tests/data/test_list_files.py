"""tf.data.Dataset.list_files: sorted matches of one or more glob patterns, shuffled by default."""
import pytest

import minitf as tf


@pytest.fixture()
def folder(tmp_path):
    for name in ["b.txt", "a.txt", "c.txt", "d.csv"]:
        (tmp_path / name).write_text(name)
    return tmp_path


def test_sorted_without_shuffle(folder):
    ds = tf.data.Dataset.list_files(str(folder / "*.txt"), shuffle=False)
    assert ds.element_spec == tf.TensorSpec([], tf.string)
    assert int(ds.cardinality()) == 3
    assert list(ds.as_numpy_iterator()) == [str(folder / n).encode() for n in ["a.txt", "b.txt", "c.txt"]]


def test_several_patterns_sorted_together_duplicates_kept(folder):
    got = tf.data.Dataset.list_files([str(folder / "*.txt"), str(folder / "a*")], shuffle=False)
    assert [p.decode()[-5:] for p in got.as_numpy_iterator()] == ["a.txt", "a.txt", "b.txt", "c.txt"]
    got = tf.data.Dataset.list_files(tf.constant([str(folder / "*.csv"), str(folder / "*.txt")]), shuffle=False)
    assert [p.decode()[-5:] for p in got.as_numpy_iterator()] == ["a.txt", "b.txt", "c.txt", "d.csv"]


def test_shuffled_by_default_and_reproducible_with_a_seed(folder):
    for name in "efghijkl":
        (folder / f"{name}.txt").write_text(name)
    ds = tf.data.Dataset.list_files(str(folder / "*.txt"))
    orders = {tuple(ds.as_numpy_iterator()) for _ in range(10)}
    assert len(orders) > 1 and all(sorted(o) == sorted(next(iter(orders))) for o in orders)
    tf.random.set_seed(5)
    first = list(tf.data.Dataset.list_files(str(folder / "*.txt"), seed=3).as_numpy_iterator())
    tf.random.set_seed(5)
    second = list(tf.data.Dataset.list_files(str(folder / "*.txt"), seed=3).as_numpy_iterator())
    assert first == second and first != sorted(first)


def test_no_match_names_the_patterns(folder):
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"No files matched pattern: .*\*\.zip, .*\*\.q"):
        tf.data.Dataset.list_files([str(folder / "*.zip"), str(folder / "*.q")])


def test_feeds_a_record_dataset(tmp_path):
    for k in range(3):
        with tf.io.TFRecordWriter(str(tmp_path / f"part-{k}.tfr")) as w:
            w.write(b"r%d" % k)
    files = tf.data.Dataset.list_files(str(tmp_path / "part-*.tfr"), shuffle=False)
    assert list(tf.data.TFRecordDataset(files).as_numpy_iterator()) == [b"r0", b"r1", b"r2"]
    shuffled = tf.data.TFRecordDataset(tf.data.Dataset.list_files(str(tmp_path / "part-*.tfr")))
    assert sorted(shuffled.as_numpy_iterator()) == [b"r0", b"r1", b"r2"]
