"""tf.profiler.experimental: TF 2.21's start/stop state rules and errors (minitf writes no trace)."""
import os

import pytest

import minitf as tf


def test_start_stop_and_their_errors(tmp_path):
    with pytest.raises(tf.errors.UnavailableError, match="No profiler is running"):
        tf.profiler.experimental.stop()
    tf.profiler.experimental.start(str(tmp_path))
    try:
        with pytest.raises(tf.errors.AlreadyExistsError, match="Another profiler is running"):
            tf.profiler.experimental.start(str(tmp_path))
        with tf.profiler.experimental.Trace("train", step_num=1, _r=1) as region:
            region.set_metadata(batch=3)
            assert (tf.constant(1) + 1).numpy() == 2
        assert region.metadata == {"step_num": 1, "_r": 1, "batch": 3}
    finally:
        tf.profiler.experimental.stop()
    assert os.listdir(tmp_path) == []  # documented: nothing is written
    with tf.profiler.experimental.Profile(str(tmp_path)):
        with pytest.raises(tf.errors.AlreadyExistsError):
            tf.profiler.experimental.start(str(tmp_path))
    tf.profiler.experimental.start(str(tmp_path), options=tf.profiler.experimental.ProfilerOptions(host_tracer_level=3))
    tf.profiler.experimental.stop(save=False)


def test_options_defaults_match_tf():
    assert tuple(tf.profiler.experimental.ProfilerOptions()) == (2, 0, 1, None)
    tf_ref = pytest.importorskip("tensorflow")
    assert tuple(tf_ref.profiler.experimental.ProfilerOptions()) == tuple(tf.profiler.experimental.ProfilerOptions())
    assert tf_ref.profiler.experimental.ProfilerOptions._fields == tf.profiler.experimental.ProfilerOptions._fields


def test_the_module_guides_cell(tmp_path):
    """guide/intro_to_modules: a profile bracketing a traced call, exported with trace_export."""
    writer = tf.summary.create_file_writer(str(tmp_path / "func"))
    f = tf.function(lambda x: x * 2.0)
    tf.summary.trace_on(graph=True)
    tf.profiler.experimental.start(str(tmp_path / "func"))
    assert f(tf.constant([[2.0]])).numpy().tolist() == [[4.0]]
    with writer.as_default():
        tf.summary.trace_export(name="my_func_trace", step=0, profiler_outdir=str(tmp_path / "func"))
    tf.profiler.experimental.stop()
