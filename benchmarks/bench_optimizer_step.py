"""`opt.apply_gradients` over ~20 variables of 1e3-1e6 floats, per step, for built-in optimizers.

Each repeat is a fresh process (its own import of minitf) that builds the variables, takes
--warmup steps (slot creation), then times --steps steps and reports the mean wall time of a
step (or, with --clock cpu, the process's CPU time per step: robust against other processes'
load, and with MINITF_NUM_THREADS=1 the cost of the work itself). With several --roots
(checkouts of minitf, e.g. a git worktree of an earlier commit and this one), the repeats
alternate between them, so a change of the machine's load hits both alike; the report gives, per optimizer and root, the median and the min-max spread over the
repeats, and each root's median relative to the first root's.

    python benchmarks/bench_optimizer_step.py [--roots /tmp/wt-before .] [--repeats 5]
        [--optimizers adam sgd_momentum] [--variables 20] [--dtype float32]

Unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE in the command that runs this (users do not set them).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

OPTIMIZERS = {
    "adam": ("Adam", {"learning_rate": 1e-3}),
    "adam_amsgrad": ("Adam", {"learning_rate": 1e-3, "amsgrad": True}),
    "sgd_momentum": ("SGD", {"learning_rate": 1e-2, "momentum": 0.9}),
    "sgd": ("SGD", {"learning_rate": 1e-2}),
    "rmsprop": ("RMSprop", {"learning_rate": 1e-3}),
    "nadam": ("Nadam", {"learning_rate": 1e-3}),
    "adagrad": ("Adagrad", {"learning_rate": 1e-2}),
}


def sizes(count):
    """`count` variable sizes spread geometrically from 1e3 to 1e6 elements."""
    import numpy as np
    return [int(s) for s in np.geomspace(1e3, 1e6, count)]


def child(args):
    """Time one repeat in this process; print a JSON line with the mean seconds per step."""
    import numpy as np
    import minitf as tf
    cls, config = OPTIMIZERS[args.optimizer]
    rng = np.random.default_rng(0)
    variables = [tf.Variable(rng.normal(size=n).astype(args.dtype)) for n in sizes(args.variables)]
    grads = [tf.constant(rng.normal(size=n).astype(args.dtype)) for n in sizes(args.variables)]
    opt = getattr(tf.keras.optimizers, cls)(**config)
    pairs = list(zip(grads, variables))
    for _ in range(args.warmup):
        opt.apply_gradients(pairs)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    start = clock()
    for _ in range(args.steps):
        opt.apply_gradients(pairs)
    elapsed = (clock() - start) / args.steps
    print(json.dumps({"seconds": elapsed, "minitf": os.path.dirname(os.path.dirname(tf.__file__))}))


def run_child(root, args, optimizer):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(root))
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--optimizer", optimizer,
           "--variables", str(args.variables), "--steps", str(args.steps), "--warmup", str(args.warmup),
           "--dtype", args.dtype, "--clock", args.clock]
    out = subprocess.run(cmd, env=env, cwd=os.path.abspath(root), capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if os.path.realpath(result["minitf"]) != os.path.realpath(root):
        raise RuntimeError(f"the child imported minitf from {result['minitf']}, not {root}")
    return result["seconds"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--roots", nargs="+", default=[ROOT],
                        help="minitf checkouts to compare, timed in alternation (default: this one)")
    parser.add_argument("--optimizers", nargs="+", default=["adam", "sgd_momentum"], choices=sorted(OPTIMIZERS))
    parser.add_argument("--repeats", type=int, default=5, help="processes per optimizer and root (default 5)")
    parser.add_argument("--variables", type=int, default=20, help="variables of 1e3..1e6 elements (default 20)")
    parser.add_argument("--steps", type=int, default=20, help="timed steps per repeat (default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first (default 3)")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="wall time (default) or the process's CPU time per step")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--optimizer", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    total = sum(sizes(args.variables))
    print(f"{args.variables} {args.dtype} variables, {total:,} elements in all; {args.steps} steps per "
          f"repeat, {args.repeats} repeats alternating over {len(args.roots)} root(s); {args.clock} time")
    for optimizer in args.optimizers:
        times = {root: [] for root in args.roots}
        for _ in range(args.repeats):
            for root in args.roots:
                times[root].append(run_child(root, args, optimizer))
        first = statistics.median(times[args.roots[0]])
        for root in args.roots:
            t = times[root]
            med = statistics.median(t)
            print(f"{optimizer:14s} {root:28s} median {med * 1e3:8.3f} ms  spread {min(t) * 1e3:.3f}-"
                  f"{max(t) * 1e3:.3f} ms  x{med / first:.3f} of the first root")


if __name__ == "__main__":
    main()
