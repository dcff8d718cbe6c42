"""Dataset.shuffle visits elements in TF 2.21's exact order: op and global seeds, reshuffling
across iterators and repeats, fixed seeds, buffers smaller and larger than the data, a shuffle
after a repeat, and the file-list and batch shuffles of Keras' text_dataset_from_directory."""
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")


def _ints(dataset):
    return [int(v) for v in dataset]


def _orders(lib):
    lib.random.set_seed(None)  # no global seed left by earlier tests: op seeds pair with TF's default
    ds = lib.data.Dataset.range(10).shuffle(10, seed=42)
    out = [_ints(ds), _ints(ds)]
    out.append(_ints(lib.data.Dataset.range(5).shuffle(5, seed=3).repeat(3)))
    small = lib.data.Dataset.range(12).shuffle(4, seed=9)
    out += [_ints(small), _ints(small)]
    out.append(_ints(lib.data.Dataset.range(8).shuffle(8, seed=5, reshuffle_each_iteration=False).repeat(2)))
    out.append(_ints(lib.data.Dataset.range(4).repeat(2).shuffle(3, seed=2)))
    out.append(_ints(lib.data.Dataset.range(5).shuffle(2, seed=4).repeat(2)))
    out.append([b.numpy().tolist() for b in lib.data.Dataset.range(10).shuffle(10, seed=1).batch(4)])
    big = lib.data.Dataset.range(3000).shuffle(1000, seed=2**31 - 2)
    out.append(_ints(big))
    out.append(_ints(lib.data.Dataset.range(7).shuffle(lib.data.experimental.UNKNOWN_CARDINALITY, seed=0)))
    lib.random.set_seed(1)
    a, b = lib.data.Dataset.range(8).shuffle(8), lib.data.Dataset.range(8).shuffle(8)
    out += [_ints(a), _ints(b), _ints(a)]
    lib.random.set_seed(7)
    out.append(_ints(lib.data.Dataset.range(6).shuffle(6, seed=11)))
    return out


def test_shuffle_orders_match_tf():
    ours, theirs = _orders(minitf), _orders(tf_ref)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, f"case {i}: minitf {a[:20]} TF {b[:20]}"


def _text_tree(root):
    for label in ("neg", "pos"):
        (root / label).mkdir(parents=True)
        for i in range(23):
            (root / label / f"{i}.txt").write_text(f"{label} review {i}")


def test_text_dataset_from_directory_order_matches_tf(tmp_path):
    _text_tree(tmp_path)

    def order(lib, subset):
        lib.random.set_seed(None)
        ds = lib.keras.utils.text_dataset_from_directory(str(tmp_path), batch_size=4, validation_split=0.25,
                                                         subset=subset, seed=42)
        return [(t.numpy().tolist(), y.numpy().tolist()) for t, y in ds]

    for subset in ("training", "validation"):
        assert order(minitf, subset) == order(tf_ref, subset), subset
