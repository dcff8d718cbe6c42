"""Worker: a few custom-loop training steps under MultiWorkerMirroredStrategy.

argv: out_dir, steps, optimizer name. Each rank records its weights after every step; rank 0
also trains a copy of the model in plain single-process mode on the same global batches from
the same initial weights, for the equivalence check.
"""
import sys

import numpy as np

import minitf as tf
from common import write

out_dir, steps, opt_name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
GLOBAL_BATCH = 12

strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank, size = strategy.cluster_resolver.task_id, strategy.num_replicas_in_sync
tf.keras.utils.set_random_seed(100 + rank)  # initial weights differ by rank unless broadcast


def make_model():
    return tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(7, activation="tanh"),
                                tf.keras.layers.Dense(3)])


def make_optimizer():
    return tf.keras.optimizers.Adam(0.05) if opt_name == "adam" else tf.keras.optimizers.SGD(0.1)


rng = np.random.default_rng(0)  # the same data on every rank
x = rng.standard_normal((GLOBAL_BATCH * steps + 5, 5)).astype("float32")  # the last batch is partial
y = rng.integers(0, 3, size=len(x)).astype("int64")
dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")

with strategy.scope():
    model = make_model()
    optimizer = make_optimizer()
initial = [w.numpy() for w in model.weights]


def step_fn(inputs):
    features, labels = inputs
    with tf.GradientTape() as tape:
        per_example = loss_fn(labels, model(features, training=True))
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


history, losses, batch_sizes = [], [], []
for batch in strategy.experimental_distribute_dataset(dataset):
    batch_sizes.append(int(batch[0].shape[0]))
    per_replica = strategy.run(step_fn, args=(batch,))
    losses.append(float(strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)))
    history.append([w.numpy() for w in model.weights])

results = {"initial": initial, "history": history, "losses": losses, "batch_sizes": batch_sizes,
           "size": size, "iterations": int(optimizer.iterations.numpy())}
if rank == 0:  # the single-process reference: the same weights, whole global batches
    reference = make_model()
    for w, value in zip(reference.weights, initial):
        w.assign(value)
    ref_opt = make_optimizer()
    ref_history, ref_losses = [], []
    for features, labels in dataset:
        with tf.GradientTape() as tape:
            per_example = loss_fn(labels, reference(features, training=True))
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        grads = tape.gradient(loss, reference.trainable_variables)
        ref_opt.apply_gradients(zip(grads, reference.trainable_variables))
        ref_history.append([w.numpy() for w in reference.weights])
        ref_losses.append(float(loss))
    results["reference"] = ref_history
    results["reference_losses"] = ref_losses
write(out_dir, rank, results)
