"""One program run under TensorFlow and under minitf (`python mirrored_replicas_program.py
tensorflow|minitf REPLICAS OUT`): MirroredStrategy over REPLICAS logical CPUs, from replica
contexts to custom training loops and Keras fit. It pickles what it observed to OUT as plain
numpy values, for tests/parity/test_mirrored_replicas_parity.py to compare. TF needs its logical
CPUs made before anything else runs (and one strategy per process: a second one with another
replica count reuses the first one's collective groups), hence a process of its own."""
import pickle
import sys

import numpy as np

if sys.argv[1] == "tensorflow":
    import tensorflow as tf
else:
    import minitf as tf

cpu = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(cpu[0], [tf.config.LogicalDeviceConfiguration()] * 3)
OUT = {}


def plain(value):
    """Tensors as numpy; PerReplica values as ('PerReplica', [components])."""
    if isinstance(value, tf.distribute.DistributedValues):
        return ("PerReplica", [plain(v) for v in value.values])
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in sorted(value.items())}
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    return value


def outcome(fn):
    """fn()'s plain value, or the name of the exception it raised."""
    try:
        return plain(fn())
    except Exception as e:  # noqa: BLE001 (the exception type is what is compared)
        return type(e).__name__


def replica_id():
    return tf.distribute.get_replica_context().replica_id_in_sync_group


def contexts(s, key):
    """Replica contexts, collectives inside `run`, merge_call and cross-replica reductions."""
    as_float = lambda: tf.cast(replica_id(), tf.float32)  # noqa: E731
    OUT[key + "/facts"] = (s.num_replicas_in_sync, tuple(s.extended.worker_devices))
    OUT[key + "/ids"] = plain(s.run(replica_id))
    OUT[key + "/constant"] = plain(s.run(lambda: tf.constant(5.0)))
    OUT[key + "/nested"] = plain(s.run(lambda: (as_float(), {"a": as_float() * 2.0, "b": tf.constant(1)})))
    OUT[key + "/python"] = plain(s.run(lambda: 3))
    values = s.experimental_distribute_values_from_function(
        lambda ctx: tf.constant([float(ctx.replica_id_in_sync_group)] * 2))
    OUT[key + "/from_function"] = plain(values)
    OUT[key + "/per_replica_arg"] = plain(s.run(lambda x, y: x * y, args=(values, tf.constant(3.0))))
    OUT[key + "/from_function_nested"] = plain(s.experimental_distribute_values_from_function(
        lambda ctx: (tf.constant(ctx.replica_id_in_sync_group), {"a": tf.constant(1.0)})))
    per = s.run(lambda: tf.reshape(tf.range(3, dtype=tf.float32), (3, 1)) * (as_float() + 1.0))
    OUT[key + "/reduce"] = [plain(s.reduce(op, per, axis=axis)) for op in ("SUM", "MEAN") for axis in (None, 0)]
    OUT[key + "/gather"] = plain(s.gather(per, axis=0))
    OUT[key + "/local_results"] = [plain(v) for v in s.experimental_local_results(per)]
    OUT[key + "/reduce_plain_sum"] = outcome(lambda: s.reduce("SUM", tf.constant(1.0), axis=None))
    OUT[key + "/reduce_plain_mean"] = outcome(lambda: s.reduce("MEAN", tf.constant([1.0, 3.0]), axis=0))

    def collectives():
        ctx = tf.distribute.get_replica_context()
        x = as_float() + 1.0
        return (ctx.all_reduce("SUM", x), ctx.all_reduce("MEAN", [x, x * 10.0]),
                ctx.all_gather(tf.reshape(x, (1, 1)) * tf.ones((1, 2)), axis=0),
                ctx.num_replicas_in_sync, tf.distribute.in_cross_replica_context())
    OUT[key + "/collectives"] = plain(s.run(collectives))

    def merged():
        def merge_fn(strategy, x, scale=1.0):
            return strategy.reduce("SUM", x, axis=None) * scale, tf.distribute.in_cross_replica_context()
        return tf.distribute.get_replica_context().merge_call(merge_fn, args=(as_float() + 10.0,),
                                                              kwargs={"scale": 2.0})
    OUT[key + "/merge_call"] = plain(s.run(merged))

    def failing():
        if int(replica_id()) == s.num_replicas_in_sync - 1:
            raise ValueError("the last replica fails")
        return tf.constant(1.0)
    OUT[key + "/raises"] = outcome(lambda: s.run(failing))


def datasets(s, key):
    """How distributed datasets split batches between the replicas."""
    def batches(distributed):
        return [[plain(v).tolist() for v in s.experimental_local_results(x)] for x in distributed]
    for n, b in ((11, 4), (9, 4), (10, 5), (7, 3), (4, 4), (13, 6)):
        OUT[f"{key}/data/{n}/{b}"] = batches(s.experimental_distribute_dataset(tf.data.Dataset.range(n).batch(b)))
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    OUT[key + "/data/off"] = batches(s.experimental_distribute_dataset(
        tf.data.Dataset.range(10).batch(4).with_options(options)))
    seen = []

    def dataset_fn(ctx):
        seen.append((ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync))
        return tf.data.Dataset.range(7).batch(2)
    OUT[key + "/data/from_function"] = batches(s.distribute_datasets_from_function(dataset_fn))
    OUT[key + "/data/input_context"] = seen


def initial_weights(model):
    """Seeded weights in [-0.5, 0.5) (variances in [0.5, 1.5))."""
    rng = np.random.default_rng(7)
    values = [rng.uniform(-0.5, 0.5, tuple(w.shape)).astype(np.float32) for w in model.weights]
    model.set_weights([v + 1.0 if "variance" in w.name else v for v, w in zip(values, model.weights)])


def training_data():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((22, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return x, y


def custom_loop(s, key):
    """TF's custom-training-loop recipe: per-example losses averaged over the global batch."""
    x, y = training_data()
    global_batch = 8
    with s.scope():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4, activation="relu"),
                                     tf.keras.layers.Dense(1)])
        initial_weights(model)
        optimizer = tf.keras.optimizers.Adam(0.05)
        loss_metric = tf.keras.metrics.Mean()
        mae = tf.keras.metrics.MeanAbsoluteError()
    dataset = s.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch))

    def step(batch):
        features, labels = batch
        with tf.GradientTape() as tape:
            predictions = model(features, training=True)
            per_example = tf.reduce_sum(tf.square(predictions - labels), axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        loss_metric.update_state(per_example)
        mae.update_state(labels, predictions)
        return loss

    losses = []
    for _ in range(3):
        for batch in dataset:
            losses.append(plain(s.reduce("SUM", s.run(step, args=(batch,)), axis=None)))
    OUT[key + "/loop/losses"] = losses
    OUT[key + "/loop/weights"] = [np.asarray(w) for w in model.get_weights()]
    OUT[key + "/loop/iterations"] = int(optimizer.iterations.numpy())
    OUT[key + "/loop/metrics"] = (plain(loss_metric.result()), plain(mae.result()))


def keras_fit(s, key):
    """Model.fit and evaluate under the strategy's scope (BatchNormalization's moving statistics
    are the first replica's, as in TF). On three replicas TF's fit fails on a
    batch that does not split evenly (AddN of unequal shapes), so that run uses 18 examples in
    batches of 6; two replicas take a short last batch."""
    x, y = training_data()
    batch = 8 if s.num_replicas_in_sync == 2 else 6
    if s.num_replicas_in_sync != 2:
        x, y = x[:18], y[:18]
    with s.scope():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4, activation="tanh"),
                                     tf.keras.layers.BatchNormalization(momentum=0.8), tf.keras.layers.Dense(1)])
        initial_weights(model)
        model.compile(optimizer=tf.keras.optimizers.SGD(0.05, momentum=0.9), loss="mse", metrics=["mae"])
    history = model.fit(x, y, batch_size=batch, epochs=3, shuffle=False, verbose=0)
    OUT[key + "/fit/history"] = {k: [float(v) for v in vs] for k, vs in sorted(history.history.items())}
    OUT[key + "/fit/evaluate"] = [float(v) for v in model.evaluate(x, y, batch_size=batch, verbose=0)]
    OUT[key + "/fit/weights"] = [np.asarray(w) for w in model.get_weights()]
    OUT[key + "/fit/iterations"] = int(model.optimizer.iterations.numpy())


def variable_writes(s, key):
    """Writes to variables of the scope inside `run`: BatchNormalization's moving statistics
    (aggregation NONE: the first replica's copy is what reads see), MEAN and SUM aggregation,
    and a metric (synchronized on read)."""
    x = np.arange(4 * s.num_replicas_in_sync * 2, dtype=np.float32).reshape(-1, 2) ** 1.5
    with s.scope():
        bn = tf.keras.layers.BatchNormalization(momentum=0.5)
        bn.build((None, 2))
        averaged = tf.Variable([0.0, 0.0], aggregation=tf.VariableAggregation.MEAN, trainable=False)
        summed = tf.Variable(1.0, aggregation=tf.VariableAggregation.SUM, trainable=False)
        mean = tf.keras.metrics.Mean()
    scaled = lambda: tf.cast(replica_id(), tf.float32) + 1.0  # noqa: E731
    for batch in s.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(x).batch(len(x))):
        s.run(lambda t: bn(t, training=True), args=(batch,))
    s.run(lambda: averaged.assign(tf.stack([scaled(), scaled() * 3.0])))
    s.run(lambda: summed.assign_add(scaled()))
    s.run(lambda: summed.assign_sub(scaled() * 0.5))
    s.run(lambda: mean.update_state(scaled()))
    OUT[key + "/writes"] = [plain(tf.convert_to_tensor(v)) for v in
                            (bn.moving_mean, bn.moving_variance, averaged, summed)] + [plain(mean.result())]


def synchronized_batch_norm(s, key):
    """BatchNormalization(synchronized=True): statistics of the global batch, and the gradients
    through them, in a custom training step."""
    x = (np.arange(6 * s.num_replicas_in_sync * 2, dtype=np.float32).reshape(-1, 2) % 7) ** 1.3
    with s.scope():
        model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3),
                                     tf.keras.layers.BatchNormalization(synchronized=True, momentum=0.5),
                                     tf.keras.layers.Dense(1)])
        initial_weights(model)
        optimizer = tf.keras.optimizers.SGD(0.1)

    def step(batch):
        with tf.GradientTape() as tape:
            out = model(batch, training=True)
            loss = tf.nn.compute_average_loss(tf.reduce_sum(tf.square(out - 1.0), axis=1), global_batch_size=len(x))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return out
    outputs = []
    for batch in s.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(x).batch(len(x))):
        outputs.append(plain(s.run(step, args=(batch,))))
    OUT[key + "/sync_bn/outputs"] = outputs
    OUT[key + "/sync_bn/weights"] = [np.asarray(w) for w in model.get_weights()]


def gradients_and_loss_scaling(s, key):
    """The gradient through ReplicaContext.all_reduce, and LossScaleOptimizer steps (one
    replica overflowing skips the step on every replica)."""
    weights = tf.constant([[1.0, -2.0], [0.5, 3.0], [2.0, 0.25]])

    def through_all_reduce(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            total = tf.distribute.get_replica_context().all_reduce("SUM", tf.sin(x) * x)
            mean = tf.distribute.get_replica_context().all_reduce("MEAN", x * x)
            loss = tf.reduce_sum(tf.square(total) * tf.gather(weights, replica_id())) + tf.reduce_sum(mean)
        return tape.gradient(loss, x)
    inputs = s.experimental_distribute_values_from_function(
        lambda ctx: tf.constant([0.3, -1.2]) * (float(ctx.replica_id_in_sync_group) + 1.0))
    OUT[key + "/all_reduce_gradient"] = plain(s.run(through_all_reduce, args=(inputs,)))
    with s.scope():
        v = tf.Variable([1.0, 2.0])
        optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1),
                                                                dynamic_growth_steps=2)

    def step(poison):
        with tf.GradientTape() as tape:
            loss = optimizer.scale_loss(tf.reduce_sum(v * v) * poison)
        optimizer.apply_gradients(zip(tape.gradient(loss, [v]), [v]))
    trace = []
    for bad in (None, None, None, s.num_replicas_in_sync - 1):
        poison = s.experimental_distribute_values_from_function(
            lambda ctx: tf.constant(np.inf if ctx.replica_id_in_sync_group == bad else 1.0))
        s.run(step, args=(poison,))
        trace.append((plain(tf.convert_to_tensor(v)), float(optimizer.dynamic_scale.numpy()),
                      int(optimizer.iterations.numpy())))
    OUT[key + "/loss_scale"] = trace


def generators(s, key, tmp):
    """tf.random.Generator streams per replica, and a checkpoint restored into more replicas
    (the tf.random guide's strategy cells)."""
    with s.scope():
        g = tf.random.Generator.from_seed(1)
        OUT[key + "/rng/scope"] = [plain(s.run(lambda: g.normal([2]))) for _ in range(2)]
        OUT[key + "/rng/state"] = plain(tf.convert_to_tensor(g.state))  # TF: a MirroredVariable
        checkpoint = tf.train.Checkpoint(generator=g)
        path = checkpoint.write(tmp)
        OUT[key + "/rng/after_save"] = plain(s.run(lambda: g.uniform([3], 0, 10, dtype=tf.int32)))

    def fresh():
        inner = tf.random.Generator.from_seed(5)
        return tf.stack([inner.normal([]), inner.normal([])])
    OUT[key + "/rng/made_in_run"] = plain(s.run(fresh))
    outside = tf.random.Generator.from_seed(2)
    OUT[key + "/rng/made_outside"] = plain(s.run(lambda: outside.normal([])))
    wider = tf.distribute.MirroredStrategy([f"cpu:{i}" for i in range(s.num_replicas_in_sync + 1)])
    with wider.scope():
        restored = tf.random.Generator.from_seed(99)
        tf.train.Checkpoint(generator=restored).restore(path)
        OUT[key + "/rng/restored_wider"] = plain(wider.run(lambda: restored.normal([])))


x_bn = (np.arange(16, dtype=np.float32).reshape(8, 2) % 5) ** 1.2
bn_sync = tf.keras.layers.BatchNormalization(synchronized=True, momentum=0.5)
OUT["no_strategy/sync_bn"] = (plain(bn_sync(x_bn, training=True)), plain(tf.convert_to_tensor(bn_sync.moving_mean)),
                              plain(tf.convert_to_tensor(bn_sync.moving_variance)))

count = int(sys.argv[2])
strategy = tf.distribute.MirroredStrategy([f"cpu:{i}" for i in range(count)])
name = f"replicas{count}"
contexts(strategy, name)
datasets(strategy, name)
custom_loop(strategy, name)
keras_fit(strategy, name)
variable_writes(strategy, name)
synchronized_batch_norm(strategy, name)
gradients_and_loss_scaling(strategy, name)
if count == 2:  # the 3-replica strategy below would share TF's collective groups with a 3-replica run
    generators(strategy, name, sys.argv[3] + ".ckpt")

with open(sys.argv[3], "wb") as f:
    pickle.dump(OUT, f)
