"""tf.io.decode_csv: splitting (quotes, delimiters, select_cols), reading fields as TF's kernel does
(blanks, signs, hex floats, inf/nan, overflow), defaults and required columns, TF's errors, the
shapes of the outputs, inside Dataset.map and tf.function, and CsvDataset's shared field reading.
The expected values were read off TF 2.21; tests/parity/parity_rows_csv.py compares with TF itself."""
import math

import numpy as np
import pytest

import minitf as tf
from minitf.ops.csv_ops import field_value, split_record


def _values(outputs):
    return [o.numpy().tolist() for o in outputs]


def test_types_follow_the_defaults_and_python_type_defaults():
    lines = ["1,Mr. A,22.5,0,1,7.25,a,b,c,y", "0,Ms. B,,1,0,3.5,d,e,f,n"]
    types = [int(), str(), float(), int(), int(), float(), str(), str(), str(), str()]
    out = tf.io.decode_csv(lines, record_defaults=types)
    assert [o.dtype for o in out] == [tf.int32, tf.string, tf.float32, tf.int32, tf.int32, tf.float32] + [tf.string] * 4
    assert _values(out)[:3] == [[1, 0], [b"Mr. A", b"Ms. B"], [22.5, 0.0]]
    strings = tf.io.decode_csv(lines, record_defaults=[str()] * 10)
    assert _values(strings)[2] == [b"22.5", b""]


def test_typed_tensor_defaults_and_shapes():
    defaults = [tf.constant(5, tf.int64), tf.constant([2.5], tf.float64), tf.constant("z")]
    out = tf.io.decode_csv([["1,2,a", ",,"], ["3,4e1,", "-7, 0.5 ,q"]], defaults)
    assert [o.dtype for o in out] == [tf.int64, tf.float64, tf.string]
    assert all(o.shape == (2, 2) for o in out)
    assert _values(out) == [[[1, 5], [3, -7]], [[2.0, 2.5], [40.0, 0.5]], [[b"a", b"z"], [b"z", b"q"]]]
    scalar = tf.io.decode_csv("9,x", [0, ""])
    assert scalar[0].shape == () and int(scalar[0]) == 9
    empty = tf.io.decode_csv(tf.constant([], tf.string), [0, ""])
    assert [o.shape for o in empty] == [(0,), (0,)] and empty[0].dtype == tf.int32


@pytest.mark.parametrize("text, value", [(" 1", 1), ("1 ", 1), ("\t7\v", 7), ("+5", 5), ("-0", 0), ("007", 7),
                                         ("2147483647", 2**31 - 1), ("-2147483648", -2**31)])
def test_int32_fields_read_as_tf(text, value):
    assert tf.io.decode_csv([text], [0])[0].numpy().tolist() == [value]


@pytest.mark.parametrize("text", ["1e3", "0x10", "1.5", "nan", "inf", "+-1", "- 1", "1_0", "2147483648",
                                  "-2147483649", " ", "١"])
def test_int32_fields_tf_refuses(text):
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"Field 0 in record 0 is not a valid int32"):
        tf.io.decode_csv([text], [0])


def test_int64_range():
    out = tf.io.decode_csv(["9223372036854775807,-9223372036854775808,2147483648"], [tf.constant(0, tf.int64)] * 3)
    assert _values(out) == [[2**63 - 1], [-2**63], [2**31]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="is not a valid int64: 9223372036854775808"):
        tf.io.decode_csv(["9223372036854775808"], [tf.constant(0, tf.int64)])


@pytest.mark.parametrize("text, value", [(" 1", 1.0), ("1e3", 1000.0), ("+5", 5.0), (".5", 0.5), ("5.", 5.0),
                                         ("0x10", 16.0), ("0x1.8p1", 3.0), ("-Infinity", -math.inf), ("INF", math.inf),
                                         ("1e40", math.inf), ("1e-50", 0.0), ("3.4028236e38", math.inf)])
def test_float_fields_read_as_tf(text, value):
    assert tf.io.decode_csv([text], [0.0])[0].numpy().tolist() == [value]


def test_float_special_values():
    out = tf.io.decode_csv(["nan,-nan,nan(12),-0,1e40"], [tf.constant(0.0, tf.float64)] * 5)
    values = [o.numpy()[0] for o in out]
    assert all(np.isnan(values[:3])) and math.copysign(1.0, values[3]) == -1.0 and values[4] == 1e40


@pytest.mark.parametrize("text, word", [("1e", "float"), ("abc", "float"), ("1.5f", "float"), ("0x", "float")])
def test_float_fields_tf_refuses(text, word):
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"Field 0 in record 0 is not a valid {word}"):
        tf.io.decode_csv([text], [0.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="is not a valid double"):
        tf.io.decode_csv([text], [tf.constant(0.0, tf.float64)])


def test_quotes():
    out = tf.io.decode_csv(['"a,b","say ""hi""",""', 'x,"",y'], ["", "e", "d"])
    assert _values(out) == [[b"a,b", b"x"], [b'say "hi"', b"e"], [b"d", b"y"]]
    assert _values(tf.io.decode_csv(['"1"', '" 2 "'], [0])) == [[1, 2]]
    loose = tf.io.decode_csv(['"a,b"', 'c"d,e'], ["", ""], use_quote_delim=False)
    assert _values(loose) == [[b'"a', b'c"d'], [b'b"', b"e"]]


@pytest.mark.parametrize("record, message", [('"a"b",c', "Quote inside a string has to be escaped"),
                                             ('a"b,c', "Unquoted fields cannot have quotes/CRLFs inside"),
                                             ('"abc', "Quoted field has to end with quote followed by delim"),
                                             ("a\r,b", "Unquoted fields cannot have quotes/CRLFs inside")])
def test_malformed_quotes(record, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        tf.io.decode_csv([record], ["", ""])


def test_split_record_edges():
    assert split_record(b"a,") == [b"a", b""]
    assert split_record(b",") == [b"", b""]
    assert split_record(b"") == []
    assert split_record(b"a,\nb") == [b"a", b"b"]
    assert split_record(b'"a\nb",c') == [b"a\nb", b"c"]
    assert split_record(b"a;b,c", b";") == [b"a", b"b,c"]
    assert split_record(b"a,b,c,", select_cols=[1, 3]) == [b"b", b""]
    assert split_record(b'a,"b",c,"x"y', select_cols=[1]) == [b"b"]


def test_field_count_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 2 fields but have 3 in record 1"):
        tf.io.decode_csv(["a,b", "a,b,c"], ["", ""])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 1 fields but have 0 in record 0"):
        tf.io.decode_csv([""], [""])


def test_required_columns_and_na_value():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 1 is required but missing in record 0!"):
        tf.io.decode_csv(["x,,3"], ["d", [], 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 is required but missing in record 1!"):
        tf.io.decode_csv(["1", "NA"], [tf.constant([], tf.int64)], na_value="NA")
    out = tf.io.decode_csv(["x,2,3"], ["d", tf.constant([], tf.int32), 0])
    assert _values(out) == [[b"x"], [2], [3]]
    assert _values(tf.io.decode_csv(["NA,NA,1"], ["s", 7, 0.5], na_value="NA")) == [[b"s"], [7], [1.0]]
    assert tf.io.decode_csv(["1"], [[]])[0].dtype == tf.float32  # [] converts to float32, as in TF


def test_select_cols():
    out = tf.io.decode_csv(["a,1,c,2.5,e"], ["", 0, 0.0], select_cols=[0, 1, 3])
    assert _values(out) == [[b"a"], [1], [2.5]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 2 fields but have 1 in record 0"):
        tf.io.decode_csv(["a,b"], ["", ""], select_cols=[1, 3])
    for cols, message in [([3, 1], "strictly increasing"), ([1, 1], "strictly increasing"),
                          ([-1, 3], "negative"), ([1], "do not match")]:
        with pytest.raises(ValueError, match=message):
            tf.io.decode_csv(["a,b,c,d"], ["", ""], select_cols=cols)


def test_delimiters():
    assert _values(tf.io.decode_csv(["a;1"], ["", 0], field_delim=";")) == [[b"a"], [1]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="field_delim should be only 1 char"):
        tf.io.decode_csv(["a,b"], ["", ""], field_delim=";;")


def test_bad_defaults_and_records():
    with pytest.raises(tf.errors.InvalidArgumentError, match="only be 1 default per field but field 0 has 2"):
        tf.io.decode_csv(["1,2"], [[0, 1], 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="at most rank 1"):
        tf.io.decode_csv(["1,2"], [[[0]], 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="OUT_TYPE' of bool"):
        tf.io.decode_csv(["1,2"], [True, 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="OUT_TYPE' of int16"):
        tf.io.decode_csv(["1"], [tf.constant(0, tf.int16)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least minimum 1"):
        tf.io.decode_csv(["1"], [])
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a string tensor but is a int32"):
        tf.io.decode_csv(tf.constant([1]), [0])


def test_not_differentiable():
    x = tf.constant(["1.5"])
    with tf.GradientTape() as tape:
        tape.watch(x)
        (y,) = tf.io.decode_csv(x, [0.0])
    assert tape.gradient(y, x) is None


def test_inside_dataset_map_and_tf_function():
    lines = ["1,a,2.5", '2,"b,c",', "3,d,4"]
    defaults = [0, "", 1.0]
    ds = tf.data.Dataset.from_tensor_slices(lines).map(lambda line: tf.io.decode_csv(line, defaults))
    assert [spec.dtype for spec in ds.element_spec] == [tf.int32, tf.string, tf.float32]
    assert [(int(a), b.numpy(), float(c)) for a, b, c in ds] == [(1, b"a", 2.5), (2, b"b,c", 1.0), (3, b"d", 4.0)]
    batched = tf.data.Dataset.from_tensor_slices(lines).batch(2).map(lambda line: tf.io.decode_csv(line, defaults))
    assert [a.numpy().tolist() for a, _, _ in batched] == [[1, 2], [3]]

    @tf.function
    def decode(records):
        a, _, c = tf.io.decode_csv(records, defaults)
        return a * 2, c + 1.0

    a, c = decode(tf.constant(lines))
    assert a.numpy().tolist() == [2, 4, 6] and c.numpy().tolist() == [3.5, 2.0, 5.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 in record 0 is not a valid int32: x"):
        decode(tf.constant(["x,y,1"]))


def test_field_value_is_shared_with_csv_dataset(tmp_path):
    assert field_value(b" +5 ", tf.int32) == 5 and field_value(b"1_0", tf.int32) is None
    assert field_value(b"0x10", tf.float32) == 16.0 and field_value(b"2147483648", tf.int32) is None
    path = tmp_path / "f.csv"
    path.write_text(" 1,0x10\n+2,Infinity\n")
    rows = [(int(a), float(b)) for a, b in tf.data.experimental.CsvDataset(str(path), [0, 0.0])]
    assert rows == [(1, 16.0), (2, math.inf)]
    path.write_text("1_0,1\n")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 in record is not a valid int32: 1_0"):
        list(tf.data.experimental.CsvDataset(str(path), [0, 0.0]))
