"""Adam step over an MLP's ~670k float32 parameters: minitf vs hand-written numpy vs PyTorch.

Run: python benchmarks/bench_optimizer.py. Where torch is installed, minitf (here) and torch (in a
fresh process each round, so torch's spinning worker threads never compete with minitf's) are
timed in alternating rounds, and the ratio is reported per round (median, min-max), against torch
on one thread and on all cores (its default).
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


ROUNDS = 5


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


def torch_step(threads):
    """A zero-argument torch.optim.Adam step using `threads` intra-op threads, or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    torch.manual_seed(0)
    params = [torch.randn(*s, requires_grad=True) for s in SHAPES]
    for p in params:
        p.grad = torch.randn(*p.shape)
    opt = torch.optim.Adam(params, lr=1e-3, eps=1e-7)
    opt.step()

    def step():
        torch.set_num_threads(threads)
        opt.step()
    return step


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


TORCH_CODE = """
import sys, time
sys.path.insert(0, {bench_dir!r})
import torch
import bench_optimizer as B
threads = int(sys.argv[1])
torch.set_num_threads(threads)
print(B.best_of(B.torch_step(threads), 3))
"""


def time_torch(threads):
    """Seconds per torch.optim.Adam step in a fresh process (so torch's worker threads never
    compete with minitf's), or None without torch."""
    code = TORCH_CODE.format(bench_dir=os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([sys.executable, "-c", code, str(threads)], capture_output=True, text=True)
    return float(proc.stdout.split()[-1]) if proc.returncode == 0 else None


def main():
    n = sum(int(np.prod(s)) for s in SHAPES)
    print(f"Adam step, {n} float32 params")
    step = minitf_step()
    numpy_time = time_numpy()
    ours = best_of(step, warm_up=False)
    print(f"  minitf      {ours * 1e3:8.3f} ms")
    print(f"  numpy       {numpy_time * 1e3:8.3f} ms   ratio minitf/numpy = {ours / numpy_time:.2f}")
    try:
        import torch  # noqa: F401
    except ImportError:
        print("  torch       (not installed; skipped)")
        return
    for threads in (1, os.cpu_count() or 1):
        # alternate minitf here and torch in its own process, so load drifts hit both alike
        rounds = [(best_of(step, 3, False), time_torch(threads)) for _ in range(ROUNDS)]
        ratios = sorted(a / b for a, b in rounds)
        print(f"  torch x{threads}    {min(b for _, b in rounds) * 1e3:8.3f} ms   ratio minitf/torch = "
              f"{ratios[len(ratios) // 2]:.2f} median of {ROUNDS} alternating rounds "
              f"(min {ratios[0]:.2f}, max {ratios[-1]:.2f}; torch intra-op threads: {threads})")


if __name__ == "__main__":
    main()
