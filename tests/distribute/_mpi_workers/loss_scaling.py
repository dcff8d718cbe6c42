"""Loss scaling across workers: tf.nn.compute_average_loss without global_batch_size and
LossScaleOptimizer's overflow check under MultiWorkerMirroredStrategy."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import write  # noqa: E402

import minitf as tf  # noqa: E402

out_dir = sys.argv[1]
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank = strategy.cluster_resolver.task_id
per_example = tf.constant([1.0, 2.0, 3.0, 6.0][: 2 + rank])  # 2 examples on rank 0, 3 on rank 1
average = strategy.run(lambda: tf.nn.compute_average_loss(per_example))
regularization = strategy.run(lambda: tf.nn.scale_regularization_loss([tf.constant(1.0), tf.constant(3.0)]))
try:
    with strategy.scope():
        tf.nn.compute_average_loss(per_example)
    cross_replica_error = None
except RuntimeError as e:
    cross_replica_error = str(e)

with strategy.scope():
    v = tf.Variable([1.0, 1.0])
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(1.0), initial_scale=8.0)


def step(grad):
    opt.apply_gradients([(tf.constant(grad), v)])


strategy.run(step, args=([np.inf, 1.0] if rank == 1 else [1.0, 1.0],))  # one worker overflows
after_overflow = (v.numpy().copy(), float(opt.dynamic_scale.numpy()))
strategy.run(step, args=([8.0, 8.0],))  # finite everywhere: summed, unscaled by 8, applied
after_step = (v.numpy().copy(), float(opt.dynamic_scale.numpy()))
write(out_dir, rank, {"average": float(average.numpy()), "regularization": float(regularization.numpy()),
                      "cross_replica_error": cross_replica_error, "after_overflow": after_overflow,
                      "after_step": after_step})
