"""An offline MNIST stand-in: procedurally drawn handwritten-looking digits, 28x28 uint8.

Each class has one or more pen-stroke skeletons (lines, elliptical arcs, quadratic curves)
in a unit box. For every image a skeleton is resampled into evenly spaced points, bent by a
smooth random displacement field, scaled, slanted, rotated and shifted, splatted onto the
pixel grid, blurred with a per-image pen width, saturated like ink, and lightly noised. All of
it is vectorized over images, so the full 70k set takes a few seconds, and deterministic for a
seed. Shapes and dtypes are those of `mnist.load_data()`.
"""
import functools

import numpy as np
from minitf.api_export import export

__all__ = ["load_data", "generate"]

_POINTS = 192  # samples per digit skeleton (under 0.5 px apart at MNIST size)
_SIZE = 28
_CHUNK = 8192


# -- skeleton primitives (unit box, x to the right, y downwards) ----------------------------------
def _line(x0, y0, x1, y1):
    t = np.linspace(0, 1, 64)[:, None]
    return (1 - t) * np.array([x0, y0]) + t * np.array([x1, y1])


def _arc(cx, cy, rx, ry, a0, a1):
    a = np.deg2rad(np.linspace(a0, a1, max(16, int(abs(a1 - a0) / 3))))
    return np.stack([cx + rx * np.cos(a), cy + ry * np.sin(a)], axis=1)


def _curve(p0, p1, p2):
    t = np.linspace(0, 1, 64)[:, None]
    p0, p1, p2 = (np.array(p, float) for p in (p0, p1, p2))
    return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t ** 2 * p2


def _skeletons():
    """Per class, a list of variants; a variant is a list of strokes (arrays of points)."""
    return {
        0: [[_arc(0.5, 0.5, 0.36, 0.48, -100, 265)],
            [_arc(0.5, 0.5, 0.32, 0.47, -80, 300)]],
        1: [[_line(0.55, 0.02, 0.48, 0.98)],
            [_line(0.3, 0.22, 0.56, 0.02), _line(0.56, 0.02, 0.5, 0.98)],
            [_line(0.32, 0.2, 0.56, 0.02), _line(0.56, 0.02, 0.52, 0.97),
             _line(0.3, 0.97, 0.76, 0.97)]],
        2: [[_arc(0.5, 0.3, 0.36, 0.28, 195, 380), _curve((0.85, 0.39), (0.6, 0.7), (0.08, 0.97)),
             _line(0.08, 0.97, 0.94, 0.95)],
            [_arc(0.48, 0.28, 0.35, 0.26, 200, 375), _line(0.82, 0.35, 0.1, 0.96),
             _curve((0.1, 0.96), (0.3, 0.85), (0.55, 0.95)), _line(0.55, 0.95, 0.95, 0.93)]],
        3: [[_arc(0.47, 0.26, 0.33, 0.24, 200, 450), _arc(0.47, 0.72, 0.38, 0.26, -90, 160)],
            [_line(0.15, 0.04, 0.82, 0.04), _line(0.82, 0.04, 0.45, 0.42),
             _arc(0.47, 0.7, 0.38, 0.28, -80, 160)]],
        4: [[_line(0.62, 0.02, 0.06, 0.66), _line(0.06, 0.66, 0.94, 0.66),
             _line(0.68, 0.3, 0.66, 0.98)],
            [_line(0.2, 0.02, 0.12, 0.58), _line(0.12, 0.58, 0.92, 0.56),
             _line(0.72, 0.04, 0.7, 0.98)]],
        5: [[_line(0.86, 0.03, 0.26, 0.03), _line(0.26, 0.03, 0.2, 0.46),
             _arc(0.49, 0.69, 0.39, 0.29, -130, 150)],
            [_line(0.26, 0.03, 0.2, 0.46), _arc(0.49, 0.69, 0.39, 0.29, -130, 150),
             _line(0.26, 0.03, 0.88, 0.06)]],
        6: [[_curve((0.78, 0.03), (0.2, 0.15), (0.15, 0.7)), _arc(0.5, 0.7, 0.35, 0.28, 180, 540)],
            [_curve((0.7, 0.0), (0.25, 0.3), (0.18, 0.75)), _arc(0.48, 0.73, 0.31, 0.25, 170, 530)]],
        7: [[_line(0.06, 0.05, 0.93, 0.05), _line(0.93, 0.05, 0.4, 0.98)],
            [_line(0.06, 0.05, 0.93, 0.05), _line(0.93, 0.05, 0.42, 0.98),
             _line(0.38, 0.52, 0.85, 0.5)],
            [_line(0.06, 0.12, 0.08, 0.04), _line(0.08, 0.04, 0.9, 0.06),
             _curve((0.9, 0.06), (0.6, 0.45), (0.52, 0.98))]],
        8: [[_arc(0.5, 0.26, 0.3, 0.24, 0, 360), _arc(0.5, 0.73, 0.38, 0.26, 0, 360)],
            [_arc(0.52, 0.25, 0.27, 0.23, 60, 420), _arc(0.48, 0.72, 0.36, 0.27, -90, 270)]],
        9: [[_arc(0.5, 0.3, 0.36, 0.27, 0, 360), _line(0.86, 0.3, 0.74, 0.98)],
            [_arc(0.48, 0.3, 0.36, 0.27, 0, 360), _curve((0.84, 0.3), (0.84, 0.85), (0.45, 0.98))]],
    }


def _resample(strokes, n):
    """`n` points evenly spaced by arc length over all strokes, and a mask that is False where
    consecutive points lie on different strokes (the pen is lifted there)."""
    lengths = [np.r_[0, np.cumsum(np.linalg.norm(np.diff(s, axis=0), axis=1))] for s in strokes]
    totals = np.array([length[-1] for length in lengths])
    counts = np.maximum(2, np.round(n * totals / totals.sum()).astype(int))
    counts[np.argmax(counts)] += n - counts.sum()
    points, same_stroke = [], []
    for s, length, c in zip(strokes, lengths, counts):
        u = np.linspace(0, length[-1], c)
        points.append(np.stack([np.interp(u, length, s[:, 0]), np.interp(u, length, s[:, 1])], 1))
        same_stroke.append(np.r_[np.ones(c - 1, bool), False])
    return np.concatenate(points), np.concatenate(same_stroke)[:-1]


@functools.lru_cache(maxsize=1)
def _variant_table():
    """(points (V, P, 2), same-stroke masks (V, P-1), class of each variant (V,))."""
    points, masks, classes = [], [], []
    for digit, variants in _skeletons().items():
        for strokes in variants:
            p, m = _resample(strokes, _POINTS)
            points.append(p)
            masks.append(m)
            classes.append(digit)
    return np.stack(points), np.stack(masks), np.array(classes)


def _pick_variants(labels, rng):
    _, _, classes = _variant_table()
    choice = np.empty(len(labels), int)
    for digit in range(10):
        options = np.flatnonzero(classes == digit)
        sel = labels == digit
        choice[sel] = rng.choice(options, size=int(sel.sum()))
    return choice


def _place_points(labels, rng):
    """Image-space pen positions (N, P, 2) and pen-lift masks (N, P-1) of each digit."""
    table, masks, _ = _variant_table()
    n = len(labels)
    variant = _pick_variants(labels, rng)
    pts = table[variant].copy()
    # each stroke lands a little off its neighbours, as when the pen is lifted
    stroke_id = np.concatenate([np.zeros((n, 1), int), np.cumsum(~masks[variant], axis=1)], 1)
    offsets = rng.normal(0, 0.03, (n, 4, 2))
    pts += np.take_along_axis(offsets, np.minimum(stroke_id, 3)[..., None], axis=1)
    # smooth "elastic" bending: two random low-frequency waves per coordinate
    for _ in range(2):
        freq = rng.uniform(0.4, 1.6, (n, 1, 2)) * rng.choice([-1, 1], (n, 1, 2))
        phase = rng.uniform(0, 2 * np.pi, (n, 1, 2))
        amp = rng.uniform(0.0, 0.06, (n, 1, 2))
        wave = np.sin(2 * np.pi * (pts[..., ::-1] * freq).sum(-1, keepdims=True) + phase)
        pts += amp * wave
    pts -= 0.5
    height = rng.uniform(16.5, 21.0, (n, 1))
    width = height * rng.uniform(0.5, 0.8, (n, 1))
    x, y = pts[..., 0] * width, pts[..., 1] * height
    x = x - rng.uniform(-0.15, 0.4, (n, 1)) * y  # slant: tops lean right, mostly
    angle = np.deg2rad(rng.uniform(-15, 15, (n, 1)))
    c, s = np.cos(angle), np.sin(angle)
    x, y = c * x - s * y, s * x + c * y
    center = (_SIZE - 1) / 2
    x = x + center + rng.uniform(-1.5, 1.5, (n, 1))
    y = y + center + rng.uniform(-1.5, 1.5, (n, 1))
    return np.stack([x, y], -1), masks[variant]


def _splat(points, masks):
    """Bilinear splatting of pen points, each weighted by the stroke length it stands for."""
    n = points.shape[0]
    seg = np.linalg.norm(np.diff(points, axis=1), axis=-1) * masks
    weight = 0.5 * (np.pad(seg, ((0, 0), (1, 0))) + np.pad(seg, ((0, 0), (0, 1))))
    # render on a grid with a 1-pixel margin so no corner needs a bounds check, then crop
    side = _SIZE + 2
    x = np.clip(points[..., 0] + 1, 0, side - 1.001)
    y = np.clip(points[..., 1] + 1, 0, side - 1.001)
    x0, y0 = x.astype(np.int64), y.astype(np.int64)
    fx, fy = x - x0, y - y0
    base = np.arange(n)[:, None] * side * side + y0 * side + x0
    index = np.concatenate([base, base + 1, base + side, base + side + 1], axis=None)
    w = np.concatenate([(1 - fx) * (1 - fy) * weight, fx * (1 - fy) * weight,
                        (1 - fx) * fy * weight, fx * fy * weight], axis=None)
    total = np.bincount(index, weights=w, minlength=n * side * side).reshape(n, side, side)
    return total[:, 1:-1, 1:-1].astype(np.float32)


def _blur(images, sigma):
    """Separable Gaussian blur with a per-image width `sigma` (N,)."""
    radius = 3
    taps = np.arange(-radius, radius + 1)
    kernel = np.exp(-taps[None, :] ** 2 / (2 * sigma[:, None] ** 2))
    kernel = (kernel / kernel.sum(1, keepdims=True)).astype(np.float32)
    for axis in (1, 2):
        padded = np.pad(images, [(0, 0)] + [(radius, radius) if a == axis else (0, 0)
                                             for a in (1, 2)])
        out = np.zeros_like(images)
        for k in range(len(taps)):
            window = padded[:, k:k + _SIZE, :] if axis == 1 else padded[:, :, k:k + _SIZE]
            out += kernel[:, k, None, None] * window
        images = out
    return images


def _render(labels, rng):
    points, masks = _place_points(labels, rng)
    ink = _splat(points, masks)
    n = len(labels)
    ink = _blur(ink, rng.uniform(0.65, 1.2, n))
    gain = rng.uniform(4.0, 9.0, (n, 1, 1)).astype(np.float32)
    image = 1 - np.exp(-gain * ink)
    image = image * rng.uniform(0.85, 1.0, (n, 1, 1))
    noise = rng.normal(0, 0.04, image.shape).astype(np.float32) * (image > 0.1)
    image = np.clip(image + noise, 0, 1)
    image[image < 0.04] = 0  # a clean black background, as in MNIST
    return np.round(image * 255).astype(np.uint8)


@export("datasets.digits.generate", "keras.datasets.digits.generate")
def generate(num, seed=0):
    """`num` balanced digit images (N, 28, 28) uint8 and labels (N,) uint8 for `seed`."""
    rng = np.random.default_rng(seed)
    labels = (np.arange(num) % 10).astype(np.uint8)
    rng.shuffle(labels)
    images = np.empty((num, _SIZE, _SIZE), np.uint8)
    for start in range(0, num, _CHUNK):  # chunks bound the float temporaries
        stop = min(num, start + _CHUNK)
        images[start:stop] = _render(labels[start:stop], rng)
    return images, labels


@export("datasets.digits.load_data", "keras.datasets.digits.load_data")
def load_data(num_train=60000, num_test=10000, seed=0):
    """((x_train, y_train), (x_test, y_test)) like `mnist.load_data()`, generated offline.

    Deterministic for `seed`; train and test come from independent random streams.
    """
    if num_train < 0 or num_test < 0:
        raise ValueError(f"num_train and num_test must be >= 0, got {num_train} and {num_test}.")
    train = generate(num_train, seed=[int(seed), 0])
    test = generate(num_test, seed=[int(seed), 1])
    return train, test
