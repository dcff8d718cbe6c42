"""The GPU kernels (cupy), also used for any other array module registered with the backend.

Every function works on the arrays' own module (found with `backend.array_module`), so this
module never imports cupy: cupy stays an optional dependency.

- Convolutions: always im2col and one GEMM. The tap-rectangle path of the numpy kernels would
  launch many small GEMMs, each paying a kernel launch.
- Optimizer updates (`update_variables`): one pass of the rule over the whole arrays (no cache
  blocking, no host threads).
- `argsort_stable`: cupy's sort is a stable radix sort and takes no `kind`.
- `scatter_at`: cupy's `.at` scatters cover add, max and min only (max/min exact for 32-bit types).
- Depthwise convolutions of float16 compute in float32 and round, as TF's do.
- `sigmoid`, `sigmoid_grad`, `tanh_grad`: one fused elementwise kernel each (float32/float64).
"""
import numpy as np

from minitf.backend import array_module, to_host
from minitf.kernels.windows import (avg_pool, avg_pool_grad, contiguous, conv2d_backprop_input_taps,  # noqa: F401
                                    conv2d_backprop_filter_im2col, conv2d_im2col, depthwise_backprop_filter,
                                    depthwise_backprop_input, depthwise_conv2d, half_through_float32, im2col,
                                    max_pool, max_pool_grad, max_pool_grad_grad, max_pool_winners, pad, unpad)

conv2d = conv2d_im2col
conv2d_backprop_input = conv2d_backprop_input_taps
conv2d_backprop_filter = conv2d_backprop_filter_im2col
# The depthwise taps are elementwise sums, which would accumulate in float16 (cuBLAS GEMMs
# accumulate half products in float32 already).
depthwise_conv2d = half_through_float32(depthwise_conv2d)
depthwise_backprop_input = half_through_float32(depthwise_backprop_input)
depthwise_backprop_filter = half_through_float32(depthwise_backprop_filter)


def update_variables(rule, entries, constants):
    """One optimizer step in place: `rule(xp, g, w, s, slots, **constants)` (see
    `minitf.optimizers.rules`) over every (g, w, slots) of `entries`, each in one pass over the
    whole arrays with a scratch array from the module's memory pool."""
    for g, w, slots in entries:
        xp = array_module(w)
        rule(xp, g, w, xp.empty_like(w), slots, **constants)


def argsort_stable(v, axis=-1):
    """Indices that sort `v` along `axis`, equal values keeping their order."""
    return array_module(v).argsort(v, axis=axis)


# Elementwise chains fused into one kernel each: a GPU pays a launch per array operation, and
# an LSTM step runs these 4-10 launch chains per gate per time step.
_FUSABLE = (np.float32, np.float64)
_FUSED_KERNELS = {}
_FUSED_SOURCES = {
    "sigmoid": ("T x", "T y", "T e = exp(-fabs(x)); y = x >= 0 ? 1 / (1 + e) : e / (1 + e)"),
    "sigmoid_grad": ("T y, T g", "T out", "out = g * y * (1 - y)"),
    "tanh_grad": ("T y, T g", "T out", "out = g * (1 - y * y)"),
}


def _fused(xp, name, *arrays):
    """The fused kernel `name` for module `xp` applied to `arrays` (built once per module), or None
    when the module has no elementwise kernels or the arrays are not one fusable dtype."""
    dtype = arrays[0].dtype
    if dtype not in _FUSABLE or any(a.dtype != dtype for a in arrays) or not hasattr(xp, "ElementwiseKernel"):
        return None
    kernel = _FUSED_KERNELS.get((xp, name))
    if kernel is None:
        kernel = _FUSED_KERNELS[(xp, name)] = xp.ElementwiseKernel(*_FUSED_SOURCES[name], f"minitf_{name}")
    return kernel(*arrays)


def select(cond, x, y):
    """where(cond, x, y) elementwise."""
    return array_module(cond).where(cond, x, y)


def relu(v):
    """max(v, 0) elementwise."""
    return array_module(v).maximum(v, 0)


def sigmoid(v):
    """1 / (1 + e^-v) without overflow (e^-|v| never overflows)."""
    xp = array_module(v)
    out = _fused(xp, "sigmoid", v)
    if out is None:
        e = xp.exp(-xp.abs(v))
        out = xp.where(v >= 0, 1 / (1 + e), e / (1 + e)).astype(v.dtype)
    return out


def sigmoid_grad(y, g):
    """g * y * (1 - y): the sigmoid's gradient from its output `y`."""
    out = _fused(array_module(y), "sigmoid_grad", y, g)
    return g * y * (1 - y) if out is None else out


def tanh_grad(y, g):
    """g * (1 - y^2): tanh's gradient from its output `y`."""
    out = _fused(array_module(y), "tanh_grad", y, g)
    return g * (1 - y * y) if out is None else out


# The dtypes whose max/min scatters cupy computes exactly on the device; float64 max/min measured
# rounded to float32 precision on an H100 (cupy 14.2), so those go through the host.
_EXACT_EXTREME_SCATTER = (np.float32, np.int32, np.uint32)


def scatter_at(buf, indices, values, how):
    """`<how>.at(buf, indices, values)` in place. cupy scatters add (and max/min of 32-bit types)
    on the device, subtract as an add of the negation, and the rest (multiply, divide, other
    dtypes its kernels lack or round) through the host."""
    xp = array_module(buf)
    if how == "subtract":
        how, values = "add", -values
    if how == "add" or (how in ("maximum", "minimum") and buf.dtype in _EXACT_EXTREME_SCATTER):
        try:
            getattr(xp, how).at(buf, indices, values)
            return
        except (TypeError, NotImplementedError):
            pass
    host = to_host(buf).copy()
    if isinstance(indices, tuple):
        indices = tuple(to_host(i) if hasattr(i, "get") else i for i in indices)
    elif hasattr(indices, "get"):
        indices = to_host(indices)
    getattr(np, how).at(host, indices, to_host(values))
    buf[...] = xp.asarray(host)
