"""Worker: strategy.reduce / all_reduce / gather across processes, and distributed input.

argv: out_dir, n_elements, global_batch. Each rank records what it got.
"""
import sys

import numpy as np

import minitf as tf
from common import write

out_dir, n_elements, global_batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank, size = strategy.cluster_resolver.task_id, strategy.num_replicas_in_sync
out = {"size": size, "in_multi_worker": strategy.extended._in_multi_worker_mode(),
       "should_checkpoint": strategy.extended.should_checkpoint}

# -- reductions: a per-replica value of a rank-dependent length -----------------------------
value = tf.constant(np.arange(2 * (rank + 1), dtype="float32").reshape(rank + 1, 2) + 10 * rank)
vector = tf.constant([1.0 + rank, 2.0 * rank])
out["sum_none"] = strategy.reduce(tf.distribute.ReduceOp.SUM, vector, axis=None).numpy()
out["mean_none"] = strategy.reduce("MEAN", vector, axis=None).numpy()
out["sum_axis0"] = strategy.reduce("SUM", value, axis=0).numpy()
out["mean_axis0"] = strategy.reduce(tf.distribute.ReduceOp.MEAN, value, axis=0).numpy()
out["mean_axes"] = strategy.reduce("MEAN", value, axis=[0, 1]).numpy()
out["nested"] = {k: v.numpy() for k, v in
                 strategy.reduce("SUM", {"a": vector, "b": tf.constant(rank)}, axis=None).items()}
out["gather"] = strategy.gather(value, axis=0).numpy()


def replica_fn(x):
    ctx = tf.distribute.get_replica_context()
    summed = ctx.all_reduce(tf.distribute.ReduceOp.SUM, x)
    mean = ctx.all_reduce("MEAN", [x, x * 2.0])
    merged = ctx.merge_call(lambda s, v: s.reduce("SUM", v, axis=None), args=(x,))
    return (int(ctx.replica_id_in_sync_group.numpy()), ctx.num_replicas_in_sync, summed.numpy(),
            [m.numpy() for m in mean], merged.numpy(), tf.distribute.in_cross_replica_context())


out["replica"] = strategy.run(replica_fn, args=(vector,))

# -- experimental_distribute_dataset: global batches split by data ---------------------------
dataset = tf.data.Dataset.range(n_elements).map(lambda i: (i, tf.cast(i, tf.float32) * 0.5)).batch(global_batch)
seen, steps = [], 0
for epoch in range(2):
    epoch_seen = []
    for ids, halves in strategy.experimental_distribute_dataset(dataset):
        epoch_seen.append(ids.numpy().tolist())
        assert np.allclose(halves.numpy(), ids.numpy() * 0.5)
        steps += 1
    seen.append(epoch_seen)
out["distributed_seen"] = seen
out["distributed_steps"] = steps
# an unseeded shuffle: each process would draw its own order; the workers must agree on rank 0's
shuffled = tf.data.Dataset.range(n_elements).shuffle(n_elements).batch(global_batch)
out["shuffled_seen"] = [[ids.numpy().tolist() for ids in strategy.experimental_distribute_dataset(shuffled)]
                        for _ in range(2)]


# -- distribute_datasets_from_function: uneven per-worker data -------------------------------
def dataset_fn(ctx):
    out["input_context"] = (ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync)
    # worker i holds a different amount: worker 0 the most, the last worker none at all
    count = max(n_elements - 4 * ctx.input_pipeline_id * (n_elements // 6), 0) if \
        ctx.input_pipeline_id < ctx.num_input_pipelines - 1 else 0
    ids = np.arange(count, dtype="int64") + 1000 * ctx.input_pipeline_id
    pairs = np.stack([ids, ids], axis=1).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices({"id": ids, "pair": pairs})
    return ds.batch(ctx.get_per_replica_batch_size(global_batch * size))


from_fn = strategy.distribute_datasets_from_function(dataset_fn)
records = []
iterator = iter(from_fn)
while True:
    try:
        element = iterator.get_next()
    except tf.errors.OutOfRangeError:
        break
    records.append((element["id"].numpy().tolist(), tuple(element["pair"].shape), element["pair"].dtype.name))
out["from_function"] = records


# the same uneven data walked with get_next_as_optional inside tf.function: every worker sees
# its flag turn false at the same step
@tf.function
def optional_step(iterator):
    optional = iterator.get_next_as_optional()
    if optional.has_value():
        return optional.has_value(), optional.get_value()["id"]
    return optional.has_value(), tf.constant([-1], tf.int64)


iterator = iter(from_fn)
walked = []
for _ in range(len(records) + 1):
    flag, ids = optional_step(iterator)
    walked.append((bool(flag), ids.numpy().tolist()))
out["optional_walk"] = walked
write(out_dir, rank, out)
