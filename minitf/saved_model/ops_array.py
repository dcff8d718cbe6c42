"""Op table entries for constants, shapes, reshaping, slicing, gathering and joining tensors."""
import numpy as np

from minitf.dtypes import dtypes
from minitf.ops import constant, creation, gather, indexing, shaping
from minitf.saved_model.op_table import define, exports
from minitf.saved_model.ops_math import static_list
from minitf.saved_model.tensors import Attr
from minitf.tensor import Tensor
from minitf.variable import Variable

__all__ = ["int_vector"]

_I32 = dtypes.int32


def int_vector(e, value, suffix):
    """The reference of a shape-like argument as an int32 (or its own integer dtype) vector:
    a Const for Python numbers, a Pack when some entries are graph values."""
    if e.symbolic(value):
        return e.ref(value, value.dtype if value.dtype in (dtypes.int32, dtypes.int64) else _I32)
    if isinstance(value, (list, tuple)) and any(e.symbolic(v) for v in value):
        parts = [e.ref(v, _I32, f"{suffix}/{i}") for i, v in enumerate(value)]
        return e.node("Pack", parts, {"N": Attr.int(len(parts)), "T": Attr.type(_I32),
                                      "axis": Attr.int(0)}, suffix=suffix)[0]
    if isinstance(value, (Tensor, Variable)):
        return e.ref(value, value.dtype, suffix)
    array = np.asarray(value)
    if array.dtype == object or any(v is None for v in np.asarray(value, dtype=object).reshape(-1)):
        raise e.error(f"the shape argument {value!r} has unknown entries")
    return e.const(array, _I32, suffix)


@define("Const")
def _const(ins, a, ctx):
    return constant.constant(a["value"], dtype=a["dtype"])


@define("NoOp", ())
def _noop(ins, a, ctx):
    return []


@define("Shape")
def _shape(ins, a, ctx):
    return shaping.shape(ins[0], out_type=a.get("out_type", _I32))


@define("Size")
def _size(ins, a, ctx):
    return shaping.size(ins[0], out_type=a.get("out_type", _I32))


@define("Rank")
def _rank(ins, a, ctx):
    return shaping.rank(ins[0])


for _type, _fn in (("Shape", shaping.shape), ("Size", shaping.size)):
    exports(_fn)(lambda e, args, op, t=_type: e.node(
        t, [e.ref(args["input"])], {"T": Attr.type(args["input"].dtype),
                                    "out_type": Attr.type(args["out_type"])}))


@exports(shaping.rank)
def _export_rank(e, args, op):
    return e.node("Rank", [e.ref(args["input"])], {"T": Attr.type(args["input"].dtype)})


@define("Reshape")
def _reshape(ins, a, ctx):
    return shaping.reshape(ins[0], static_list(ins[1]))


@exports(shaping.reshape)
def _export_reshape(e, args, op):
    x = args["tensor"]
    return e.node("Reshape", [e.ref(x), int_vector(e, args["shape"], "shape")],
                  {"T": Attr.type(x.dtype), "Tshape": Attr.type(_I32)})


@define("Transpose", ("y",))
def _transpose(ins, a, ctx):
    return shaping.transpose(ins[0], static_list(ins[1]))


@exports(shaping.transpose)
def _export_transpose(e, args, op):
    x, perm = args["a"], args["perm"]
    if args["conjugate"] and x.dtype.is_complex:
        raise e.error("a conjugate transpose is not exported")
    if perm is None:
        if x.shape.rank is None:
            raise e.error("transpose without perm of an input of unknown rank")
        perm = list(range(x.shape.rank))[::-1]
    return e.node("Transpose", [e.ref(x), int_vector(e, perm, "perm")],
                  {"T": Attr.type(x.dtype), "Tperm": Attr.type(_I32)})


@define("ConcatV2")
def _concat(ins, a, ctx):
    return shaping.concat(list(ins[:-1]), static_list(ins[-1]))


@exports(shaping.concat)
def _export_concat(e, args, op):
    values, t = list(args["values"]), op.outputs[0].dtype
    if len(values) == 1:
        return e.node("Identity", [e.ref(values[0], t)], {"T": Attr.type(t)})
    refs = [e.ref(v, t, f"values_{i}") for i, v in enumerate(values)]
    return e.node("ConcatV2", refs + [e.ref(args["axis"], _I32, "axis")],
                  {"N": Attr.int(len(values)), "T": Attr.type(t), "Tidx": Attr.type(_I32)})


@define("Pack")
def _pack(ins, a, ctx):
    return shaping.stack(list(ins), axis=a.get("axis", 0))


@exports(shaping.stack)
def _export_stack(e, args, op):
    values, t = list(args["values"]), op.outputs[0].dtype
    refs = [e.ref(v, t, f"values_{i}") for i, v in enumerate(values)]
    return e.node("Pack", refs, {"N": Attr.int(len(values)), "T": Attr.type(t),
                                 "axis": Attr.int(args["axis"])})


@define("Unpack", ("output*",))
def _unpack(ins, a, ctx):
    return shaping.unstack(ins[0], num=a.get("num"), axis=a.get("axis", 0))


@exports(shaping.unstack)
def _export_unstack(e, args, op):
    n = len(op.outputs)
    x = args["value"]
    return e.node("Unpack", [e.ref(x)], {"num": Attr.int(n), "T": Attr.type(x.dtype),
                                         "axis": Attr.int(args["axis"])}, n_out=n)


@define("ExpandDims")
def _expand_dims(ins, a, ctx):
    return shaping.expand_dims(ins[0], static_list(ins[1]))


@exports(shaping.expand_dims)
def _export_expand_dims(e, args, op):
    x = args["input"]
    return e.node("ExpandDims", [e.ref(x), e.ref(args["axis"], _I32, "dim")],
                  {"T": Attr.type(x.dtype), "Tdim": Attr.type(_I32)})


@define("Squeeze")
def _squeeze(ins, a, ctx):
    return shaping.squeeze(ins[0], axis=a.get("squeeze_dims") or None)


@exports(shaping.squeeze)
def _export_squeeze(e, args, op):
    x, axis = args["input"], args["axis"]
    dims = [] if axis is None else ([int(axis)] if isinstance(axis, int) else [int(v) for v in axis])
    return e.node("Squeeze", [e.ref(x)], {"T": Attr.type(x.dtype), "squeeze_dims": Attr.ints(dims)})


# -- slicing -------------------------------------------------------------------------------------
@define("StridedSlice")
def _strided_slice(ins, a, ctx):
    x, begin, end, strides = ins[0], static_list(ins[1]), static_list(ins[2]), static_list(ins[3])
    if not all(isinstance(v, list) for v in (begin, end, strides)):
        raise NotImplementedError("StridedSlice with begin/end/strides computed when the function "
                                  "runs is not supported by minitf's SavedModel loader")
    masks = {k: int(a.get(k, 0)) for k in ("begin_mask", "end_mask", "ellipsis_mask",
                                            "new_axis_mask", "shrink_axis_mask")}
    key = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if masks["ellipsis_mask"] & bit:
            key.append(Ellipsis)
        elif masks["new_axis_mask"] & bit:
            key.append(None)
        elif masks["shrink_axis_mask"] & bit:
            key.append(int(b))
        else:
            key.append(slice(None if masks["begin_mask"] & bit else int(b),
                             None if masks["end_mask"] & bit else int(e), int(s)))
    return indexing.getitem(x, tuple(key))


@exports(indexing.getitem)
def _export_getitem(e, args, op):
    x, key = args["tensor"], args["key"]
    if isinstance(key, list):
        key = tuple(key)
    if not isinstance(key, tuple):
        key = (key,)
    begin, end, strides = [], [], []
    masks = dict(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)
    for i, k in enumerate(key):
        bit = 1 << i
        if isinstance(k, slice):
            for bound, mask, values in ((k.start, "begin_mask", begin), (k.stop, "end_mask", end)):
                if bound is None:
                    masks[mask] |= bit
                    values.append(0)
                else:
                    values.append(bound)
            strides.append(1 if k.step is None else k.step)
        elif k is Ellipsis:
            masks["ellipsis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif k is None:
            masks["new_axis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            masks["shrink_axis_mask"] |= bit
            begin.append(int(k)), end.append(int(k) + 1), strides.append(1)
        elif e.symbolic(k) and k.shape.rank == 0 and k.dtype.is_integer:
            masks["shrink_axis_mask"] |= bit
            begin.append(k), end.append(None), strides.append(1)
        else:
            raise e.error(f"the index {k!r} is not an int, slice, ..., tf.newaxis or scalar "
                          f"integer tensor")
    if any(e.symbolic(v) for v in begin):  # the end of a shrunk tensor index is begin + 1
        end = [v if v is not None else 0 for v in end]
    refs = [int_vector(e, values, name) for values, name in
            ((begin, "stack"), (end, "stack_1"), (strides, "stack_2"))]
    attrs = {"T": Attr.type(x.dtype), "Index": Attr.type(_I32)}
    attrs.update({k: Attr.int(v) for k, v in masks.items() if v})
    return e.node("StridedSlice", [e.ref(x)] + refs, attrs)


@define("Slice")
def _slice(ins, a, ctx):
    return indexing.slice_(ins[0], static_list(ins[1]), static_list(ins[2]))


@exports(indexing.slice_)
def _export_slice(e, args, op):
    x = args["input_"]
    return e.node("Slice", [e.ref(x), int_vector(e, args["begin"], "begin"),
                            int_vector(e, args["size"], "size")],
                  {"T": Attr.type(x.dtype), "Index": Attr.type(_I32)})


@define("GatherV2")
def _gather(ins, a, ctx):
    return gather.gather(ins[0], ins[1], axis=static_list(ins[2]), batch_dims=a.get("batch_dims", 0))


@exports(gather.gather)
def _export_gather(e, args, op):
    params, indices = args["params"], args["indices"]
    index_dtype = indices.dtype if e.symbolic(indices) else _I32
    params_dtype = params.dtype if e.symbolic(params) else e.dtype(params)  # a numpy constant too
    axis = 0 if args["axis"] is None else args["axis"]
    return e.node("GatherV2", [e.ref(params), e.ref(indices, index_dtype, "indices"),
                               e.ref(axis, _I32, "axis")],
                  {"Tparams": Attr.type(params_dtype), "Tindices": Attr.type(index_dtype),
                   "Taxis": Attr.type(_I32), "batch_dims": Attr.int(args["batch_dims"])})


# -- building tensors ----------------------------------------------------------------------------
@define("OneHot")
def _one_hot(ins, a, ctx):
    return creation.one_hot(ins[0], static_list(ins[1]), on_value=ins[2], off_value=ins[3],
                            axis=a.get("axis", -1), dtype=a["T"])


@exports(creation.one_hot)
def _export_one_hot(e, args, op):
    t = op.outputs[0].dtype
    indices = args["indices"]
    ti = indices.dtype if e.symbolic(indices) else _I32
    on = 1 if args["on_value"] is None else args["on_value"]
    off = 0 if args["off_value"] is None else args["off_value"]
    axis = -1 if args["axis"] is None else args["axis"]
    return e.node("OneHot", [e.ref(indices, ti), e.ref(args["depth"], _I32, "depth"),
                             e.ref(on, t, "on_value"), e.ref(off, t, "off_value")],
                  {"T": Attr.type(t), "TI": Attr.type(ti), "axis": Attr.int(axis)})


@define("Fill")
def _fill(ins, a, ctx):
    return creation.fill(static_list(ins[0]), ins[1])


@exports(creation.fill)
def _export_fill(e, args, op):
    t = op.outputs[0].dtype
    return e.node("Fill", [int_vector(e, args["dims"], "dims"), e.ref(args["value"], t, "value")],
                  {"T": Attr.type(t), "index_type": Attr.type(_I32)})


for _type, _fn in (("ZerosLike", creation.zeros_like), ("OnesLike", creation.ones_like)):
    define(_type, ("y",))(lambda ins, a, ctx, fn=_fn: fn(ins[0]))

    @exports(_fn)
    def _export_like(e, args, op, t=_type):
        x = args["input"]
        if args["dtype"] is not None and dtypes.as_dtype(args["dtype"]) != x.dtype:
            raise e.error(f"{t} with a dtype other than its input's")
        return e.node(t, [e.ref(x)], {"T": Attr.type(x.dtype)})


@define("Range")
def _range(ins, a, ctx):
    return creation.range(ins[0], ins[1], ins[2], dtype=a.get("Tidx", _I32))


@exports(creation.range)
def _export_range(e, args, op):
    t = op.outputs[0].dtype
    start, limit = args["start"], args["limit"]
    if limit is None:
        start, limit = 0, start
    return e.node("Range", [e.ref(start, t, "start"), e.ref(limit, t, "limit"),
                            e.ref(args["delta"], t, "delta")], {"Tidx": Attr.type(t)})


@define("Tile")
def _tile(ins, a, ctx):
    return shaping.tile(ins[0], static_list(ins[1]))


@exports(shaping.tile)
def _export_tile(e, args, op):
    x = args["input"]
    return e.node("Tile", [e.ref(x), int_vector(e, args["multiples"], "multiples")],
                  {"T": Attr.type(x.dtype), "Tmultiples": Attr.type(_I32)})


@define("BroadcastTo")
def _broadcast_to(ins, a, ctx):
    return shaping.broadcast_to(ins[0], static_list(ins[1]))


@exports(shaping.broadcast_to)
def _export_broadcast_to(e, args, op):
    x = args["input"]
    return e.node("BroadcastTo", [e.ref(x), int_vector(e, args["shape"], "shape")],
                  {"T": Attr.type(x.dtype), "Tidx": Attr.type(_I32)})


@define("Pad")
def _pad(ins, a, ctx):
    return gather.pad(ins[0], static_list(ins[1]))


@define("PadV2")
def _pad_v2(ins, a, ctx):
    return gather.pad(ins[0], static_list(ins[1]), constant_values=ins[2])


@define("MirrorPad")
def _mirror_pad(ins, a, ctx):
    mode = a["mode"].decode() if isinstance(a["mode"], bytes) else a["mode"]
    return gather.pad(ins[0], static_list(ins[1]), mode=mode)


@exports(gather.pad)
def _export_pad(e, args, op):
    x, mode = args["tensor"], args["mode"].upper()
    t = x.dtype
    inputs = [e.ref(x), int_vector(e, args["paddings"], "paddings")]
    attrs = {"T": Attr.type(t), "Tpaddings": Attr.type(_I32)}
    if mode in ("REFLECT", "SYMMETRIC"):
        return e.node("MirrorPad", inputs, {**attrs, "mode": Attr.str(mode)})
    value = args["constant_values"]
    if not e.symbolic(value) and np.all(np.asarray(static_list(value)) == 0):
        return e.node("Pad", inputs, attrs)
    return e.node("PadV2", inputs + [e.ref(value, t, "constant_values")], attrs)


@define("SelectV2")
def _select_v2(ins, a, ctx):
    return gather.where(ins[0], ins[1], ins[2])


@define("Select")
def _select(ins, a, ctx):
    return gather.where(ins[0], ins[1], ins[2])


@define("Where", ("index",))
def _where(ins, a, ctx):
    return gather.where(ins[0])


@exports(gather.where)
def _export_where(e, args, op):
    cond, x, y = args["condition"], args["x"], args["y"]
    if x is None and y is None:
        t = cond.dtype if e.symbolic(cond) else dtypes.bool
        return e.node("Where", [e.ref(cond, t)], {"T": Attr.type(t)})
    t = op.outputs[0].dtype
    return e.node("SelectV2", [e.ref(cond, dtypes.bool, "condition"), e.ref(x, t, "t"),
                               e.ref(y, t, "e")], {"T": Attr.type(t)})


@define("Split", ("output*",))
def _split(ins, a, ctx):
    return shaping.split(ins[1], int(a["num_split"]), axis=static_list(ins[0]))


@define("SplitV", ("output*",))
def _split_v(ins, a, ctx):
    return shaping.split(ins[0], static_list(ins[1]), axis=static_list(ins[2]))


@exports(shaping.split)
def _export_split(e, args, op):
    x, sizes, n = args["value"], args["num_or_size_splits"], len(op.outputs)
    attrs = {"num_split": Attr.int(n), "T": Attr.type(x.dtype)}
    axis = e.ref(args["axis"], _I32, "split_dim")
    if isinstance(sizes, int):
        return e.node("Split", [axis, e.ref(x)], attrs, n_out=n)
    return e.node("SplitV", [e.ref(x), int_vector(e, sizes, "size_splits"), axis],
                  {**attrs, "Tlen": Attr.type(_I32)}, n_out=n)


@exports(shaping.identity_n)
def _export_identity_n(e, args, op):
    values = list(args["input"])
    return e.node("IdentityN", [e.ref(v) for v in values],
                  {"T": Attr.types([v.dtype for v in values])}, n_out=len(values))
