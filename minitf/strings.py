"""tf.strings: functions of tf.string tensors (re-exports; nothing is defined here)."""
from minitf.ops.string_ops import *  # noqa: F401,F403
from minitf.ragged.string_ops import *  # noqa: F401,F403
from minitf.ops.string_hash import to_hash_bucket_fast  # noqa: F401,E402 (TF's Fingerprint64 buckets)
