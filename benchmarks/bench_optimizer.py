"""Adam step over an MLP's ~670k float32 parameters: minitf vs hand-written numpy vs PyTorch.

Run: /work/refenv/bin/python benchmarks/bench_optimizer.py. When the interpreter has torch,
minitf and torch (one thread) are timed in alternating rounds in this process, so both see the
same machine load, and the ratio is reported per round (median, min-max). Otherwise torch is
timed in /work/refenv/bin/python in a subprocess, or skipped cleanly when absent.
"""
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import minitf as tf  # noqa: E402

SHAPES = [(784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]
STEPS = 200
REFENV = "/work/refenv/bin/python"


ROUNDS = 7


def best_of(fn, repeats=5, warm_up=True):
    """Best mean seconds per step over `repeats` runs of STEPS steps."""
    if warm_up:
        fn()  # slot creation
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(STEPS):
            fn()
        best = min(best, (time.perf_counter() - start) / STEPS)
    return best


def minitf_step():
    """A zero-argument minitf Adam step over the MLP's variables (slots already made)."""
    rng = np.random.default_rng(0)
    variables = [tf.Variable(rng.normal(size=s).astype(np.float32)) for s in SHAPES]
    grads = [tf.constant(rng.normal(size=s).astype(np.float32)) for s in SHAPES]
    opt = tf.optimizers.Adam(1e-3)
    pairs = list(zip(grads, variables))
    opt.apply_gradients(pairs)
    return lambda: opt.apply_gradients(pairs)


def torch_step():
    """A zero-argument torch.optim.Adam step on one thread, or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    torch.manual_seed(0)
    params = [torch.randn(*s, requires_grad=True) for s in SHAPES]
    for p in params:
        p.grad = torch.randn(*p.shape)
    opt = torch.optim.Adam(params, lr=1e-3, eps=1e-7)
    opt.step()
    return opt.step


def time_numpy():
    rng = np.random.default_rng(0)
    ws = [rng.normal(size=s).astype(np.float32) for s in SHAPES]
    gs = [rng.normal(size=s).astype(np.float32) for s in SHAPES]
    ms = [np.zeros_like(w) for w in ws]
    vs = [np.zeros_like(w) for w in ws]
    state = {"t": 0}

    def step():
        state["t"] += 1
        t = state["t"]
        alpha = 1e-3 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        for w, g, m, v in zip(ws, gs, ms, vs):
            m[...] = 0.9 * m + 0.1 * g
            v[...] = 0.999 * v + 0.001 * g * g
            w -= alpha * m / (np.sqrt(v) + 1e-7)
    return best_of(step)


TORCH_CODE = f"""
import sys, time, torch
torch.set_num_threads(int(sys.argv[1]))
torch.manual_seed(0)
shapes = {SHAPES!r}
params = [torch.randn(*s, requires_grad=True) for s in shapes]
for p in params:
    p.grad = torch.randn(*p.shape)
opt = torch.optim.Adam(params, lr=1e-3, eps=1e-7)
opt.step()
best = float('inf')
for _ in range(5):
    start = time.perf_counter()
    for _ in range({STEPS}):
        opt.step()
    best = min(best, (time.perf_counter() - start) / {STEPS})
print(best, torch.get_num_threads())
"""


def time_torch(threads):
    """Seconds per torch.optim.Adam step with `threads` intra-op threads, or (None, None)."""
    for python in (sys.executable, REFENV):
        if not os.path.exists(python):
            continue
        proc = subprocess.run([python, "-c", TORCH_CODE, str(threads)], capture_output=True,
                              text=True)
        if proc.returncode == 0:
            seconds, threads = proc.stdout.split()
            return float(seconds), int(threads)
    return None, None


def interleaved(ours, theirs):
    """Per-round (ours, theirs) best seconds per step, alternating so load hits both alike."""
    return [(best_of(ours, 3, False), best_of(theirs, 3, False)) for _ in range(ROUNDS)]


def main():
    n = sum(int(np.prod(s)) for s in SHAPES)
    print(f"Adam step, {n} float32 params")
    step = minitf_step()
    numpy_time = time_numpy()
    torch_in_process = torch_step()
    if torch_in_process is not None:
        rounds = interleaved(step, torch_in_process)
        ratios = sorted(a / b for a, b in rounds)
        ours = min(a for a, _ in rounds)
        print(f"  minitf      {ours * 1e3:8.3f} ms")
        print(f"  numpy       {numpy_time * 1e3:8.3f} ms   ratio minitf/numpy = "
              f"{ours / numpy_time:.2f}")
        print(f"  torch       {min(b for _, b in rounds) * 1e3:8.3f} ms   ratio minitf/torch = "
              f"{ratios[len(ratios) // 2]:.2f} median of {ROUNDS} alternating rounds "
              f"(min {ratios[0]:.2f}, max {ratios[-1]:.2f}; torch threads: 1)")
        return
    ours = best_of(step, warm_up=False)
    print(f"  minitf      {ours * 1e3:8.3f} ms")
    print(f"  numpy       {numpy_time * 1e3:8.3f} ms   ratio minitf/numpy = {ours / numpy_time:.2f}")
    for torch_time, threads in [time_torch(1), time_torch(os.cpu_count() or 1)]:
        if torch_time is None:
            print("  torch       (not installed; skipped)")
            break
        print(f"  torch       {torch_time * 1e3:8.3f} ms   ratio minitf/torch = "
              f"{ours / torch_time:.2f}  (torch threads: {threads}; minitf uses one)")


if __name__ == "__main__":
    main()
