"""tf.strings.to_hash_bucket_fast puts strings in TF's buckets (FarmHash Fingerprint64), also for
ragged batches such as tf.strings.split's (values from TF 2.21)."""
import pytest

import minitf as tf
from minitf.errors import errors


def test_buckets_match_tf_for_every_length_class():
    strs = ["", "a", "hello", "What makes you think she is a witch?", "x" * 20, "y" * 70, "z" * 300]
    assert tf.strings.to_hash_bucket_fast(tf.constant(strs), 1000).numpy().tolist() == \
        [263, 939, 296, 863, 348, 122, 947]


def test_ragged_input_and_errors():
    out = tf.strings.to_hash_bucket_fast(tf.ragged.constant([["Who", "is"], ["Pause"]]), 1024)
    assert out.to_list() == [[633, 768], [28]] and out.dtype == tf.int64
    with pytest.raises(errors.InvalidArgumentError, match="expected to be a string tensor"):
        tf.strings.to_hash_bucket_fast(tf.constant([1]), 10)
    with pytest.raises(errors.InvalidArgumentError, match="must be at least minimum 1"):
        tf.strings.to_hash_bucket_fast(tf.constant(["a"]), 0)
