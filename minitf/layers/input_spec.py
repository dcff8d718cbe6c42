"""InputSpec: what a layer accepts (rank bounds, fixed axis sizes), and the check of a call.

A layer records an InputSpec when it is built (Dense: at least 2-D, last axis = the kernel's
rows) and every later call is checked against it, so a wrong input fails with a ValueError
naming the layer and both shapes instead of an obscure error deep in an op.
"""
import numpy as np

from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["InputSpec", "assert_input_compatibility", "shape_of", "shapes_of"]


@export("layers.InputSpec", "keras.layers.InputSpec")
class InputSpec:
    """What a built layer accepts: rank bounds and fixed sizes of some axes.

    Args:
        dtype: the expected dtype (recorded, not checked).
        shape: the full expected shape; None entries match any size.
        ndim: the exact rank.
        max_ndim, min_ndim: rank bounds.
        axes: `{axis: size}` for axes whose size is fixed (negative axes count from the end).
        allow_last_axis_squeeze: let a trailing size-1 axis be present or absent.
        name: the input's name, shown in error messages.
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None):
        self.dtype = dtype
        self.shape = None if shape is None else TensorShape(shape)
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = dict(axes or {})
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name

    def __repr__(self):
        parts = [f"{k}={v}" for k, v in (("dtype", self.dtype), ("shape", self.shape),
                                        ("ndim", self.ndim), ("max_ndim", self.max_ndim),
                                        ("min_ndim", self.min_ndim), ("axes", self.axes)) if v]
        return f"InputSpec({', '.join(parts)})"

    def get_config(self):
        """The spec's arguments as a dict."""
        return {"dtype": self.dtype, "shape": None if self.shape is None else self.shape.as_list(),
                "ndim": self.ndim, "max_ndim": self.max_ndim, "min_ndim": self.min_ndim,
                "axes": self.axes}


def assert_input_compatibility(layer, spec, shape, index):
    """Raise Keras 3's ValueError when `shape` breaks `spec` (same checks, order and text as
    keras.src.layers.input_spec.assert_input_compatibility).

    Args:
        layer: the layer being called (its name goes into the message).
        spec: an InputSpec, or None (nothing to check).
        shape: the TensorShape of input number `index`.
        index: the input's position among the call's flattened inputs.

    Raises:
        ValueError: when the rank or a fixed axis size does not match.
    """
    if spec is None or shape.rank is None:
        return
    head = (f"Input {index} with name '{spec.name}' of layer '{layer.name}' is incompatible "
            f"with the layer: ")
    rank = shape.rank
    full = tuple(shape.as_list())
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and rank != spec.ndim:
        raise ValueError(f"{head}expected ndim={spec.ndim}, found ndim={rank}. "
                         f"Full shape received: {full}")
    if spec.max_ndim is not None and rank > spec.max_ndim:
        raise ValueError(f"{head}expected max_ndim={spec.max_ndim}, found ndim={rank}")
    if spec.min_ndim is not None and rank < spec.min_ndim:
        raise ValueError(f"{head}expected min_ndim={spec.min_ndim}, found ndim={rank}. "
                         f"Full shape received: {full}")
    for axis, value in spec.axes.items():
        if value is None or -rank > axis or axis >= rank:
            continue
        got = shape[axis]
        if got is not None and got != value:
            raise ValueError(f"{head}expected axis {axis} of input shape to have value {value}, "
                             f"but received input with shape {full}")
    if spec.shape is not None:
        want, got = spec.shape.as_list(), list(full)
        if spec.allow_last_axis_squeeze:
            got = got[:-1] if got and got[-1] == 1 else got
            want = want[:-1] if want and want[-1] == 1 else want
        if any(a is not None and b is not None and a != b for a, b in zip(want, got)):
            raise ValueError(f"{head}expected shape={tuple(spec.shape.as_list())}, found "
                             f"shape={full}")


def shape_of(x):
    """The TensorShape of a tensor, variable, KerasTensor or array-like."""
    shape = getattr(x, "shape", None)
    if shape is None:
        shape = np.shape(x)
    return TensorShape(shape)


def shapes_of(inputs):
    """The input shape handed to `build`: one TensorShape, or a list/dict of them."""
    if isinstance(inputs, (list, tuple)):
        return [shapes_of(x) for x in inputs]
    if isinstance(inputs, dict):
        return {k: shapes_of(v) for k, v in inputs.items()}
    return shape_of(inputs)
