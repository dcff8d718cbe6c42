"""tf.summary: the event file's name and framing, what each summary writes, and TF's rules for
steps, default writers, recording conditions and errors. Files are read back with minitf's
record reader and protobuf classes (TensorBoard's own reader: test_tensorboard_reader.py)."""
import os
import re
import socket

import numpy as np
import pytest

pytest.importorskip("google.protobuf")  # writing summaries needs the optional dependency

import minitf as tf  # noqa: E402
from summary_files import event_files, events, png_pixels, rows  # noqa: E402


def test_file_name_and_first_event(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path / "run"))
    writer.close()
    (path,) = event_files(tmp_path / "run")
    name = os.path.basename(path)
    assert re.fullmatch(rf"events\.out\.tfevents\.\d{{10}}\.{re.escape(socket.gethostname())}\.{os.getpid()}"
                        r"\.\d+\.v2", name), name
    (first,) = events(path)
    assert first.file_version == "brain.Event:2"
    assert first.source_metadata.writer == "tensorflow.core.util.events_writer"
    assert first.wall_time == int(first.wall_time) > 0


def test_filename_suffix_and_writer_counter(tmp_path):
    a = tf.summary.create_file_writer(str(tmp_path), filename_suffix=".abc")
    b = tf.summary.create_file_writer(str(tmp_path))
    a.close()
    b.close()
    names = [os.path.basename(p) for p in event_files(tmp_path)]
    assert sorted(n.rsplit(".", 1)[-1] for n in names) == ["abc", "v2"]
    counters = sorted(int(n.split(".")[-2]) for n in names)
    assert counters[1] == counters[0] + 1


def test_values_dtypes_shapes_and_plugins(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=3):
        assert bool(tf.summary.scalar("loss", 0.5, description="the loss"))
        assert bool(tf.summary.scalar("count", 7, step=4))
        tf.summary.histogram("h", [1.0, 2.0, 3.0], buckets=4)
        tf.summary.text("note", [["a", "b"]])
        with tf.name_scope("outer"):
            tf.summary.scalar("inner", tf.constant(2.0, tf.float64))
    writer.close()
    got = rows(tmp_path)
    assert [(s, t, p) for s, t, p, _ in got] == [
        (3, "loss", "scalars"), (4, "count", "scalars"), (3, "h", "histograms"), (3, "note", "text"),
        (3, "outer/inner", "scalars")]
    assert got[0][3].dtype == np.float32 and got[0][3].shape == () and got[0][3] == 0.5
    assert got[1][3] == 7.0 and got[4][3] == 2.0
    np.testing.assert_array_equal(got[2][3], [[1, 1.5, 1], [1.5, 2, 0], [2, 2.5, 1], [2.5, 3, 1]])
    assert got[3][3].shape == (1, 2) and list(got[3][3].ravel()) == [b"a", b"b"]
    first = events(event_files(tmp_path)[0])[1]
    assert first.summary.value[0].metadata.summary_description == "the loss"


@pytest.mark.parametrize("data, buckets, expected", [
    (np.arange(10.0), 3, [[0, 3, 3], [3, 6, 3], [6, 9, 4]]),
    ([2.0, 2.0, 2.0], 3, [[2, 2, 0], [2, 2, 0], [2, 2, 3]]),
    (np.zeros([0]), 2, [[0, 0, 0], [0, 0, 0]]),
    ([1.0, 2.0], 0, np.zeros([0, 3])),
    ([[1, 5], [3, 3]], 2, [[1, 3, 1], [3, 5, 3]]),
])
def test_histogram_buckets(data, buckets, expected):
    from minitf.summary.ops import histogram_buckets
    np.testing.assert_array_equal(histogram_buckets(data, buckets), expected)


def test_histogram_default_thirty_buckets_and_counts_sum():
    from minitf.summary.ops import histogram_buckets
    values = np.random.RandomState(0).normal(size=1000)
    result = histogram_buckets(values)
    assert result.shape == (30, 3)
    assert result[:, 2].sum() == 1000 and result[0, 0] == values.min() and result[-1, 1] == values.max()


def test_images_are_png_with_width_height_and_max_outputs(tmp_path):
    floats = np.random.RandomState(0).rand(3, 4, 5, 3).astype("float32")
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        tf.summary.image("rgb", floats, max_outputs=2)
        tf.summary.image("grey", np.arange(6, dtype=np.uint8).reshape(1, 2, 3, 1))
    writer.close()
    (_, tag, plugin, rgb), (_, _, _, grey) = rows(tmp_path)
    assert (tag, plugin) == ("rgb", "images")
    assert list(rgb[:2]) == [b"5", b"4"] and len(rgb) == 4  # width, height, then 2 of 3 images
    expected = np.clip(floats * 255.5, 0, 255).astype(np.uint8)  # TF's convert_image_dtype
    for i in range(2):
        np.testing.assert_array_equal(png_pixels(rgb[2 + i]), expected[i])
    np.testing.assert_array_equal(png_pixels(grey[2]), np.arange(6, dtype=np.uint8).reshape(2, 3, 1))


def test_no_default_writer_writes_nothing_and_returns_false():
    result = tf.summary.scalar("x", 1.0)
    assert result.dtype == tf.bool and not bool(result)
    assert not bool(tf.summary.scalar("x", 1.0, step=1))
    assert not bool(tf.summary.should_record_summaries())


def test_missing_step_raises_only_when_recorded(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(ValueError, match="No step set"):
            tf.summary.scalar("x", 1.0)
        with pytest.raises(ValueError, match="No step set"):
            tf.summary.histogram("x", [1.0])
        with tf.summary.record_if(False):
            assert not bool(tf.summary.scalar("x", 1.0))
    writer.close()


def test_step_sources_and_restoring(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    step = tf.Variable(5, dtype=tf.int64)
    tf.summary.experimental.set_step(step)
    try:
        with writer.as_default():
            tf.summary.scalar("a", 1.0)  # the variable, read now
            step.assign(6)
            tf.summary.scalar("b", 1.0)
            with writer.as_default(step=9):
                assert tf.summary.experimental.get_step() == 9
                tf.summary.scalar("c", 1.0)
            assert tf.summary.experimental.get_step() is step
            tf.summary.scalar("d", 1.0, step=np.int64(2))
    finally:
        tf.summary.experimental.set_step(None)
    writer.close()
    assert [(s, t) for s, t, _, _ in rows(tmp_path)] == [(5, "a"), (6, "b"), (9, "c"), (2, "d")]


def test_record_if_forms(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=1):
        assert bool(tf.summary.should_record_summaries())
        with tf.summary.record_if(False):
            assert not bool(tf.summary.should_record_summaries())
            tf.summary.scalar("no1", 1.0)
        with tf.summary.record_if(lambda: False):
            tf.summary.scalar("no2", 1.0)
        with tf.summary.record_if(tf.constant(False)):
            tf.summary.scalar("no3", 1.0)
        with tf.summary.record_if(lambda: True):
            tf.summary.scalar("yes", 1.0)
    writer.close()
    assert [t for _, t, _, _ in rows(tmp_path)] == ["yes"]


def test_errors_match_tf(tmp_path):
    with pytest.raises(ValueError, match="`logdir` cannot be None"):
        tf.summary.create_file_writer(None)
    (tmp_path / "file").write_text("x")
    with pytest.raises(tf.errors.FailedPreconditionError, match="not a directory"):
        tf.summary.create_file_writer(str(tmp_path / "file"))
    writer = tf.summary.create_file_writer(str(tmp_path / "run"))
    with writer.as_default(step=1):
        with pytest.raises(ValueError, match=r"Expected scalar shape, saw shape: \(2,\)"):
            tf.summary.scalar("x", [1.0, 2.0])
        with pytest.raises(TypeError, match="tensor must be of type tf.string; got tf.int32"):
            tf.summary.text("x", 3)
        with pytest.raises(ValueError, match="must have rank 4"):
            tf.summary.image("x", np.zeros([2, 2, 2]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="1 to 4 channels"):
            tf.summary.image("x", np.zeros([1, 2, 2, 5]))
        with pytest.raises(tf.errors.UnimplementedError):
            tf.summary.scalar("x", "text")
        with pytest.raises(TypeError, match="int64"):
            tf.summary.scalar("x", 1.0, step=1.5)
    writer.close()
    writer.close()  # a second close does nothing
    writer.flush()
    with pytest.raises(RuntimeError, match="already closed"):
        writer.as_default()
    with pytest.raises(RuntimeError, match="already closed"):
        writer.set_as_default()


def test_queue_is_written_when_full_on_flush_and_on_exit_of_as_default(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path), max_queue=2, flush_millis=10 ** 9)
    path = event_files(tmp_path)[0]
    tf.summary.experimental.set_step(1)
    try:
        context = writer.as_default()
        context.__enter__()
        tf.summary.scalar("a", 1.0)
        tf.summary.scalar("b", 1.0)
        assert len(events(path)) == 1  # still queued (TF writes once the queue exceeds max_queue)
        tf.summary.scalar("c", 1.0)
        assert len(events(path)) == 4
        tf.summary.scalar("d", 1.0)
        assert len(events(path)) == 4
        tf.summary.flush()
        assert len(events(path)) == 5
        tf.summary.scalar("e", 1.0)
        context.__exit__(None, None, None)  # leaving as_default flushes
        assert len(events(path)) == 6
    finally:
        tf.summary.experimental.set_step(None)
    writer.close()


def test_flush_millis_zero_writes_each_event(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path), max_queue=100, flush_millis=0)
    path = event_files(tmp_path)[0]
    with writer.as_default(step=0):
        tf.summary.scalar("a", 1.0)
        assert len(events(path)) == 2
    writer.close()


def test_noop_writer_and_set_as_default(tmp_path):
    noop = tf.summary.create_noop_writer()
    with noop.as_default(step=1):
        assert not bool(tf.summary.scalar("x", 1.0))
        assert not bool(tf.summary.should_record_summaries())
    noop.flush()
    noop.close()
    assert isinstance(noop, tf.summary.SummaryWriter)
    writer = tf.summary.create_file_writer(str(tmp_path))
    writer.set_as_default(step=4)
    try:
        assert bool(tf.summary.scalar("x", 1.0))
    finally:  # TF has no public way back from set_as_default; reset the thread's state
        from minitf.summary import writer as writer_module
        writer_module._state.writer = writer_module._state.step = None
    writer.close()
    assert [(s, t) for s, t, _, _ in rows(tmp_path)] == [(4, "x")]


def test_write_and_write_raw_pb(tmp_path):
    from minitf.summary._proto import messages
    metadata = messages()["SummaryMetadata"]()
    metadata.plugin_data.plugin_name = "custom"
    raw = messages()["Summary"]()
    raw.value.add(tag="legacy", simple_value=2.5)
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=2):
        assert bool(tf.summary.write("gen", lambda: tf.constant([1, 2], tf.int64), metadata=metadata))
        assert bool(tf.summary.write("plain", tf.constant(3)))
        assert bool(tf.summary.experimental.write_raw_pb(raw.SerializeToString()))
        with pytest.raises(tf.errors.InvalidArgumentError, match="not a serialized Summary"):
            tf.summary.experimental.write_raw_pb(b"\xff\xff")
    writer.close()
    file_events = events(event_files(tmp_path)[0])[1:]
    gen, plain, legacy = (e.summary.value[0] for e in file_events)
    assert gen.metadata.plugin_data.plugin_name == "custom"
    assert not plain.HasField("metadata")
    assert legacy.tag == "legacy" and legacy.simple_value == 2.5 and file_events[2].step == 2


def test_summary_scope_tags():
    with tf.name_scope("a"):
        with tf.summary.experimental.summary_scope("b c", "default") as (tag, scope):
            assert tag == "a/b c"
            assert scope.startswith("a/bc")
