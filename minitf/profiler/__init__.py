"""tf.profiler: the profiler's start/stop API (tf.profiler.experimental).

minitf has no tracing profiler: the calls keep TF's state rules and errors but record and write
nothing (TF writes an XSpace trace under `logdir/plugins/profile/<run>/` for TensorBoard's
Profile dashboard). See `minitf.profiler.experimental`.
"""
from minitf.profiler import experimental  # noqa: F401

__all__ = ["experimental"]
