"""Parity rows for the layers added to close the gaps of a TF 2.21 namespace scan:
GaussianDropout, AlphaDropout, SpatialDropout3D, Identity, ActivityRegularization,
Cropping1D, UpSampling1D, ZeroPadding1D.

Seeded noise layers compare values: both libraries draw from Keras' stateless seed rule, so a
seeded layer's noise is TF's bit for bit.
"""
from hypothesis import strategies as st

from parity_rows_keras import LAYER_DTYPES, _make_layer_call, fixed, layer_cases, layer_input, rarely
from parity_strategies import maybe
from parity_table import Table, resolve

TABLE = Table()
FORMATS = maybe(st.sampled_from(["channels_last", "channels_first"]))


def row(path, cases_, grad=1, **options):
    options.setdefault("rtol", 1e-4)
    options.setdefault("atol", 1e-4)
    return TABLE.add(path, cases_, call=_make_layer_call(path), grad=grad, **options)


def _any_rank(dtypes=("float32", "float32", "float64")):
    return st.integers(1, 3).flatmap(lambda n: layer_input(n, dtypes=dtypes))


# -- noise (seeded: values compared) --------------------------------------------------------------

row("keras.layers.GaussianDropout", layer_cases(
    fixed(rate=rarely([0.0, 0.1, 0.5, 0.9], [1.5, -0.1]), seed=st.sampled_from([1, 3])), _any_rank()))
row("keras.layers.AlphaDropout", layer_cases(
    fixed(rate=st.sampled_from([0.0, 0.1, 0.5, 0.9]), seed=st.sampled_from([1, 3])), _any_rank()))
row("keras.layers.SpatialDropout3D", layer_cases(
    fixed(rate=st.sampled_from([0.0, 0.25, 0.5]), seed=st.sampled_from([1, 3]), data_format=FORMATS),
    layer_input(5, side=(1, 3), dtypes=("float32",))))


# -- pass-through -----------------------------------------------------------------------------------

row("keras.layers.Identity", layer_cases(fixed(), _any_rank(LAYER_DTYPES)))


def _activity_call(lib, x, config, training=None):
    layer = resolve(lib, "keras.layers.ActivityRegularization")(**config)
    with lib.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, training=training)
        loss = lib.add_n(layer.losses)
    return [y, loss, tape.gradient(loss, x), len(layer.losses)]


TABLE.add("keras.layers.ActivityRegularization", layer_cases(
    fixed(l1=st.sampled_from([0.0, 0.01, 0.5]), l2=st.sampled_from([0.0, 0.02, 1.0])),
    st.integers(1, 3).flatmap(lambda n: layer_input(n, dtypes=("float32", "float64")))),
    call=_activity_call, rtol=1e-4, atol=1e-4)


# -- 1-D reshaping ----------------------------------------------------------------------------------

row("keras.layers.Cropping1D", layer_cases(
    fixed(cropping=maybe(rarely([0, 1, (1, 0), (0, 2), (2, 2)], [-1, (1, 2, 3)]))),
    layer_input(3, side=(1, 5), dtypes=LAYER_DTYPES)))
row("keras.layers.UpSampling1D", layer_cases(
    fixed(size=maybe(rarely([1, 2, 3], [0, 2.0]))), layer_input(3, side=(1, 3), dtypes=LAYER_DTYPES)))
row("keras.layers.ZeroPadding1D", layer_cases(
    fixed(padding=maybe(rarely([0, 1, (1, 0), (0, 2)], [-1, (1, 2, 3)])), data_format=FORMATS),
    layer_input(3, side=(1, 3), dtypes=LAYER_DTYPES)))


# -- Dot ----------------------------------------------------------------------------------------------

_DOT_SHAPES = [((2, 4), (2, 4), 1), ((2, 4), (2, 4), -1), ((2, 3, 5), (2, 10, 3), (1, 2)),
               ((2, 3, 4), (2, 3, 4), (2, 2)), ((2, 3), (2, 5, 3), (1, 2)), ((3, 2, 4), (3, 4), (2, 1)),
               ((2, 3, 2, 4), (2, 4, 5), (3, 1)), ((2, 3), (2, 4), 1), ((2, 3), (2, 3), 0)]


@st.composite
def _dot_cases(draw):
    from parity_oracle import Case, T
    from parity_strategies import values
    s1, s2, axes = draw(st.sampled_from(_DOT_SHAPES))
    dtype = draw(st.sampled_from(("float32", "float32", "float64")))
    x1 = T(draw(values(dtype, s1, -3.0, 3.0)))
    x2 = T(draw(values(dtype, s2, -3.0, 3.0)))
    return Case((x1, x2), {"axes": axes, "normalize": draw(st.booleans())})


def _dot_call(lib, x1, x2, axes, normalize):
    with lib.GradientTape() as tape:
        tape.watch([x1, x2])
        y = resolve(lib, "keras.layers.Dot")(axes=axes, normalize=normalize)([x1, x2])
        total = lib.reduce_sum(y * y)
    return [y, tape.gradient(total, [x1, x2])]


TABLE.add("keras.layers.Dot", _dot_cases(), call=_dot_call, rtol=1e-4, atol=1e-4)
TABLE.add("keras.layers.dot", _dot_cases(), call=lambda lib, x1, x2, axes, normalize: resolve(
    lib, "keras.layers.dot")([x1, x2], axes=axes, normalize=normalize), rtol=1e-4, atol=1e-4)



# -- RMSNormalization, ThresholdedReLU ------------------------------------------------------------------

row("keras.layers.RMSNormalization", layer_cases(
    fixed(axis=maybe(st.sampled_from([-1, 1, [1, 2], (-1, -2)])), epsilon=maybe(st.sampled_from([1e-6, 0.1]))),
    layer_input(3, side=(1, 4), dtypes=("float32", "float32", "float64", "float16"))), rtol=2e-3, atol=2e-3)
row("keras.layers.ThresholdedReLU", layer_cases(
    fixed(theta=maybe(rarely([0.0, 0.5, 1.0, 2], [-1.0, None]))), _any_rank(LAYER_DTYPES)))
