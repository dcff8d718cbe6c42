"""Peak memory of one training step, traced (compiled plan) against eager.

    python benchmarks/bench_step_memory.py [--workloads dcgan mlp deepdream]

For each workload of bench_traced_steps.py, in one process per contender: the step is warmed up
(the plan compiled), then `tracemalloc` (numpy reports its array buffers to it) measures the
bytes held before the step, the peak during it, and what the step adds at its peak. The plan's
kept buffers (minitf.graph.compiler.buffers) are held between steps, so they count in "held
before" and the peak alike.
"""
import argparse
import json
import os
import subprocess
import sys
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def _child(workload, traced):
    import minitf as tf
    from bench_traced_steps import WORKLOADS
    tracemalloc.start()  # from the start: what the warm-up keeps counts as held
    step = WORKLOADS[workload][0](tf, traced)
    for _ in range(5):
        step()
    tracemalloc.reset_peak()
    before, _ = tracemalloc.get_traced_memory()
    step()
    _, peak = tracemalloc.get_traced_memory()
    print(json.dumps({"before": before, "peak": peak}))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workloads", nargs="*", default=["dcgan", "mlp", "deepdream"])
    p.add_argument("--child", nargs=2)
    args = p.parse_args()
    if args.child:
        _child(args.child[0], args.child[1] == "traced")
        return
    env = dict(os.environ, OMP_NUM_THREADS="1", MINITF_NUM_THREADS="1")
    for workload in args.workloads:
        for mode in ("eager", "traced"):
            out = subprocess.run([sys.executable, __file__, "--child", workload, mode], env=env,
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{workload:10s} {mode:7s} held before {r['before'] / 2**20:8.1f} MiB   "
                  f"peak {r['peak'] / 2**20:8.1f} MiB   step adds {(r['peak'] - r['before']) / 2**20:8.1f} MiB")


if __name__ == "__main__":
    main()
