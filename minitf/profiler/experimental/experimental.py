"""tf.profiler.experimental: start, stop, Profile, Trace and ProfilerOptions.

minitf does not profile: `start(logdir)` ... `stop()` brackets nothing and writes no trace file
(TF writes `logdir/plugins/profile/<run>/<host>.xplane.pb`). What is kept is TF's state machine,
so code that profiles runs unchanged and misuse fails as in TF: starting while a profile runs is
an AlreadyExistsError, stopping when none runs an UnavailableError. `Trace` annotations cost
nothing.
"""
import collections
import threading

from minitf.errors import errors
from minitf.api_export import export

__all__ = ["start", "stop", "Profile", "Trace", "ProfilerOptions"]

_lock = threading.Lock()
_running = [None]  # the logdir of the profile in progress, or None


@export("profiler.experimental.ProfilerOptions")
class ProfilerOptions(collections.namedtuple(
        "ProfilerOptions", ["host_tracer_level", "python_tracer_level", "device_tracer_level", "delay_ms"])):
    """What a profile would record (TF's defaults: host level 2, Python 0, device 1, no delay);
    accepted and kept, since minitf records nothing."""

    def __new__(cls, host_tracer_level=2, python_tracer_level=0, device_tracer_level=1, delay_ms=None):
        return super().__new__(cls, host_tracer_level, python_tracer_level, device_tracer_level, delay_ms)


@export("profiler.experimental.start")
def start(logdir, options=None):
    """Begin a profile to be saved under `logdir` (minitf saves nothing).

    Raises:
      AlreadyExistsError: a profile is already running.
    """
    with _lock:
        if _running[0] is not None:
            raise errors.AlreadyExistsError(None, None, "Another profiler is running.")
        _running[0] = str(logdir)


@export("profiler.experimental.stop")
def stop(save=True):
    """End the running profile (TF then writes it to its logdir when `save`; minitf writes nothing).

    Raises:
      UnavailableError: no profile is running.
    """
    with _lock:
        if _running[0] is None:
            raise errors.UnavailableError(None, None, "Cannot export profiling results. No profiler is running.")
        _running[0] = None


@export("profiler.experimental.Profile")
class Profile:
    """A context manager: `start(logdir, options)` on entry, `stop()` on exit."""

    def __init__(self, logdir, options=None):
        self._logdir = logdir
        self._options = options

    def __enter__(self):
        start(self._logdir, self._options)

    def __exit__(self, typ, value, tb):
        stop()


@export("profiler.experimental.Trace")
class Trace:
    """A named region of a profile (TF's TraceMe), e.g. `Trace('train', step_num=step, _r=1)`;
    the keyword arguments are its metadata. It records nothing in minitf."""

    def __init__(self, name, **kwargs):
        self.name = name
        self.metadata = kwargs

    def __enter__(self):
        return self

    def __exit__(self, typ, value, tb):
        return False

    def set_metadata(self, **kwargs):
        """Add metadata to the region (kept, not recorded)."""
        self.metadata.update(kwargs)
