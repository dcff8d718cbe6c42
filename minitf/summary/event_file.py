"""Event files: the TFRecord files of `tensorflow.Event` records that TensorBoard reads.

The file name is TF's, `events.out.tfevents.<seconds>.<host>.<pid>.<n><suffix>` (suffix '.v2'
unless given, n counting the writers of this process), and its first record is the
'brain.Event:2' version event, written and flushed when the file is created. The framing
(length, masked CRC-32C checksums) is minitf's TFRecordWriter, the one tf.io uses.

Like TF's C++ summary writer, events wait in a queue that is written out when it holds more
than `max_queue` events or when more than `flush_millis` have passed since the last flush, both
checked as events arrive, and on `flush()` / `close()`. No thread is involved, so a process that
exits without closing its writers still gets their queues written by an exit hook.
"""
import atexit
import itertools
import os
import socket
import time
import weakref

from minitf.errors import errors
from minitf.ops.tfrecord_io import TFRecordWriter
from minitf.summary._proto import messages

__all__ = ["EventFileWriter"]

_FILE_COUNTER = itertools.count()
_OPEN_WRITERS = weakref.WeakSet()


def _make_logdir(logdir):
    try:
        os.makedirs(logdir, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise errors.FailedPreconditionError(
            None, None, f"{logdir} is not a directory; give tf.summary.create_file_writer a "
                        f"directory path for the event files") from None
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{logdir}; No such file or directory") from None
    except PermissionError:
        raise errors.PermissionDeniedError(None, None, f"{logdir}; Permission denied") from None


class EventFileWriter:
    """Appends serialized-on-demand `Event` messages to one new event file under `logdir`.

    Raises:
      NotFoundError, PermissionDeniedError, FailedPreconditionError: `logdir` cannot be
        created, or is a file.
    """

    def __init__(self, logdir, max_queue=10, flush_millis=120000, filename_suffix=".v2"):
        self._event_class = messages()["Event"]  # fails early (ImportError) without protobuf
        logdir = os.fspath(logdir)
        _make_logdir(logdir)
        now = time.time()
        name = (f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}.{os.getpid()}."
                f"{next(_FILE_COUNTER)}{filename_suffix}")
        self.path = os.path.join(logdir, name)
        try:
            self._file = TFRecordWriter(self.path)
        except errors.NotFoundError:  # the directory vanished between makedirs and open
            raise errors.NotFoundError(None, None, f"{logdir}; No such file or directory") from None
        self._max_queue = max(int(max_queue), 0)
        self._flush_seconds = max(float(flush_millis), 0.0) / 1000.0
        self._queue = []
        self._closed = False
        first = self._event_class(wall_time=float(int(now)), file_version="brain.Event:2")
        first.source_metadata.writer = "tensorflow.core.util.events_writer"
        self._file.write(first.SerializeToString())
        self._file.flush()
        self._last_flush = time.monotonic()
        _OPEN_WRITERS.add(self)

    @property
    def closed(self):
        """True once `close()` ran."""
        return self._closed

    def add_summary_value(self, value, step):
        """Queue an Event at `step` holding one `Summary.Value` (a message)."""
        event = self._event_class(wall_time=time.time(), step=int(step))
        event.summary.value.append(value)
        self.add_event(event)

    def add_graph(self, graph_def_bytes, step):
        """Queue an Event holding a serialized GraphDef (TensorBoard's Graphs dashboard)."""
        self.add_event(self._event_class(wall_time=time.time(), step=int(step),
                                         graph_def=graph_def_bytes))

    def add_event(self, event):
        """Queue an Event message; writes the queue out when it is full or due."""
        if self._closed:
            return
        self._queue.append(event)
        if len(self._queue) > self._max_queue or \
                time.monotonic() - self._last_flush > self._flush_seconds:
            self.flush()

    def flush(self):
        """Write the queued events and push them to the file."""
        if self._closed:
            return
        for event in self._queue:
            self._file.write(event.SerializeToString())
        self._queue = []
        self._file.flush()
        self._last_flush = time.monotonic()

    def close(self):
        """Flush and close the file (later calls do nothing)."""
        if self._closed:
            return
        self.flush()
        self._file.close()
        self._closed = True
        _OPEN_WRITERS.discard(self)

    def __del__(self):
        if not getattr(self, "_closed", True):
            try:
                self.close()
            except Exception:  # noqa: BLE001 - a finalizer must not raise during interpreter teardown
                pass


@atexit.register
def _close_open_writers():
    """Write what unclosed writers still queue, as TF flushes its writers at exit."""
    for writer in list(_OPEN_WRITERS):
        try:
            writer.close()
        except Exception:  # noqa: BLE001 - exiting anyway; one broken file must not stop the others
            pass
