"""tf.image.extract_patches: every window of an image batch, its pixels flattened into the depth axis.

The patches are built from differentiable ops (a zero pad for 'SAME', one strided slice per
window tap, a stack and a reshape), so gradients, higher-order ones included, flow as TF's
ExtractImagePatches gradient does: each output value's cotangent goes back to the pixel it copied.
"""
from minitf import dispatch
from minitf.errors import errors
from minitf.ops import gather, shaping
from minitf.ops._core import Op, as_tensor
from minitf.ops.conv_geometry import out_and_pads
from minitf.api_export import export

__all__ = ["extract_patches"]

EXTRACT_PATCHES = Op("ExtractImagePatches", dtypes=("bfloat16", "float16", "float32", "float64", "int8", "int16", "int32",
                                                     "int64", "uint8", "uint16", "uint32", "uint64", "complex64",
                                                     "complex128"))


def _attr(values, attr):
    """A 4-entry window attribute as ints; TF's errors for a wrong length or a batch/depth entry."""
    values = [int(v) for v in values]
    if len(values) < 4:
        raise EXTRACT_PATCHES.invalid(f"Length for attr '{attr}' of {len(values)} must be at least minimum 4; "
                                      f"pass [1, rows, cols, 1]")
    if values[0] != 1 or values[3] != 1:
        raise errors.UnimplementedError(None, None, f"ExtractImagePatches: only support {attr} across space "
                                                    f"(the first and last entries must be 1), got {values}")
    if min(values[1:3]) <= 0:
        raise EXTRACT_PATCHES.invalid(f"{attr} must be positive, got {values}")
    return values[1], values[2]


@export("image.extract_patches")
@dispatch.add_dispatch_support
def extract_patches(images, sizes, strides, rates, padding, name=None):
    """The `sizes` windows of `images`, taken every `strides` pixels with `rates` spacing inside a
    window, each flattened (rows, then columns, then channels) into the depth axis.

    Args:
        images: A [batch, height, width, depth] tensor.
        sizes: [1, rows, cols, 1]: the window size.
        strides: [1, row_step, col_step, 1]: how far apart window starts are.
        rates: [1, row_rate, col_rate, 1]: the spacing of the taps inside a window (1: adjacent).
        padding: 'VALID' (whole windows only) or 'SAME' (zero padding, ceil(size / stride) windows).
        name: Unused; accepted for TF compatibility.

    Returns:
        A [batch, out_rows, out_cols, rows * cols * depth] tensor of `images`' dtype.

    Raises:
        InvalidArgumentError: `images` is not 4-D, an attribute has fewer than 4 entries or a
            window does not fit ('VALID').
        UnimplementedError: a batch or depth entry of the attributes is not 1 (as TF).
    """
    x = as_tensor(images)
    EXTRACT_PATCHES.check_dtype(x)
    if x.shape.rank != 4:
        raise EXTRACT_PATCHES.invalid(f"input must be 4-dim, got shape {x.shape.as_list()}")
    (kh, kw), (sh, sw), (rh, rw) = _attr(sizes, "ksizes"), _attr(strides, "strides"), _attr(rates, "rates")
    mode = padding
    if mode not in ("SAME", "VALID"):  # case-sensitive, as TF's attribute
        raise EXTRACT_PATCHES.invalid(f'Value for attr \'padding\' of "{padding}" is not in the list of allowed '
                                      f'values: "SAME", "VALID"')
    n, h, w, c = x.shape.as_list()
    oh, top, bottom = out_and_pads(h, kh, sh, rh, mode, None, "ExtractImagePatches", allow_empty=True)
    ow, left, right = out_and_pads(w, kw, sw, rw, mode, None, "ExtractImagePatches", allow_empty=True)
    if top or bottom or left or right:
        x = gather.pad(x, [[0, 0], [top, bottom], [left, right], [0, 0]])
    rows, cols = max((oh - 1) * sh + 1, 0), max((ow - 1) * sw + 1, 0)  # spans; 0 for an empty axis
    taps = [x[:, a * rh:a * rh + rows:sh, b * rw:b * rw + cols:sw, :] for a in range(kh) for b in range(kw)]
    stacked = shaping.stack(taps, axis=3)  # [n, oh, ow, kh * kw, c]: taps row-major, then channels
    return shaping.reshape(stacked, [-1 if n is None else n, oh, ow, kh * kw * c])
