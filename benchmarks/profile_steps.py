"""Where the time of bench_traced_steps.py's training steps goes: shares per kind of work, eager
against traced (the compiled plan), one thread.

    python benchmarks/profile_steps.py [--workloads linear mlp dcgan deepdream] [--steps N]

Traced: every statement of the plan's generated source is timed (the plan is re-made with a
clock read after each statement) and its time is given to the kind of the kernel it calls.
Eager: the array kernels of `minitf.kernels.numpy` (convolutions, pooling, GEMMs behind the
kernel seam, ...) are timed by wrapping them; the rest of the step is Python (ops, the tape,
layers, dispatch) and the numpy calls the ops make themselves, reported as one share. Timing
adds a little to every statement and call, so the shares matter here, not the totals (those
come from bench_traced_steps.py).

Unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE in the command that runs this (users do not set them).
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# kind of work -> patterns of the called kernel's name (first match wins)
_KINDS = [
    ("convolution", ("conv", "depthwise", "im2col", "col2im")),
    ("pooling", ("pool",)),
    ("GEMM", ("matmul", "dot", "tensordot", "einsum")),
    ("optimizer update", ("ApplyGradients", "update_variables", "adam", "sgd")),
    ("random, dropout", ("Normal", "Uniform", "dropout", "philox", "random", "SelectV2")),
    ("fused elementwise", ("fused",)),
    ("reductions", ("reduce", "_mean", "sum", "softmax", "logsumexp")),
    ("elementwise", ("add", "subtract", "multiply", "divide", "maximum", "minimum", "greater", "less",
                     "equal", "negative", "relu", "where", "select", "exp", "log", "sqrt", "square",
                     "tanh", "sigmoid", "invert", "abs", "sign", "clip", "power")),
]


def _kind(name):
    lowered = name.lower()
    for kind, patterns in _KINDS:
        if any(p.lower() in lowered for p in patterns):
            return kind
    return "other"


def _traced_shares(tf, make, steps):
    step = make(tf, True)
    for _ in range(5):
        step()
    (entry,) = [e for e in step.get_concrete_function()._plans.entries.values() if e.plan is not None]
    namespace = entry.plan.__globals__
    lines = entry.source.split("\n")
    timed, statements = [lines[0], "    _t = _clk()"], []
    for line in lines[1:]:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if not stripped or indent != 4 or stripped.startswith(("del ", "return")) or stripped.endswith(":"):
            timed.append(line)
            continue
        statements.append(stripped)
        timed.append(line)
        timed.append(f"    _n = _clk(); _acc[{len(statements) - 1}] += _n - _t; _t = _clk()")
    names = dict(namespace, _clk=time.perf_counter_ns, _acc=[0] * len(statements))
    exec(compile("\n".join(timed), "<timed plan>", "exec"), names)  # noqa: S102 (the plan's own source)
    entry.plan = names["plan"]
    operations = entry.program.operations
    hosts = {f"_h{i}": operations[s[1]] for i, s in enumerate(entry.program.steps) if s[0] == "host"}
    for _ in range(2):
        step()
    names["_acc"][:] = [0] * len(statements)
    for _ in range(steps):
        step()
    shares = collections.Counter()
    for statement, ns in zip(statements, names["_acc"]):
        target = statement.split(" = ")[0]
        if target in hosts:
            label = f"{hosts[target].type} {hosts[target].name}"
        else:
            called = re.search(r"(k\d+)\(", statement)
            fn = namespace.get(called.group(1)) if called else None
            label = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
        shares[_kind(label)] += ns
    return shares


def _eager_shares(tf, make, steps):
    from minitf.kernels import numpy as kernels
    shares = collections.Counter()
    depth = [0]

    def timed(name, fn):
        kind = _kind(name)

        def call(*args, **kwargs):
            if depth[0]:
                return fn(*args, **kwargs)
            depth[0] += 1
            start = time.perf_counter_ns()
            try:
                return fn(*args, **kwargs)
            finally:
                shares[kind] += time.perf_counter_ns() - start
                depth[0] -= 1
        return call

    for name, fn in list(vars(kernels).items()):
        if callable(fn) and not name.startswith("_") and getattr(fn, "__module__", "").startswith("minitf"):
            setattr(kernels, name, timed(name, fn))
    step = make(tf, False)
    for _ in range(3):
        step()
    shares.clear()
    start = time.perf_counter_ns()
    for _ in range(steps):
        step()
    total = time.perf_counter_ns() - start
    shares["Python and the ops' own numpy calls"] = total - sum(shares.values())
    return shares


def _child(workload, traced, steps):
    import minitf as tf
    from bench_traced_steps import WORKLOADS
    make = WORKLOADS[workload][0]
    shares = _traced_shares(tf, make, steps) if traced else _eager_shares(tf, make, steps)
    total = sum(shares.values())
    print(f"{workload} {'traced' if traced else 'eager'}: {total / steps / 1e6:.3f} ms a step (timed)")
    for kind, ns in shares.most_common():
        if ns > 0:
            print(f"  {100 * ns / total:5.1f}%  {ns / steps / 1e6:9.3f} ms  {kind}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workloads", nargs="*", default=["linear", "mlp", "dcgan", "deepdream"])
    p.add_argument("--steps", type=int, default=0, help="timed steps (default: per workload)")
    p.add_argument("--child", nargs=3)
    args = p.parse_args()
    if args.child:
        workload, traced, steps = args.child
        _child(workload, traced == "traced", int(steps))
        return
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               MINITF_NUM_THREADS="1")
    default_steps = {"linear": 500, "mlp": 200, "dcgan": 3, "deepdream": 10}
    for workload in args.workloads:
        steps = args.steps or default_steps.get(workload, 5)
        for mode in ("eager", "traced"):
            subprocess.run([sys.executable, os.path.abspath(__file__), "--child", workload, mode, str(steps)],
                           env=env, check=True)


if __name__ == "__main__":
    main()
