"""tf.math.nextafter: the next representable float after x1 in the direction of x2 (not
differentiable, as in TF)."""
from minitf import dispatch
from minitf.ops._core import Op, Tensor, Variable, array_module, binary
from minitf.convert import convert_to_tensor
from minitf.api_export import export

__all__ = ["nextafter"]

NEXT_AFTER = Op("NextAfter", dtypes=("float32", "float64"))


@export("math.nextafter")
@dispatch.add_dispatch_support
def nextafter(x1, x2, name=None):
    """The float next to `x1` towards `x2`, elementwise with broadcasting (float32 or float64;
    Python numbers become float32, as TF converts them for this op)."""
    if not isinstance(x1, (Tensor, Variable)) and not isinstance(x2, (Tensor, Variable)):
        x1 = convert_to_tensor(x1, dtype_hint="float32")
    x1, x2 = binary(x1, x2, NEXT_AFTER)
    NEXT_AFTER.check_dtype(x1)
    try:
        return Tensor(array_module(x1._value).nextafter(x1._value, x2._value))
    except ValueError as e:
        raise NEXT_AFTER.shape_error(e, x1, x2) from None
