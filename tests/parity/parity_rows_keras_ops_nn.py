"""Rows for keras.ops' nn functions (activations, convolutions, pooling, normalizations,
crossentropies, attention), math (top_k, erf family, Fourier transforms, framing), linalg,
image, the core tensor functions and control flow, against Keras 3 on TF."""
import numpy as np
from hypothesis import strategies as st

from parity_kops import NUMERIC, matrices, operand, spd, tensor_then, unary_cases
from parity_oracle import Case, T, V
from parity_strategies import FLOATS, OMIT, maybe, tensors, values
from parity_table import Table

TABLE = Table()
add = TABLE.add
P = "keras.ops."
_F = ("float32", "float64")

# -- activations ---------------------------------------------------------------------------------

for _name in ("relu", "relu6", "sigmoid", "softplus", "softsign", "silu", "log_sigmoid",
              "selu", "hard_sigmoid", "hard_silu", "hard_tanh", "tanh_shrink",
              "sparse_sigmoid", "sparse_plus", "squareplus", "soft_shrink", "hard_shrink"):
    add(P + _name, unary_cases(FLOATS, low=-5.0, high=5.0), grad=1)
add(P + "leaky_relu", tensor_then(negative_slope=lambda a: maybe(st.sampled_from([0.2, 0.0, 1.5])),
                                  dtypes=FLOATS), grad=1)
add(P + "threshold", tensor_then(lambda a: st.sampled_from([0.0, 0.5, -1.0]),
                                 lambda a: st.sampled_from([0.0, -2.0]), dtypes=FLOATS), grad=1)
for _name in ("elu", "celu"):
    add(P + _name, st.one_of(unary_cases(FLOATS, low=-5.0, high=5.0),
                             tensor_then(alpha=lambda a: st.sampled_from([0.5, 2.0]), dtypes=FLOATS)),
        grad=1)
add(P + "gelu", st.one_of(unary_cases(FLOATS), tensor_then(approximate=lambda a: st.booleans(),
                                                           dtypes=FLOATS)), grad=1)
add(P + "glu", tensor_then(axis=lambda a: maybe(st.sampled_from([-1, 0])), dtypes=FLOATS,
                           shape=st.sampled_from([(2, 4), (4,), (2, 3)])), grad=1)
_AXIS_SHAPES = st.sampled_from([(2, 3), (3,), (2, 3, 4), (2, 1)])
for _name in ("softmax", "log_softmax"):
    add(P + _name, tensor_then(axis=lambda a: maybe(st.sampled_from(
        [-1, 0, None] + ([(0, 1)] if a.ndim >= 2 else []))), dtypes=FLOATS, shape=_AXIS_SHAPES),
        grad=1)
add(P + "sparsemax", tensor_then(axis=lambda a: maybe(st.sampled_from([-1, 0])), dtypes=FLOATS,
                                 shape=_AXIS_SHAPES), grad=1)

# -- convolution and pooling ---------------------------------------------------------------------


@st.composite
def conv_cases(draw, kind="conv"):
    dims = draw(st.sampled_from([1, 2, 2, 3] if kind == "conv" else [1, 2]))
    fmt = draw(st.sampled_from(["channels_last", "channels_last", "channels_first"]))
    dtype = draw(st.sampled_from(_F))
    c = draw(st.integers(1, 3))
    spatial = [draw(st.integers(3, 6)) for _ in range(dims)]
    shape = [2] + (spatial + [c] if fmt == "channels_last" else [c] + spatial)
    x = T(draw(values(dtype, tuple(shape), -2, 2)))
    k = [draw(st.integers(1, 3)) for _ in range(dims)]
    kw = {"padding": draw(st.sampled_from(["valid", "same"])), "data_format": fmt}
    stride = draw(st.sampled_from([1, 1, 2]))
    dilation = draw(st.sampled_from([1, 1, 2])) if stride == 1 or kind != "conv" else 1
    kw["strides"] = stride
    kw["dilation_rate"] = dilation
    if kind == "conv":
        groups = draw(st.sampled_from([1, 1, c]))
        out = draw(st.integers(1, 3)) * groups
        w = T(draw(values(dtype, tuple(k + [c // groups, out]), -1, 1)))
        return Case((x, w), kw)
    if kind == "transpose":
        out = draw(st.integers(1, 3))
        w = T(draw(values(dtype, tuple(k + [out, c]), -1, 1)))
        if draw(st.booleans()) and stride > 1:
            kw["output_padding"] = 1
        return Case((x, w), kw)
    mult = draw(st.integers(1, 2))
    dw = T(draw(values(dtype, tuple(k + [c, mult]), -1, 1)))
    if kind == "depthwise":
        return Case((x, dw), kw)
    pw = T(draw(values(dtype, tuple([1] * dims + [c * mult, draw(st.integers(1, 3))]), -1, 1)))
    return Case((x, dw, pw), kw)


add(P + "conv", conv_cases("conv"), grad=1)
add(P + "conv_transpose", conv_cases("transpose"), grad=1)
add(P + "depthwise_conv", conv_cases("depthwise"), grad=1)
add(P + "separable_conv", conv_cases("separable"), grad=1)


@st.composite
def pool_cases(draw, adaptive=False):
    dims = draw(st.sampled_from([1, 2, 3]))
    fmt = draw(st.sampled_from(["channels_last", "channels_first"]))
    spatial = [draw(st.integers(3 if adaptive else 2, 6)) for _ in range(dims)]
    c = draw(st.integers(1, 2))
    shape = [2] + (spatial + [c] if fmt == "channels_last" else [c] + spatial)
    x = T(draw(values(draw(st.sampled_from(_F)), tuple(shape))))
    if adaptive:
        # TF's kernel dies (SIGFPE) when the larger window, ceil(n / out) + 1, exceeds n
        sizes = tuple(draw(st.integers(1, s).filter(lambda o, s=s: -(-s // o) + 1 <= s))
                      for s in spatial)
        return Case((x, sizes if draw(st.booleans()) or dims == 1 else sizes[0]),
                    {"data_format": fmt})
    size = tuple(draw(st.integers(1, min(s, 3))) for s in spatial)
    kw = {"padding": draw(st.sampled_from(["valid", "same"])), "data_format": fmt}
    if draw(st.booleans()):
        kw["strides"] = draw(st.sampled_from([1, 2]))
    return Case((x, size), kw)


add(P + "max_pool", pool_cases(), grad=1)
add(P + "average_pool", pool_cases(), grad=1)
add(P + "adaptive_max_pool", pool_cases(True), grad=1)
add(P + "adaptive_average_pool", pool_cases(True), grad=1)
add(P + "unfold", st.tuples(tensors(_F, shape=st.sampled_from([(2, 2, 5, 4), (1, 3, 4, 4)])),
                            st.sampled_from([2, (2, 3)]), st.sampled_from([1, 2]),
                            st.sampled_from([0, 1]), st.sampled_from([1, 2])).map(Case), grad=1)
add(P + "fold", st.sampled_from([(T(np.linspace(-1, 1, 2 * 8 * 12).reshape(2, 8, 12).astype(
    "float32")), (4, 5), 2, 1, 0, 1), (T(np.linspace(-1, 1, 2 * 4 * 9).reshape(2, 4, 9).astype(
        "float64")), (5, 5), 2, 1, 1, 2)]).map(Case), grad=1)
add(P + "depth_to_space", st.tuples(tensors(_F, shape=st.sampled_from([(1, 2, 3, 8), (2, 1, 2, 4)])),
                                    st.just(2)).map(Case), grad=1)
add(P + "space_to_depth", st.tuples(tensors(_F, shape=st.sampled_from([(1, 4, 6, 2), (2, 2, 2, 1)])),
                                    st.just(2)).map(Case), grad=1)

# -- encodings, losses, normalization -----------------------------------------------------------

add(P + "one_hot", st.tuples(tensors(("int32", "int64"), low=-1, high=4),
                             st.sampled_from([1, 3, 5]),
                             maybe(st.sampled_from([-1, 0])),
                             maybe(st.sampled_from(["float32", "int32", "bool", "float16"]))).map(
    lambda t: Case(t[:2], {k: v for k, v in (("axis", t[2]), ("dtype", t[3])) if v is not OMIT})))
add(P + "multi_hot", st.tuples(tensors(("int32",), shape=st.sampled_from([(3,), (2, 3)]), low=0,
                                       high=3), st.sampled_from([4, 5]),
                               maybe(st.sampled_from(["float32", "int32", "bool"]))).map(
    lambda t: Case(t[:2], {} if t[2] is OMIT else {"dtype": t[2]})))


@st.composite
def probabilities(draw, sparse=False, binary=False):
    dtype = draw(st.sampled_from(_F))
    shape = draw(st.sampled_from([(3, 4), (2, 2, 3), (4,)]))
    logits = draw(values(dtype, shape, -3, 3))
    from_logits = draw(st.booleans())
    if binary:
        target = draw(values(dtype, shape, 0, 1)).round()
        output = logits if from_logits else 1 / (1 + np.exp(-logits))
    else:
        classes = draw(values("int32", shape[:-1], 0, shape[-1] - 1))
        target = classes if sparse else np.eye(shape[-1], dtype=dtype)[classes]
        e = np.exp(logits - logits.max(-1, keepdims=True))
        output = logits if from_logits else e / e.sum(-1, keepdims=True)
    return Case((T(target), V(np.asarray(output, dtype))), {"from_logits": from_logits})


add(P + "categorical_crossentropy", probabilities(), grad=1)
add(P + "sparse_categorical_crossentropy", probabilities(sparse=True), grad=1)
add(P + "binary_crossentropy", probabilities(binary=True), grad=1)
add(P + "moments", tensor_then(lambda a: st.sampled_from([[0], [-1], [0, 1] if a.ndim > 1 else [0]]),
                               keepdims=lambda a: maybe(st.booleans()), dtypes=FLOATS,
                               shape=st.sampled_from([(3, 4), (5,), (2, 3, 2)])), grad=1)


@st.composite
def batchnorm(draw):
    x = draw(tensors(_F, shape=st.sampled_from([(3, 4), (2, 4, 3)]), variable=True))
    a = np.asarray(x.value)
    axis = draw(st.sampled_from([-1, 1]))
    n = a.shape[axis]
    mean = T(draw(values(a.dtype.name, (n,))))
    var = T(np.abs(draw(values(a.dtype.name, (n,)))) + 0.5)
    kw = {}
    if draw(st.booleans()):
        kw["offset"] = T(draw(values(a.dtype.name, (n,))))
    if draw(st.booleans()):
        kw["scale"] = T(draw(values(a.dtype.name, (n,))))
    if draw(st.booleans()):
        kw["epsilon"] = 0.01
    return Case((x, mean, var, axis), kw)


add(P + "batch_normalization", batchnorm(), grad=1)
add(P + "layer_normalization", tensor_then(
    gamma=lambda a: maybe(st.just(T(np.linspace(0.5, 1.5, a.shape[-1]).astype(a.dtype)))),
    beta=lambda a: maybe(st.just(T(np.linspace(-1, 1, a.shape[-1]).astype(a.dtype)))),
    epsilon=lambda a: maybe(st.sampled_from([1e-3, 1e-5])), dtypes=FLOATS,
    shape=st.sampled_from([(3, 4), (2, 3, 5)])), grad=1)
add(P + "rms_normalization", tensor_then(
    scale=lambda a: maybe(st.just(T(np.linspace(0.5, 1.5, a.shape[-1]).astype(a.dtype)))),
    epsilon=lambda a: maybe(st.sampled_from([1e-3, 1e-5])), dtypes=FLOATS,
    shape=st.sampled_from([(3, 4), (2, 3, 5)])), grad=1)
add(P + "normalize", tensor_then(axis=lambda a: maybe(st.sampled_from([-1, 0])),
                                 order=lambda a: maybe(st.sampled_from([1, 2, 3])), dtypes=FLOATS,
                                 shape=st.sampled_from([(3, 4), (5,)])), grad=1)
add(P + "psnr", st.tuples(tensors(_F, shape=(2, 3), low=0, high=1),
                          tensors(_F, shape=(2, 3), low=0, high=1),
                          st.sampled_from([1.0, 255.0])).filter(
    lambda t: t[0].value.dtype == t[1].value.dtype).map(Case), grad=1)


@st.composite
def attention(draw):
    dtype = draw(st.sampled_from(_F))
    b, t, s, h, d = 2, draw(st.integers(1, 3)), draw(st.integers(1, 3)), 2, draw(st.integers(1, 3))
    kv_heads = draw(st.sampled_from([2, 2, 1]))
    q = T(draw(values(dtype, (b, t, h, d))))
    k = T(draw(values(dtype, (b, s, kv_heads, d))))
    v = T(draw(values(dtype, (b, s, kv_heads, d))))
    kw = {}
    if draw(st.booleans()):
        kw["is_causal"] = True
    if draw(st.booleans()):
        kw["scale"] = 0.5
    if draw(st.booleans()):
        kw["mask"] = T(draw(values("bool", (b, h, t, s))))
    if draw(st.booleans()):
        kw["bias"] = T(draw(values(dtype, (1, h, t, s))))
    return Case((q, k, v), kw)


add(P + "dot_product_attention", attention(), grad=1)
add(P + "polar", st.tuples(tensors(_F, shape=(3,), low=0), tensors(_F, shape=(3,))).filter(
    lambda t: t[0].value.dtype == t[1].value.dtype).map(Case))

# -- math --------------------------------------------------------------------------------------

add(P + "top_k", tensor_then(lambda a: st.integers(0, a.shape[-1]), sorted=lambda a: maybe(
    st.just(True)), dtypes=NUMERIC, shape=st.sampled_from([(5,), (2, 4)])), grad=1)
add(P + "in_top_k", st.tuples(st.just(T(np.array([0, 2, 1], np.int32))),
                              tensors(("float32",), shape=(3, 4)), st.integers(1, 3)).map(Case))
add(P + "logsumexp", tensor_then(axis=lambda a: maybe(st.sampled_from([None, 0, -1] + (
    [(0, 1)] if a.ndim > 1 else []))), keepdims=lambda a: maybe(st.booleans()), dtypes=FLOATS,
    shape=st.sampled_from([(3, 4), (5,), (2, 2, 2)])), grad=1)
add(P + "erf", unary_cases(FLOATS), grad=2)
add(P + "erfc", unary_cases(FLOATS, low=-4, high=4), grad=2)
add(P + "erfinv", unary_cases(FLOATS, low=-0.875, high=0.875), grad=2)
add(P + "rsqrt", unary_cases(FLOATS, low=0.125, high=4.0), grad=2)
add(P + "logdet", spd().map(lambda x: Case((x,))), grad=1)
add(P + "cdist", st.tuples(tensors(_F, shape=st.sampled_from([(3, 2), (2, 3, 2)])),
                           tensors(_F, shape=st.sampled_from([(4, 2), (2, 1, 2)]))).filter(
    lambda t: t[0].value.dtype == t[1].value.dtype).map(Case), grad=1)
add(P + "extract_sequences", st.tuples(tensors(FLOATS, shape=st.sampled_from([(10,), (2, 9)])),
                                       st.sampled_from([3, 4]), st.sampled_from([1, 2, 3])).map(Case),
    grad=1)
add(P + "view_as_real", st.just(Case((T(np.array([1 + 2j, -3j], np.complex64)),))))
add(P + "view_as_complex", st.tuples(tensors(_F, shape=st.sampled_from([(3, 2), (2,)]))).map(Case))


def complex_pair(shape_choices=((4,), (2, 4), (2, 3, 4))):
    @st.composite
    def make(draw):
        dtype = draw(st.sampled_from(_F))
        shape = draw(st.sampled_from(shape_choices))
        return (V(draw(values(dtype, shape))), T(draw(values(dtype, shape))))
    return make()


for _name in ("fft", "fft2", "ifft2"):
    add(P + _name, complex_pair().map(lambda p: Case((p,))), grad=1)
add(P + "rfft", tensor_then(fft_length=lambda a: maybe(st.sampled_from([4, 6, 9])), dtypes=_F,
                            shape=st.sampled_from([(8,), (2, 6)])), grad=1)
add(P + "irfft", st.tuples(complex_pair(((5,), (2, 4))), maybe(st.sampled_from([6, 8, 5]))).map(
    lambda t: Case((t[0],), {} if t[1] is OMIT else {"fft_length": t[1]})), grad=1)
add(P + "stft", st.tuples(tensors(_F, shape=st.sampled_from([(32,), (2, 40)])),
                          st.sampled_from([8, 6]), st.sampled_from([4, 3]),
                          st.sampled_from([8, 10]), st.sampled_from(["hann", "hamming", None]),
                          st.booleans()).map(Case), grad=1)


@st.composite
def istft_cases(draw):
    dtype = draw(st.sampled_from(_F))
    seq, stride, fft_len = draw(st.sampled_from([(8, 4, 8), (6, 3, 10)]))
    frames = draw(st.integers(3, 6))
    bins = fft_len // 2 + 1
    pair = (T(draw(values(dtype, (frames, bins)))), T(draw(values(dtype, (frames, bins)))))
    kw = {"window": draw(st.sampled_from(["hann", "hamming", None])), "center": draw(st.booleans())}
    if draw(st.booleans()):
        kw["length"] = draw(st.integers(4, 10))
    return Case((pair, seq, stride, fft_len), kw)


add(P + "istft", istft_cases(), grad=1)

@st.composite
def segments(draw, sorted_ids=False):
    dtype = draw(st.sampled_from(("float32", "float64", "int32")))
    n = draw(st.integers(1, 5))
    data = T(draw(values(dtype, draw(st.sampled_from([(n,), (n, 2)])))))
    ids = np.sort(draw(values("int32", (n,), 0, 3))) if sorted_ids else draw(values("int32", (n,), 0, 3))
    kw = {"sorted": True} if sorted_ids else {}
    if not sorted_ids and draw(st.booleans()):
        kw["num_segments"] = 4
    return Case((data, T(ids)), kw)


for _name in ("segment_sum", "segment_max", "segment_min", "segment_prod"):
    add(P + _name, st.one_of(segments(), segments(True)), grad=1)


@st.composite
def ctc_case(draw):
    dtype = draw(st.sampled_from(_F))
    frames, classes = draw(st.integers(4, 6)), draw(st.integers(3, 5))
    logits = V(draw(values(dtype, (2, frames, classes))))
    blank = draw(st.sampled_from([0, classes - 1]))
    allowed = [c for c in range(classes) if c != blank]
    labels = np.array(draw(st.lists(st.sampled_from(allowed), min_size=6, max_size=6)),
                      np.int32).reshape(2, 3)
    label_length = T(np.array(draw(st.lists(st.integers(1, 2), min_size=2, max_size=2)), np.int32))
    logit_length = T(np.array([frames, frames - 1], np.int32))
    return Case((T(labels), logits, label_length, logit_length), {"mask_index": blank})


add(P + "ctc_loss", ctc_case(), grad=1)


@st.composite
def ctc_decode_case(draw):
    frames, classes = draw(st.integers(3, 6)), draw(st.integers(3, 5))
    x = T(draw(values("float32", (2, frames, classes))))
    lengths = T(np.array([frames, draw(st.integers(1, frames))], np.int32))
    strategy = draw(st.sampled_from(["greedy", "beam_search"]))
    kw = {"strategy": strategy, "mask_index": draw(st.sampled_from([0, classes - 1]))}
    if strategy == "beam_search":
        kw["beam_width"] = draw(st.sampled_from([3, 10]))
        kw["top_paths"] = draw(st.sampled_from([1, 2]))
    else:
        kw["merge_repeated"] = draw(st.booleans())
    return Case((x, lengths), kw)


add(P + "ctc_decode", ctc_decode_case())

# -- linalg -----------------------------------------------------------------------------------


def separated(kind="sym"):
    """A matrix with well-separated eigenvalues (kind 'sym') or singular values ('any'), so the
    eigenvector / singular-vector gradients are well conditioned."""
    @st.composite
    def make(draw):
        dtype = draw(st.sampled_from(_F))
        n = draw(st.integers(2, 4))
        q, _ = np.linalg.qr(draw(values("float64", (n, n), -2, 2)) + 3 * np.eye(n))
        spectrum = np.arange(1, n + 1, dtype=np.float64) * draw(st.sampled_from([1.0, 1.5]))
        if kind == "sym":
            m = q @ np.diag(spectrum) @ q.T
        else:
            p, _ = np.linalg.qr(draw(values("float64", (n, n), -2, 2)) - 3 * np.eye(n))
            m = q @ np.diag(spectrum) @ p.T
        return T(m.astype(dtype))
    return make()


def conditioned(rows=(2, 4), cols=(1, 3)):
    """A full-rank m x n matrix with singular values 1 .. n (well conditioned)."""
    @st.composite
    def make(draw):
        dtype = draw(st.sampled_from(_F))
        m = draw(st.integers(*rows))
        n = min(draw(st.integers(*cols)), m)
        q, _ = np.linalg.qr(draw(values("float64", (m, m), -2, 2)) + 3 * np.eye(m))
        p, _ = np.linalg.qr(draw(values("float64", (n, n), -2, 2)) - 3 * np.eye(n))
        return T((q[:, :n] @ np.diag(np.arange(1.0, n + 1)) @ p.T).astype(dtype))
    return make()


def invariants(fn):
    """A call comparing sign-free facts of a decomposition (reconstruction, values)."""
    def call(lib, *args, **kwargs):
        return fn(lib, lib.keras.ops, *args, **kwargs)
    return call


add(P + "cholesky", st.tuples(spd(), maybe(st.booleans())).map(
    lambda t: Case((t[0],), {} if t[1] is OMIT else {"upper": t[1]})), grad=1)
add(P + "cholesky_inverse", st.tuples(spd(), st.booleans()).map(
    lambda t: Case((t[0],), {"upper": t[1]})),
    call=lambda lib, x, upper: lib.keras.ops.cholesky_inverse(
        lib.keras.ops.cholesky(x, upper=upper), upper=upper), grad=1)
for _name in ("det", "inv"):
    add(P + _name, spd().map(lambda x: Case((x,))), grad=1)
add(P + "eigh", separated("sym").map(lambda x: Case((x,))), call=invariants(
    lambda lib, ops, x: [ops.eigh(x)[0], ops.matmul(ops.eigh(x)[1] * ops.expand_dims(ops.eigh(x)[0], -2),
                                                      ops.swapaxes(ops.eigh(x)[1], -1, -2))]),
    grad=1)
add(P + "lu_factor", spd().map(lambda x: Case((x,))))
add(P + "solve", st.tuples(spd(), st.sampled_from([(4,), (4, 2)])).map(
    lambda t: Case((t[0], T(np.linspace(-1, 1, int(np.prod(t[0].value.shape[-1:] + t[1][1:]))
                                        ).reshape(t[0].value.shape[-1:] + t[1][1:])
                            .astype(t[0].value.dtype))))).filter(
    lambda c: c.args[0].value.ndim == 2), grad=1)
add(P + "solve_triangular", st.tuples(spd(), st.booleans()).filter(
    lambda t: t[0].value.ndim == 2).map(lambda t: Case((
        T(np.tril(t[0].value) if t[1] else np.triu(t[0].value)),
        T(np.linspace(-1, 1, t[0].value.shape[-1]).astype(t[0].value.dtype))), {"lower": t[1]})),
    grad=1)
add(P + "svd", separated("any").map(lambda x: Case((x,))), call=invariants(
    lambda lib, ops, x: [ops.svd(x, compute_uv=False),
                         ops.matmul(ops.svd(x, full_matrices=False)[0] *
                                    ops.expand_dims(ops.svd(x, full_matrices=False)[1], -2),
                                    ops.svd(x, full_matrices=False)[2])]), grad=1)
add(P + "qr", st.tuples(conditioned(),
                        st.sampled_from(["reduced", "complete"])).map(Case),
    call=invariants(lambda lib, ops, x, mode: [ops.shape(ops.qr(x, mode)[0]),
                                               ops.matmul(ops.qr(x, mode)[0], ops.qr(x, mode)[1])]),
    grad=1)
add(P + "norm", tensor_then(ord=lambda a: maybe(st.sampled_from(
    [None, 1, 2, float("inf"), float("-inf"), 0, 3] + (["fro", "nuc", -1, -2] if a.ndim == 2 else []))),
    axis=lambda a: maybe(st.sampled_from([None, 0, -1] + ([(0, 1)] if a.ndim == 2 else []))),
    keepdims=lambda a: maybe(st.booleans()), dtypes=FLOATS + ("int32",),
    shape=st.sampled_from([(3, 4), (5,)])), grad=1)
add(P + "lstsq", st.tuples(conditioned(rows=(3, 4))).map(
    lambda t: Case((t[0], T(np.linspace(-1, 1, t[0].value.shape[0]).astype(t[0].value.dtype))))),
    grad=1)
add(P + "matrix_rank", matrices(_F, batch=True).map(lambda x: Case((x,))))
add(P + "pinv", conditioned().map(lambda x: Case((x,))), grad=1)
add(P + "jvp", st.tuples(tensors(_F, shape=(3,)), tensors(_F, shape=(3,))).filter(
    lambda t: t[0].value.dtype == t[1].value.dtype).map(Case),
    call=lambda lib, x, t: lib.keras.ops.jvp(lambda v: lib.keras.ops.sin(v) * v, (x,), (t,)))

# -- core tensors -------------------------------------------------------------------------------

_DT = st.sampled_from(["float32", "int32", "float16", "int8", "uint8", "bool", "int64", "float64"])
add(P + "cast", st.tuples(operand(NUMERIC + ("bool",)), _DT).map(Case), grad=1)
add(P + "saturate_cast", st.tuples(tensors(NUMERIC, low=-300, high=300), _DT).map(Case))
add(P + "convert_to_tensor", st.one_of(st.tuples(operand(NUMERIC + ("bool",))), st.tuples(
    st.sampled_from([1, 2.5, [1, 2], [[1.0], [2.0]], True]), _DT)).map(Case))
add(P + "convert_to_numpy", st.tuples(operand(NUMERIC)).map(Case))
add(P + "is_tensor", st.tuples(st.one_of(operand(NUMERIC), st.just([1, 2]))).map(Case))
add(P + "dtype", st.tuples(tensors(NUMERIC + ("bool",))).map(Case))
add(P + "shape", st.tuples(tensors(NUMERIC)).map(Case))
add(P + "stop_gradient", unary_cases(FLOATS), grad=1)
add(P + "unstack", tensor_then(axis=lambda a: maybe(st.sampled_from([0, -1])),
                               shape=st.sampled_from([(2, 3), (3,), (2, 2, 1)])), grad=1)
add(P + "slice", st.tuples(tensors(NUMERIC, shape=(3, 4), variable=True),
                           st.sampled_from([[0, 1], [1, 0], [2, 2]]),
                           st.sampled_from([[1, 2], [2, -1], [1, 1]])).map(Case), grad=1)
add(P + "slice_update", st.tuples(tensors(FLOATS, shape=(3, 4), variable=True),
                                  st.sampled_from([[0, 1], [1, 3], [2, 0]]),
                                  tensors(FLOATS, shape=st.sampled_from([(1, 2), (2, 2)]))).filter(
    lambda t: t[0].value.dtype == t[2].value.dtype).map(Case), grad=1)
add(P + "scatter", st.tuples(st.sampled_from([[[0], [2], [0]], [[1], [3], [2]]]),
                             tensors(FLOATS, shape=(3,)), st.sampled_from([(4,)])).map(Case),
    grad=1)
add(P + "scatter_update", st.tuples(tensors(FLOATS, shape=(4,), variable=True),
                                    st.sampled_from([[[1], [3]], [[0], [0]]]),
                                    tensors(FLOATS, shape=(2,)),
                                    st.sampled_from([None, "add", "max", "min", "mul"])).filter(
    lambda t: t[0].value.dtype == t[2].value.dtype).map(Case), grad=1)

# -- control flow --------------------------------------------------------------------------------

add(P + "cond", st.tuples(st.booleans(), tensors(FLOATS, shape=(2,))).map(Case),
    call=lambda lib, p, x: lib.keras.ops.cond(p, lambda: x * 2.0, lambda: x - 1.0), grad=1)
add(P + "switch", st.tuples(st.integers(-1, 3), tensors(FLOATS, shape=(2,))).map(Case),
    call=lambda lib, i, x: lib.keras.ops.switch(i, [lambda v: v * 2.0, lambda v: v - 1.0], x),
    grad=1)
add(P + "while_loop", st.tuples(tensors(FLOATS, shape=(2,)), maybe(st.integers(0, 4))).map(
    lambda t: Case((t[0],), {} if t[1] is OMIT else {"maximum_iterations": t[1]})),
    call=lambda lib, x, **kw: lib.keras.ops.while_loop(
        lambda i, v: i < 3, lambda i, v: (i + 1, v * 1.5), (0, x), **kw), grad=1)
add(P + "fori_loop", st.tuples(st.integers(0, 2), st.integers(0, 4), tensors(FLOATS, shape=(2,))
                               ).map(Case),
    call=lambda lib, lo, hi, x: lib.keras.ops.fori_loop(lo, hi, lambda i, v: v * 1.5 + 1.0, x),
    grad=1)
add(P + "scan", st.tuples(tensors(_F, shape=(4, 2)), st.booleans()).map(Case),
    call=lambda lib, xs, rev: lib.keras.ops.scan(
        lambda c, x: (c + x, c * x), lib.keras.ops.zeros((2,), xs.dtype), xs, reverse=rev),
    grad=1)
add(P + "map", st.tuples(tensors(FLOATS, shape=(3, 2))).map(Case),
    call=lambda lib, xs: lib.keras.ops.map(lambda x: x * 2.0 + 1.0, xs), grad=1)
add(P + "associative_scan", st.tuples(tensors(_F, shape=st.sampled_from([(5,), (4, 2)])),
                                      st.booleans()).map(Case),
    call=lambda lib, xs, rev: lib.keras.ops.associative_scan(lambda a, b: a + b, xs, reverse=rev),
    grad=1)
add(P + "vectorized_map", st.tuples(tensors(FLOATS, shape=(3, 2))).map(Case),
    call=lambda lib, xs: lib.keras.ops.vectorized_map(lambda x: x * x, xs), grad=1)
add(P + "custom_gradient", st.tuples(tensors(_F, shape=(3,))).map(Case),
    call=lambda lib, x: _clipped_identity(lib)(x), grad=1)


def _clipped_identity(lib):
    @lib.keras.ops.custom_gradient
    def f(x):
        def grad(*upstream, **kwargs):
            return lib.keras.ops.clip(upstream[0], -0.5, 0.5)
        return x * 1.0, grad
    return f


add(P + "rearrange", st.sampled_from([
    ("b h w c -> b (h w) c", (2, 3, 4, 1), {}), ("b (h w) c -> b h w c", (2, 6, 1), {"h": 2}),
    ("a b -> b a", (2, 3), {}), ("a b c -> c (a b)", (2, 3, 2), {})]).flatmap(
    lambda p: tensors(FLOATS, shape=p[1]).map(lambda x: Case((x, p[0]), p[2]))), grad=1)

# -- image ---------------------------------------------------------------------------------------


@st.composite
def images(draw, channels=3, dtypes=_F):
    fmt = draw(st.sampled_from(["channels_last", "channels_first"]))
    batch = draw(st.booleans())
    h, w = draw(st.integers(2, 6)), draw(st.integers(2, 6))
    shape = (h, w, channels) if fmt == "channels_last" else (channels, h, w)
    if batch:
        shape = (2,) + shape
    return T(draw(values(draw(st.sampled_from(dtypes)), shape, 0, 1))), fmt


I = P + "image."
add(I + "rgb_to_grayscale", images(dtypes=_F + ("uint8",)).map(
    lambda t: Case((t[0],), {"data_format": t[1]})), grad=1)
for _name in ("rgb_to_hsv", "hsv_to_rgb"):
    add(I + _name, images().map(lambda t: Case((t[0],), {"data_format": t[1]})), grad=1)
add(I + "resize", st.tuples(images(dtypes=_F + ("uint8",)), st.sampled_from([(3, 4), (6, 2)]),
                            st.sampled_from(["bilinear", "nearest", "bicubic", "area"]),
                            st.sampled_from([{}, {"crop_to_aspect_ratio": True},
                                             {"pad_to_aspect_ratio": True}])).map(
    lambda t: Case((t[0][0], t[1]), dict(t[3], interpolation=t[2], data_format=t[0][1]))), grad=1)
add(I + "pad_images", st.tuples(images(), st.sampled_from([
    {"top_padding": 1, "left_padding": 2, "bottom_padding": 0, "right_padding": 1},
    {"top_padding": 1, "target_height": 8, "left_padding": 0, "target_width": 7}])).map(
    lambda t: Case((t[0][0],), dict(t[1], data_format=t[0][1]))), grad=1)
add(I + "crop_images", st.tuples(images(), st.sampled_from([
    {"top_cropping": 1, "left_cropping": 0, "bottom_cropping": 0, "right_cropping": 1},
    {"top_cropping": 0, "target_height": 2, "left_cropping": 1, "target_width": 1}])).map(
    lambda t: Case((t[0][0],), dict(t[1], data_format=t[0][1]))), grad=1)
add(I + "extract_patches", st.tuples(images(), st.sampled_from([2, (2, 1)]),
                                     st.sampled_from([None, 1]),
                                     st.sampled_from(["valid", "same"])).map(
    lambda t: Case((t[0][0], t[1]), {"strides": t[2], "padding": t[3], "data_format": t[0][1]})),
    grad=1)
add(I + "extract_patches_3d", st.tuples(tensors(_F, shape=st.sampled_from([(2, 4, 4, 4, 1),
                                                                          (4, 3, 4, 2)])),
                                        st.sampled_from([2, (2, 1, 2)])).map(Case), grad=1)
add(I + "gaussian_blur", st.tuples(images(), st.sampled_from([(3, 3), (3, 5), (1, 3)]),
                                   st.sampled_from([(1.0, 1.0), (0.5, 2.0)])).map(
    lambda t: Case((t[0][0],), {"kernel_size": t[1], "sigma": t[2], "data_format": t[0][1]})),
    grad=1)
add(I + "sobel_edges", images().filter(lambda t: np.ndim(t[0].value) == 4).map(
    lambda t: Case((t[0],), {"data_format": t[1]})), grad=1)


# -- differences kept on purpose --------------------------------------------------------------

TABLE.known(P + "gelu", lambda c, v: v.kind == "value_mismatch" and "float64" in v.detail,
            "INTENTIONAL: TF's gelu uses float32 constants on float64 inputs (about 1e-9 "
            "relative); minitf computes in float64")
for _name in ("rfft", "irfft"):
    TABLE.known(P + _name, lambda c, v: v.kind == "tf_raises" and "Incompatible shapes" in v.detail,
                "INTENTIONAL: TF's RFFT/IRFFT gradients fail with a shape error when fft_length "
                "crops or pads the signal; minitf differentiates through the crop or pad")
TABLE.known(P + "slice_update", lambda c, v: v.kind == "tf_raises" and "XlaDynamicUpdateSlice" in v.detail,
            "INTENTIONAL: Keras on TF updates with XLA's DynamicUpdateSlice, which has no gradient "
            "(LookupError); minitf's slice_update is differentiable")


def _three_d(case, verdict):
    x = case.args[0] if case.args else None
    return verdict.kind == "value_mismatch" and np.ndim(getattr(x, "value", 0)) == 5


for _name in ("max_pool", "adaptive_max_pool"):
    TABLE.known(P + _name, _three_d,
                "INTENTIONAL: gradients of 3-D max pooling over tied maxima: TF's MaxPool3DGrad "
                "gives every tied element the gradient, its 1-D/2-D kernels (and minitf, which "
                "pools 3-D inputs one axis at a time) only the first")
TABLE.known(I + "resize", lambda c, v: v.kind == "value_mismatch" and "float64" in v.detail
            and c.kwargs.get("interpolation") != "nearest",
            "INTENTIONAL: float64 images are resized (and back-propagated) in float32, as TF's "
            "kernels do, so the float64 results carry float32 rounding that differs in the last "
            "bits between TF's kernel and minitf's")


def _kernel_past_input(case, verdict):
    odd = verdict.kind == "value_mismatch" or (verdict.kind == "tf_raises" and
                                               "AbortedError" in verdict.detail)
    return odd and case.kwargs.get("padding") == "valid" and case.kwargs.get("dilation_rate", 1) > 1


for _name in ("depthwise_conv", "separable_conv"):
    TABLE.known(P + _name, _kernel_past_input,
                "INTENTIONAL: a dilated kernel wider than the input with 'valid' padding: TF's "
                "depthwise kernel returns an uninitialised tensor of the input's shape (and its "
                "oneDNN gradient aborts); minitf returns the empty result")


def _out_of_range_cast(case, verdict):
    x, dtype = case.args[:2]
    a = np.asarray(getattr(x, "value", x))
    if verdict.kind != "value_mismatch" or a.dtype.kind != "f" or "int" not in str(dtype):
        return False
    info = np.iinfo(dtype)
    return bool(np.any((a < info.min) | (a > info.max) | ~np.isfinite(a)))


TABLE.known(P + "cast", _out_of_range_cast,
            "INTENTIONAL: floats outside the integer dtype's range: TF's vectorized cast kernel "
            "saturates some blocks and wraps others (position dependent); minitf follows TF's "
            "element-wise rule (see the core row `cast`)")


def _has_variable(case):
    return any(isinstance(a, V) for a in case.args) or \
        any(isinstance(a, V) for a in case.kwargs.values())


for _name in list(TABLE.rows):
    TABLE.known(_name, lambda c, v: "has no attribute 'ndim'" in v.detail and _has_variable(c),
                "INTENTIONAL: Keras' TF backend reads `x.ndim`, which a plain tf.Variable lacks "
                "(AttributeError; Keras' own variables have it); minitf accepts variables")
TABLE.known(P + "ctc_loss", lambda c, v: v.kind == "value_mismatch" and "float64" in v.detail,
            "INTENTIONAL: float64 logits are computed in float32 (TF's CTC kernel has no float64, "
            "Keras casts), so the float64 result carries float32 rounding that differs in the "
            "last bits between TF's kernel and minitf's")
