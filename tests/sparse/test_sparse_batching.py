"""Row cutting and stacking of SparseTensors (minitf.sparse.batching), as tf.data gives them:
the guide's dataset cells' elements, computed without a dataset (values from TF 2.21)."""
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close
from minitf.sparse import batching


def _parts(st):
    return st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()


def _data():
    return tf.sparse.SparseTensor([(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)], [1] * 6, (6, 4))


def test_unbatch_gives_the_rows():
    rows = batching.unbatch(_data())
    assert len(rows) == 6
    assert _parts(rows[0]) == ([[0], [1], [2]], [1, 1, 1], [4])
    assert _parts(rows[1]) == ([], [], [4]) and rows[1].indices.shape == (0, 1)
    assert _parts(rows[5]) == ([[0], [1]], [1, 1], [4])


def test_batch_stacks_rows_and_round_trips():
    rows = batching.unbatch(_data())
    pairs = [batching.batch(rows[i:i + 2]) for i in range(0, 6, 2)]
    assert _parts(pairs[0]) == ([[0, 0], [0, 1], [0, 2]], [1, 1, 1], [2, 4])
    assert _parts(pairs[2]) == ([[0, 3], [1, 0], [1, 1]], [1, 1, 1], [2, 4])
    again = [row for p in pairs for row in batching.unbatch(p)]
    assert [_parts(r) for r in again] == [_parts(r) for r in rows]


def test_batch_takes_the_largest_shape():
    a = tf.sparse.SparseTensor([[0, 1]], [1.0], [2, 3])
    b = tf.sparse.SparseTensor([[3, 0]], [2.0], [4, 2])
    assert _parts(batching.batch([a, b])) == ([[0, 0, 1], [1, 3, 0]], [1.0, 2.0], [2, 4, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="different ranks or dtypes"):
        batching.batch([a, tf.sparse.SparseTensor([[0]], [1.0], [2])])


def test_gradients_reach_the_values():
    v = tf.constant([1.0, 2.0, 3.0], tf.float64)
    sp = lambda x: tf.sparse.SparseTensor([[0, 1], [2, 0], [2, 2]], x, [3, 3])  # noqa: E731
    assert_gradients_close(lambda x: tf.sparse.to_dense(batching.batch(batching.unbatch(sp(x))[1:])), [v])


def test_take_rows_cuts_and_reorders_rows():
    take_rows = batching.take_rows
    sp = tf.sparse.SparseTensor(indices=[(0, 0), (0, 2), (2, 1), (3, 0)], values=[1.0, 2.0, 3.0, 4.0],
                                dense_shape=(4, 3))
    dense = tf.sparse.to_dense(sp).numpy()
    assert tf.sparse.to_dense(take_rows(sp, slice(1, 3))).numpy().tolist() == dense[1:3].tolist()
    picked = take_rows(sp, [3, 0, 2])
    assert picked.indices.numpy().tolist() == [[0, 0], [1, 0], [1, 2], [2, 1]]
    assert tf.sparse.to_dense(picked).numpy().tolist() == [dense[3].tolist(), dense[0].tolist(), dense[2].tolist()]
    assert take_rows(sp, slice(1, 2)).values.shape == (0,)
