"""tf.data.experimental.CsvDataset and make_csv_dataset: defaults, missing fields, header,
select_cols, quoting, type inference, dict structure, batching and errors, as TF 2.21 gives them
(values recorded from TF)."""
import collections

import numpy as np
import pytest

import minitf as tf

CsvDataset = tf.data.experimental.CsvDataset
make_csv_dataset = tf.data.experimental.make_csv_dataset


@pytest.fixture
def files(tmp_path):
    (tmp_path / "missing.csv").write_text("1,2,3,4\n,2,3,4\n1,,3,4\n1,2,,4\n1,2,3,\n,,,\n")
    (tmp_path / "h.csv").write_text('a,b,c\n1,x y,2.5\n2,"q,r",\n3,,1e40\n')
    (tmp_path / "bad.csv").write_text("1,2\n3\n")
    (tmp_path / "semi.csv").write_text("x;y\n1;abc\n")
    return tmp_path


def rows(ds):
    return [tuple(np.asarray(v).tolist() for v in r) for r in ds.as_numpy_iterator()]


def test_defaults_fill_missing_fields(files):
    ds = CsvDataset(str(files / "missing.csv"), [999, 999, 999, 999])
    assert ds.element_spec == (tf.TensorSpec([], tf.int32),) * 4
    assert int(ds.cardinality()) == tf.data.UNKNOWN_CARDINALITY
    assert rows(ds) == [(1, 2, 3, 4), (999, 2, 3, 4), (1, 999, 3, 4), (1, 2, 999, 4), (1, 2, 3, 999),
                        (999, 999, 999, 999)]
    stacked = ds.map(lambda *items: tf.stack(items))
    assert stacked.element_spec == tf.TensorSpec([4], tf.int32)
    selected = CsvDataset(str(files / "missing.csv"), [999, 999], select_cols=[1, 3])
    assert rows(selected) == [(2, 4), (2, 4), (999, 4), (2, 4), (2, 999), (999, 999)]


def test_required_fields_header_quotes_and_na_value(files):
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 is required but missing in record"):
        rows(CsvDataset(str(files / "missing.csv"), [tf.int32] * 4))
    ds = CsvDataset(str(files / "h.csv"), [tf.int64, tf.string, tf.float64], header=True)
    assert ds.element_spec == (tf.TensorSpec([], tf.int64), tf.TensorSpec([], tf.string),
                               tf.TensorSpec([], tf.float64))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 2 is required"):
        rows(ds)
    ds = CsvDataset(str(files / "h.csv"), [tf.int64, "NA", 0.5], header=True, na_value="x y")
    out = rows(ds)
    assert out == [(1, b"NA", 2.5), (2, b"q,r", 0.5), (3, b"NA", float("inf"))]  # float32 overflow -> inf
    assert [type(v) for v in next(iter(ds))] and next(iter(ds))[2].dtype == tf.float32


def test_record_errors(files):
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 2 fields but have 1 in record"):
        rows(CsvDataset(str(files / "bad.csv"), [0, 0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 1 in record is not a valid int32: abc"):
        rows(CsvDataset(str(files / "semi.csv"), [0, 0], field_delim=";", header=True))
    with pytest.raises(TypeError, match="dtype bool"):
        CsvDataset(str(files / "semi.csv"), [tf.bool])
    with pytest.raises(tf.errors.NotFoundError, match="nofile.csv"):
        rows(CsvDataset(str(files / "nofile.csv"), [0]))


def test_make_csv_dataset_infers_types_and_builds_dicts(files):
    ds = make_csv_dataset(str(files / "h.csv"), batch_size=2, num_epochs=1, shuffle=False)
    assert ds.element_spec == collections.OrderedDict([
        ("a", tf.TensorSpec([None], tf.int32)), ("b", tf.TensorSpec([None], tf.string)),
        ("c", tf.TensorSpec([None], tf.float64))])  # 1e40 does not fit float32
    first, second = list(ds)
    assert isinstance(first, collections.OrderedDict) and list(first) == ["a", "b", "c"]
    assert first["a"].numpy().tolist() == [1, 2] and first["b"].numpy().tolist() == [b"x y", b"q,r"]
    assert first["c"].numpy().tolist() == [2.5, 0.0] and second["b"].numpy().tolist() == [b""]


def test_make_csv_dataset_label_select_and_repeat(files):
    ds = make_csv_dataset(str(files / "h.csv"), batch_size=2, label_name="a", select_columns=["c", "a"],
                          shuffle=False)
    assert ds.element_spec == (collections.OrderedDict([("c", tf.TensorSpec([2], tf.float64))]),
                               tf.TensorSpec([2], tf.int32))
    assert int(ds.cardinality()) == tf.data.INFINITE_CARDINALITY
    (f1, l1), (f2, l2) = list(ds.take(2))
    assert f1["c"].numpy().tolist() == [2.5, 0.0] and l1.numpy().tolist() == [1, 2]
    assert f2["c"].numpy().tolist() == [1e40, 2.5] and l2.numpy().tolist() == [3, 1]
    shuffled = make_csv_dataset(str(files / "h.csv"), batch_size=3, label_name="a", num_epochs=1, shuffle_seed=1)
    _, labels = next(iter(shuffled))
    assert sorted(labels.numpy().tolist()) == [1, 2, 3]


def test_make_csv_dataset_column_defaults_and_names(files):
    ds = make_csv_dataset(str(files / "missing.csv"), batch_size=3, column_names=["p", "q", "r", "s"],
                          header=False, column_defaults=[tf.int32, 7, 1.5, tf.string], num_epochs=1,
                          shuffle=False)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 is required"):
        list(ds)
    ds = make_csv_dataset(str(files / "missing.csv"), batch_size=3, column_names=["p", "q", "r", "s"],
                          header=False, column_defaults=[float()] * 3 + [int()], num_epochs=1, shuffle=False)
    assert [s.dtype for s in ds.element_spec.values()] == [tf.float32] * 3 + [tf.int32]
    batch = next(iter(ds))
    assert batch["p"].numpy().tolist() == [1.0, 0.0, 1.0]


def test_make_csv_dataset_errors(files):
    with pytest.raises(ValueError, match=r"`label_name` provided must be one of the columns: \['a', 'b', 'c'\]"):
        make_csv_dataset(str(files / "h.csv"), batch_size=2, label_name="zz")
    with pytest.raises(ValueError, match="No files match `file_pattern`"):
        make_csv_dataset(str(files / "nomatch*.csv"), batch_size=2)
    with pytest.raises(ValueError, match="must be of one of the columns"):
        make_csv_dataset(str(files / "h.csv"), batch_size=2, select_columns=["zz"])
    with pytest.raises(ValueError, match="Expected `column_names` or `header`"):
        make_csv_dataset(str(files / "h.csv"), batch_size=2, header=False)
