"""GPU workloads: the MLP, CNN and DCGAN training steps of bench_models.py on cupy vs PyTorch CUDA,
and minitf's MLP/CNN steps under the float32 vs mixed_float16 dtype policies.

Run on a machine with cupy and an NVIDIA GPU: python benchmarks/bench_gpu.py
Each step is timed with a device synchronisation after it, so the figures are wall time of
finished work. minitf on the CPU is timed too, to show what the GPU buys at each size.
Contenders alternate round by round; the median and the spread over rounds are printed.
"""
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _harness import optional  # noqa: E402
from bench_models import cnn_keras, cnn_torch, dcgan_keras, dcgan_torch, mlp_keras, mlp_torch  # noqa: E402

import minitf as mtf  # noqa: E402
from minitf import backend  # noqa: E402


def per_call(fn, sync, min_time=0.2):
    """Seconds per call of `fn` (synchronised), over enough calls to fill `min_time`."""
    number, elapsed = 1, 0.0
    while elapsed < min_time:
        sync()
        start = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        elapsed = time.perf_counter() - start
        if elapsed < min_time:
            number *= 2
    return elapsed / number


def on_device(device, build):
    """Build a step whose every call (and so its lazy layer builds) has `device` ('GPU' or 'CPU')
    as minitf's default device."""
    def run(fn):
        previous = backend.set_default_device(device)
        try:
            return fn()
        finally:
            backend.set_default_device(previous)
    step = run(build)
    return lambda: run(step)


def policy_step(policy, kind, x, y, units=512):
    """The MLP or CNN training step of bench_models built under a dtype policy: layers made while
    `policy` is global, a float32 softmax output layer, and (as model.fit does under
    mixed_float16) a LossScaleOptimizer around Adam with the loss scaled before differentiating.
    The MLP has two hidden layers of `units`."""
    L, mp = mtf.keras.layers, mtf.keras.mixed_precision
    mp.set_global_policy(policy)
    try:
        if kind == "mlp":
            hidden = [L.Dense(units, activation="relu"), L.Dense(units, activation="relu"), L.Dense(10)]
        else:
            hidden = [L.Conv2D(32, 3, activation="relu"), L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(),
                      L.Flatten(), L.Dense(128, activation="relu"), L.Dense(10)]
        model = mtf.keras.Sequential(hidden + [L.Activation("softmax", dtype="float32")])
    finally:
        mp.set_global_policy("float32")
    opt = mtf.keras.optimizers.Adam(1e-3)
    if policy == "mixed_float16":
        opt = mp.LossScaleOptimizer(opt)
    loss_fn = mtf.keras.losses.SparseCategoricalCrossentropy()
    x, y = mtf.constant(x), mtf.constant(y)

    def step():
        with mtf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
            scaled = opt.scale_loss(loss)
        grads = tape.gradient(scaled, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
    return step


def workloads(torch, rng):
    x, y = rng.normal(size=(1024, 784)).astype(np.float32), rng.integers(0, 10, 1024).astype(np.int32)
    xc, yc = rng.uniform(size=(256, 28, 28, 1)).astype(np.float32), rng.integers(0, 10, 256).astype(np.int32)
    table = {}
    for batch in (128, 1024):
        table[f"MLP step, batch {batch}"] = {
            "minitf gpu": lambda b=batch: on_device("GPU", lambda: mlp_keras(mtf, x[:b], y[:b])),
            "minitf cpu": lambda b=batch: on_device("CPU", lambda: mlp_keras(mtf, x[:b], y[:b])),
            "pytorch cuda": torch and (lambda b=batch: mlp_torch(torch, x[:b], y[:b]))}
    for batch in (64, 256):
        table[f"CNN step, batch {batch}"] = {
            "minitf gpu": lambda b=batch: on_device("GPU", lambda: cnn_keras(mtf, xc[:b], yc[:b])),
            "minitf cpu": lambda b=batch: on_device("CPU", lambda: cnn_keras(mtf, xc[:b], yc[:b])),
            "pytorch cuda": torch and (lambda b=batch: cnn_torch(torch, xc[:b], yc[:b]))}
    for kind, xs, ys in (("mlp", x, y), ("cnn", xc, yc)):
        table[f"{kind.upper()} step, batch {len(ys)}, float32 vs mixed_float16 (minitf gpu)"] = {
            "minitf gpu": lambda xs=xs, ys=ys, k=kind: on_device("GPU", lambda: policy_step("float32", k, xs, ys)),
            "gpu mixed16": lambda xs=xs, ys=ys, k=kind: on_device(
                "GPU", lambda: policy_step("mixed_float16", k, xs, ys))}
    wide_x = rng.normal(size=(4096, 4096)).astype(np.float32)
    wide_y = rng.integers(0, 10, 4096).astype(np.int32)
    table["MLP 2x4096 step, batch 4096, float32 vs mixed_float16 (minitf gpu)"] = {
        "minitf gpu": lambda: on_device("GPU", lambda: policy_step("float32", "mlp", wide_x, wide_y, 4096)),
        "gpu mixed16": lambda: on_device("GPU", lambda: policy_step("mixed_float16", "mlp", wide_x, wide_y, 4096))}
    table["DCGAN step, batch 64"] = {
        "minitf gpu": lambda: on_device("GPU", lambda: dcgan_keras(mtf, 64)),
        "pytorch cuda": torch and (lambda: dcgan_torch(torch, 64))}
    return table


def main(rounds=5):
    cupy = backend.cupy_module()
    if cupy is None or not backend.gpu_available():
        sys.exit("bench_gpu: needs cupy and a usable GPU")
    torch = optional("torch")
    if torch is not None and torch.cuda.is_available():
        torch.set_default_device("cuda")  # bench_models' torch builders then place models and data there
    else:
        torch = None

    def sync():
        cupy.cuda.Device().synchronize()
        if torch is not None:
            torch.cuda.synchronize()

    for title, contenders in workloads(torch, np.random.default_rng(0)).items():
        steps = {name: build() for name, build in contenders.items() if build}
        times = {name: [] for name in steps}
        for name, step in steps.items():
            step()  # warm up: kernel compilation, memory pools, lazy builds
            step()
        for _ in range(rounds):
            for name, step in steps.items():
                times[name].append(per_call(step, sync))
        print(f"\n== {title}")
        base = statistics.median(times["minitf gpu"])
        for name, ts in times.items():
            med = statistics.median(ts)
            ratio = f"   minitf gpu / {name} = {base / med:5.2f}x" if name != "minitf gpu" else ""
            print(f"  {name:<14} {med * 1e3:9.3f} ms  (spread {min(ts) * 1e3:.3f}-{max(ts) * 1e3:.3f}){ratio}",
                  flush=True)


if __name__ == "__main__":
    main()
