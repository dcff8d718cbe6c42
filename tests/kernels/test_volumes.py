"""minitf.kernels.volumes through the 3-D ops: on a device array module (the fake GPU, whose
arrays refuse numpy calls) every op, forward and backward, stays on that module and gives the
CPU's numbers; float16 accumulates in float32."""
import numpy as np

import minitf as tf
from minitf.device import device

RNG = np.random.default_rng(0)


def _pipeline(x, w, g):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, w, g])
        y = tf.nn.conv3d(x, w, [1, 2, 1, 1, 1], "SAME")
        t = tf.nn.conv3d_transpose(g, w, [1, 4, 5, 4, 3], [1, 2, 2], "VALID")
        p = tf.nn.max_pool3d(x, 2, 1, "SAME") + tf.nn.avg_pool3d(x, [2, 1, 2], [1, 2, 1], "SAME")[:, :1, :1, :1]
        loss = tf.reduce_sum(y * y) + tf.reduce_sum(t * t) + tf.reduce_sum(p * p)
    return [y, t, p] + tape.gradient(loss, [x, w, g])


def test_3d_ops_stay_on_the_array_module_of_their_inputs(fake_gpu):
    x = RNG.normal(size=(1, 4, 5, 4, 3)).astype("float32")
    w = RNG.normal(size=(2, 3, 2, 3, 2)).astype("float32")
    g = RNG.normal(size=(1, 3, 2, 2, 2)).astype("float32")
    with device("/CPU:0"):
        want = _pipeline(*(tf.constant(v) for v in (x, w, g)))
    got = _pipeline(*(tf.constant(v) for v in (x, w, g)))
    for a, b in zip(got, want):
        assert isinstance(a._value, fake_gpu.ndarray)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)


def test_half_precision_volumes_round_once():
    x = RNG.normal(size=(1, 3, 4, 4, 16)).astype("float16")
    w = RNG.normal(size=(3, 3, 3, 16, 4)).astype("float16")
    y = tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "SAME")
    wide = tf.nn.conv3d(x.astype("float32"), w.astype("float32"), [1, 1, 1, 1, 1], "SAME")
    np.testing.assert_array_equal(y.numpy(), wide.numpy().astype("float16"))
    a = tf.nn.avg_pool3d(x, 3, 1, "SAME")
    np.testing.assert_array_equal(a.numpy(), tf.nn.avg_pool3d(x.astype("float32"), 3, 1, "SAME").numpy()
                                  .astype("float16"))
