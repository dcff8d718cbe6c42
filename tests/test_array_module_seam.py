"""CPU-only guard for the GPU path: ops must compute with the array module of their inputs.

The `fake_gpu` fixture (tests/conftest.py) makes a numpy-backed fake GPU module the default
device. Its arrays refuse direct numpy calls (np.exp(a), np.transpose(a)) and mixing with host
numpy arrays, as real cupy arrays would break or silently copy. Each case runs forward and
backward on the fake GPU and on the CPU: outputs and gradients must stay on the fake device and
equal the CPU results. Ops not written yet are skipped.
"""
import importlib

import numpy as np
import pytest

import minitf as tf
from minitf import backend
from minitf.device import device  # tf.device once the lead re-exports it

RNG = np.random.default_rng(7)


def _data(*shape, positive=False):
    a = RNG.standard_normal(shape)
    return np.abs(a) + 0.5 if positive else a


def _op(path):
    """The minitf callable at dotted `path` ('nn.conv2d'); a missing one fails the test."""
    obj = tf
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _spd(n):
    a = RNG.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


# (id, function of the minitf module returning f(*inputs), input arrays, differentiable)
CASES = [
    # elementwise math, with broadcasting
    ("add", lambda: lambda a, b: a + b, [_data(2, 3), _data(3)], True),
    ("sub_scalar", lambda: lambda a: 2.0 - a, [_data(2, 3)], True),
    ("mul_div", lambda: lambda a, b: a * b / (b * b + 1.0), [_data(2, 3), _data(2, 1)], True),
    ("pow", lambda: lambda a, b: tf.pow(a, b), [_data(3, positive=True), _data(3)], True),
    ("exp_log", lambda: lambda a: tf.exp(a) + tf.math.log(a), [_data(4, positive=True)], True),
    ("tanh_sigmoid", lambda: lambda a: tf.tanh(a) * tf.sigmoid(a), [_data(2, 2)], True),
    ("softplus_erf", lambda: lambda a: tf.math.softplus(a) + tf.math.erf(a), [_data(5)], True),
    ("sqrt_rsqrt", lambda: lambda a: tf.sqrt(a) + tf.math.rsqrt(a), [_data(3, positive=True)], True),
    ("max_min", lambda: lambda a, b: tf.maximum(a, b) - tf.minimum(a, 0.1), [_data(3, 2), _data(2)], True),
    ("squared_difference", lambda: lambda a, b: tf.math.squared_difference(a, b), [_data(3), _data(3)], True),
    ("clip_abs", lambda: lambda a: tf.clip_by_value(tf.abs(a), 0.2, 1.0), [_data(6)], True),
    ("atan2_xlogy", lambda: lambda a, b: tf.math.atan2(a, b) + tf.math.xlogy(b, b),
     [_data(4), _data(4, positive=True)], True),
    ("divide_no_nan", lambda: lambda a, b: tf.math.divide_no_nan(a, b * tf.cast(b > 0, b.dtype)),
     [_data(4), _data(4)], True),
    ("add_n", lambda: lambda a, b: tf.add_n([a, b, a]), [_data(2), _data(2)], True),
    ("cast_compare", lambda: lambda a: tf.cast(tf.greater(a, 0.0), tf.float64) * a, [_data(5)], True),
    # reductions and scans
    ("reduce_sum_mean", lambda: lambda a: tf.reduce_sum(a, axis=1) + tf.reduce_mean(a, axis=1), [_data(3, 4)], True),
    ("reduce_max_min", lambda: lambda a: tf.reduce_max(a, 0) - tf.reduce_min(a, 0), [_data(3, 4)], True),
    ("reduce_prod", lambda: lambda a: tf.reduce_prod(a, axis=-1), [_data(2, 3)], True),
    ("reduce_logsumexp", lambda: lambda a: tf.reduce_logsumexp(a, axis=1, keepdims=True), [_data(2, 5)], True),
    ("reduce_variance_std", lambda: lambda a: tf.math.reduce_variance(a) + tf.math.reduce_std(a, 0),
     [_data(4, 3)], True),
    ("cumsum_cumprod", lambda: lambda a: tf.cumsum(a, axis=1) + tf.math.cumprod(a, axis=1), [_data(2, 4)], True),
    ("argmax", lambda: lambda a: tf.argmax(a, axis=1), [_data(3, 4)], False),
    ("l2_normalize", lambda: lambda a: tf.math.l2_normalize(a, axis=-1), [_data(2, 3)], True),
    # shapes, indexing and selection
    ("reshape_transpose", lambda: lambda a: tf.transpose(tf.reshape(a, [3, 2, 2]), [2, 0, 1]), [_data(2, 6)], True),
    ("stack_unstack", lambda: lambda a, b: tf.stack(tf.unstack(a) + [b], axis=1), [_data(2, 3), _data(3)], True),
    ("concat_split", lambda: lambda a: tf.concat(tf.split(a, 2, axis=1)[::-1], axis=0), [_data(3, 4)], True),
    ("where", lambda: lambda a, b: tf.where(a > b, a, b * 2.0), [_data(3, 3), _data(3)], True),
    ("getitem", lambda: lambda a: a[1:, ::2] + a[0, 1] + a[..., tf.newaxis, 0][1:], [_data(3, 4)], True),
    ("squeeze_expand", lambda: lambda a: tf.expand_dims(tf.squeeze(a, 1), 0), [_data(3, 1, 2)], True),
    ("tile_pad", lambda: lambda a: tf.pad(tf.tile(a, [2, 1]), [[1, 0], [0, 2]]), [_data(2, 2)], True),
    ("gather", lambda: lambda a: tf.gather(a, [2, 0, 2], axis=0), [_data(3, 2)], True),
    ("gather_nd", lambda: lambda a: tf.gather_nd(a, [[0, 1], [2, 0]]), [_data(3, 2)], True),
    ("boolean_mask", lambda: lambda a: tf.boolean_mask(a, a > 0), [_data(6)], True),
    ("reverse_roll", lambda: lambda a: tf.reverse(a, [1]) + tf.roll(a, 1, axis=1), [_data(2, 3)], True),
    ("broadcast_to", lambda: lambda a: tf.broadcast_to(a, [4, 3]), [_data(3)], True),
    ("one_hot", lambda: lambda a: tf.one_hot(tf.argmax(a, axis=1), 4, dtype=tf.float64) * a, [_data(2, 4)], True),
    ("sort", lambda: lambda a: _op("sort")(a, axis=-1), [_data(2, 5)], True),
    ("zeros_ones_like", lambda: lambda a: a * tf.ones_like(a) + tf.zeros_like(a) + tf.ones([3], tf.float64), [_data(2, 3)], True),
    ("scatter_nd", lambda: lambda a: tf.tensor_scatter_nd_add(a, [[0], [2]], a[:2] * 3.0), [_data(3, 2)], True),
    # linear algebra
    ("matmul", lambda: lambda a, b: tf.matmul(a, b), [_data(2, 3, 4), _data(4, 2)], True),
    ("matmul_transpose", lambda: lambda a, b: tf.matmul(a, b, transpose_b=True), [_data(3, 4), _data(2, 4)], True),
    ("tensordot", lambda: lambda a, b: _op("tensordot")(a, b, axes=1), [_data(2, 3), _data(3, 2)], True),
    ("einsum", lambda: lambda a, b: _op("einsum")("bij,jk->bik", a, b), [_data(2, 3, 4), _data(4, 2)], True),
    ("inv_det", lambda: lambda a: _op("linalg.inv")(a) * _op("linalg.det")(a), [_spd(3)], True),
    ("slogdet_solve", lambda: lambda a, b: _op("linalg.solve")(a, b) * _op("linalg.slogdet")(a)[1],
     [_spd(3), _data(3, 2)], True),
    ("cholesky", lambda: lambda a: _op("linalg.cholesky")(a), [_spd(3)], True),
    ("norm_trace", lambda: lambda a: _op("norm")(a) + _op("linalg.trace")(a), [_data(3, 3)], True),
    # neural-network ops
    ("relu_softmax", lambda: lambda a: _op("nn.softmax")(_op("nn.relu")(a)), [_data(2, 5)], True),
    ("log_softmax", lambda: lambda a: _op("nn.log_softmax")(a, axis=-1), [_data(2, 5)], True),
    ("softmax_xent", lambda: lambda a: _op("nn.softmax_cross_entropy_with_logits")(
        labels=tf.one_hot([1, 3], 5, dtype=tf.float64), logits=a), [_data(2, 5)], True),
    ("sparse_softmax_xent", lambda: lambda a: _op("nn.sparse_softmax_cross_entropy_with_logits")(
        labels=tf.constant([1, 3]), logits=a), [_data(2, 5)], True),
    ("sigmoid_xent", lambda: lambda a, b: _op("nn.sigmoid_cross_entropy_with_logits")(
        labels=tf.sigmoid(b), logits=a), [_data(2, 3), _data(2, 3)], True),
    ("bias_add_leaky", lambda: lambda a, b: _op("nn.leaky_relu")(_op("nn.bias_add")(a, b)), [_data(2, 3), _data(3)], True),
    ("moments_batchnorm", lambda: lambda a: _op("nn.batch_normalization")(
        a, *_op("nn.moments")(a, axes=[0]), None, None, 1e-3), [_data(4, 3)], True),
    ("dropout_eval", lambda: lambda a: _op("nn.dropout")(a, rate=0.0), [_data(3, 3)], True),
    ("conv2d", lambda: lambda x, k: _op("nn.conv2d")(x, k, strides=1, padding="SAME"),
     [_data(2, 5, 5, 2), _data(3, 3, 2, 3)], True),
    ("conv2d_strided_valid", lambda: lambda x, k: _op("nn.conv2d")(x, k, strides=2, padding="VALID"),
     [_data(1, 6, 6, 1), _data(2, 2, 1, 2)], True),
    ("conv1d", lambda: lambda x, k: _op("nn.conv1d")(x, k, stride=1, padding="SAME"),
     [_data(2, 6, 2), _data(3, 2, 2)], True),
    ("conv2d_transpose", lambda: lambda x, k: _op("nn.conv2d_transpose")(
        x, k, output_shape=[1, 6, 6, 2], strides=2, padding="SAME"), [_data(1, 3, 3, 3), _data(3, 3, 2, 3)], True),
    ("depthwise_conv2d", lambda: lambda x, k: _op("nn.depthwise_conv2d")(x, k, strides=[1, 1, 1, 1], padding="SAME"),
     [_data(1, 4, 4, 2), _data(3, 3, 2, 1)], True),
    ("max_pool2d", lambda: lambda x: _op("nn.max_pool2d")(x, ksize=2, strides=2, padding="VALID"),
     [_data(2, 4, 4, 2)], True),
    ("avg_pool2d", lambda: lambda x: _op("nn.avg_pool2d")(x, ksize=3, strides=1, padding="SAME"),
     [_data(1, 4, 4, 2)], True),
    ("gelu", lambda: lambda a: _op("nn.gelu")(a), [_data(3, 4)], True),
    ("smooth_activations", lambda: lambda a: _op("nn.elu")(a) + _op("nn.selu")(a)
     + _op("nn.silu")(a) + _op("nn.softsign")(a) + _op("nn.relu6")(a * 4.0), [_data(3, 4)], True),
    ("l2_loss_weighted_xent", lambda: lambda a, b: _op("nn.l2_loss")(a) + _op("nn.weighted_cross_entropy_with_logits")(
        labels=tf.sigmoid(b), logits=a, pos_weight=2.0), [_data(2, 3), _data(2, 3)], True),
    ("top_k", lambda: lambda a: _op("nn.top_k")(a, k=2).values, [_data(3, 5)], True),
    ("separable_conv2d", lambda: lambda x, d, p: _op("nn.separable_conv2d")(x, d, p, strides=[1, 1, 1, 1], padding="SAME"),
     [_data(1, 4, 4, 2), _data(3, 3, 2, 2), _data(1, 1, 4, 3)], True),
    ("conv1d_transpose", lambda: lambda x, k: _op("nn.conv1d_transpose")(x, k, output_shape=[1, 8, 2], strides=2),
     [_data(1, 4, 3), _data(3, 2, 3)], True),
    ("pool1d", lambda: lambda x: _op("nn.max_pool1d")(x, 2, 2, "VALID") + _op("nn.avg_pool1d")(x, 2, 2, "VALID"),
     [_data(2, 6, 3)], True),
    # image ops
    ("resize_bilinear", lambda: lambda x: _op("image.resize")(x, [6, 6]), [_data(1, 3, 3, 2)], True),
    ("resize_nearest", lambda: lambda x: _op("image.resize")(x, [2, 2], method="nearest"), [_data(1, 4, 4, 1)], True),
    ("flip_lr", lambda: lambda x: _op("image.flip_left_right")(x), [_data(1, 3, 3, 1)], True),
]


def _param(case):
    return pytest.param(case, id=case[0])


def _run(make_f, arrays, differentiable):
    """Forward value and gradients (of a weighted sum of the output) for one case."""
    f = make_f()
    inputs = [tf.constant(a) for a in arrays]
    with tf.GradientTape() as tape:
        tape.watch(inputs)
        y = f(*inputs)
        if isinstance(y, (tuple, list)):
            y = y[0]
        loss = tf.reduce_sum(tf.cast(y, tf.float64) * tf.constant(_weights(y.shape))) \
            if differentiable else None
    grads = tape.gradient(loss, inputs) if differentiable else []
    return y, grads


def _weights(shape):
    n = int(np.prod(shape.as_list())) if shape.rank else 1
    return np.linspace(0.5, 1.5, n).reshape(shape.as_list())


def _assert_on_device(t, fake, what):
    assert isinstance(t._value, fake.ndarray), (
        f"{what} left the device: its value is {type(t._value).__name__}, expected {fake.ndarray.__name__}")


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_op_stays_on_the_array_module_of_its_inputs(case, fake_gpu):
    name, make_f, arrays, differentiable = case
    with device("/CPU:0"):
        y_cpu, g_cpu = _run(make_f, arrays, differentiable)
    assert type(y_cpu._value) is not fake_gpu.ndarray
    y_gpu, g_gpu = _run(make_f, arrays, differentiable)
    _assert_on_device(y_gpu, fake_gpu, f"{name}: output")
    np.testing.assert_allclose(y_gpu.numpy(), y_cpu.numpy(), rtol=1e-10, atol=1e-12)
    for i, (gg, gc) in enumerate(zip(g_gpu, g_cpu)):
        assert (gg is None) == (gc is None), f"{name}: gradient {i} is None on one device only"
        if gg is None:
            continue
        gg = tf.convert_to_tensor(gg)
        _assert_on_device(gg, fake_gpu, f"{name}: gradient {i}")
        np.testing.assert_allclose(gg.numpy(), tf.convert_to_tensor(gc).numpy(), rtol=1e-9, atol=1e-12)


def test_fake_device_rejects_direct_numpy_calls(fake_gpu):
    """The guard itself: a numpy call on device data fails, operators and methods do not."""
    x = tf.constant([1.0, 2.0])._value
    assert isinstance(x, fake_gpu.ndarray)
    with pytest.raises(fake_gpu.DirectNumpyCall, match="exp"):
        np.exp(x)
    with pytest.raises(fake_gpu.DirectNumpyCall, match="transpose"):
        np.transpose(x)
    with pytest.raises(fake_gpu.DirectNumpyCall, match="host numpy array"):
        x * np.ones(2)
    assert isinstance(x * 2 + x.sum(), fake_gpu.ndarray)
    assert isinstance(fake_gpu.exp(x), fake_gpu.ndarray)
    assert isinstance(fake_gpu.sum(x), fake_gpu.ndarray)  # a 0-d array, as cupy returns


def test_variable_assign_and_read_stay_on_device(fake_gpu):
    v = tf.Variable([1.0, 2.0, 3.0])
    _assert_on_device(v, fake_gpu, "variable")
    v.assign_add([1.0, 1.0, 1.0])
    v.assign(v * 2.0)
    _assert_on_device(v, fake_gpu, "assigned variable")
    np.testing.assert_allclose(v.numpy(), [4.0, 6.0, 8.0])
    assert type(v.numpy()) is np.ndarray


def _import(name):
    return importlib.import_module(name)


def _dense_sgd_step(optimizer_name):
    """One Dense-layer training step; returns the weights after it and the loss."""
    layers = _import("minitf.layers")
    optimizers = _import("minitf.optimizers")
    x = tf.constant(np.linspace(-1, 1, 12).reshape(4, 3), dtype=tf.float32)
    target = tf.constant([[1.0], [0.0], [-1.0], [0.5]])
    layer = layers.Dense(1, activation="tanh")
    layer(x)
    layer.kernel.assign(np.array([[0.1], [-0.2], [0.3]], np.float32))
    layer.bias.assign(np.array([0.05], np.float32))
    opt = getattr(optimizers, optimizer_name)(learning_rate=0.1)
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(layer(x) - target))
        grads = tape.gradient(loss, layer.trainable_variables)
        opt.apply_gradients(zip(grads, layer.trainable_variables))
    return layer, loss


@pytest.mark.parametrize("optimizer_name", ["SGD", "Adam"])
def test_dense_layer_training_step_stays_on_device(optimizer_name, fake_gpu):
    with device("/CPU:0"):
        cpu_layer, cpu_loss = _dense_sgd_step(optimizer_name)
    gpu_layer, gpu_loss = _dense_sgd_step(optimizer_name)
    _assert_on_device(gpu_loss, fake_gpu, "loss")
    for v_gpu, v_cpu in zip(gpu_layer.trainable_variables, cpu_layer.trainable_variables):
        _assert_on_device(v_gpu, fake_gpu, v_gpu.name)
        np.testing.assert_allclose(v_gpu.numpy(), v_cpu.numpy(), rtol=1e-6)


def _layer_cases():
    return [
        ("Conv2D", lambda L: L.Conv2D(3, 3, padding="same", activation="relu"), (2, 5, 5, 2)),
        ("Conv2DTranspose", lambda L: L.Conv2DTranspose(2, 3, strides=2), (1, 3, 3, 2)),
        ("DepthwiseConv2D", lambda L: L.DepthwiseConv2D(3), (1, 5, 5, 2)),
        ("BatchNormalization", lambda L: L.BatchNormalization(), (4, 3)),
        ("LayerNormalization", lambda L: L.LayerNormalization(), (4, 3)),
        ("MaxPooling2D", lambda L: L.MaxPooling2D(), (1, 4, 4, 2)),
        ("GlobalAveragePooling2D", lambda L: L.GlobalAveragePooling2D(), (2, 3, 3, 2)),
        ("UpSampling2D", lambda L: L.UpSampling2D(), (1, 2, 2, 1)),
        ("Flatten_Dense", lambda L: L.Dense(2), (2, 3)),
    ]


@pytest.mark.parametrize("case", _layer_cases(), ids=[c[0] for c in _layer_cases()])
def test_keras_layer_forward_and_backward_stay_on_device(case, fake_gpu):
    layers = _import("minitf.layers")
    name, make, shape = case
    x_np = np.linspace(-1.0, 1.0, int(np.prod(shape))).reshape(shape).astype(np.float32)
    results = []
    for device_name in ("/CPU:0", "/GPU:0"):
        with device(device_name):
            layer = make(layers)
            x = tf.constant(x_np)
            layer(x)
            for i, v in enumerate(layer.weights):  # the same weights on both devices
                v.assign(np.linspace(0.2, 0.9, v.shape.num_elements()).reshape(v.shape.as_list())
                         .astype(np.float32) * (-1) ** i)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = layer(x, training=True)
                loss = tf.reduce_sum(y * y)
            grads = tape.gradient(loss, [x] + layer.trainable_variables)
        results.append((y, grads, layer))
    (y_cpu, g_cpu, cpu_layer), (y_gpu, g_gpu, gpu_layer) = results
    _assert_on_device(y_gpu, fake_gpu, f"{name}: output")
    np.testing.assert_allclose(y_gpu.numpy(), y_cpu.numpy(), rtol=1e-5, atol=1e-6)
    for i, (gg, gc) in enumerate(zip(g_gpu, g_cpu)):
        _assert_on_device(tf.convert_to_tensor(gg), fake_gpu, f"{name}: gradient {i}")
        np.testing.assert_allclose(tf.convert_to_tensor(gg).numpy(), tf.convert_to_tensor(gc).numpy(),
                                   rtol=1e-5, atol=1e-5)
    for v in gpu_layer.weights:  # moving statistics too
        _assert_on_device(v, fake_gpu, f"{name}: {v.name}")


def test_random_ops_create_values_on_the_device(fake_gpu):
    random = tf.random
    tf.random.set_seed(3)
    for t in (random.normal([3, 2]), random.uniform([4], maxval=2.0), random.truncated_normal([2])):
        _assert_on_device(t, fake_gpu, "random tensor")
    dropped = _op("nn.dropout")(tf.ones([50]), rate=0.5)
    _assert_on_device(dropped, fake_gpu, "dropout output")


def test_array_module_registration_is_undone(fake_gpu):
    arr = fake_gpu.asarray(np.ones(2))
    assert backend.array_module(arr) is fake_gpu
    assert backend.array_module(np.ones(2)) is np
