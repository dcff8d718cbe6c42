"""tf.image.resize: separable resampling with TF2's interpolation kernels.

Each method is a pair of small [out, in] interpolation matrices (built on the host with TF2's
half-pixel-centre sampling) applied along height and width with batched GEMMs. The op is linear
in the image, so its gradient is the same op with the matrices transposed (its adjoint op).
"""
import numpy as np  # host-side bookkeeping only: interpolation weights, offsets, shapes

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.backend import coerce_to_module
from minitf.ops._core import Op, Tensor, thread_state, array_module, as_tensor, record
from minitf.ops.array import reshape
from minitf.ops.constant import cast
from minitf.api_export import export

__all__ = ["ResizeMethod", "resize"]


@export("image.ResizeMethod")
class ResizeMethod:
    """Names of the interpolation methods accepted by `resize`."""
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


# -- interpolation weights (host side) ----------------------------------------------------------

def _keys_cubic(x, a=-0.5):
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x <= 1, near, np.where(x < 2, far, 0.0))


def _lanczos(radius):
    def kernel(x):
        x = np.abs(x)
        safe = np.where(x <= 1e-3, 1.0, x)
        val = radius * np.sin(np.pi * safe) * np.sin(np.pi * safe / radius) / (np.pi ** 2 * safe ** 2)
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, val))
    return kernel


def _mitchell(x):
    x = np.abs(x)
    near = (7.0 / 6 * x - 2) * x * x + 8.0 / 9
    far = (((-7.0 / 18) * x + 2) * x - 10.0 / 3) * x + 16.0 / 9
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


def _gaussian(x):
    radius, sigma = 1.5, 0.5
    x = np.abs(x)
    return np.where(x >= radius, 0.0, np.exp(-x * x / (2 * sigma * sigma)))


# method -> (kernel, radius) for the kernels TF samples with ScaleAndTranslate
_KERNELS = {
    "bilinear": (lambda x: np.maximum(0.0, 1 - np.abs(x)), 1.0),
    "bicubic": (_keys_cubic, 2.0),
    "lanczos3": (_lanczos(3), 3.0),
    "lanczos5": (_lanczos(5), 5.0),
    "mitchellcubic": (_mitchell, 2.0),
    "gaussian": (_gaussian, 1.5),
}


def _bilinear_matrix(n_in, n_out):
    scale = n_in / n_out
    src = (np.arange(n_out) + 0.5) * scale - 0.5
    low = np.floor(src)
    frac = src - low
    m = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    np.add.at(m, (rows, np.clip(low, 0, n_in - 1).astype(int)), 1 - frac)
    np.add.at(m, (rows, np.clip(low + 1, 0, n_in - 1).astype(int)), frac)
    return m


def _nearest_index(n_in, n_out):
    idx = np.floor((np.arange(n_out) + 0.5) * (n_in / n_out)).astype(int)
    return np.clip(idx, 0, n_in - 1)


def _nearest_matrix(n_in, n_out):
    m = np.zeros((n_out, n_in))
    m[np.arange(n_out), _nearest_index(n_in, n_out)] = 1.0
    return m


def _area_matrix(n_in, n_out):
    scale = n_in / n_out
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        start, end = o * scale, (o + 1) * scale
        for i in range(int(np.floor(start)), int(np.ceil(end))):
            m[o, min(i, n_in - 1)] += (min(i + 1, end) - max(i, start)) / scale
    return m


def _bicubic_matrix(n_in, n_out):
    """TF's half-pixel bicubic: Keys a=-0.5 with the tap offset rounded to 1/1024 (TF reads the
    weights from a 1024-entry table); taps outside the image dropped, weights renormalized."""
    src = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
    m = np.zeros((n_out, n_in))
    for o, s in enumerate(src):
        base = int(np.floor(s))
        delta = np.rint((s - base) * 1024) / 1024
        for tap, dist in zip(range(base - 1, base + 3), (delta + 1, delta, 1 - delta, 2 - delta)):
            if 0 <= tap < n_in:
                m[o, tap] += _keys_cubic(dist)
        m[o] /= m[o].sum()
    return m


def _scale_translate_matrix(n_in, n_out, method, antialias):
    """TF's ScaleAndTranslate weights (translation 0): kernel widened by 1/scale when antialiasing."""
    kernel, radius = _KERNELS[method]
    f32 = np.float32  # span ends are computed in float32 as TF does (they can land on integers)
    inv_scale = f32(1) / (f32(n_out) / f32(n_in))
    kscale = max(inv_scale, f32(1)) if antialias else f32(1)
    radius = f32(radius)
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        sample = (f32(o) + f32(0.5)) * inv_scale
        if sample < 0 or sample > n_in:
            continue
        start = min(max(int(np.ceil(sample - radius * kscale - f32(0.5))), 0), n_in - 1)
        end = min(max(int(np.floor(sample + radius * kscale - f32(0.5))), 0), n_in - 1) + 1
        src = np.arange(start, end)
        w = kernel((src + 0.5 - float(sample)) / float(kscale))
        total = w.sum()
        if abs(total) >= 1000 * np.finfo(np.float32).tiny:
            w = w / total
        m[o, start:end] = w
    return m


def weights(method, n_in, n_out, antialias):
    if antialias and method in ("bilinear", "bicubic") or method in ("lanczos3", "lanczos5",
                                                                      "gaussian", "mitchellcubic"):
        return _scale_translate_matrix(n_in, n_out, method, antialias)
    return {"bilinear": _bilinear_matrix, "nearest": _nearest_matrix, "area": _area_matrix,
            "bicubic": _bicubic_matrix}[method](n_in, n_out)


# -- the separable resampling op ----------------------------------------------------------------

# the dtypes TF's resize kernels take
_RESIZE_TYPES = ("int8", "uint8", "int16", "uint16", "int32", "int64", "bfloat16", "float16",
                 "float32", "float64")
RESIZE_BILINEAR = Op("ResizeBilinear", dtypes=_RESIZE_TYPES)
RESIZE_NEAREST_NEIGHBOR = Op("ResizeNearestNeighbor", dtypes=_RESIZE_TYPES)
RESIZE_AREA = Op("ResizeArea", dtypes=_RESIZE_TYPES)
RESIZE_BICUBIC = Op("ResizeBicubic", dtypes=_RESIZE_TYPES)
SCALE_AND_TRANSLATE = Op("ScaleAndTranslate", dtypes=_RESIZE_TYPES)
# the gradient kernels: each is the adjoint of its forward op, and the forward op is its adjoint
_ADJOINT = {}
for _op in (RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR, RESIZE_BICUBIC, SCALE_AND_TRANSLATE):
    _grad_op = Op(_op.name + "Grad")
    _ADJOINT[_op], _ADJOINT[_grad_op] = _grad_op, _op
del _op, _grad_op


def resize_op(method, antialias=False):
    """The resize Op TF runs for `method` (a lowercase ResizeMethod name)."""
    if antialias and method in ("bilinear", "bicubic"):
        return SCALE_AND_TRANSLATE
    return {"bilinear": RESIZE_BILINEAR, "nearest": RESIZE_NEAREST_NEIGHBOR, "area": RESIZE_AREA,
            "bicubic": RESIZE_BICUBIC}.get(method, SCALE_AND_TRANSLATE)


def no_gradient(op):
    """A gradient rule for the ops TF registers no gradient for: backprop through them raises
    TF's LookupError."""
    def grad(*upstream):
        raise LookupError(f"gradient registry has no entry for: {op.name} (TF defines no gradient "
                          f"for this op; keep it outside the GradientTape or use another method)")
    return grad


def _grad_dtype_error(op, dtype_name):
    """The gradient rule of an op whose TF gradient kernel takes float32 originals only."""
    tf_name = {"float64": "double", "float16": "half"}.get(dtype_name, dtype_name)
    grad_op = _ADJOINT[op]

    def grad(*upstream):
        raise grad_op.invalid(f"cannot compute {grad_op.name} as input #1(zero-based) was expected to be a "
                              f"float tensor but is a {tf_name} tensor; resize float32 images to "
                              f"differentiate this method")
    return grad


def resample(x, wy, wx, op, source_dtype=None):
    """out[n] = wy @ x[n] @ wx^T per channel, for x [N, H, W, C]; recorded as `op` with its adjoint.

    `source_dtype` names the dtype of the images before their cast to float32, for the rules of
    TF's gradient rules (ResizeArea: none; ScaleAndTranslate: float32 originals only;
    ResizeBicubic: no gradient for float16 images).
    """
    v = x._value
    xp = array_module(v)
    wy, wx = coerce_to_module(wy, xp), coerce_to_module(wx, xp)  # the weights follow the images
    n, h, w, c = v.shape
    oh, ow = wy.shape[0], wx.shape[0]
    rows = xp.matmul(wy, v.reshape(n, h, w * c)).reshape(n * oh, w, c)
    out = Tensor(xp.matmul(wx, rows).reshape(n, oh, ow, c))
    if thread_state.active:
        if op is RESIZE_AREA:
            grad = no_gradient(op)
        elif op is SCALE_AND_TRANSLATE and source_dtype in ("float16", "float64"):
            grad = _grad_dtype_error(op, source_dtype)
        elif op is RESIZE_BICUBIC and source_dtype == "float16":
            grad = lambda g: None  # noqa: E731 (TF's bicubic gradient skips float16 images)
        else:
            adjoint = _ADJOINT[op]
            grad = lambda g: resample(g, wy.T, wx.T, adjoint)  # noqa: E731
        record(op, (x,), (out,), grad)
    return out


def _as_batch(images, op_name):
    """(4-D tensor, was_3d) for an image or batch of images; ValueError for other ranks."""
    x = as_tensor(images)
    if x._value.ndim == 3:
        return reshape(x, [1] + list(x.shape)), True
    if x._value.ndim != 4:
        raise ValueError(f"{op_name}: 'images' must have either 3 or 4 dimensions, got shape "
                         f"{list(x.shape)}.")
    return x, False


def unbatch(y, was_3d):
    return reshape(y, list(y.shape)[1:]) if was_3d else y


def _target_size(size, h, w, preserve_aspect_ratio):
    try:  # as TF: size converts to int32 (float sizes or an int64 tensor are refused)
        size = as_tensor(size, dtype=dtypes.int32)
    except (TypeError, ValueError):
        raise ValueError(f"resize: 'size' must be a 1-D int32 Tensor, got {size!r}; pass "
                         f"[new_height, new_width] as Python ints") from None
    if size._value.shape != (2,):
        raise ValueError(f"resize: 'size' must be a 1-D Tensor of 2 elements: new_height, new_width; "
                         f"got shape {list(size.shape)}")
    new_h, new_w = (int(v) for v in size.numpy().tolist())
    if preserve_aspect_ratio:
        scale = min(np.float32(new_h) / np.float32(h), np.float32(new_w) / np.float32(w))
        new_h = int(np.round(scale * np.float32(h)))
        new_w = int(np.round(scale * np.float32(w)))
    return new_h, new_w


# the dtypes TF's resize kernels take

@export("image.resize")
@dispatch.add_dispatch_support
def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False,
           name=None):
    """Resize [h, w, c] or [b, h, w, c] images to `size` = [new_height, new_width].

    Sampling uses half-pixel centres as TF2 does.

    Args:
      images: a 3-D image or a 4-D batch of images (channels last).
      size: [new_height, new_width] as Python ints or a 1-D int32 tensor.
      method: a `ResizeMethod` name ('bilinear', 'nearest', 'area', 'bicubic', 'lanczos3',
        'lanczos5', 'gaussian', 'mitchellcubic').
      preserve_aspect_ratio: shrink `size` so the image keeps its aspect ratio.
      antialias: widen the kernel when downsampling (bilinear and bicubic).
      name: ignored.

    Returns:
      The resized images, float32, except for 'nearest', which keeps the input dtype.
      Differentiable for floating inputs, except 'area' (TF has no ResizeArea gradient: the
      tape raises LookupError).

    Raises:
      ValueError: images of another rank, a bad `size` or an unknown method.
      InvalidArgumentError: a dtype the kernels do not take, or an empty image or output.
    """
    method = getattr(method, "value", method)
    if method not in ("bilinear", "nearest", "area", "bicubic") and method not in _KERNELS:
        raise ValueError(f"resize: Resize method is not implemented: {method}; use one of "
                         f"tf.image.ResizeMethod's (lowercase names such as 'bilinear')")
    x, was_3d = _as_batch(images, "resize")
    n, h, w, c = x._value.shape
    oh, ow = _target_size(size, h, w, preserve_aspect_ratio)
    op = resize_op(method, antialias)
    op.check_dtype(x)
    if oh <= 0 or ow <= 0:
        raise op.invalid(f"output dimensions must be positive, got {[oh, ow]}")
    if h == 0 or w == 0 or c == 0:
        raise op.invalid(f"input image must be of non-zero size, got height {h}, width {w}, channels {c}")
    source_dtype = x.dtype.name
    if method == "nearest":
        if x._value.dtype.kind not in "fc":
            xp = array_module(x._value)
            iy = xp.asarray(_nearest_index(h, oh))
            ix = xp.asarray(_nearest_index(w, ow))
            return unbatch(Tensor(x._value[:, iy][:, :, ix]), was_3d)
    elif x._value.dtype != np.float32:
        x = cast(x, "float32")
    xp = array_module(x._value)
    dt = x._value.dtype
    wy = xp.asarray(weights(method, h, oh, antialias), dtype=dt)
    wx = xp.asarray(weights(method, w, ow, antialias), dtype=dt)
    return unbatch(resample(x, wy, wx, op, source_dtype), was_3d)
