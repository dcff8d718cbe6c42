"""Sequence workloads: an LSTM training step (batch 64, 100 time steps, 128 units) and a transformer
encoder block step (MultiHeadAttention + feed-forward, batch 64, 64 tokens, d_model 128, 4 heads),
in minitf vs TensorFlow eager, PyTorch eager and (for the LSTM) a hand-written numpy step.

Run: python benchmarks/bench_sequence.py          (CPU; reference frameworks used when installed)
     python benchmarks/bench_sequence.py --gpu    (minitf on cupy vs PyTorch CUDA)
Contenders alternate round by round; the median and the spread over rounds are printed.
"""
import argparse
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _harness import optional  # noqa: E402
from bench_gpu import on_device, per_call  # noqa: E402
from bench_models import keras_classifier_step, numpy_adam  # noqa: E402

import minitf as mtf  # noqa: E402
from minitf import backend  # noqa: E402

BATCH, STEPS, FEATURES, UNITS, CLASSES = 64, 100, 32, 128, 10
TOKENS, D_MODEL, HEADS, FF = 64, 128, 4, 256


def lstm_data(rng):
    x = rng.normal(size=(BATCH, STEPS, FEATURES)).astype(np.float32)
    return x, rng.integers(0, CLASSES, BATCH).astype(np.int32)


def block_data(rng):
    x = rng.normal(size=(BATCH, TOKENS, D_MODEL)).astype(np.float32)
    return x, rng.integers(0, CLASSES, BATCH).astype(np.int32)


def lstm_keras(lib, x, y):
    L = lib.keras.layers
    return keras_classifier_step(lib, lib.keras.Sequential([L.LSTM(UNITS), L.Dense(CLASSES)]), x, y)


def block_keras(lib, x, y):
    L = lib.keras.layers

    class Block(L.Layer):
        def __init__(self):
            super().__init__()
            self.attention = L.MultiHeadAttention(HEADS, key_dim=D_MODEL // HEADS)
            self.norm1, self.norm2 = L.LayerNormalization(epsilon=1e-5), L.LayerNormalization(epsilon=1e-5)
            self.hidden, self.out = L.Dense(FF, activation="relu"), L.Dense(D_MODEL)

        def call(self, h):
            h = self.norm1(h + self.attention(h, h))
            return self.norm2(h + self.out(self.hidden(h)))
    model = lib.keras.Sequential([Block(), L.GlobalAveragePooling1D(), L.Dense(CLASSES)])
    return keras_classifier_step(lib, model, x, y)


def torch_step(torch, model, x, y, device):
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    x, y = torch.tensor(x, device=device), torch.tensor(y, dtype=torch.long, device=device)

    def step():
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return step


def lstm_torch(torch, x, y, device="cpu"):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm, self.dense = nn.LSTM(FEATURES, UNITS, batch_first=True), nn.Linear(UNITS, CLASSES)

        def forward(self, inputs):
            return self.dense(self.lstm(inputs)[0][:, -1])
    return torch_step(torch, Net().to(device), x, y, device)


def block_torch(torch, x, y, device="cpu"):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = nn.MultiheadAttention(D_MODEL, HEADS, batch_first=True)
            self.norm1, self.norm2 = nn.LayerNorm(D_MODEL), nn.LayerNorm(D_MODEL)
            self.ffn = nn.Sequential(nn.Linear(D_MODEL, FF), nn.ReLU(), nn.Linear(FF, D_MODEL))
            self.dense = nn.Linear(D_MODEL, CLASSES)

        def forward(self, h):
            h = self.norm1(h + self.attention(h, h, h, need_weights=False)[0])
            h = self.norm2(h + self.ffn(h))
            return self.dense(h.mean(1))
    return torch_step(torch, Net().to(device), x, y, device)


def lstm_numpy(x, y):
    """The LSTM step by hand: Keras' gate order (i, f, c, o), backpropagation through time, Adam."""
    rng = np.random.default_rng(0)
    kernel = rng.uniform(-0.1, 0.1, (FEATURES, 4 * UNITS)).astype(np.float32)
    recurrent = rng.uniform(-0.1, 0.1, (UNITS, 4 * UNITS)).astype(np.float32)
    bias = np.zeros(4 * UNITS, np.float32)
    dense, dense_bias = rng.uniform(-0.1, 0.1, (UNITS, CLASSES)).astype(np.float32), np.zeros(CLASSES, np.float32)
    params = [kernel, recurrent, bias, dense, dense_bias]
    adam = numpy_adam(params)
    n, u = len(y), UNITS

    def sigmoid(a):
        return 1 / (1 + np.exp(-a))

    def step():
        xw = (x.reshape(-1, FEATURES) @ kernel + bias).reshape(n, STEPS, 4 * u)
        h, c = np.zeros((n, u), np.float32), np.zeros((n, u), np.float32)
        saved = []
        for t in range(STEPS):
            z = xw[:, t] + h @ recurrent
            i, f, o = sigmoid(z[:, :u]), sigmoid(z[:, u:2 * u]), sigmoid(z[:, 3 * u:])
            g = np.tanh(z[:, 2 * u:3 * u])
            c_prev, h_prev = c, h
            c = f * c + i * g
            tc = np.tanh(c)
            h = o * tc
            saved.append((i, f, g, o, c_prev, tc, h_prev))
        logits = h @ dense + dense_bias
        e = np.exp(logits - logits.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        p[np.arange(n), y] -= 1
        dlogits = p / n
        grads = [np.zeros_like(kernel), np.zeros_like(recurrent), None, h.T @ dlogits, dlogits.sum(0)]
        dh, dc = dlogits @ dense.T, np.zeros((n, u), np.float32)
        dz_all = np.empty((n, STEPS, 4 * u), np.float32)
        for t in reversed(range(STEPS)):
            i, f, g, o, c_prev, tc, h_prev = saved[t]
            dc = dc + dh * o * (1 - tc * tc)
            dz = dz_all[:, t]
            dz[:, :u] = dc * g * i * (1 - i)
            dz[:, u:2 * u] = dc * c_prev * f * (1 - f)
            dz[:, 2 * u:3 * u] = dc * i * (1 - g * g)
            dz[:, 3 * u:] = dh * tc * o * (1 - o)
            grads[1] += h_prev.T @ dz
            dh, dc = dz @ recurrent.T, dc * f
        flat = dz_all.reshape(-1, 4 * u)
        grads[0], grads[2] = x.reshape(-1, FEATURES).T @ flat, flat.sum(0)
        adam(grads)
    return step


def workloads(gpu, rng):
    tf, torch = (None, optional("torch")) if gpu else (optional("tensorflow"), optional("torch"))
    device = "cuda" if gpu else "cpu"
    if gpu and (torch is None or not torch.cuda.is_available()):
        torch = None
    table = {}
    for title, data, keras_build, torch_build, numpy_build in (
            (f"LSTM({UNITS}) step, batch {BATCH}, {STEPS} time steps, {FEATURES} features",
             lstm_data, lstm_keras, lstm_torch, lstm_numpy),
            (f"Transformer block step (MultiHeadAttention {HEADS}x{D_MODEL // HEADS}, FFN {FF}), "
             f"batch {BATCH}, {TOKENS} tokens", block_data, block_keras, block_torch, None)):
        x, y = data(rng)
        minitf_step = (lambda b=keras_build, x=x, y=y: on_device("GPU", lambda: b(mtf, x, y))) if gpu else \
            (lambda b=keras_build, x=x, y=y: b(mtf, x, y))
        table[title] = {
            "minitf" + (" gpu" if gpu else ""): minitf_step,
            "numpy": numpy_build and not gpu and (lambda b=numpy_build, x=x, y=y: b(x, y)),
            "tf eager": tf and (lambda b=keras_build, x=x, y=y: b(tf, x, y)),
            "pytorch " + device: torch and (lambda b=torch_build, x=x, y=y: b(torch, x, y, device))}
    return table, torch


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", action="store_true", help="minitf on cupy vs PyTorch CUDA")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.gpu and not backend.gpu_available():
        sys.exit("bench_sequence --gpu: needs cupy and a usable GPU")
    table, torch = workloads(args.gpu, np.random.default_rng(0))

    def sync():
        if args.gpu:
            backend.cupy_module().cuda.Device().synchronize()
            if torch is not None:
                torch.cuda.synchronize()

    for title, contenders in table.items():
        steps = {name: build() for name, build in contenders.items() if build}
        for step in steps.values():
            step()  # warm up: lazy builds, kernel compilation, memory pools
            step()
        times = {name: [] for name in steps}
        for _ in range(args.rounds):
            for name, step in steps.items():
                times[name].append(per_call(step, sync, min_time=0.3))
        print(f"\n== {title}")
        base_name = next(iter(steps))
        base = statistics.median(times[base_name])
        for name, ts in times.items():
            med = statistics.median(ts)
            ratio = f"   {base_name} / {name} = {base / med:5.2f}x" if name != base_name else ""
            print(f"  {name:<12} {med * 1e3:9.2f} ms  (spread {min(ts) * 1e3:.2f}-{max(ts) * 1e3:.2f}){ratio}",
                  flush=True)


if __name__ == "__main__":
    main()
