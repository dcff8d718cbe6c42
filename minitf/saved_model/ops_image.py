"""Op table entries for image resizing: tf.image.resize (and Keras' Resizing layer) exported as the
TF2 kernels it runs as (ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic with half-pixel
centres, ResizeArea), for a known output size and without antialiasing."""
import numpy as np

from minitf.dtypes import dtypes
from minitf.ops import image_resize
from minitf.saved_model.op_table import define, exports
from minitf.saved_model.ops_math import static_list
from minitf.saved_model.tensors import Attr

__all__ = []

_I32 = dtypes.int32
_KERNELS = {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor", "bicubic": "ResizeBicubic",
            "area": "ResizeArea"}


def _define_resize(op_type, method):
    @define(op_type, ("resized_images",))
    def run(ins, a, ctx):
        if a.get("align_corners", False) or (method != "area" and not a.get("half_pixel_centers", False)):
            raise NotImplementedError(f"{op_type} with align_corners or without half_pixel_centers (TF1's "
                                      f"sampling) is not implemented in minitf")
        return image_resize.resize(ins[0], static_list(ins[1]), method=method)
    return run


for _method, _type in _KERNELS.items():
    _define_resize(_type, _method)


@exports(image_resize.resize)
def _export_resize(e, args, op):
    images = args["images"]
    method = getattr(args["method"], "value", args["method"])
    if method not in _KERNELS or args["antialias"]:
        raise e.error(f"resize method {method!r}{' with antialias' if args['antialias'] else ''} has no "
                      f"single TF kernel to export (exported: {sorted(_KERNELS)} without antialias)")
    shape = images.shape.as_list() if hasattr(images.shape, "as_list") else list(images.shape)
    height, width = shape[-3], shape[-2]
    size = static_list(args["size"])
    if size is None or any(d is None for d in np.asarray(size, dtype=object).reshape(-1)):
        raise e.error("the output size is unknown; pass it as Python ints")
    if args["preserve_aspect_ratio"]:
        if height is None or width is None:
            raise e.error("preserve_aspect_ratio needs the image size when saving")
        size = image_resize._target_size(size, height, width, True)
    ref = e.ref(images)
    if len(shape) == 3:
        ref = e.node("ExpandDims", [ref, e.const(0, _I32, "dim")], {"T": Attr.type(images.dtype),
                                                                     "Tdim": Attr.type(_I32)}, suffix="batch")[0]
    attrs = {"T": Attr.type(images.dtype), "align_corners": Attr.bool(False)}
    if method != "area":
        attrs["half_pixel_centers"] = Attr.bool(True)
    out = e.node(_KERNELS[method], [ref, e.const(np.asarray(size).reshape(-1), _I32, "size")], attrs,
                 suffix=None if len(shape) == 4 else "resize")
    if len(shape) == 3:
        out_dtype = images.dtype if method == "nearest" else dtypes.float32
        return e.node("Squeeze", out, {"T": Attr.type(out_dtype), "squeeze_dims": Attr.ints([0])})
    return out
