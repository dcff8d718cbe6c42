"""Summary writers and the per-thread summary state: the default writer, the default step and
the recording condition (tf.summary.create_file_writer, SummaryWriter.as_default,
tf.summary.record_if, tf.summary.experimental.set_step, ...).

As in TF, the state belongs to the current thread, `as_default(step)` restores the previous
writer and step on exit (and flushes the writer), and a closed writer refuses to become the
default but may be flushed or closed again without effect.
"""
import contextlib
import os
import threading

from minitf.convert import convert_to_tensor
from minitf.summary.event_file import EventFileWriter
from minitf.api_export import export

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "flush", "record_if",
           "should_record_summaries", "get_step", "set_step", "current_writer", "recording",
           "bool_tensor", "thread_state", "set_thread_state"]


class _State(threading.local):
    def __init__(self):
        self.writer = None
        self.step = None
        self.is_recording = None


_state = _State()


def bool_tensor(value):
    """A 0-d bool tensor, what TF's summary functions return."""
    return convert_to_tensor(bool(value))


def current_writer():
    """The default writer of this thread, or None."""
    return _state.writer


def thread_state():
    """This thread's (default writer, step, recording condition), for a thread that continues
    the caller's work (a tf.distribute replica)."""
    return (_state.writer, _state.step, _state.is_recording)


def set_thread_state(state):
    """Make `state` (from `thread_state`) this thread's summary state."""
    _state.writer, _state.step, _state.is_recording = state


class _SummaryContext:
    """The context manager of `as_default`; a class so `set_as_default` can enter it for good."""

    def __init__(self, writer, step):
        self._writer, self._step = writer, step
        self._old_writer = self._old_step = None

    def __enter__(self):
        self._old_writer = _state.writer
        _state.writer = self._writer
        if self._step is not None:
            self._old_step = _state.step
            _state.step = self._step
        return self._writer

    def __exit__(self, *exc):
        _state.writer.flush()
        _state.writer = self._old_writer
        if self._step is not None:
            _state.step = self._old_step
        return False


@export("summary.SummaryWriter")
class SummaryWriter:
    """A destination for summaries (tf.summary.SummaryWriter). Make one with
    `tf.summary.create_file_writer(logdir)`; `with writer.as_default(step):` sends the
    tf.summary.scalar/histogram/image/text calls inside to it."""

    def set_as_default(self, step=None):
        """Make this the default writer of the current thread (and `step` the default step,
        unless None) until another writer is set."""
        self.as_default(step).__enter__()

    def as_default(self, step=None):
        """A context manager making this the default writer, and `step` (a number or an int64
        variable, read at each write) the default step, for its block; both are restored and
        the writer flushed on exit."""
        return _SummaryContext(self, step)

    def init(self):
        """Kept for TF's interface: the writer is ready when created."""
        raise NotImplementedError()

    def flush(self):
        """Write out the summaries still queued."""
        raise NotImplementedError()

    def close(self):
        """Flush and close the writer."""
        raise NotImplementedError()


class _FileSummaryWriter(SummaryWriter):
    """A SummaryWriter appending to one new event file in its log directory."""

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        self._logdir = logdir
        self._events = EventFileWriter(logdir, max_queue=max_queue, flush_millis=flush_millis,
                                       filename_suffix=filename_suffix)
        self._closed = False

    def _check_open(self):
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def set_as_default(self, step=None):
        """See `SummaryWriter.set_as_default`.

        Raises:
          RuntimeError: the writer is closed.
        """
        self._check_open()
        super().set_as_default(step)

    def as_default(self, step=None):
        """See `SummaryWriter.as_default`.

        Raises:
          RuntimeError: the writer is closed.
        """
        self._check_open()
        return super().as_default(step)

    def init(self):
        """Nothing to do: the event file exists from creation.

        Raises:
          RuntimeError: the writer is closed.
        """
        self._check_open()

    def flush(self):
        """Write out the queued events (nothing once closed)."""
        if not self._closed:
            self._events.flush()

    def close(self):
        """Flush and close the event file (again: nothing)."""
        if not self._closed:
            self._events.close()
            self._closed = True

    def _write_value(self, value, step):
        if not self._closed:
            self._events.add_summary_value(value, step)

    def _write_graph(self, graph_def_bytes, step):
        if not self._closed:
            self._events.add_graph(graph_def_bytes, step)


class _NoopSummaryWriter(SummaryWriter):
    """A writer that writes nothing; `as_default` leaves the current writer in place."""

    def set_as_default(self, step=None):
        """Does nothing."""

    @contextlib.contextmanager
    def as_default(self, step=None):
        """A context manager that changes nothing."""
        yield

    def init(self):
        """Does nothing."""

    def flush(self):
        """Does nothing."""

    def close(self):
        """Does nothing."""


@export("summary.create_file_writer")
def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None,
                       experimental_trackable=False, experimental_mesh=None):
    """A SummaryWriter writing a new event file in `logdir` (created if needed).

    Args:
      logdir: the directory of the event file (TensorBoard's --logdir or a run below it).
      max_queue: events kept in memory before they are written (default 10).
      flush_millis: the longest time between two writes of the queue, checked as events
        arrive (default 120000).
      filename_suffix: ends the file's name (default '.v2').
      name, experimental_trackable, experimental_mesh: accepted for TF's signature.

    Raises:
      ValueError: `logdir` is None.
      NotFoundError, PermissionDeniedError, FailedPreconditionError: the directory cannot be
        made.
      ImportError: protobuf is not installed (pip install 'minitf[tensorboard]').
    """
    if logdir is None:
        raise ValueError("Argument `logdir` cannot be None")
    logdir = os.fspath(getattr(logdir, "numpy", lambda: logdir)())
    if isinstance(logdir, bytes):
        logdir = logdir.decode()
    return _FileSummaryWriter(logdir or ".", 10 if max_queue is None else max_queue,
                              120000 if flush_millis is None else flush_millis,
                              ".v2" if filename_suffix is None else str(filename_suffix))


@export("summary.create_noop_writer")
def create_noop_writer():
    """A SummaryWriter that writes nothing (for code that always wants a writer)."""
    return _NoopSummaryWriter()


@export("summary.flush")
def flush(writer=None, name=None):
    """Flush `writer`, or the default writer when None (nothing without one)."""
    writer = _state.writer if writer is None else writer
    if writer is not None:
        writer.flush()


@export("summary.record_if")
@contextlib.contextmanager
def record_if(condition):
    """A context manager deciding whether summaries are written in its block: `condition` is
    a bool, a bool tensor, or a function called at each summary (e.g. `lambda: step % 10 == 0`)."""
    old = _state.is_recording
    try:
        _state.is_recording = condition
        yield
    finally:
        _state.is_recording = old


def recording():
    """Whether a summary written now is recorded (a Python bool)."""
    if _state.writer is None:
        return False
    condition = _state.is_recording
    if callable(condition):
        condition = condition()
    if condition is None:
        return True
    return bool(getattr(condition, "numpy", lambda: condition)())


@export("summary.should_record_summaries")
def should_record_summaries():
    """A bool tensor: True when there is a default writer and the `record_if` condition holds."""
    return bool_tensor(recording())


@export("summary.experimental.get_step")
def get_step():
    """The default step of this thread (None when unset)."""
    return _state.step


@export("summary.experimental.set_step")
def set_step(step):
    """Set the default step of this thread: a number, an int64 tensor or variable (read at
    each write), or None to unset it."""
    _state.step = step
