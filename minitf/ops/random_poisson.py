"""Poisson draws as TF's CPU Poisson kernels make them (stateless_poisson and random.poisson).

Output i reads its own Philox substream from block `counter + 256 * i`, as uniform doubles used
last-first within each block. Rates below 10 multiply uniforms until the product falls to
exp(-rate) (Knuth); larger rates use Hormann's transformed rejection. The arithmetic is double
precision whatever the rate dtype, with exp/log from libm through `math` and lgamma from libm itself, as in TF's
kernel. Outputs are laid out [sample dims..., rate dims...].
"""
import math

import numpy as np

from minitf.ops import philox
from minitf.ops.random_binomial import Uniforms

_STRIDE = 256


def _knuth(rate, uniform, highest):
    limit = math.exp(-rate)
    prod, x = 1.0, 0.0
    while True:
        prod = prod * uniform()
        if prod <= limit and x <= highest:
            return x
        x += 1


def _hormann(rate, uniform, highest):
    log_rate = math.log(rate)
    b = 0.931 + 2.53 * math.sqrt(rate)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    while True:
        u = uniform() - 0.5
        v = uniform()
        u_shifted = 0.5 - abs(u)
        if u_shifted == 0:  # the C++ division gives an infinite k here, which is retried
            continue
        k = float(math.floor((2 * a / u_shifted + b) * u + rate + 0.43))
        if k > highest:
            continue
        if u_shifted >= 0.07 and v <= v_r:
            return k
        if k < 0 or (u_shifted < 0.013 and v > u_shifted):
            continue
        s = math.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b)) if v > 0 else -math.inf
        t = -rate + k * log_rate - philox.lgamma(k + 1)
        if s <= t:
            return k


def sample(key, counter, samples, rates, out_dtype):
    """float64 draws, shape [samples, rates.size], for the flat float64 array `rates`; values
    above the largest `out_dtype` value are redrawn as TF does."""
    highest = float(np.finfo(out_dtype).max if np.issubdtype(out_dtype, np.floating) else np.iinfo(out_dtype).max)
    out = np.empty((samples, rates.size), dtype=np.float64)
    for r, rate in enumerate(rates.tolist()):
        draw = _knuth if rate < 10 else _hormann
        for s in range(samples):
            index = r * samples + s
            out[s, r] = draw(rate, Uniforms(key, counter, _STRIDE * index), highest)
    return out
