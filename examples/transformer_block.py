"""A small transformer encoder on minitf: learn to reverse (or sort) short integer sequences.

    python examples/transformer_block.py                    # reverse 8 digits, under a minute on 2 cores
    python examples/transformer_block.py --task sort --epochs 8     # ~98% of sequences sorted exactly
    python examples/transformer_block.py --resume           # continue from the latest checkpoint

The model embeds each token and its position, runs them through encoder blocks (multi-head
self-attention and a feed-forward network, each with a residual connection and layer
normalization, as in "Attention is all you need") and predicts the output token at every
position. Reversing needs attention by position (output i reads input n-1-i); sorting needs
each position to compare its token with all the others. The sequences are drawn from a seeded
generator, so every run sees the same data. Per-token and whole-sequence accuracies are printed
each epoch; a CSV log and the last checkpoint go to --out.
"""
import argparse
import os
import sys
import time

import numpy as np
from tqdm import tqdm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minitf as tf  # noqa: E402
from _common import CsvLog, output_dir  # noqa: E402

LOG_HEADER = ("epoch", "loss", "train_token_accuracy", "val_token_accuracy", "val_sequence_accuracy", "seconds")
layers = tf.keras.layers


def make_sequences(task, count, length, vocab, seed):
    """(inputs, targets): `count` random sequences of `length` tokens in [0, vocab) and their
    reversal or sorted order, as int32 arrays."""
    x = np.random.default_rng(seed).integers(0, vocab, size=(count, length)).astype("int32")
    y = x[:, ::-1] if task == "reverse" else np.sort(x, axis=1)
    return x, np.ascontiguousarray(y, dtype="int32")


class TransformerBlock(layers.Layer):
    """Post-norm encoder block: x + attention(x) -> norm -> x + ffn(x) -> norm."""

    def __init__(self, d_model, num_heads, ff_dim, dropout=0.1, **kwargs):
        super().__init__(**kwargs)
        self.attention = layers.MultiHeadAttention(num_heads, key_dim=d_model // num_heads, dropout=dropout)
        self.norm1 = layers.LayerNormalization(epsilon=1e-6)
        self.ffn_hidden = layers.Dense(ff_dim, activation="relu")
        self.ffn_out = layers.Dense(d_model)
        self.norm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout = layers.Dropout(dropout)

    def call(self, x, training=False):
        x = self.norm1(x + self.attention(x, x, training=training))
        h = self.ffn_out(self.ffn_hidden(x))
        return self.norm2(x + self.dropout(h, training=training))


class SequenceTransformer(tf.keras.Model):
    """Token and position embeddings, `num_blocks` encoder blocks, one softmax per position."""

    def __init__(self, vocab, length, d_model=32, num_heads=4, ff_dim=64, num_blocks=2, **kwargs):
        super().__init__(**kwargs)
        self.length = length
        self.tokens = layers.Embedding(vocab, d_model)
        self.positions = layers.Embedding(length, d_model)
        self.blocks = [TransformerBlock(d_model, num_heads, ff_dim) for _ in range(num_blocks)]
        self.classifier = layers.Dense(vocab)

    def call(self, ids, training=False):
        x = self.tokens(ids) + self.positions(tf.range(self.length))
        for block in self.blocks:
            x = block(x, training=training)
        return self.classifier(x)


def main(argv=None):
    """Parse options, make the data, train, report test accuracies; returns them as a dict."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", default="reverse", choices=["reverse", "sort"])
    parser.add_argument("--length", type=int, default=8)
    parser.add_argument("--vocab", type=int, default=10)
    parser.add_argument("--num-train", type=int, default=3000)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/transformer_block")
    parser.add_argument("--resume", action="store_true", help="continue from the latest checkpoint")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)

    tf.keras.utils.set_random_seed(args.seed)  # Python, numpy and TF: what Keras layers seed from
    out = output_dir(args.out)
    x, y = make_sequences(args.task, args.num_train, args.length, args.vocab, args.seed)
    x_val, y_val = make_sequences(args.task, 500, args.length, args.vocab, args.seed + 1)
    x_test, y_test = make_sequences(args.task, 1000, args.length, args.vocab, args.seed + 2)

    model = SequenceTransformer(args.vocab, args.length)
    optimizer = tf.keras.optimizers.Adam(learning_rate=args.learning_rate)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_acc = tf.keras.metrics.SparseCategoricalAccuracy()
    epoch = tf.Variable(0, dtype=tf.int64, trainable=False)
    model(x[:1])  # create the weights before a checkpoint restores them
    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=epoch)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(out, "ckpt"), max_to_keep=2)
    if args.resume and manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)
        print(f"resumed from {manager.latest_checkpoint} at epoch {int(epoch)}")

    @tf.function
    def train_step(xb, yb):
        with tf.GradientTape() as tape:
            logits = model(xb, training=True)
            loss = loss_fn(yb, logits)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        train_acc.update_state(yb, logits)
        return loss

    def accuracies(xs, ys):
        pred = np.concatenate([np.argmax(model(xs[i:i + 500]).numpy(), -1) for i in range(0, len(xs), 500)])
        return float(np.mean(pred == ys)), float(np.mean(np.all(pred == ys, axis=1)))

    dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x), seed=args.seed).batch(args.batch_size)
    log = CsvLog(os.path.join(out, "log.csv"), LOG_HEADER, resume_epoch=int(epoch) if args.resume else None)
    try:
        while int(epoch) < args.epochs:
            start = time.time()
            losses = []
            bar = tqdm(dataset, desc=f"epoch {int(epoch) + 1}/{args.epochs}", leave=False, mininterval=0.5,
                       disable=args.quiet)
            for xb, yb in bar:
                losses.append(float(train_step(xb, yb)))
            val_token, val_seq = accuracies(x_val, y_val)
            epoch.assign_add(1)
            manager.save()
            row = [int(epoch), float(np.mean(losses)), float(train_acc.result()), val_token, val_seq,
                   round(time.time() - start, 1)]
            log.write(row)  # after the checkpoint, so a resumed run never repeats a logged epoch
            print(f"epoch {row[0]}: loss {row[1]:.4f}  train token acc {row[2]:.4f}  val token acc {row[3]:.4f}"
                  f"  val sequence acc {row[4]:.4f}  ({row[5]} s)")
            train_acc.reset_state()
    finally:
        log.close()
    token, sequence = accuracies(x_test, y_test)
    print(f"test token accuracy: {token:.4f}  test sequence accuracy: {sequence:.4f}  ({args.task}, "
          f"chance {1 / args.vocab:.2f} per token)")
    return {"token_accuracy": token, "sequence_accuracy": sequence}


if __name__ == "__main__":
    main()
