"""A replica's part of a short global batch can be empty: its steps must add nothing to the loss
trackers (an empty batch's loss is an empty tensor; weighing it in gave NaN)."""
import numpy as np

import minitf as tf


def test_an_empty_batch_leaves_the_loss_trackers_as_they_were():
    inputs = tf.keras.Input((8,))
    outputs = [tf.keras.layers.Dense(3, name="a")(inputs), tf.keras.layers.Dense(2, name="b")(inputs)]
    model = tf.keras.Model(inputs, outputs)
    model.compile("sgd", loss=[tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), "mse"],
                  metrics=[["accuracy"], []])
    x, y = np.ones((4, 8), "float32"), [np.zeros(4, "int32"), np.zeros((4, 2), "float32")]
    full = model.test_on_batch(x, y, return_dict=True)
    model.test_step((x[:0], [y[0][:0], y[1][:0]]))
    after = {k: float(v) for k, v in model.get_metrics_result().items()}
    assert all(np.isfinite(v) for v in after.values()), after
    model.reset_metrics()
    model.test_step((x, y))
    model.test_step((x[:0], [y[0][:0], y[1][:0]]))
    after = {k: float(v) for k, v in model.get_metrics_result().items()}
    for key in full:
        np.testing.assert_allclose(after[key], full[key], rtol=1e-6, err_msg=key)
