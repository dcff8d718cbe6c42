"""Multi-process test plumbing: the `run_mpi` fixture launches `mpiexec -n N python <worker>` and
hands back what each rank wrote.

Worker scripts live in `_mpi_workers/`; each rank pickles a dict of results to
`<out>/rank<r>.pkl` (see `_mpi_workers/common.py`). Runs are bounded by a timeout (the whole
process group is killed when it passes, so a hang fails the test instead of the suite).
Without mpi4py or mpiexec the tests skip, unless MINITF_REQUIRE_MPI=1 (CI) makes that a failure.
"""
import importlib.util
import os
import pathlib
import pickle
import shutil
import signal
import subprocess
import sys
import time

import pytest

WORKERS = pathlib.Path(__file__).resolve().parent / "_mpi_workers"


def find_mpiexec():
    """The mpiexec next to this Python (the mpich wheel's, matching mpi4py's library), else PATH's."""
    beside = pathlib.Path(sys.executable).parent / "mpiexec"
    if beside.exists():
        return str(beside)
    return shutil.which("mpiexec")


def mpi_missing():
    """Why multi-process tests cannot run here, or None when they can."""
    if importlib.util.find_spec("mpi4py") is None:
        return 'mpi4py is not installed (pip install "minitf[mpi]")'
    if find_mpiexec() is None:
        return "no mpiexec found beside the Python executable or on PATH"
    return None


def require_mpi():
    """Skip the calling test without MPI, or fail when MINITF_REQUIRE_MPI=1 asks for MPI."""
    reason = mpi_missing()
    if reason is None:
        return
    if os.environ.get("MINITF_REQUIRE_MPI") == "1":
        pytest.fail(f"MINITF_REQUIRE_MPI=1 but {reason}")
    pytest.skip(reason)


class MpiRun:
    """The outcome of one mpiexec launch: exit status, output, seconds, each rank's results."""

    def __init__(self, returncode, stdout, stderr, seconds, results, timed_out):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.seconds = seconds
        self.results = results  # rank -> dict, or None for a rank that wrote nothing
        self.timed_out = timed_out

    @property
    def output(self):
        """stdout and stderr together (for assertions on what the user sees)."""
        return self.stdout + self.stderr

    def __repr__(self):
        return (f"MpiRun(returncode={self.returncode}, seconds={self.seconds:.1f}, timed_out={self.timed_out})\n"
                f"--- stdout\n{self.stdout[-3000:]}\n--- stderr\n{self.stderr[-3000:]}")


@pytest.fixture
def run_mpi(tmp_path):
    """run_mpi(worker, n, *args, timeout=60, mpiexec_args=(), env=None) -> MpiRun."""
    require_mpi()
    mpiexec = find_mpiexec()

    def run(worker, n, *args, timeout=60, mpiexec_args=(), env=None):
        out = tmp_path / f"run{len(list(tmp_path.iterdir()))}"
        out.mkdir()
        full_env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                        MINITF_DEVICE=os.environ.get("MINITF_WORKER_DEVICE", "cpu"), PYTHONUNBUFFERED="1")
        full_env.pop("TF_CONFIG", None)
        full_env.update(env or {})
        command = [mpiexec, *mpiexec_args, "-n", str(n), sys.executable, str(WORKERS / worker), str(out),
                   *map(str, args)]
        start = time.monotonic()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env=full_env, start_new_session=True)
        timed_out = False
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(process.pid, signal.SIGKILL)  # mpiexec and the ranks it started
            stdout, stderr = process.communicate()
        seconds = time.monotonic() - start
        results = {}
        for rank in range(n):
            path = out / f"rank{rank}.pkl"
            results[rank] = pickle.loads(path.read_bytes()) if path.exists() else None
        return MpiRun(process.returncode, stdout, stderr, seconds, results, timed_out)

    run.mpiexec = mpiexec
    return run
