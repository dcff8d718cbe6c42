"""tf.bitwise.left_shift and right_shift: elementwise shifts of integers, with TF's CPU rule for
shift counts outside [0, bits - 1] (clamped into that range) and wrapping on overflow."""
from minitf import dispatch
from minitf.ops._core import Op, Tensor, array_module, binary
from minitf.api_export import export

__all__ = ["left_shift", "right_shift"]

_INTEGERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
LEFT_SHIFT = Op("LeftShift", dtypes=_INTEGERS)
RIGHT_SHIFT = Op("RightShift", dtypes=_INTEGERS)


def _shift(op, x, y, forward):
    x, y = binary(x, y, op)
    op.check_dtype(x)
    xv, yv = x._value, y._value
    xp = array_module(xv)
    bits = xv.dtype.itemsize * 8
    count = xp.clip(yv, 0, bits - 1).astype(xv.dtype)
    try:
        return Tensor(forward(xp, xv, count).astype(xv.dtype, copy=False))
    except ValueError as e:
        raise op.shape_error(e, x, y) from None


@export("bitwise.left_shift")
@dispatch.add_dispatch_support(elementwise="binary")
def left_shift(x, y, name=None):
    """x << y, elementwise with broadcasting; bits shifted past the width are lost (wraps)."""
    return _shift(LEFT_SHIFT, x, y, lambda xp, a, b: xp.left_shift(a, b))


@export("bitwise.right_shift")
@dispatch.add_dispatch_support(elementwise="binary")
def right_shift(x, y, name=None):
    """x >> y, elementwise with broadcasting; arithmetic (sign-filling) for signed integers."""
    return _shift(RIGHT_SHIFT, x, y, lambda xp, a, b: xp.right_shift(a, b))
