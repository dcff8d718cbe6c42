"""The `@tf.function` training steps of the TF guides and tutorials, timed per step.

Four workloads, written once in TF's API and run by each library in its own process:
  linear   guide/basic_training_loops: y = w x + b on 1,000 points, hand-written SGD
  mlp      784-128-10 MLP, batch 64, Adam, sparse categorical cross-entropy
  dcgan    tutorials/generative/dcgan's train_step, batch 64 (both models, tapes and Adams)
  deepdream  InceptionV3 (weights=None) up to mixed5, a 96x96 image, one gradient-ascent step

Contenders: minitf eager (the step undecorated), minitf traced (@tf.function: its compiled
plan), minitf traced with the graph interpreter (MINITF_COMPILED_PLANS=0), TF 2.21 traced
(@tf.function, graph mode) when a Python with TensorFlow is given, PyTorch eager when installed
(the same models written in PyTorch). CPU time per step with one thread (time.process_time, so another
process's load does not count), wall time with --threads 2 or more; rounds alternate the
contenders and the spread is reported.

    python benchmarks/bench_traced_steps.py [--tf-python .venv-tf/bin/python] [--rounds 5]
        [--workloads linear mlp dcgan deepdream] [--threads 1]

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


# -- the workloads, in TF's API ------------------------------------------------------------------

def linear(tf, traced):
    rng = __import__("numpy").random.default_rng(0)
    x = tf.constant(rng.normal(size=1000).astype("float32"))
    y = x * 3.0 + 2.0 + tf.constant(rng.normal(size=1000).astype("float32"))
    w, b = tf.Variable(5.0), tf.Variable(0.0)

    def step():
        with tf.GradientTape() as t:
            loss = tf.reduce_mean(tf.square(y - (w * x + b)))
        dw, db = t.gradient(loss, [w, b])
        w.assign_sub(0.1 * dw)
        b.assign_sub(0.1 * db)
        return loss
    return tf.function(step) if traced else step


def mlp(tf, traced):
    np = __import__("numpy")
    rng = np.random.default_rng(0)
    x = tf.constant(rng.random((64, 784), dtype=np.float32))
    y = tf.constant(rng.integers(0, 10, 64))
    model = tf.keras.Sequential([tf.keras.layers.Input((784,)), tf.keras.layers.Dense(128, activation="relu"),
                                 tf.keras.layers.Dense(10)])
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = tf.keras.optimizers.Adam(1e-3)

    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return tf.function(step) if traced else step


def dcgan(tf, traced):
    np = __import__("numpy")
    L = tf.keras.layers
    generator = tf.keras.Sequential([
        L.Input((100,)), L.Dense(7 * 7 * 256, use_bias=False), L.BatchNormalization(), L.LeakyReLU(),
        L.Reshape((7, 7, 256)),
        L.Conv2DTranspose(128, (5, 5), strides=(1, 1), padding="same", use_bias=False),
        L.BatchNormalization(), L.LeakyReLU(),
        L.Conv2DTranspose(64, (5, 5), strides=(2, 2), padding="same", use_bias=False),
        L.BatchNormalization(), L.LeakyReLU(),
        L.Conv2DTranspose(1, (5, 5), strides=(2, 2), padding="same", use_bias=False, activation="tanh")])
    discriminator = tf.keras.Sequential([
        L.Input((28, 28, 1)), L.Conv2D(64, (5, 5), strides=(2, 2), padding="same"), L.LeakyReLU(),
        L.Dropout(0.3), L.Conv2D(128, (5, 5), strides=(2, 2), padding="same"), L.LeakyReLU(),
        L.Dropout(0.3), L.Flatten(), L.Dense(1)])
    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)
    g_opt, d_opt = tf.keras.optimizers.Adam(1e-4), tf.keras.optimizers.Adam(1e-4)
    images = tf.constant(np.random.default_rng(0).random((64, 28, 28, 1), dtype=np.float32) * 2 - 1)

    def step():
        noise = tf.random.normal([64, 100])
        with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
            generated = generator(noise, training=True)
            real_output = discriminator(images, training=True)
            fake_output = discriminator(generated, training=True)
            gen_loss = bce(tf.ones_like(fake_output), fake_output)
            disc_loss = bce(tf.ones_like(real_output), real_output) + bce(tf.zeros_like(fake_output), fake_output)
        g_grads = gen_tape.gradient(gen_loss, generator.trainable_variables)
        d_grads = disc_tape.gradient(disc_loss, discriminator.trainable_variables)
        g_opt.apply_gradients(zip(g_grads, generator.trainable_variables))
        d_opt.apply_gradients(zip(d_grads, discriminator.trainable_variables))
        return gen_loss
    return tf.function(step) if traced else step


def deepdream(tf, traced):
    np = __import__("numpy")
    base = tf.keras.applications.InceptionV3(include_top=False, weights=None)
    layers = [base.get_layer(name).output for name in ("mixed3", "mixed5")]
    model = tf.keras.Model(inputs=base.input, outputs=layers)
    img = tf.constant(np.random.default_rng(0).random((96, 96, 3), dtype=np.float32) * 2 - 1)

    def step():
        with tf.GradientTape() as tape:
            tape.watch(img)
            activations = model(tf.expand_dims(img, 0))
            loss = tf.add_n([tf.reduce_mean(a) for a in activations])
        grads = tape.gradient(loss, img)
        grads /= tf.math.reduce_std(grads) + 1e-8
        return tf.clip_by_value(img + grads * 0.01, -1, 1)
    return tf.function(step) if traced else step


WORKLOADS = {"linear": (linear, 200), "mlp": (mlp, 100), "dcgan": (dcgan, 3), "deepdream": (deepdream, 5)}


# -- one contender in this process -------------------------------------------------------------

def measure(lib, workload, traced, steps):
    """Seconds per step of `workload` (after warming up) for library `lib` ('minitf' or
    'tensorflow')."""
    tf = __import__(lib)
    return _seconds_per_step(WORKLOADS[workload][0](tf, traced), steps)


WARMUP_CALLS = 5  # a traced step records on calls 1-2, compiles its plan (and any numba loops) on call 3


def _seconds_per_step(step, steps):
    """Seconds per call of `step` after WARMUP_CALLS calls: CPU time with one thread (another
    process's load does not count), wall time with more (CPU time would add the threads up)."""
    clock = time.perf_counter if int(os.environ.get("OMP_NUM_THREADS", "1")) > 1 else time.process_time
    for _ in range(WARMUP_CALLS):
        step()
    start = clock()
    for _ in range(steps):
        step()
    return (clock() - start) / steps


def _torch_mlp(steps):
    import torch
    torch.manual_seed(0)
    x, y = torch.rand(64, 784), torch.randint(0, 10, (64,))
    model = torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return _seconds_per_step(step, steps)


def _torch_dcgan(steps):
    """The DCGAN step in PyTorch: the same layers, shapes and losses as `dcgan` (NCHW; Keras'
    'same' padding of the strided 5x5 convolutions is TF's asymmetric pad of 1 before, 2 after)."""
    import torch
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)

    class Same(nn.Module):  # TF 'same' padding for a 5x5, stride 2 convolution on even sizes
        def forward(self, x):
            return F.pad(x, (1, 2, 1, 2))

    class Crop(nn.Module):  # Conv2DTranspose 'same' output: TF crops 1 before, 2 after
        def __init__(self, before, after):
            super().__init__()
            self.before, self.after = before, after

        def forward(self, x):
            return x[:, :, self.before:x.shape[2] - self.after, self.before:x.shape[3] - self.after]

    generator = nn.Sequential(
        nn.Linear(100, 7 * 7 * 256, bias=False), nn.BatchNorm1d(7 * 7 * 256), nn.LeakyReLU(0.3),
        nn.Unflatten(1, (256, 7, 7)),
        nn.ConvTranspose2d(256, 128, 5, 1, padding=2, bias=False), nn.BatchNorm2d(128), nn.LeakyReLU(0.3),
        nn.ConvTranspose2d(128, 64, 5, 2, bias=False), Crop(1, 2), nn.BatchNorm2d(64), nn.LeakyReLU(0.3),
        nn.ConvTranspose2d(64, 1, 5, 2, bias=False), Crop(1, 2), nn.Tanh())
    discriminator = nn.Sequential(
        Same(), nn.Conv2d(1, 64, 5, 2), nn.LeakyReLU(0.3), nn.Dropout(0.3),
        Same(), nn.Conv2d(64, 128, 5, 2), nn.LeakyReLU(0.3), nn.Dropout(0.3),
        nn.Flatten(), nn.Linear(128 * 7 * 7, 1))
    bce = nn.BCEWithLogitsLoss()
    g_opt = torch.optim.Adam(generator.parameters(), 1e-4)
    d_opt = torch.optim.Adam(discriminator.parameters(), 1e-4)
    images = torch.rand(64, 1, 28, 28) * 2 - 1
    assert generator(torch.randn(2, 100)).shape == (2, 1, 28, 28)

    def step():
        noise = torch.randn(64, 100)
        generated = generator(noise)
        real_output = discriminator(images)
        fake_output = discriminator(generated)
        gen_loss = bce(fake_output, torch.ones_like(fake_output))
        disc_loss = bce(real_output, torch.ones_like(real_output)) + bce(fake_output, torch.zeros_like(fake_output))
        g_grads = torch.autograd.grad(gen_loss, list(generator.parameters()), retain_graph=True)
        d_grads = torch.autograd.grad(disc_loss, list(discriminator.parameters()))
        for p, g in zip(generator.parameters(), g_grads):
            p.grad = g
        for p, g in zip(discriminator.parameters(), d_grads):
            p.grad = g
        g_opt.step()
        d_opt.step()
    return _seconds_per_step(step, steps)


def _torch_inception_to_mixed5():
    """InceptionV3 up to mixed5 as Keras builds it (conv + BatchNorm without scale + ReLU units,
    TF padding), in PyTorch, evaluation mode: returns a module giving (mixed3, mixed5)."""
    import torch
    nn, F = torch.nn, torch.nn.functional

    class Unit(nn.Module):
        def __init__(self, cin, cout, kernel, stride=1, padding="same"):
            super().__init__()
            kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
            self.conv = nn.Conv2d(cin, cout, (kh, kw), stride, bias=False,
                                  padding="same" if padding == "same" else 0)
            self.bn = nn.BatchNorm2d(cout, eps=1e-3, affine=True)

        def forward(self, x):
            return F.relu(self.bn(self.conv(x)))

    def avg_same(x):  # Keras AveragePooling2D((3, 3), strides=1, padding="same"): edges divide by the count
        return F.avg_pool2d(x, 3, 1, 1, count_include_pad=False)

    class BlockA(nn.Module):  # mixed0-2
        def __init__(self, cin, pool):
            super().__init__()
            self.b1 = Unit(cin, 64, 1)
            self.b5 = nn.Sequential(Unit(cin, 48, 1), Unit(48, 64, 5))
            self.b3 = nn.Sequential(Unit(cin, 64, 1), Unit(64, 96, 3), Unit(96, 96, 3))
            self.bp = Unit(cin, pool, 1)

        def forward(self, x):
            return torch.cat([self.b1(x), self.b5(x), self.b3(x), self.bp(avg_same(x))], 1)

    class BlockB(nn.Module):  # mixed3
        def __init__(self):
            super().__init__()
            self.b3 = Unit(288, 384, 3, 2, "valid")
            self.b3d = nn.Sequential(Unit(288, 64, 1), Unit(64, 96, 3), Unit(96, 96, 3, 2, "valid"))

        def forward(self, x):
            return torch.cat([self.b3(x), self.b3d(x), F.max_pool2d(x, 3, 2)], 1)

    class BlockC(nn.Module):  # mixed4-5
        def __init__(self, c7):
            super().__init__()
            self.b1 = Unit(768, 192, 1)
            self.b7 = nn.Sequential(Unit(768, c7, 1), Unit(c7, c7, (1, 7)), Unit(c7, 192, (7, 1)))
            self.b7d = nn.Sequential(Unit(768, c7, 1), Unit(c7, c7, (7, 1)), Unit(c7, c7, (1, 7)),
                                     Unit(c7, c7, (7, 1)), Unit(c7, 192, (1, 7)))
            self.bp = Unit(768, 192, 1)

        def forward(self, x):
            return torch.cat([self.b1(x), self.b7(x), self.b7d(x), self.bp(avg_same(x))], 1)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(
                Unit(3, 32, 3, 2, "valid"), Unit(32, 32, 3, 1, "valid"), Unit(32, 64, 3),
                nn.MaxPool2d(3, 2), Unit(64, 80, 1, 1, "valid"), Unit(80, 192, 3, 1, "valid"),
                nn.MaxPool2d(3, 2), BlockA(192, 32), BlockA(256, 64), BlockA(288, 64))
            self.mixed3 = BlockB()
            self.mixed4, self.mixed5 = BlockC(128), BlockC(160)

        def forward(self, x):
            m3 = self.mixed3(self.stem(x))
            return m3, self.mixed5(self.mixed4(m3))
    return Net().eval()


def _torch_deepdream(steps):
    """The DeepDream step in PyTorch (NCHW): the same network, loss and update as `deepdream`."""
    import torch
    torch.manual_seed(0)
    model = _torch_inception_to_mixed5()
    for p in model.parameters():
        p.requires_grad_(False)
    img = torch.rand(96, 96, 3) * 2 - 1
    m3, m5 = model(img.permute(2, 0, 1)[None])
    assert m3.shape == (1, 768, 4, 4) and m5.shape == (1, 768, 4, 4), (m3.shape, m5.shape)

    def step():
        x = img.clone().requires_grad_(True)
        activations = model(x.permute(2, 0, 1)[None])
        loss = sum(a.mean() for a in activations)
        (grads,) = torch.autograd.grad(loss, x)
        grads = grads / (grads.std(correction=0) + 1e-8)
        return torch.clamp(img + grads * 0.01, -1, 1)
    return _seconds_per_step(step, steps)


def _torch_linear(steps):
    import torch
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1000, generator=g)
    y = x * 3 + 2 + torch.randn(1000, generator=g)
    w, b = torch.tensor(5.0, requires_grad=True), torch.tensor(0.0, requires_grad=True)

    def step():
        loss = torch.mean((y - (w * x + b)) ** 2)
        dw, db = torch.autograd.grad(loss, [w, b])
        with torch.no_grad():
            w.sub_(0.1 * dw)
            b.sub_(0.1 * db)
    return _seconds_per_step(step, steps)


def _child(args):
    if args.lib == "torch":
        fn = {"mlp": _torch_mlp, "linear": _torch_linear, "dcgan": _torch_dcgan,
              "deepdream": _torch_deepdream}[args.workload]
        print(json.dumps(fn(args.steps)))
        return
    print(json.dumps(measure(args.lib, args.workload, args.traced, args.steps)))


# -- the driver -----------------------------------------------------------------------------------

def _run(python, lib, workload, traced, steps, threads, extra_env=None):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads), TF_NUM_INTRAOP_THREADS=str(threads),
               TF_NUM_INTEROP_THREADS="1", TF_CPP_MIN_LOG_LEVEL="3", MINITF_NUM_THREADS=str(threads),
               PYTHONPATH=ROOT)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    env.update(extra_env or {})
    cmd = [python, __file__, "--child", "--lib", lib, "--workload", workload, "--steps", str(steps)]
    if traced:
        cmd.append("--traced")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
    if out.returncode:
        return None, out.stderr.strip().splitlines()[-1:] or ["failed"]
    return json.loads(out.stdout.strip().splitlines()[-1]), None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--child", action="store_true")
    p.add_argument("--lib")
    p.add_argument("--workload")
    p.add_argument("--steps", type=int)
    p.add_argument("--traced", action="store_true")
    p.add_argument("--tf-python")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--workloads", nargs="*", default=list(WORKLOADS))
    p.add_argument("--no-eager", action="store_true", help="skip the minitf eager contender")
    p.add_argument("--no-interpreter", action="store_true",
                   help="skip the minitf traced contender that runs the graph interpreter (no plans)")
    args = p.parse_args()
    if args.child:
        _child(args)
        return
    contenders = [("minitf traced", sys.executable, "minitf", True)]
    if not args.no_interpreter:
        contenders.append(("minitf interp", sys.executable, "minitf", True, {"MINITF_COMPILED_PLANS": "0"}))
    if not args.no_eager:
        contenders.append(("minitf eager", sys.executable, "minitf", False))
    if args.tf_python:
        contenders.append(("TF graph", args.tf_python, "tensorflow", True))
    torch_ok = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode == 0
    results = {}
    for workload in args.workloads:
        steps = WORKLOADS[workload][1]
        entries = list(contenders)
        if torch_ok:
            entries.append(("PyTorch eager", sys.executable, "torch", False))
        times = {name: [] for name, *_ in entries}
        for r in range(args.rounds):
            order = entries if r % 2 == 0 else entries[::-1]
            for name, python, lib, traced, *extra_env in order:
                t, err = _run(python, lib, workload, traced, steps, args.threads, *extra_env)
                if err:
                    print(f"{workload} {name}: {err}", file=sys.stderr)
                else:
                    times[name].append(t)
        results[workload] = times
        base = times.get("TF graph") or None
        for name, ts in times.items():
            if not ts:
                continue
            line = f"{workload:10s} {name:14s} {statistics.median(ts) * 1e3:9.3f} ms/step " \
                   f"({min(ts) * 1e3:.3f}-{max(ts) * 1e3:.3f})"
            if base:
                line += f"  x{statistics.median(ts) / statistics.median(base):.2f} of TF graph"
            print(line, flush=True)
    return results


if __name__ == "__main__":
    main()
