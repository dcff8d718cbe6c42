"""Dataset.shard and AutoShardPolicy against TF 2.21: the elements each shard keeps, its
cardinality (known, infinite, unknown) and the errors for bad shard arguments."""
import pytest

import minitf


def _shard(tf, make, num_shards, index):
    """(elements, cardinality) of make(tf).shard(num_shards, index), or the error's class name."""
    try:
        ds = make(tf).shard(num_shards, index)
        card = int(ds.cardinality())
        elements = [int(x) for x in ds.take(12).as_numpy_iterator()]
    except Exception as e:  # noqa: BLE001 (the exception type is the result compared)
        return type(e).__name__
    return elements, card


SOURCES = {
    "range10": lambda tf: tf.data.Dataset.range(10),
    "empty": lambda tf: tf.data.Dataset.range(0),
    "repeated": lambda tf: tf.data.Dataset.range(5).repeat(),
    "filtered": lambda tf: tf.data.Dataset.range(9).filter(lambda x: x % 2 == 0),
}


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("num_shards, index", [(3, 0), (3, 2), (4, 1), (1, 0), (12, 11), (0, 0), (3, 3),
                                               (3, -1), (-2, 0)])
def test_shard_matches_tf(tf_ref, source, num_shards, index):
    make = SOURCES[source]
    assert _shard(minitf, make, num_shards, index) == _shard(tf_ref, make, num_shards, index)


def test_auto_shard_policy_matches_tf(tf_ref):
    names = ["OFF", "AUTO", "FILE", "DATA", "HINT"]
    assert [int(getattr(minitf.data.experimental.AutoShardPolicy, n)) for n in names] == \
        [int(getattr(tf_ref.data.experimental.AutoShardPolicy, n)) for n in names]
