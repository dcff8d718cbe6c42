"""The op table: every exported minitf function round-trips through a SavedModel as the TF op it
names, with the same result; the mapped op types are the ones listed here."""
import os

import numpy as np
import pytest

import minitf as tf
from minitf.saved_model import codec, op_table

R = np.random.RandomState(0)
X = R.randn(2, 3).astype("float32")
Y = R.randn(2, 3).astype("float32")
P = (R.rand(2, 3).astype("float32") + 0.5)
U = R.uniform(-0.9, 0.9, (2, 3)).astype("float32")
IMG = R.rand(1, 5, 5, 2).astype("float32")
I32 = np.array([[3, -4, 5], [0, 7, -2]], "int32")
SIGNAL = R.randn(2, 40).astype("float32")
AUDIO = R.uniform(-1, 1, (6, 2)).astype("float32")

# (name, function, arguments, TF op types the export must contain)
CASES = [
    ("add", lambda a, b: a + b, [X, Y], ["AddV2"]),
    ("add_python_float", lambda a: a + 1.5, [X], ["AddV2"]),
    ("subtract", lambda a, b: a - b, [X, Y], ["Sub"]),
    ("multiply", lambda a, b: tf.multiply(a, b), [X, Y], ["Mul"]),
    ("truediv", lambda a, b: a / b, [X, P], ["RealDiv"]),
    ("int_truediv", lambda a: a / 2, [I32], ["Cast", "RealDiv"]),
    ("divide_no_nan", lambda a, b: tf.math.divide_no_nan(a, b), [X, P], ["DivNoNan"]),
    ("floordiv", lambda a: a // 3, [I32], ["FloorDiv"]),
    ("floormod", lambda a: a % 3, [I32], ["FloorMod"]),
    ("pow", lambda a: a ** 2, [X], ["Pow"]),
    ("squared_difference", tf.math.squared_difference, [X, Y], ["SquaredDifference"]),
    ("maximum", tf.maximum, [X, Y], ["Maximum"]),
    ("minimum", tf.minimum, [X, Y], ["Minimum"]),
    ("xlogy", tf.math.xlogy, [P, P], ["Xlogy"]),
    ("atan2", tf.math.atan2, [X, Y], ["Atan2"]),
    ("add_n", lambda a, b: tf.add_n([a, b, a]), [X, Y], ["AddN"]),
    ("clip_by_value", lambda a: tf.clip_by_value(a, -0.5, 0.5), [X], ["ClipByValue"]),
    ("equal", lambda a, b: tf.equal(a, b), [X, X], ["Equal"]),
    ("not_equal", tf.not_equal, [X, Y], ["NotEqual"]),
    ("less", tf.less, [X, Y], ["Less"]),
    ("less_equal", tf.less_equal, [X, Y], ["LessEqual"]),
    ("greater", lambda a: a > 0.1, [X], ["Greater"]),
    ("greater_equal", tf.greater_equal, [X, Y], ["GreaterEqual"]),
    ("logical", lambda a, b: tf.logical_not(tf.logical_or(tf.logical_and(a > 0, b > 0), a > 1)),
     [X, Y], ["LogicalAnd", "LogicalOr", "LogicalNot"]),
    ("cast", lambda a: tf.cast(a, tf.int32), [X], ["Cast"]),
    ("identity", tf.identity, [X], ["Identity"]),
    ("stop_gradient", tf.stop_gradient, [X], ["StopGradient"]),
    ("is_nan_finite", lambda a: (tf.math.is_nan(a), tf.math.is_finite(a), tf.math.is_inf(a)),
     [X], ["IsNan", "IsFinite", "IsInf"]),
    ("reduce_sum", lambda a: tf.reduce_sum(a), [X], ["Sum"]),
    ("reduce_mean_axis", lambda a: tf.reduce_mean(a, axis=0, keepdims=True), [X], ["Mean"]),
    ("reduce_max_min_prod", lambda a: (tf.reduce_max(a, 1), tf.reduce_min(a, -1),
                                       tf.reduce_prod(a, [0, 1])), [X], ["Max", "Min", "Prod"]),
    ("reduce_all_any", lambda a: (tf.reduce_all(a > 0, 0), tf.reduce_any(a > 0)), [X],
     ["All", "Any"]),
    ("reduce_euclidean_norm", lambda a: tf.math.reduce_euclidean_norm(a, 1), [X],
     ["EuclideanNorm"]),
    ("reduce_std_variance", lambda a: (tf.math.reduce_std(a, 0), tf.math.reduce_variance(a)),
     [X], ["Mean", "Square", "Sqrt"]),
    ("argmax_argmin", lambda a: (tf.argmax(a, 1), tf.argmin(a, 0, output_type=tf.int32)), [X],
     ["ArgMax", "ArgMin"]),
    ("cumsum", lambda a: tf.cumsum(a, 1, exclusive=True, reverse=True), [X], ["Cumsum"]),
    ("matmul", lambda a, b: tf.matmul(a, b, transpose_b=True), [X, Y], ["MatMul"]),
    ("batch_matmul", lambda a: tf.matmul(a, a, transpose_a=True), [IMG[0]], ["BatchMatMulV2"]),
    ("bias_add", lambda a: tf.nn.bias_add(a, tf.constant([1., 2., 3.])), [X], ["BiasAdd"]),
    ("activations", lambda a: (tf.nn.relu(a), tf.nn.relu6(a * 9), tf.nn.elu(a), tf.nn.selu(a),
                               tf.nn.softsign(a), tf.nn.leaky_relu(a, 0.3)),
     [X], ["Relu", "Relu6", "Elu", "Selu", "Softsign", "LeakyRelu"]),
    ("softmax", lambda a: (tf.nn.softmax(a), tf.nn.log_softmax(a, axis=-1)), [X],
     ["Softmax", "LogSoftmax"]),
    ("gelu_silu", lambda a: (tf.nn.gelu(a), tf.nn.gelu(a, approximate=True), tf.nn.silu(a)), [X],
     ["Erf", "Tanh", "Sigmoid"]),
    ("conv2d", lambda a: tf.nn.conv2d(a, tf.ones([2, 2, 2, 3]), 1, "SAME"), [IMG], ["Conv2D"]),
    ("conv2d_strided_valid", lambda a: tf.nn.conv2d(a, tf.ones([3, 3, 2, 1]) / 9, [2, 2],
                                                     "VALID", dilations=1), [IMG], ["Conv2D"]),
    ("depthwise_conv2d", lambda a: tf.nn.depthwise_conv2d(a, tf.ones([2, 2, 2, 2]), [1, 1, 1, 1],
                                                          "SAME"), [IMG], ["DepthwiseConv2dNative"]),
    ("pools", lambda a: (tf.nn.max_pool2d(a, 2, 2, "VALID"), tf.nn.avg_pool2d(a, 3, 1, "SAME")),
     [IMG], ["MaxPool", "AvgPool"]),
    ("batch_normalization", lambda a: tf.nn.batch_normalization(
        a, tf.constant([0.1, 0.2, 0.3]), tf.constant([1., 2., 3.]), tf.constant([0., 1., 0.]),
        tf.constant([2., 1., 0.5]), 1e-3), [X], ["Rsqrt"]),
    ("reshape_transpose", lambda a: tf.transpose(tf.reshape(a, [3, -1]), [1, 0]), [X],
     ["Reshape", "Transpose"]),
    ("transpose_default", lambda a: tf.transpose(a), [X], ["Transpose"]),
    ("concat_stack", lambda a, b: (tf.concat([a, b], 1), tf.stack([a, b], axis=1)), [X, Y],
     ["ConcatV2", "Pack"]),
    ("unstack", lambda a: tf.unstack(a, axis=1), [X], ["Unpack"]),
    ("expand_squeeze", lambda a: tf.squeeze(tf.expand_dims(a, 0), [0]), [X],
     ["ExpandDims", "Squeeze"]),
    ("getitem", lambda a: (a[:, -1], a[..., 1:2, tf.newaxis], a[::-1, ::2], a[1]), [X],
     ["StridedSlice"]),
    ("slice", lambda a: tf.slice(a, [0, 1], [2, 2]), [X], ["Slice"]),
    ("gather", lambda a: tf.gather(a, [2, 0], axis=1), [X], ["GatherV2"]),
    ("one_hot", lambda i: tf.one_hot(i % 3, 4, on_value=2.0, axis=-1), [I32], ["OneHot"]),
    ("shape_size_rank", lambda a: (tf.shape(a), tf.size(a), tf.rank(a)), [X],
     ["Shape", "Size", "Rank"]),
    ("fill_range", lambda a: (tf.fill([2, 2], 3.0), tf.range(1, 7, 2)), [X], []),
    ("zeros_ones_like", lambda a: (tf.zeros_like(a), tf.ones_like(a)), [X],
     ["ZerosLike", "OnesLike"]),
    ("tile_broadcast", lambda a: (tf.tile(a, [2, 1]), tf.broadcast_to(a[:1], [4, 3])), [X],
     ["Tile", "BroadcastTo"]),
    ("pad", lambda a: (tf.pad(a, [[1, 0], [0, 2]]), tf.pad(a, [[1, 1], [1, 1]], "REFLECT"),
                       tf.pad(a, [[0, 1], [0, 0]], constant_values=5.)), [X],
     ["Pad", "MirrorPad", "PadV2"]),
    ("where", lambda a, b: tf.where(a > b, a, b), [X, Y], ["SelectV2"]),
    ("split", lambda a: (tf.split(a, 3, axis=1), tf.split(a, [1, 2], axis=1)), [X],
     ["Split", "SplitV"]),
    ("unary", lambda a, p, u: (-a, tf.abs(a), tf.sign(a), tf.square(a), tf.math.reciprocal(p),
                               tf.sqrt(p), tf.math.rsqrt(p), tf.exp(a), tf.math.expm1(a),
                               tf.math.log(p), tf.math.log1p(p), tf.sin(a), tf.cos(a),
                               tf.tan(u), tf.asin(u), tf.acos(u), tf.atan(a), tf.sinh(a),
                               tf.cosh(a), tf.tanh(a), tf.sigmoid(a), tf.nn.softplus(a),
                               tf.math.erf(a), tf.floor(a), tf.math.ceil(a), tf.round(a),
                               tf.math.rint(a)),
     [X, P, U], ["Neg", "Abs", "Sign", "Square", "Reciprocal", "Sqrt", "Rsqrt", "Exp", "Expm1",
                 "Log", "Log1p", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
                 "Tanh", "Sigmoid", "Softplus", "Erf", "Floor", "Ceil", "Round", "Rint"]),
    ("rfft_pad_and_crop", lambda a: (tf.signal.rfft(a, fft_length=[4]), tf.signal.rfft(a, fft_length=[2])), [X],
     ["RFFT", "Pad", "Slice"]),
    ("spectrogram", lambda s: tf.abs(tf.signal.stft(s, frame_length=8, frame_step=4)), [SIGNAL],
     ["GatherV2", "RFFT", "ComplexAbs"]),
    ("frame_pad_end", lambda s: tf.signal.frame(s, 7, 3, pad_end=True, pad_value=1.0), [SIGNAL], ["PadV2"]),
    ("resize", lambda im: (tf.image.resize(im, [7, 3]), tf.image.resize(im, [2, 8], "nearest"),
                           tf.image.resize(im, [4, 4], "bicubic"), tf.image.resize(im, [2, 2], "area"),
                           tf.image.resize(im[0], [3, 3])), [IMG],
     ["ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea", "Squeeze"]),
    ("wav", lambda a: tf.audio.decode_wav(tf.audio.encode_wav(a, 8000), desired_channels=3, desired_samples=8),
     [AUDIO], ["EncodeWav", "DecodeWav"]),
    ("string_gather", lambda i: tf.gather(np.array(["a", "bb", "c"]), i), [np.array([2, 0], "int32")],
     ["GatherV2"]),
]


def _op_types(path):
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        model = codec.decode("SavedModel", f.read())
    return {n.op for f in model.meta_graphs[0].graph_def.library.function for n in f.node_def}


@pytest.mark.parametrize("name,fn,args,types", CASES, ids=[c[0] for c in CASES])
def test_exported_op_round_trips(tmp_path, name, fn, args, types):
    specs = [tf.TensorSpec(a.shape, tf.as_dtype(a.dtype.name)) for a in args]

    module = tf.Module()
    module.f = tf.function(fn, input_signature=specs, autograph=False)
    expected = tf.nest.flatten(fn(*[tf.constant(a) for a in args]))
    path = os.fspath(tmp_path)
    tf.saved_model.save(module, path)
    assert set(types) <= _op_types(path), sorted(_op_types(path))
    got = tf.nest.flatten(tf.saved_model.load(path).f(*args))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        if e.dtype == tf.string:
            assert g.numpy().tolist() == e.numpy().tolist()
        else:
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-6, atol=1e-6)


def test_read_file_and_decode_wav_round_trip(tmp_path):
    clip = tmp_path / "clip.wav"
    clip.write_bytes(tf.audio.encode_wav(AUDIO, 16000).numpy())
    module = tf.Module()
    module.f = tf.function(lambda name: tf.audio.decode_wav(tf.io.read_file(name))[0],
                           input_signature=[tf.TensorSpec([], tf.string)])
    path = os.fspath(tmp_path / "model")
    tf.saved_model.save(module, path)
    assert {"ReadFile", "DecodeWav"} <= _op_types(path)
    np.testing.assert_array_equal(tf.saved_model.load(path).f(str(clip)).numpy(), module.f(str(clip)).numpy())


def test_variable_writes_keep_program_order(tmp_path):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(1.0)

        @tf.function(input_signature=[tf.TensorSpec([])])
        def f(self, x):
            a = self.v.read_value()
            self.v.assign_add(x)
            b = self.v.read_value()
            self.v.assign_sub(1.0)
            self.v.assign(self.v * 2.0)
            return a, b, self.v.read_value()
    path = os.fspath(tmp_path)
    tf.saved_model.save(M(), path)
    loaded = tf.saved_model.load(path)
    assert [float(t) for t in loaded.f(3.0)] == [1.0, 4.0, 6.0]
    assert [float(t) for t in loaded.f(1.0)] == [6.0, 7.0, 12.0]
    assert {"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
            "ReadVariableOp"} <= _op_types(path)


MAPPED = {
    "Abs", "Acos", "Add", "AddN", "AddV2", "All", "Any", "ArgMax", "ArgMin", "Asin",
    "AssignAddVariableOp", "AssignSubVariableOp", "AssignVariableOp", "Atan", "Atan2", "AvgPool",
    "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "BiasAdd", "BroadcastTo", "Case", "Cast",
    "Ceil", "ClipByValue", "ComplexAbs", "ConcatV2", "Const", "Conv2D", "Cos", "Cosh", "Cumsum",
    "DecodeWav", "DepthwiseConv2dNative", "Div", "DivNoNan", "Elu", "EncodeWav", "Equal", "Erf",
    "EuclideanNorm", "Exp",
    "Erfc", "ExpandDims", "Expm1", "Fill", "Floor", "FloorDiv", "FloorMod", "FusedBatchNorm",
    "FusedBatchNormV2", "FusedBatchNormV3", "GatherV2", "Greater", "GreaterEqual", "Identity",
    "IdentityN", "If", "IsFinite", "IsInf", "IsNan", "LeakyRelu", "Less", "LessEqual", "Log",
    "Log1p", "LogSoftmax", "LogicalAnd", "LogicalNot", "LogicalOr", "MatMul", "Max", "MaxPool",
    "Maximum", "Mean", "Min", "Minimum", "MirrorPad", "Mul", "Neg", "NoOp", "NotEqual", "OneHot",
    "OnesLike", "Pack", "Pad", "PadV2", "PartitionedCall", "Pow", "PreventGradient", "Prod",
    "RFFT", "Range", "Rank", "ReadFile", "ReadVariableOp", "RealDiv", "Reciprocal", "Relu", "Relu6",
    "Reshape", "ResizeArea", "ResizeBicubic", "ResizeBilinear", "ResizeNearestNeighbor", "Rint", "Round", "Rsqrt", "Select", "SelectV2", "Selu", "Shape", "Sigmoid", "Sign", "Sin",
    "Sinh", "Size", "Slice", "Softmax", "Softplus", "Softsign", "Split", "SplitV", "Sqrt",
    "Square", "SquaredDifference", "Squeeze", "StatefulPartitionedCall", "StatelessCase",
    "StatelessIf", "StatelessWhile", "StopGradient", "StridedSlice", "Sub", "Sum", "Tan", "Tanh",
    "Tile", "Transpose", "TruncateDiv", "Unpack", "Where", "While", "Xlogy", "ZerosLike"}


def test_mapped_op_types_are_the_listed_ones():
    assert set(tf.saved_model.mapped_op_types()) == MAPPED


def test_every_mapped_output_name_is_declared():
    for tf_op in op_table.TABLE.values():
        assert tf_op.outputs == () or all(n.rstrip("*").isidentifier() for n in tf_op.outputs)
        assert callable(tf_op.run)


def test_fused_batch_norm_runner_matches_the_formula():
    run = op_table.TABLE["FusedBatchNormV3"].run
    x = tf.constant(IMG)
    scale, offset = tf.constant([2., 0.5]), tf.constant([0.1, -0.1])
    mean, var = tf.constant([0.4, 0.5]), tf.constant([0.1, 0.3])
    y = run([x, scale, offset, mean, var], {"epsilon": 1e-3, "is_training": False}, None)[0]
    expected = (IMG - mean.numpy()) / np.sqrt(var.numpy() + 1e-3) * scale.numpy() + offset.numpy()
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5)
    with pytest.raises(NotImplementedError, match="is_training=True"):
        run([x, scale, offset, mean, var], {"is_training": True}, None)


def test_unexportable_node_names_node_type_and_function(tmp_path):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([2])])
        def noisy(self, x):
            return x + tf.random.uniform([2])
    with pytest.raises(tf.errors.UnimplementedError,
                       match=r"Cannot export node '\w+' of function '__inference_noisy_\d+' to a "
                             r"SavedModel: minitf has no TF op for its type"):
        tf.saved_model.save(M(), os.fspath(tmp_path))
    assert not os.path.exists(tmp_path / "saved_model.pb")
