"""Rows for the Keras namespaces: keras.layers, losses, metrics, activations, initializers and
optimizers.

Most rows here are small scenarios rather than single calls: a layer is built from a drawn
config, its weights are set to a fixed pattern in both libraries, then it is called; a metric is
updated on a few batches; an optimizer takes three steps with fixed gradients. Each row's call
returns plain values (tensors, lists, dicts of numbers and strings) that the oracle compares.
Random things (dropout masks, random initializers) are compared by shape, dtype and properties
that hold for any draw, never by their random values.
"""
import re

import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, D, T, weights_like
from parity_strategies import OMIT, cases, maybe, values
from parity_table import Table, resolve

TABLE = Table()
add = TABLE.add
LAYER_DTYPES = ("float32",) * 5 + ("float64", "float16", "int32")


# -- shared helpers ---------------------------------------------------------------------------

def _np_dtype(dtype):
    return np.dtype(getattr(dtype, "as_numpy_dtype", dtype))


def _short(variable):
    """A variable's own name without scope or ':0' ('dense/kernel:0' -> 'kernel')."""
    return variable.name.split("/")[-1].split(":")[0]


def _dtype_name(dtype):
    return getattr(dtype, "name", dtype)


def _set_fixed_weights(layer):
    """Every weight of `layer` set to a pattern that depends on its position and shape (not on
    its name: a naming difference is not a numerical one; an order difference is, as it breaks
    set_weights)."""
    for i, w in enumerate(layer.weights):
        value = weights_like(tuple(w.shape), _np_dtype(w.dtype), salt=i)
        if "variance" in _short(w):
            value = np.abs(value) + 0.5
        w.assign(value)


def _bad_rank(draw, ndim):
    """Usually `ndim`; sometimes one less or one more (the error class is compared)."""
    if draw(st.integers(0, 9)) == 0:
        return max(ndim + draw(st.sampled_from([-1, 1])), 0)
    return ndim


@st.composite
def layer_input(draw, ndim, side=(1, 4), dtypes=LAYER_DTYPES, low=-4.0, high=4.0, last=None):
    """A T of rank `ndim` (sometimes off by one), dims in `side`, last dim `last` if given."""
    ndim = _bad_rank(draw, ndim)
    shape = [draw(st.integers(*side)) for _ in range(ndim)]
    if last is not None and shape:
        shape[-1] = last
    dtype = draw(st.sampled_from(dtypes))
    return T(draw(values(dtype, tuple(shape), low, high)))


def _config(case):
    return case.kwargs.get("config", {})


def _x(case):
    return case.args[0] if case.args else None


def _make_layer_call(path, random=False, stats=False, build_with=None):
    """The call of a layer row: construct, build, fix weights, call again."""
    def call(lib, x, config, training=None):
        layer = resolve(lib, path)(**config)
        layer(x)
        _set_fixed_weights(layer)
        y = layer(x, training=training)
        if random and training:
            kept = lib.cast(lib.not_equal(y, 0), y.dtype)
            return {"shape": list(y.shape), "dtype": _dtype_name(y.dtype),
                    "check": random(lib, x, y, kept, config)}
        if stats and training:
            return [y, {_short(w): lib.convert_to_tensor(w) for w in layer.non_trainable_weights}]
        return y
    return call


def layer_row(path, cases_, grad=1, random=False, stats=False, **options):
    """A layer built from a drawn config, with fixed weights, on a drawn input. Layers compute in
    float32 whatever the input (float16 gradients round at 1e-3), so one looser tolerance
    applies to every dtype."""
    options.setdefault("rtol", 1e-3)
    options.setdefault("atol", 2e-3)
    return add(path, cases_, call=_make_layer_call(path, random, stats), grad=grad, **options)


def layer_cases(config, x, training=st.sampled_from([None, False, True])):
    """Case((x,), {config, training}) from a strategy of configs and one of inputs
    (`x` may be a function of the drawn config)."""
    @st.composite
    def make(draw):
        c = draw(config)
        c = {k: v for k, v in c.items() if v is not OMIT}
        xx = draw(x(c) if callable(x) else x)
        return Case((xx,), {"config": c, "training": draw(training)})
    return make()


def fixed(**strategies):
    """A dict strategy: one strategy (or OMIT via `maybe`) per key."""
    return st.fixed_dictionaries(strategies)


# -- layers: core ---------------------------------------------------------------------------

ACTIVATION_NAMES = ["relu", "tanh", "softmax", "sigmoid", "linear", "elu", "gelu", "swish"]

layer_row("keras.layers.Dense", layer_cases(
    fixed(units=st.sampled_from([1, 2, 3, 0]), activation=maybe(st.sampled_from([None] + ACTIVATION_NAMES)),
          use_bias=maybe(st.booleans())),
    st.integers(2, 3).flatmap(lambda n: layer_input(n))))
layer_row("keras.layers.Activation", layer_cases(
    fixed(activation=st.sampled_from(ACTIVATION_NAMES + ["relu6", "softplus", "selu", "nope"])),
    st.integers(1, 3).flatmap(lambda n: layer_input(n))))
layer_row("keras.layers.Rescaling", layer_cases(
    fixed(scale=st.sampled_from([1 / 255, 2.0, -0.5]), offset=maybe(st.sampled_from([0.0, -1.0, 0.5]))),
    st.integers(0, 3).flatmap(lambda n: layer_input(n, dtypes=LAYER_DTYPES + ("uint8",), low=0))))
layer_row("keras.layers.Flatten", layer_cases(
    fixed(data_format=maybe(st.sampled_from(["channels_last", "channels_first"]))),
    st.integers(1, 4).flatmap(lambda n: layer_input(n))))
layer_row("keras.layers.Reshape", layer_cases(
    fixed(target_shape=st.sampled_from([(6,), (2, 3), (3, -1), (-1,), (1, 6), (4, 2), (-1, -1)])),
    st.sampled_from([(2, 2, 3), (1, 6), (3, 2, 1), (2, 4)]).flatmap(
        lambda s: st.sampled_from(("float32", "int32")).flatmap(lambda d: values(d, s)).map(T))))
layer_row("keras.layers.Permute", layer_cases(
    fixed(dims=st.sampled_from([(1,), (2, 1), (1, 2), (3, 1, 2), (2, 3, 1), (1, 1), (0, 1)])),
    st.integers(1, 4).flatmap(lambda n: layer_input(n))))
layer_row("keras.layers.RepeatVector", layer_cases(
    fixed(n=st.sampled_from([1, 2, 3, 0])), layer_input(2)))
add("keras.layers.Lambda", layer_cases(
    fixed(function=st.just(None)), st.integers(0, 3).flatmap(lambda n: layer_input(n))),
    call=lambda lib, x, config, training=None: [
        lib.keras.layers.Lambda(lambda t: t * 2.0 + 1.0)(lib.cast(x, "float32")),
        lib.keras.layers.Lambda(lambda t, k: t * k, arguments={"k": 3.0})(lib.cast(x, "float32")),
        lib.keras.layers.Lambda(lambda t: [t, -t])(lib.cast(x, "float32"))], grad=1)


# -- layers: convolution --------------------------------------------------------------------

def rarely(valid, invalid):
    """Mostly a value of `valid` (a list), one time in ten a value of `invalid`."""
    return st.integers(0, 9).flatmap(lambda i: st.sampled_from(invalid if i == 0 else valid))


def conv_cases(rank, filters=True, transpose=False, depthwise=False, separable=False):
    pad = ["valid", "same"] + (["causal"] if rank == 1 and not transpose else [])
    options = dict(kernel_size=st.sampled_from([1, 2, 3] + ([(1, 2), (2, 1)] if rank == 2 else [])),
                   strides=maybe(st.sampled_from([1, 2])),
                   padding=maybe(rarely(pad, ["bogus"])),
                   data_format=maybe(st.sampled_from(["channels_last", "channels_first"])),
                   use_bias=maybe(st.booleans()),
                   activation=maybe(st.sampled_from([None, "relu"])))
    if filters:
        options["filters"] = rarely([1, 2, 3], [0, -1])
    if not transpose and not depthwise:
        options["dilation_rate"] = maybe(st.sampled_from([1, 2]))
    if transpose:
        options["output_padding"] = maybe(st.sampled_from([None, 0, 1]))
    if depthwise or separable:
        options["depth_multiplier"] = maybe(st.sampled_from([1, 2]))

    def x(config):
        return layer_input(rank + 2, side=(1, 3), dtypes=CONV_DTYPES).map(
            lambda t: _grow(t, rank, config.get("data_format")))
    configs = fixed(**options)
    if transpose:
        configs = configs.map(_transpose_safe)
    return layer_cases(configs, x)


def _transpose_safe(config):
    """Conv2DTranspose with a stride larger than the kernel makes TF's oneDNN gradient kernel
    abort the whole process, so such configs keep stride 1."""
    kernel = config["kernel_size"]
    if min(kernel if isinstance(kernel, tuple) else (kernel,)) < 2 and config.get("strides") == 2:
        config = dict(config, strides=1)
    return config


CONV_DTYPES = ("float32",) * 8 + ("float64", "float16", "int32")


def _grow(t, rank, data_format=None):
    """Spatial dims (as `data_format` places them) of 5 or more, so every drawn kernel, window
    and dilation fits; batch and channels stay small."""
    a = np.asarray(t.value)
    if a.ndim != rank + 2:
        return t
    spatial = range(2, a.ndim) if data_format == "channels_first" else range(1, a.ndim - 1)
    reps = [-(-5 // d) if i in spatial and d < 5 else 1 for i, d in enumerate(a.shape)]
    return T(np.tile(a, reps))


layer_row("keras.layers.Conv1D", conv_cases(1))
layer_row("keras.layers.Conv2D", conv_cases(2))
layer_row("keras.layers.Conv2DTranspose", conv_cases(2, transpose=True))
layer_row("keras.layers.DepthwiseConv2D", conv_cases(2, filters=False, depthwise=True))
layer_row("keras.layers.SeparableConv2D", conv_cases(2, separable=True))


# -- layers: pooling ------------------------------------------------------------------------

def pool_cases(rank, small_inputs=False):
    """Pooling configs and inputs. TF's MaxPool kills the process (SIGFPE) on a window larger
    than a channels_first input, so only AveragePooling (`small_inputs`) may get such inputs
    (its spatial dims are grown as if channels_last)."""
    sizes = [1, 2, 3] + ([(2, 1), (1, 2)] if rank == 2 else [])
    return layer_cases(
        fixed(pool_size=maybe(st.sampled_from(sizes)), strides=maybe(st.sampled_from([None, 1, 2])),
              padding=maybe(rarely(["valid", "same"], ["bogus"])),
              data_format=maybe(st.sampled_from(["channels_last", "channels_first"]))),
        lambda c: layer_input(rank + 2, side=(1, 4)).map(
            lambda t: _grow(t, rank, None if small_inputs else c.get("data_format"))))


for _rank in (1, 2):
    layer_row(f"keras.layers.MaxPooling{_rank}D", pool_cases(_rank))
    layer_row(f"keras.layers.AveragePooling{_rank}D", pool_cases(_rank, small_inputs=True))
    for _kind in ("Max", "Average"):
        layer_row(f"keras.layers.Global{_kind}Pooling{_rank}D", layer_cases(
            fixed(keepdims=maybe(st.booleans()),
                  data_format=maybe(st.sampled_from(["channels_last", "channels_first"]))),
            layer_input(_rank + 2, side=(1, 4))), grad=1)


# -- layers: normalization ------------------------------------------------------------------


layer_row("keras.layers.BatchNormalization", layer_cases(
    fixed(axis=maybe(st.sampled_from([-1, 1, 2, 5])), momentum=maybe(st.sampled_from([0.99, 0.5, 0.0])),
          epsilon=maybe(st.sampled_from([1e-3, 0.5])), center=maybe(st.booleans()),
          scale=maybe(st.booleans())),
    st.integers(2, 4).flatmap(lambda n: layer_input(n, side=(2, 4)))), stats=True)
layer_row("keras.layers.LayerNormalization", layer_cases(
    fixed(axis=maybe(st.sampled_from([-1, 1, 2, 5, [1, 2], [-1, -2]])),
          epsilon=maybe(st.sampled_from([1e-3, 0.5])), center=maybe(st.booleans()),
          scale=maybe(st.booleans())),
    st.integers(2, 4).flatmap(lambda n: layer_input(n, side=(1, 4)))))


# -- layers: regularization (random in training) -------------------------------------------

def _dropout_check(lib, x, y, kept, config):
    """Zero wherever the kept entries equal x / (1 - rate) (the inverted-dropout rule)."""
    rate = config.get("rate", 0.0)
    x = lib.cast(x, y.dtype)
    return lib.reduce_max(lib.abs((y - x / (1.0 - rate)) * kept)) if 0 <= rate < 1 else y


def _noise_check(lib, x, y, kept, config):
    return lib.reduce_all(lib.is_finite(y))


_RATES = st.sampled_from([0.0, 0.25, 0.5, 0.9, 1.0, -0.1])
layer_row("keras.layers.Dropout", layer_cases(
    fixed(rate=_RATES, seed=maybe(st.sampled_from([None, 3]))),
    st.integers(0, 3).flatmap(lambda n: layer_input(n, dtypes=("float32", "float32", "float64")))),
    random=_dropout_check)
layer_row("keras.layers.SpatialDropout1D", layer_cases(
    fixed(rate=_RATES), layer_input(3, dtypes=("float32",))), random=_dropout_check)
layer_row("keras.layers.SpatialDropout2D", layer_cases(
    fixed(rate=_RATES, data_format=maybe(st.sampled_from(["channels_last", "channels_first"]))),
    layer_input(4, dtypes=("float32",))), random=_dropout_check)
layer_row("keras.layers.GaussianNoise", layer_cases(
    fixed(stddev=st.sampled_from([0.1, 1.0, 0.0]), seed=maybe(st.sampled_from([None, 3]))),
    st.integers(0, 3).flatmap(lambda n: layer_input(n, dtypes=("float32", "float64")))),
    random=_noise_check)


# -- layers: reshaping ----------------------------------------------------------------------

_FORMATS = maybe(st.sampled_from(["channels_last", "channels_first"]))
layer_row("keras.layers.UpSampling2D", layer_cases(
    fixed(size=maybe(st.sampled_from([1, 2, (2, 3), (1, 2)])), data_format=_FORMATS,
          interpolation=maybe(st.sampled_from(["nearest", "bilinear", "bogus"]))),
    layer_input(4, side=(1, 3))))
layer_row("keras.layers.ZeroPadding2D", layer_cases(
    fixed(padding=maybe(st.sampled_from([0, 1, 2, (1, 2), ((0, 1), (2, 0)), (1, 2, 3)])),
          data_format=_FORMATS),
    layer_input(4, side=(1, 3))))
layer_row("keras.layers.Cropping2D", layer_cases(
    fixed(cropping=maybe(st.sampled_from([0, 1, (1, 0), ((0, 1), (1, 0)), ((2, 2), (0, 0)), (1, 2, 3)])),
          data_format=_FORMATS),
    layer_input(4, side=(1, 4))))


# -- layers: activations ----------------------------------------------------------------------

layer_row("keras.layers.ReLU", layer_cases(
    fixed(max_value=maybe(rarely([None, 6.0, 1.0], [-1.0])),
          negative_slope=maybe(rarely([0.0, 0.2], [-0.5])),
          threshold=maybe(rarely([0.0, 0.5], [-1.0]))),
    st.integers(0, 3).flatmap(lambda n: layer_input(n))))
layer_row("keras.layers.LeakyReLU", layer_cases(
    fixed(negative_slope=maybe(st.sampled_from([0.3, 0.0, 1.5, -0.5]))),
    st.integers(0, 3).flatmap(lambda n: layer_input(n))))
layer_row("keras.layers.ELU", layer_cases(
    fixed(alpha=maybe(st.sampled_from([1.0, 0.5, 2.0]))),
    st.integers(0, 3).flatmap(lambda n: layer_input(n))))
layer_row("keras.layers.Softmax", layer_cases(
    fixed(axis=maybe(st.sampled_from([-1, 0, 1, -2, [0, 1]]))),
    st.integers(1, 3).flatmap(lambda n: layer_input(n))))


# -- layers: embedding --------------------------------------------------------------------------

layer_row("keras.layers.Embedding", layer_cases(
    fixed(input_dim=st.sampled_from([5, 1, 0]), output_dim=st.sampled_from([3, 1]),
          mask_zero=maybe(st.booleans())),
    st.integers(1, 3).flatmap(lambda n: layer_input(n, dtypes=("int32", "int64", "float32"), low=0,
                                                    high=4.0))), grad=0)


# -- layers: merging ------------------------------------------------------------------------

@st.composite
def merge_inputs(draw, count=(2, 3)):
    """A list of 1-3 tensors: the same shape, sometimes a broadcastable or mismatched one."""
    n = draw(st.integers(*count)) if draw(st.integers(0, 9)) else draw(st.sampled_from([1, 4]))
    shape = tuple(draw(st.integers(1, 3)) for _ in range(draw(st.integers(1, 3))))
    dtype = draw(st.sampled_from(("float32", "float32", "float64", "int32")))
    out = []
    for i in range(n):
        s = shape
        if i and draw(st.integers(0, 7)) == 0:
            s = draw(st.sampled_from([shape[:-1] + (1,), shape[:1] + (5,) + shape[1:], (shape[0], 2)]))
        out.append(T(draw(values(dtype, s))))
    return out


def _merge_call(path, functional=False):
    def call(lib, xs, config, training=None):
        if functional:
            return resolve(lib, path)(xs, **config)
        return resolve(lib, path)(**config)(xs)
    return call


for _name in ("Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum"):
    add(f"keras.layers.{_name}", merge_inputs().map(lambda xs: Case((xs,), {"config": {}})),
        call=_merge_call(f"keras.layers.{_name}"), grad=1)
    add(f"keras.layers.{_name.lower()}", merge_inputs().map(lambda xs: Case((xs,), {"config": {}})),
        call=_merge_call(f"keras.layers.{_name.lower()}", functional=True), grad=1)
_concat_cases = st.tuples(merge_inputs(), st.sampled_from([{}, {"axis": -1}, {"axis": 0}, {"axis": 1},
                                                           {"axis": 3}])).map(
    lambda p: Case((p[0],), {"config": p[1]}))
add("keras.layers.Concatenate", _concat_cases, call=_merge_call("keras.layers.Concatenate"), grad=1)
add("keras.layers.concatenate", _concat_cases, call=_merge_call("keras.layers.concatenate", True), grad=1)


# -- layers: scenarios ------------------------------------------------------------------------

def _layer_scenario(lib, x, kind):
    """Subclassing Layer: build() with add_weight, call(), trainable flags, weights, config."""
    base = lib.keras.layers.Layer

    class Scale(base):
        def __init__(self, units=2, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(shape=(int(input_shape[-1]), self.units), initializer="ones",
                                     name="w")
            self.b = self.add_weight(shape=(self.units,), initializer="zeros", trainable=False,
                                     name="b")

        def call(self, inputs):
            return lib.matmul(inputs, self.w) + self.b

        def get_config(self):
            config = super().get_config()
            config["units"] = self.units
            return config

    layer = Scale(units=3, name="scale")
    y = layer(x)
    if kind == "weights":
        return [y, len(layer.weights), len(layer.trainable_weights), len(layer.non_trainable_weights),
                [tuple(w.shape) for w in layer.weights], layer.built, layer.name]
    if kind == "names":
        return [w.name for w in layer.weights]
    if kind == "config":
        config = layer.get_config()
        clone = Scale.from_config(config)
        return [config["units"], config["name"], config["trainable"], clone.units, clone.name]
    if kind == "freeze":
        layer.trainable = False
        return [len(layer.trainable_weights), len(layer.non_trainable_weights)]
    if kind == "compute_output_shape":
        return list(lib.keras.layers.Dense(4).compute_output_shape((None, 3)))
    raise AssertionError(kind)


add("keras.layers.Layer", cases(layer_input(2, side=(1, 3), dtypes=("float32",)),
                                st.sampled_from(["weights", "names", "config", "freeze",
                                                 "compute_output_shape"])),
    call=_layer_scenario)


def _input_spec_scenario(lib, kwargs, x):
    spec = lib.keras.layers.InputSpec(**kwargs)

    class Checked(lib.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.input_spec = spec

        def call(self, inputs):
            return inputs * 2

    return [spec.ndim, spec.min_ndim, spec.max_ndim, Checked()(x)]


add("keras.layers.InputSpec", cases(
    st.sampled_from([{"ndim": 2}, {"min_ndim": 2}, {"max_ndim": 2}, {"ndim": 3},
                     {"shape": (None, 3)}, {"shape": (None, 2)}, {"axes": {-1: 3}}, {"axes": {-1: 2}},
                     {"dtype": "float32"}, {"ndim": 2, "axes": {1: 3}}]),
    st.sampled_from([(2, 3), (3,), (2, 2, 3)]).flatmap(lambda s: values("float32", s)).map(T)),
    call=_input_spec_scenario)


def _input_scenario(lib, which, x):
    """A functional model from keras.layers.Input or an InputLayer's output, called on `x`."""
    L = lib.keras.layers
    batch_shape = (None,) + tuple(x.shape)[1:]
    if which == "Input":
        inp = L.Input(batch_shape=batch_shape, dtype="float32")
    else:
        inp = L.InputLayer(batch_input_shape=batch_shape, dtype="float32").output
    model = lib.keras.Model(inp, L.Dense(2, kernel_initializer="ones")(inp))
    return [list(inp.shape), model(x)]


add("keras.layers.Input", cases(st.just("Input"), layer_input(2, side=(1, 3), dtypes=("float32",))),
    call=_input_scenario)
add("keras.layers.InputLayer", cases(st.just("InputLayer"),
                                     layer_input(2, side=(1, 3), dtypes=("float32",))),
    call=_input_scenario)


def _probe_layer(L, which):
    return {"dense": lambda: L.Dense(3, activation="relu", use_bias=False, name="probe"),
            "conv": lambda: L.Conv1D(2, 2, padding="same", name="probe"),
            "dropout": lambda: L.Dropout(0.5, name="probe"),
            "relu": lambda: L.ReLU(max_value=2.0, name="probe")}[which]()


def _serialize_scenario(lib, x, which):
    L = lib.keras.layers
    layer = _probe_layer(L, which)
    config = L.serialize(layer)
    keys = ("units", "activation", "use_bias", "filters", "kernel_size", "padding", "rate",
            "max_value", "name", "trainable")
    return [config["class_name"], {k: v for k, v in config["config"].items() if k in keys}]


def _deserialize_scenario(lib, x, which):
    L = lib.keras.layers
    layer = _probe_layer(L, which)
    clone = L.deserialize(L.serialize(layer))
    x = lib.reshape(x, (1, 2, 3))
    layer(x)
    clone(x)
    _set_fixed_weights(layer)
    _set_fixed_weights(clone)
    return [type(clone).__name__, layer(x), clone(x)]


_ser_cases = cases(st.just(T(weights_like((6,), "float32"))),
                   st.sampled_from(["dense", "conv", "dropout", "relu"]))
add("keras.layers.serialize", _ser_cases, call=_serialize_scenario)
add("keras.layers.deserialize", _ser_cases, call=_deserialize_scenario)


# -- losses and metric functions ----------------------------------------------------------------

LABEL_SHAPES = [(3, 4), (2, 3), (4, 1), (1, 2), (2, 2, 3), (5,)]


def _labels(draw, kind, shape, dtype):
    """y_true of `kind` with `shape`: in the domain the loss expects (as an array)."""
    a = lambda low, high: draw(values(dtype, shape, low, high))  # noqa: E731
    if kind in ("binary", "positive"):
        if draw(st.booleans()) and kind == "binary":
            return draw(values("int32", shape, 0, 1)).astype(dtype)
        return np.abs(a(0, 1.0))
    if kind == "hinge":
        signs = draw(values("int32", shape, 0, 1)).astype(dtype)
        return signs if draw(st.booleans()) else signs * 2 - 1
    if kind == "categorical":
        classes = shape[-1] if shape else 1
        ids = draw(values("int32", shape[:-1], 0, classes - 1)) if shape else np.int32(0)
        onehot = np.eye(classes, dtype=dtype)[ids]
        return onehot if draw(st.integers(0, 3)) else np.abs(a(0, 1.0))
    if kind == "msle":
        return a(-0.875, 4.0)
    return a(-4.0, 4.0)


def _predictions(draw, kind, shape, dtype, logits):
    a = lambda low, high: draw(values(dtype, shape, low, high))  # noqa: E731
    if logits or kind in ("regression", "hinge"):
        return a(-4.0, 4.0)
    if kind == "msle":
        return a(-0.875, 4.0)
    # probabilities away from 0 and 1 (the clipping is compared elsewhere)
    return np.abs(a(0.125, 0.875)) if kind != "positive" else np.abs(a(0.125, 4.0))


@st.composite
def label_pairs(draw, kind, logits=False, shapes=LABEL_SHAPES, odd_shapes=True,
                dtypes=("float32", "float32", "float64")):
    """(y_true, y_pred) as T for a loss of `kind`; sometimes y_pred has a different but
    compatible (or incompatible) shape, or y_true an int dtype."""
    shape = draw(st.sampled_from(shapes))
    dtype = draw(st.sampled_from(dtypes))
    y_true = _labels(draw, kind, shape, dtype)
    pred_shape = shape
    if odd_shapes and draw(st.integers(0, 7)) == 0:
        pred_shape = draw(st.sampled_from([shape + (1,), shape[:-1] + (1,), shape[:-1], (7,)]))
        y_true = y_true if pred_shape == shape else draw(values(dtype, shape, 0, 1))
    y_pred = _predictions(draw, kind, pred_shape, dtype, logits)
    if draw(st.integers(0, 5)) == 0 and kind in ("binary", "hinge", "categorical"):
        y_true = np.round(y_true).astype("int32")
    return T(y_true), T(y_pred)


@st.composite
def sparse_pairs(draw, logits=False):
    """(labels, y_pred) for the sparse losses: int labels of shape (batch,) or (batch, 1),
    sometimes float labels or an out-of-range label."""
    batch, classes = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    labels = draw(values("int32", (batch,), 0, classes - 1))
    if draw(st.integers(0, 9)) == 0:
        labels = labels.copy()
        labels[0] = classes
    if draw(st.booleans()):
        labels = labels[:, None]
    dtype = draw(st.sampled_from(("float32", "float32", "float64")))
    label_dtype = draw(st.sampled_from(("int32", "int64", "float32")))
    pred = draw(values(dtype, (batch, classes), -4.0 if logits else 0.125, 4.0 if logits else 0.875))
    return T(labels.astype(label_dtype)), T(pred)


def _pair_case(pairs, **kwargs):
    """Case((y_true, y_pred), kwargs) from a pair strategy and keyword strategies."""
    return st.tuples(pairs, st.fixed_dictionaries(kwargs)).map(
            lambda t: Case(t[0], {k: v for k, v in t[1].items() if v is not OMIT}))


LOSS_KINDS = {
    "mean_squared_error": "regression", "mean_absolute_error": "regression",
    "mean_absolute_percentage_error": "regression", "mean_squared_logarithmic_error": "msle",
    "huber": "regression", "log_cosh": "regression", "cosine_similarity": "regression",
    "kl_divergence": "positive", "poisson": "positive", "hinge": "hinge", "squared_hinge": "hinge",
    "categorical_hinge": "hinge", "binary_crossentropy": "binary",
    "categorical_crossentropy": "categorical",
}
_LOSS_FUNCTION_ROWS = {  # the row name (TF's path) of each function, with its keyword options
    "MSE": ("mean_squared_error", {}), "MAE": ("mean_absolute_error", {}),
    "MAPE": ("mean_absolute_percentage_error", {}), "MSLE": ("mean_squared_logarithmic_error", {}),
    "huber": ("huber", {"delta": maybe(st.sampled_from([1.0, 0.5, 2.0]))}),
    "logcosh": ("log_cosh", {}),
    "cosine_similarity": ("cosine_similarity", {"axis": maybe(st.sampled_from([-1, 0, 1]))}),
    "KLD": ("kl_divergence", {}), "poisson": ("poisson", {}), "hinge": ("hinge", {}),
    "squared_hinge": ("squared_hinge", {}), "categorical_hinge": ("categorical_hinge", {}),
}
_XENT_OPTIONS = {"from_logits": maybe(st.booleans()),
                 "label_smoothing": maybe(st.sampled_from([0.0, 0.1, 0.5])),
                 "axis": maybe(st.sampled_from([-1, 0, 1]))}


def _xent_pairs(kind):
    return st.booleans().flatmap(lambda logits: label_pairs(kind, logits=logits))


def loss_function_rows(ns):
    for row, (fn, options) in _LOSS_FUNCTION_ROWS.items():
        if ns == "keras.metrics" and row not in ("MSE", "MAE", "MAPE"):
            continue
        # log_cosh: TF's float64 formula differs in the last digits (rtol 1e-4 for every dtype)
        add(f"{ns}.{row}", _pair_case(label_pairs(LOSS_KINDS[fn]), **options), grad=1,
            rtol=1e-4 if row == "logcosh" else None, atol=1e-6 if row == "logcosh" else None)
    for fn, kind in (("binary_crossentropy", "binary"), ("categorical_crossentropy", "categorical")):
        add(f"{ns}.{fn}", _pair_case(_xent_pairs(kind), **_XENT_OPTIONS), grad=1)
    add(f"{ns}.sparse_categorical_crossentropy", _pair_case(
        st.booleans().flatmap(lambda logits: sparse_pairs(logits)),
        from_logits=maybe(st.booleans()), axis=maybe(st.sampled_from([-1, 0])),
        ignore_class=maybe(st.sampled_from([None, 0, 1]))), grad=1)


loss_function_rows("keras.losses")


# -- loss classes ---------------------------------------------------------------------------

REDUCTIONS = st.sampled_from(["sum_over_batch_size", "sum", "none", None, "mean", "bogus", "auto"])


@st.composite
def sample_weights(draw, y):
    """None, a scalar, per-example weights or full-shape weights for labels `y` (a T)."""
    shape = np.shape(y.value)
    choice = draw(st.integers(0, 4))
    if choice == 0 or not shape:
        return OMIT
    if choice == 1:
        return draw(st.sampled_from([0.5, 2.0]))
    if choice == 2:
        return T(draw(values("float32", shape[:1], 0, 2)))
    if choice == 3:
        return T(draw(values("float32", shape[:-1] if len(shape) > 1 else shape, 0, 2)))
    return T(draw(values("float32", shape, 0, 2)))


def _loss_class_call(path):
    def call(lib, y_true, y_pred, config, sample_weight=None):
        loss = resolve(lib, path)(**config)
        return loss(y_true, y_pred, sample_weight=sample_weight)
    return call


def loss_class_cases(pairs, **options):
    @st.composite
    def make(draw):
        y_true, y_pred = draw(pairs)
        config = {k: draw(s) for k, s in options.items()}
        config["reduction"] = draw(maybe(REDUCTIONS))
        config = {k: v for k, v in config.items() if v is not OMIT}
        kwargs = {"config": config}
        sw = draw(sample_weights(y_true))
        if sw is not OMIT:
            kwargs["sample_weight"] = sw
        return Case((y_true, y_pred), kwargs)
    return make()


_LOSS_CLASSES = {
    "MeanSquaredError": ("regression", {}), "MeanAbsoluteError": ("regression", {}),
    "MeanAbsolutePercentageError": ("regression", {}), "MeanSquaredLogarithmicError": ("msle", {}),
    "Huber": ("regression", {"delta": maybe(st.sampled_from([1.0, 0.5]))}),
    "LogCosh": ("regression", {}), "KLDivergence": ("positive", {}), "Poisson": ("positive", {}),
    "CosineSimilarity": ("regression", {"axis": maybe(st.sampled_from([-1, 0]))}),
    "Hinge": ("hinge", {}), "SquaredHinge": ("hinge", {}), "CategoricalHinge": ("hinge", {}),
}
for _name, (_kind, _options) in _LOSS_CLASSES.items():
    add(f"keras.losses.{_name}", loss_class_cases(label_pairs(_kind), **_options),
        call=_loss_class_call(f"keras.losses.{_name}"), grad=1, rtol=1e-4)
for _name, _kind in (("BinaryCrossentropy", "binary"), ("CategoricalCrossentropy", "categorical")):
    add(f"keras.losses.{_name}", loss_class_cases(
        _xent_pairs(_kind), from_logits=maybe(st.booleans()),
        label_smoothing=maybe(st.sampled_from([0.0, 0.2])), axis=maybe(st.sampled_from([-1, 0]))),
        call=_loss_class_call(f"keras.losses.{_name}"), grad=1, rtol=1e-4)
add("keras.losses.SparseCategoricalCrossentropy", loss_class_cases(
    st.booleans().flatmap(lambda logits: sparse_pairs(logits)), from_logits=maybe(st.booleans()),
    ignore_class=maybe(st.sampled_from([None, 0]))),
    call=_loss_class_call("keras.losses.SparseCategoricalCrossentropy"), grad=1, rtol=1e-4)


def _custom_loss_call(lib, y_true, y_pred, config, sample_weight=None):
    """A Loss subclass: call() gives per-example losses, the base class weights and reduces."""
    class Squared(lib.keras.losses.Loss):
        def call(self, y_true, y_pred):
            return lib.reduce_mean(lib.square(lib.cast(y_true, y_pred.dtype) - y_pred), axis=-1)

    loss = Squared(**config)
    return [loss(y_true, y_pred, sample_weight=sample_weight), loss.name, loss.reduction]


add("keras.losses.Loss", loss_class_cases(label_pairs("regression", odd_shapes=False)),
    call=_custom_loss_call, grad=1, rtol=1e-4)


def _reduction_scenario(lib, key):
    R = lib.keras.losses.Reduction
    out = [R.NONE, R.SUM, R.SUM_OVER_BATCH_SIZE, R.AUTO, sorted(R.all())]
    try:
        R.validate(key)
        out.append("valid")
    except ValueError:
        out.append("invalid")
    return out


add("keras.losses.Reduction", cases(st.sampled_from(["sum", "none", "auto", "mean", "bogus", None])),
    call=_reduction_scenario)


def _loss_get(lib, identifier, y_true, y_pred):
    ns = lib.keras.losses
    if identifier == "class":
        identifier = ns.MeanAbsoluteError
    elif identifier == "dict":
        identifier = {"class_name": "Huber", "config": {"delta": 0.5}}
    fn = ns.get(identifier)
    return None if fn is None else fn(y_true, y_pred)


def _serialized(config, keys):
    """A serialized object reduced to what both formats share: (class_name, config subset) for
    dicts, the string itself for names."""
    if not isinstance(config, dict):
        return ["<name>", config]
    inner = config.get("config")
    if isinstance(inner, dict):
        inner = {k: v for k, v in inner.items() if k in keys}
    return [sorted(config), config.get("class_name"), inner]


def _loss_serialize(lib, which, y_true, y_pred):
    ns = lib.keras.losses
    obj = {"mse_fn": lambda: ns.mse, "huber": lambda: ns.Huber(delta=0.5, name="probe"),
           "bce": lambda: ns.BinaryCrossentropy(from_logits=True, name="probe"),
           "cce_fn": lambda: ns.categorical_crossentropy}[which]()
    config = ns.serialize(obj)
    return [_serialized(config, ("from_logits", "label_smoothing", "name", "reduction")),
            ns.deserialize(config)(y_true, y_pred)]


def _loss_deserialize(lib, name, y_true, y_pred):
    obj = lib.keras.losses.deserialize(name)
    return [type(obj).__name__ if not hasattr(obj, "__name__") else obj.__name__, obj(y_true, y_pred)]


_pairs_2d = label_pairs("binary", shapes=[(2, 3)], odd_shapes=False, dtypes=("float32",))
add("keras.losses.get", st.tuples(
    st.sampled_from(["mse", "mae", "huber", "binary_crossentropy", "MeanSquaredError", "class",
                     "dict", None, "nope", "logcosh", "kld"]), _pairs_2d).map(
    lambda t: Case((t[0],) + t[1])), call=_loss_get)
add("keras.losses.serialize", st.tuples(st.sampled_from(["mse_fn", "huber", "bce", "cce_fn"]),
                                        _pairs_2d).map(lambda t: Case((t[0],) + t[1])),
    call=_loss_serialize)
add("keras.losses.deserialize", st.tuples(
    st.sampled_from(["mse", "mean_squared_error", "Huber", "KLDivergence", "categorical_crossentropy",
                     "nope", "squared_hinge", "poisson"]), _pairs_2d).map(
    lambda t: Case((t[0],) + t[1])), call=_loss_deserialize)


# -- metrics ----------------------------------------------------------------------------------

loss_function_rows("keras.metrics")


@st.composite
def class_pairs(draw, k_max=4, sparse=False, int_pred=False):
    """(y_true, y_pred) for the accuracy metrics: one-hot or sparse labels and scores."""
    batch, classes = draw(st.integers(1, 4)), draw(st.integers(1, k_max))
    ids = draw(values("int32", (batch,), 0, classes - 1))
    scores = draw(values("float32", (batch, classes), 0, 1))
    if sparse:
        labels = ids[:, None] if draw(st.booleans()) else ids
        return T(labels.astype(draw(st.sampled_from(("int32", "int64", "float32"))))), T(scores)
    return T(np.eye(classes, dtype="float32")[ids]), T(scores)


@st.composite
def equal_pairs(draw):
    """(y_true, y_pred) for Accuracy: small integers or floats compared for equality."""
    shape = draw(st.sampled_from([(4,), (2, 3), (3, 1)]))
    dtype = draw(st.sampled_from(("int32", "float32")))
    return T(draw(values(dtype, shape, 0, 2))), T(draw(values(dtype, shape, 0, 2)))


@st.composite
def binary_scores(draw, shapes=[(4,), (2, 3), (3, 1), (2, 2, 2)]):
    """(y_true in {0, 1}, y_pred in [0, 1]) of one shape (sometimes float labels, sometimes bool)."""
    shape = draw(st.sampled_from(shapes))
    labels = draw(values("int32", shape, 0, 1))
    dtype = draw(st.sampled_from(("float32", "float32", "int32", "bool")))
    scores = np.abs(draw(values("float32", shape, 0, 1)))
    return T(labels.astype(dtype)), T(scores)


def _metric_call(path):
    def call(lib, batches, config):
        metric = resolve(lib, path)(**config)
        results = []
        for batch in batches:
            y_true, y_pred = batch[0], batch[1]
            if len(batch) == 3:
                metric.update_state(y_true, y_pred, sample_weight=batch[2])
            else:
                metric.update_state(y_true, y_pred)
            results.append(metric.result())
        metric.reset_state()
        results.append(metric.result())
        return results
    return call


def metric_cases(pairs, weights=True, **options):
    """Case((batches,), {config}): 1-3 batches of (y_true, y_pred[, sample_weight])."""
    @st.composite
    def make(draw):
        batches = []
        for _ in range(draw(st.integers(1, 3))):
            y_true, y_pred = draw(pairs)
            batch = (y_true, y_pred)
            if weights and draw(st.integers(0, 2)) == 0:
                shape = np.shape(y_true.value)[:1]
                batch += (T(draw(values("float32", shape, 0, 2))),)
            batches.append(batch)
        config = {k: draw(s) for k, s in options.items()}
        return Case((batches,), {"config": {k: v for k, v in config.items() if v is not OMIT}})
    return make()


def metric_row(name, pairs, weights=True, **options):
    path = f"keras.metrics.{name}"
    return add(path, metric_cases(pairs, weights, **options), call=_metric_call(path))


_same_shape_regression = label_pairs("regression", odd_shapes=False)
metric_row("Accuracy", equal_pairs())
metric_row("BinaryAccuracy", binary_scores(), threshold=maybe(st.sampled_from([0.5, 0.3, 0.0])))
metric_row("CategoricalAccuracy", class_pairs())
metric_row("SparseCategoricalAccuracy", class_pairs(sparse=True))
metric_row("TopKCategoricalAccuracy", class_pairs(), k=maybe(st.sampled_from([1, 2, 5])))
metric_row("SparseTopKCategoricalAccuracy", class_pairs(sparse=True), k=maybe(st.sampled_from([1, 2, 5])))
metric_row("MeanSquaredError", _same_shape_regression)
metric_row("MeanAbsoluteError", _same_shape_regression)
metric_row("MeanAbsolutePercentageError", _same_shape_regression)
metric_row("RootMeanSquaredError", _same_shape_regression)
metric_row("BinaryCrossentropy", label_pairs("binary", odd_shapes=False),
           from_logits=maybe(st.booleans()), label_smoothing=maybe(st.sampled_from([0.0, 0.2])))
metric_row("CategoricalCrossentropy", label_pairs("categorical", odd_shapes=False),
           from_logits=maybe(st.booleans()), label_smoothing=maybe(st.sampled_from([0.0, 0.2])))
metric_row("SparseCategoricalCrossentropy", sparse_pairs().filter(lambda p: True),
           from_logits=maybe(st.booleans()))
metric_row("Precision", binary_scores(), thresholds=maybe(st.sampled_from([None, 0.5, 0.3, [0.2, 0.7], 1.5])),
           top_k=maybe(st.sampled_from([None, 1, 2])), class_id=maybe(st.sampled_from([None, 0, 1])))
metric_row("Recall", binary_scores(), thresholds=maybe(st.sampled_from([None, 0.5, 0.3, [0.2, 0.7], 1.5])),
           top_k=maybe(st.sampled_from([None, 1, 2])), class_id=maybe(st.sampled_from([None, 0, 1])))
for _count in ("TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives"):
    metric_row(_count, binary_scores(), thresholds=maybe(st.sampled_from([None, 0.5, 0.0, 1.0, [0.2, 0.7],
                                                                          [0.0, 0.5, 1.0], 1.5])))
metric_row("AUC", binary_scores(), num_thresholds=maybe(st.sampled_from([200, 10, 3, 1])),
           curve=maybe(st.sampled_from(["ROC", "PR", "bogus"])),
           summation_method=maybe(st.sampled_from(["interpolation", "minoring", "majoring"])))


@st.composite
def _values_batches(draw):
    shape = draw(st.sampled_from([(), (3,), (2, 2)]))
    v = draw(values(draw(st.sampled_from(("float32", "int32", "float64"))), shape))
    return T(v), T(v)  # the second is ignored: Mean/Sum take one value


def _reduce_call(path):
    def call(lib, batches, config):
        metric = resolve(lib, path)(**config)
        results = []
        for batch in batches:
            if len(batch) == 3:
                metric.update_state(batch[0], sample_weight=batch[2])
            else:
                metric.update_state(batch[0])
            results.append(metric.result())
        metric.reset_state()
        results.append(metric.result())
        return results
    return call


for _name in ("Mean", "Sum"):
    add(f"keras.metrics.{_name}", metric_cases(_values_batches(), weights=True,
                                               dtype=maybe(st.sampled_from(["float32", "float64"]))),
        call=_reduce_call(f"keras.metrics.{_name}"))


def _wrapper_call(lib, batches, config):
    def absdiff(y_true, y_pred, power=1):
        return lib.reduce_mean(lib.abs(y_true - y_pred) ** power, axis=-1)
    metric = lib.keras.metrics.MeanMetricWrapper(fn=absdiff, **config)
    for batch in batches:
        metric.update_state(*batch[:2], sample_weight=batch[2] if len(batch) == 3 else None)
    # an automatic name's counter ('mean_metric_wrapper_9') counts every earlier wrapper of the
    # process, which differs between the libraries' histories: compare the name it numbers
    return [metric.result(), re.sub(r"_\d+$", "", metric.name) if "name" not in config else metric.name]


add("keras.metrics.MeanMetricWrapper", metric_cases(
    _same_shape_regression, name=maybe(st.sampled_from(["absdiff", "x"])),
    power=maybe(st.sampled_from([1, 2]))), call=_wrapper_call)


def _custom_metric_call(lib, batches, config):
    """A Metric subclass with two state variables: a weighted count of positive predictions."""
    class Positives(lib.keras.metrics.Metric):
        def __init__(self, name="positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.total = self.add_variable(shape=(), initializer="zeros", name="total")
            self.count = self.add_weight(shape=(), initializer="zeros", name="count")

        def update_state(self, y_true, y_pred, sample_weight=None):
            hits = lib.cast(lib.greater(y_pred, 0.5), self.dtype)
            self.total.assign_add(lib.reduce_sum(hits))
            self.count.assign_add(lib.cast(lib.size(hits), self.dtype))

        def result(self):
            return self.total / self.count

    metric = Positives(**config)
    out = []
    for batch in batches:
        metric.update_state(*batch[:2])
        out.append(metric.result())
    out += [metric.name, len(metric.variables), _dtype_name(metric.dtype)]
    metric.reset_state()
    return out + [metric.total]


add("keras.metrics.Metric", metric_cases(binary_scores(), weights=False,
                                         dtype=maybe(st.sampled_from(["float32", "float64"]))),
    call=_custom_metric_call)


@st.composite
def _accuracy_fn_cases(draw, kind):
    if kind == "binary":
        y_true, y_pred = draw(binary_scores())
        return Case((y_true, y_pred), {} if draw(st.booleans()) else
                    {"threshold": draw(st.sampled_from([0.5, 0.2]))})
    if kind in ("top_k", "sparse_top_k"):
        y_true, y_pred = draw(class_pairs(sparse=kind == "sparse_top_k"))
        return Case((y_true, y_pred), {} if draw(st.booleans()) else
                    {"k": draw(st.sampled_from([1, 2, 5]))})
    return Case(draw(class_pairs(sparse=kind == "sparse")))


add("keras.metrics.binary_accuracy", _accuracy_fn_cases("binary"))
add("keras.metrics.categorical_accuracy", _accuracy_fn_cases("categorical"))
add("keras.metrics.sparse_categorical_accuracy", _accuracy_fn_cases("sparse"))
add("keras.metrics.top_k_categorical_accuracy", _accuracy_fn_cases("top_k"))
add("keras.metrics.sparse_top_k_categorical_accuracy", _accuracy_fn_cases("sparse_top_k"))


def _metric_get(lib, identifier, y_true, y_pred):
    ns = lib.keras.metrics
    if identifier == "class":
        identifier = ns.BinaryAccuracy
    elif identifier == "dict":
        identifier = {"class_name": "BinaryAccuracy", "config": {"threshold": 0.3}}
    m = ns.get(identifier)
    if hasattr(m, "update_state"):
        m.update_state(y_true, y_pred)
        return [type(m).__name__, m.result()]
    return [getattr(m, "__name__", None), m(y_true, y_pred)]


def _metric_serialize(lib, which, y_true, y_pred):
    ns = lib.keras.metrics
    obj = {"acc": lambda: ns.BinaryAccuracy(threshold=0.3, name="probe"),
           "auc": lambda: ns.AUC(num_thresholds=10, name="probe"),
           "mse_fn": lambda: ns.mse}[which]()
    return _serialized(ns.serialize(obj), ("threshold", "num_thresholds", "name", "curve"))


def _metric_deserialize(lib, name, y_true, y_pred):
    return _metric_get(lib, name, y_true, y_pred) if name != "nope" else lib.keras.metrics.deserialize(name)


_metric_pairs = binary_scores(shapes=[(2, 3)]).filter(lambda p: np.asarray(p[0].value).dtype != bool)
add("keras.metrics.get", st.tuples(
    st.sampled_from(["accuracy", "binary_accuracy", "mse", "mae", "AUC", "class", "dict", "nope",
                     "categorical_accuracy", "BinaryAccuracy"]), _metric_pairs).map(
    lambda t: Case((t[0],) + t[1])), call=_metric_get)
add("keras.metrics.serialize", st.tuples(st.sampled_from(["acc", "auc", "mse_fn"]), _metric_pairs).map(
    lambda t: Case((t[0],) + t[1])), call=_metric_serialize)
add("keras.metrics.deserialize", st.tuples(
    st.sampled_from(["binary_accuracy", "mse", "Precision", "BinaryAccuracy", "nope",
                     "categorical_accuracy"]), _metric_pairs).map(
    lambda t: Case((t[0],) + t[1])), call=_metric_deserialize)


# -- activations ------------------------------------------------------------------------------

ACT_DTYPES = ("float16", "float32", "float64", "float32", "int32")


def activation_row(name, grad=2, low=-4.0, high=4.0, min_rank=0, **options):
    """An activation on a tensor of any float dtype (and int32, which Keras casts or rejects)."""
    add(f"keras.activations.{name}", cases(
        st.integers(min_rank, 3).flatmap(lambda n: layer_input(n, dtypes=ACT_DTYPES, low=low, high=high)),
        **options), grad=grad)


activation_row("relu", grad=1, negative_slope=maybe(st.sampled_from([0.0, 0.1])),
               max_value=maybe(st.sampled_from([None, 2.0])), threshold=maybe(st.sampled_from([0.0, 0.5])))
activation_row("relu6", grad=1)
activation_row("leaky_relu", grad=1, negative_slope=maybe(st.sampled_from([0.2, 0.0, 0.5])))
activation_row("elu", alpha=maybe(st.sampled_from([1.0, 0.5])))
for _name in ("sigmoid", "tanh", "linear", "exponential", "softplus", "selu", "silu", "mish"):
    activation_row(_name)
activation_row("softsign", grad=1)  # TF has no second-order gradient for SoftsignGrad
activation_row("gelu", approximate=maybe(st.booleans()))
activation_row("hard_sigmoid", grad=1)
activation_row("hard_silu", grad=1)
activation_row("softmax", axis=maybe(st.sampled_from([-1, 0, 1, [0, 1]])))
activation_row("log_softmax", axis=maybe(st.sampled_from([-1, 0, 1])))

_ACT_NAMES = ["relu", "sigmoid", "softmax", "gelu", "swish", "silu", "hard_swish", "linear", "mish",
              "elu", "selu", "log_softmax", "exponential", "nope"]
_act_x = T(np.linspace(-3, 3, 12, dtype="float32").reshape(3, 4))


def _act_get(lib, identifier, x):
    ns = lib.keras.activations
    if identifier == "callable":
        identifier = lib.nn.relu
    fn = ns.get(identifier)
    return fn(x)


def _act_serialize(lib, name, x):
    ns = lib.keras.activations
    return ns.serialize(getattr(ns, name))


def _act_deserialize(lib, name, x):
    ns = lib.keras.activations
    return ns.deserialize(name)(x)


add("keras.activations.get", cases(st.sampled_from(_ACT_NAMES + [None, "callable"]), st.just(_act_x)),
    call=_act_get)
add("keras.activations.serialize", cases(st.sampled_from(_ACT_NAMES[:-1]), st.just(_act_x)),
    call=_act_serialize)
add("keras.activations.deserialize", cases(st.sampled_from(_ACT_NAMES), st.just(_act_x)),
    call=_act_deserialize)


# -- initializers -----------------------------------------------------------------------------

INIT_SHAPES = st.sampled_from([(3,), (2, 3), (4, 4), (3, 2), (2, 2, 3), (1, 1, 2, 3), (), (0, 3)])
INIT_DTYPES = maybe(st.sampled_from([None, "float32", "float64", "float16", "int32", D("float64"),
                                     D("float32")]))


def _deterministic_call(path):
    def call(lib, shape, config, dtype=OMIT):
        init = resolve(lib, path)(**config)
        return init(shape) if dtype is OMIT else init(shape, dtype=dtype)
    return call


for _name, _options in (("Zeros", {}), ("Ones", {}),
                        ("Constant", {"value": st.sampled_from([0, 2.5, -1, [1.0, 2.0, 3.0]])}),
                        ("Identity", {"gain": maybe(st.sampled_from([1.0, 0.5]))})):
    add(f"keras.initializers.{_name}", st.tuples(INIT_SHAPES, fixed(**_options), INIT_DTYPES).map(
        lambda t: Case((t[0], {k: v for k, v in t[1].items() if v is not OMIT}),
                       {} if t[2] is OMIT else {"dtype": t[2]})),
        call=_deterministic_call(f"keras.initializers.{_name}"))


def _expected_std(name, config, shape):
    """The standard deviation Keras' random initializer `name` aims at for `shape`."""
    if name == "RandomNormal":
        return config.get("stddev", 0.05)
    if name == "RandomUniform":
        return (config.get("maxval", 0.05) - config.get("minval", -0.05)) / np.sqrt(12)
    if name == "TruncatedNormal":
        return config.get("stddev", 0.05) * 0.8796256610342398
    fan_in, fan_out = _fans(shape)
    scale, mode = {"GlorotUniform": (1.0, "avg"), "GlorotNormal": (1.0, "avg"),
                   "HeNormal": (2.0, "in"), "HeUniform": (2.0, "in"), "LecunNormal": (1.0, "in"),
                   "LecunUniform": (1.0, "in")}.get(name, (config.get("scale", 1.0),
                                                          config.get("mode", "fan_in")[4:]))
    n = {"in": fan_in, "out": fan_out, "avg": (fan_in + fan_out) / 2}[mode]
    return np.sqrt(scale / max(1.0, n))


def _fans(shape):
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


def _random_init_call(name):
    """Shape, dtype, repeatability of seeded calls and plausible moments (never raw values)."""
    def call(lib, shape, config, dtype=OMIT):
        cls = getattr(lib.keras.initializers, name)
        init = cls(**config)
        kwargs = {} if dtype is OMIT else {"dtype": dtype}
        a = init(shape, **kwargs)
        out = {"shape": list(a.shape), "dtype": _dtype_name(a.dtype)}
        b = cls(**config)(shape, **kwargs)
        values = np.asarray(a.numpy(), dtype="float64")
        if "seed" in config and config["seed"] is not None:
            out["same_seed_repeats"] = bool(np.array_equal(values, np.asarray(b.numpy(), "float64")))
        if values.size >= 400 and name != "Orthogonal":
            std = _expected_std(name, config, tuple(shape))
            out["std_ok"] = bool(abs(values.std() / std - 1) < 0.15)
            out["mean_ok"] = bool(abs(values.mean() - config.get("mean", 0.0)) < 0.2 * std)
        if name == "Orthogonal" and len(shape) >= 2 and values.size:
            flat = values.reshape(-1, shape[-1])
            small = flat if flat.shape[0] <= flat.shape[1] else flat.T
            gram = small @ small.T
            gain = config.get("gain", 1.0)
            tol = 2e-2 if np.dtype(_np_dtype(a.dtype)) == np.float16 else 1e-3
            out["orthogonal"] = bool(np.allclose(gram, gain ** 2 * np.eye(len(gram)), atol=tol * gain ** 2))
        return out
    return call


RANDOM_SHAPES = st.sampled_from([(40, 30), (3,), (2, 3), (5, 4, 30), (3, 3, 20, 20), (), (0, 4)])
_SEEDS = maybe(st.sampled_from([None, 1, 42]))
_RANDOM_INITS = {
    "RandomNormal": {"mean": maybe(st.sampled_from([0.0, 1.0])),
                     "stddev": maybe(st.sampled_from([0.05, 2.0]))},
    "RandomUniform": {"minval": maybe(st.sampled_from([-0.05, 0.0, -1.0])),
                      "maxval": maybe(st.sampled_from([0.05, 1.0]))},
    "TruncatedNormal": {"mean": maybe(st.sampled_from([0.0, 1.0])),
                        "stddev": maybe(st.sampled_from([0.05, 2.0]))},
    "VarianceScaling": {"scale": maybe(st.sampled_from([1.0, 2.0, 0.0, -1.0])),
                        "mode": maybe(st.sampled_from(["fan_in", "fan_out", "fan_avg", "bogus"])),
                        "distribution": maybe(st.sampled_from(["truncated_normal", "untruncated_normal",
                                                               "uniform", "normal", "bogus"]))},
    "Orthogonal": {"gain": maybe(st.sampled_from([1.0, 2.0]))},
}
for _name in ("GlorotUniform", "GlorotNormal", "HeNormal", "HeUniform", "LecunNormal", "LecunUniform"):
    _RANDOM_INITS[_name] = {}
for _name, _options in _RANDOM_INITS.items():
    add(f"keras.initializers.{_name}", st.tuples(
        RANDOM_SHAPES, fixed(seed=_SEEDS, **_options),
        maybe(st.sampled_from([None, "float32", "float64", "float16", "int32"]))).map(
        lambda t: Case((t[0], {k: v for k, v in t[1].items() if v is not OMIT}),
                       {} if t[2] is OMIT else {"dtype": t[2]})),
        call=_random_init_call(_name))


def _custom_initializer(lib, shape, value):
    """An Initializer subclass: __call__ and get_config, used by a Dense layer."""
    class Filled(lib.keras.initializers.Initializer):
        def __init__(self, value):
            self.value = value

        def __call__(self, shape, dtype=None):
            return lib.fill(shape, lib.constant(self.value, dtype=dtype or "float32"))

        def get_config(self):
            return {"value": self.value}

    init = Filled(value)
    layer = lib.keras.layers.Dense(2, kernel_initializer=init, bias_initializer=init)
    layer.build((None, 3))
    clone = Filled.from_config(init.get_config())
    return [layer.kernel, layer.bias, clone(shape), init.get_config()]


add("keras.initializers.Initializer", cases(st.sampled_from([(2,), (2, 3)]), st.sampled_from([0.5, -2.0])),
    call=_custom_initializer)

_INIT_NAMES = ["zeros", "ones", "glorot_uniform", "he_normal", "orthogonal", "identity", "Zeros",
               "GlorotNormal", "random_normal", "truncated_normal", "variance_scaling", "nope",
               "uniform", "normal"]


def _init_summary(lib, init, shape=(4, 4)):
    """A comparable summary of an initializer object: its class, config and (deterministic) values."""
    value = init(shape)
    out = [type(init).__name__]
    if type(init).__name__ in ("Zeros", "Ones", "Constant", "Identity"):
        out.append(value)
    else:
        out.append([list(value.shape), _dtype_name(value.dtype)])
    return out


def _init_get(lib, identifier):
    ns = lib.keras.initializers
    if identifier == "dict":
        identifier = {"class_name": "Constant", "config": {"value": 3.0}}
    elif identifier == "class":
        identifier = ns.Ones
    init = ns.get(identifier)
    return None if init is None else _init_summary(lib, init)


def _init_serialize(lib, which):
    ns = lib.keras.initializers
    init = {"ones": lambda: ns.Ones(), "constant": lambda: ns.Constant(2.0),
            "glorot": lambda: ns.GlorotUniform(seed=3),
            "vs": lambda: ns.VarianceScaling(scale=2.0, mode="fan_out", distribution="uniform"),
            "normal": lambda: ns.RandomNormal(mean=1.0, stddev=0.5, seed=1)}[which]()
    config = ns.serialize(init)
    clone = ns.deserialize(config)
    return [_serialized(config, ("seed", "scale", "mode", "distribution", "value", "mean", "stddev")),
            config["config"], _init_summary(lib, clone), clone.get_config()]


def _init_deserialize(lib, identifier):
    ns = lib.keras.initializers
    if identifier == "dict":
        identifier = {"class_name": "VarianceScaling", "config": {"scale": 2.0, "seed": 1}}
    return _init_summary(lib, ns.deserialize(identifier))


add("keras.initializers.get", cases(st.sampled_from(_INIT_NAMES + ["dict", "class", None])),
    call=_init_get)
add("keras.initializers.serialize", cases(st.sampled_from(["ones", "constant", "glorot", "vs", "normal"])),
    call=_init_serialize)
add("keras.initializers.deserialize", cases(st.sampled_from(_INIT_NAMES + ["dict"])),
    call=_init_deserialize)


# -- optimizers -------------------------------------------------------------------------------

_VAR_INIT = [np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype="float32"),
             np.array([0.1, -0.2, 0.3], dtype="float32")]
_GRADS = [[np.array([[0.1, -0.2, 0.3], [0.4, -0.5, 0.6]], dtype="float32"),
           np.array([1.0, -2.0, 0.5], dtype="float32")],
          [np.array([[-0.3, 0.1, 0.2], [0.0, 0.5, -0.4]], dtype="float32"),
           np.array([0.5, 0.5, -1.0], dtype="float32")],
          [np.array([[0.2, 0.2, -0.1], [0.3, -0.3, 0.0]], dtype="float32"),
           np.array([-0.5, 1.5, 0.0], dtype="float32")]]


def _optimizer_call(path):
    """Three apply_gradients steps on two variables with fixed gradients (scaled by `scale`)."""
    def call(lib, config, scale=1.0, steps=3):
        opt = resolve(lib, path)(**config)
        variables = [lib.Variable(v.copy()) for v in _VAR_INIT]
        for grads in _GRADS[:steps]:
            opt.apply_gradients([(lib.constant(g * scale), v) for g, v in zip(grads, variables)])
        return [lib.convert_to_tensor(v) for v in variables] + [int(opt.iterations.numpy())]
    return call


_COMMON = {"learning_rate": maybe(st.sampled_from([0.01, 0.1, 0.5])),
           "weight_decay": maybe(st.sampled_from([None, 0.01, 0.1])),
           "clipnorm": maybe(st.sampled_from([None, 0.5, 1.0])),
           "clipvalue": maybe(st.sampled_from([None, 0.1])),
           "global_clipnorm": maybe(st.sampled_from([None, 0.5]))}
_BETAS = {"beta_1": maybe(st.sampled_from([0.9, 0.5])), "beta_2": maybe(st.sampled_from([0.999, 0.9])),
          "epsilon": maybe(st.sampled_from([1e-7, 0.1]))}
_OPTIMIZERS = {
    "SGD": {"momentum": maybe(st.sampled_from([0.0, 0.9, -0.1])), "nesterov": maybe(st.booleans())},
    "Adam": dict(_BETAS, amsgrad=maybe(st.booleans())),
    "AdamW": dict(_BETAS, amsgrad=maybe(st.booleans())),
    "Adamax": dict(_BETAS),
    "Nadam": dict(_BETAS),
    "RMSprop": {"rho": maybe(st.sampled_from([0.9, 0.5])), "momentum": maybe(st.sampled_from([0.0, 0.5])),
                "epsilon": maybe(st.sampled_from([1e-7, 0.1])), "centered": maybe(st.booleans())},
    "Adagrad": {"initial_accumulator_value": maybe(st.sampled_from([0.1, 1.0])),
                "epsilon": maybe(st.sampled_from([1e-7, 0.1]))},
    "Adadelta": {"rho": maybe(st.sampled_from([0.95, 0.5])), "epsilon": maybe(st.sampled_from([1e-7, 0.1]))},
    "Ftrl": {"learning_rate_power": maybe(st.sampled_from([-0.5, -1.0, 0.0])),
             "initial_accumulator_value": maybe(st.sampled_from([0.1, 1.0])),
             "l1_regularization_strength": maybe(st.sampled_from([0.0, 0.01])),
             "l2_regularization_strength": maybe(st.sampled_from([0.0, 0.01])),
             "l2_shrinkage_regularization_strength": maybe(st.sampled_from([0.0, 0.01])),
             "beta": maybe(st.sampled_from([0.0, 0.5]))},
}


def _clean(d):
    return {k: v for k, v in d.items() if v is not OMIT}


for _name, _options in _OPTIMIZERS.items():
    add(f"keras.optimizers.{_name}", st.tuples(
        fixed(**_COMMON, **_options), st.sampled_from([1.0, 1.0, 10.0])).map(
        lambda t: Case((_clean(t[0]),), {"scale": t[1]})),
        call=_optimizer_call(f"keras.optimizers.{_name}"))


def _custom_optimizer(lib, learning_rate, steps):
    """An Optimizer subclass with Keras 3's build/update_step protocol (sign descent)."""
    class SignSGD(lib.keras.optimizers.Optimizer):
        def __init__(self, learning_rate=0.1, **kwargs):
            super().__init__(learning_rate=learning_rate, name="sign_sgd", **kwargs)

        def update_step(self, gradient, variable, learning_rate):
            variable.assign_sub(lib.sign(gradient) * lib.cast(learning_rate, variable.dtype))

    opt = SignSGD(learning_rate)
    variables = [lib.Variable(v.copy()) for v in _VAR_INIT]
    for grads in _GRADS[:steps]:
        opt.apply_gradients([(lib.constant(g), v) for g, v in zip(grads, variables)])
    return [lib.convert_to_tensor(v) for v in variables] + [int(opt.iterations.numpy())]


add("keras.optimizers.Optimizer", cases(st.sampled_from([0.1, 0.5]), st.integers(1, 3)),
    call=_custom_optimizer)


def _opt_summary(lib, opt):
    """Class name, learning rate and the variables after two fixed steps."""
    variables = [lib.Variable(v.copy()) for v in _VAR_INIT]
    for grads in _GRADS[:2]:
        opt.apply_gradients([(lib.constant(g), v) for g, v in zip(grads, variables)])
    return [type(opt).__name__, float(np.asarray(opt.learning_rate)),
            [lib.convert_to_tensor(v) for v in variables]]


def _opt_get(lib, identifier):
    ns = lib.keras.optimizers
    if identifier == "instance":
        identifier = ns.SGD(0.5)
    elif identifier == "dict":
        identifier = {"class_name": "Adam", "config": {"learning_rate": 0.1}}
    return _opt_summary(lib, ns.get(identifier))


_OPT_CONFIG_KEYS = ("learning_rate", "momentum", "nesterov", "beta_1", "beta_2", "epsilon", "amsgrad",
                    "rho", "centered", "weight_decay", "clipnorm", "clipvalue", "global_clipnorm", "name")


def _opt_serialize(lib, which):
    ns = lib.keras.optimizers
    opt = {"sgd": lambda: ns.SGD(0.5, momentum=0.9, nesterov=True),
           "adam": lambda: ns.Adam(0.01, beta_1=0.8, amsgrad=True, clipnorm=1.0),
           "rmsprop": lambda: ns.RMSprop(0.1, centered=True)}[which]()
    config = ns.serialize(opt)
    clone = ns.deserialize(config)
    kept = {k: v for k, v in config["config"].items() if k in _OPT_CONFIG_KEYS}
    # default names carry a process-wide counter ('sgd_7'): other tests move it in one library only
    kept["name"] = re.sub(r"_\d+$", "", kept.get("name", ""))
    return [config["class_name"], kept, _opt_summary(lib, clone)]


def _opt_deserialize(lib, name):
    ns = lib.keras.optimizers
    return _opt_summary(lib, ns.deserialize({"class_name": name, "config": {"learning_rate": 0.2}}))


add("keras.optimizers.get", cases(st.sampled_from(["adam", "sgd", "rmsprop", "Adam", "nadam", "instance",
                                                   "dict", "nope", "adamw", "ftrl"])),
    call=_opt_get)
add("keras.optimizers.serialize", cases(st.sampled_from(["sgd", "adam", "rmsprop"])), call=_opt_serialize)
add("keras.optimizers.deserialize", cases(st.sampled_from(["Adam", "SGD", "adagrad", "Adadelta", "Nope",
                                                           "Adamax"])),
    call=_opt_deserialize)


def _legacy(lib, name):
    """tf.keras.optimizers.legacy: Keras 3 keeps the names but refuses to build them."""
    cls = getattr(lib.keras.optimizers.legacy, name)
    return _opt_summary(lib, cls(learning_rate=0.1))


for _name in ("SGD", "Adam", "RMSprop", "Adagrad", "Ftrl", "Optimizer"):
    add(f"keras.optimizers.legacy.{_name}", call=lambda lib, _n=_name: _legacy(lib, _n))


# -- known differences ------------------------------------------------------------------------
# Each entry matches only the cases it explains. "BUG:" entries are minitf defects to fix
# (TF's behaviour, then minitf's); "INTENTIONAL:" entries are differences minitf keeps.

known = TABLE.known


def _arr(t):
    return np.asarray(t.value) if isinstance(t, T) else np.asarray(t)


def _ranks(ts):
    return {_arr(t).ndim for t in ts}


def _says(*words):
    """The verdict's detail mentions all `words` (e.g. the two exception classes)."""
    return lambda v: all(w in v.detail for w in words)


for _name in ("Conv1D", "Conv2D", "Conv2DTranspose", "DepthwiseConv2D", "SeparableConv2D"):
    known(f"keras.layers.{_name}",
          lambda c, v: _config(c).get("data_format") == "channels_first" and v.kind == "value_mismatch",
          "INTENTIONAL: TF 2.21/Keras 3.15 on CPU adds the bias of a channels_first convolution "
          "along the wrong axis when the output's width equals its channel count (e.g. Conv2D, "
          "input (1, 3, 2, 3), 1x1 kernel, 3 filters; checked against a numpy reference); minitf "
          "adds it on the channel axis")
known("keras.layers.Conv2DTranspose", lambda c, v: _says("TF raised AbortedError", "Mkl")(v),
      "INTENTIONAL: TF's oneDNN Conv2DBackpropFilter kernel aborts ('could not create a "
      "primitive descriptor for the reorder primitive') on some strided shapes; minitf computes "
      "the gradient")

for _name in ("keras.activations.softmax", "keras.activations.log_softmax", "keras.layers.Softmax"):
    known(_name, lambda c, v: _says("TF raised AbortedError", "Input dims must be <= 5", "InvalidArgumentError")(v),
          "INTENTIONAL: a 0-d input: TF's oneDNN softmax kernel raises AbortedError, TF's own kernel "
          "(TF_ENABLE_ONEDNN_OPTS=0) InvalidArgumentError, as minitf does")

for _ns in ("losses", "metrics", "activations", "initializers"):
    known(f"keras.{_ns}.deserialize", lambda c, v: c.args[0] == "nope",
          "INTENTIONAL: Keras 3.15 deserialize of an unknown name returns the string itself (calling "
          "it then raises TypeError); minitf raises ValueError naming it")

# losses
_LOSS_CLASS_ROWS = ([f"keras.losses.{n}" for n in _LOSS_CLASSES]
                    + ["keras.losses.BinaryCrossentropy", "keras.losses.CategoricalCrossentropy",
                       "keras.losses.SparseCategoricalCrossentropy", "keras.losses.Loss",
                       "keras.losses.get", "keras.losses.deserialize"])
LOSS_GRAD_ROUNDING = ("INTENTIONAL: Loss objects compute float64 inputs in float32, as Keras does; where "
                      "the exact gradient is 0, TF's float32 rounding leaves 1e-9 to 1e-7 (its Log "
                      "gradient multiplies by a reciprocal, minitf divides) and minitf gives 0")


def _has_f64(case):
    return any(isinstance(a, T) and _arr(a).dtype == np.float64 for a in case.args)


for _path in _LOSS_CLASS_ROWS:
    known(_path, lambda c, v: _has_f64(c) and v.kind == "value_mismatch", LOSS_GRAD_ROUNDING)
known("keras.losses.serialize", lambda c, v: c.args[0] == "huber" and _says("result[1]")(v),
      "INTENTIONAL: Keras 3.15 Huber.get_config omits `delta`, so its round trip falls back to "
      "delta=1.0; minitf keeps delta")
known("keras.losses.deserialize", lambda c, v: c.args[0] == "mse",
      "INTENTIONAL: Keras 3.15 deserialize('mse') raises ValueError ('keras.metrics.mse ... not a "
      "KerasSaveable subclass', a Keras bug); minitf returns mean_squared_error")

# activations
for _name in ("gelu", "leaky_relu"):
    known(f"keras.activations.{_name}",
          lambda c, v: _arr(c.args[0]).dtype == np.float64 and v.kind == "value_mismatch",
          "INTENTIONAL: on float64 inputs TF's Keras gelu/leaky_relu use float32 constants "
          "(erf scale, the 0.2 slope), ~1e-8 relative; minitf uses float64 constants")
known("keras.activations.deserialize", lambda c, v: c.args[0] in ("swish", "hard_swish"),
      "INTENTIONAL: Keras 3.15 deserialize('swish') and ('hard_swish') raise ValueError (the "
      "aliases are not registered, a Keras bug); minitf returns the activation")

# optimizers
known("keras.optimizers.deserialize", lambda c, v: c.args[0] == "Nope",
      "INTENTIONAL: Keras 3.15 deserialize of an unknown class name returns a non-optimizer "
      "(AttributeError later); minitf raises ValueError naming it")
known("keras.losses.get", lambda c, v: c.args[0] == "logcosh",
      "INTENTIONAL: Keras 3.15 losses.get('logcosh') raises ValueError although it exports "
      "logcosh (a Keras lookup gap); minitf returns log_cosh")
for _name in ("Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum"):
    for _path in (f"keras.layers.{_name}", f"keras.layers.{_name.lower()}"):
        known(_path, lambda c, v: len(_ranks(c.args[0])) == 1
              and len({_arr(t).shape for t in c.args[0]}) > 1 and v.kind == "value_mismatch",
              "INTENTIONAL: TF/Keras 3.15 merge layers broadcast a same-rank (batch, 1) input "
              "wrongly when a feature dim equals the batch size: Add()([zeros((2, 2)), [[1], [2]]]) "
              "gives [[1, 2], [1, 2]] (and matching gradients) instead of [[1, 1], [2, 2]]; "
              "(2, 3) inputs broadcast correctly. minitf broadcasts correctly")
