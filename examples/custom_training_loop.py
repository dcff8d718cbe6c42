"""Training loop from scratch (the TF guide), on minitf: an MLP and a small CNN on handwritten digits.

    python examples/custom_training_loop.py                 # built-in digits, MLP then CNN
    python examples/custom_training_loop.py --dataset mnist --model cnn --epochs 3

Each model is trained with tf.GradientTape, Adam and SparseCategoricalCrossentropy(from_logits=True),
reporting train/validation accuracy per epoch and the final test accuracy. Outputs (a CSV log and
the last checkpoint of each model) go to --out; `--resume` continues from that checkpoint.
"""
import argparse
import os
import sys
import time

import numpy as np
from tqdm import tqdm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minitf as tf  # noqa: E402
from _common import CsvLog, load_images, output_dir  # noqa: E402

LOG_HEADER = ("epoch", "loss", "train_accuracy", "val_accuracy", "seconds")


def make_model(kind):
    """The guide's models: a 2-hidden-layer MLP, or a small convnet."""
    layers = tf.keras.layers
    if kind == "mlp":
        return tf.keras.Sequential([
            layers.Input(shape=(28, 28, 1)), layers.Flatten(),
            layers.Dense(256, activation="relu"), layers.Dense(128, activation="relu"),
            layers.Dense(10),
        ], name="mlp")
    return tf.keras.Sequential([
        layers.Input(shape=(28, 28, 1)),
        layers.Conv2D(32, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Flatten(), layers.Dense(128, activation="relu"), layers.Dense(10),
    ], name="cnn")


def train(kind, data, args, out):
    """Train one model; returns its test accuracy."""
    (x_train, y_train), (x_val, y_val), (x_test, y_test) = data
    model = make_model(kind)
    optimizer = tf.keras.optimizers.Adam(learning_rate=args.learning_rate)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_acc = tf.keras.metrics.SparseCategoricalAccuracy()
    val_acc = tf.keras.metrics.SparseCategoricalAccuracy()
    epoch = tf.Variable(0, dtype=tf.int64, trainable=False)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=epoch)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(out, f"ckpt_{kind}"), max_to_keep=2)
    if args.resume and manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)
        print(f"[{kind}] resumed from {manager.latest_checkpoint} at epoch {int(epoch)}")

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss_value = loss_fn(y, logits)
        grads = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        train_acc.update_state(y, logits)
        return loss_value

    @tf.function
    def test_step(x, y, metric):
        metric.update_state(y, model(x, training=False))

    train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(
        10000, seed=args.seed).batch(args.batch_size)
    log = CsvLog(os.path.join(out, f"log_{kind}.csv"), LOG_HEADER,
                 resume_epoch=int(epoch) if args.resume else None)
    try:
        while int(epoch) < args.epochs:
            start = time.time()
            bar = tqdm(train_ds, desc=f"[{kind}] epoch {int(epoch) + 1}/{args.epochs}", leave=False,
                       mininterval=0.5, disable=args.quiet)
            losses = []
            for x_batch, y_batch in bar:
                losses.append(float(train_step(x_batch, y_batch)))
                if len(losses) % 20 == 0:
                    bar.set_postfix(loss=f"{np.mean(losses[-20:]):.4f}")
            for i in range(0, len(x_val), 500):
                test_step(x_val[i:i + 500], y_val[i:i + 500], val_acc)
            epoch.assign_add(1)
            row = [int(epoch), float(np.mean(losses)), float(train_acc.result()), float(val_acc.result()),
                   round(time.time() - start, 1)]
            manager.save()
            log.write(row)  # after the checkpoint, so a resumed run never repeats a logged epoch
            print(f"[{kind}] epoch {row[0]}: loss {row[1]:.4f}  train acc {row[2]:.4f}  "
                  f"val acc {row[3]:.4f}  ({row[4]} s)")
            train_acc.reset_state()
            val_acc.reset_state()
    finally:
        log.close()
    test_acc = tf.keras.metrics.SparseCategoricalAccuracy()
    for i in range(0, len(x_test), 500):
        test_step(x_test[i:i + 500], y_test[i:i + 500], test_acc)
    return float(test_acc.result())


def main(argv=None):
    """Parse options, load data, train the chosen models and report test accuracy."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="digits", choices=["digits", "mnist", "fashion_mnist"])
    parser.add_argument("--model", default="both", choices=["mlp", "cnn", "both"])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--num-train", type=int, default=None, help="limit the training set")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/custom_training_loop")
    parser.add_argument("--resume", action="store_true", help="continue from the latest checkpoint")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)

    tf.keras.utils.set_random_seed(args.seed)  # Python, numpy and TF: what Keras layers seed from
    out = output_dir(args.out)
    (x, y), (x_test, y_test) = load_images(args.dataset, num_train=args.num_train, seed=args.seed)
    x = (x.astype("float32") / 255.0)[..., None]
    x_test = (x_test.astype("float32") / 255.0)[..., None]
    y, y_test = y.astype("int32"), y_test.astype("int32")
    n_val = max(len(x) // 12, 1)  # hold out the last part of the training set for validation
    data = ((x[:-n_val], y[:-n_val]), (x[-n_val:], y[-n_val:]), (x_test, y_test))
    results = {}
    for kind in (["mlp", "cnn"] if args.model == "both" else [args.model]):
        start = time.time()
        results[kind] = train(kind, data, args, out)
        print(f"[{kind}] test accuracy: {results[kind]:.4f}  (trained in {time.time() - start:.0f} s)")
    return results


if __name__ == "__main__":
    main()
