"""tf.strings: values and errors as TF 2.21 gives them (the literals below are TF's outputs), and a
direct comparison with TF where it is installed."""
import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors

S = ["Hello World", "a b  c", ""]


def test_lengths_case_and_strip():
    np.testing.assert_array_equal(tf.strings.length(tf.constant(S)).numpy(), [11, 6, 0])
    assert tf.strings.length(tf.constant(S)).dtype == tf.int32
    assert int(tf.strings.length(tf.constant("héllo"), unit="UTF8_CHAR")) == 5
    assert tf.strings.lower(tf.constant(S)).numpy().tolist() == [b"hello world", b"a b  c", b""]
    assert tf.strings.upper(tf.constant("héllo")).numpy() == b"H\xc3\xa9LLO"  # ASCII letters only
    assert tf.strings.upper(tf.constant("héllo"), encoding="utf-8").numpy() == "HÉLLO".encode()
    assert tf.strings.strip(tf.constant("  x  ")).numpy() == b"x"


def test_joins_and_regular_expressions():
    joined = tf.strings.join([tf.constant(["a", "b"]), tf.constant(["c", "d"])], separator="-")
    assert joined.numpy().tolist() == [b"a-c", b"b-d"]
    assert tf.strings.reduce_join(tf.constant(["a", "b", "c"]), separator=",").numpy() == b"a,b,c"
    grid = tf.constant([["a", "b"], ["c", "d"]])
    assert tf.strings.reduce_join(grid, axis=1).numpy().tolist() == [b"ab", b"cd"]
    assert tf.strings.reduce_join(grid, axis=0, keepdims=True).numpy().tolist() == [[b"ac", b"bd"]]
    assert tf.strings.regex_replace(tf.constant(S), "o", "0").numpy().tolist()[0] == b"Hell0 W0rld"
    assert tf.strings.regex_replace(tf.constant(S), "o", "0", replace_global=False).numpy()[0] == b"Hell0 World"
    assert tf.strings.regex_full_match(tf.constant(["ab1", "ab"]), r"ab\d").numpy().tolist() == [True, False]


def test_numbers_to_and_from_text():
    out = tf.strings.to_number(tf.constant(["1.5", "2"]))
    assert out.dtype == tf.float32 and out.numpy().tolist() == [1.5, 2.0]
    assert tf.strings.to_number(tf.constant(["1", "2"]), out_type=tf.int32).numpy().tolist() == [1, 2]
    with pytest.raises(errors.InvalidArgumentError, match="could not correctly convert string: x"):
        tf.strings.to_number(tf.constant(["x"]))
    assert tf.strings.as_string(tf.constant([1.5, 2.0])).numpy().tolist() == [b"1.500000", b"2.000000"]
    assert tf.strings.as_string(tf.constant([3, -4])).numpy().tolist() == [b"3", b"-4"]
    assert tf.strings.as_string(tf.constant(0.125), precision=2).numpy() == b"0.12"


def test_split_decode_and_substr():
    assert tf.strings.split(tf.constant("a b  c")).numpy().tolist() == [b"a", b"b", b"c"]
    assert tf.strings.split(tf.constant("a,b,,c"), sep=",").numpy().tolist() == [b"a", b"b", b"", b"c"]
    batch = tf.strings.split(tf.constant(["a b", "c"]))  # a batch gives a RaggedTensor, as in TF
    assert isinstance(batch, tf.RaggedTensor) and batch.to_list() == [[b"a", b"b"], [b"c"]]
    assert tf.strings.unicode_decode(tf.constant("hé"), "UTF-8").numpy().tolist() == [104, 233]
    assert tf.strings.substr(tf.constant("hello"), 1, 3).numpy() == b"ell"
    assert tf.strings.substr(tf.constant("héllo"), 1, 2, unit="UTF8_CHAR").numpy() == "él".encode()
    with pytest.raises(errors.InvalidArgumentError, match="pos 9"):
        tf.strings.substr(tf.constant("hello"), 9, 1)
    with pytest.raises(errors.InvalidArgumentError, match="string tensor"):
        tf.strings.length(tf.constant([1, 2]))


def test_against_tf():
    tf_ = pytest.importorskip("tensorflow")
    words = ["Tensor", "flow  ", "  mini", "ÜBER", ""]
    for fn in ("length", "lower", "upper", "strip"):
        assert getattr(tf.strings, fn)(tf.constant(words)).numpy().tolist() == \
            getattr(tf_.strings, fn)(tf_.constant(words)).numpy().tolist(), fn
    assert tf.strings.regex_replace(tf.constant(words), r"(\w)(\w)", r"\2\1").numpy().tolist() == \
        tf_.strings.regex_replace(tf_.constant(words), r"(\w)(\w)", r"\2\1").numpy().tolist()
    values = [0.1, -2.5, 1e10]
    assert tf.strings.as_string(tf.constant(values)).numpy().tolist() == \
        tf_.strings.as_string(tf_.constant(values)).numpy().tolist()


def test_bytes_split_and_unicode_split_as_tf():
    # TF 2.21's results (the tensor guide's cells)
    assert tf.strings.bytes_split("héllo").numpy().tolist() == [b"h", b"\xc3", b"\xa9", b"l", b"l", b"o"]
    assert tf.strings.bytes_split(["ab", "c"]).to_list() == [[b"a", b"b"], [b"c"]]
    assert tf.strings.unicode_split("héllo", "UTF-8").numpy().tolist() == [b"h", b"\xc3\xa9", b"l", b"l", b"o"]
    assert tf.strings.unicode_split(["hé", "c"], "UTF-8").to_list() == [[b"h", b"\xc3\xa9"], [b"c"]]
    assert tf.strings.unicode_split(tf.constant([["ab"]]), "UTF-8").to_list() == [[[b"a", b"b"]]]
    assert tf.strings.unicode_split(b"a\xffb", "UTF-8", replacement_char=63).numpy().tolist() == [b"a", b"?", b"b"]
