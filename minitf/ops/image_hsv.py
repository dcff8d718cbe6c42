"""tf.image's HSV colour space: rgb_to_hsv, hsv_to_rgb, adjust_hue and adjust_saturation.

rgb_to_hsv carries TF's gradient rule; hsv_to_rgb, like TF's HSVToRGB, is not differentiable;
adjust_hue and adjust_saturation run TF's AdjustHue/AdjustSaturation kernels, which have no
gradient in TF (the tape raises LookupError), on float32 copies of the images.
"""
from minitf import dispatch
from minitf.ops._core import Op, Tensor, thread_state, as_tensor, record
from minitf.ops.array import ones_like, stack, unstack, where, zeros_like
from minitf.ops.compare import equal, greater, less, logical_and
from minitf.ops.constant import cast
from minitf.ops.image_color import convert_image_dtype
from minitf.ops.image_resize import no_gradient
from minitf.ops.math import abs as abs_, clip_by_value, divide_no_nan, floor, floormod, square
from minitf.ops.reduce import reduce_max, reduce_min
from minitf.recording import stop_recording_all
from minitf.api_export import export

__all__ = ["rgb_to_hsv", "hsv_to_rgb", "adjust_hue", "adjust_saturation"]

_FLOAT_IMAGES = ("float16", "bfloat16", "float32", "float64")
RGB_TO_HSV = Op("RGBToHSV", dtypes=_FLOAT_IMAGES)
HSV_TO_RGB = Op("HSVToRGB", dtypes=_FLOAT_IMAGES)
ADJUST_HUE = Op("AdjustHue", dtypes=("float16", "float32"))
ADJUST_SATURATION = Op("AdjustSaturation", dtypes=("float16", "float32"))


def _three_channels(x, op):
    if x._value.ndim < 1 or x._value.shape[-1] != 3:
        raise op.invalid(f"input must have 3 channels but instead has "
                         f"{x._value.shape[-1] if x._value.ndim else 0} channels (shape {list(x.shape)})")


@export("image.rgb_to_hsv")
@dispatch.add_dispatch_support
def rgb_to_hsv(images, name=None):
    """Hue, saturation and value in [0, 1] of RGB images in [0, 1] (last axis: the 3 channels).

    Hue is 0 where the pixel is grey; saturation is 0 where value is 0. Differentiable with
    TF's rule, which breaks ties between channels in the order red, green, blue.
    """
    x = as_tensor(images)
    RGB_TO_HSV.check_dtype(x)
    _three_channels(x, RGB_TO_HSV)
    with stop_recording_all():
        y = _hsv_of(x)
    if thread_state.active:
        record(RGB_TO_HSV, (x,), (y,), lambda g: _rgb_to_hsv_grad(x, y, g))
    return y


def _hsv_of(x):
    r, g, b = unstack(x, axis=-1)
    value = reduce_max(x, axis=-1)
    spread = value - reduce_min(x, axis=-1)
    safe_value = where(greater(value, 0), value, value + 1)
    saturation = where(greater(value, 0), spread / safe_value, zeros_like(value))
    safe_spread = where(greater(spread, 0), spread, spread + 1)
    norm = 1.0 / (6.0 * safe_spread)
    hue = where(equal(r, value), norm * (g - b),
                where(equal(g, value), norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0))
    hue = where(greater(spread, 0), hue, zeros_like(hue))
    hue = where(less(hue, 0), hue + 1.0, hue)
    return stack([hue, saturation, value], axis=-1)


def _rgb_to_hsv_grad(x, hsv, grad):
    """TF's RGBToHSV gradient (image_grad.py): the piecewise derivative of the conversion, with
    the channel that is max or min chosen in the order red, green, blue on ties."""
    dt = x.dtype
    r, g, b = unstack(x, axis=-1)
    _, sat, val = unstack(hsv, axis=-1)
    gh, gs, gv = unstack(grad, axis=-1)

    def mask(c):
        return cast(c, dt)

    def inv(t):
        return divide_no_nan(ones_like(t), t)
    r_max, g_max, b_max = (mask(logical_and(r >= b, r >= g)), mask(logical_and(g > r, g >= b)),
                           mask(logical_and(b > r, b > g)))
    r_min, g_min, b_min = (mask(logical_and(r < b, r < g)), mask(logical_and(g <= r, g < b)),
                           mask(logical_and(b <= r, b <= g)))
    r_pos, g_pos, b_pos = mask(r > 0), mask(g > 0), mask(b > 0)
    ds_dr = r_pos * (r_max * (g_min * g + b_min * b) * inv(square(r)) - r_min * inv(g_max * g + b_max * b))
    ds_dg = g_pos * (g_max * (r_min * r + b_min * b) * inv(square(g)) - g_min * inv(r_max * r + b_max * b))
    ds_db = b_pos * (b_max * (g_min * g + r_min * r) * inv(square(b)) - b_min * inv(g_max * g + r_max * r))
    spread2 = inv(square(sat)) * inv(square(val))  # 1 / (max - min)^2
    dh_dr = (-r_pos * r_max * (g - b) * spread2 + g_pos * g_max * r_min * (b - g) * inv(square(r - g))
             - g_pos * g_max * b_min * inv(g - b) + b_pos * b_max * r_min * (b - g) * inv(square(b - r))
             + b_pos * b_max * g_min * inv(b - g))
    dh_dg = (-g_pos * g_max * (b - r) * spread2 + r_pos * r_max * g_min * (r - b) * inv(square(r - g))
             + r_pos * r_max * b_min * inv(r - b) + b_pos * b_max * g_min * (r - b) * inv(square(b - g))
             - b_pos * b_max * r_min * inv(b - r))
    dh_db = (-b_pos * b_max * (r - g) * spread2 + r_pos * r_max * b_min * (g - r) * inv(square(r - b))
             - r_pos * r_max * g_min * inv(r - g) + g_pos * g_max * b_min * (g - r) * inv(square(g - b))
             + g_pos * g_max * r_min * inv(g - r))
    sixth = 60.0 / 360.0  # TF's derivative in degrees, brought back to hue in [0, 1]
    return stack([gv * r_max + gs * ds_dr + gh * dh_dr * sixth,
                  gv * g_max + gs * ds_dg + gh * dh_dg * sixth,
                  gv * b_max + gs * ds_db + gh * dh_db * sixth], axis=-1)


@export("image.hsv_to_rgb")
@dispatch.add_dispatch_support
def hsv_to_rgb(images, name=None):
    """RGB images from hue, saturation and value in [0, 1] (last axis: the 3 channels).

    Not differentiable, as in TF (HSVToRGB has no gradient: the tape gives None).
    """
    x = as_tensor(images)
    HSV_TO_RGB.check_dtype(x)
    _three_channels(x, HSV_TO_RGB)
    with stop_recording_all():  # TF's HSVToRGB is not differentiable: the gradient is None
        return _rgb_of(x)


def _rgb_of(x):
    h, s, v = unstack(x, axis=-1)
    c = s * v
    m = v - c
    dh = h * 6.0
    sector = floor(dh)
    xc = c * (1.0 - abs_(floormod(dh, 2.0) - 1.0))
    zero = zeros_like(c)
    # (r, g, b) before adding m, by sector 0..5 of the hue circle; anything else is black
    table = [(c, xc, zero), (xc, c, zero), (zero, c, xc), (zero, xc, c), (xc, zero, c), (c, zero, xc)]
    rgb = [zero, zero, zero]
    for k, parts in enumerate(table):
        hit = equal(sector, float(k))
        rgb = [where(hit, p, acc) for p, acc in zip(parts, rgb)]
    return stack([channel + m for channel in rgb], axis=-1)


def _adjust(image, op, change):
    """Run `change(hsv) -> hsv` in float32 on images of any dtype, back in their dtype, recorded
    as `op` with no gradient (as in TF)."""
    x = as_tensor(image)
    _three_channels(x, op)
    work = convert_image_dtype(x, "float32") if x.dtype.name != "float16" else cast(x, "float32")
    with stop_recording_all():
        out = hsv_to_rgb(change(rgb_to_hsv(work)))
    out = convert_image_dtype(out, x.dtype) if x.dtype.name != "float16" else cast(out, "float16")
    y = Tensor(out._value)
    if thread_state.active and x.dtype.is_floating:
        record(op, (x,), (y,), no_gradient(op))
    return y


@export("image.adjust_hue")
@dispatch.add_dispatch_support
def adjust_hue(image, delta, name=None):
    """Rotate the hue of RGB images by `delta`, a fraction of the colour circle in [-1, 1].

    Raises:
      ValueError: `delta` outside [-1, 1].
      InvalidArgumentError: the last axis is not 3 channels.
    """
    delta = float(delta)
    if not -1.0 <= delta <= 1.0:
        raise ValueError("delta must be in the interval [-1, 1]")

    def change(hsv):
        h, s, v = unstack(hsv, axis=-1)
        return stack([floormod(h + delta, 1.0), s, v], axis=-1)
    return _adjust(image, ADJUST_HUE, change)


@export("image.adjust_saturation")
@dispatch.add_dispatch_support
def adjust_saturation(image, saturation_factor, name=None):
    """Scale the saturation of RGB images by `saturation_factor`, clipped to [0, 1].

    Raises:
      InvalidArgumentError: the last axis is not 3 channels.
    """
    factor = float(saturation_factor)

    def change(hsv):
        h, s, v = unstack(hsv, axis=-1)
        return stack([h, clip_by_value(s * factor, 0.0, 1.0), v], axis=-1)
    return _adjust(image, ADJUST_SATURATION, change)

