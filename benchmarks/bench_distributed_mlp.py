"""Scaling of a data-parallel training step: the MLP of bench_models (784-512-512-10, Adam) on a
global batch of 256 under MultiWorkerMirroredStrategy with 1 and with 2 processes, one BLAS thread
each (the CI machine has 2 cores), and, for the cost of running replicas in one process, under
MirroredStrategy over 2 logical CPUs in one process (its replicas take turns, so this measures
the overhead of splitting the batch and of the turns, not a speed-up).

Run: python benchmarks/bench_distributed_mlp.py     (needs the mpi extra: mpi4py and mpiexec)
The driver launches `mpiexec -n 1`, `mpiexec -n 2` and one-process 2-replica runs of this script in
turns; each run times its steps after a warm-up and prints the median step time. Reported: median
and spread over the rounds, examples per second, and the ratios to one process of one replica.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

GLOBAL_BATCH, STEPS, WARMUP = 256, 30, 5


def worker(local_replicas=0):
    """One process of the job: build the model in the strategy's scope and time training steps
    (with `local_replicas`, one process running that many replicas of MirroredStrategy)."""
    import numpy as np  # lazy: the driver needs neither numpy nor minitf

    import minitf as tf

    if local_replicas:
        strategy = tf.distribute.MirroredStrategy([f"cpu:{i}" for i in range(local_replicas)])
        rank = 0
    else:
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        rank = strategy.cluster_resolver.task_id
    replicas = strategy.num_replicas_in_sync
    local = GLOBAL_BATCH // replicas

    def batch(ctx):
        rng = np.random.default_rng(rank + ctx.replica_id_in_sync_group)
        return (tf.constant(rng.normal(size=(local, 784)).astype("float32")),
                tf.constant(rng.integers(0, 10, local).astype("int32")))
    x, y = strategy.experimental_distribute_values_from_function(batch) if local_replicas else batch(
        tf.distribute.experimental.ValueContext(rank, replicas))
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(512, activation="relu"),
                                     tf.keras.layers.Dense(512, activation="relu"), tf.keras.layers.Dense(10)])
        optimizer = tf.keras.optimizers.Adam(1e-3)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")

    def step(x, y):
        with tf.GradientTape() as tape:
            per_example = loss_fn(y, model(x, training=True))
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))

    for _ in range(WARMUP):
        strategy.run(step, args=(x, y))
    times = []
    for _ in range(STEPS):
        start = time.perf_counter()
        strategy.run(step, args=(x, y))
        times.append(time.perf_counter() - start)
    if rank == 0:
        print(json.dumps({"replicas": replicas, "median": statistics.median(times)}), flush=True)


def launch(n):
    """Median step seconds of one `mpiexec -n n` run ("local" for one process of 2 replicas)."""
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    mpiexec = mpiexec if os.path.exists(mpiexec) else shutil.which("mpiexec")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MINITF_NUM_THREADS="1")
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # users do not have these
        env.pop(name, None)
    command = ([sys.executable, __file__, "--worker", "--local", "2"] if n == "local"
               else [mpiexec, "-n", str(n), sys.executable, __file__, "--worker"])
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["median"]


def main(rounds=5):
    if shutil.which("mpiexec") is None and not os.path.exists(
            os.path.join(os.path.dirname(sys.executable), "mpiexec")):
        sys.exit('bench_distributed_mlp: needs mpiexec (pip install "minitf[mpi]")')
    times = {1: [], 2: [], "local": []}
    for _ in range(rounds):
        for n in times:
            times[n].append(launch(n))
    print(f"== MLP step, global batch {GLOBAL_BATCH}, 1 BLAS thread per process")
    labels = {1: "MultiWorkerMirrored, 1 process ", 2: "MultiWorkerMirrored, 2 processes",
              "local": "Mirrored, 2 replicas, 1 process"}
    medians = {}
    for n, ts in times.items():
        medians[n] = statistics.median(ts)
        print(f"  {labels[n]} {medians[n] * 1e3:8.2f} ms/step "
              f"(spread {min(ts) * 1e3:.2f}-{max(ts) * 1e3:.2f})  {GLOBAL_BATCH / medians[n]:8.0f} examples/s")
    print(f"  speed-up of 2 processes over 1: {medians[1] / medians[2]:.2f}x (ideal 2x)")
    print(f"  2 replicas in one process over 1 replica: {medians['local'] / medians[1]:.2f}x the time")


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker(int(sys.argv[sys.argv.index("--local") + 1]) if "--local" in sys.argv else 0)
    else:
        main()
