"""The call overhead of a small Keras model: `model(x, training=True)` on one small batch.

    python benchmarks/bench_layer_call.py                      # this checkout
    python benchmarks/bench_layer_call.py --before /tmp/before # vs another checkout, alternating

The workload is `Sequential([Dense(64, relu), Dropout(0.1), Dense(10)])` on a (32, 20) float32
batch, where the per-call work of `Layer.__call__` (argument conversion, the training value,
masks, scopes) is a large part of the time. With `--before DIR`, two worker processes (one
importing minitf from DIR, one from this checkout) time rounds alternately, so both sides see
the same machine load; each round is the median of many calls, and the report gives the median
and the spread (min to max) of the rounds.
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

WORKER = r"""
import sys, time, statistics
import numpy as np
import minitf as tf
L = tf.keras.layers
model = tf.keras.Sequential([L.Dense(64, activation="relu"), L.Dropout(0.1), L.Dense(10)])
x = tf.constant(np.random.RandomState(0).normal(size=(32, 20)).astype("float32"))
for _ in range(200):
    model(x, training=True)
print("ready", flush=True)
for line in sys.stdin:
    calls = int(line)
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        model(x, training=True)
        times.append(time.perf_counter() - start)
    print(statistics.median(times), flush=True)
"""


def _worker(path):
    env = dict(os.environ, PYTHONPATH=path)
    proc = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env, cwd="/")
    assert proc.stdout.readline().strip() == "ready"
    return proc


def _round(proc, calls):
    proc.stdin.write(f"{calls}\n")
    proc.stdin.flush()
    return float(proc.stdout.readline())


def _summary(rounds):
    rounds = sorted(rounds)
    return rounds[len(rounds) // 2], rounds[0], rounds[-1]


def main():
    """Time the workload here (and, with --before, in another checkout, alternating)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="another checkout to compare with (its root folder)")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    sides = {"after": _worker(ROOT)}
    if args.before:
        sides = {"before": _worker(args.before), **sides}
    rounds = {name: [] for name in sides}
    for _ in range(args.rounds):
        for name, proc in sides.items():
            rounds[name].append(_round(proc, args.calls))
            time.sleep(0.01)
    print(f"\n== Sequential([Dense(64, relu), Dropout(0.1), Dense(10)]) on (32, 20), "
          f"model(x, training=True): median of {args.calls} calls per round, {args.rounds} rounds")
    for name, values in rounds.items():
        median, low, high = _summary(values)
        print(f"  {name:<7} {median * 1e6:8.1f} us   (rounds {low * 1e6:.1f} .. {high * 1e6:.1f} us)")
    if args.before:
        ratios = sorted(b / a for b, a in zip(rounds["before"], rounds["after"]))
        print(f"  before/after per round: median {ratios[len(ratios) // 2]:.2f}x "
              f"(range {ratios[0]:.2f}x .. {ratios[-1]:.2f}x)")
    for proc in sides.values():
        proc.stdin.close()
        proc.wait()


if __name__ == "__main__":
    main()
