"""Binomial draws as TF's CPU binomial kernel makes them (stateless and Generator.binomial).

Each output value has its own Philox substream: output i starts at block `counter + 256 * i`
when it uses transformed rejection (count * p >= 10, Hormann's BTRS) and at `counter + 42 * i`
when it inverts the CDF by summing geometric variables (count * p < 10); p > 0.5 draws with
1 - p and reflects. Uniforms are doubles, two per Philox block, used last-first. The
arithmetic is double precision in Python floats, and logarithms come from libm through the
`math` module, as in TF's kernel. Outputs are laid out [sample dims..., batch dims...], where
the batch dims are the broadcast shape of counts and probs.
"""
import math

import numpy as np

from minitf.ops import philox

_BTRS_STRIDE = 256
_INVERSION_STRIDE = 42
# log(k!) - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2] for k = 0..9: the tail of
# Stirling's series, which the BTRS acceptance test needs exactly for small k.
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)


class Uniforms:
    """Uniform doubles from one output's substream, in the kernel's order (the second double of
    each Philox block first)."""

    def __init__(self, key, counter, start):
        self.key, self.counter, self.block = key, counter, start
        self.pending = []

    def __call__(self):
        if not self.pending:
            w = philox.blocks(self.key, self.counter, 8, self.block)
            self.block += 8
            d = philox.uint64_to_double(w[:, [0, 2]].reshape(-1), w[:, [1, 3]].reshape(-1)).reshape(8, 2)
            self.pending = [float(x) for pair in d[::-1] for x in pair]
        return self.pending.pop()


def _stirling_tail(k):
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _inversion(count, prob, uniform):
    log1mp = math.log1p(-prob)
    total, successes = 0.0, 0
    while True:
        geom = _log(uniform()) / log1mp
        total += math.ceil(geom) if math.isfinite(geom) else geom
        if total > count:
            return float(successes)
        successes += 1


def _log(x):
    return math.log(x) if x > 0 else -math.inf


def _btrs(count, prob, uniform):
    stddev = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((count + 1) * prob)
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        if us == 0:  # the C++ division gives -inf here, a rejected k
            continue
        k = float(math.floor((2 * a / us + b) * u + c))
        if us >= 0.07 and v <= v_r:
            return k
        if k < 0 or k > count:
            continue
        v = _log(v * alpha / (a / (us * us) + b))
        bound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                 + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                 + _stirling_tail(m) + _stirling_tail(count - m) - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= bound:
            return k


def _one(count, prob, key, counter, index, kind):
    """One draw for output `index`; `count`, `prob` are numpy scalars of the parameter dtype."""
    dcount = float(count)
    if dcount <= 0.0 or prob <= 0:
        return 0.0
    if prob >= 1:
        return dcount
    if np.isnan(prob):
        return math.nan
    reflect = prob > 0.5
    p = kind(1) - prob if reflect else prob
    if count * p >= kind(10):
        draw = _btrs(dcount, float(p), Uniforms(key, counter, _BTRS_STRIDE * index))
    else:
        draw = _inversion(dcount, float(p), Uniforms(key, counter, _INVERSION_STRIDE * index))
    return dcount - draw if reflect else draw


def sample(key, counter, shape, counts, probs):
    """float64 binomial draws of `shape` (ending with the broadcast shape of the numpy arrays
    `counts` and `probs`, which share a float dtype)."""
    batch_shape = np.broadcast_shapes(counts.shape, probs.shape)
    counts_flat = np.broadcast_to(counts, batch_shape).reshape(-1)
    probs_flat = np.broadcast_to(probs, batch_shape).reshape(-1)
    batches = int(np.prod(batch_shape))
    per_batch = int(np.prod(shape)) // batches if batches else 0
    kind = counts.dtype.type
    out = np.empty(batches * per_batch, dtype=np.float64)
    for index in range(batches * per_batch):
        b, s = divmod(index, per_batch)
        out[s * batches + b] = _one(counts_flat[b], probs_flat[b], key, counter, index, kind)
    return out.reshape(shape)


def state_skip(shape, batch_shape):
    """How many values' worth of counter a Generator's binomial draw reserves (TF's formula)."""
    batches = int(np.prod(batch_shape))
    per_batch = int(np.prod(shape)) // batches if batches else 0
    return batches * 2 * 100 * (per_batch + 3) // 4
