"""Rows for tf.keras.backend: the settings, the dtype helpers and the Keras 2 backend functions
TF 2.21 still exports there, against TF (their dtypes are TF's: argmax gives int64, the mean of
ints stays an int, ...). Calls that change global state restore it before they return."""
import numpy as np
from hypothesis import strategies as st

from parity_kops import NUMERIC, an_axis, bits, pair_cases, tensor_then, unary_cases
from parity_oracle import Case, T, V
from parity_strategies import FLOATS, maybe, nonempty_shapes, tensors, values
from parity_table import Table

TABLE = Table()
add = TABLE.add
B = "keras.backend."
_F = ("float32", "float64")
_DT = st.sampled_from(["float32", "float64", "int32", "float16", "bool", "int64"])

# -- settings and dtype helpers ------------------------------------------------------------------

for _name in ("backend", "epsilon", "floatx", "image_data_format"):
    add(B + _name)


def restoring(getter, setter):
    def call(lib, value):
        kb = lib.keras.backend
        old = getattr(kb, getter)()
        try:
            getattr(kb, setter)(value)
            return [getattr(kb, getter)(), lib.keras.ops.ones((1,)).dtype.name
                    if getter == "floatx" else 0]
        finally:
            getattr(kb, setter)(old)
    return call


add(B + "set_floatx", st.tuples(st.sampled_from(["float16", "float32", "float64", "int32"])).map(Case),
    call=restoring("floatx", "set_floatx"))
add(B + "set_epsilon", st.tuples(st.sampled_from([1e-7, 1e-3, 0.5])).map(Case),
    call=restoring("epsilon", "set_epsilon"))
add(B + "set_image_data_format", st.tuples(st.sampled_from(
    ["channels_first", "channels_last", "nhwc", "Channels_First"])).map(Case),
    call=restoring("image_data_format", "set_image_data_format"))


def uid_sequence(lib, prefix):
    lib.keras.backend.clear_session()
    return [lib.keras.backend.get_uid(prefix) for _ in range(3)] + [lib.keras.backend.get_uid()]


add(B + "clear_session", st.tuples(st.sampled_from(["x", "tensor"])).map(Case), call=uid_sequence)
add(B + "get_uid", st.tuples(st.sampled_from(["y", ""])).map(Case), call=uid_sequence)
_DTYPE_NAMES = st.sampled_from(["float32", "int8", "uint8", "bool", "int64", "float16", "float64",
                                "int32", "complex64", "str", "nope"])
for _name in ("is_float_dtype", "is_int_dtype", "standardize_dtype"):
    add(B + _name, st.tuples(_DTYPE_NAMES).map(Case))
add(B + "result_type", st.lists(st.one_of(_DTYPE_NAMES.filter(lambda d: d not in ("str", "nope")),
                                          st.sampled_from([int, float])), max_size=3)
    .map(lambda v: Case(tuple(v))))

# -- elementwise -------------------------------------------------------------------------------

for _name in ("abs", "cos", "exp", "sin", "square", "sign", "round", "tanh", "sigmoid", "softplus",
              "softsign", "hard_sigmoid", "elu"):
    add(B + _name, unary_cases(FLOATS, low=-3, high=3).filter(lambda c: not isinstance(
        c.args[0], (list, float))), grad=1 if _name not in ("sign", "round") else 0)
for _name in ("log", "sqrt"):
    add(B + _name, unary_cases(FLOATS, low=-1.0, high=4.0).filter(lambda c: not isinstance(
        c.args[0], (list, float))), grad=1)
add(B + "relu", tensor_then(alpha=lambda a: maybe(st.sampled_from([0.0, 0.1])),
                            max_value=lambda a: maybe(st.sampled_from([None, 6, 1.5])),
                            threshold=lambda a: maybe(st.sampled_from([0.0, 0.5])),
                            dtypes=FLOATS), grad=1)
for _name in ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "maximum",
              "minimum"):
    add(B + _name, pair_cases(NUMERIC), grad=1 if _name in ("maximum", "minimum") else 0)
add(B + "pow", st.tuples(tensors(FLOATS, low=0.25, high=2.0), st.sampled_from([2, 0.5, -1.0])
                         ).map(Case), grad=1)
add(B + "clip", st.tuples(tensors(NUMERIC), st.sampled_from([-1.0, None, 2]),
                          st.sampled_from([1.0, None, -2])).map(Case), grad=1)
add(B + "l2_normalize", tensor_then(axis=lambda a: maybe(an_axis(a, True)), dtypes=FLOATS,
                                    shape=nonempty_shapes), grad=1)
add(B + "softmax", tensor_then(axis=lambda a: maybe(st.sampled_from([-1, 0])), dtypes=FLOATS,
                               shape=st.sampled_from([(2, 3), (3,), (2, 2, 2)])), grad=1)

# -- reductions --------------------------------------------------------------------------------


@st.composite
def reduce_case(draw, dtypes=NUMERIC + ("bool",), keepdims=True):
    x = draw(tensors(dtypes, shape=nonempty_shapes, variable=True))
    args = [x, draw(st.one_of(st.none(), an_axis(np.asarray(x.value))))]
    if keepdims:
        args.append(draw(st.booleans()))
    return Case(tuple(args))


for _name in ("sum", "mean", "max", "min", "prod", "std", "var", "all", "any"):
    add(B + _name, reduce_case(), grad=1 if _name in ("sum", "mean", "std", "var") else 0)
for _name in ("argmax", "argmin", "cumsum", "cumprod"):
    add(B + _name, tensor_then(lambda a: an_axis(a), dtypes=NUMERIC, shape=nonempty_shapes),
        grad=1 if _name.startswith("cum") else 0)

# -- shapes and values -------------------------------------------------------------------------

for _name in ("transpose", "flatten", "zeros_like", "ones_like", "stop_gradient", "to_dense",
              "eval", "get_value", "shape", "ndim", "dtype", "int_shape", "count_params",
              "is_sparse", "is_keras_tensor", "cast_to_floatx"):
    add(B + _name, tensor_then(dtypes=NUMERIC), grad=1 if _name in ("transpose", "flatten",
                                                                   "stop_gradient") else 0)
add(B + "batch_flatten", tensor_then(dtypes=NUMERIC, shape=st.sampled_from([(2, 3, 2), (3, 1)])),
    grad=1)
add(B + "cast", st.tuples(tensors(NUMERIC + ("bool",)), _DT).map(Case), grad=1)
add(B + "reshape", tensor_then(lambda a: st.just([-1] + ([a.shape[-1]] if a.ndim else []))),
    grad=1)
add(B + "permute_dimensions", tensor_then(lambda a: st.permutations(range(a.ndim)).map(list),
                                          shape=st.sampled_from([(2, 3), (2, 3, 4)])), grad=1)
add(B + "expand_dims", tensor_then(axis=lambda a: maybe(st.integers(-a.ndim - 1, a.ndim))), grad=1)
add(B + "squeeze", st.tuples(tensors(NUMERIC, shape=(2, 1, 3)), st.sampled_from([1, -2])).map(Case),
    grad=1)
add(B + "stack", st.tuples(st.lists(tensors(("float32",), shape=(2, 3)), min_size=1, max_size=3),
                           st.sampled_from([0, -1])).map(Case), grad=1)
add(B + "concatenate", st.tuples(st.lists(tensors(("float32",), shape=(2, 3)), min_size=1,
                                          max_size=3), st.sampled_from([0, -1, 1])).map(Case),
    grad=1)
add(B + "tile", tensor_then(lambda a: st.just([2] * a.ndim) if a.ndim else st.just([]),
                            shape=st.sampled_from([(2, 3), (3,)])), grad=1)
add(B + "repeat", tensors(FLOATS, shape=(2, 3)).map(lambda x: Case((x, 2))), grad=1)
add(B + "repeat_elements", tensor_then(lambda a: st.integers(1, 3), lambda a: an_axis(a),
                                       shape=st.sampled_from([(2, 3), (3,)])), grad=1)
add(B + "reverse", tensor_then(lambda a: an_axis(a), shape=nonempty_shapes), grad=1)
add(B + "gather", st.tuples(tensors(FLOATS, shape=(4, 2)), st.sampled_from([[0, 3], [1, 1, 2]])
                            ).map(Case), grad=1)
add(B + "one_hot", st.tuples(tensors(("int32", "int64"), shape=(3,), low=0, high=3),
                             st.sampled_from([4, 2])).map(Case))
add(B + "arange", st.one_of(st.tuples(st.integers(-2, 5)), st.tuples(
    st.integers(0, 2), st.integers(3, 6), st.sampled_from([1, 2]), st.sampled_from(
        ["int32", "float32", "int64"]))).map(Case))
add(B + "eye", st.tuples(st.integers(1, 3), maybe(st.sampled_from(["float32", "int32"])).map(
    lambda d: None if d is not None and not isinstance(d, str) else d)).map(Case))
for _name in ("ones", "zeros"):
    add(B + _name, st.tuples(st.sampled_from([(2, 3), (0, 2), (3,)]),
                             st.sampled_from([None, "float64", "int32"])).map(Case))
add(B + "constant", st.tuples(st.sampled_from([1, 2.5, [1, 2]]), st.sampled_from([None, "int32",
                                                                                 "float64"]),
                              st.sampled_from([None, (2,), (2, 1)])).map(Case))
add(B + "variable", st.tuples(st.sampled_from([1.0, [1, 2], [[0.5]]]),
                              st.sampled_from([None, "float64", "int32"])).map(Case))
add(B + "batch_dot", st.sampled_from([((2, 3), (2, 3), None), ((2, 3, 4), (2, 4, 2), None),
                                      ((2, 3, 4), (2, 4), None), ((2, 3, 4), (2, 3, 5), 1),
                                      ((2, 3, 4, 2), (2, 2, 5), (3, 1))]).flatmap(
    lambda p: st.tuples(tensors(_F[:1], shape=p[0]), tensors(_F[:1], shape=p[1]),
                        st.just(p[2]))).map(Case), grad=1)
add(B + "dot", st.sampled_from([((2, 3), (3, 4)), ((2, 2, 3), (3, 4)), ((2, 3), (2, 3, 4))]).flatmap(
    lambda p: st.tuples(tensors(_F[:1], shape=p[0]), tensors(_F[:1], shape=p[1]))).map(Case),
    grad=1)
add(B + "switch", st.tuples(st.sampled_from([T(np.array(True)), T(np.array([True, False])),
                                             T(np.array(0))]),
                            tensors(("float32",), shape=(2,)), tensors(("float32",), shape=(2,))
                            ).map(Case), grad=1)
add(B + "in_top_k", st.tuples(tensors(("float32",), shape=(3, 4)),
                              st.just(T(np.array([0, 2, 1], np.int32))), st.integers(1, 3)).map(Case))
add(B + "map_fn", st.tuples(tensors(FLOATS, shape=(3, 2))).map(Case),
    call=lambda lib, x: lib.keras.backend.map_fn(lambda v: v * 2.0, x), grad=1)
add(B + "foldl", st.tuples(tensors(FLOATS, shape=(4,))).map(Case),
    call=lambda lib, x: lib.keras.backend.foldl(lambda a, v: a + v * v, x), grad=1)
add(B + "foldr", st.tuples(tensors(FLOATS, shape=(4,))).map(Case),
    call=lambda lib, x: lib.keras.backend.foldr(lambda a, v: a * 0.5 + v, x), grad=1)

# -- networks ---------------------------------------------------------------------------------

add(B + "bias_add", st.sampled_from([((2, 3), (3,), None), ((2, 3, 4), (4,), "channels_last"),
                                     ((2, 3, 4), (3,), "channels_first"),
                                     ((2, 3, 4, 5), (4, 5), "channels_last"),
                                     ((2, 3, 4, 5), (4, 5, 3), "channels_first")]).flatmap(
    lambda p: st.tuples(tensors(_F, shape=p[0]), tensors(_F, shape=p[1]), st.just(p[2]))).filter(
    lambda t: t[0].value.dtype == t[1].value.dtype).map(Case), grad=1)
add(B + "batch_normalization", tensors(_F, shape=(3, 4)).map(lambda x: Case((
    x, T(np.full(4, 0.5, x.value.dtype)), T(np.full(4, 2.0, x.value.dtype)),
    T(np.zeros(4, x.value.dtype)), T(np.ones(4, x.value.dtype))))), grad=1)


@st.composite
def probs(draw, kind):
    dtype = draw(st.sampled_from(_F))
    logits = draw(values(dtype, (3, 4), -3, 3))
    from_logits = draw(st.booleans())
    if kind == "binary":
        target = T(draw(values(dtype, (3, 4), 0, 1)).round())
        out = logits if from_logits else 1 / (1 + np.exp(-logits))
    else:
        classes = draw(values("int32", (3,), 0, 3))
        target = T(classes) if kind == "sparse" else T(np.eye(4, dtype=dtype)[classes])
        e = np.exp(logits - logits.max(-1, keepdims=True))
        out = logits if from_logits else e / e.sum(-1, keepdims=True)
    return Case((target, V(np.asarray(out, dtype))), {"from_logits": from_logits})


for _name, _kind in (("binary_crossentropy", "binary"), ("binary_focal_crossentropy", "binary"),
                     ("categorical_crossentropy", "cat"), ("categorical_focal_crossentropy", "cat"),
                     ("sparse_categorical_crossentropy", "sparse")):
    add(B + _name, probs(_kind), grad=1)


@st.composite
def conv_case(draw, dims, kind="conv"):
    fmt = draw(st.sampled_from(["channels_last", "channels_first"]))
    dtype = "float32"
    spatial = [draw(st.integers(3, 5)) for _ in range(dims)]
    c = 2
    shape = [2] + (spatial + [c] if fmt == "channels_last" else [c] + spatial)
    x = T(draw(values(dtype, tuple(shape))))
    k = [draw(st.integers(1, 2)) for _ in range(dims)]
    kw = {"data_format": fmt, "padding": draw(st.sampled_from(["valid", "same"]))}
    if kind == "conv":
        return Case((x, T(draw(values(dtype, tuple(k + [c, 3]))))), kw)
    dw = T(draw(values(dtype, tuple(k + [c, 1]))))
    if kind == "depthwise":
        return Case((x, dw), kw)
    return Case((x, dw, T(draw(values(dtype, (1, 1, c, 3))))), kw)


add(B + "conv1d", conv_case(1), grad=1)
add(B + "conv2d", conv_case(2), grad=1)
add(B + "conv3d", conv_case(3), grad=1)
add(B + "depthwise_conv2d", conv_case(2, "depthwise"), grad=1)
add(B + "separable_conv2d", conv_case(2, "separable"), grad=1)
add(B + "conv2d_transpose", st.tuples(tensors(("float32",), shape=(2, 3, 3, 2)),
                                      tensors(("float32",), shape=(2, 2, 4, 2)),
                                      st.sampled_from([((2, 4, 4, 4), "valid", (1, 1)),
                                                       ((2, 6, 6, 4), "same", (2, 2)),
                                                       ((None, 3, 3, 4), "same", (1, 1))])).map(
    lambda t: Case((t[0], t[1], t[2][0]), {"padding": t[2][1], "strides": t[2][2]})), grad=1)
add(B + "pool2d", st.tuples(tensors(("float32",), shape=(2, 4, 5, 2)), st.sampled_from([(2, 2), (1, 3)]),
                            st.sampled_from([(1, 1), (2, 2)]), st.sampled_from(["valid", "same"]),
                            st.just("channels_last"),  # TF's NCHW CPU pooling dies (SIGFPE)
                            st.sampled_from(["max", "avg"])).map(Case), grad=1)
add(B + "pool3d", st.tuples(tensors(("float32",), shape=(2, 4, 4, 4, 2)), st.sampled_from([(2, 2, 2)]),
                            st.sampled_from([(1, 1, 1), (2, 2, 2)]), st.sampled_from(["valid", "same"]),
                            st.sampled_from(["channels_last"]), st.sampled_from(["avg"])).map(Case),
    grad=1)
add(B + "temporal_padding", st.tuples(tensors(FLOATS, shape=(2, 3, 2)),
                                      st.sampled_from([(1, 1), (0, 2)])).map(Case), grad=1)
add(B + "spatial_2d_padding", st.tuples(tensors(FLOATS, shape=(2, 3, 3, 2)),
                                        st.sampled_from([((1, 1), (1, 1)), ((0, 2), (1, 0))]),
                                        st.sampled_from([None, "channels_first"])).map(Case), grad=1)
add(B + "spatial_3d_padding", st.tuples(tensors(FLOATS, shape=(1, 2, 2, 2, 1)),
                                        st.just(((1, 1), (0, 1), (1, 0))),
                                        st.sampled_from([None, "channels_first"])).map(Case), grad=1)
add(B + "resize_images", st.tuples(tensors(("float32",), shape=(1, 2, 3, 2)), st.integers(1, 3),
                                   st.integers(1, 2), st.sampled_from(["channels_last", "channels_first"]),
                                   st.sampled_from(["nearest", "bilinear"])).map(Case), grad=1)
add(B + "resize_volumes", st.tuples(tensors(FLOATS, shape=(1, 2, 2, 2, 1)), st.integers(1, 2),
                                    st.integers(1, 2), st.integers(1, 2),
                                    st.sampled_from(["channels_last", "channels_first"])).map(Case),
    grad=1)


def rnn_scenario(lib, x, go_backwards, use_mask, return_all):
    kb = lib.keras.backend
    w = lib.constant(np.linspace(-0.5, 0.5, 6).reshape(3, 2).astype(np.float32))

    def step(inputs, states):
        h = lib.tanh(lib.matmul(inputs, w) + states[0])
        return h, [h]
    mask = lib.constant(np.array([[True, True, False, True], [True, False, True, True]]))
    last, outputs, states = kb.rnn(step, x, [lib.zeros((2, 2))], go_backwards=go_backwards,
                                   mask=mask if use_mask else None,
                                   return_all_outputs=return_all)
    return [last, outputs, states[0]]


add(B + "rnn", st.tuples(tensors(("float32",), shape=(2, 4, 3)), st.booleans(), st.booleans(),
                         st.booleans()).map(Case), call=rnn_scenario, grad=1)

# -- state and random ------------------------------------------------------------------------


def on_variable(fn):
    def call(lib, value, *args):
        v = lib.Variable(value)
        out = fn(lib, v, *args)
        return [lib.convert_to_tensor(v), out]
    return call


add(B + "set_value", st.tuples(st.just(np.zeros((2,), np.float32)), st.sampled_from([[1, 2], [0.5, -1.5]])
                               ).map(Case), call=on_variable(lambda lib, v, x: lib.keras.backend.set_value(v, x)))
add(B + "batch_set_value", st.tuples(st.just(np.zeros((2,), np.float32)), st.sampled_from([[1, 2]])).map(Case),
    call=on_variable(lambda lib, v, x: lib.keras.backend.batch_set_value([(v, x)])))
add(B + "batch_get_value", st.tuples(tensors(FLOATS)).map(Case),
    call=lambda lib, x: lib.keras.backend.batch_get_value([x, lib.Variable(x)]))
for _name, _fn in (("update", "update"), ("update_add", "update_add"), ("update_sub", "update_sub")):
    add(B + _name, st.tuples(st.just(np.ones((2,), np.float32)), st.sampled_from([[1.0, 2.0], [0.5, -1.5]])
                             ).map(Case),
        call=on_variable(lambda lib, v, x, _fn=_fn: getattr(lib.keras.backend, _fn)(v, x)))
add(B + "moving_average_update", st.tuples(st.just(np.ones((2,), np.float32)), st.sampled_from([[3.0, 0.0]]),
                                           st.sampled_from([0.9, 0.5])).map(Case),
    call=on_variable(lambda lib, v, x, m: lib.keras.backend.moving_average_update(v, x, m)))
add(B + "name_scope", st.tuples(st.sampled_from(["outer", "block_1"])).map(Case),
    call=lambda lib, n: _scoped_name(lib, n))


def _scoped_name(lib, name):
    with lib.keras.backend.name_scope(name):
        v = lib.Variable(1.0, name="w")
    return v.name


add(B + "gradients", st.tuples(tensors(("float32",), shape=(2,))).map(Case),
    call=lambda lib, x: lib.keras.backend.gradients(x * 2.0, [x]))


def seeded_draw(name):
    def call(lib, *args, seed=None, global_seed=None):
        lib.random.set_seed(global_seed)
        try:
            out = getattr(lib.keras.backend, name)(*args, seed=seed)
        finally:
            lib.random.set_seed(None)
        return bits(lib.convert_to_tensor(out))
    return call


_GLOBAL = st.sampled_from([0, 1, 42])
_OP = st.sampled_from([0, 7, 1234])
for _name, _args in (("random_normal", [(2, 3), 0.5, 2.0]), ("random_uniform", [(4,), -1.0, 2.0]),
                     ("truncated_normal", [(3,), 0.0, 1.0]), ("random_bernoulli", [(5,), 0.3]),
                     ("random_normal_variable", [(2, 2), 0.0, 1.0]),
                     ("random_uniform_variable", [(3,), 0.0, 1.0])):
    add(B + _name, st.builds(lambda s, g, a=tuple(_args): Case(a, {"seed": s, "global_seed": g}),
                             _OP, _GLOBAL), call=seeded_draw(_name))
add(B + "dropout", st.builds(lambda s, g, x: Case((x, 0.5), {"seed": s, "global_seed": g}), _OP,
                             _GLOBAL, tensors(("float32",), shape=(3, 4))),
    call=seeded_draw("dropout"))



# -- CTC -----------------------------------------------------------------------------------------


@st.composite
def ctc_batch(draw):
    frames, classes = draw(st.integers(4, 6)), draw(st.integers(3, 5))
    logits = draw(values("float32", (2, frames, classes)))
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    labels = np.array(draw(st.lists(st.integers(0, classes - 2), min_size=6, max_size=6)),
                      np.int32).reshape(2, 3)
    return Case((T(labels), V(probs.astype(np.float32)),
                 T(np.array([[frames], [frames - 1]], np.int32)),
                 T(np.array(draw(st.lists(st.integers(1, 2), min_size=2, max_size=2)),
                            np.int32).reshape(2, 1))))


add(B + "ctc_batch_cost", ctc_batch(), grad=1)
add(B + "ctc_decode", ctc_batch().flatmap(lambda c: st.sampled_from([{}, {"greedy": False, "beam_width": 4, "top_paths": 2}]).map(
    lambda kw: Case((T(c.args[1].value), T(c.args[2].value.reshape(-1))), kw))))
add(B + "ctc_label_dense_to_sparse", st.tuples(
    tensors(("int32",), shape=(3, 4), low=0, high=5),
    st.lists(st.integers(0, 4), min_size=3, max_size=3).map(lambda v: T(np.array(v, np.int32)))
).map(Case))
