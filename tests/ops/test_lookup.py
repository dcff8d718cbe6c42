"""tf.lookup: KeyValueTensorInitializer and TextFileInitializer filling StaticHashTable and
StaticVocabularyTable; lookups of any shape, ragged and sparse keys, inside Dataset.map and
tf.function; OOV buckets; TF's errors. Expected values were read off TF 2.21 (its docstrings'
examples among them); tests/parity/test_lookup_parity.py compares with TF itself."""
import numpy as np
import pytest

import minitf as tf


def _kv(keys, values, **kw):
    return tf.lookup.KeyValueTensorInitializer(keys, values, **kw)


def _abc_table():
    return tf.lookup.StaticHashTable(_kv(["a", "b", "c"], [7, 8, 9]), default_value=-1)


class MyVocabTable(tf.keras.layers.Layer):
    """The layer of TF's tutorials/load_data/text."""

    def __init__(self, vocab):
        super().__init__()
        self.keys = [""] + vocab
        self.values = range(len(self.keys))
        self.init = tf.lookup.KeyValueTensorInitializer(self.keys, self.values, key_dtype=tf.string,
                                                        value_dtype=tf.int64)
        self.table = tf.lookup.StaticVocabularyTable(self.init, 1)

    def call(self, x):
        return self.table.lookup(x)


def test_text_tutorial_vocab_layer():
    out = MyVocabTable(["a", "b", "c"])(tf.constant([""] + list("abcdefghi")))
    assert out.dtype == tf.int64
    assert out.numpy().tolist() == [0, 1, 2, 3, 4, 4, 4, 4, 4, 4]


def test_static_hash_table_lookup_shapes_and_getitem():
    table = _abc_table()
    assert table.key_dtype == tf.string and table.value_dtype == tf.int32
    assert table.lookup(tf.constant(["a", "f"])).numpy().tolist() == [7, -1]
    assert table[tf.constant([["a", "b"], ["c", "d"]])].numpy().tolist() == [[7, 8], [9, -1]]
    scalar = table.lookup(tf.constant("c"))
    assert scalar.shape == () and int(scalar) == 9
    empty = table.lookup(tf.zeros([0, 3], tf.string))
    assert empty.shape == (0, 3) and empty.dtype == tf.int32
    assert table.size().dtype == tf.int64 and int(table.size()) == 3
    assert int(table.default_value) == -1


def test_static_hash_table_value_dtypes_and_export():
    table = tf.lookup.StaticHashTable(_kv(tf.constant([5, 7], tf.int64), ["x", "y"]), "z")
    assert table.lookup(tf.constant([5, 6, 7], tf.int64)).numpy().tolist() == [b"x", b"z", b"y"]
    floats = tf.lookup.StaticHashTable(_kv([5, 7], [0.5, 1.0]), -1)
    np.testing.assert_array_equal(floats.lookup(tf.constant([7, 6])).numpy(), np.float32([1.0, -1.0]))
    keys, values = _abc_table().export()
    assert sorted(zip(keys.numpy().tolist(), values.numpy().tolist())) == [(b"a", 7), (b"b", 8), (b"c", 9)]
    # 2-D keys and values of one shape; a repeated key with the same value counts once
    assert int(tf.lookup.StaticHashTable(_kv([["a", "b"]], [[1, 2]]), -1).size()) == 2
    assert int(tf.lookup.StaticHashTable(_kv(["a", "a"], [1, 1]), -1).size()) == 1


def test_ragged_and_sparse_keys_keep_their_structure():
    table = _abc_table()
    ragged = table.lookup(tf.ragged.constant([["a"], ["b", "q"]]))
    assert isinstance(ragged, tf.RaggedTensor) and ragged.to_list() == [[7], [8, -1]]
    sparse = table.lookup(tf.sparse.from_dense(tf.constant([["a", ""], ["b", "c"]])))
    assert isinstance(sparse, tf.SparseTensor)
    assert sparse.values.numpy().tolist() == [7, 8, 9]
    assert sparse.indices.numpy().tolist() == [[0, 0], [1, 0], [1, 1]]


def test_vocabulary_table_oov_buckets_as_tf_docs():
    table = tf.lookup.StaticVocabularyTable(
        _kv(tf.constant(["emerson", "lake", "palmer"]), tf.constant([0, 1, 2], tf.int64)), 5)
    keys = tf.constant(["emerson", "lake", "palmer", "king", "crimson"])
    assert table[keys].numpy().tolist() == [0, 1, 2, 6, 7]
    assert int(table.size()) == 8 and table.value_dtype == tf.int64
    # bucket ids start at the table size whatever the values are (TF's documented collision)
    shifted = tf.lookup.StaticVocabularyTable(_kv(["emerson", "lake", "palmer"], [1, 2, 3],
                                                  value_dtype=tf.int64), 1)
    assert shifted[tf.constant(["emerson", "lake", "palmer", "king"])].numpy().tolist() == [1, 2, 3, 3]


def test_vocabulary_table_buckets_are_fingerprint64_modulo():
    words = [f"w{i}" for i in range(20)]
    table = tf.lookup.StaticVocabularyTable(_kv(["a", "b"], [0, 1], value_dtype=tf.int64), 7)
    expected = tf.strings.to_hash_bucket_fast(tf.constant(words), 7).numpy() + 2
    assert table.lookup(tf.constant(words)).numpy().tolist() == expected.tolist()
    # only buckets: no initializer
    only = tf.lookup.StaticVocabularyTable(None, 3)
    assert only.key_dtype == tf.string and int(only.size()) == 3
    assert only.lookup(tf.constant(["a", "b"])).numpy().tolist() == [0, 1]


def test_vocabulary_table_integer_keys():
    init = _kv([5, 7], [0, 1], key_dtype=tf.int64, value_dtype=tf.int64)
    table = tf.lookup.StaticVocabularyTable(init, 3, lookup_key_dtype=tf.int32)
    assert table.key_dtype == tf.int32
    # integers hash as their decimal text (TF's as_string before Fingerprint64)
    assert table.lookup(tf.constant([5, 6, 100])).numpy().tolist() == [0, 4, 2]
    with pytest.raises(TypeError, match="Dtype of argument `keys`"):
        table.lookup(tf.constant([5], tf.int64))


def test_lookup_in_dataset_map_and_tf_function():
    table = tf.lookup.StaticVocabularyTable(_kv(["a", "b"], [0, 1], value_dtype=tf.int64), 3)
    eager = table.lookup(tf.constant(["a", "b", "zz", "q"])).numpy().tolist()
    ds = tf.data.Dataset.from_tensor_slices(tf.constant(["a", "b", "zz", "q"])).map(lambda t: table.lookup(t))
    assert [int(v) for v in ds.as_numpy_iterator()] == eager
    batched = tf.data.Dataset.from_tensor_slices(tf.constant(["a", "b", "zz", "q"])).batch(2).map(table.lookup)
    assert [v.tolist() for v in batched.as_numpy_iterator()] == [eager[:2], eager[2:]]
    traced = tf.function(table.lookup)
    assert traced(tf.constant(["a", "zz"])).numpy().tolist() == [eager[0], eager[2]]
    # a second call of the same trace sees its own keys (the lookup is a node, not a constant)
    assert traced(tf.constant(["q", "b"])).numpy().tolist() == [eager[3], eager[1]]
    hashed = tf.function(_abc_table().lookup)
    assert hashed(tf.constant([["c", "x"]])).numpy().tolist() == [[9, -1]]
    ragged = tf.function(lambda r: _abc_table().lookup(r))(tf.ragged.constant([["a"], ["b", "q"]]))
    assert ragged.to_list() == [[7], [8, -1]]


def _write(tmp_path, text):
    path = tmp_path / "vocab.txt"
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def test_text_file_initializer(tmp_path):
    path = _write(tmp_path, "emerson 10\nlake 20\r\npalmer 30")
    init = tf.lookup.TextFileInitializer(path, key_dtype=tf.string, key_index=0, value_dtype=tf.int64,
                                         value_index=1, delimiter=" ")
    table = tf.lookup.StaticHashTable(init, default_value=-1)
    assert table.lookup(tf.constant(["palmer", "lake", "tarkus"])).numpy().tolist() == [30, 20, -1]
    whole = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        path, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER,
        value_index_offset=5), -1)
    assert whole.lookup(tf.constant(["palmer 30", "lake 20"])).numpy().tolist() == [7, 6]
    first = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        tf.constant(path), tf.string, 0, tf.int64, -1, vocab_size=2, delimiter=" "), -1)
    assert int(first.size()) == 2
    by_line = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        path, tf.int64, -1, tf.string, 0, delimiter=" "), "?")
    assert by_line.lookup(tf.constant([2, 3], tf.int64)).numpy().tolist() == [b"palmer", b"?"]


def test_text_file_vocabulary_table_as_tf_docs(tmp_path):
    path = _write(tmp_path, "\n".join(["emerson", "lake", "palmer", "crimnson"]))
    init = tf.lookup.TextFileInitializer(path, key_dtype=tf.string, key_index=tf.lookup.TextFileIndex.WHOLE_LINE,
                                         value_dtype=tf.int64, value_index=tf.lookup.TextFileIndex.LINE_NUMBER)
    table = tf.lookup.StaticVocabularyTable(init, 3)
    keys = tf.constant(["palmer", "crimnson", "king", "tarkus", "black", "moon"])
    assert table.lookup(keys).numpy().tolist() == [2, 3, 5, 6, 6, 4]


def test_text_file_errors(tmp_path):
    text_file = tf.lookup.TextFileInitializer
    with pytest.raises(ValueError, match="`filename` argument required"):
        text_file("", tf.string, -2, tf.int64, -1)
    with pytest.raises(ValueError, match="`key_dtype` must be int64 if `key_index` is -1"):
        text_file("f", tf.string, -1, tf.int64, -1)
    with pytest.raises(ValueError, match="`value_index` should be >= -2"):
        text_file("f", tf.string, -2, tf.int64, -3)
    with pytest.raises(ValueError, match="`vocab_size` should be > 0"):
        text_file("f", tf.string, -2, tf.int64, -1, vocab_size=0)
    with pytest.raises(ValueError, match="either integer or string"):
        text_file("f", tf.float32, -2, tf.int64, -1)
    with pytest.raises(tf.errors.NotFoundError, match="nonexistent"):
        tf.lookup.StaticHashTable(text_file(str(tmp_path / "nonexistent"), tf.string, -2, tf.int64, -1), -1)
    bad = _write(tmp_path, "a 1\n\nb 2\n")
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty line found at position 5"):
        tf.lookup.StaticHashTable(text_file(bad, tf.string, -2, tf.int64, -1), -1)
    short = _write(tmp_path, "a 1\nb\n")
    with pytest.raises(tf.errors.InvalidArgumentError, match="line 1 \\(b\\) : expected at least 2 got 1"):
        tf.lookup.StaticHashTable(text_file(short, tf.string, 0, tf.int64, 1, delimiter=" "), -1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field a in line 0 is not a valid int64"):
        tf.lookup.StaticHashTable(text_file(short, tf.string, -2, tf.int64, 0, delimiter=" "), -1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected 3 but got 2"):
        tf.lookup.StaticHashTable(text_file(short, tf.string, -2, tf.int64, -1, vocab_size=3), -1)


def test_table_errors():
    with pytest.raises(tf.errors.FailedPreconditionError, match="different value for same key"):
        tf.lookup.StaticHashTable(_kv(["a", "a"], [1, 2]), -1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected shape \[2\] for value, got \[3\]"):
        tf.lookup.StaticHashTable(_kv(["a", "b"], [1, 2, 3]), -1)
    with pytest.raises(tf.errors.NotFoundError, match="HashTableV2"):
        tf.lookup.StaticHashTable(_kv([5.0, 7.0], [0, 1]), -1)
    with pytest.raises(TypeError, match="Dtype of argument `keys` must be <dtype: 'string'>"):
        _abc_table().lookup(tf.constant([1]))
    with pytest.raises(AttributeError):  # TF asks the keys for .dtype: a list has none
        _abc_table().lookup(["a"])
    with pytest.raises(ValueError, match="not compatible"):
        tf.lookup.StaticHashTable(_kv(["a", "b"], [1, 2]), [1, 2])
    with pytest.raises(ValueError, match="`num_oov_buckets` must be > 0"):
        tf.lookup.StaticVocabularyTable(_kv(["a"], [0], value_dtype=tf.int64), 0)
    with pytest.raises(TypeError, match="Invalid `value_dtype`"):
        tf.lookup.StaticVocabularyTable(_kv(["a"], [0]), 1)
    with pytest.raises(TypeError, match="Invalid `key_dtype`, expected one of"):
        tf.lookup.StaticVocabularyTable(_kv([1], [0], value_dtype=tf.int64), 1)
    with pytest.raises(TypeError, match="Invalid `key_dtype`, expected integer but got"):
        tf.lookup.StaticVocabularyTable(_kv(["a"], [0], value_dtype=tf.int64), 1, lookup_key_dtype=tf.int64)
    with pytest.raises(TypeError, match="Invalid key dtype for table"):
        tf.lookup.KeyValueTensorInitializer(["a"], [1]).initialize(
            tf.lookup.StaticHashTable(_kv([1], [1]), -1))
