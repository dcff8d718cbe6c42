"""Worker: a peer that dies or hangs. Rank 0 runs an allreduce with a short timeout.

Usage: mpiexec -n N python failures.py OUT_DIR (die|hang) TIMEOUT_SECONDS
  die:  rank 1 leaves with os._exit(3) after the first barrier (a crash: no MPI_Finalize).
  hang: rank 1 sleeps far longer than the timeout (stuck, alive).
Rank 0 writes what it saw before re-raising, so the job's exit status is the user's. Other
survivors wait longer, so rank 0's timeout fires first and its abort at exit ends them (a
survivor that timed out first would abort rank 0 before it could write).
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

from minitf.distribute.mpi_collective import MpiCollective  # noqa: E402


def main(out_dir, mode, timeout):
    rank = MpiCollective().rank
    group = MpiCollective(timeout_seconds=float(timeout) + (0 if rank == 0 else 5))
    group.barrier()
    if group.rank == 1:
        if mode == "die":
            os._exit(3)
        time.sleep(60)
    start = time.monotonic()
    try:
        group.allreduce([np.ones(10)], "sum")
    except Exception as e:
        seconds = time.monotonic() - start
        later = None
        try:
            group.allreduce([np.ones(10)], "sum")
        except Exception as again:
            later = (type(again).__name__, str(again))
        common.write(out_dir, group.rank, {"error": (type(e).__name__, str(e)), "seconds": seconds,
                                           "later": later})
        raise
    common.write(out_dir, group.rank, {"error": None})


if __name__ == "__main__":
    main(*sys.argv[1:4])
