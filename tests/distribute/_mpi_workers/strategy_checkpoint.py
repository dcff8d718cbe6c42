"""Worker: TF's multi_worker_with_ctl checkpointing, unchanged, under MultiWorkerMirroredStrategy.

argv: out_dir, checkpoint root, epochs, kill_epoch (rank 1 dies at the start of that epoch; -1:
never), layout ('tutorial': non-chief workers write to a temp dir they delete, as in TF's
tutorial; 'shared': every worker names the chief's directory). Each rank records the epoch it
resumed from, its final weights and the files it saw.
"""
import os
import sys

import numpy as np

import minitf as tf
from common import write

out_dir, root, epochs, kill_epoch, layout = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), \
    sys.argv[5]
GLOBAL_BATCH, STEPS = 8, 3

strategy = tf.distribute.MultiWorkerMirroredStrategy()
task_type, task_id = strategy.cluster_resolver.task_type, strategy.cluster_resolver.task_id
cluster_spec = strategy.cluster_resolver.cluster_spec()
tf.keras.utils.set_random_seed(7 + task_id)


def _is_chief(task_type, task_id, cluster_spec):  # TF's tutorial, verbatim
    return (task_type is None or task_type == 'chief'
            or (task_type == 'worker' and task_id == 0 and "chief" not in cluster_spec.as_dict()))


def _get_temp_dir(dirpath, task_id):
    base_dirpath = 'workertemp_' + str(task_id)
    temp_dir = os.path.join(dirpath, base_dirpath)
    tf.io.gfile.makedirs(temp_dir)
    return temp_dir


def write_filepath(filepath, task_type, task_id, cluster_spec):
    dirpath = os.path.dirname(filepath)
    base = os.path.basename(filepath)
    if not _is_chief(task_type, task_id, cluster_spec):
        dirpath = _get_temp_dir(dirpath, task_id)
    return os.path.join(dirpath, base)


rng = np.random.default_rng(1)
x = rng.standard_normal((GLOBAL_BATCH * STEPS, 4)).astype("float32")
y = (x.sum(axis=1) > 0).astype("int64")
dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(6, activation="relu"),
                                 tf.keras.layers.Dense(2)])
    optimizer = tf.keras.optimizers.Adam(0.05)
dist_dataset = strategy.experimental_distribute_dataset(dataset)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")


def step_fn(inputs):
    features, labels = inputs
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(loss_fn(labels, model(features)), global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


epoch = tf.Variable(initial_value=tf.constant(0, dtype=tf.dtypes.int64), name='epoch')
checkpoint_dir = os.path.join(root, 'ckpt')
checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=epoch)
if layout == "tutorial":
    write_checkpoint_dir = write_filepath(checkpoint_dir, task_type, task_id, cluster_spec)
else:
    write_checkpoint_dir = checkpoint_dir
checkpoint_manager = tf.train.CheckpointManager(checkpoint, directory=write_checkpoint_dir, max_to_keep=2)

latest_checkpoint = tf.train.latest_checkpoint(checkpoint_dir)
if latest_checkpoint:
    checkpoint.restore(latest_checkpoint)
resumed_from = int(epoch.numpy())

while epoch.numpy() < epochs:
    if task_id == 1 and int(epoch.numpy()) == kill_epoch:
        os._exit(3)  # a worker dies mid-run
    for batch in dist_dataset:
        strategy.run(step_fn, args=(batch,))
    epoch.assign_add(1)
    checkpoint_manager.save()
    if layout == "tutorial" and not _is_chief(task_type, task_id, cluster_spec):
        tf.io.gfile.rmtree(write_checkpoint_dir)

files = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)
write(out_dir, task_id, {"resumed_from": resumed_from, "weights": [w.numpy() for w in model.weights],
                         "files": files, "latest": latest_checkpoint, "iterations": int(optimizer.iterations.numpy())})
