"""Parity rows for Conv3D, Conv1DTranspose, Conv3DTranspose, the 3-D pooling and reshaping layers,
PReLU, UnitNormalization and ConvLSTM1D/2D/3D.

Each row builds the layer from a drawn config in both libraries, sets every weight to the same
fixed pattern, and returns the outputs with the gradients of a weighted sum of them with respect
to the input and to every trainable weight (taken inside the call), the weights' names and shapes.
"""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, T, weights_like
from parity_rows_keras import CONV_DTYPES, LAYER_DTYPES, _grow, fixed, layer_input, rarely
from parity_strategies import OMIT, maybe, values
from parity_table import Table, resolve

TABLE = Table()
FORMATS = maybe(st.sampled_from(["channels_last", "channels_first"]))


def _fixed(layer):
    for i, w in enumerate(layer.weights):
        w.assign(weights_like(tuple(w.shape), np.dtype(getattr(w.dtype, "name", w.dtype)), salt=i) * 0.6)


def _weighted(lib, outputs):
    total = None
    for i, y in enumerate(lib.nest.flatten(outputs)):
        if not y.dtype.is_floating:
            continue
        term = lib.reduce_sum(lib.cast(y, "float32") * lib.constant(weights_like(tuple(y.shape), "float32",
                                                                                  salt=i + 7)))
        total = term if total is None else total + term
    return total


def _call(path):
    def call(lib, x, config, mask=None):
        layer = resolve(lib, path)(**config)
        kwargs = {} if mask is None else {"mask": mask}
        layer(x, **kwargs)
        _fixed(layer)
        with lib.GradientTape() as tape:
            tape.watch(x)
            y = layer(x, **kwargs)
            loss = _weighted(lib, y)
        sources = [x] + list(layer.trainable_weights)
        grads = tape.gradient(loss, sources) if loss is not None else [None] * len(sources)
        return {"outputs": y, "grads": grads,
                "names": [w.name.split("/")[-1].split(":")[0] for w in layer.weights],
                "shapes": [list(w.shape) for w in layer.weights]}
    return call


def row(path, cases_, rtol=1e-4, atol=1e-4, **options):
    return TABLE.add(path, cases_, call=_call(path), rtol=rtol, atol=atol, **options)


def cases_of(config, x):
    """Case((x,), {config}) from a config strategy and an input strategy (or a function of the
    drawn config giving one)."""
    @st.composite
    def make(draw):
        c = {k: v for k, v in draw(config).items() if v is not OMIT}
        return Case((draw(x(c) if callable(x) else x),), {"config": c})
    return make()


def _grown(rank, side=(1, 3), dtypes=CONV_DTYPES):
    return lambda c: layer_input(rank + 2, side=side, dtypes=dtypes).map(
        lambda t: _grow(t, rank, c.get("data_format")))


# -- convolutions -------------------------------------------------------------------------------

def _conv_config(rank, transpose=False):
    kernels = [1, 2, 3] + ([(1, 2, 3), (3, 1, 2)] if rank == 3 else [])
    options = dict(filters=rarely([1, 2, 3], [0, -1]), kernel_size=st.sampled_from(kernels),
                   strides=maybe(st.sampled_from([1, 2] + ([(1, 2, 1)] if rank == 3 else []))),
                   padding=maybe(rarely(["valid", "same"], ["bogus"] + (["causal"] if rank == 1 else []))),
                   data_format=FORMATS, dilation_rate=maybe(st.sampled_from([1, 2])),
                   use_bias=maybe(st.booleans()), activation=maybe(st.sampled_from([None, "relu", "tanh"])))
    if transpose:
        options["output_padding"] = maybe(st.sampled_from([None, 0, 1]))
    else:
        options["groups"] = maybe(st.sampled_from([1, 1, 2]))
    return fixed(**options)


row("keras.layers.Conv3D", cases_of(_conv_config(3), _grown(3)))
row("keras.layers.Conv3DTranspose", cases_of(_conv_config(3, transpose=True), _grown(3)))
row("keras.layers.Conv1DTranspose", cases_of(_conv_config(1, transpose=True), _grown(1)))


# -- pooling ----------------------------------------------------------------------------------------

def _pool_config():
    """Windows up to 3 on inputs grown to 5 or more: TF's 3-D max pool kills the process on a
    window larger than its input."""
    return fixed(pool_size=maybe(st.sampled_from([1, 2, 3, (2, 1, 3)])),
                 strides=maybe(st.sampled_from([None, 1, 2, (1, 2, 1)])),
                 padding=maybe(rarely(["valid", "same"], ["bogus"])), data_format=FORMATS)


def _pool_input(c):
    return layer_input(5, side=(1, 3), dtypes=("float32",) * 5 + ("float64", "float16")).map(
        lambda t: _grow(t, 3, c.get("data_format")) if np.asarray(t.value).ndim == 5 else t)


row("keras.layers.MaxPooling3D", cases_of(_pool_config(), _pool_input))
row("keras.layers.AveragePooling3D",
    cases_of(_pool_config().map(lambda c: dict(c, pool_size=2) if "pool_size" not in c or c["pool_size"] is OMIT
                                else c), _pool_input))
for _kind in ("Max", "Average"):
    row(f"keras.layers.Global{_kind}Pooling3D",
        cases_of(fixed(keepdims=maybe(st.booleans()), data_format=FORMATS), layer_input(5, side=(1, 3))))


# -- reshaping --------------------------------------------------------------------------------------

row("keras.layers.UpSampling3D", cases_of(
    fixed(size=maybe(rarely([1, 2, (1, 2, 3), (2, 1, 1)], [0, (1, 2)])), data_format=FORMATS),
    layer_input(5, side=(1, 3), dtypes=LAYER_DTYPES)))
row("keras.layers.ZeroPadding3D", cases_of(
    fixed(padding=maybe(rarely([0, 1, (1, 0, 2), ((0, 1), (2, 0), (1, 1))], [-1, (1, 2), ((1, -1), 0, 0)])),
          data_format=FORMATS),
    layer_input(5, side=(1, 3), dtypes=LAYER_DTYPES)))
row("keras.layers.Cropping3D", cases_of(
    fixed(cropping=maybe(rarely([0, 1, (1, 0, 2), ((0, 1), (2, 0), (1, 1)), ((2, 2), (0, 0), (0, 0))],
                                [-1, (1, 2)])),
          data_format=FORMATS),
    layer_input(5, side=(1, 5), dtypes=LAYER_DTYPES)))


# -- PReLU and UnitNormalization ---------------------------------------------------------------------

row("keras.layers.PReLU", cases_of(
    fixed(alpha_initializer=maybe(st.sampled_from(["zeros", "ones"])),
          shared_axes=maybe(st.sampled_from([None, 1, [1, 2], [-1], [2]]))),
    st.integers(2, 4).flatmap(lambda n: layer_input(n, side=(1, 4)))))


@st.composite
def _with_zero_rows(draw, rank):
    """An input where some rows are all zero (the norm's epsilon clamp)."""
    t = draw(layer_input(rank, side=(1, 4), dtypes=("float32",) * 4 + ("float64", "float16")))
    a = np.array(t.value)
    if a.ndim >= 2 and draw(st.booleans()):
        a[0] = 0
    return T(a)


row("keras.layers.UnitNormalization", cases_of(
    fixed(axis=maybe(st.sampled_from([-1, 1, [1, 2], [-1, -2], 0, 4]))),
    st.integers(1, 4).flatmap(_with_zero_rows)))


# -- ConvLSTM -----------------------------------------------------------------------------------------

@st.composite
def _conv_lstm_case(draw, rank):
    fmt = draw(st.sampled_from([None, "channels_last", "channels_first"]))
    config = {"filters": draw(st.integers(1, 2)), "kernel_size": draw(st.sampled_from([1, 2, 3])),
              "padding": draw(st.sampled_from(["valid", "same"]))}
    if fmt is not None:
        config["data_format"] = fmt
    for key, strategy in (("strides", st.sampled_from([1, 2])),
                          ("return_sequences", st.booleans()), ("return_state", st.booleans()),
                          ("go_backwards", st.booleans()), ("use_bias", st.booleans()),
                          ("unit_forget_bias", st.booleans()),
                          ("activation", st.sampled_from(["tanh", "relu"])),
                          ("recurrent_activation", st.sampled_from(["sigmoid", "hard_sigmoid"]))):
        value = draw(maybe(strategy))
        if value is not OMIT and value is not None:
            config[key] = value
    batch, steps, channels = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 2))
    spatial = tuple(draw(st.sampled_from([4, 4, 2])) for _ in range(rank)) if rank < 3 else (3,) * rank
    shape = (batch, steps, channels) + spatial if fmt == "channels_first" else (batch, steps) + spatial + (channels,)
    x = np.cos(np.arange(np.prod(shape)) * 1.3 + draw(st.integers(0, 9))).reshape(shape).astype("float32")
    mask = None
    if draw(st.integers(0, 2)) == 0:
        mask = T(np.array([[draw(st.booleans()) for _ in range(steps)] for _ in range(batch)], dtype=bool))
    return Case((T(x),), {"config": config, "mask": mask})


for _rank in (1, 2, 3):
    row(f"keras.layers.ConvLSTM{_rank}D", _conv_lstm_case(_rank), examples=12 if _rank == 3 else None)

# -- known differences ------------------------------------------------------------------------------

for _name in ("Conv3D", "Conv3DTranspose", "Conv1DTranspose"):
    TABLE.known(f"keras.layers.{_name}",
                lambda c, v: c.kwargs["config"].get("data_format") == "channels_first"
                and c.kwargs["config"].get("use_bias", True) and v.kind == "value_mismatch",
                "INTENTIONAL: TF 2.21/Keras 3.15 on CPU adds the bias of a channels_first convolution "
                "along the wrong axis when the output's width equals its channel count (Conv3D(2, 2, "
                "strides=2, data_format='channels_first') on (1, 1, 5, 5, 5) adds the bias along the "
                "width; checked by hand); minitf adds it on the channel axis")
