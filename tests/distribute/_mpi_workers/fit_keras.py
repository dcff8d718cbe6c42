"""model.fit / evaluate under MultiWorkerMirroredStrategy (or one process without a strategy).

argv: out_dir mode  -- mode 'strategy' builds and compiles inside strategy.scope(), 'plain' not.
Each rank writes its final weights, history, evaluate results and which files it wrote.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import write  # noqa: E402

import minitf as tf  # noqa: E402

out_dir, mode = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(0)
x = rng.normal(size=(96, 8)).astype("float32")
y = (x[:, :3].argmax(axis=1)).astype("int32")
x_val, y_val = x[:40], y[:40]


def build():
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(3)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


if mode == "strategy":
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id
    with strategy.scope():
        model = build()
else:
    strategy, rank = None, 0
    model = build()

csv_path = os.path.join(out_dir, f"log_from_rank{rank}.csv")
ckpt_path = os.path.join(out_dir, f"ckpt_from_rank{rank}.weights.h5")
history = model.fit(x, y, batch_size=32, epochs=3, shuffle=False, verbose=0, validation_data=(x_val, y_val),
                    callbacks=[tf.keras.callbacks.CSVLogger(csv_path),
                               tf.keras.callbacks.ModelCheckpoint(ckpt_path, save_weights_only=True)])
after_fit = [w.copy() for w in model.get_weights()]
shuffled = model.fit(x, y, batch_size=24, epochs=1, shuffle=True, verbose=0)
evaluated = model.evaluate(x, y, batch_size=32, verbose=0, return_dict=True)
w1, b1, w2, b2 = model.get_weights()
logits = np.maximum(x @ w1 + b1, 0) @ w2 + b2
logp = logits - logits.max(1, keepdims=True)
logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
by_hand = {"loss": float(-logp[np.arange(len(y)), y].mean()), "accuracy": float((logits.argmax(1) == y).mean())}
csv_rows = open(csv_path).read().splitlines() if os.path.exists(csv_path) else None
write(out_dir, rank, {"after_fit": after_fit, "by_hand": by_hand, "csv_rows": csv_rows,
                      "weights": [w.copy() for w in model.get_weights()],
                      "history": history.history, "shuffled_loss": shuffled.history["loss"],
                      "evaluate": evaluated, "wrote": sorted(os.listdir(out_dir)),
                      "replicas": model.distribute_strategy.num_replicas_in_sync})
