"""tf.summary.graph and trace_on/trace_export: function graphs in event files TF reads."""
import glob

import pytest

import minitf as tf

pytest.importorskip("google.protobuf")


def _events(logdir):
    from minitf.summary._proto import messages
    from minitf.data.tfrecord import TFRecordDataset  # noqa: F401 (the record framing)
    event_class = messages()["Event"]
    out = []
    for path in glob.glob(f"{logdir}/events.out.tfevents.*"):
        for record in tf.data.TFRecordDataset(path):
            event = event_class()
            event.ParseFromString(record.numpy())
            out.append(event)
    return out


def _graph_nodes(event):
    from minitf.summary._proto import messages
    graph_def = messages()["GraphDef"]()
    graph_def.ParseFromString(event.graph_def)
    return [(n.name, n.op, list(n.input)) for n in graph_def.node]


def test_trace_export_writes_the_graphs_of_the_functions_called(tmp_path):
    @tf.function
    def f(x, y):
        return tf.matmul(x, y) + 1.0

    writer = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.trace_on(graph=True)
    f(tf.ones([2, 2]), tf.ones([2, 2]))
    with writer.as_default():
        tf.summary.trace_export(name="f_trace", step=3)
    writer.flush()
    [event] = [e for e in _events(tmp_path) if e.graph_def]
    assert event.step == 3
    nodes = _graph_nodes(event)
    assert ("x", "Placeholder", []) in nodes and ("y", "Placeholder", []) in nodes
    assert ("matmul", "MatMul", ["x", "y"]) in nodes and nodes[-1][1] == "Identity"
    f(tf.ones([2, 2]), tf.ones([2, 2]))  # after trace_export nothing is recorded any more
    assert not tf.summary.trace_export("again", step=4)


def test_summary_graph_of_a_concrete_function(tmp_path):
    @tf.function
    def g(a):
        return a * 2

    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert tf.summary.graph(g.get_concrete_function(tf.constant(1.0)).graph)
    writer.flush()
    [event] = [e for e in _events(tmp_path) if e.graph_def]
    assert [op for _, op, _ in _graph_nodes(event)] == ["Placeholder", "Mul", "Identity"]
    with pytest.raises(ValueError, match="takes a graph"):
        with writer.as_default():
            tf.summary.graph(42)
