"""Op table entries for elementwise math, comparisons, reductions, casts and identities."""
from minitf.dtypes import dtypes
from minitf.ops import clip, compare, constant, math, math_unary, reduce
from minitf.saved_model.op_table import define, exports
from minitf.saved_model.tensors import Attr

__all__ = ["static_list", "reduction_axes"]


def static_list(value):
    """A tensor argument as a Python list (or scalar) when its value is known, else itself."""
    numpy = getattr(value, "numpy", None)
    if numpy is None:
        return value
    try:
        array = numpy()
    except Exception:  # noqa: BLE001 (a graph value: its number is known only when it runs)
        return value
    return array.tolist() if hasattr(array, "tolist") else array


# -- binary arithmetic: T is the result's dtype; constants and other dtypes are converted -------
_BINARY = {
    "AddV2": math.add, "Sub": math.subtract, "Mul": math.multiply, "RealDiv": math.real_div,
    "DivNoNan": math.divide_no_nan, "FloorDiv": math.floordiv, "FloorMod": math.floormod,
    "Pow": math.pow, "SquaredDifference": math.squared_difference, "Maximum": math.maximum,
    "Minimum": math.minimum, "Xlogy": math.xlogy, "Atan2": math.atan2,
}
_BINARY_ALIASES = {"Add": math.add, "Div": math.divide, "TruncateDiv": math.floordiv}


def _define_binary(op_type, fn):
    define(op_type, ("z",))(lambda ins, a, ctx: fn(ins[0], ins[1]))


for _type, _fn in {**_BINARY, **_BINARY_ALIASES}.items():
    _define_binary(_type, _fn)


def _binary_rule(op_type):
    def rule(e, args, op):
        x, y = list(args.values())[:2]
        t = op.outputs[0].dtype
        return e.node(op_type, [e.ref(x, t, "x"), e.ref(y, t, "y")], {"T": Attr.type(t)})
    return rule


for _type, _fn in _BINARY.items():
    exports(_fn)(_binary_rule(_type))
exports(math.truediv, math.divide)(_binary_rule("RealDiv"))


# -- comparisons and logic: T is the operands' dtype ------------------------------------------
_COMPARE = {"Equal": compare.equal, "NotEqual": compare.not_equal, "Less": compare.less,
            "LessEqual": compare.less_equal, "Greater": compare.greater,
            "GreaterEqual": compare.greater_equal}
_LOGICAL = {"LogicalAnd": compare.logical_and, "LogicalOr": compare.logical_or}


def _operand_dtype(e, x, y):
    for v in (x, y):
        if e.symbolic(v):
            return v.dtype
    return e.dtype(x)


def _compare_rule(op_type):
    def rule(e, args, op):
        x, y = list(args.values())[:2]
        t = _operand_dtype(e, x, y)
        return e.node(op_type, [e.ref(x, t, "x"), e.ref(y, t, "y")], {"T": Attr.type(t)})
    return rule


for _type, _fn in _COMPARE.items():
    _define_binary(_type, _fn)
    exports(_fn)(_compare_rule(_type))
for _type, _fn in _LOGICAL.items():
    _define_binary(_type, _fn)
    exports(_fn)(lambda e, args, op, t=_type: e.node(
        t, [e.ref(v, dtypes.bool) for v in list(args.values())[:2]]))


@define("LogicalNot", ("y",))
def _logical_not(ins, a, ctx):
    return compare.logical_not(ins[0])


@exports(compare.logical_not)
def _export_logical_not(e, args, op):
    return e.node("LogicalNot", [e.ref(args["x"], dtypes.bool)])


# -- unary elementwise ops: the Op names minitf's math_unary declares are TF's ------------------
_UNARY = {"Neg": math_unary.negative, "Abs": math_unary.abs, "Sign": math_unary.sign,
          "Square": math_unary.square, "Reciprocal": math_unary.reciprocal,
          "Sqrt": math_unary.sqrt, "Rsqrt": math_unary.rsqrt, "Exp": math_unary.exp,
          "Expm1": math_unary.expm1, "Log": math_unary.log, "Log1p": math_unary.log1p,
          "Sin": math_unary.sin, "Cos": math_unary.cos, "Tan": math_unary.tan,
          "Asin": math_unary.asin, "Acos": math_unary.acos, "Atan": math_unary.atan,
          "Sinh": math_unary.sinh, "Cosh": math_unary.cosh, "Tanh": math_unary.tanh,
          "Sigmoid": math_unary.sigmoid, "Softplus": math_unary.softplus, "Erf": math_unary.erf,
          "Floor": math_unary.floor, "Ceil": math_unary.ceil, "Round": math_unary.round,
          "Rint": math_unary.rint}
_UNARY_OTHER = {"IsNan": compare.is_nan, "IsFinite": compare.is_finite, "IsInf": compare.is_inf}


def _unary_rule(op_type):
    def rule(e, args, op):
        x = next(iter(args.values()))
        dtype = op.inputs[0].dtype if op.inputs else e.dtype(x)
        if op_type == "Abs" and dtype.is_complex:  # TF's Abs takes real numbers only
            return e.node("ComplexAbs", [e.ref(x)], {"T": Attr.type(dtype), "Tout": Attr.type(dtype.real_dtype)})
        return e.node(op_type, [e.ref(x)], {"T": Attr.type(dtype)})
    return rule


@define("ComplexAbs", ("y",))
def _complex_abs(ins, a, ctx):
    return math_unary.abs(ins[0])


for _type, _fn in {**_UNARY, **_UNARY_OTHER}.items():
    define(_type, ("y",))(lambda ins, a, ctx, fn=_fn: fn(ins[0]))
    exports(f"unary:{_type}", _fn)(_unary_rule(_type))


@define("Erfc", ("y",))
def _erfc(ins, a, ctx):
    """1 - erf(x): minitf has no erfc kernel, so far in the right tail (x > 3.5 in float32) this
    is 0 where TF keeps the tiny value (absolute error below 1e-6)."""
    return math.subtract(math_unary.erf(ins[0]) * -1.0, -1.0)


# -- casts, identities ----------------------------------------------------------------------------
@define("Cast", ("y",))
def _cast(ins, a, ctx):
    return constant.cast(ins[0], a["DstT"])


@exports(constant.cast)
def _export_cast(e, args, op):
    x = args["x"]
    src = x.dtype if e.symbolic(x) else e.dtype(x)
    dst = dtypes.as_dtype(args["dtype"])
    return e.node("Cast", [e.ref(x, src)], {"SrcT": Attr.type(src), "DstT": Attr.type(dst)})


for _type, _fn in {"Identity": constant.identity, "StopGradient": constant.stop_gradient}.items():
    define(_type)(lambda ins, a, ctx, fn=_fn: fn(ins[0]))
    exports(_fn)(lambda e, args, op, t=_type: e.node(
        t, [e.ref(args["input"])], {"T": Attr.type(op.outputs[0].dtype)}))


@define("PreventGradient")
def _prevent_gradient(ins, a, ctx):
    return constant.identity(ins[0])


@define("ClipByValue")
def _clip(ins, a, ctx):
    return math.clip_by_value(ins[0], ins[1], ins[2])


@exports(math.clip_by_value)
def _export_clip(e, args, op):
    t = op.outputs[0].dtype
    return e.node("ClipByValue", [e.ref(args["t"], t), e.ref(args["clip_value_min"], t, "min"),
                                  e.ref(args["clip_value_max"], t, "max")], {"T": Attr.type(t)})


@exports(clip.clip_by_norm)
def _export_clip_by_norm(e, args, op):
    """TF's clip_by_norm: t * clip_norm / maximum(l2norm, clip_norm), l2norm over `axes`
    (kept), with a zero norm passed through safely."""
    t = op.outputs[0].dtype
    tt = {"T": Attr.type(t)}
    x = e.ref(args["t"], t)
    square = e.node("Mul", [x, x], tt, suffix="mul")[0]
    l2sum = e.node("Sum", [square, reduction_axes(e, args["t"], args["axes"])],
                   {**tt, "Tidx": Attr.type(dtypes.int32), "keep_dims": Attr.bool(True)},
                   suffix="Sum")[0]
    positive = e.node("Greater", [l2sum, e.const(0, t, "Greater/y")], tt, suffix="Greater")[0]
    ones = e.node("OnesLike", [l2sum], tt, suffix="ones_like")[0]
    safe = e.node("SelectV2", [positive, l2sum, ones], tt, suffix="Select")[0]
    root = e.node("Sqrt", [safe], tt, suffix="Sqrt")[0]
    norm = e.node("SelectV2", [positive, root, l2sum], tt, suffix="Select_1")[0]
    limit = e.ref(args["clip_norm"], t, "clip_norm")
    scaled = e.node("Mul", [x, limit], tt, suffix="mul_1")[0]
    bound = e.node("Maximum", [norm, limit], tt, suffix="Maximum")[0]
    return e.node("RealDiv", [scaled, bound], tt)


@define("AddN", ("sum",))
def _add_n(ins, a, ctx):
    return math.add_n(list(ins))


@exports(math.add_n)
def _export_add_n(e, args, op):
    t = op.outputs[0].dtype
    values = list(args["inputs"])
    return e.node("AddN", [e.ref(v, t) for v in values], {"N": Attr.int(len(values)),
                                                          "T": Attr.type(t)})


# -- reductions ----------------------------------------------------------------------------------
_REDUCE = {"Sum": reduce.reduce_sum, "Mean": reduce.reduce_mean, "Max": reduce.reduce_max,
           "Min": reduce.reduce_min, "Prod": reduce.reduce_prod, "All": reduce.reduce_all,
           "Any": reduce.reduce_any, "EuclideanNorm": reduce.reduce_euclidean_norm}


def _define_reduce(op_type, fn):
    define(op_type)(lambda ins, a, ctx: fn(ins[0], static_list(ins[1]),
                                           keepdims=bool(a.get("keep_dims", False))))


def reduction_axes(e, x, axis, suffix="reduction_indices"):
    """The reference of a reduction's axes: `axis` as an int32 Const, or every axis of `x`
    (a Range over its rank when the rank is unknown, as TF builds it)."""
    if axis is not None:
        return e.ref(axis, dtypes.int32, suffix)
    if e.symbolic(x) and x.shape.rank is None:
        rank = e.node("Rank", [e.ref(x)], {"T": Attr.type(x.dtype)}, suffix="Rank")[0]
        start = e.const(0, dtypes.int32, "range/start")
        delta = e.const(1, dtypes.int32, "range/delta")
        return e.node("Range", [start, rank, delta], {"Tidx": Attr.type(dtypes.int32)},
                      suffix="range")[0]
    rank = x.shape.rank if e.symbolic(x) else len(getattr(x, "shape", ()))
    return e.const(list(range(rank)), dtypes.int32, suffix)


def _reduce_rule(op_type):
    def rule(e, args, op):
        x = args["input_tensor"]
        t = x.dtype if e.symbolic(x) else e.dtype(x)
        attrs = {"keep_dims": Attr.bool(args["keepdims"])}
        if op_type not in ("All", "Any"):
            attrs.update(T=Attr.type(t), Tidx=Attr.type(dtypes.int32))
        return e.node(op_type, [e.ref(x, t), reduction_axes(e, x, args["axis"])], attrs)
    return rule


for _type, _fn in _REDUCE.items():
    _define_reduce(_type, _fn)
    exports(_fn)(_reduce_rule(_type))


@exports(reduce.reduce_variance, reduce.reduce_std)
def _export_moment(e, args, op):
    """TF's reduce_variance: mean(square(x - mean(x, keepdims)), axis); reduce_std its sqrt."""
    x, axis, keep = args["input_tensor"], args["axis"], args["keepdims"]
    t = op.outputs[0].dtype
    xr = e.ref(x, t)
    axes = reduction_axes(e, x, axis)
    attrs = {"T": Attr.type(t), "Tidx": Attr.type(dtypes.int32)}
    mean = e.node("Mean", [xr, axes], {**attrs, "keep_dims": Attr.bool(True)}, suffix="Mean")[0]
    diff = e.node("Sub", [xr, mean], {"T": Attr.type(t)}, suffix="sub")[0]
    square = e.node("Square", [diff], {"T": Attr.type(t)}, suffix="Square")[0]
    if op._fn is reduce.reduce_variance:
        return e.node("Mean", [square, axes], {**attrs, "keep_dims": Attr.bool(keep)})
    var = e.node("Mean", [square, axes], {**attrs, "keep_dims": Attr.bool(keep)},
                 suffix="Mean_1")[0]
    return e.node("Sqrt", [var], {"T": Attr.type(t)})


for _type, _fn in {"ArgMax": reduce.argmax, "ArgMin": reduce.argmin}.items():
    define(_type)(lambda ins, a, ctx, fn=_fn: fn(ins[0], static_list(ins[1]),
                                                 output_type=a.get("output_type", dtypes.int64)))

    @exports(_fn)
    def _export_arg(e, args, op, t=_type):
        x = args["input"]
        axis = 0 if args["axis"] is None else args["axis"]
        return e.node(t, [e.ref(x), e.ref(axis, dtypes.int32, "dimension")],
                      {"T": Attr.type(x.dtype), "Tidx": Attr.type(dtypes.int32),
                       "output_type": Attr.type(args["output_type"])})


@define("Cumsum", ("out",))
def _cumsum(ins, a, ctx):
    return reduce.cumsum(ins[0], static_list(ins[1]), exclusive=bool(a.get("exclusive", False)),
                         reverse=bool(a.get("reverse", False)))


@exports(reduce.cumsum)
def _export_cumsum(e, args, op):
    x = args["x"]
    return e.node("Cumsum", [e.ref(x), e.ref(args["axis"], dtypes.int32, "axis")],
                  {"T": Attr.type(x.dtype), "Tidx": Attr.type(dtypes.int32),
                   "exclusive": Attr.bool(args["exclusive"]), "reverse": Attr.bool(args["reverse"])})
