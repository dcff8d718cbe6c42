"""keras.ops beyond numpy: nn, math (incl. Fourier transforms), linalg, image, the core tensor
functions and control flow. Values are checked against numpy/closed forms, and every
differentiable function gets a float64 finite-difference gradient check. Also: keras.ops on
KerasTensors builds functional models."""
import numpy as np
import pytest

import minitf as tf
from minitf.gradient_checker import assert_gradients_close

K = tf.keras.ops
RNG = np.random.RandomState(1)


def flat(out):
    leaves = tf.nest.flatten(out)
    return tf.concat([tf.reshape(tf.cast(t, tf.float64), [-1]) for t in leaves], axis=0)


def arr(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, size=shape).astype(np.float64)


def spd(n=3):
    a = arr(n, n)
    return a @ a.T + n * np.eye(n)


def fixed(*shape):
    return tf.constant(np.cos(np.arange(int(np.prod(shape)))).reshape(shape))


# -- values -----------------------------------------------------------------------------------

def test_activations_match_their_formulas():
    x = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(K.sparse_plus(x).numpy(),
                               np.where(x <= -1, 0, np.where(x < 1, (x + 1) ** 2 / 4, x)))
    np.testing.assert_allclose(K.celu(x, 2.0).numpy(),
                               np.maximum(x, 0) + 2 * np.expm1(np.minimum(x, 0) / 2))
    np.testing.assert_allclose(K.hard_sigmoid(x).numpy(), np.clip(x + 3, 0, 6) / 6)
    np.testing.assert_allclose(K.squareplus(x, 1).numpy(), (x + np.sqrt(x * x + 1)) / 2)
    sp = K.sparsemax(tf.constant([[1.0, 2.0, 0.1]])).numpy()
    np.testing.assert_allclose(sp.sum(-1), 1.0, rtol=1e-6)
    assert sp[0, 2] == 0.0
    assert K.swish is K.silu and K.hard_swish is K.hard_silu


def test_conv_groups_and_3d_match_a_direct_loop():
    x, w = arr(1, 5, 5, 4), arr(3, 3, 2, 6)  # two groups
    y = K.conv(x, w).numpy()
    want = np.zeros((1, 3, 3, 6))
    for g in range(2):
        for i in range(3):
            for j in range(3):
                patch = x[0, i:i + 3, j:j + 3, 2 * g:2 * g + 2]
                want[0, i, j, 3 * g:3 * g + 3] = np.tensordot(patch, w[..., 3 * g:3 * g + 3],
                                                              axes=3)
    np.testing.assert_allclose(y, want, rtol=1e-10)
    x3, w3 = arr(1, 4, 3, 3, 2), arr(2, 2, 2, 2, 3)
    y3 = K.conv(x3, w3).numpy()
    want3 = np.zeros((1, 3, 2, 2, 3))
    for d in range(3):
        for i in range(2):
            for j in range(2):
                want3[0, d, i, j] = np.tensordot(x3[0, d:d + 2, i:i + 2, j:j + 2], w3, axes=4)
    np.testing.assert_allclose(y3, want3, rtol=1e-10)


def test_pooling_three_d_and_adaptive():
    x = arr(1, 4, 4, 4, 1).astype(np.float32)  # TF has no float64 3-D pooling kernels
    y = K.max_pool(x, 2).numpy()
    want = x.reshape(1, 2, 2, 2, 2, 2, 2, 1).max(axis=(2, 4, 6))
    np.testing.assert_allclose(y, want)
    with pytest.raises(tf.errors.InvalidArgumentError, match="MaxPool3D"):
        K.max_pool(x.astype(np.float64), 2)
    a = K.adaptive_average_pool(arr(1, 6, 1), 3).numpy()
    assert a.shape == (1, 3, 1)


def test_crossentropies_use_the_logits_behind_sigmoid_and_softmax():
    logits = tf.constant([[30.0, -30.0]], tf.float64)
    target = tf.constant([[0.0, 1.0]], tf.float64)
    from_probs = K.binary_crossentropy(target, K.sigmoid(logits)).numpy()
    np.testing.assert_allclose(from_probs, [[30.0, 30.0]], rtol=1e-6)  # not clipped at eps
    cce = K.categorical_crossentropy(target, K.softmax(logits)).numpy()
    np.testing.assert_allclose(cce, [60.0], rtol=1e-6)


def test_fft_round_trips_and_matches_numpy():
    re, im = arr(3, 8), arr(3, 8)
    fr, fi = K.fft((re, im))
    np.testing.assert_allclose(fr.numpy() + 1j * fi.numpy(), np.fft.fft(re + 1j * im), atol=1e-10)
    rr, ri = K.rfft(re)
    np.testing.assert_allclose(K.irfft((rr, ri), 8).numpy(), re, atol=1e-10)
    signal = arr(2, 64)
    spec = K.stft(signal, 16, 4, 16)
    back = K.istft(spec, 16, 4, 16, length=64).numpy()
    # TF's inverse window assumes full overlap, so only the interior reconstructs exactly
    np.testing.assert_allclose(back[:, 8:-8], signal[:, 8:-8], atol=1e-8)


def test_special_functions():
    x = np.linspace(-3, 3, 9)
    from math import erfc
    np.testing.assert_allclose(K.erfc(x).numpy(), [erfc(v) for v in x], rtol=1e-12)
    y = np.linspace(-0.99, 0.99, 7)
    np.testing.assert_allclose(K.erf(K.erfinv(y)).numpy(), y, atol=1e-12)


def test_linalg_decompositions_reconstruct():
    a = spd()
    w, v = K.eigh(a)
    np.testing.assert_allclose((v.numpy() * w.numpy()) @ v.numpy().T, a, atol=1e-10)
    u, s, vh = K.svd(arr(3, 2), full_matrices=False)
    lu, piv = K.lu_factor(a)
    lower = np.tril(lu.numpy(), -1) + np.eye(3)
    np.testing.assert_allclose((lower @ np.triu(lu.numpy()))[np.argsort(piv.numpy())], a,
                               atol=1e-10)
    np.testing.assert_allclose(K.norm(a, "nuc").numpy(), np.linalg.norm(a, "nuc"))
    with pytest.raises(ValueError, match="square"):
        K.inv(arr(2, 3))
    with pytest.raises(ValueError, match="Cholesky"):
        K.cholesky(-np.eye(2))
    assert u.shape == (3, 2) and s.shape == (2,) and vh.shape == (2, 2)


def test_core_functions():
    assert K.shape(tf.zeros((2, 3))) == (2, 3)
    assert K.dtype(tf.zeros((1,), tf.int8)) == "int8"
    assert isinstance(K.convert_to_numpy([1, 2]), np.ndarray)
    np.testing.assert_array_equal(K.saturate_cast(tf.constant([300.0, -5.0]), "uint8").numpy(),
                                  [255, 0])
    upd = K.slice_update(tf.zeros((2, 3)), [1, 2], tf.ones((1, 2)))  # start clamped to col 1
    np.testing.assert_array_equal(upd.numpy(), [[0, 0, 0], [0, 1, 1]])
    np.testing.assert_array_equal(K.scatter([[0], [2], [0]], [1.0, 2.0, 3.0], (3,)).numpy(),
                                  [4.0, 0.0, 2.0])
    out = K.scatter_update(tf.ones((3,)), [[1], [1]], [2.0, 3.0], reduction="mul")
    np.testing.assert_array_equal(out.numpy(), [1.0, 6.0, 1.0])


def test_control_flow():
    i, v = K.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0), (0, 1.0))
    assert int(i) == 3 and float(v) == 8.0
    assert float(K.fori_loop(0, 4, lambda i, x: x + tf.cast(i, tf.float32), 0.0)) == 6.0
    carry, ys = K.scan(lambda c, x: (c + x, c * x), 0.0, tf.constant([1.0, 2.0, 3.0]))
    assert float(carry) == 6.0 and ys.numpy().tolist() == [0.0, 2.0, 9.0]
    np.testing.assert_array_equal(K.associative_scan(lambda a, b: a + b, tf.constant([1, 2, 3])).numpy(),
                                  [1, 3, 6])
    assert float(K.switch(7, [lambda x: x + 1, lambda x: x * 10], 2.0)) == 20.0
    with pytest.raises(ValueError, match="Not supported with `vectorize"):
        K.vectorize(lambda x: x * 2)(tf.ones((3,)))


def test_rearrange_and_image_helpers():
    x = tf.reshape(tf.range(24.0), (2, 3, 4, 1))
    assert K.rearrange(x, "b h w c -> b (h w) c").shape == (2, 12, 1)
    assert K.rearrange(tf.zeros((2, 6)), "b (h w) -> b h w", h=2).shape == (2, 2, 3)
    img = tf.constant(arr(4, 5, 3, low=0, high=1))
    assert K.image.resize(img, (8, 10)).shape == (8, 10, 3)
    assert K.image.pad_images(img, 1, 2, target_height=7, target_width=9).shape == (7, 9, 3)
    assert K.image.crop_images(img, 1, 1, target_height=2, target_width=3).shape == (2, 3, 3)
    patches = K.image.extract_patches(img, 2)
    np.testing.assert_allclose(patches.numpy()[0, 0], img.numpy()[:2, :2].reshape(-1))


def test_keras_ops_on_keras_tensors_build_a_functional_model():
    inputs = tf.keras.Input((4,))
    hidden = K.relu(K.add(inputs, 1.0))
    outputs = K.sum(K.square(hidden), axis=-1, keepdims=True)
    model = tf.keras.Model(inputs, outputs)
    x = np.array([[1.0, -3.0, 0.5, 2.0]], np.float32)
    np.testing.assert_allclose(model(x).numpy(), [[4.0 + 0.0 + 2.25 + 9.0]])
    assert outputs.shape.as_list() == [None, 1]


# -- gradients --------------------------------------------------------------------------------

_ACTIVATIONS = ["relu", "relu6", "sigmoid", "softplus", "softsign", "silu", "log_sigmoid", "elu",
                "selu", "gelu", "celu", "hard_sigmoid", "hard_silu", "hard_tanh", "tanh_shrink",
                "sparse_sigmoid", "sparse_plus", "squareplus", "soft_shrink", "hard_shrink",
                "leaky_relu"]

_GRADS = {
    "softmax": (lambda x: K.softmax(x, axis=(0, 1)), arr(2, 3)),
    "log_softmax": (lambda x: K.log_softmax(x), arr(2, 3)),
    "sparsemax": (lambda x: K.sparsemax(x), arr(2, 4)),
    "glu": (lambda x: K.glu(x), arr(2, 4)),
    "threshold": (lambda x: K.threshold(x, 0.3, -1.0), arr(5)),
    "conv": (lambda x: K.conv(x, fixed(2, 2, 2, 3), padding="same", strides=2), arr(1, 4, 4, 2)),
    "conv_transpose": (lambda x: K.conv_transpose(x, fixed(2, 2, 3, 2), strides=2), arr(1, 2, 2, 2)),
    "depthwise_conv": (lambda x: K.depthwise_conv(x, fixed(2, 2, 2, 2)), arr(1, 3, 3, 2)),
    "separable_conv": (lambda x: K.separable_conv(x, fixed(2, 2, 2, 1), fixed(1, 1, 2, 3)),
                       arr(1, 3, 3, 2)),
    "max_pool": (lambda x: K.max_pool(x, 2, padding="same"), arr(1, 3, 3, 1)),
    "average_pool": (lambda x: K.average_pool(x, (2, 3), 1, padding="same"), arr(1, 3, 4, 1)),
    "adaptive_max_pool": (lambda x: K.adaptive_max_pool(x, 2), arr(1, 5, 1)),
    "adaptive_average_pool": (lambda x: K.adaptive_average_pool(x, (2, 2)), arr(1, 5, 4, 1)),
    "unfold": (lambda x: K.unfold(x, 2), arr(1, 2, 3, 3)),
    "fold": (lambda x: K.fold(x, (3, 3), 2), arr(1, 8, 4)),
    "depth_to_space": (lambda x: K.depth_to_space(x, 2), arr(1, 1, 2, 4)),
    "space_to_depth": (lambda x: K.space_to_depth(x, 2), arr(1, 2, 2, 1)),
    "categorical_crossentropy": (lambda x: K.categorical_crossentropy(
        tf.constant([[0.0, 1.0, 0.0]], tf.float64), x, from_logits=True), arr(1, 3)),
    "sparse_categorical_crossentropy": (lambda x: K.sparse_categorical_crossentropy(
        tf.constant([2]), K.softmax(x) * 1.0), arr(1, 3)),
    "binary_crossentropy": (lambda x: K.binary_crossentropy(
        tf.constant([1.0, 0.0], tf.float64), x), arr(2, low=0.2, high=0.8)),
    "moments": (lambda x: K.moments(x, [0]), arr(3, 2)),
    "batch_normalization": (lambda x: K.batch_normalization(
        x, fixed(2) * 0.1, fixed(2) ** 2 + 1.0, -1, fixed(2), fixed(2) + 2.0), arr(3, 2)),
    "layer_normalization": (lambda x: K.layer_normalization(x, fixed(3), fixed(3)), arr(2, 3)),
    "rms_normalization": (lambda x: K.rms_normalization(x, fixed(3)), arr(2, 3)),
    "normalize": (lambda x: K.normalize(x, order=3), arr(2, 3)),
    "psnr": (lambda x: K.psnr(x, x * 0.5 + 0.1, 1.0), arr(4, low=0.1, high=0.9)),
    "dot_product_attention": (lambda x: K.dot_product_attention(x, x * 0.5, x + 1.0,
                                                                 is_causal=True), arr(1, 3, 2, 2)),
    "top_k": (lambda x: K.top_k(x, 2).values, arr(2, 4)),
    "logsumexp": (lambda x: K.logsumexp(x, axis=1), arr(2, 3)),
    "erf": (lambda x: K.erf(x), arr(4)), "erfc": (lambda x: K.erfc(x), arr(4)),
    "erfinv": (lambda x: K.erfinv(x), arr(4, low=-0.8, high=0.8)),
    "rsqrt": (lambda x: K.rsqrt(x), arr(4, low=0.5)),
    "logdet": (lambda x: K.logdet(K.matmul(x, K.transpose(x)) + 3.0 * K.eye(3, dtype="float64")),
               arr(3, 3)),
    "cdist": (lambda x: K.cdist(x, x[:1] + 0.5), arr(3, 2)),
    "extract_sequences": (lambda x: K.extract_sequences(x, 3, 2), arr(7)),
    "fft": (lambda x: K.fft((x, x * 0.5)), arr(2, 4)),
    "fft2": (lambda x: K.fft2((x, x * x)), arr(2, 3)),
    "ifft2": (lambda x: K.ifft2((x, -x)), arr(2, 3)),
    "rfft": (lambda x: K.rfft(x, 5), arr(6)),
    "irfft": (lambda x: K.irfft((x, x * 0.3), 6), arr(4)),
    "stft": (lambda x: K.stft(x, 4, 2, 4), arr(10)),
    "istft": (lambda x: K.istft((x, x * 0.5), 4, 2, 4), arr(4, 3)),
    "cholesky": (lambda x: K.cholesky(K.matmul(x, K.transpose(x)) + 3.0 * K.eye(3, dtype="float64")),
                 arr(3, 3)),
    "cholesky_inverse": (lambda x: K.cholesky_inverse(K.tril(x) + 3.0 * K.eye(3, dtype="float64")),
                         arr(3, 3)),
    "det": (lambda x: K.det(x), arr(3, 3)),
    "inv": (lambda x: K.inv(x + 4.0 * K.eye(3, dtype="float64")), arr(3, 3)),
    "eigh": (lambda x: K.eigh(x + K.transpose(x) + K.diag(tf.constant([0.0, 3.0, 6.0],
                                                                      tf.float64)))[0], arr(3, 3)),
    "solve": (lambda x: K.solve(x + 4.0 * K.eye(3, dtype="float64"), x[0]), arr(3, 3)),
    "solve_triangular": (lambda x: K.solve_triangular(K.triu(x) + 3.0 * K.eye(3, dtype="float64"),
                                                      x[:, 0]), arr(3, 3)),
    "svd": (lambda x: K.svd(x + K.diag(tf.constant([0.0, 4.0], tf.float64)), compute_uv=False),
            arr(2, 2)),
    "qr": (lambda x: K.matmul(*K.qr(x + 3.0 * K.eye(3, dtype="float64"))), arr(3, 3)),
    "norm": (lambda x: K.norm(x, 3, axis=1), arr(2, 3)),
    "lstsq": (lambda x: K.lstsq(x + K.eye(3, 2, dtype="float64") * 3.0, x[:, 0]), arr(3, 2)),
    "pinv": (lambda x: K.pinv(x + K.eye(3, 2, dtype="float64") * 3.0), arr(3, 2)),
    "cast": (lambda x: K.cast(x, "float32"), arr(3)),
    "unstack": (lambda x: K.unstack(x, axis=1), arr(2, 3)),
    "slice": (lambda x: K.slice(x, [0, 1], [2, 2]), arr(2, 3)),
    "slice_update": (lambda x: K.slice_update(x, [0, 1], x[:1, :2] * 3.0), arr(2, 3)),
    "scatter": (lambda x: K.scatter([[0], [2], [0]], x, (4,)), arr(3)),
    "scatter_update": (lambda x: K.scatter_update(x, [[1], [2]], x[:2] * 2.0, "mul"), arr(3)),
    "saturate_cast": (lambda x: K.saturate_cast(x, "float64"), arr(3)),
    "cond": (lambda x: K.cond(True, lambda: x * x, lambda: x), arr(3)),
    "switch": (lambda x: K.switch(1, [lambda v: v, lambda v: K.sin(v)], x), arr(3)),
    "while_loop": (lambda x: K.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, v * v),
                                          (0, x))[1], arr(3)),
    "fori_loop": (lambda x: K.fori_loop(0, 3, lambda i, v: v * 0.5 + K.sin(v), x), arr(3)),
    "scan": (lambda x: K.scan(lambda c, v: (c * v, c + v), x[0], x), arr(3, 2)),
    "map": (lambda x: K.map(lambda v: v * K.sum(v), x), arr(3, 2)),
    "associative_scan": (lambda x: K.associative_scan(lambda a, b: a * b, x, axis=1), arr(2, 3)),
    "vectorized_map": (lambda x: K.vectorized_map(lambda v: K.exp(v), x), arr(2, 2)),
    "rearrange": (lambda x: K.rearrange(x, "a (b c) -> c a b", c=2), arr(2, 4)),
    "rgb_to_grayscale": (lambda x: K.image.rgb_to_grayscale(x), arr(2, 2, 3)),
    "rgb_to_hsv": (lambda x: K.image.rgb_to_hsv(x), arr(2, 2, 3, low=0.1, high=0.9)),
    "resize": (lambda x: K.image.resize(x, (3, 5)), arr(2, 3, 1)),
    "pad_images": (lambda x: K.image.pad_images(x, 1, 0, 0, 2), arr(2, 2, 1)),
    "crop_images": (lambda x: K.image.crop_images(x, 1, 0, 0, 1), arr(3, 3, 1)),
    "extract_patches": (lambda x: K.image.extract_patches(x, 2), arr(4, 4, 1)),
    "extract_patches_3d": (lambda x: K.image.extract_patches_3d(x, 2), arr(2, 2, 2, 1)),
    "gaussian_blur": (lambda x: K.image.gaussian_blur(x), arr(3, 3, 1)),
    "sobel_edges": (lambda x: K.image.sobel_edges(x), arr(1, 3, 3, 1)),
    "custom_gradient": (lambda x: _double_gradient(x), arr(3)),
    "segment_sum": (lambda x: K.segment_sum(x, tf.constant([0, 2, 0, 1])), arr(4, 2)),
    "segment_max": (lambda x: K.segment_max(x, tf.constant([0, 0, 1, 1]), sorted=True), arr(4, 2)),
    "segment_min": (lambda x: K.segment_min(x, tf.constant([1, 0, 1, 0]), num_segments=3),
                    arr(4, 2)),
    "segment_prod": (lambda x: K.segment_prod(x, tf.constant([0, 1, 0, 1])), arr(4, 2)),
    "ctc_loss": (lambda x: K.ctc_loss(tf.constant([[1, 2], [2, 2]]), x, tf.constant([2, 1]),
                                      tf.constant([4, 3])), arr(2, 4, 3)),
}


@K.custom_gradient
def _double_gradient_inner(x):
    def grad(g):
        return g * 2.0 * K.cos(x)
    return K.sin(x) * 2.0, grad


def _double_gradient(x):
    return _double_gradient_inner(x)


# (moments and layer_normalization differentiate the variance with the mean held fixed, as
# TF's nn.moments does, which is exact to first order only)
_SECOND_ORDER = {"log_softmax", "softmax", "logsumexp", "erf", "erfc", "erfinv", "rsqrt",
                 "fft", "fft2", "rfft", "irfft", "rms_normalization", "conv", "depthwise_conv",
                 "inv", "det", "cdist"}
_IN_FLOAT32 = {"cast", "resize", "ctc_loss"}  # computed in float32 (as TF does)


@pytest.mark.parametrize("name", _ACTIVATIONS)
def test_activation_gradients(name):
    x = tf.constant(np.array([-2.7, -1.3, -0.4, 0.3, 0.8, 1.6, 2.9]))
    assert_gradients_close(lambda v: getattr(K, name)(v), [x], order=1, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(_GRADS))
def test_gradients(name):
    fn, x = _GRADS[name]
    if name in _IN_FLOAT32:
        assert_gradients_close(lambda v: flat(fn(v)), [tf.constant(x)], rtol=1e-3, atol=1e-3,
                               delta=1e-3)
        return
    assert_gradients_close(lambda v: flat(fn(v)), [tf.constant(x)],
                           order=2 if name in _SECOND_ORDER else 1, rtol=1e-4, atol=1e-5)


def test_stop_gradient_blocks_the_gradient():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * 2.0 + K.stop_gradient(x * x))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 2.0])


# integer/boolean/complex results, shapes, and hsv_to_rgb (TF registers no gradient for
# HSVToRGB; minitf returns none either, see its parity row). swish and hard_swish are aliases.
_NOT_DIFFERENTIABLE = {"one_hot", "multi_hot", "polar", "in_top_k", "view_as_complex",
                       "view_as_real", "matrix_rank", "lu_factor", "jvp", "convert_to_numpy",
                       "convert_to_tensor", "dtype", "is_tensor", "shape", "hard_swish", "swish",
                       "hsv_to_rgb", "stop_gradient", "ctc_decode"}


def test_every_differentiable_name_has_a_gradient_check():
    # keras.ops.__all__ lists its child namespaces too (nn, numpy, linalg, image): not functions
    names = set(K.__all__) - {"nn", "numpy", "linalg", "image"} - set(K.numpy.__all__) | set(K.image.__all__)
    checked = set(_ACTIVATIONS) | set(_GRADS)
    assert names - _NOT_DIFFERENTIABLE == checked


def test_segments_and_ctc():
    data = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(K.segment_sum(data, tf.constant([0, 0, 1])).numpy(),
                                  [[4.0, 6.0], [5.0, 6.0]])
    with pytest.raises(ValueError, match="num_segments"):
        K.segment_max(data, tf.constant([0, 0, 1]), num_segments=2, sorted=True)
    with pytest.raises(ValueError, match="1-D"):
        K.segment_sum(data, tf.constant([[0, 0, 1]]))
    # one frame per label, the blank (0) never likely: the loss of the forced path
    logits = np.full((1, 2, 3), -30.0)
    logits[0, 0, 1] = logits[0, 1, 2] = 30.0
    loss = K.ctc_loss(tf.constant([[1, 2]]), logits, tf.constant([2]), tf.constant([2]))
    assert loss.numpy()[0] < 1e-6
    decoded, _ = K.ctc_decode(logits, tf.constant([2]))
    assert decoded.numpy().tolist() == [[[1, 2]]]


def test_jvp_matches_the_derivative():
    x = tf.constant([0.3, -1.2], tf.float64)
    out, tangent = K.jvp(lambda v: K.sin(v) * v, (x,), (tf.ones_like(x),))
    np.testing.assert_allclose(tangent.numpy(), np.cos(x.numpy()) * x.numpy() + np.sin(x.numpy()))
