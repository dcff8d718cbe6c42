"""The geometry of 2-D window ops (convolution and pooling), shared by minitf.ops.conv,
minitf.ops.pooling and the 3-D ops: TF's argument forms of strides, ksize, dilations, padding and
data_format, the output-size and padding arithmetic, and `Geometry`, everything about one window
op that does not depend on the values (the kernels in `minitf.kernels` take it).
"""
import numpy as np  # Python-side bookkeeping only (shapes, padding arithmetic)

from minitf.errors import errors
from minitf.ops._core import Tensor
from minitf.ops.array import transpose
from minitf.ops.arg_checks import int_attr


# -- argument normalization -------------------------------------------------------------------

def spatial_pair(value, name, op_name, rank=4, data_format="NHWC"):
    """TF's int / [v] / [h, w] / 4-list forms of strides, ksize or dilations -> (h, w)."""
    if isinstance(value, Tensor):
        value = value.numpy().tolist()
    if isinstance(value, (int, np.integer)):
        return int(value), int(value)
    value = [int_attr(v, op_name, name, True) for v in (value if isinstance(value, (list, tuple)) else [1 if value is None else value])]
    if len(value) == 1:
        return value[0], value[0]
    if len(value) == 2:
        return value[0], value[1]
    if len(value) == 4:
        batch, chan = (value[0], value[3]) if data_format == "NHWC" else (value[0], value[1])
        h, w = (value[1], value[2]) if data_format == "NHWC" else (value[2], value[3])
        if batch != 1 or chan != 1:
            raise errors.UnimplementedError(
                None, None, f"Current implementation does not yet support {name} in the batch and "
                            f"depth dimensions (got {name}={value}). [Op:{op_name}]")
        return h, w
    raise ValueError(f"{op_name}: {name} should be an int or a list of 1, 2 or 4 ints, got {value}")


def check_format(data_format, op_name, allowed=("NHWC", "NCHW")):
    if data_format is None:
        return allowed[0]
    if data_format not in allowed:
        raise errors.invalid_argument(op_name, f"data_format must be one of {allowed}, got {data_format!r}")
    return data_format


def out_and_pads(size, k, stride, dilation, padding, axis_pads, op_name, allow_empty=False):
    """Output length and (before, after) padding of one spatial axis, with TF's arithmetic.

    With `allow_empty` (pooling), a window that overhangs the input by less than two strides
    gives an empty axis, as TF's (size - k + stride) / stride in C integer division does.
    """
    eff_k = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + eff_k - size, 0)
        return out, total // 2, total - total // 2
    if padding == "VALID":
        before = after = 0
    else:
        before, after = axis_pads
    if allow_empty:
        span = size + before + after - eff_k + stride
        out = span // stride if span >= 0 else -(-span // stride)  # truncates toward 0, as C
        if out < 0:
            raise errors.invalid_argument(
                op_name, f"Computed output size would be negative: {out} [input_size: {size}, "
                         f"effective_filter_size: {eff_k}, stride: {stride}]; use a window no "
                         "larger than the input or padding='SAME'")
        return out, before, after
    out = (size + before + after - eff_k) // stride + 1
    if out <= 0:
        raise errors.invalid_argument(
            op_name, f"Computed output size would be negative: {out} [input_size: {size}, "
                     f"effective_filter_size: {eff_k}, stride: {stride}]")
    return out, before, after


def normalize_padding(padding, op_name, data_format="NHWC", allow_explicit=True):
    """'SAME' / 'VALID', or explicit [[0,0],[t,b],[l,r],[0,0]] -> ((t,b),(l,r))."""
    if isinstance(padding, str):
        # tf.nn ops are case-sensitive (only Keras layers take 'same'/'valid')
        if padding not in ("SAME", "VALID"):
            raise errors.invalid_argument(
                op_name, f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
                         f"\"SAME\", \"VALID\", \"EXPLICIT\"; tf.nn ops take upper-case 'SAME' or 'VALID'")
        return padding, None
    if not allow_explicit or not isinstance(padding, (list, tuple)):
        raise TypeError(f"{op_name}: expected string for argument 'padding', not {padding!r}")
    pads = [[int(a), int(b)] for a, b in padding]
    if len(pads) != 4:
        raise ValueError(f"{op_name}: explicit padding needs 4 [before, after] pairs, got {padding}")
    batch_chan = (pads[0], pads[3]) if data_format == "NHWC" else (pads[0], pads[1])
    if any(v != 0 for pair in batch_chan for v in pair):
        raise errors.invalid_argument(op_name, f"explicit padding in the batch or depth dimensions "
                                               f"is not supported, got {padding}")
    if any(v < 0 for pair in pads for v in pair):
        raise errors.invalid_argument(op_name, f"explicit padding must be non-negative, got {padding}")
    hw = (pads[1], pads[2]) if data_format == "NHWC" else (pads[2], pads[3])
    return "EXPLICIT", (tuple(hw[0]), tuple(hw[1]))


class Geometry:
    """Everything about one 2-D window op that does not depend on the values."""
    __slots__ = ("n", "h", "w", "c", "kh", "kw", "sh", "sw", "dh", "dw", "oh", "ow",
                 "pt", "pb", "pl", "pr")

    def __init__(self, in_shape, kh, kw, strides, dilations, padding, explicit, op_name,
                 allow_empty=False):
        self.n, self.h, self.w, self.c = in_shape
        self.kh, self.kw = kh, kw
        self.sh, self.sw = strides
        self.dh, self.dw = dilations
        ex = explicit or (None, None)
        self.oh, self.pt, self.pb = out_and_pads(self.h, kh, self.sh, self.dh, padding, ex[0],
                                                  op_name, allow_empty)
        self.ow, self.pl, self.pr = out_and_pads(self.w, kw, self.sw, self.dw, padding, ex[1],
                                                  op_name, allow_empty)

    @property
    def padded(self):
        return self.h + self.pt + self.pb, self.w + self.pl + self.pr

    @property
    def has_pad(self):
        return bool(self.pt or self.pb or self.pl or self.pr)

    def tap_slice(self, a, b):
        """Index of the input rows/columns that filter tap (a, b) reads, in the padded input."""
        r0, c0 = a * self.dh, b * self.dw
        # max(.., 0): an empty output axis (pooling) reads nothing, not a slice to -1
        return (slice(None), slice(r0, r0 + max((self.oh - 1) * self.sh + 1, 0), self.sh),
                slice(c0, c0 + max((self.ow - 1) * self.sw + 1, 0), self.sw))

    def taps(self):
        for a in range(self.kh):
            for b in range(self.kw):
                yield a, b, self.tap_slice(a, b)


def nhwc(x, data_format):
    return x if data_format == "NHWC" else transpose(x, [0, 2, 3, 1])


def from_nhwc(y, data_format):
    return y if data_format == "NHWC" else transpose(y, [0, 3, 1, 2])


def check_rank(x, rank, op_name, what="input"):
    if x._value.ndim != rank:
        raise errors.invalid_argument(op_name, f"{what} must be {rank}-D, got shape {list(x.shape)}")


def check_float_same(x, w, op_name, allow_int32=False):
    if x._value.dtype != w._value.dtype:
        raise errors.invalid_argument(
            op_name, f"input is {x.dtype.name} but filter is {w.dtype.name}; cast one with tf.cast")
    if x._value.dtype.kind != "f" and not (allow_int32 and x.dtype.name == "int32"):
        not_allowed(x, op_name, "half, bfloat16, float, double" + (", int32" if allow_int32 else ""))


def not_allowed(x, op_name, allowed):
    """TF's attr check: InvalidArgumentError for a dtype the op does not take."""
    raise errors.invalid_argument(
        op_name, f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: {allowed}; "
                 f"cast the input with tf.cast(x, tf.float32)")


def one_int(value, name, fmt):
    if isinstance(value, (int, np.integer)):
        return int(value)
    value = list(value)
    if len(value) == 1:
        return int(value[0])
    if len(value) == 3:
        return int(value[1] if fmt == "NHWC" else value[2])
    raise ValueError(f"conv1d: {name} must be an int or a list of 1 or 3 ints, got {value}")
