"""Checkpointed training that survives being stopped: run, kill it (Ctrl-C or SIGKILL), run again.

    python examples/checkpointed_training.py --steps 600 --save-every 50
    python examples/checkpointed_training.py --steps 600 --save-every 50   # resumes where it stopped

A CheckpointManager saves the model, the optimizer (with its slots), the step counter, the random
generator used for dropout and the dataset iterator position every --save-every steps. A resumed
run continues exactly where the last checkpoint left off and ends with the same weights as a run
that was never interrupted (with op determinism enabled, as TF also asks for repeatable runs).
The final weights are written to <out>/final.weights.h5.
"""
import argparse
import os
import sys

import numpy as np
from tqdm import tqdm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minitf as tf  # noqa: E402
from _common import load_images, output_dir  # noqa: E402


def build(seed):
    """Model, optimizer, data iterator, step counter and RNG: everything the checkpoint holds."""
    tf.keras.utils.set_random_seed(seed)  # Python, numpy and TF: what Keras layers seed from
    # the same bits on every run: the CPU thread count (on which a matmul's last bits can
    # depend) stays fixed instead of following other processes' load
    tf.config.experimental.enable_op_determinism()
    model = tf.keras.Sequential([
        tf.keras.layers.Input(shape=(28, 28)), tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(10),
    ])
    optimizer = tf.keras.optimizers.Adam(1e-3)
    (x, y), _ = load_images("digits", num_train=4096, num_test=16, seed=seed)
    dataset = tf.data.Dataset.from_tensor_slices(((x / 255.0).astype("float32"), y.astype("int32")))
    iterator = iter(dataset.shuffle(4096, seed=seed).batch(64, drop_remainder=True).repeat())
    step = tf.Variable(0, dtype=tf.int64, trainable=False)
    rng = tf.random.Generator.from_seed(seed)
    return model, optimizer, iterator, step, rng


def main(argv=None):
    """Train for --steps steps, saving every --save-every steps and resuming from the latest save."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--save-every", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/checkpointed_training")
    parser.add_argument("--fresh", action="store_true", help="ignore existing checkpoints")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)

    out = output_dir(args.out)
    model, optimizer, iterator, step, rng = build(args.seed)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, step=step, rng=rng, data=iterator)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(out, "ckpt"), max_to_keep=3)
    if manager.latest_checkpoint and not args.fresh:
        ckpt.restore(manager.latest_checkpoint)
        print(f"resumed from {manager.latest_checkpoint} at step {int(step)}", flush=True)

    bar = tqdm(total=args.steps, initial=int(step), disable=args.quiet, mininterval=0.5)
    while int(step) < args.steps:
        x, y = next(iterator)
        keep = tf.cast(rng.uniform(x.shape) > 0.1, tf.float32)  # input dropout from the saved RNG
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x * keep / 0.9, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        step.assign_add(1)
        bar.update(1)
        if int(step) % args.save_every == 0:
            manager.save(checkpoint_number=int(step))
            bar.set_postfix(loss=f"{float(loss):.4f}", saved=int(step))
    bar.close()
    final = os.path.join(out, "final.weights.h5")
    model.save_weights(final)
    checksum = float(sum(np.abs(w).sum() for w in model.get_weights()))
    print(f"done at step {int(step)}; weights checksum {checksum:.6f}; saved {final}", flush=True)
    return model


if __name__ == "__main__":
    main()
