"""tf.* ops on RaggedTensor through the dispatch seam: elementwise math with scalars, dense and
ragged operands, reductions, concat/stack, tf.strings, and TF's errors (values from TF 2.21)."""
import numpy as np
import pytest

import minitf as tf
from minitf.errors import errors


def digits():
    return tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])


def test_elementwise_with_scalars_and_operators():
    d = digits()
    assert tf.add(d, 3).to_list() == [[6, 4, 7, 4], [], [8, 12, 5], [9], []]
    assert (d + 3).to_list() == (3 + d).to_list() == tf.math.add(d, 3).to_list()
    assert (d - 1).to_list()[0] == [2, 0, 3, 0] and (10 - d).to_list()[2] == [5, 1, 8]
    assert (d * 2).to_list()[3] == [12] and (d // 2).to_list()[2] == [2, 4, 1]
    assert (d % 2).to_list()[0] == [1, 1, 0, 1] and (d ** 2).to_list()[2] == [25, 81, 4]
    assert (d / 2).to_list()[0] == [1.5, 0.5, 2.0, 0.5] and (d / 2).dtype == tf.float64
    assert (-d).to_list()[0] == [-3, -1, -4, -1] and abs(-d).to_list() == d.to_list()
    assert (d < 3).to_list()[0] == [False, True, False, True]
    assert (d == 1).to_list()[0] == [False, True, False, True]
    assert tf.math.square(d).to_list()[2] == [25, 81, 4]
    assert tf.maximum(d, 4).to_list()[0] == [4, 4, 4, 4]
    assert tf.ragged.map_flat_values(lambda x: x * 2 + 1, d).to_list()[0] == [7, 3, 9, 3]
    f = tf.ragged.constant([[1.0, 4.0], [9.0]])
    assert tf.sqrt(f).to_list() == [[1.0, 2.0], [3.0]] and tf.math.exp(f).dtype == tf.float32
    assert tf.math.logical_not(f > 2.0).to_list() == [[True, False], [False]]


def test_tensor_on_the_left_goes_to_the_ragged_operand():
    rt = tf.ragged.constant([[1, 2], [3]])
    assert (tf.constant(10) + rt).to_list() == [[11, 12], [13]]
    assert tf.subtract(tf.constant([[10], [20]]), rt).to_list() == [[9, 8], [17]]


def test_ragged_plus_ragged_and_broadcasting():
    x = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    assert (x + tf.ragged.constant([[1, 1], [2], [3, 3, 3]])).to_list() == [[2, 3], [5], [7, 8, 9]]
    x = tf.ragged.constant([[10, 87, 12], [19, 53], [12, 32]])
    assert (x + [[1000], [2000], [3000]]).to_list() == [[1010, 1087, 1012], [2019, 2053], [3012, 3032]]
    x = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1)
    assert (x + tf.constant([[10]])).to_list() == [[[11, 12], [13, 14], [15, 16]], [[17, 18]]]
    x = tf.ragged.constant([[[[1], [2]], [], [[3]], [[4]]], [[[5], [6]], [[7]]]], ragged_rank=2)
    out = x + tf.constant([10, 20, 30])
    assert out.to_list()[0][0] == [[11, 21, 31], [12, 22, 32]] and out.shape.as_list() == [2, None, None, 3]


@pytest.mark.parametrize("x, y", [
    ([[1, 2], [3, 4, 5, 6], [7]], "dense"),
    ([[1, 2, 3], [4], [5, 6]], [[10, 20], [30, 40], [50]]),
])
def test_incompatible_rows_raise_invalid_argument(x, y):
    x = tf.ragged.constant(x)
    y = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]) if y == "dense" else tf.ragged.constant(y)
    with pytest.raises(errors.InvalidArgumentError, match="Condition x == y did not hold."):
        x + y


def test_broadcast_error_text_is_tfs():
    x = tf.ragged.constant([[1, 2], [3, 4, 5, 6], [7]])
    y = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    with pytest.raises(errors.InvalidArgumentError) as info:
        x + y
    assert str(info.value) == ("Condition x == y did not hold.\nIndices of first 3 different values:\n"
                               "[[1]\n [2]\n [3]]\nCorresponding x values:\n[ 4  8 12]\n"
                               "Corresponding y values:\n[2 6 7]\nFirst 3 elements of x:\n[0 4 8]\n"
                               "First 3 elements of y:\n[0 2 6]")


def test_dtype_mismatch_is_the_dense_error():
    with pytest.raises(errors.InvalidArgumentError, match="AddV2"):
        tf.ragged.constant([[1, 2], [3]]) + tf.constant([1.0])


def test_reductions():
    d = digits()
    mean = tf.reduce_mean(d, axis=1).numpy()
    assert mean.dtype == np.float64 and np.isnan(mean[1]) and mean[0] == 2.25
    assert tf.reduce_max(d, axis=1).numpy().tolist() == [4, -2147483648, 9, 6, -2147483648]
    assert tf.reduce_sum(d, axis=0).numpy().tolist() == [14, 10, 6, 1]
    assert tf.reduce_sum(d).numpy() == 31 and tf.math.reduce_prod(d, axis=1).numpy().tolist() == [12, 1, 90, 6, 1]
    assert tf.reduce_min(d, axis=-1).numpy().tolist()[0] == 1
    f = tf.ragged.constant([[1.0, 2.0], [3.0, 4.0, 5.0], [6.0], [], [7.0]])
    assert tf.reduce_mean(f, axis=0).numpy().tolist() == [4.25, 3.0, 5.0]
    assert tf.reduce_max(f, axis=1).numpy()[3] == np.finfo(np.float32).min
    empty = tf.ragged.constant([[], []], dtype=tf.float32)
    assert tf.reduce_max(empty, axis=1).numpy().tolist() == [float(np.finfo(np.float32).min)] * 2
    b = f > 2.0
    assert tf.reduce_any(b, axis=1).numpy().tolist() == [False, True, True, False, True]
    assert tf.reduce_all(b, axis=1).numpy().tolist() == [False, True, True, True, True]
    nested = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    assert tf.reduce_sum(nested, axis=2).to_list() == [[3, 3], [4]]
    assert tf.reduce_sum(nested, axis=1).to_list() == [[4, 2], [4]]
    assert tf.reduce_sum(nested, axis=0).to_list() == [[5, 2], [3]]


def test_concat_and_stack():
    d = digits()
    assert tf.concat([d, [[5, 3]]], axis=0).to_list()[-1] == [5, 3]
    x = tf.ragged.constant([["John"], ["a", "big", "dog"], ["my", "cat"]])
    y = tf.ragged.constant([["fell", "asleep"], ["barked"], ["is", "fuzzy"]])
    assert tf.concat([x, y], axis=1).to_list()[0] == [b"John", b"fell", b"asleep"]
    marker = tf.fill([x.nrows(), 1], "#")
    padded = tf.concat([marker, x, marker], axis=1)
    assert padded.to_list()[2] == [b"#", b"my", b"cat", b"#"]
    rt = tf.ragged.constant([[1, 2], [3, 4, 5], [6], [], [7]])
    assert tf.stack([rt, rt], axis=0).to_list()[1] == rt.to_list()
    assert tf.stack([rt, rt], axis=1).to_list()[1] == [[3, 4, 5], [3, 4, 5]]
    assert tf.ragged.stack([rt, rt]).shape.as_list() == [2, None, None]


def test_strings():
    words = tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
    assert tf.strings.substr(words, 0, 2).to_list()[1] == [b"th", b"fo", b"al", b"th", b"fi"]
    assert tf.strings.length(words).to_list() == [[2, 4], [6, 3, 3, 3, 4]]
    assert tf.strings.upper(words).to_list()[0] == [b"SO", b"LONG"]
    assert tf.strings.as_string(tf.ragged.constant([[1.5], []]), precision=1).to_list() == [[b"1.5"], []]
    assert tf.strings.split(words).to_list()[0] == [[b"So"], [b"long"]]  # a ragged input gains a dimension
    x = tf.ragged.constant([["a", "b"], ["c"]])
    assert tf.strings.join([x, x], separator="+").to_list() == [[b"a+a", b"b+b"], [b"c+c"]]
    split = tf.strings.split(tf.constant(["What makes you", "A newt?"]), " ")
    assert split.to_list() == [[b"What", b"makes", b"you"], [b"A", b"newt?"]]
    assert tf.strings.split(tf.constant([["a b"], ["c"]])).to_list() == [[[b"a", b"b"]], [[b"c"]]]
    decoded = tf.strings.unicode_decode(tf.constant(["hé", "x"]), "UTF-8")
    assert decoded.to_list() == [[104, 233], [120]] and decoded.dtype == tf.int32


def test_ragged_range_and_boolean_mask():
    assert tf.ragged.range([3, 1], [5, 4]).to_list() == [[3, 4], [1, 2, 3]]
    assert tf.ragged.range([2, 0, 3]).to_list() == [[0, 1], [], [0, 1, 2]]
    mask = tf.ragged.boolean_mask([[1, 2], [3, 4]], [[True, False], [True, True]])
    assert mask.to_list() == [[1], [3, 4]]
    rt = tf.ragged.constant([[1, 2, 3], [], [4]])
    assert tf.ragged.boolean_mask(rt, rt > 1).to_list() == [[2, 3], [], [4]]
    assert tf.ragged.boolean_mask(rt, [True, False, True]).to_list() == [[1, 2, 3], [4]]


def test_ops_without_ragged_support_keep_their_error():
    # TF 2.21 has no ragged kernel for tf.sort (tf.reshape, which used to stand here, does have
    # one: it reshapes the flat values)
    with pytest.raises(ValueError, match="has no len()"):
        tf.sort(digits())


def test_reshape_of_a_ragged_tensor_reshapes_its_values():
    assert tf.reshape(digits(), [-1]).numpy().tolist() == [3, 1, 4, 1, 5, 9, 2, 6]
    nested = tf.ragged.constant([[[3], [1, 4]], [[1]]])
    assert tf.reshape(nested, [2, 2]).numpy().tolist() == [[3, 1], [4, 1]]


def test_tile_and_reverse():
    d = digits()
    assert tf.tile(d, [1, 2]).to_list() == [[3, 1, 4, 1, 3, 1, 4, 1], [], [5, 9, 2, 5, 9, 2], [6, 6], []]
    assert tf.tile(d, [2, 1]).to_list() == d.to_list() * 2
    assert tf.reverse(d, [1]).to_list()[2] == [2, 9, 5] and tf.reverse(d, [0]).to_list()[0] == []

    @tf.function
    def make_palindrome(x, axis):
        return tf.concat([x, tf.reverse(x, [axis])], axis)
    out = make_palindrome(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]), axis=1)
    assert out.to_list() == [[1, 2, 2, 1], [3, 3], [4, 5, 6, 6, 5, 4]]


def test_sparse_round_trip():
    sentences = tf.ragged.constant([["Hi"], ["Welcome", "to", "the", "fair"], ["Have", "fun"]])
    st = sentences.to_sparse()
    assert st.indices.numpy().tolist()[:3] == [[0, 0], [1, 0], [1, 1]]
    assert st.dense_shape.numpy().tolist() == [3, 4]
    assert tf.RaggedTensor.from_sparse(st).to_list() == sentences.to_list()
    gappy = tf.SparseTensor(indices=[[0, 0], [2, 0], [2, 1]], values=["a", "b", "c"], dense_shape=[3, 3])
    assert tf.RaggedTensor.from_sparse(gappy).to_list() == [[b"a"], [], [b"b", b"c"]]
    with pytest.raises(errors.InvalidArgumentError, match="right-ragged"):
        tf.RaggedTensor.from_sparse(tf.SparseTensor(indices=[[0, 1]], values=[1], dense_shape=[2, 2]))


def test_reduce_join_and_add_n():
    w = tf.ragged.constant([["So", "long"], ["thanks", "for", "all"], []])
    assert tf.strings.reduce_join(w, axis=-1, separator=" ").numpy().tolist() == [b"So long", b"thanks for all", b""]
    assert tf.strings.reduce_join(w, separator="|").numpy() == b"So|long|thanks|for|all"
    nested = tf.ragged.constant([[["a", "b"], ["c"]], [["d"]]])
    assert tf.strings.reduce_join(nested, axis=-1).to_list() == [[b"ab", b"c"], [b"d"]]
    r = tf.ragged.constant([[1.0, 2.0], [3.0]])
    assert tf.add_n([r, r, r]).to_list() == [[3.0, 6.0], [9.0]]


def test_like_gather_size_rank():
    rt = tf.ragged.constant([[1, 2], [3, 4, 5], [6], [], [7]])
    assert tf.zeros_like(rt).to_list() == [[0, 0], [0, 0, 0], [0], [], [0]]
    assert tf.ones_like(rt, dtype=tf.float32).to_list()[0] == [1.0, 1.0]
    assert tf.gather(rt, [3, 1, 1]).to_list() == [[], [3, 4, 5], [3, 4, 5]]
    assert tf.gather(rt, [[0, 1], [2, 2]]).to_list() == [[[1, 2], [3, 4, 5]], [[6], [6]]]
    assert int(tf.size(rt)) == 7 and int(tf.rank(rt)) == 2
    with pytest.raises(errors.InvalidArgumentError, match=r"indices\[1\] = 9 is not in \[0, 5\)"):
        tf.gather(rt, [0, 9])
    with pytest.raises(ValueError, match="has no len()"):  # TF's tf.boolean_mask does not dispatch either
        tf.boolean_mask(rt, [True, False, True, False, True])
