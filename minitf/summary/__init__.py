"""tf.summary: write TensorBoard event files.

    writer = tf.summary.create_file_writer("logs/run1")
    with writer.as_default(step=0):
        tf.summary.scalar("loss", 0.25)
        tf.summary.histogram("weights", w)

The files are TF 2's: TFRecord files of `tensorflow.Event` protos, with the summary tensors
and plugin metadata TF's tf.summary writes, so TensorBoard (and TF's own readers) open them.
Writing needs the protobuf package: pip install 'minitf[tensorboard]'. TensorBoard itself is
only needed to look at the files.

Modules: `event_file` (the file and its queue), `writer` (writers and the per-thread default
writer, step and recording condition), `ops` (write and the typed summaries), `graphs` (graphs of
tf.functions: graph, trace_on/trace_export/trace_off), `experimental`.
"""
from minitf.summary import experimental
from minitf.summary.graphs import graph, trace_export, trace_off, trace_on
from minitf.summary.ops import histogram, image, scalar, text, write
from minitf.summary.writer import (SummaryWriter, create_file_writer, create_noop_writer, flush,
                                   record_if, should_record_summaries)

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "flush", "record_if",
           "should_record_summaries", "scalar", "histogram", "image", "text", "write",
           "experimental", "graph", "trace_on", "trace_off", "trace_export"]
