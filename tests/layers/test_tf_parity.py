"""Optional parity with TensorFlow: the same layers and models, built with the same code
against both libraries and given the same weights, must agree on outputs and on gradients
with respect to the input and every trainable weight. Skipped when TF is not installed."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")

RTOL = 1e-4


def _dense(g):
    """A numpy array for a dense or IndexedSlices gradient (either library)."""
    if hasattr(g, "indices") and hasattr(g, "values"):
        out = np.zeros(tuple(int(d) for d in g.dense_shape), dtype=np.asarray(g.values).dtype)
        np.add.at(out, np.asarray(g.indices), np.asarray(g.values))
        return out
    return np.asarray(g)


def _weighted_layers(obj):
    layers = obj.layers if hasattr(obj, "layers") else [obj]
    return [layer for layer in layers if layer.weights]


def _copy_random_weights(ref, mine, rng):
    """Give each pair of layers the same random weights (variances positive, else N(0, 0.5)).

    Copied layer by layer, so each pair is checked for matching shapes on its own.
    """
    ref_layers, mine_layers = _weighted_layers(ref), _weighted_layers(mine)
    assert len(ref_layers) == len(mine_layers)
    for a, b in zip(ref_layers, mine_layers):
        weights = []
        for v in a.weights:
            shape = tuple(v.shape)
            if "variance" in v.name:
                weights.append(rng.uniform(0.5, 1.5, shape).astype("float32"))
            else:
                weights.append((0.5 * rng.standard_normal(shape)).astype("float32"))
        assert [w.shape for w in b.get_weights()] == [w.shape for w in weights], b.name
        a.set_weights(weights)
        b.set_weights(weights)


def _outputs_and_grads(lib, obj, x, r, call_kwargs, float_input):
    xt = lib.constant(x)
    with lib.GradientTape() as tape:
        if float_input:
            tape.watch(xt)
        y = obj(xt, **call_kwargs)
        loss = lib.reduce_sum(y * lib.constant(r))
    sources = ([xt] if float_input else []) + list(obj.trainable_weights)
    grads = tape.gradient(loss, sources)
    return np.asarray(y), [_dense(g) for g in grads]


def _assert_close(got, want, what):
    scale = max(float(np.max(np.abs(want))), 1.0) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * scale, err_msg=what)


def check_parity(make, x, call_kwargs=None, seed=0):
    """Build `make(lib)` in both libraries, copy TF's random weights, compare everything."""
    call_kwargs = call_kwargs or {}
    rng = np.random.default_rng(seed)
    ref, mine = make(tf_ref), make(minitf)
    ref(tf_ref.constant(x), **call_kwargs)   # build
    mine(minitf.constant(x), **call_kwargs)
    _copy_random_weights(ref, mine, rng)
    float_input = np.issubdtype(np.asarray(x).dtype, np.floating)
    y_ref = np.asarray(ref(tf_ref.constant(x), **call_kwargs))
    r = rng.standard_normal(y_ref.shape).astype("float32")
    y_ref, g_ref = _outputs_and_grads(tf_ref, ref, x, r, call_kwargs, float_input)
    y_mine, g_mine = _outputs_and_grads(minitf, mine, x, r, call_kwargs, float_input)
    assert y_mine.shape == y_ref.shape and y_mine.dtype == y_ref.dtype
    _assert_close(y_mine, y_ref, "outputs")
    assert len(g_mine) == len(g_ref)
    names = (["input"] if float_input else []) + [v.name for v in ref.trainable_weights]
    for name, a, b in zip(names, g_mine, g_ref):
        assert a.shape == b.shape, name
        _assert_close(a, b, f"gradient w.r.t. {name}")


def _images(*shape, seed=1):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


# -- models ---------------------------------------------------------------------------------
def _cnn(lib):
    L = lib.keras.layers
    return lib.keras.Sequential([
        lib.keras.Input((10, 10, 3)),
        L.Conv2D(4, 3, activation="relu"),
        L.BatchNormalization(),
        L.MaxPooling2D(),
        L.Dropout(0.0),
        L.Flatten(),
        L.Dense(5, activation="softmax"),
    ])


@pytest.mark.parametrize("training", [False, True])
def test_cnn(training):
    check_parity(_cnn, _images(4, 10, 10, 3), {"training": training})


def _dcgan_generator(lib):
    L = lib.keras.layers
    return lib.keras.Sequential([
        lib.keras.Input((6,)),
        L.Dense(4 * 4 * 8, use_bias=False),
        L.BatchNormalization(),
        L.LeakyReLU(),
        L.Reshape((4, 4, 8)),
        L.Conv2DTranspose(4, 5, strides=2, padding="same", use_bias=False),
        L.BatchNormalization(),
        L.LeakyReLU(),
        L.Conv2DTranspose(1, 5, strides=2, padding="same", activation="tanh"),
    ])


@pytest.mark.parametrize("training", [False, True])
def test_dcgan_generator(training):
    check_parity(_dcgan_generator, _images(3, 6), {"training": training})


def _functional_two_branch(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((8, 8, 2))
    a = L.Conv2D(3, 3, padding="same")(inp)
    b = L.SeparableConv2D(3, 3, padding="same")(inp)
    x = L.Concatenate()([a, b])
    x = L.GlobalAveragePooling2D()(x)
    return lib.keras.Model(inp, L.Dense(2)(x))


def test_functional_two_branch_model():
    check_parity(_functional_two_branch, _images(2, 8, 8, 2))


# -- single layers --------------------------------------------------------------------------
LAYER_CASES = {
    "depthwise_conv2d": (lambda L: L.DepthwiseConv2D(3, depth_multiplier=2, padding="same"),
                         (2, 6, 7, 3)),
    "depthwise_conv2d_strided": (lambda L: L.DepthwiseConv2D(3, strides=2), (2, 7, 7, 2)),
    "separable_conv2d": (lambda L: L.SeparableConv2D(4, 3, depth_multiplier=2), (2, 6, 6, 3)),
    "conv1d": (lambda L: L.Conv1D(4, 3, strides=2, padding="same"), (2, 9, 3)),
    "conv1d_causal_dilated": (lambda L: L.Conv1D(2, 3, padding="causal", dilation_rate=2),
                              (2, 8, 3)),
    "upsampling_nearest": (lambda L: L.UpSampling2D((2, 3)), (2, 3, 4, 2)),
    "upsampling_bilinear": (lambda L: L.UpSampling2D((2, 3), interpolation="bilinear"),
                            (2, 3, 4, 2)),
    "upsampling_bilinear_channels_first": (
        lambda L: L.UpSampling2D(3, data_format="channels_first", interpolation="bilinear"),
        (2, 2, 3, 4)),
    "layer_normalization": (lambda L: L.LayerNormalization(), (3, 4, 5)),
    "layer_normalization_axes": (lambda L: L.LayerNormalization(axis=[1, 2]), (3, 4, 5)),
    "global_average_pooling2d": (lambda L: L.GlobalAveragePooling2D(), (2, 4, 5, 3)),
    "global_max_pooling2d": (lambda L: L.GlobalMaxPooling2D(), (2, 4, 5, 3)),
    "global_average_pooling1d": (lambda L: L.GlobalAveragePooling1D(), (2, 6, 3)),
    "global_max_pooling1d": (lambda L: L.GlobalMaxPooling1D(), (2, 6, 3)),
    "cropping2d": (lambda L: L.Cropping2D(((1, 0), (1, 2))), (2, 5, 6, 3)),
    "zero_padding2d": (lambda L: L.ZeroPadding2D(((1, 2), (0, 1))), (2, 3, 4, 2)),
    "zero_padding2d_channels_first": (
        lambda L: L.ZeroPadding2D(1, data_format="channels_first"), (2, 3, 4, 2)),
}


@pytest.mark.parametrize("case", sorted(LAYER_CASES))
def test_layer(case):
    make, shape = LAYER_CASES[case]
    check_parity(lambda lib: make(lib.keras.layers), _images(*shape))


def test_embedding():
    ids = np.random.default_rng(2).integers(0, 7, size=(3, 5)).astype("int32")
    ids[0, :2] = 3   # a repeated id: its gradient rows must add up
    check_parity(lambda lib: lib.keras.layers.Embedding(7, 4), ids)


def test_whole_model_weight_order_matches_keras():
    """get_weights of a model with non-trainable weights lists them in the same order as Keras."""
    shapes = []
    for lib in (tf_ref, minitf):
        L = lib.keras.layers
        model = lib.keras.Sequential([L.Dense(3), L.BatchNormalization(), L.Dense(2, use_bias=False),
                                      L.BatchNormalization(center=False), L.Dense(1)])
        model(lib.zeros([1, 4]))
        shapes.append([tuple(w.shape) for w in model.get_weights()])
    assert shapes[0] == shapes[1]
