"""tf.summary.experimental: the default step, summary name scopes and raw Summary protos."""
from minitf.summary.ops import summary_scope, write_raw_pb
from minitf.summary.writer import get_step, set_step

__all__ = ["get_step", "set_step", "summary_scope", "write_raw_pb"]
