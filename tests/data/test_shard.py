"""Dataset.shard (TF's values, cardinality and errors, checked against TF 2.21 by hand) and the
AutoShardPolicy enum."""
import pytest

import minitf as tf


@pytest.mark.parametrize("n, shards", [(10, 3), (9, 3), (2, 4), (0, 2)])
def test_shards_partition_the_elements_in_order(n, shards):
    parts = [list(tf.data.Dataset.range(n).shard(shards, i).as_numpy_iterator()) for i in range(shards)]
    assert sorted(x for part in parts for x in part) == list(range(n))
    for i, part in enumerate(parts):
        assert part == list(range(i, n, shards))
        assert int(tf.data.Dataset.range(n).shard(shards, i).cardinality()) == len(part)


def test_shard_of_an_infinite_or_unknown_dataset_keeps_its_cardinality():
    assert int(tf.data.Dataset.range(5).repeat().shard(2, 0).cardinality()) == tf.data.INFINITE_CARDINALITY
    filtered = tf.data.Dataset.range(5).filter(lambda x: x > 1)
    assert int(filtered.shard(2, 1).cardinality()) == tf.data.UNKNOWN_CARDINALITY
    assert list(filtered.shard(2, 1).as_numpy_iterator()) == [3]


@pytest.mark.parametrize("num_shards, index, message", [(0, 0, "greater than zero"), (3, 3, "between 0 and 2"),
                                                         (3, -1, "between 0 and 2")])
def test_bad_shards_are_invalid_arguments(num_shards, index, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        tf.data.Dataset.range(3).shard(num_shards, index)


def test_auto_shard_policy_values_match_tf():
    policy = tf.data.experimental.AutoShardPolicy
    assert (policy.OFF, policy.AUTO, policy.FILE, policy.DATA, policy.HINT) == (-1, 0, 1, 2, 3)
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = policy.OFF
    assert tf.data.Dataset.range(2).with_options(options).options().experimental_distribute.auto_shard_policy == -1
