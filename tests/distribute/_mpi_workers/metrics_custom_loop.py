"""Keras metrics in a custom loop under MultiWorkerMirroredStrategy: made in the scope, updated
inside strategy.run, read inside run (this worker's) and outside (every worker's)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import write  # noqa: E402

import minitf as tf  # noqa: E402

out_dir = sys.argv[1]
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank = strategy.cluster_resolver.task_id
with strategy.scope():
    mean = tf.keras.metrics.Mean()
    accuracy = tf.keras.metrics.SparseCategoricalAccuracy()
unscoped = tf.keras.metrics.Mean()  # made outside the scope: a plain per-worker metric

values = [[1.0, 2.0], [10.0, 20.0, 30.0]][rank]
labels = [[0, 1], [1, 1, 0]][rank]
probabilities = [[[0.9, 0.1], [0.2, 0.8]], [[0.3, 0.7], [0.6, 0.4], [0.5, 0.5]]][rank]


def update():
    mean.update_state(values)
    unscoped.update_state(values)
    accuracy.update_state(labels, probabilities)
    return mean.result()


inside = strategy.run(update)
with strategy.scope():
    in_scope = float(mean.result().numpy())
write(out_dir, rank, {"inside_run": float(inside.numpy()), "outside": float(mean.result().numpy()),
                      "in_scope": in_scope, "accuracy": float(accuracy.result().numpy()),
                      "unscoped": float(unscoped.result().numpy()),
                      "local_state_after": [float(v.numpy()) for v in mean.variables]})
