"""Training steps with other work on the machine: minitf and TF eager, idle and under load.

Runs bench_models.py's MLP and CNN training steps (Keras model, sparse softmax cross-entropy,
Adam) first on an idle machine, then while `--busy` processes spin (`while True: pass`) on the
machine's cores, and reports ms/step and the slowdown. Each measurement runs in a fresh process
(TF's and OpenBLAS's worker threads never outlive their contender), contenders alternate, and
every configuration is repeated `--rounds` times: the table gives the median and the spread.

    python benchmarks/bench_threads_under_load.py                  # minitf at its defaults (+ TF)
    python benchmarks/bench_threads_under_load.py --threads 0 1 2  # minitf's default, 1 and 2 threads
    python benchmarks/bench_threads_under_load.py --busy 2         # two competing processes

TF is measured when it imports (an interpreter with TensorFlow, or `--tf-python PATH`).
The per-step time is the mean over `--seconds` of steps: stalls count, as a user sees them.
"""
import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _spin():
    while True:
        pass


def measure(lib_name, workload, seconds, threads):
    """ms/step of one workload in this process (called in the child)."""
    import numpy as np
    sys.path.insert(0, HERE)
    import bench_models
    if lib_name == "minitf":
        import minitf as lib
        if threads is not None:
            lib.config.threading.set_intra_op_parallelism_threads(threads)
    else:
        import tensorflow as lib
    rng = np.random.default_rng(0)
    if workload == "mlp":
        x = rng.normal(size=(128, 784)).astype(np.float32)
        y = rng.integers(0, 10, 128).astype(np.int32)
        step = bench_models.mlp_keras(lib, x, y)
    else:
        x = rng.uniform(size=(64, 28, 28, 1)).astype(np.float32)
        y = rng.integers(0, 10, 64).astype(np.int32)
        step = bench_models.cnn_keras(lib, x, y)
    for _ in range(3):  # warm up: slots, caches, TF's kernels
        step()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        steps += 1
    return (time.perf_counter() - start) / steps * 1e3


def _child(python, lib_name, workload, seconds, threads):
    cmd = [python, os.path.abspath(__file__), "--child", lib_name, workload, str(seconds),
           "none" if threads is None else str(threads)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{lib_name} {workload} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _has_tf(python):
    return subprocess.run([python, "-c", "import tensorflow"], capture_output=True, check=False).returncode == 0


def main():
    """Alternate contenders idle and under load, then print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=1, help="competing busy processes (default 1)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0, help="timed seconds per measurement")
    parser.add_argument("--threads", type=int, nargs="*", default=[None],
                        help="minitf intra-op thread counts to compare (0: minitf's default)")
    parser.add_argument("--tf-python", default=sys.executable, help="interpreter with TensorFlow")
    parser.add_argument("--workloads", nargs="*", default=["mlp", "cnn"])
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        lib_name, workload, seconds, threads = args.child
        print(json.dumps(measure(lib_name, workload, float(seconds), None if threads == "none" else int(threads))))
        return
    contenders = [("minitf", sys.executable, t) for t in args.threads]
    if _has_tf(args.tf_python):
        contenders.append(("tensorflow", args.tf_python, None))
    else:
        print("tensorflow: not installed, skipped")
    results = {}  # (contender label, workload, load) -> [ms]
    for _ in range(args.rounds):
        for load in ("idle", "busy"):
            spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy if load == "busy"
                                                                                          else 0)]
            for p in spinners:
                p.start()
            try:
                for workload in args.workloads:
                    for lib_name, python, threads in contenders:
                        label = lib_name if lib_name != "minitf" or not threads else f"minitf threads={threads}"
                        ms = _child(python, lib_name, workload, args.seconds, threads)
                        results.setdefault((label, workload, load), []).append(ms)
            finally:
                for p in spinners:
                    p.terminate()
                    p.join()
    print(f"\n== ms/step, idle vs {args.busy} busy process(es) on {os.cpu_count()} cores; "
          f"median [min-max] of {args.rounds} rounds")
    labels = list(dict.fromkeys(label for label, _, _ in results))
    for workload in args.workloads:
        for label in labels:
            idle, busy = results[(label, workload, "idle")], results[(label, workload, "busy")]
            slow = [b / i for b, i in zip(busy, idle)]
            print(f"  {workload:<4} {label:<20} idle {statistics.median(idle):7.2f} [{min(idle):.2f}-{max(idle):.2f}]"
                  f"  busy {statistics.median(busy):7.2f} [{min(busy):.2f}-{max(busy):.2f}]"
                  f"  slowdown {statistics.median(slow):5.2f}x [{min(slow):.2f}-{max(slow):.2f}]")


if __name__ == "__main__":
    main()
