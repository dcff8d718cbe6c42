"""tf.keras.preprocessing.image's array transforms: apply_affine_transform, the random rotation,
shift, shear and zoom, channel and brightness shifts, and smart_resize.

These are Keras 3's legacy helpers (keras/src/legacy/preprocessing/image.py) on numpy images of
rank 3, drawing from numpy's global random state in Keras' order, so a seeded run gives Keras'
parameters. Keras resamples with `scipy.ndimage.affine_transform`; minitf has no scipy, so
`affine_transform` below reimplements its order-0 and order-1 splines and its boundary modes
('constant', 'nearest', 'reflect', 'wrap', with scipy's own index arithmetic) in numpy.
"""
import numpy as np

from minitf.convert import convert_to_tensor
from minitf.ops import image_resize, shaping
from minitf.utils import image_utils
from minitf.api_export import export

__all__ = ["affine_transform", "apply_affine_transform", "transform_matrix_offset_center", "flip_axis",
           "random_rotation", "random_shift", "random_shear", "random_zoom", "apply_channel_shift",
           "random_channel_shift", "apply_brightness_shift", "random_brightness", "smart_resize"]

FILL_MODES = ("constant", "nearest", "reflect", "wrap")


# -- scipy.ndimage.affine_transform for splines of order 0 and 1 ---------------------------------

def _map_coordinate(c, n, mode):
    """scipy's map_coordinate: coordinates outside [0, n - 1] mapped by the boundary mode
    (float64 arrays; -1 marks a point that takes the constant value)."""
    c = np.array(c, dtype=np.float64)
    low, high = c < 0, c > n - 1
    if mode == "constant":
        c[low | high] = -1.0
        return c
    if mode == "nearest":
        c[low], c[high] = 0.0, n - 1.0
        return c
    if n <= 1:
        c[low | high] = 0.0
        return c
    v, u = c[low], c[high]
    if mode == "reflect":  # half-sample symmetric, period 2n
        period = 2 * n
        far = v < -period
        v[far] = period * np.trunc(-v[far] / period) + v[far]
        c[low] = np.where(v < -n, v + period, np.where(v > -1e-15, 1e-15, -v) - 1)
        u = u - period * np.trunc(u / period)
        c[high] = np.where(u >= n, period - u - 1, u)
    elif mode == "mirror":  # whole-sample symmetric, period 2n - 2
        period = 2 * n - 2
        v = period * np.trunc(-v / period) + v
        c[low] = np.where(v <= 1 - n, v + period, -v)
        u = u - period * np.trunc(u / period)
        c[high] = np.where(u >= n, period - u, u)
    else:  # wrap: scipy's, period n - 1 (not 'grid-wrap')
        period = n - 1
        c[low] = v + period * (np.trunc(-v / period) + 1)
        c[high] = u - period * np.trunc(u / period)
    return c


# the boundary rule of the spline support indices: scipy mirrors for 'constant' and 'wrap'
_SUPPORT_MODE = {"constant": "mirror", "wrap": "mirror", "nearest": "nearest", "reflect": "reflect"}


def _support(c, n, order, mode):
    """[(index, weight)] of the spline support along one axis (weight None for order 0)."""
    start = np.floor(c + 0.5) if order == 0 else np.floor(c)
    indices = [start + k for k in range(order + 1)]
    indices = [np.trunc(_map_coordinate(i, n, _SUPPORT_MODE[mode])).astype(np.int64) for i in indices]
    if order == 0:
        return [(indices[0], None)]
    w0 = 1.0 - (c - start)
    return [(indices[0], w0), (indices[1], 1.0 - w0)]


def _store(t, dtype):
    """scipy's conversion of the float64 sums to the output dtype (integers round half away)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "u":
        t = np.minimum(np.where(t > 0, t + 0.5, 0.0), np.iinfo(dtype).max)
        return np.trunc(t).astype(dtype)
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        t = np.clip(np.where(t > 0, t + 0.5, t - 0.5), info.min, info.max)
        return np.trunc(t).astype(dtype)
    return t.astype(dtype)


def affine_transform(image, matrix, offset, order=1, mode="nearest", cval=0.0):
    """scipy.ndimage.affine_transform of the 2-D `image` (or of each [h, w] plane of a
    [planes, h, w] stack): output[o] = input[matrix @ o + offset], with spline `order` 0 or 1.

    Raises:
      ValueError: an unknown mode.
      NotImplementedError: order above 1 (Keras' default interpolation_order is 1).
    """
    if mode not in FILL_MODES:
        raise ValueError(f"Unknown fill_mode {mode!r}; use one of {FILL_MODES}.")
    if order not in (0, 1):
        raise NotImplementedError(f"interpolation_order={order}: minitf resamples images with splines "
                                  f"of order 0 (nearest) or 1 (linear) only; use one of those.")
    image = np.asarray(image)
    planes = image if image.ndim == 3 else image[None]
    h, w = planes.shape[1:]
    rows, cols = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64), indexing="ij")
    matrix = np.asarray(matrix, dtype=np.float64)
    offset = np.asarray(offset, dtype=np.float64)
    # scipy adds from the offset, in this order; 'nearest' leaves the coordinate itself unmapped
    cr = (offset[0] + rows * matrix[0, 0]) + cols * matrix[0, 1]
    cc = (offset[1] + rows * matrix[1, 0]) + cols * matrix[1, 1]
    if mode != "nearest":
        cr, cc = _map_coordinate(cr, h, mode), _map_coordinate(cc, w, mode)
    constant = ((cr == -1.0) | (cc == -1.0)) if mode == "constant" else np.zeros(cr.shape, bool)
    cr[constant], cc[constant] = 0.0, 0.0
    source = planes.astype(np.float64)
    total = np.zeros(planes.shape, dtype=np.float64)
    for ri, rw in _support(cr, h, order, mode):
        for ci, cw in _support(cc, w, order, mode):
            term = source[:, ri, ci]
            if order:
                term = term * rw * cw
            total += term
    total[:, constant] = cval
    out = _store(total, image.dtype)
    return out if image.ndim == 3 else out[0]


# -- Keras' legacy transforms ----------------------------------------------------------------------

def transform_matrix_offset_center(matrix, x, y):
    """`matrix` conjugated by a shift to the image centre ((x, y) are the image's sizes)."""
    o_x = float(x) / 2 - 0.5
    o_y = float(y) / 2 - 0.5
    offset_matrix = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset_matrix = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return np.dot(np.dot(offset_matrix, matrix), reset_matrix)


def flip_axis(x, axis):
    """`x` reversed along `axis`."""
    x = np.asarray(x).swapaxes(axis, 0)
    x = x[::-1, ...]
    return x.swapaxes(0, axis)


@export("keras.preprocessing.image.apply_affine_transform")
def apply_affine_transform(x, theta=0, tx=0, ty=0, shear=0, zx=1, zy=1, row_axis=1, col_axis=2,
                           channel_axis=0, fill_mode="nearest", cval=0.0, order=1):
    """Rotate by `theta` degrees, shift by (tx, ty) pixels, shear by `shear` degrees and zoom by
    (zx, zy) a rank-3 image, about its centre, as Keras 3 does.

    Raises:
      ValueError: axes that are not a permutation of 0, 1, 2, channels not first or last, or an
        image that is not rank 3.
    """
    if np.unique([row_axis, col_axis, channel_axis]).size != 3:
        raise ValueError("'row_axis', 'col_axis', and 'channel_axis' must be distinct")
    actual = {row_axis, col_axis, channel_axis}
    if actual != {0, 1, 2}:
        raise ValueError(f"Invalid axis' indices: {actual - {0, 1, 2}}")
    if x.ndim != 3:
        raise ValueError("Input arrays must be multi-channel 2D images.")
    if channel_axis not in [0, 2]:
        raise ValueError("Channels are allowed and the first and last dimensions.")
    transform_matrix = None
    if theta != 0:
        theta = np.deg2rad(theta)
        transform_matrix = np.array([[np.cos(theta), -np.sin(theta), 0],
                                     [np.sin(theta), np.cos(theta), 0], [0, 0, 1]])
    for active, matrix in ((tx != 0 or ty != 0, lambda: np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]])),
                           (shear != 0, lambda: _shear_matrix(shear)),
                           (zx != 1 or zy != 1, lambda: np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))):
        if active:
            transform_matrix = matrix() if transform_matrix is None else np.dot(transform_matrix, matrix())
    if transform_matrix is None:
        return x
    h, w = x.shape[row_axis], x.shape[col_axis]
    transform_matrix = transform_matrix_offset_center(transform_matrix, h, w)
    x = np.rollaxis(x, channel_axis, 0)
    # the matrix is for (x, y) coordinates; swapping rows and columns of it gives (row, col)
    if col_axis > row_axis:
        transform_matrix[:, [0, 1]] = transform_matrix[:, [1, 0]]
        transform_matrix[[0, 1]] = transform_matrix[[1, 0]]
    x = affine_transform(x, transform_matrix[:2, :2], transform_matrix[:2, 2], order=order, mode=fill_mode,
                         cval=cval)
    return np.rollaxis(x, 0, channel_axis + 1)


def _shear_matrix(shear):
    shear = np.deg2rad(shear)
    return np.array([[1, -np.sin(shear), 0], [0, np.cos(shear), 0], [0, 0, 1]])


@export("keras.preprocessing.image.random_rotation")
def random_rotation(x, rg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                    interpolation_order=1):
    """Rotate a rank-3 image by an angle drawn uniformly from [-rg, rg] degrees."""
    theta = np.random.uniform(-rg, rg)
    return apply_affine_transform(x, theta=theta, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


@export("keras.preprocessing.image.random_shift")
def random_shift(x, wrg, hrg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                 interpolation_order=1):
    """Shift a rank-3 image by fractions of its height (hrg) and width (wrg) drawn uniformly."""
    h, w = x.shape[row_axis], x.shape[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return apply_affine_transform(x, tx=tx, ty=ty, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


@export("keras.preprocessing.image.random_shear")
def random_shear(x, intensity, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                 interpolation_order=1):
    """Shear a rank-3 image by an angle drawn uniformly from [-intensity, intensity] degrees."""
    shear = np.random.uniform(-intensity, intensity)
    return apply_affine_transform(x, shear=shear, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


@export("keras.preprocessing.image.random_zoom")
def random_zoom(x, zoom_range, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                interpolation_order=1):
    """Zoom a rank-3 image by factors (zx, zy) drawn uniformly from `zoom_range` (two floats)."""
    if len(zoom_range) != 2:
        raise ValueError(f"`zoom_range` should be a tuple or list of two floats. Received: {zoom_range}")
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx, zy = 1, 1
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return apply_affine_transform(x, zx=zx, zy=zy, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


@export("keras.preprocessing.image.apply_channel_shift")
def apply_channel_shift(x, intensity, channel_axis=0):
    """Add `intensity` to every channel of a rank-3 image, clipped to the image's own range."""
    x = np.rollaxis(x, channel_axis, 0)
    min_x, max_x = np.min(x), np.max(x)
    x = np.stack([np.clip(channel + intensity, min_x, max_x) for channel in x], axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


@export("keras.preprocessing.image.random_channel_shift")
def random_channel_shift(x, intensity_range, channel_axis=0):
    """apply_channel_shift by an intensity drawn uniformly from [-range, range]."""
    intensity = np.random.uniform(-intensity_range, intensity_range)
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


@export("keras.preprocessing.image.apply_brightness_shift")
def apply_brightness_shift(x, brightness, scale=True):
    """Change a rank-3 (channels-last) image's brightness by the factor `brightness` with
    Pillow's ImageEnhance.Brightness; with scale=False values outside [0, 255] keep their range.

    Raises:
      ImportError: Pillow is not installed.
    """
    try:
        from PIL import ImageEnhance  # lazy: Pillow is optional (the `examples` extra)
    except ImportError:
        raise ImportError("apply_brightness_shift needs Pillow: pip install pillow") from None
    x_min, x_max = np.min(x), np.max(x)
    local_scale = (x_min < 0) or (x_max > 255)
    img = image_utils.array_to_img(x, scale=local_scale or scale)
    img = ImageEnhance.Brightness(img).enhance(brightness)
    x = image_utils.img_to_array(img)
    if not scale and local_scale:
        x = x / 255 * (x_max - x_min) + x_min
    return x


@export("keras.preprocessing.image.random_brightness")
def random_brightness(x, brightness_range, scale=True):
    """apply_brightness_shift by a factor drawn uniformly from `brightness_range` (two floats)."""
    if len(brightness_range) != 2:
        raise ValueError(f"`brightness_range should be tuple or list of two floats. Received: "
                         f"{brightness_range}")
    u = np.random.uniform(brightness_range[0], brightness_range[1])
    return apply_brightness_shift(x, u, scale)


@export("keras.preprocessing.image.smart_resize")
def smart_resize(x, size, interpolation="bilinear", data_format="channels_last", **kwargs):
    """Resize an image (or a batch) to `size` without distorting it: the largest centred crop
    with the target's aspect ratio, resized with `tf.image.resize(method=interpolation)`.

    Returns a numpy array for a numpy input, else a tensor.

    Raises:
      ValueError: a `size` that is not two ints, or an input that is not rank 3 or 4.
      TypeError: unexpected keyword arguments.
    """
    kwargs.pop("backend_module", None)
    if kwargs:
        raise TypeError(f"smart_resize() got unexpected keyword arguments: {list(kwargs.keys())}")
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}.")
    img = convert_to_tensor(x)
    rank = img.shape.rank
    if rank < 3 or rank > 4:
        raise ValueError(f"Expected an image array with shape `(height, width, channels)`, or "
                         f"`(batch_size, height, width, channels)`, but got input with incorrect rank, "
                         f"of shape {tuple(img.shape.as_list())}.")
    first = data_format == "channels_first"
    height, width = (img.shape[-2], img.shape[-1]) if first else (img.shape[-3], img.shape[-2])
    target_height, target_width = size
    crop_height = max(min(height, int(float(width * target_height) / target_width)), 1)
    crop_width = max(min(width, int(float(height * target_width) / target_height)), 1)
    top = int(float(height - crop_height) / 2)
    left = int(float(width - crop_width) / 2)
    rows, cols = slice(top, top + crop_height), slice(left, left + crop_width)
    index = (Ellipsis, rows, cols) if first else (Ellipsis, rows, cols, slice(None))
    img = img[index]
    if first:
        perm = [0, 2, 3, 1] if rank == 4 else [1, 2, 0]
        img = shaping.transpose(img, perm)
    img = image_resize.resize(img, size, method=interpolation)
    if first:
        img = shaping.transpose(img, [0, 3, 1, 2] if rank == 4 else [2, 0, 1])
    return np.array(img) if isinstance(x, np.ndarray) else img
