"""Image quality and image derivatives: tf.image.psnr, ssim, ssim_multiscale and image_gradients.

Each is TF's composition of differentiable ops (Gaussian depthwise filtering, average pooling,
elementwise arithmetic), so gradients flow to the images as in TF. As in TF, psnr and the SSIMs
convert images with convert_image_dtype to float32 first (uint8 images and their max_val of 255
become [0, 1]), so they return float32 whatever the input's dtype.
"""
import numpy as np

from minitf import dispatch
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops._core import Tensor, array_module, as_tensor
from minitf.ops.constant import cast
from minitf.ops.conv import depthwise_conv2d
from minitf.ops.pooling import avg_pool
from minitf.ops.gather import pad
from minitf.ops.image_color import convert_image_dtype
from minitf.ops.indexing import getitem
from minitf.ops.math import add, multiply, pow, squared_difference, subtract, truediv
from minitf.ops.math_unary import log, square
from minitf.ops.nn import relu
from minitf.ops.reduce import reduce_mean, reduce_prod
from minitf.ops.shaping import concat, reshape, stack
from minitf.api_export import export

__all__ = ["psnr", "ssim", "ssim_multiscale", "image_gradients"]

_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _check_pair(img1, img2, op_name):
    """TF's static checks: rank >= 3, equal [h, w, c], batch dimensions that broadcast."""
    s1, s2 = tuple(img1._value.shape), tuple(img2._value.shape)
    for s in (s1, s2):
        if len(s) < 3:
            raise ValueError(f"Shape {s} must have rank at least 3 ({op_name} takes images [..., height, "
                             f"width, channels])")
    if s1[-3:] != s2[-3:]:
        raise ValueError(f"Shapes {s1[-3:]} and {s2[-3:]} are incompatible: {op_name} compares images of "
                         f"one [height, width, channels]")
    for d1, d2 in zip(reversed(s1[:-3]), reversed(s2[:-3])):
        if not (d1 == 1 or d2 == 1 or d1 == d2):
            raise ValueError(f"Two images are not compatible: {s1} and {s2}")


def _as_float32(img1, img2, max_val):
    """TF's conversion: max_val cast to img1's dtype, then everything through convert_image_dtype."""
    max_val = convert_image_dtype(cast(max_val, img1.dtype), dtypes.float32)
    return convert_image_dtype(img1, dtypes.float32), convert_image_dtype(img2, dtypes.float32), max_val


@export("image.psnr")
@dispatch.add_dispatch_support
def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio in dB: 20 log10(max_val) - 10 log10(mse) over the last three
    dimensions, per image; +inf for identical images.

    Args:
      a, b: images [..., height, width, channels] of one shape (batch dimensions broadcast).
      max_val: the dynamic range (255 for uint8, 1.0 for float images in [0, 1]).
      name: ignored.

    Returns:
      float32, shape of the batch dimensions.

    Raises:
      ValueError: rank < 3 or different image shapes.
    """
    a, b = as_tensor(a), as_tensor(b)
    a32, b32, peak = _as_float32(a, b, max_val)
    _check_pair(a, b, "psnr")
    mse = reduce_mean(squared_difference(a32, b32), [-3, -2, -1])
    xp = array_module(mse._value)
    c20 = Tensor(xp.asarray(20.0 / np.log(10.0), np.float32))
    c10 = Tensor(xp.asarray(np.float32(10 / np.log(10)), np.float32))
    return subtract(multiply(c20, log(peak)), multiply(c10, log(mse)))


def _gauss_kernel(size, sigma, channels, np_dtype, xp):
    """TF's _fspecial_gauss tiled per channel: [size, size, channels, 1], summing to 1."""
    coords = np.arange(size, dtype=np_dtype) - np_dtype(size - 1) / np_dtype(2.0)
    g = np.square(coords) * (np_dtype(-0.5) / np.square(np_dtype(sigma)))
    g = (g[None, :] + g[:, None]).reshape(-1)
    g = np.exp(g - g.max())
    g = (g / g.sum()).astype(np_dtype).reshape(size, size, 1, 1)
    return Tensor(xp.asarray(np.tile(g, (1, 1, channels, 1))))


def ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2, index_map=False):
    """(ssim, contrast-structure) per channel: means over the filtered map unless index_map."""
    shape1, shape2 = tuple(img1._value.shape), tuple(img2._value.shape)
    for s in (shape1, shape2):
        if s[-3] < filter_size or s[-2] < filter_size:
            raise errors.invalid_argument(
                "Assert", f"assertion failed: image size {list(s)} is smaller than filter_size "
                          f"{filter_size}; pass a smaller filter_size or larger images")
    xp = array_module(img1._value)
    kernel = _gauss_kernel(filter_size, filter_sigma, shape1[-1], img1._value.dtype.type, xp)

    def reducer(x):
        shape = tuple(x._value.shape)
        flat = reshape(x, (-1,) + shape[-3:])
        y = depthwise_conv2d(flat, kernel, strides=[1, 1, 1, 1], padding="VALID")
        return reshape(y, shape[:-3] + tuple(y._value.shape[1:]))

    dt = img1._value.dtype.type
    scalar = lambda v: Tensor(xp.asarray(v, dt))  # noqa: E731
    c1 = square(multiply(scalar(k1), max_val))
    c2 = square(multiply(scalar(k2), max_val))
    mean0, mean1 = reducer(img1), reducer(img2)
    num0 = multiply(multiply(mean0, mean1), scalar(2.0))
    den0 = add(square(mean0), square(mean1))
    luminance = truediv(add(num0, c1), add(den0, c1))
    num1 = multiply(reducer(multiply(img1, img2)), scalar(2.0))
    den1 = reducer(add(square(img1), square(img2)))
    cs = truediv(add(subtract(num1, num0), c2), add(subtract(den1, den0), c2))
    if index_map:
        return multiply(luminance, cs), cs
    return reduce_mean(multiply(luminance, cs), [-3, -2]), reduce_mean(cs, [-3, -2])


@export("image.ssim")
@dispatch.add_dispatch_support
def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False):
    """Structural similarity of two batches of images (Wang et al. 2004) with TF's constants: an
    11x11 Gaussian window of sigma 1.5 (VALID: no padding), k1 = 0.01, k2 = 0.03.

    Args:
      img1, img2: images [..., height, width, channels] (uint8, other integers, or floats in
        [0, max_val]); batch dimensions broadcast.
      max_val: the dynamic range (255 for uint8 images).
      filter_size, filter_sigma, k1, k2: the Gaussian window and the stabilizing constants.
      return_index_map: return the per-pixel SSIM map instead of its mean.
      name: (not a TF argument here).

    Returns:
      float32: one value per image (mean over the map and channels), or the map
      [..., height - filter_size + 1, width - filter_size + 1] averaged over channels.
      Differentiable with respect to both images.

    Raises:
      ValueError: rank < 3 or different image shapes. InvalidArgumentError: an image smaller
        than filter_size.
    """
    img1, img2 = as_tensor(img1), as_tensor(img2)
    _check_pair(img1, img2, "ssim")
    a, b, peak = _as_float32(img1, img2, max_val)
    per_channel, _ = ssim_per_channel(a, b, peak, int(filter_size), float(filter_sigma), k1, k2,
                                       return_index_map)
    return reduce_mean(per_channel, [-1])


def _downscale(images, tails):
    """One MS-SSIM level down: symmetric padding to even sizes, then 2x2 average pooling."""
    out = []
    for x, tail in zip(images, tails):
        flat = reshape(x, (-1,) + tail)
        rem = (tail[0] % 2, tail[1] % 2)
        if any(rem):
            flat = pad(flat, [[0, 0], [0, rem[0]], [0, rem[1]], [0, 0]], mode="SYMMETRIC")
        out.append(avg_pool(flat, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID"))
    return out


@export("image.ssim_multiscale")
@dispatch.add_dispatch_support
def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11, filter_sigma=1.5,
                    k1=0.01, k2=0.03):
    """Multi-scale SSIM (Wang, Simoncelli and Bovik 2003): contrast-structure at each of
    len(power_factors) scales (halved by 2x2 average pooling) and the SSIM at the last,
    each clipped at 0 and raised to its power factor, multiplied; the mean over channels.

    The images must hold filter_size pixels at the coarsest scale: for the default 5 scales and
    11x11 window, at least 161x161. Returns float32 [batch...]; differentiable.

    Raises:
      ValueError: rank < 3 or different image shapes. InvalidArgumentError: images too small.
    """
    img1, img2 = as_tensor(img1), as_tensor(img2)
    _check_pair(img1, img2, "ssim_multiscale")
    a, b, peak = _as_float32(img1, img2, max_val)
    heads = [tuple(x._value.shape[:-3]) for x in (a, b)]
    tails = [tuple(x._value.shape[-3:]) for x in (a, b)]
    imgs = [a, b]
    mcs = []
    per_channel = None
    for k in range(len(power_factors)):
        if k > 0:
            down = _downscale(imgs, tails)
            tails = [tuple(x._value.shape[1:]) for x in down]
            imgs = [reshape(x, h + t) for x, h, t in zip(down, heads, tails)]
        per_channel, cs = ssim_per_channel(imgs[0], imgs[1], peak, int(filter_size), float(filter_sigma), k1, k2)
        mcs.append(relu(cs))
    mcs.pop()
    stacked = stack(mcs + [relu(per_channel)], axis=-1)
    xp = array_module(stacked._value)
    factors = Tensor(xp.asarray(np.asarray(power_factors, dtype=np.float32)))
    return reduce_mean(reduce_prod(pow(stacked, factors), [-1]), [-1])


@export("image.image_gradients")
@dispatch.add_dispatch_support
def image_gradients(image):
    """Forward differences (dy, dx) of images [batch, height, width, depth]: dy[i] = image[i + 1]
    - image[i] down the rows, dx across the columns, each 0 in its last row / column.

    Raises:
      AttributeError: a non-tensor (TF reads its get_shape first). ValueError: not 4-D.
    """
    if not hasattr(image, "get_shape"):  # TF reads image.get_shape() before converting
        raise AttributeError(f"'{type(image).__name__}' object has no attribute 'get_shape': "
                             f"image_gradients takes a tensor")
    x = as_tensor(image)
    if x._value.ndim != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {x.shape}.")
    b, h, w, d = x._value.shape
    xp = array_module(x._value)
    dy = subtract(getitem(x, (slice(None), slice(1, None))), getitem(x, (slice(None), slice(None, -1))))
    dx = subtract(getitem(x, (slice(None), slice(None), slice(1, None))),
                  getitem(x, (slice(None), slice(None), slice(None, -1))))
    # TF appends one zero row / column; for an empty height or width the reshape back then fails
    dy = concat([dy, Tensor(xp.zeros((b, 1, w, d), x._value.dtype))], 1)
    dx = concat([dx, Tensor(xp.zeros((b, h, 1, d), x._value.dtype))], 2)
    return reshape(dy, (b, h, w, d)), reshape(dx, (b, h, w, d))
