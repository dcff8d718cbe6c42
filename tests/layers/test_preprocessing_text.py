"""StringLookup, IntegerLookup and TextVectorization (expected values taken from Keras 3)."""
import numpy as np
import pytest

import minitf as tf
from minitf import layers


def test_string_lookup_modes():
    vocab = ["a", "b", "c"]
    x = tf.constant([["a", "z", "c"], ["b", "b", "q"]])
    assert layers.StringLookup(vocabulary=vocab)(x).numpy().tolist() == [[1, 0, 3], [2, 2, 0]]
    one_hot = layers.StringLookup(vocabulary=vocab, output_mode="one_hot")(x)
    assert one_hot.dtype == tf.int64 and one_hot.shape == (2, 3, 4)
    assert layers.StringLookup(vocabulary=vocab, output_mode="multi_hot")(x).numpy().tolist() == \
        [[1, 1, 0, 1], [1, 0, 1, 0]]
    assert layers.StringLookup(vocabulary=vocab, output_mode="count")(x).numpy().tolist() == \
        [[1, 1, 0, 1], [1, 0, 2, 0]]
    tfidf = layers.StringLookup(vocabulary=vocab, output_mode="tf_idf", idf_weights=[0.5, 1.0, 2.0])
    y = tfidf(tf.constant([["a", "z", "c", "c"]]))
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), [[1.1666666, 0.5, 0.0, 4.0]], rtol=1e-6)
    assert layers.StringLookup(vocabulary=vocab)("a").numpy() == 1
    assert layers.StringLookup(vocabulary=vocab)(["a", "q"]).numpy().tolist() == [1, 0]


def test_string_lookup_adapt_mask_oov_and_invert():
    layer = layers.StringLookup()
    layer.adapt(["x", "y", "y", "z", "z", "z", "w"])
    assert layer.get_vocabulary() == ["[UNK]", "z", "y", "x", "w"]
    assert layer.vocabulary_size() == 5 and layer.weights == []
    assert layer.get_vocabulary(include_special_tokens=False) == ["z", "y", "x", "w"]
    masked = layers.StringLookup(vocabulary=["a", "b"], mask_token="", num_oov_indices=2)
    assert masked.get_vocabulary() == ["", "[UNK]", "[UNK]", "a", "b"]
    assert masked(tf.constant(["", "a", "q", "zz", "b"])).numpy().tolist() == [0, 3, 2, 1, 4]
    inverse = layers.StringLookup(vocabulary=["a", "b"], mask_token="", invert=True)
    assert inverse(tf.constant([0, 1, 2, 3, 7])).numpy().tolist() == [b"", b"[UNK]", b"a", b"b", b"[UNK]"]
    tfidf = layers.StringLookup(output_mode="tf_idf")
    tfidf.adapt([["x", "y"], ["y", "z"]])
    assert tfidf.get_vocabulary() == ["[UNK]", "y", "z", "x"]
    np.testing.assert_allclose(tfidf.idf_weights, [0.63237333, 0.51082563, 0.6931472, 0.6931472], rtol=1e-6)
    limited = layers.StringLookup(max_tokens=3)
    limited.adapt(tf.data.Dataset.from_tensor_slices(["a", "b", "b", "c", "c", "c"]).batch(2))
    assert limited.get_vocabulary() == ["[UNK]", "c", "b"]


def test_string_lookup_errors():
    with pytest.raises(ValueError, match="repeated"):
        layers.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="output_mode"):
        layers.StringLookup(output_mode="bogus")
    with pytest.raises(ValueError, match="invert"):
        layers.StringLookup(invert=True, output_mode="count")
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_oov_indices=0"):
        layers.StringLookup(vocabulary=["a"], num_oov_indices=0)(tf.constant(["b"]))
    with pytest.raises(RuntimeError, match="vocabulary"):
        layers.StringLookup(output_mode="multi_hot")(tf.constant(["b"]))
    with pytest.raises(ValueError, match="static"):
        layers.StringLookup(vocabulary=["a"]).adapt(["a"])


def test_integer_lookup():
    layer = layers.IntegerLookup(vocabulary=[12, 36, 5], num_oov_indices=3, mask_token=0)
    assert layer.get_vocabulary() == [0, -1, -1, -1, 12, 36, 5]
    assert layer(tf.constant([0, 12, 7, 8, 5])).numpy().tolist() == [0, 4, 2, 3, 6]
    adapted = layers.IntegerLookup()
    adapted.adapt(np.array([3, 3, 4, 5, 5, 5]))
    assert adapted.get_vocabulary() == [-1, 5, 3, 4]
    assert adapted.get_config()["vocabulary_size"] == 4
    ragged = adapted(tf.ragged.constant([[3, 4], [5]]))
    assert ragged.to_list() == [[2, 3], [1]]
    inverse = layers.IntegerLookup(vocabulary=[12, 36], invert=True)
    assert inverse(tf.constant([1, 2, 0])).numpy().tolist() == [12, 36, -1]
    assert layers.StringLookup(vocabulary=["a", "b", "c"], output_mode="multi_hot")(
        tf.ragged.constant([["a", "b"], ["c"]])).numpy().tolist() == [[0, 1, 1, 0], [0, 0, 0, 1]]


def test_lookup_config_round_trip_keeps_an_adapted_vocabulary():
    layer = layers.StringLookup(output_mode="count")
    layer.adapt(["p", "q", "q"])
    config = layer.get_config()
    assert config["vocabulary"] == ["q", "p"] and "vocabulary_dtype" not in config
    clone = layers.StringLookup.from_config(config)
    assert clone.get_vocabulary() == layer.get_vocabulary()
    np.testing.assert_array_equal(clone(tf.constant([["q", "r"]])).numpy(), layer(tf.constant([["q", "r"]])).numpy())


def test_text_vectorization_int_mode():
    layer = layers.TextVectorization()
    layer.adapt(["The cat sat.", "the dog, sat!"])
    assert layer.get_vocabulary() == ["", "[UNK]", "the", "sat", "dog", "cat"]
    assert layer(["the cat ran"]).numpy().tolist() == [[2, 5, 1]]
    assert layer(np.array([["a cat"], ["dog dog the"]])).numpy().tolist() == [[1, 5, 0], [4, 4, 2]]
    fixed = layers.TextVectorization(vocabulary=["cat", "dog"], output_sequence_length=4)
    assert fixed(["cat dog cat dog cat", "dog"]).numpy().tolist() == [[2, 3, 2, 3], [3, 0, 0, 0]]
    ragged = layers.TextVectorization(vocabulary=["cat", "dog"], ragged=True)(["cat dog cat", "dog"])
    assert ragged.to_list() == [[2, 3, 2], [3]]


def test_text_vectorization_other_modes_and_options():
    tfidf = layers.TextVectorization(output_mode="tf_idf", ngrams=2)
    tfidf.adapt(tf.data.Dataset.from_tensor_slices(["The cat sat.", "the dog, sat!"]).batch(1))
    assert tfidf.get_vocabulary() == ["[UNK]", "the", "sat", "the dog", "the cat", "dog sat", "dog", "cat sat",
                                      "cat"]
    np.testing.assert_allclose(tfidf(["the cat ran"]).numpy(),
                               [[1.2951336, 0.51082563, 0, 0, 0.6931472, 0, 0, 0, 0.6931472]], rtol=1e-6)
    chars = layers.TextVectorization(split="character", output_sequence_length=4)
    chars.adapt(["abca", "bd"])
    assert chars.get_vocabulary() == ["", "[UNK]", "b", "a", "d", "c"]
    assert chars(["ab", "abcdefg"]).numpy().tolist() == [[3, 2, 0, 0], [3, 2, 5, 4]]
    counts = layers.TextVectorization(vocabulary=["x", "y"], output_mode="count", standardize=None)
    assert counts(["x X y y"]).numpy().tolist() == [[1, 1, 2]]
    upper = layers.TextVectorization(vocabulary=["X"], standardize=tf.strings.upper)
    assert upper(["x"]).numpy().tolist() == [[2]]
    multi = layers.TextVectorization(max_tokens=4, output_mode="multi_hot", pad_to_max_tokens=True)
    multi.adapt(["a b b c c c d"])
    assert multi.get_vocabulary() == ["[UNK]", "c", "b", "d"]
    assert multi(["c d"]).numpy().tolist() == [[0, 1, 0, 1]]
    with pytest.raises(ValueError, match="output_sequence_length"):
        layers.TextVectorization(output_mode="count", output_sequence_length=3)
    with pytest.raises(ValueError, match="rank must be 1"):
        layers.TextVectorization(vocabulary=["a"])(np.array([["a", "b"]]))


def test_text_vectorization_in_dataset_map_and_config():
    layer = layers.TextVectorization(output_sequence_length=3)
    layer.adapt(["red green", "green blue"])
    ds = tf.data.Dataset.from_tensor_slices(["red blue", "green"]).batch(2).map(layer)
    assert [b.numpy().tolist() for b in ds] == [[[3, 4, 0], [2, 0, 0]]]
    config = layer.get_config()
    assert config["vocabulary"] == ["green", "red", "blue"] and config["vocabulary_size"] == 5
    clone = layers.TextVectorization.from_config(config)
    assert clone.get_vocabulary() == layer.get_vocabulary()
    layer.set_vocabulary(["blue"])
    assert layer(["blue red"]).numpy().tolist() == [[2, 1, 0]]


def test_a_config_without_its_vocabulary_says_where_it_went():
    # what Keras writes for an adapted layer: the size, and the vocabulary in an assets/ file
    layer = layers.StringLookup.from_config({"name": "lookup", "vocabulary": None, "vocabulary_size": 5})
    with pytest.raises(tf.errors.FailedPreconditionError, match="assets/"):
        layer(tf.constant(["a"]))
    layer.set_vocabulary(["a", "b", "c", "d"])
    assert layer(tf.constant(["d"])).numpy().tolist() == [4]
