"""One neural-style-transfer step: minitf against TensorFlow and PyTorch where importable.

The step: a fixed 3-block conv net (3x3 convs of 32/64/128 filters, relu, 2x2 average pooling
between blocks) on a [1, 128, 128, 3] image variable; Gram-matrix style loss on each block's
output plus a content loss on the last; gradient with respect to the image, Adam(0.02,
beta_1=0.99, epsilon=0.1) update, clip to [0, 1]. The same float32 weights and images feed every
framework; TensorFlow and PyTorch run eagerly. Run: python benchmarks/bench_style_transfer.py.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from _harness import best_time, optional, report  # noqa: E402

SIZE = 128
FILTERS = (32, 64, 128)
STYLE_WEIGHT, CONTENT_WEIGHT = 1e-2, 1e4


def make_data(seed=0):
    """Kernels [3, 3, in, out], biases, a content image, a style image (NHWC, in [0, 1])."""
    rng = np.random.RandomState(seed)
    kernels, biases, cin = [], [], 3
    for f in FILTERS:
        kernels.append((rng.standard_normal((3, 3, cin, f)) * np.sqrt(2.0 / (9 * cin)))
                       .astype(np.float32))
        biases.append(np.zeros(f, np.float32))
        cin = f
    content = rng.rand(1, SIZE, SIZE, 3).astype(np.float32)
    style = rng.rand(1, SIZE, SIZE, 3).astype(np.float32)
    return kernels, biases, content, style


def keras_step(lib, data):
    """The step in the TF API; `lib` is minitf or TensorFlow (run eagerly, as the target says)."""
    kernels, biases, content, style = data
    ks = [lib.constant(k) for k in kernels]
    bs = [lib.constant(b) for b in biases]

    def features(x):
        outs = []
        for i, (k, b) in enumerate(zip(ks, bs)):
            if i:
                x = lib.nn.avg_pool2d(x, 2, 2, "VALID")
            x = lib.nn.relu(lib.nn.conv2d(x, k, 1, "SAME") + b)
            outs.append(x)
        return outs

    def gram(x):
        n = float(x.shape[1] * x.shape[2])
        return lib.linalg.einsum("bijc,bijd->bcd", x, x) / n

    style_targets = [gram(f) for f in features(lib.constant(style))]
    content_target = features(lib.constant(content))[-1]
    image = lib.Variable(content)
    opt = lib.keras.optimizers.Adam(learning_rate=0.02, beta_1=0.99, epsilon=1e-1)

    def step():
        with lib.GradientTape() as tape:
            feats = features(image)
            style_loss = lib.add_n([lib.reduce_mean((gram(f) - t) ** 2)
                                    for f, t in zip(feats, style_targets)])
            content_loss = lib.reduce_mean((feats[-1] - content_target) ** 2)
            loss = STYLE_WEIGHT * style_loss / len(feats) + CONTENT_WEIGHT * content_loss
        grad = tape.gradient(loss, image)
        opt.apply_gradients([(grad, image)])
        image.assign(lib.clip_by_value(image, 0.0, 1.0))
        return loss
    return step


def minitf_step(data):
    import minitf
    return keras_step(minitf, data)


def tensorflow_step(data):
    tf = optional("tensorflow")
    return None if tf is None else keras_step(tf, data)


def torch_step(data):
    torch = optional("torch")
    if torch is None:
        return None
    F = torch.nn.functional
    kernels, biases, content, style = data
    ks = [torch.from_numpy(np.ascontiguousarray(k.transpose(3, 2, 0, 1))) for k in kernels]
    bs = [torch.from_numpy(b) for b in biases]

    def features(x):
        outs = []
        for i, (k, b) in enumerate(zip(ks, bs)):
            if i:
                x = F.avg_pool2d(x, 2)
            x = F.relu(F.conv2d(x, k, b, padding=1))
            outs.append(x)
        return outs

    def gram(x):
        return torch.einsum("bcij,bdij->bcd", x, x) / (x.shape[2] * x.shape[3])

    nchw = lambda a: torch.from_numpy(np.ascontiguousarray(a.transpose(0, 3, 1, 2)))  # noqa: E731
    with torch.no_grad():
        style_targets = [gram(f) for f in features(nchw(style))]
        content_target = features(nchw(content))[-1]
    image = nchw(content).clone().requires_grad_(True)
    opt = torch.optim.Adam([image], lr=0.02, betas=(0.99, 0.999), eps=1e-1)

    def step():
        opt.zero_grad()
        feats = features(image)
        style_loss = sum(((gram(f) - t) ** 2).mean() for f, t in zip(feats, style_targets))
        content_loss = ((feats[-1] - content_target) ** 2).mean()
        loss = STYLE_WEIGHT * style_loss / len(feats) + CONTENT_WEIGHT * content_loss
        loss.backward()
        opt.step()
        with torch.no_grad():
            image.clamp_(0.0, 1.0)
        return loss
    return step


def main():
    data = make_data()
    rows = []
    for name, build in (("minitf", minitf_step), ("tensorflow eager", tensorflow_step),
                        ("torch eager", torch_step)):
        step = build(data)
        rows.append((name, None if step is None else best_time(step, repeat=5, number=3)))
    report(f"style-transfer step, 3 conv blocks {FILTERS}, {SIZE}x{SIZE}x3 image", rows)


if __name__ == "__main__":
    main()
