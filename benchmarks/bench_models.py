"""Training-step workloads: MLP, CNN and DCGAN steps in minitf vs TensorFlow / PyTorch eager.

Run: python benchmarks/bench_models.py   (reference frameworks are used when installed)
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _harness import best_time, optional, report  # noqa: E402

import minitf as mtf  # noqa: E402


def keras_classifier_step(lib, model, x, y):
    """One Keras-style training step (sparse softmax cross-entropy from logits, Adam(1e-3)) for
    `lib`, minitf or TensorFlow: the same code runs on both."""
    opt = lib.keras.optimizers.Adam(1e-3)
    loss_fn = lib.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    x, y = lib.constant(x), lib.constant(y)

    def step():
        with lib.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
    return step


def mlp_keras(lib, x, y):
    L = lib.keras.layers
    model = lib.keras.Sequential([L.Dense(512, activation="relu"), L.Dense(512, activation="relu"), L.Dense(10)])
    return keras_classifier_step(lib, model, x, y)


def numpy_adam(params, lr=1e-3):
    """An in-place Adam update (Keras defaults) for a list of numpy arrays: call it with grads."""
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    t = [0]

    def update(grads):
        t[0] += 1
        alpha = lr * np.sqrt(1 - 0.999 ** t[0]) / (1 - 0.9 ** t[0])
        for p, g, mi, vi in zip(params, grads, m, v):
            mi += (g - mi) * 0.1
            vi += (g * g - vi) * 0.001
            p -= alpha * mi / (np.sqrt(vi) + 1e-7)
    return update


def mlp_numpy(x, y):
    """The same step written by hand: forward, backward and Adam, in numpy."""
    rng = np.random.default_rng(0)
    sizes = [784, 512, 512, 10]
    params = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        params += [rng.normal(0, np.sqrt(2 / a), (a, b)).astype(np.float32), np.zeros(b, np.float32)]
    adam = numpy_adam(params)

    def step():
        h1 = np.maximum(x @ params[0] + params[1], 0)
        h2 = np.maximum(h1 @ params[2] + params[3], 0)
        logits = h2 @ params[4] + params[5]
        e = np.exp(logits - logits.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        p[np.arange(len(y)), y] -= 1
        d3 = p / len(y)
        grads = [None] * 6
        grads[4], grads[5] = h2.T @ d3, d3.sum(0)
        d2 = (d3 @ params[4].T) * (h2 > 0)
        grads[2], grads[3] = h1.T @ d2, d2.sum(0)
        d1 = (d2 @ params[2].T) * (h1 > 0)
        grads[0], grads[1] = x.T @ d1, d1.sum(0)
        adam(grads)
    return step


def mlp_torch(torch, x, y):
    model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                torch.nn.ReLU(), torch.nn.Linear(512, 10))
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    x, y = torch.tensor(x), torch.tensor(y, dtype=torch.long)

    def step():
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return step


def cnn_keras(lib, x, y):
    L = lib.keras.layers
    model = lib.keras.Sequential([
        L.Conv2D(32, 3, activation="relu"), L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(),
        L.Flatten(), L.Dense(128, activation="relu"), L.Dense(10)])
    return keras_classifier_step(lib, model, x, y)


def cnn_numpy(x, y):
    """The CNN step written by hand in numpy: im2col convolutions, 2x2 max pooling, Adam."""
    rng = np.random.default_rng(0)

    def glorot(*shape):
        fan_in, fan_out = np.prod(shape[:-1]), shape[-1] * (np.prod(shape[:-2]) if len(shape) == 4 else 1)
        return rng.uniform(-1, 1, shape).astype(np.float32) * np.float32(np.sqrt(6 / (fan_in + fan_out)))
    params = [glorot(3, 3, 1, 32), np.zeros(32, np.float32), glorot(3, 3, 32, 64), np.zeros(64, np.float32),
              glorot(12 * 12 * 64, 128), np.zeros(128, np.float32), glorot(128, 10), np.zeros(10, np.float32)]
    adam = numpy_adam(params)
    n = len(y)

    def im2col(a):
        win = np.lib.stride_tricks.sliding_window_view(a, (3, 3), axis=(1, 2))  # n, oh, ow, c, 3, 3
        oh, ow = win.shape[1:3]
        return win.transpose(0, 1, 2, 4, 5, 3).reshape(n * oh * ow, -1), oh, ow

    def conv_input_grad(d, w, in_shape):
        dx = np.zeros(in_shape, np.float32)
        oh, ow = d.shape[1:3]
        for a in range(3):
            for b in range(3):
                dx[:, a:a + oh, b:b + ow] += d @ w[a, b].T
        return dx

    def step():
        c1, oh1, ow1 = im2col(x)
        h1 = np.maximum(c1 @ params[0].reshape(-1, 32) + params[1], 0).reshape(n, oh1, ow1, 32)
        c2, oh2, ow2 = im2col(h1)
        h2 = np.maximum(c2 @ params[2].reshape(-1, 64) + params[3], 0).reshape(n, oh2, ow2, 64)
        quads = h2.reshape(n, 12, 2, 12, 2, 64)
        pooled = quads.max(axis=(2, 4))
        flat = pooled.reshape(n, -1)
        h3 = np.maximum(flat @ params[4] + params[5], 0)
        logits = h3 @ params[6] + params[7]
        e = np.exp(logits - logits.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        p[np.arange(n), y] -= 1
        d4 = p / n
        grads = [None] * 8
        grads[6], grads[7] = h3.T @ d4, d4.sum(0)
        d3 = (d4 @ params[6].T) * (h3 > 0)
        grads[4], grads[5] = flat.T @ d3, d3.sum(0)
        dpool = (d3 @ params[4].T).reshape(pooled.shape)
        # route to the first maximum of each 2x2 window
        first = np.zeros(quads.shape, bool)
        taken = np.zeros(pooled.shape, bool)
        for a in range(2):
            for b in range(2):
                hit = (quads[:, :, a, :, b] == pooled) & ~taken
                first[:, :, a, :, b] = hit
                taken |= hit
        d2 = (first * dpool[:, :, None, :, None, :]).reshape(h2.shape) * (h2 > 0)
        d2f = d2.reshape(-1, 64)
        grads[2], grads[3] = (c2.T @ d2f).reshape(3, 3, 32, 64), d2f.sum(0)
        d1 = conv_input_grad(d2, params[2], h1.shape) * (h1 > 0)
        d1f = d1.reshape(-1, 32)
        grads[0], grads[1] = (c1.T @ d1f).reshape(3, 3, 1, 32), d1f.sum(0)
        adam(grads)
    return step


def cnn_torch(torch, x, y):
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(12 * 12 * 64, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    x, y = torch.tensor(x).permute(0, 3, 1, 2).contiguous(), torch.tensor(y, dtype=torch.long)

    def step():
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return step


def dcgan_keras(lib, batch):
    L = lib.keras.layers
    gen = lib.keras.Sequential([
        L.Dense(7 * 7 * 256, use_bias=False, input_shape=(100,)), L.BatchNormalization(), L.LeakyReLU(),
        L.Reshape((7, 7, 256)),
        L.Conv2DTranspose(128, 5, strides=1, padding="same", use_bias=False), L.BatchNormalization(), L.LeakyReLU(),
        L.Conv2DTranspose(64, 5, strides=2, padding="same", use_bias=False), L.BatchNormalization(), L.LeakyReLU(),
        L.Conv2DTranspose(1, 5, strides=2, padding="same", use_bias=False, activation="tanh")])
    disc = lib.keras.Sequential([
        L.Conv2D(64, 5, strides=2, padding="same", input_shape=[28, 28, 1]), L.LeakyReLU(), L.Dropout(0.3),
        L.Conv2D(128, 5, strides=2, padding="same"), L.LeakyReLU(), L.Dropout(0.3), L.Flatten(), L.Dense(1)])
    ce = lib.keras.losses.BinaryCrossentropy(from_logits=True)
    g_opt, d_opt = lib.keras.optimizers.Adam(1e-4), lib.keras.optimizers.Adam(1e-4)
    images = lib.constant(np.random.default_rng(0).uniform(-1, 1, (batch, 28, 28, 1)).astype(np.float32))

    def step():
        noise = lib.random.normal([batch, 100])
        with lib.GradientTape() as gt, lib.GradientTape() as dt:
            fake = gen(noise, training=True)
            real_out, fake_out = disc(images, training=True), disc(fake, training=True)
            g_loss = ce(lib.ones_like(fake_out), fake_out)
            d_loss = ce(lib.ones_like(real_out), real_out) + ce(lib.zeros_like(fake_out), fake_out)
        g_opt.apply_gradients(zip(gt.gradient(g_loss, gen.trainable_variables), gen.trainable_variables))
        d_opt.apply_gradients(zip(dt.gradient(d_loss, disc.trainable_variables), disc.trainable_variables))
    return step


def dcgan_torch(torch, batch):
    nn = torch.nn

    class Gen(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(100, 7 * 7 * 256, bias=False)
            self.net = nn.Sequential(
                nn.BatchNorm1d(7 * 7 * 256), nn.LeakyReLU(0.3), nn.Unflatten(1, (256, 7, 7)),
                nn.ConvTranspose2d(256, 128, 5, 1, 2, bias=False), nn.BatchNorm2d(128), nn.LeakyReLU(0.3),
                nn.ConvTranspose2d(128, 64, 5, 2, 2, output_padding=1, bias=False), nn.BatchNorm2d(64),
                nn.LeakyReLU(0.3), nn.ConvTranspose2d(64, 1, 5, 2, 2, output_padding=1, bias=False), nn.Tanh())

        def forward(self, z):
            return self.net(self.fc(z))
    gen = Gen()
    disc = nn.Sequential(nn.Conv2d(1, 64, 5, 2, 2), nn.LeakyReLU(0.3), nn.Dropout(0.3),
                         nn.Conv2d(64, 128, 5, 2, 2), nn.LeakyReLU(0.3), nn.Dropout(0.3), nn.Flatten(),
                         nn.Linear(7 * 7 * 128, 1))
    g_opt, d_opt = torch.optim.Adam(gen.parameters(), 1e-4), torch.optim.Adam(disc.parameters(), 1e-4)
    bce = nn.BCEWithLogitsLoss()
    images = torch.rand(batch, 1, 28, 28) * 2 - 1

    def step():
        fake = gen(torch.randn(batch, 100))
        real_out, fake_out = disc(images), disc(fake)
        g_loss = bce(fake_out, torch.ones_like(fake_out))
        d_loss = bce(real_out, torch.ones_like(real_out)) + bce(fake_out.detach(), torch.zeros_like(fake_out))
        g_opt.zero_grad()
        d_opt.zero_grad()
        g_loss.backward(retain_graph=True)
        d_opt.zero_grad()  # the generator loss must not train the discriminator
        d_loss.backward()
        g_opt.step()
        d_opt.step()
    return step


def main():
    """Time every workload: minitf and numpy first, then PyTorch, then TensorFlow.

    Each framework runs all its workloads before the next one starts: PyTorch's and TF's
    OpenMP workers keep spinning for a while after they finish, and would steal a core from
    whatever is timed next.
    """
    rng = np.random.default_rng(0)
    x = rng.normal(size=(128, 784)).astype(np.float32)
    y = rng.integers(0, 10, 128).astype(np.int32)
    xc = rng.uniform(size=(64, 28, 28, 1)).astype(np.float32)
    yc = rng.integers(0, 10, 64).astype(np.int32)
    rows = {"mlp": [], "cnn": [], "dcgan": []}
    rows["mlp"] += [("minitf", best_time(mlp_keras(mtf, x, y))), ("numpy by hand", best_time(mlp_numpy(x, y)))]
    rows["cnn"] += [("minitf", best_time(cnn_keras(mtf, xc, yc), repeat=3)),
                    ("numpy by hand", best_time(cnn_numpy(xc, yc), repeat=3))]
    rows["dcgan"] += [("minitf", best_time(dcgan_keras(mtf, 64), repeat=3))]
    torch = optional("torch")
    if torch is not None:
        rows["mlp"].append(("pytorch eager", best_time(mlp_torch(torch, x, y))))
        rows["cnn"].append(("pytorch eager", best_time(cnn_torch(torch, xc, yc), repeat=3)))
        rows["dcgan"].append(("pytorch eager", best_time(dcgan_torch(torch, 64), repeat=3)))
    tf = optional("tensorflow")
    if tf is not None:
        rows["mlp"].append(("tensorflow eager", best_time(mlp_keras(tf, x, y), repeat=3)))
        rows["cnn"].append(("tensorflow eager", best_time(cnn_keras(tf, xc, yc), repeat=3)))
        rows["dcgan"].append(("tensorflow eager", best_time(dcgan_keras(tf, 64), repeat=3)))
    report("MLP training step: batch 128, 784-512-512-10, relu, sparse softmax CE, Adam", rows["mlp"])
    report("CNN training step: batch 64 of 28x28x1, Conv32-Conv64-MaxPool-Dense128-Dense10, Adam",
           rows["cnn"])
    report("DCGAN training step (tutorial architecture, noise 100, batch 64)", rows["dcgan"])


if __name__ == "__main__":
    main()
