"""interleave, flat_map, window, sample_from_datasets, choose_from_datasets, counter and
rejection_resample: element order, structure, specs, cardinality and errors, checked against
the values TF 2.21 gives (recorded here), and checkpointable iteration of the new nodes."""
import collections

import numpy as np
import pytest

import minitf as tf
from minitf.data import Dataset


def values(ds):
    return [np.asarray(x).tolist() for x in ds.as_numpy_iterator()]


def card(ds):
    return int(ds.cardinality())


def test_interleave_follows_tf_cycle_and_block_order():
    ds = Dataset.range(1, 6).interleave(lambda x: Dataset.from_tensors(x).repeat(x), cycle_length=2,
                                        block_length=2)
    assert values(ds) == [1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 4, 4, 5, 5, 5]  # TF 2.21
    assert card(ds) == tf.data.UNKNOWN_CARDINALITY
    parallel = Dataset.range(1, 6).interleave(lambda x: Dataset.from_tensors(x).repeat(x), cycle_length=2,
                                              block_length=2, num_parallel_calls=tf.data.AUTOTUNE,
                                              deterministic=True)
    assert values(parallel) == values(ds)
    three = Dataset.range(3).interleave(lambda x: Dataset.range(10 * x, 10 * x + 3), cycle_length=3)
    assert values(three) == [0, 10, 20, 1, 11, 21, 2, 12, 22]


def test_interleave_of_text_files(tmp_path):
    paths = []
    for i in range(3):
        p = tmp_path / f"f{i}.txt"
        p.write_text("".join(f"file{i} line{j}\n" for j in range(3)))
        paths.append(str(p))
    ds = Dataset.from_tensor_slices(paths).interleave(tf.data.TextLineDataset, cycle_length=3)
    assert values(ds)[:4] == [b"file0 line0", b"file1 line0", b"file2 line0", b"file0 line1"]
    assert ds.element_spec == tf.TensorSpec([], tf.string)


def test_interleave_errors():
    with pytest.raises(TypeError, match="must return a `Dataset`"):
        values(Dataset.range(3).interleave(lambda x: x, cycle_length=1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="cycle_length must be greater than zero"):
        Dataset.range(3).interleave(lambda x: Dataset.range(x), cycle_length=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="block_length"):
        Dataset.range(3).interleave(lambda x: Dataset.range(x), cycle_length=1, block_length=-2)


def test_flat_map_chains_in_order_and_unpacks_tuples():
    assert values(Dataset.range(1, 4).flat_map(lambda x: Dataset.range(x))) == [0, 0, 1, 0, 1, 2]
    pairs = Dataset.from_tensor_slices(([1, 2], [10, 20])).flat_map(
        lambda a, b: Dataset.from_tensor_slices(tf.stack([a, b])))
    assert values(pairs) == [1, 10, 2, 20]


@pytest.mark.parametrize("kwargs, expected, cardinality", [  # TF 2.21
    (dict(size=3, shift=2), [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6, 7, 8], [8, 9]], 5),
    (dict(size=3, shift=2, drop_remainder=True), [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6, 7, 8]], 4),
    (dict(size=3, shift=2, stride=3, drop_remainder=True), [[0, 3, 6], [2, 5, 8]], 2),
    (dict(size=3, shift=2, stride=3), [[0, 3, 6], [2, 5, 8], [4, 7], [6, 9], [8]], 5),
    (dict(size=4), [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]], 3),
    (dict(size=2, shift=4), [[0, 1], [4, 5], [8, 9]], 3),
    (dict(size=2, shift=3), [[0, 1], [3, 4], [6, 7], [9]], 4),
])
def test_window_elements_and_cardinality(kwargs, expected, cardinality):
    windows = Dataset.range(10).window(**kwargs)
    assert [values(w) for w in windows] == expected
    assert card(windows) == cardinality


def test_window_structure_spec_and_repr():
    windows = Dataset.range(10).window(3)
    assert windows.element_spec == tf.data.DatasetSpec(tf.TensorSpec([], tf.int64))
    assert repr(windows.element_spec) == ("DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), "
                                          "TensorShape([]))")
    first = next(iter(windows))
    assert repr(first) == "<_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>"
    nested = Dataset.from_tensor_slices(([1, 2, 3], {"a": [4, 5, 6]})).window(2)
    assert nested.element_spec[1]["a"] == tf.data.DatasetSpec(tf.TensorSpec([], tf.int32))
    x, d = next(iter(nested))
    assert values(x) == [1, 2] and values(d["a"]) == [4, 5]
    zipped = nested.flat_map(lambda x, d: Dataset.zip((x, d["a"])).batch(2))
    assert [(a, b) for a, b in values(zipped)] == [([1, 2], [4, 5]), ([3], [6])]


def test_window_flat_map_batch_as_in_the_data_guide():
    def make_window_dataset(ds, window_size=5, shift=1, stride=1):
        windows = ds.window(window_size, shift=shift, stride=stride)
        return windows.flat_map(lambda sub: sub.batch(window_size, drop_remainder=True))

    ds = make_window_dataset(Dataset.range(100000), window_size=10, shift=5, stride=3)
    first = values(ds.take(3))
    assert first == [list(range(0, 30, 3)), list(range(5, 35, 3)), list(range(10, 40, 3))]
    flat = values(Dataset.range(6).window(3, shift=1).flat_map(lambda x: x))
    assert flat == [0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4, 5, 4, 5, 5]


@pytest.mark.parametrize("kwargs, what", [(dict(size=0), "Window size"), (dict(size=2, shift=0), "Window shift"),
                                          (dict(size=2, stride=0), "Window stride")])
def test_window_rejects_non_positive_arguments(kwargs, what):
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"{what} must be greater than zero"):
        Dataset.range(3).window(**kwargs)


def test_counter():
    c = Dataset.counter()
    assert card(c) == tf.data.INFINITE_CARDINALITY and c.element_spec == tf.TensorSpec([], tf.int64)
    assert values(Dataset.counter(3, -2, dtype=tf.int32).take(3)) == [3, 1, -1]
    old = tf.data.experimental.Counter()
    assert values(old.take(3)) == [0, 1, 2]
    lines = Dataset.from_tensor_slices(["a", "b"])
    n, line = next(iter(Dataset.zip((old, lines)).batch(2)))
    assert n.numpy().tolist() == [0, 1] and line.numpy().tolist() == [b"a", b"b"]


def test_sample_from_datasets_draws_every_element_with_seed_reproducibility():
    a, b = Dataset.range(3), Dataset.range(10, 13)
    ds = Dataset.sample_from_datasets([a, b], seed=1)
    out = values(ds)
    assert sorted(out) == [0, 1, 2, 10, 11, 12]
    assert [x for x in out if x < 10] == [0, 1, 2]  # each input's order is kept
    assert values(ds) == out  # the same draws on each iteration (rerandomize_each_iteration=None)
    assert values(Dataset.sample_from_datasets([a, b], seed=1)) == out
    assert card(ds) == tf.data.UNKNOWN_CARDINALITY
    assert tf.data.experimental.sample_from_datasets is not None


def test_sample_from_datasets_weights_and_stop_on_empty():
    zeros, ones = Dataset.from_tensors(0).repeat(), Dataset.from_tensors(1).repeat()
    ds = Dataset.sample_from_datasets([zeros, ones], [0.2, 0.8], seed=3)
    assert card(ds) == tf.data.INFINITE_CARDINALITY
    mean = np.mean(values(ds.take(4000)))
    assert 0.77 < mean < 0.83
    only_first = Dataset.sample_from_datasets([Dataset.range(3), Dataset.range(10, 20)], [1.0, 0.0])
    assert values(only_first) == [0, 1, 2]
    stopped = Dataset.sample_from_datasets([Dataset.range(1), ones.map(lambda x: tf.cast(x, tf.int64))],
                                           seed=5, stop_on_empty_dataset=True)
    out = values(stopped)
    assert out.count(0) == 1 and set(out) <= {0, 1}  # stops when range(1), drawn again, is empty


def test_sample_from_datasets_errors():
    with pytest.raises(ValueError, match="`len\\(weights\\)=1` vs. `len\\(datasets\\)=2`"):
        Dataset.sample_from_datasets([Dataset.range(3), Dataset.range(3)], weights=[1.0])
    with pytest.raises(TypeError, match="must have compatible element specs"):
        Dataset.sample_from_datasets([Dataset.range(3), Dataset.range(3).map(lambda x: tf.cast(x, tf.int32))])
    with pytest.raises(ValueError, match="should not be empty"):
        Dataset.sample_from_datasets([])


def test_choose_from_datasets():
    choice = Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0, 0, 0, 1], tf.int64))
    a, b = Dataset.range(3), Dataset.range(10, 13)
    assert values(Dataset.choose_from_datasets([a, b], choice)) == [0, 10, 11, 1, 2]  # TF 2.21
    assert values(tf.data.experimental.choose_from_datasets([a, b], choice, stop_on_empty_dataset=False)) == \
        [0, 10, 11, 1, 2, 12]
    with pytest.raises(TypeError, match="must be scalar `tf.int64` tensors"):
        Dataset.choose_from_datasets([a], Dataset.range(3).map(lambda x: tf.cast(x, tf.int32)))
    bad = Dataset.choose_from_datasets([a], Dataset.from_tensor_slices(tf.constant([0, 4], tf.int64)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Selector index out of range: 4 >= 1"):
        values(bad)


def test_rejection_resample_balances_classes():
    tf.random.set_seed(0)
    labels = np.array([0] * 95 + [1] * 5)
    ds = Dataset.from_tensor_slices((np.arange(100.0), labels)).repeat()
    for initial in ([0.95, 0.05], None):
        resampled = ds.rejection_resample(lambda f, label: label, target_dist=[0.5, 0.5], initial_dist=initial)
        assert resampled.element_spec == (tf.TensorSpec([], tf.int64),
                                          (tf.TensorSpec([], tf.float64), tf.TensorSpec([], tf.int64)))
        pairs = list(resampled.take(1500))
        classes = [int(c) for c, _ in pairs]
        assert all(int(c) == int(label) for c, (_, label) in pairs)
        assert 0.44 < np.mean(classes) < 0.56
    same = Dataset.range(4).rejection_resample(lambda x: tf.cast(x % 2, tf.int32), [0.5, 0.5], [0.5, 0.5])
    assert [(int(c), int(x)) for c, x in same] == [(0, 0), (1, 1), (0, 2), (1, 3)]


def test_checkpointed_iterators_resume_new_datasets(tmp_path):
    cases = {
        "interleave": Dataset.range(1, 6).interleave(lambda x: Dataset.from_tensors(x).repeat(x), 2, 2),
        "window": Dataset.range(20).window(4, 2).flat_map(lambda w: w.batch(4)),
        "sample": Dataset.sample_from_datasets([Dataset.range(10), Dataset.range(100, 110)], seed=7),
        "choose": Dataset.choose_from_datasets([Dataset.range(5), Dataset.range(10, 15)],
                                               Dataset.range(10).map(lambda x: x % 2)),
        "counter": Dataset.counter(5, 2),
    }
    for name, ds in cases.items():
        full = [np.asarray(x).tolist() for x in ds.take(8).as_numpy_iterator()]
        it = iter(ds)
        ckpt = tf.train.Checkpoint(iterator=it)
        head = [next(it).numpy().tolist() for _ in range(3)]
        path = ckpt.save(str(tmp_path / name))
        rest = [next(it).numpy().tolist() for _ in range(5)]
        assert head + rest == full, name
        ckpt.restore(path)
        assert [next(it).numpy().tolist() for _ in range(5)] == rest, name


def test_dataset_spec_equality():
    spec = tf.data.DatasetSpec(tf.TensorSpec([], tf.int64))
    assert spec == tf.data.DatasetSpec(tf.TensorSpec([], tf.int64))
    assert spec != tf.data.DatasetSpec(tf.TensorSpec([], tf.int32))
    assert spec.element_spec == tf.TensorSpec([], tf.int64) and spec.shape == tf.TensorShape([])
    assert isinstance(collections.OrderedDict(), dict)
