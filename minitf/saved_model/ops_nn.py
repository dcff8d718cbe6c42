"""Op table entries for matrix products, activations, convolutions, pooling and batch norm."""
import math as _math

from minitf.ops import conv, linalg, math, math_unary, nn, pooling, shaping
from minitf.saved_model.op_table import define, exports
from minitf.saved_model.tensors import Attr

__all__ = []


# -- matrix products ---------------------------------------------------------------------------
@define("MatMul", ("product",))
def _matmul(ins, a, ctx):
    return linalg.matmul(ins[0], ins[1], transpose_a=bool(a.get("transpose_a", False)),
                         transpose_b=bool(a.get("transpose_b", False)))


for _type in ("BatchMatMulV2", "BatchMatMulV3", "BatchMatMul"):
    @define(_type)
    def _batch_matmul(ins, a, ctx):
        return linalg.matmul(ins[0], ins[1], adjoint_a=bool(a.get("adj_x", False)),
                             adjoint_b=bool(a.get("adj_y", False)))


@exports(linalg.matmul)
def _export_matmul(e, args, op):
    x, y = args["a"], args["b"]
    if args["output_type"] is not None or args["a_is_sparse"] or args["b_is_sparse"]:
        raise e.error("matmul with output_type or sparse inputs has no TF node")
    t = op.outputs[0].dtype
    tx = args["transpose_a"] or args["adjoint_a"]
    ty = args["transpose_b"] or args["adjoint_b"]
    if t.is_complex and (args["adjoint_a"] or args["adjoint_b"]):
        raise e.error("adjoint products of complex matrices are not exported")
    ranks = [v.shape.rank if e.symbolic(v) else len(getattr(v, "shape", ())) for v in (x, y)]
    if ranks == [2, 2]:
        return e.node("MatMul", [e.ref(x, t), e.ref(y, t, "b")],
                      {"T": Attr.type(t), "transpose_a": Attr.bool(tx), "transpose_b": Attr.bool(ty)})
    return e.node("BatchMatMulV2", [e.ref(x, t), e.ref(y, t, "b")],
                  {"T": Attr.type(t), "adj_x": Attr.bool(tx), "adj_y": Attr.bool(ty)})


# -- activations -------------------------------------------------------------------------------
_ACTIVATIONS = {"Relu": nn.relu, "Relu6": nn.relu6, "Elu": nn.elu, "Selu": nn.selu,
                "Softsign": nn.softsign}
for _type, _fn in _ACTIVATIONS.items():
    define(_type, ("activations",))(lambda ins, a, ctx, fn=_fn: fn(ins[0]))
    exports(_fn)(lambda e, args, op, t=_type: e.node(
        t, [e.ref(args["features"])], {"T": Attr.type(op.outputs[0].dtype)}))


@define("LeakyRelu", ("activations",))
def _leaky_relu(ins, a, ctx):
    return nn.leaky_relu(ins[0], alpha=a.get("alpha", 0.2))


@exports(nn.leaky_relu)
def _export_leaky_relu(e, args, op):
    return e.node("LeakyRelu", [e.ref(args["features"])],
                  {"T": Attr.type(op.outputs[0].dtype), "alpha": Attr.float(args["alpha"])})


for _type, _fn, _out in (("Softmax", nn.softmax, "softmax"),
                         ("LogSoftmax", nn.log_softmax, "logsoftmax")):
    define(_type, (_out,))(lambda ins, a, ctx, fn=_fn: fn(ins[0]))

    @exports(_fn)
    def _export_softmax(e, args, op, t=_type):
        x, axis = args["logits"], args["axis"]
        rank = x.shape.rank
        if axis is not None and axis != -1 and (rank is None or axis != rank - 1):
            raise e.error(f"softmax over axis {axis} (not the last) is not exported")
        return e.node(t, [e.ref(x)], {"T": Attr.type(op.outputs[0].dtype)})


@exports(nn.gelu)
def _export_gelu(e, args, op):
    """TF's gelu: 0.5x(1 + erf(x/sqrt 2)), or 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))."""
    x = args["features"]
    t = op.outputs[0].dtype
    tt = {"T": Attr.type(t)}
    xr = e.ref(x)
    if args["approximate"]:
        cube = e.node("Pow", [xr, e.const(3.0, t, "Pow/y")], tt, suffix="Pow")[0]
        inner = e.node("Mul", [e.const(0.044715, t, "mul/x"), cube], tt, suffix="mul")[0]
        inner = e.node("AddV2", [xr, inner], tt, suffix="add")[0]
        inner = e.node("Mul", [e.const(_math.sqrt(2.0 / _math.pi), t, "mul_1/x"), inner], tt,
                       suffix="mul_1")[0]
        core = e.node("Tanh", [inner], tt, suffix="Tanh")[0]
    else:
        scaled = e.node("Mul", [xr, e.const(1.0 / _math.sqrt(2.0), t, "Cast")], tt,
                        suffix="truediv")[0]
        core = e.node("Erf", [scaled], tt, suffix="Erf")[0]
    plus = e.node("AddV2", [e.const(1.0, t, "add/x"), core], tt, suffix="add_1")[0]
    half = e.node("Mul", [e.const(0.5, t, "mul_2/x"), xr], tt, suffix="mul_2")[0]
    return e.node("Mul", [half, plus], tt)


@exports(nn.silu)
def _export_silu(e, args, op):
    x, beta = args["features"], args["beta"]
    t = op.outputs[0].dtype
    xr = e.ref(x)
    inner = xr if beta == 1.0 else e.node("Mul", [e.const(beta, t, "beta"), xr],
                                          {"T": Attr.type(t)}, suffix="mul")[0]
    sig = e.node("Sigmoid", [inner], {"T": Attr.type(t)}, suffix="Sigmoid")[0]
    return e.node("Mul", [xr, sig], {"T": Attr.type(t)})


@define("BiasAdd")
def _bias_add(ins, a, ctx):
    fmt = a.get("data_format", b"NHWC")
    return nn.bias_add(ins[0], ins[1], data_format=fmt.decode() if isinstance(fmt, bytes) else fmt)


@exports(nn.bias_add)
def _export_bias_add(e, args, op):
    t = op.outputs[0].dtype
    fmt = args["data_format"] or "NHWC"
    fmt = "NCHW" if fmt.startswith("NC") else "NHWC"
    return e.node("BiasAdd", [e.ref(args["value"], t), e.ref(args["bias"], t, "bias")],
                  {"T": Attr.type(t), "data_format": Attr.str(fmt)})


# -- convolution and pooling -------------------------------------------------------------------
def _four(value, data_format, name, e):
    """A 2-D op's strides, ksize or dilations as TF's 4 numbers for `data_format`."""
    if value is None:
        return [1, 1, 1, 1]
    values = [value] if isinstance(value, int) else [int(v) for v in value]
    if len(values) == 1:
        values = values * 2
    if len(values) == 4:
        return values
    if len(values) != 2:
        raise e.error(f"{name} {value!r} is not 1, 2 or 4 numbers")
    return [1, 1] + values if data_format == "NCHW" else [1] + values + [1]


def _padding_attrs(padding, data_format, e):
    if isinstance(padding, str):
        return {"padding": Attr.str(padding.upper())}
    flat = [int(p) for pair in padding for p in pair]
    if len(flat) != 8:
        raise e.error(f"explicit padding {padding!r} is not 4 pairs")
    return {"padding": Attr.str("EXPLICIT"), "explicit_paddings": Attr.ints(flat)}


def _text(value, default):
    if value is None:
        return default
    return value.decode() if isinstance(value, bytes) else value


def _explicit(a):
    flat = a.get("explicit_paddings") or []
    return [flat[i:i + 2] for i in range(0, len(flat), 2)]


@define("Conv2D")
def _conv2d(ins, a, ctx):
    padding = _text(a.get("padding"), "VALID")
    return conv.conv2d(ins[0], ins[1], a["strides"],
                       _explicit(a) if padding == "EXPLICIT" else padding,
                       data_format=_text(a.get("data_format"), "NHWC"),
                       dilations=a.get("dilations") or None)


@define("DepthwiseConv2dNative")
def _depthwise(ins, a, ctx):
    padding = _text(a.get("padding"), "VALID")
    return conv.depthwise_conv2d(ins[0], ins[1], a["strides"],
                                 _explicit(a) if padding == "EXPLICIT" else padding,
                                 data_format=_text(a.get("data_format"), "NHWC"),
                                 dilations=(a.get("dilations") or [1, 1, 1, 1])[1:3])


def _conv_rule(op_type, filter_name):
    def rule(e, args, op):
        fmt = args["data_format"] or "NHWC"
        t = op.outputs[0].dtype
        attrs = {"T": Attr.type(t), "strides": Attr.ints(_four(args["strides"], fmt, "strides", e)),
                 "data_format": Attr.str(fmt),
                 "dilations": Attr.ints(_four(args["dilations"], fmt, "dilations", e))}
        attrs.update(_padding_attrs(args["padding"], fmt, e))
        return e.node(op_type, [e.ref(args["input"], t), e.ref(args[filter_name], t, "filter")],
                      attrs)
    return rule


exports(conv.conv2d)(_conv_rule("Conv2D", "filters"))
exports(conv.depthwise_conv2d)(_conv_rule("DepthwiseConv2dNative", "filter"))

for _type, _fn in (("MaxPool", pooling.max_pool2d), ("AvgPool", pooling.avg_pool2d)):
    define(_type)(lambda ins, a, ctx, fn=_fn: fn(
        ins[0], a["ksize"], a["strides"], _text(a.get("padding"), "VALID"),
        data_format=_text(a.get("data_format"), "NHWC")))


def _pool_rule(op_type):
    def rule(e, args, op):
        x = args["input"]
        if x.shape.rank not in (4, None):
            raise e.error(f"{op_type} of a rank-{x.shape.rank} input is not exported")
        fmt = args["data_format"] or "NHWC"
        if not isinstance(args["padding"], str):
            raise e.error("pooling with explicit padding is not exported")
        return e.node(op_type, [e.ref(x)], {
            "T": Attr.type(op.outputs[0].dtype), "ksize": Attr.ints(_four(args["ksize"], fmt, "ksize", e)),
            "strides": Attr.ints(_four(args["strides"], fmt, "strides", e)),
            "padding": Attr.str(args["padding"].upper()), "data_format": Attr.str(fmt)})
    return rule


exports(pooling.max_pool2d, pooling.max_pool)(_pool_rule("MaxPool"))
exports(pooling.avg_pool2d, pooling.avg_pool)(_pool_rule("AvgPool"))


# -- batch normalization -----------------------------------------------------------------------
@exports(nn.batch_normalization)
def _export_batch_norm(e, args, op):
    """TF's batch_normalization: inv = rsqrt(variance + eps) * scale;
    x * inv + (offset - mean * inv)."""
    t = op.outputs[0].dtype
    tt = {"T": Attr.type(t)}
    inv = e.node("AddV2", [e.ref(args["variance"], t), e.const(args["variance_epsilon"], t, "add/y")],
                 tt, suffix="add")[0]
    inv = e.node("Rsqrt", [inv], tt, suffix="Rsqrt")[0]
    if args["scale"] is not None:
        inv = e.node("Mul", [inv, e.ref(args["scale"], t)], tt, suffix="mul")[0]
    scaled = e.node("Mul", [e.ref(args["x"], t), inv], tt, suffix="mul_1")[0]
    shift = e.node("Mul", [e.ref(args["mean"], t), inv], tt, suffix="mul_2")[0]
    if args["offset"] is not None:
        shift = e.node("Sub", [e.ref(args["offset"], t), shift], tt, suffix="sub")[0]
        return e.node("AddV2", [scaled, shift], tt)
    return e.node("Sub", [scaled, shift], tt)


for _type in ("FusedBatchNormV3", "FusedBatchNorm", "FusedBatchNormV2"):
    @define(_type, ("y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2",
                    "reserve_space_3"))
    def _fused_batch_norm(ins, a, ctx):
        if a.get("is_training", True):
            raise NotImplementedError("FusedBatchNorm with is_training=True (a training step) is "
                                      "not run by minitf's SavedModel loader")
        x, scale, offset, mean, var = ins
        fmt = _text(a.get("data_format"), "NHWC")
        if fmt.startswith("NC"):
            shape = [1, -1] + [1] * (len(x.shape) - 2)
            scale, offset, mean, var = (_reshape(v, shape) for v in (scale, offset, mean, var))
        inv = math_unary.rsqrt(math.add(var, a.get("epsilon", 1e-4))) * scale
        y = x * inv + (offset - mean * inv)
        return [y, ins[3], ins[4], ins[3], ins[4], ins[3]]


def _reshape(value, shape):
    return shaping.reshape(value, shape)
