"""Multi-worker training with a custom loop (TF's multi_worker_with_ctl tutorial), on minitf and MPI.

    python examples/distributed_training.py                        # one process
    mpiexec -n 2 python examples/distributed_training.py           # two workers, one replica each
    mpiexec -n 2 python examples/distributed_training.py --resume  # continue from the chief's checkpoint

Every process runs this same script (Horovod's design). `MultiWorkerMirroredStrategy` joins them;
the model and optimizer are built in `strategy.scope()` (rank 0's initial weights reach every
worker), `distribute_datasets_from_function` gives each worker its shard of the training set,
`optimizer.apply_gradients` sums the gradients of all workers each step, so two workers with
the same GLOBAL batch (--batch-size) take the same steps one process would. The chief (rank 0)
writes the checkpoints and the CSV log; the others write to a temporary folder they delete, as in
the tutorial. Give each process one BLAS thread (OMP_NUM_THREADS=1) when they share a few cores.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minitf as tf  # noqa: E402
from _common import CsvLog, load_images, output_dir  # noqa: E402

LOG_HEADER = ("epoch", "loss", "train_accuracy", "test_accuracy", "seconds")


def make_model():
    """A 2-hidden-layer MLP on 28x28 images (the custom_training_loop example's)."""
    layers = tf.keras.layers
    return tf.keras.Sequential([
        layers.Input(shape=(28, 28)), layers.Flatten(),
        layers.Dense(256, activation="relu"), layers.Dense(128, activation="relu"), layers.Dense(10),
    ], name="mlp")


def _is_chief(task_type, task_id, cluster_spec):
    """The tutorial's rule: the 'chief' task, else worker 0."""
    return (task_type is None or task_type == "chief"
            or (task_type == "worker" and task_id == 0 and "chief" not in cluster_spec.as_dict()))


def write_filepath(filepath, task_type, task_id, cluster_spec):
    """Where this worker writes `filepath`: the chief writes it; the others a temporary copy."""
    dirpath, base = os.path.dirname(filepath), os.path.basename(filepath)
    if not _is_chief(task_type, task_id, cluster_spec):
        dirpath = os.path.join(dirpath, f"workertemp_{task_id}")
        tf.io.gfile.makedirs(dirpath)
    return os.path.join(dirpath, base)


def main(argv=None):
    """Train on the built-in digits; returns the final test accuracy (the same on every worker)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="digits", choices=["digits", "mnist", "fashion_mnist"])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64, help="the GLOBAL batch, split between workers")
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--num-train", type=int, default=12000)
    parser.add_argument("--num-test", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/distributed_training")
    parser.add_argument("--resume", action="store_true", help="continue from the chief's latest checkpoint")
    args = parser.parse_args(argv)

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    resolver = strategy.cluster_resolver
    task_type, task_id, cluster_spec = resolver.task_type, resolver.task_id, resolver.cluster_spec()
    chief = _is_chief(task_type, task_id, cluster_spec)
    workers = strategy.num_replicas_in_sync
    say = print if chief else (lambda *a, **k: None)
    say(f"{workers} worker(s); global batch {args.batch_size}")

    tf.keras.utils.set_random_seed(args.seed)  # Python, numpy and TF: what Keras layers seed from
    (x, y), (x_test, y_test) = load_images(args.dataset, num_train=args.num_train, num_test=args.num_test,
                                           seed=args.seed)
    x, x_test = x.astype("float32") / 255.0, x_test.astype("float32") / 255.0
    y, y_test = y.astype("int64"), y_test.astype("int64")
    global_batch = args.batch_size

    def dataset_fn(input_context):
        # this worker's shard (every n-th example), shuffled, batched per replica
        batch = input_context.get_per_replica_batch_size(global_batch)
        shard = slice(input_context.input_pipeline_id, None, input_context.num_input_pipelines)
        return tf.data.Dataset.from_tensor_slices((x[shard], y[shard])).shuffle(
            10000, seed=args.seed).batch(batch)

    def test_fn(input_context):
        shard = slice(input_context.input_pipeline_id, None, input_context.num_input_pipelines)
        return tf.data.Dataset.from_tensor_slices((x_test[shard], y_test[shard])).batch(500)

    with strategy.scope():
        model = make_model()  # built in the scope: every worker starts from rank 0's weights
        optimizer = tf.keras.optimizers.Adam(learning_rate=args.learning_rate)
    train_dataset = strategy.distribute_datasets_from_function(dataset_fn)
    test_dataset = strategy.distribute_datasets_from_function(test_fn)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")

    def train_step(inputs):
        features, labels = inputs
        with tf.GradientTape() as tape:
            logits = model(features, training=True)
            loss = tf.nn.compute_average_loss(loss_fn(labels, logits), global_batch_size=global_batch)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))  # summed over the workers
        correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, axis=1), labels), tf.float32))
        return loss, correct, tf.cast(tf.shape(labels)[0], tf.float32)

    def test_step(inputs):
        features, labels = inputs
        predictions = tf.argmax(model(features, training=False), axis=1)
        return tf.reduce_sum(tf.cast(tf.equal(predictions, labels), tf.float32)), \
            tf.cast(tf.shape(labels)[0], tf.float32)

    def evaluate():
        correct = total = 0.0
        for batch in test_dataset:
            c, n = strategy.run(test_step, args=(batch,))
            correct += float(strategy.reduce("SUM", c, axis=None))
            total += float(strategy.reduce("SUM", n, axis=None))
        return correct / total

    epoch = tf.Variable(0, dtype=tf.int64, trainable=False, name="epoch")
    checkpoint_dir = os.path.join(output_dir(args.out), "ckpt")
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=epoch)
    write_checkpoint_dir = write_filepath(checkpoint_dir, task_type, task_id, cluster_spec)
    manager = tf.train.CheckpointManager(checkpoint, directory=write_checkpoint_dir, max_to_keep=2)
    latest = tf.train.latest_checkpoint(checkpoint_dir) if args.resume else None
    if latest:
        checkpoint.restore(latest)  # every worker reads the chief's checkpoint
        say(f"resumed from {latest} at epoch {int(epoch)}")
    log = CsvLog(os.path.join(args.out, "log.csv"), LOG_HEADER,
                 resume_epoch=int(epoch) if args.resume else None) if chief else None
    test_accuracy = None
    try:
        while int(epoch) < args.epochs:
            start = time.time()
            total_loss = correct = seen = 0.0
            steps = 0
            for batch in train_dataset:
                loss, c, n = strategy.run(train_step, args=(batch,))
                total_loss += float(strategy.reduce("SUM", loss, axis=None))
                correct += float(strategy.reduce("SUM", c, axis=None))
                seen += float(strategy.reduce("SUM", n, axis=None))
                steps += 1
            test_accuracy = evaluate()
            epoch.assign_add(1)
            manager.save()
            if not chief:
                tf.io.gfile.rmtree(write_checkpoint_dir)
            row = [int(epoch), total_loss / steps, correct / seen, test_accuracy, round(time.time() - start, 1)]
            if log is not None:
                log.write(row)  # after the checkpoint, so a resumed run never repeats a logged epoch
            say(f"epoch {row[0]}: loss {row[1]:.4f}  train acc {row[2]:.4f}  test acc {row[3]:.4f}  "
                f"({row[4]} s, {steps} steps)")
    finally:
        if log is not None:
            log.close()
    if test_accuracy is None:
        test_accuracy = evaluate()
    say(f"test accuracy: {test_accuracy:.4f}")
    return test_accuracy


if __name__ == "__main__":
    main()
