"""tf.lookup against TF 2.21 (tf.lookup holds classes, so it is not a scanned namespace of the
parity table): ids and OOV buckets of StaticVocabularyTable for random strings and int64 keys,
StaticHashTable values, defaults, sizes and exports, text-file tables, and the exception classes
of bad tables and keys."""
import numpy as np
import pytest

import minitf

tf = pytest.importorskip("tensorflow")

LIBS = (minitf, tf)


def _random_strings(n, seed):
    rng = np.random.RandomState(seed)
    alphabet = list("abcdefghijklmnopqrstuvwxyz0123456789 _-") + ["é", "ß", "\u4e2d"]
    lengths = rng.choice([0, 1, 3, 8, 15, 16, 17, 31, 32, 33, 64, 65, 130], size=n)
    return ["".join(rng.choice(alphabet, size=k)) for k in lengths]


def _both(fn):
    return [fn(lib) for lib in LIBS]


@pytest.mark.parametrize("buckets", [1, 3, 17, 1000])
def test_vocabulary_table_string_oov_buckets(buckets):
    vocab = _random_strings(10, 0)
    keys = _random_strings(50, 1) + vocab[:5]

    def run(lib):
        init = lib.lookup.KeyValueTensorInitializer(vocab, list(range(len(vocab))), value_dtype=lib.int64)
        table = lib.lookup.StaticVocabularyTable(init, buckets)
        return table.lookup(lib.constant(keys)).numpy(), int(table.size())
    (mine, mine_size), (ref, ref_size) = _both(run)
    np.testing.assert_array_equal(mine, ref)
    assert mine.dtype == ref.dtype and mine_size == ref_size


@pytest.mark.parametrize("lookup_dtype", ["int64", "int32"])
def test_vocabulary_table_integer_oov_buckets(lookup_dtype):
    rng = np.random.RandomState(2)
    vocab = rng.randint(-1000, 1000, size=8).tolist()
    keys = rng.randint(-2**31, 2**31 - 1, size=50, dtype=np.int64).tolist() + vocab + [0, -1, 2**31 - 1]

    def run(lib):
        init = lib.lookup.KeyValueTensorInitializer(vocab, list(range(8)), key_dtype=lib.int64,
                                                    value_dtype=lib.int64)
        table = lib.lookup.StaticVocabularyTable(init, 11, lookup_key_dtype=getattr(lib, lookup_dtype))
        return table.lookup(lib.constant(keys, getattr(lib, lookup_dtype))).numpy()
    mine, ref = _both(run)
    np.testing.assert_array_equal(mine, ref)


def test_bucket_only_table_and_extreme_int64_keys():
    words = _random_strings(30, 3)
    mine, ref = _both(lambda lib: lib.lookup.StaticVocabularyTable(None, 13).lookup(lib.constant(words)).numpy())
    np.testing.assert_array_equal(mine, ref)
    big = [np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -7, 123456789012]
    mine, ref = _both(lambda lib: lib.lookup.StaticVocabularyTable(
        lib.lookup.KeyValueTensorInitializer([1], [0], key_dtype=lib.int64, value_dtype=lib.int64), 5)
        .lookup(lib.constant(big, lib.int64)).numpy())
    np.testing.assert_array_equal(mine, ref)


@pytest.mark.parametrize("value_dtype,default", [("int32", -1), ("int64", 0), ("float32", 0.5),
                                                 ("float64", -2.0), ("string", "none"), ("bool", False)])
def test_static_hash_table_values(value_dtype, default):
    keys = ["a", "b", "c", "d"]
    values = {"int32": [1, -2, 3, 2**31 - 1], "int64": [2**40, -1, 0, 5], "float32": [0.0, -1.5, 2.25, 1e30],
              "float64": [0.1, -0.0, 3.0, 1e300], "string": ["x", "", "zz", "q"],
              "bool": [True, False, True, True]}[value_dtype]
    queries = [["a", "zz"], ["d", ""], ["c", "b"]]

    def run(lib):
        table = lib.lookup.StaticHashTable(lib.lookup.KeyValueTensorInitializer(
            keys, values, value_dtype=getattr(lib, value_dtype)), default)
        exported = table.export()
        pairs = sorted(zip(exported[0].numpy().tolist(), exported[1].numpy().tolist()))
        return table[lib.constant(queries)].numpy(), int(table.size()), pairs, table.value_dtype.name
    mine, ref = _both(run)
    np.testing.assert_array_equal(mine[0], ref[0])
    assert mine[0].dtype == ref[0].dtype and mine[1:] == ref[1:]


def test_text_file_tables(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes("\n".join(_random_strings(12, 4)[1:] + ["tail\r"]).encode("utf-8"))
    probes = _random_strings(20, 4) + ["tail", "tail\r"]

    def run(lib):
        init = lib.lookup.TextFileInitializer(str(path), lib.string, lib.lookup.TextFileIndex.WHOLE_LINE,
                                              lib.int64, lib.lookup.TextFileIndex.LINE_NUMBER)
        table = lib.lookup.StaticVocabularyTable(init, 4)
        return table.lookup(lib.constant(probes)).numpy(), int(table.size())
    mine, ref = _both(run)
    np.testing.assert_array_equal(mine[0], ref[0])
    assert mine[1] == ref[1]


def _error_class(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (the class is what is compared)
        return type(e).__name__
    return None


@pytest.mark.parametrize("case", [
    lambda lib: lib.lookup.StaticHashTable(lib.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2]), -1),
    lambda lib: lib.lookup.StaticHashTable(lib.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2, 3]), -1),
    lambda lib: lib.lookup.StaticHashTable(lib.lookup.KeyValueTensorInitializer([1.0], [1]), -1),
    lambda lib: lib.lookup.StaticHashTable(lib.lookup.KeyValueTensorInitializer(["a"], [1]), -1).lookup(
        lib.constant([1])),
    lambda lib: lib.lookup.StaticHashTable(lib.lookup.KeyValueTensorInitializer(["a"], [1]), "x"),
    lambda lib: lib.lookup.StaticHashTable(lib.lookup.KeyValueTensorInitializer(["a"], [1]), [1, 2]),
    lambda lib: lib.lookup.StaticVocabularyTable(lib.lookup.KeyValueTensorInitializer(["a"], [1]), 1),
    lambda lib: lib.lookup.StaticVocabularyTable(None, 0),
    lambda lib: lib.lookup.StaticVocabularyTable(lib.lookup.KeyValueTensorInitializer([1], [1]), 1),
    lambda lib: lib.lookup.TextFileInitializer("", lib.string, -2, lib.int64, -1),
    lambda lib: lib.lookup.StaticHashTable(lib.lookup.TextFileInitializer(
        "/nonexistent/vocab", lib.string, -2, lib.int64, -1), -1),
])
def test_error_classes(case):
    mine, ref = _both(lambda lib: _error_class(lambda: case(lib)))
    assert ref is not None and mine == ref
