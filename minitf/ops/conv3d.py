"""3-D convolution (tf.nn): conv3d and conv3d_transpose, on NDHWC (or NCDHW) volumes.

The three linear maps Conv3D(x, w) -> y, Conv3DBackpropInputV2(w, dy) -> dx and
Conv3DBackpropFilterV2(x, dy) -> dw are adjoint pieces of one trilinear form, as in 2-D
(`minitf.ops.conv`): each one's gradient is built from the other two, so derivatives of any
order need no extra code. The array work lives in `minitf.kernels.volumes`, which runs a 3-D
convolution as depth taps of the 2-D kernels; this module keeps TF's API, the argument checks,
the geometry and the gradient rules.
"""
import numpy as np  # Python-side bookkeeping only (argument lists)

from minitf import dispatch
from minitf.errors import errors
from minitf.kernels import volumes
from minitf.ops._core import Op, Tensor, thread_state, as_tensor, record
from minitf.ops.array import transpose
from minitf.ops.conv_geometry import Geometry, check_float_same, out_and_pads
from minitf.api_export import export

__all__ = ["conv3d", "conv3d_transpose"]

FORMATS = ("NDHWC", "NCDHW")


class Geometry3D:
    """Everything about one 3-D window op that does not depend on the values.

    The depth axis: size d, window kd, stride sd, dilation dd, output od, padding pf (front)
    and pk (back). The rows and columns are those of the 2-D geometry `plane(count)` of the
    [N * count, H, W, C] planes that `count` output depths read (built once per count)."""

    def __init__(self, in_shape, ksize, strides, dilations, padding, op_name, allow_empty=False):
        self.n, self.d, self.h, self.w, self.c = in_shape
        self.kd, self.sd, self.dd = ksize[0], strides[0], dilations[0]
        self.od, self.pf, self.pk = out_and_pads(self.d, self.kd, self.sd, self.dd, padding, None,
                                                  op_name, allow_empty)
        self._plane_args = (ksize[1], ksize[2], strides[1:], dilations[1:], padding, op_name,
                            allow_empty)
        self._planes = {}
        first = self.plane(1)
        self.kh, self.kw, self.sh, self.sw = first.kh, first.kw, first.sh, first.sw
        self.oh, self.ow = first.oh, first.ow
        self.pt, self.pb, self.pl, self.pr = first.pt, first.pb, first.pl, first.pr

    def plane(self, count):
        """The 2-D geometry of the planes of `count` output depths, [N * count, H, W, C]."""
        geo = self._planes.get(count)
        if geo is None:
            kh, kw, s, d, padding, op_name, allow_empty = self._plane_args
            geo = self._planes[count] = Geometry((self.n * count, self.h, self.w, self.c), kh, kw,
                                                  s, d, padding, None, op_name, allow_empty)
        return geo

    def depth_taps(self):
        """(a, output depths, input depths, count) for every depth tap `a` that reads real input:
        output depth q reads input depth q * sd + a * dd - pf."""
        for a in range(self.kd):
            offset = a * self.dd - self.pf
            q0 = max(0, -(offset // self.sd))
            q1 = min(self.od, (self.d - 1 - offset) // self.sd + 1)
            if q0 < q1:
                start = q0 * self.sd + offset
                yield (a, slice(q0, q1), slice(start, start + (q1 - q0 - 1) * self.sd + 1, self.sd),
                       q1 - q0)


# -- argument normalization -------------------------------------------------------------------

def check_format(data_format, op_name):
    """'NDHWC' (the default for None) or 'NCDHW'; anything else is TF's InvalidArgumentError."""
    if data_format is None:
        return "NDHWC"
    if data_format not in FORMATS:
        raise errors.invalid_argument(
            op_name, f"Value for attr 'data_format' of \"{data_format}\" is not in the list of "
                     f"allowed values: \"NDHWC\", \"NCDHW\"")
    return data_format


def check_padding(padding, op_name):
    """'SAME' or 'VALID' (case-sensitive, as the tf.nn ops are); 3-D ops take no explicit pads."""
    if not isinstance(padding, str):
        raise TypeError(f"{op_name}: Expected string for argument 'padding' not {padding!r}; "
                        f"3-D ops take 'SAME' or 'VALID' only.")
    if padding not in ("SAME", "VALID"):
        raise errors.invalid_argument(
            op_name, f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed "
                     f"values: \"SAME\", \"VALID\"; tf.nn ops take upper-case 'SAME' or 'VALID'")
    return padding


def sequence(value, name, data_format, op_name):
    """TF's `_get_sequence` for 3-D ops: an int, or a list of 1, 3 or 5 ints -> a 5-list with
    ones on the batch and channel entries (where data_format puts them)."""
    if isinstance(value, Tensor):
        value = value.numpy().tolist()
    if isinstance(value, (int, np.integer)):
        value = [int(value)]
    value = [int(v) for v in value]
    if len(value) == 5:
        return value
    if len(value) not in (1, 3):
        raise ValueError(f"{name} should be of length 1, 3 or 5. Received: {name}={value} of "
                         f"length {len(value)}")
    spatial = value * 3 if len(value) == 1 else value
    return [1, 1] + spatial if data_format == "NCDHW" else [1] + spatial + [1]


def exact_list(value, name, op_name):
    """conv3d's strides/dilations: a list or tuple of 5 ints (TypeError otherwise, as TF)."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{name}' argument to '{op_name}' Op, not {value!r}.")
    return [int(v) for v in value]


def spatial_of(values, data_format, name, op_name, what):
    """The (depth, rows, cols) entries of a 5-list, refusing non-ones on batch and channels."""
    if len(values) != 5:
        raise errors.invalid_argument(op_name, f"Sliding window {name} field must specify 5 "
                                               f"dimensions, got {values}")
    batch, chan = (values[0], values[4]) if data_format == "NDHWC" else (values[0], values[1])
    spatial = values[1:4] if data_format == "NDHWC" else values[2:5]
    if batch != 1 or chan != 1:
        raise what(op_name, f"Current implementation does not yet support {name} in the batch "
                            f"and depth dimensions (got {name}={values}).")
    if min(spatial) < 1:
        raise errors.invalid_argument(op_name, f"{name} must be > 0, got {values}")
    return tuple(spatial)


def _unimplemented(op_name, message):
    return errors.UnimplementedError(None, None, f"{message} [Op:{op_name}]")


def check_rank(x, rank, op_name, what="input"):
    """InvalidArgumentError naming the op unless `x` has `rank` dimensions."""
    if x._value.ndim != rank:
        raise errors.invalid_argument(op_name, f"{what} must be {rank}-dimensional: "
                                               f"{list(x._value.shape)}")


def to_ndhwc(x, data_format):
    """An NCDHW tensor moved to NDHWC (NDHWC passes through)."""
    return x if data_format == "NDHWC" else transpose(x, [0, 2, 3, 4, 1])


def from_ndhwc(y, data_format):
    """An NDHWC result moved back to the caller's data_format."""
    return y if data_format == "NDHWC" else transpose(y, [0, 4, 1, 2, 3])


# -- Conv3D and its two adjoints ----------------------------------------------------------------

FLOAT_TYPES = ("float16", "bfloat16", "float32", "float64")
CONV3D = Op("Conv3D", dtypes=FLOAT_TYPES)


def _conv3d_ndhwc(x, w, geo):
    """Conv3D on NDHWC tensors with a precomputed geometry; records its gradient."""
    keep = {} if thread_state.active else None
    y = Tensor(volumes.conv3d(x._value, w._value, geo, keep))
    if thread_state.active:
        def grad(g):
            return (lambda: _conv3d_backprop_input(w, g, geo),
                    lambda: _conv3d_backprop_filter(x, g, geo, keep))
        record(CONV3D, (x, w), (y,), grad)
    return y


CONV3D_BACKPROP_INPUT = Op("Conv3DBackpropInputV2", dtypes=FLOAT_TYPES)


def _conv3d_backprop_input(w, g, geo):
    """Conv3DBackpropInputV2: the input gradient of Conv3D (also conv3d_transpose's forward)."""
    dx = Tensor(volumes.conv3d_backprop_input(w._value, g._value, geo))
    if thread_state.active:
        def grad(u):
            return (lambda: _conv3d_backprop_filter(u, g, geo),
                    lambda: _conv3d_ndhwc(u, w, geo))
        record(CONV3D_BACKPROP_INPUT, (w, g), (dx,), grad)
    return dx


CONV3D_BACKPROP_FILTER = Op("Conv3DBackpropFilterV2", dtypes=FLOAT_TYPES)


def _conv3d_backprop_filter(x, g, geo, keep=None):
    """Conv3DBackpropFilterV2: patches^T @ dy per depth tap, reusing the forward's patches."""
    dw = Tensor(volumes.conv3d_backprop_filter(x._value, g._value, geo, keep))
    if thread_state.active:
        def grad(v):
            return (lambda: _conv3d_backprop_input(v, g, geo),
                    lambda: _conv3d_ndhwc(x, v, geo))
        record(CONV3D_BACKPROP_FILTER, (x, g), (dw,), grad)
    return dw


def _geometry(in_shape, w_shape, strides, dilations, padding, op_name):
    """Check the channel counts and work out output size and padding of a 3-D convolution."""
    if in_shape[4] != w_shape[3]:
        raise errors.invalid_argument(
            op_name, f"input and filter must have the same depth: {in_shape[4]} vs {w_shape[3]} "
                     f"(input shape {list(in_shape)}, filter shape {list(w_shape)}); the filter's "
                     f"fourth dimension is the input's channel count")
    return Geometry3D(tuple(in_shape), tuple(w_shape[:3]), strides, dilations, padding, op_name)


@export("nn.conv3d")
@dispatch.add_dispatch_support
def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):  # noqa: A002
    """3-D convolution (cross-correlation) of a [batch, depth, rows, cols, in] input with
    [kd, kh, kw, in, out] filters.

    strides and dilations: lists of 5 ints, ones on the batch and channel entries.
    padding: 'SAME' or 'VALID'. data_format: 'NDHWC' or 'NCDHW'.
    """
    op = "Conv3D"
    x, w = as_tensor(input), as_tensor(filters)
    data_format = check_format(data_format, op)
    strides = exact_list(strides, "strides", "conv3d")
    dilations = [1] * 5 if dilations is None else exact_list(dilations, "dilations", "conv3d")
    padding = check_padding(padding, op)
    check_rank(x, 5, op)
    check_rank(w, 5, op, "filter")
    check_float_same(x, w, op)
    CONV3D.check_dtype(x)
    s = spatial_of(strides, data_format, "strides", op, _unimplemented)
    d = spatial_of(dilations, data_format, "dilations", op, errors.invalid_argument)
    x = to_ndhwc(x, data_format)
    geo = _geometry(x._value.shape, w._value.shape, s, d, padding, op)
    return from_ndhwc(_conv3d_ndhwc(x, w, geo), data_format)


@export("nn.conv3d_transpose")
@dispatch.add_dispatch_support
def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC",  # noqa: A002
                     dilations=None, name=None):
    """Transposed 3-D convolution: the gradient of conv3d with respect to its input.

    filters: [kd, kh, kw, output_channels, in_channels]; output_shape: the 5-D shape of the
    result; strides and dilations: an int or a list of 1, 3 or 5 ints.
    """
    op = "Conv3DBackpropInputV2"
    g, w = as_tensor(input), as_tensor(filters)
    data_format = check_format(data_format, op)
    strides = sequence(strides, "strides", data_format, op)
    dilations = sequence(1 if dilations is None else dilations, "dilations", data_format, op)
    padding = check_padding(padding, op)
    check_rank(g, 5, op)
    check_rank(w, 5, op, "filter")
    check_float_same(g, w, op)
    CONV3D_BACKPROP_INPUT.check_dtype(g)
    shape = output_shape.numpy() if isinstance(output_shape, Tensor) else output_shape
    out_shape = [int(v) for v in shape]
    if len(out_shape) != 5:
        raise errors.invalid_argument(op, f"input_sizes must be a 5-element shape, got {out_shape}")
    s = spatial_of(strides, data_format, "strides", op, errors.invalid_argument)
    d = spatial_of(dilations, data_format, "dilations", op, errors.invalid_argument)
    g = to_ndhwc(g, data_format)
    if data_format == "NCDHW":
        out_shape = [out_shape[0]] + out_shape[2:] + [out_shape[1]]
    if g._value.shape[4] != w._value.shape[4] or out_shape[4] != w._value.shape[3]:
        raise errors.invalid_argument(
            op, f"input and filter must have the same depth: the input's {g._value.shape[4]} "
                f"channels must equal the filters' last dimension and output_shape's "
                f"{out_shape[4]} channels the filters' fourth (input shape {list(g._value.shape)}, "
                f"filter shape {list(w._value.shape)}, output_shape {out_shape})")
    geo = _geometry(out_shape, w._value.shape, s, d, padding, op)
    if (geo.n, geo.od, geo.oh, geo.ow) != tuple(g._value.shape[:4]):
        raise errors.invalid_argument(
            op, f"Conv3DBackpropInputOpV2: Size of out_backprop doesn't match computed: actual = "
                f"{list(g._value.shape[:4])}, computed = {[geo.n, geo.od, geo.oh, geo.ow]} for "
                f"output_shape {out_shape}, strides {strides} and padding {padding!r}")
    return from_ndhwc(_conv3d_backprop_input(w, g, geo), data_format)
