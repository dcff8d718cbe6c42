"""tf.image: resizing, cropping, flipping, dtype conversion and simple photometric ops.

Images are [height, width, channels] or batched [batch, height, width, channels]. Resizing is
separable: each method is a pair of small [out, in] interpolation matrices (built on the host
with TF2's half-pixel-centre sampling) applied along height and width with batched GEMMs. The
op is linear in the image, so its gradient is the same op with the matrices transposed.
"""
import math as _math

import numpy as np  # host-side bookkeeping only: interpolation weights, offsets, shapes

from minitf import dtypes, errors
from minitf.ops._core import Tensor, _state, record, array_module, as_tensor
from minitf.variable import Variable

__all__ = [
    "ResizeMethod", "resize", "total_variation", "convert_image_dtype", "flip_left_right",
    "flip_up_down", "random_flip_left_right", "random_flip_up_down", "random_crop",
    "central_crop", "rot90", "adjust_brightness", "adjust_contrast", "rgb_to_grayscale",
    "grayscale_to_rgb", "per_image_standardization", "resize_with_crop_or_pad",
    "crop_to_bounding_box", "pad_to_bounding_box",
]


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


def _weights(method, n_in, n_out, antialias):
    if antialias and method in ("bilinear", "bicubic") or method in ("lanczos3", "lanczos5",
                                                                      "gaussian", "mitchellcubic"):
        return _scale_translate_matrix(n_in, n_out, method, antialias)
    return {"bilinear": _bilinear_matrix, "nearest": _nearest_matrix, "area": _area_matrix,
            "bicubic": _bicubic_matrix}[method](n_in, n_out)


# -- the separable resampling op ----------------------------------------------------------------

def _no_gradient(op_name):
    """A gradient rule for the ops TF registers no gradient for: backprop through them raises
    TF's LookupError."""
    def grad(*upstream):
        raise LookupError(f"gradient registry has no entry for: {op_name} (TF defines no gradient "
                          f"for this op; keep it outside the GradientTape or use another method)")
    return grad


def _grad_dtype_error(op_name, dtype_name):
    """The gradient rule of an op whose TF gradient kernel takes float32 originals only."""
    tf_name = {"float64": "double", "float16": "half"}.get(dtype_name, dtype_name)

    def grad(*upstream):
        raise errors.invalid_argument(
            op_name + "Grad", f"cannot compute {op_name}Grad as input #1(zero-based) was expected to be "
                              f"a float tensor but is a {tf_name} tensor; resize float32 images to "
                              f"differentiate this method")
    return grad


def _resample(x, wy, wx, op_name, source_dtype=None):
    """out[n] = wy @ x[n] @ wx^T per channel, for x [N, H, W, C]; recorded with its adjoint.

    `source_dtype` names the dtype of the images before their cast to float32, for the rules of
    TF's gradient rules (ResizeArea: none; ScaleAndTranslate: float32 originals only;
    ResizeBicubic: no gradient for float16 images).
    """
    v = x._value
    xp = array_module(v)
    n, h, w, c = v.shape
    oh, ow = wy.shape[0], wx.shape[0]
    rows = xp.matmul(wy, v.reshape(n, h, w * c)).reshape(n * oh, w, c)
    out = Tensor(xp.matmul(wx, rows).reshape(n, oh, ow, c))
    if _state.active:
        if op_name == "ResizeArea":
            grad = _no_gradient(op_name)
        elif op_name == "ScaleAndTranslate" and source_dtype in ("float16", "float64"):
            grad = _grad_dtype_error(op_name, source_dtype)
        elif op_name == "ResizeBicubic" and source_dtype == "float16":
            grad = lambda g: None  # noqa: E731 (TF's bicubic gradient skips float16 images)
        else:
            grad = lambda g: _resample(g, wy.T, wx.T, op_name + "Grad")  # noqa: E731
        record(op_name, (x,), (out,), grad)
    return out


def _as_batch(images, op_name):
    """(4-D tensor, was_3d) for an image or batch of images; ValueError for other ranks."""
    from minitf.ops.array import reshape
    x = as_tensor(images)
    if x._value.ndim == 3:
        return reshape(x, [1] + list(x.shape)), True
    if x._value.ndim != 4:
        raise ValueError(f"{op_name}: 'images' must have either 3 or 4 dimensions, got shape "
                         f"{list(x.shape)}.")
    return x, False


def _unbatch(y, was_3d):
    from minitf.ops.array import reshape
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
_RESIZE_TYPES = ("int8", "uint8", "int16", "uint16", "int32", "int64", "bfloat16", "float16",
                 "float32", "float64")


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False,
           name=None):
    """Resize [h, w, c] or [b, h, w, c] images to `size` = [new_height, new_width].

    Sampling uses half-pixel centres as TF2 does. The result is float32, except for
    'nearest', which keeps the input dtype. Differentiable for floating inputs, except 'area'
    (TF registers no gradient for ResizeArea: LookupError).
    """
    from minitf.ops.constant import cast
    method = getattr(method, "value", method)
    if method not in ("bilinear", "nearest", "area", "bicubic") and method not in _KERNELS:
        raise ValueError(f"resize: Resize method is not implemented: {method}; use one of "
                         f"tf.image.ResizeMethod's (lowercase names such as 'bilinear')")
    x, was_3d = _as_batch(images, "resize")
    n, h, w, c = x._value.shape
    oh, ow = _target_size(size, h, w, preserve_aspect_ratio)
    op = {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor", "area": "ResizeArea",
          "bicubic": "ResizeBicubic"}.get(method, "ScaleAndTranslate")
    if antialias and method in ("bilinear", "bicubic"):
        op = "ScaleAndTranslate"
    if x.dtype.name not in _RESIZE_TYPES:
        raise errors.invalid_argument(op, f"Value for attr 'T' of {x.dtype.name} is not in the list of "
                                          f"allowed values: {', '.join(_RESIZE_TYPES)}; cast the images "
                                          f"with tf.cast first")
    if oh <= 0 or ow <= 0:
        raise errors.invalid_argument(op, f"output dimensions must be positive, got {[oh, ow]}")
    if h == 0 or w == 0 or c == 0:
        raise errors.invalid_argument(op, f"input image must be of non-zero size, got height {h}, "
                                          f"width {w}, channels {c}")
    source_dtype = x.dtype.name
    if method == "nearest":
        if x._value.dtype.kind not in "fc":
            xp = array_module(x._value)
            iy = xp.asarray(_nearest_index(h, oh))
            ix = xp.asarray(_nearest_index(w, ow))
            return _unbatch(Tensor(x._value[:, iy][:, :, ix]), was_3d)
    elif x._value.dtype != np.float32:
        x = cast(x, "float32")
    xp = array_module(x._value)
    dt = x._value.dtype
    wy = xp.asarray(_weights(method, h, oh, antialias), dtype=dt)
    wx = xp.asarray(_weights(method, w, ow, antialias), dtype=dt)
    return _unbatch(_resample(x, wy, wx, op, source_dtype), was_3d)


# -- simple differentiable image ops ------------------------------------------------------------

def total_variation(images, name=None):
    """Sum of absolute differences between neighbouring pixels: a scalar for one image, [batch] for 4-D."""
    from minitf.ops.math import abs as _abs, subtract
    from minitf.ops.reduce import reduce_sum
    if not isinstance(images, (Tensor, Variable)):
        # TF reads images.get_shape() before converting, so lists and arrays fail there
        raise AttributeError(f"total_variation: 'images' must be a tensor, got a "
                             f"{type(images).__name__} (it has no attribute 'get_shape'); wrap it "
                             f"with tf.constant")
    x = as_tensor(images)
    rank = x._value.ndim
    if rank == 3:
        axes = None
        down = subtract(x[1:, :, :], x[:-1, :, :])
        right = subtract(x[:, 1:, :], x[:, :-1, :])
    elif rank == 4:
        axes = [1, 2, 3]
        down = subtract(x[:, 1:, :, :], x[:, :-1, :, :])
        right = subtract(x[:, :, 1:, :], x[:, :, :-1, :])
    else:
        raise ValueError(f"total_variation: 'images' must be either 3 or 4-dimensional, got shape "
                         f"{list(x.shape)}")
    return reduce_sum(_abs(down), axis=axes) + reduce_sum(_abs(right), axis=axes)


def _image_rank(x, op_name):
    rank = x._value.ndim
    if rank < 3:
        raise ValueError(f"{op_name}: 'image' (shape {tuple(x.shape)}) must be at least three-dimensional.")
    if rank > 4:
        raise ValueError(f"{op_name}: 'image' (shape {tuple(x.shape)}) must have either 3 or 4 dimensions.")
    return rank


def _reverse(x, axis):
    """x reversed along `axis` (through differentiable slicing)."""
    key = [slice(None)] * x._value.ndim
    key[axis] = slice(None, None, -1)
    return x[tuple(key)]


def flip_left_right(image):
    """Mirror image(s) horizontally (reverse the width axis)."""
    x = as_tensor(image)
    return _reverse(x, _image_rank(x, "flip_left_right") - 2)


def flip_up_down(image):
    """Mirror image(s) vertically (reverse the height axis)."""
    x = as_tensor(image)
    return _reverse(x, _image_rank(x, "flip_up_down") - 3)


_FALLBACK_RNGS = {}


def _uniform(shape, seed):
    """Uniform [0, 1) floats as a numpy array: tf.random.uniform when available, else a numpy
    Generator seeded from `seed` (one generator per seed, so repeated calls differ)."""
    try:
        from minitf.ops.random import uniform
    except ImportError:
        uniform = None
    if uniform is not None:
        from minitf.backend import to_host
        return np.asarray(to_host(uniform(list(shape), minval=0, maxval=1, dtype="float32",
                                          seed=seed)._value), dtype=np.float64)
    rng = _FALLBACK_RNGS.get(seed)
    if rng is None:
        rng = _FALLBACK_RNGS[seed] = np.random.default_rng(seed)
    return rng.random(shape)


def _random_flip(image, seed, axis_from_end, op_name):
    from minitf.ops.array import where
    x = as_tensor(image)
    rank = _image_rank(x, op_name)
    axis = rank - axis_from_end
    if rank == 3:
        return _reverse(x, axis) if _uniform((), seed) < 0.5 else x
    flips = _uniform((x._value.shape[0],), seed) > 0.5
    mask = Tensor(array_module(x._value).asarray(flips.reshape(-1, 1, 1, 1)))
    return where(mask, _reverse(x, axis), x)


def random_flip_left_right(image, seed=None):
    """Flip each image horizontally with probability 1/2."""
    return _random_flip(image, seed, 2, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """Flip each image vertically with probability 1/2."""
    return _random_flip(image, seed, 3, "random_flip_up_down")


def random_crop(value, size, seed=None, name=None):
    """A randomly placed slice of `value` with shape `size` (same rank as value)."""
    x = as_tensor(value)
    size = np.asarray(as_tensor(size, dtype=dtypes.int32).numpy(), dtype=np.int64)  # TF: int32 sizes
    shape = np.asarray(x._value.shape, dtype=np.int64)
    try:  # TF asserts reduce_all(shape >= size), broadcasting
        fits = bool(np.all(shape >= size))
    except ValueError:
        raise errors.invalid_argument("GreaterEqual", f"random_crop: Incompatible shapes: {[len(shape)]} vs. "
                                                      f"{list(size.shape)}; size needs one entry per "
                                                      f"dimension of value (shape {shape.tolist()})") from None
    if not fits:
        raise errors.invalid_argument("random_crop", f"Need value.shape >= size, got value.shape "
                                                     f"{shape.tolist()} and size {size.tolist()}")
    if size.shape != shape.shape:
        raise errors.invalid_argument("Slice", f"random_crop: Expected begin and size arguments to be 1-D "
                                               f"tensors of size {len(shape)}, but got shapes "
                                               f"{[len(shape)]} and {list(size.shape)}")
    limits = shape - size + 1
    offsets = np.minimum((_uniform((len(shape),), seed) * limits).astype(np.int64), limits - 1)
    key = []
    for i, (o, n, d) in enumerate(zip(offsets, size, shape)):
        end = d if n == -1 else o + n  # as tf.slice: a size of -1 takes the rest
        if n < -1 or o > d or end > d:
            raise errors.invalid_argument("Slice", f"random_crop: Expected size[{i}] in [0, {max(d - o, 0)}], but "
                                                   f"got {n}")
        key.append(slice(int(o), int(end)))
    return x[tuple(key)]


def central_crop(image, central_fraction):
    """The central `central_fraction` (in (0, 1]) of each image along height and width."""
    x = as_tensor(image)
    if isinstance(central_fraction, (Tensor, Variable)):
        central_fraction = float(central_fraction.numpy())
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError(f"central_crop: central_fraction must be within (0, 1], got {central_fraction}")
    if central_fraction == 1.0:
        return x
    rank = _image_rank(x, "central_crop")
    h, w = x._value.shape[rank - 3:rank - 1]
    # TF's window: start = int((size - size * fraction) / 2) on each side
    top, left = int((h - h * central_fraction) / 2), int((w - w * central_fraction) / 2)
    key = (slice(top, h - top), slice(left, w - left))
    return x[((slice(None),) if rank == 4 else ()) + key]


def _box_value(v):
    """A window/padding argument as TF's Python code sees it: tensors become numpy scalars (so
    checks on them are 'dynamic'), Python numbers stay as they are."""
    if isinstance(v, (Tensor, Variable)):
        return np.asarray(v.numpy())[()]
    return v


def _check(cond, op_name, text):
    """TF's image `_assert`: a Python condition raises ValueError, a tensor one InvalidArgumentError."""
    if isinstance(cond, np.generic):
        if not cond:
            raise errors.InvalidArgumentError(
                None, None, f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized "
                            f"data: b'{text}' ({op_name})")
    elif not cond:
        raise ValueError(f"{op_name}: {text}")


def _box_image(image, op_name):
    """(4-D image, was_3d) with TF's checks: rank 3 or 4, non-empty inner dims (ValueError)."""
    from minitf.ops.array import reshape
    x = as_tensor(image)
    rank = x._value.ndim
    if rank not in (3, 4):
        raise ValueError(f"{op_name}: 'image' (shape {tuple(x.shape)}) must have either 3 or 4 dimensions.")
    if 0 in x._value.shape[-3:]:
        raise ValueError(f"{op_name}: inner 3 dims of 'image.shape' must be > 0: {tuple(x.shape)}")
    return (reshape(x, [1] + list(x.shape)), True) if rank == 3 else (x, False)


def _is_float(v):
    return isinstance(v, (float, np.floating))


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The [target_height, target_width] window of image(s) starting at (offset_height, offset_width).

    As TF: Python arguments that do not fit raise ValueError, tensor arguments
    InvalidArgumentError; a float offset is a Slice kernel error, a float size a TypeError.
    """
    x, was_3d = _box_image(image, "crop_to_bounding_box")
    oh, ow, th, tw = (_box_value(v) for v in (offset_height, offset_width, target_height, target_width))
    h, w = x._value.shape[1:3]
    op = "crop_to_bounding_box"
    _check(ow >= 0, op, "offset_width must be >= 0.")
    _check(oh >= 0, op, "offset_height must be >= 0.")
    _check(tw > 0, op, "target_width must be > 0.")
    _check(th > 0, op, "target_height must be > 0.")
    _check(w >= tw + ow, op, "width must be >= target + offset.")
    _check(h >= th + oh, op, "height must be >= target + offset.")
    for v in (th, tw):
        if isinstance(v, float):
            raise TypeError(f"{op}: Cannot convert {v!r} to EagerTensor of dtype int32; pass the target "
                            f"size as an int")
    if _is_float(oh) or _is_float(ow):
        raise errors.invalid_argument("Slice", f"Value for attr 'Index' of float is not in the list of "
                                               f"allowed values: int32, int64 ({op}: pass integer offsets)")
    if any(isinstance(v, np.int64) for v in (oh, ow)):
        raise errors.invalid_argument("Slice", "cannot compute Slice as input #2(zero-based) was expected "
                                               "to be a int64 tensor but is a int32 tensor; pass int32 "
                                               "offsets")
    oh, ow, th, tw = int(oh), int(ow), int(th), int(tw)
    return _unbatch(x[:, oh:oh + th, ow:ow + tw], was_3d)


def _pad_spatial(x, top, bottom, left, right):
    """Zero-pad height/width of a 4-D tensor; gradient slices the padding back off."""
    v = x._value
    xp = array_module(v)
    n, h, w, c = v.shape
    out = xp.zeros((n, h + top + bottom, w + left + right, c), dtype=v.dtype)
    key = (slice(None), slice(top, top + h), slice(left, left + w))
    out[key] = v
    y = Tensor(out)
    if _state.active and v.dtype.kind in "fc":
        record("Pad", (x,), (y,), lambda g: g[key])
    return y


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Zero-pad image(s) to [target_height, target_width], placing them at the given offset.

    As TF: Python arguments that do not fit raise ValueError, tensor arguments
    InvalidArgumentError; float arguments are a Pad kernel error (InvalidArgumentError).
    """
    x, was_3d = _box_image(image, "pad_to_bounding_box")
    oh, ow, th, tw = (_box_value(v) for v in (offset_height, offset_width, target_height, target_width))
    h, w = x._value.shape[1:3]
    right, bottom = tw - ow - w, th - oh - h
    op = "pad_to_bounding_box"
    _check(oh >= 0, op, "offset_height must be >= 0")
    _check(ow >= 0, op, "offset_width must be >= 0")
    _check(right >= 0, op, "width must be <= target - offset")
    _check(bottom >= 0, op, "height must be <= target - offset")
    if any(_is_float(v) for v in (oh, bottom, ow, right)):
        raise errors.invalid_argument("Pad", f"Value for attr 'Tpaddings' of float is not in the list of "
                                             f"allowed values: int32, int64 ({op}: pass integer sizes)")
    return _unbatch(_pad_spatial(x, int(oh), int(bottom), int(ow), int(right)), was_3d)


def resize_with_crop_or_pad(image, target_height, target_width):
    """Centrally crop and/or zero-pad image(s) to [target_height, target_width].

    Python targets that are not positive raise ValueError, tensor targets InvalidArgumentError.
    """
    x, was_3d = _box_image(image, "resize_with_crop_or_pad")
    th, tw = _box_value(target_height), _box_value(target_width)
    op = "resize_with_crop_or_pad"
    _check(tw > 0, op, "target_width must be > 0.")
    _check(th > 0, op, "target_height must be > 0.")

    def max_(a, b):
        return np.maximum(a, b) if isinstance(a, np.generic) or isinstance(b, np.generic) else max(a, b)

    def min_(a, b):
        return np.minimum(a, b) if isinstance(a, np.generic) or isinstance(b, np.generic) else min(a, b)

    h, w = x._value.shape[1:3]
    dw, dh = tw - w, th - h
    cropped = crop_to_bounding_box(x, max_(-dh // 2, 0), max_(-dw // 2, 0), min_(th, h), min_(tw, w))
    return _unbatch(pad_to_bounding_box(cropped, max_(dh // 2, 0), max_(dw // 2, 0), th, tw), was_3d)


def rot90(image, k=1, name=None):
    """Rotate image(s) counter-clockwise by k * 90 degrees."""
    from minitf.ops.array import transpose
    x = as_tensor(image)
    rank = _image_rank(x, "rot90")
    k = int(as_tensor(k, dtype=dtypes.int32).numpy()) % 4  # TF converts k to int32 (1.0: TypeError)
    h_axis = rank - 3
    perm = list(range(rank))
    perm[h_axis], perm[h_axis + 1] = perm[h_axis + 1], perm[h_axis]
    if k == 0:
        return x
    if k == 1:
        return transpose(_reverse(x, h_axis + 1), perm)
    if k == 2:
        return _reverse(_reverse(x, h_axis), h_axis + 1)
    return _reverse(transpose(x, perm), h_axis + 1)


# -- dtype conversion and photometric ops -----------------------------------------------------

def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Convert between image dtypes, rescaling: floats live in [0, 1], integers in [0, dtype.max].

    float -> int multiplies by (max + 0.5) and truncates; `saturate=True` clips first.
    """
    from minitf.ops.constant import cast, identity
    from minitf.ops.clip import saturate_cast
    from minitf.ops.math import multiply, floordiv
    x = as_tensor(image)
    dtype = dtypes.as_dtype(dtype)
    src = x.dtype
    if not (dtype.is_floating or dtype.is_integer):
        raise AttributeError(f"convert_image_dtype: dtype must be either floating point or integer, "
                             f"got {dtype.name}")
    if not (src.is_floating or src.is_integer):
        raise AttributeError(f"convert_image_dtype: image dtype must be floating point or integer, "
                             f"got {src.name}")
    if src == dtype:
        return identity(x)
    convert = saturate_cast if saturate else cast
    if src.is_integer and dtype.is_integer:
        in_max, out_max = int(src.max), int(dtype.max)
        if in_max > out_max:
            return convert(floordiv(x, (in_max + 1) // (out_max + 1)), dtype)
        return multiply(convert(x, dtype), (out_max + 1) // (in_max + 1))
    if src.is_floating and dtype.is_floating:
        return convert(x, dtype)
    if src.is_integer:
        return multiply(cast(x, dtype), 1.0 / int(src.max))
    return convert(multiply(x, float(dtype.max) + 0.5), dtype)


def _to_working_float(x, keep):
    """(float image, original dtype): dtypes in `keep` are used as they are, others go to float32."""
    if x.dtype.name in keep:
        return x, x.dtype
    return convert_image_dtype(x, "float32"), x.dtype


def adjust_brightness(image, delta):
    """Add `delta` to every pixel (in [0, 1] float units for integer images)."""
    from minitf.ops.constant import cast
    x = as_tensor(image)
    flt, orig = _to_working_float(x, ("float16", "float32", "float64", "bfloat16"))
    adjusted = flt + cast(delta, flt.dtype)
    return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_contrast(images, contrast_factor):
    """(x - mean) * contrast_factor + mean, with the mean taken per image and channel.

    As TF's AdjustContrastv2 kernel: float16 images have no CPU kernel (NotFoundError), images
    need at least 3 axes and `contrast_factor` must be a float32 scalar (InvalidArgumentError),
    and there is no gradient (LookupError when a tape backpropagates through it).
    """
    x = as_tensor(images)
    flt, orig = _to_working_float(x, ("float16", "float32"))
    if flt.dtype.name == "float16":
        raise errors.NotFoundError(None, None, "adjust_contrast: Could not find device for node: "
                                               "AdjustContrastv2[T=DT_HALF]: TF has no CPU kernel for "
                                               "float16 images; cast them to float32 first")
    if isinstance(contrast_factor, (Tensor, Variable)) and contrast_factor.dtype.name != "float32":
        raise errors.invalid_argument(
            "AdjustContrastv2", f"cannot compute AdjustContrastv2 as input #1(zero-based) was expected "
                                f"to be a float tensor but is a {contrast_factor.dtype.name} tensor; cast "
                                f"contrast_factor to float32")
    factor = as_tensor(contrast_factor, dtype=dtypes.float32)
    if factor._value.ndim != 0:
        raise errors.invalid_argument("AdjustContrastv2", f"contrast_factor must be scalar: "
                                                          f"{list(factor.shape)}")
    if flt._value.ndim < 3:
        raise errors.invalid_argument("AdjustContrastv2", f"input must be at least 3-D, got shape "
                                                          f"{list(flt.shape)}")
    v = flt._value
    mean = v.mean(axis=(-3, -2), keepdims=True, dtype=v.dtype) if v.size else v.sum(axis=(-3, -2), keepdims=True)
    y = Tensor(((v - mean) * factor._value + mean).astype(v.dtype, copy=False))
    if _state.active:
        record("AdjustContrastv2", (flt, factor), (y,), _no_gradient("AdjustContrastv2"))
    return convert_image_dtype(y, orig, saturate=True)


def rgb_to_grayscale(images, name=None):
    """Weighted sum 0.2989 R + 0.5870 G + 0.1140 B, keeping a last axis of size 1."""
    from minitf.ops.reduce import reduce_sum
    x = as_tensor(images)
    if x._value.ndim < 1:
        raise ValueError("rgb_to_grayscale: 'images' must have a last dimension of 3 (RGB), got a scalar")
    if x._value.shape[-1] != 3:  # TF contracts the last axis with the 3 weights: a MatMul error
        raise errors.invalid_argument("MatMul", f"rgb_to_grayscale: the last dimension must be 3 (RGB), "
                                                f"got shape {list(x.shape)}")
    flt = convert_image_dtype(x, "float32")
    weights = Tensor(array_module(flt._value).asarray([0.2989, 0.5870, 0.1140], dtype=flt._value.dtype))
    gray = reduce_sum(flt * weights, axis=-1, keepdims=True)
    return convert_image_dtype(gray, x.dtype)


def grayscale_to_rgb(images, name=None):
    """Repeat a single grayscale channel three times."""
    from minitf.ops.array import broadcast_to
    if not isinstance(images, (Tensor, Variable)):
        # TF reads images.get_shape() before converting, so lists and arrays fail there
        raise AttributeError(f"grayscale_to_rgb: 'images' must be a tensor, got a {type(images).__name__} "
                             f"(it has no attribute 'get_shape'); wrap it with tf.constant")
    x = as_tensor(images)
    if x._value.ndim < 2 or x._value.shape[-1] != 1:
        raise ValueError(f"grayscale_to_rgb: the last dimension must be 1, got shape {list(x.shape)}")
    if x.dtype.name == "uint16":  # TF tiles the channel, and Tile has no CPU kernel for uint16
        raise errors.UnimplementedError(None, None, "grayscale_to_rgb: TileOp : The input data type is "
                                                    "not supported, DataType : uint16; cast to int32 first "
                                                    "[Op:Tile]")
    return broadcast_to(x, list(x.shape)[:-1] + [3])


def per_image_standardization(image):
    """(x - mean) / max(stddev, 1 / sqrt(num_pixels)) over the last three axes, in float32.

    As TF: any dtype is cast to float32 first (float64 too), the image needs at least three
    axes, and those three must be non-empty (ValueError).
    """
    from minitf.ops.constant import cast
    from minitf.ops.math import maximum, sqrt, square
    from minitf.ops.reduce import reduce_mean
    x = as_tensor(image)
    if x._value.ndim < 3:
        raise ValueError(f"per_image_standardization: 'image' (shape {tuple(x.shape)}) must be at least "
                         f"three-dimensional.")
    inner = tuple(x._value.shape[-3:])
    if 0 in inner:
        raise ValueError(f"per_image_standardization: inner 3 dims of 'image.shape' must be > 0: "
                         f"{tuple(x.shape)}")
    x = cast(x, "float32")
    axes = [-1, -2, -3]
    mean = reduce_mean(x, axis=axes, keepdims=True)
    centered = x - mean
    variance = reduce_mean(square(centered), axis=axes, keepdims=True)
    floor = np.float32(1.0 / _math.sqrt(inner[0] * inner[1] * inner[2]))
    # A variance below floor**2 never reaches the output (max picks the floor), and TF's sqrt
    # gradient is 0 there (a zero upstream), so clamp it: a constant image gets finite gradients.
    stddev = sqrt(maximum(variance, Tensor(array_module(x._value).asarray(floor * floor * 0.25))))
    return centered / maximum(stddev, Tensor(array_module(x._value).asarray(floor)))
