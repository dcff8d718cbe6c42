"""tf.experimental.Optional and get_next_as_optional: eager, inside tf.function (a loop that breaks
on an empty Optional, as the distributed-input tutorial writes it), on distributed iterators and
with checkpointed iterator positions."""
import numpy as np
import pytest

import minitf as tf


def test_from_value_and_empty():
    full = tf.experimental.Optional.from_value((1, {"a": [1.0, 2.0]}))
    assert full.has_value().dtype == tf.bool and bool(full.has_value())
    number, parts = full.get_value()
    assert int(number) == 1 and parts["a"].numpy().tolist() == [1.0, 2.0]
    assert full.element_spec == (tf.TensorSpec([], tf.int32), {"a": tf.TensorSpec([2], tf.float32)})
    empty = tf.experimental.Optional.empty(tf.TensorSpec([None], tf.float32))
    assert not bool(empty.has_value()) and empty.element_spec == tf.TensorSpec([None], tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not have a value"):
        empty.get_value()
    assert tf.data.experimental.Optional is tf.experimental.Optional
    assert tf.OptionalSpec.from_value(empty) == tf.OptionalSpec(tf.TensorSpec([None], tf.float32))
    assert repr(tf.OptionalSpec(tf.TensorSpec([2], tf.int64))) == \
        "OptionalSpec(TensorSpec(shape=(2,), dtype=tf.int64, name=None),)"


def test_iterator_walks_past_the_end_without_raising():
    it = iter(tf.data.Dataset.range(5).batch(2))
    flags, batches = [], []
    for _ in range(4):
        optional = it.get_next_as_optional()
        flags.append(bool(optional.has_value()))
        if flags[-1]:
            batches.append(optional.get_value().numpy().tolist())
        assert optional.element_spec == tf.TensorSpec([None], tf.int64)
    assert flags == [True, True, True, False]
    assert batches == [[0, 1], [2, 3], [4]]
    assert not bool(tf.data.experimental.get_next_as_optional(it).has_value())


def test_traced_loop_breaks_on_the_empty_optional():
    it = iter(tf.data.Dataset.range(7).batch(3))

    @tf.function
    def total(iterator):
        result = tf.constant(0, tf.int64)
        for _ in tf.range(10):
            optional = iterator.get_next_as_optional()
            if not optional.has_value():
                break
            result += tf.reduce_sum(optional.get_value())
        return result

    assert int(total(it)) == 21
    it = iter(tf.data.Dataset.range(4).batch(3))
    assert int(total(it)) == 6  # the same trace, a new iterator: the node takes from its argument


def test_traced_get_value_of_an_empty_optional_raises_when_the_graph_runs():
    @tf.function
    def first(iterator):
        return iterator.get_next_as_optional().get_value()

    it = iter(tf.data.Dataset.from_tensor_slices([5.0]))
    assert float(first(it)) == 5.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not have a value"):
        first(it)


def test_traced_branches_see_the_flag():
    @tf.function
    def value_or(iterator, default):
        optional = iterator.get_next_as_optional()
        if optional.has_value():
            return optional.get_value()
        return default

    it = iter(tf.data.Dataset.from_tensor_slices(np.array([[1.0, 2.0]], np.float32)))
    assert value_or(it, tf.zeros([2])).numpy().tolist() == [1.0, 2.0]
    assert value_or(it, tf.fill([2], -1.0)).numpy().tolist() == [-1.0, -1.0]


def test_distributed_iterator_as_the_tutorial_writes_it():
    strategy = tf.distribute.MirroredStrategy()
    dataset = tf.data.Dataset.range(9).batch(4)
    iterator = iter(strategy.experimental_distribute_dataset(dataset))
    seen = []

    @tf.function
    def train_fn(iterator):
        for _ in tf.range(5):
            optional = iterator.get_next_as_optional()
            if not optional.has_value():
                break
            result = strategy.run(lambda x: x * 2, args=(optional.get_value(),))
            tf.py_function(lambda r: seen.append(r.numpy().tolist()), [result], [])

    train_fn(iterator)
    assert seen == [[0, 2, 4, 6], [8, 10, 12, 14], [16]]
    assert not bool(iterator.get_next_as_optional().has_value())


def test_checkpoint_restores_the_position_after_optional_reads(tmp_path):
    it = iter(tf.data.Dataset.range(6))
    checkpoint = tf.train.Checkpoint(iterator=it)
    it.get_next_as_optional()
    it.get_next_as_optional()
    path = checkpoint.save(str(tmp_path / "ckpt"))
    assert int(it.get_next_as_optional().get_value()) == 2
    checkpoint.restore(path)
    assert int(it.get_next_as_optional().get_value()) == 2


def test_traced_optional_of_ragged_elements_says_what_is_missing():
    dataset = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3]]))

    @tf.function
    def take(iterator):
        return iterator.get_next_as_optional().has_value()

    it = iter(dataset)
    assert bool(it.get_next_as_optional().has_value())  # eagerly, any element
    with pytest.raises(NotImplementedError, match="IteratorGetNextAsOptional returns a RaggedTensorSpec"):
        take(it)
