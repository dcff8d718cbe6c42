"""The update rules of the built-in optimizers, each written once, on raw arrays.

A rule is `rule(xp, g, w, s, slots, **constants)`: `xp` the array module (numpy or cupy: the
same code runs on both), `g` the gradient (read only), `w` the variable's array and `slots` its
slot arrays by slot name (both updated in place), `s` a scratch array shaped like `w` that the
rule may overwrite, and the constants Python numbers fixed for the step (learning rate, betas,
bias corrections). The arrays may be whole variables, cache-sized flat blocks of them (the
numpy kernel shares blocks out over threads), or the touched rows of a sparse update: every rule
is elementwise, so each element's result is the same bits whichever way it is cut.

Each line is one pass of one ufunc writing into an existing array where that keeps it fast; the
order of the floating-point operations is Keras 3's formula, which the tests pin down.
"""

__all__ = ["sgd", "adam", "adamax", "adagrad", "adadelta", "rmsprop", "nadam", "ftrl"]


def sgd(xp, g, w, s, slots, lr, momentum, nesterov):
    """`w -= lr * g`; with momentum, velocity `m = momentum * m - lr * g`, then `w += m`, or for
    Nesterov `w += momentum * m - lr * g`."""
    xp.multiply(g, lr, out=s)
    if momentum == 0:
        w -= s
        return
    m = slots["momentum"]
    m *= momentum
    m -= s
    if nesterov:  # s holds lr * g
        w -= s
        xp.multiply(m, momentum, out=s)
        w += s
    else:
        w += m


def adam(xp, g, w, s, slots, alpha, one_minus_b1, one_minus_b2, epsilon):
    """`m += (g - m)(1 - b1)`, `v += (g^2 - v)(1 - b2)` (AMSGrad, with a 'vhat' slot:
    `vhat = max(vhat, v)` replaces v below), `w -= alpha * m / (sqrt(v) + epsilon)` with
    `alpha = lr * sqrt(1 - b2^t) / (1 - b1^t)`."""
    m, v = slots["m"], slots["v"]
    xp.subtract(g, m, out=s)
    s *= one_minus_b1
    m += s
    xp.multiply(g, g, out=s)
    s -= v
    s *= one_minus_b2
    v += s
    vhat = slots.get("vhat")
    if vhat is not None:
        xp.maximum(vhat, v, out=vhat)
        v = vhat
    xp.sqrt(v, out=s)
    s += epsilon
    xp.divide(m, s, out=s)
    s *= alpha
    w -= s


def adamax(xp, g, w, s, slots, lr, beta_1, beta_2, epsilon, t):
    """`m += (g - m)(1 - b1)`, `u = max(b2 * u, |g|)`, `w -= lr * m / ((1 - b1^t)(u + epsilon))`."""
    m, u = slots["m"], slots["u"]
    xp.subtract(g, m, out=s)
    s *= 1 - beta_1
    m += s
    u *= beta_2
    xp.abs(g, out=s)
    xp.maximum(u, s, out=u)
    xp.add(u, epsilon, out=s)
    s *= 1 - beta_1 ** t
    xp.divide(m, s, out=s)
    s *= lr
    w -= s


def adagrad(xp, g, w, s, slots, lr, epsilon):
    """`acc += g^2`, `w -= lr * g / sqrt(acc + epsilon)`."""
    acc = slots["accumulator"]
    xp.multiply(g, g, out=s)
    acc += s
    xp.add(acc, epsilon, out=s)
    xp.sqrt(s, out=s)
    xp.divide(g, s, out=s)
    s *= lr
    w -= s


def adadelta(xp, g, w, s, slots, lr, rho, epsilon):
    """With rms(x) = sqrt(x + epsilon): `Eg = rho Eg + (1 - rho) g^2`,
    `delta = -rms(Ed) g / rms(Eg)`, `Ed = rho Ed + (1 - rho) delta^2`, `w += lr * delta`."""
    eg, ed = slots["accumulated_grad"], slots["accumulated_delta_var"]
    xp.multiply(g, g, out=s)
    s *= 1 - rho
    eg *= rho
    eg += s
    xp.add(ed, epsilon, out=s)  # s = delta
    xp.sqrt(s, out=s)
    s *= g
    xp.negative(s, out=s)
    s /= xp.sqrt(eg + epsilon)
    ed *= rho
    ed += (1 - rho) * (s * s)
    s *= lr
    w += s


def rmsprop(xp, g, w, s, slots, lr, rho, momentum, epsilon, centered):
    """`v = rho v + (1 - rho) g^2`; centered: `a = rho a + (1 - rho) g`, `denom = v - a^2 + eps`,
    else `denom = v + eps`; `inc = lr * g / sqrt(denom)`; with momentum `mom = momentum * mom +
    inc; w -= mom`, else `w -= inc` (Keras 3 puts epsilon inside the square root)."""
    v = slots["velocity"]
    xp.multiply(g, g, out=s)
    s *= 1 - rho
    v *= rho
    v += s
    if centered:
        a = slots["average_gradient"]
        a *= rho
        xp.multiply(g, 1 - rho, out=s)
        a += s
        xp.multiply(a, a, out=s)
        xp.subtract(v, s, out=s)
    else:
        s[...] = v
    s += epsilon
    xp.sqrt(s, out=s)
    xp.divide(g, s, out=s)
    s *= lr
    if momentum > 0:
        mom = slots["momentum"]
        mom *= momentum
        mom += s
        w -= mom
    else:
        w -= s


def nadam(xp, g, w, s, slots, lr, beta_1, beta_2, epsilon, t, u_t, u_t1, u_prod, u_prod1):
    """`m += (g - m)(1 - b1)`, `v += (g^2 - v)(1 - b2)`,
    `m_hat = u_t1 m / (1 - u_prod1) + (1 - u_t) g / (1 - u_prod)`, `v_hat = v / (1 - b2^t)`,
    `w -= lr * m_hat / (sqrt(v_hat) + epsilon)`, with Keras' momentum schedule
    `u_t = b1 (1 - 0.5 * 0.96^t)`, `u_t1` the same at t + 1, `u_prod` the running product of the
    u_t up to t and `u_prod1 = u_prod * u_t1`."""
    m, v = slots["m"], slots["v"]
    xp.subtract(g, m, out=s)
    s *= 1 - beta_1
    m += s
    xp.multiply(g, g, out=s)
    s -= v
    s *= 1 - beta_2
    v += s
    xp.multiply(v, 1.0 / (1 - beta_2 ** t), out=s)  # s = sqrt(v_hat) + epsilon
    xp.sqrt(s, out=s)
    s += epsilon
    m_hat = m * (u_t1 / (1 - u_prod1))
    m_hat += g * ((1 - u_t) / (1 - u_prod))
    xp.divide(m_hat, s, out=s)
    s *= lr
    w -= s


def ftrl(xp, g, w, s, slots, lr, power, l1, l2, l2_shrinkage):
    """FTRL-Proximal with `p = -learning_rate_power` and `l2 = l2_strength + beta / (2 lr)`:
    `n_new = n + g^2`, `z += g + 2 l2_shrinkage w - (n_new^p - n^p) / lr * w`,
    `w = (clip(z, -l1, l1) - z) / (n_new^p / lr + 2 l2)`, `n = n_new`."""
    acc, lin = slots["accumulator"], slots["linear"]
    old_pow = xp.power(acc, power, out=xp.empty_like(acc))  # an array even for a scalar variable
    xp.multiply(g, g, out=s)
    acc += s
    new_pow = xp.power(acc, power)
    if l2_shrinkage:  # s = g + 2 l2_shrinkage w - (n_new^p - n^p) / lr * w, then z += s
        xp.multiply(w, 2 * l2_shrinkage, out=s)
        s += g
    else:
        s[...] = g
    xp.subtract(new_pow, old_pow, out=old_pow)
    old_pow /= lr
    old_pow *= w
    s -= old_pow
    lin += s
    new_pow /= lr  # w = (clip(z, -l1, l1) - z) / (n_new^p / lr + 2 l2)
    new_pow += 2 * l2
    xp.clip(lin, -l1, l1, out=s)
    s -= lin
    xp.divide(s, new_pow, out=w)
