"""MirroredStrategy over several CPU devices: the replicas of one process (no MPI, no TF needed).

The TF comparison of the same features is tests/parity/test_mirrored_replicas_parity.py; these
tests check the properties that hold whatever TF prints: training on n replicas equals one
replica on the global batch, every example is used once, errors reach the caller and leave no
thread behind, and per-replica state stays per replica."""
import threading

import numpy as np
import pytest

import minitf as tf
from minitf.distribute.values import PerReplica, select_replica


def _replica_id():
    return tf.distribute.get_replica_context().replica_id_in_sync_group


def _strategy(count=2):
    return tf.distribute.MirroredStrategy([f"cpu:{i}" for i in range(count)])


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((22, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    return x, y


def _model(seed=1):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(5, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    rng = np.random.default_rng(seed)
    model.set_weights([rng.uniform(-0.5, 0.5, w.shape).astype(np.float32) for w in model.get_weights()])
    return model


def _custom_loop(strategy, epochs=2, global_batch=8):
    x, y = _data()
    with strategy.scope():
        model = _model()
        optimizer = tf.keras.optimizers.SGD(0.1, momentum=0.9)
    dataset = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch))

    def step(batch):
        features, labels = batch
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum(tf.square(model(features) - labels), axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    losses = [float(strategy.reduce("SUM", strategy.run(step, args=(batch,)), axis=None))
              for _ in range(epochs) for batch in dataset]
    return losses, model.get_weights(), int(optimizer.iterations.numpy())


@pytest.mark.parametrize("count", [2, 3])
def test_replicas_train_as_one_replica_on_the_global_batch(count):
    one = _custom_loop(tf.distribute.MirroredStrategy(["cpu:0"]))
    many = _custom_loop(_strategy(count))
    np.testing.assert_allclose(many[0], one[0], rtol=1e-5)
    for a, b in zip(many[1], one[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert many[2] == one[2] == 6  # one optimizer step per global batch, not one per replica


def test_fit_and_evaluate_on_replicas_equal_one_process():
    x, y = _data()
    results = []
    for strategy in (None, _strategy(2)):
        scope = strategy.scope() if strategy else tf.distribute.get_strategy().scope()
        with scope:
            model = _model()
            model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
        history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0).history
        results.append((history, model.evaluate(x, y, batch_size=8, verbose=0), model.get_weights()))
    (h1, e1, w1), (h2, e2, w2) = results
    for key in h1:
        np.testing.assert_allclose(h2[key], h1[key], rtol=1e-5)
    np.testing.assert_allclose(e2, e1, rtol=1e-5)
    for a, b in zip(w2, w1):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("count", [2, 3])
@pytest.mark.parametrize("size,batch", [(11, 4), (9, 4), (10, 5), (13, 6)])
def test_distributed_dataset_gives_every_example_once(count, size, batch):
    strategy = _strategy(count)
    seen = []
    for element in strategy.experimental_distribute_dataset(tf.data.Dataset.range(size).batch(batch)):
        parts = strategy.experimental_local_results(element)
        assert len(parts) == count
        sizes = [int(p.shape[0]) for p in parts]
        assert max(sizes) - min(sizes) <= -(-max(sum(sizes), 1) // count)  # the ceil rule's spread
        seen.extend(int(v) for p in parts for v in p.numpy())
    assert seen == list(range(size))


def test_datasets_from_function_hand_out_consecutive_elements():
    strategy = _strategy(3)
    contexts = []

    def dataset_fn(ctx):
        contexts.append((ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync))
        return tf.data.Dataset.range(7).batch(2)
    steps = [[p.numpy().tolist() for p in strategy.experimental_local_results(e)]
             for e in strategy.distribute_datasets_from_function(dataset_fn)]
    assert contexts == [(1, 0, 3)]
    assert steps == [[[0, 1], [2, 3], [4, 5]], [[6], [], []]]


def test_run_returns_per_replica_values_and_keeps_shared_objects():
    strategy = _strategy(2)
    with strategy.scope():
        v = tf.Variable(1.0)
    ids, same, plain = strategy.run(lambda: (_replica_id(), v, 3))
    assert isinstance(ids, PerReplica) and isinstance(ids, tf.distribute.DistributedValues)
    assert [int(t) for t in strategy.experimental_local_results(ids)] == [0, 1]
    assert same is v and plain == 3
    assert repr(ids).startswith("PerReplica:{\n  0: <tf.Tensor: shape=(), dtype=int32, numpy=0>,")
    assert int(strategy.reduce("SUM", ids, axis=None)) == 1


def test_a_replica_error_reaches_the_caller_and_leaves_no_thread():
    strategy = _strategy(3)
    before = threading.active_count()

    def step():
        value = tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(1.0))
        if int(_replica_id()) == 1:
            raise KeyError("replica one")
        return value
    with pytest.raises(KeyError, match="replica one"):
        strategy.run(step)
    assert threading.active_count() == before
    # the strategy still works afterwards
    assert float(strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)) == 3.0


def test_replicas_at_different_cross_replica_points_fail_clearly():
    strategy = _strategy(2)

    def uneven():
        ctx = tf.distribute.get_replica_context()
        if int(_replica_id()) == 0:
            return ctx.all_reduce("SUM", tf.constant(1.0))
        return tf.constant(0.0)
    with pytest.raises(RuntimeError, match="different cross-replica points.*replica 0: allreduce.*replica 1: returned"):
        strategy.run(uneven)

    def mismatched_shapes():
        return tf.distribute.get_replica_context().all_reduce("SUM", tf.ones([int(_replica_id()) + 1]))
    with pytest.raises(ValueError, match="differs in shape"):
        strategy.run(mismatched_shapes)


def test_run_inside_run_and_several_gpus_are_refused():
    strategy = _strategy(2)
    with pytest.raises(RuntimeError, match="cross-replica context"):
        strategy.run(lambda: strategy.run(lambda: 1))
    with pytest.raises(ValueError, match="one GPU replica per process"):
        tf.distribute.MirroredStrategy(["gpu:0", "gpu:1"])


def test_replicas_inherit_name_scope_and_summary_writer(tmp_path):
    strategy = _strategy(2)
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=4), tf.name_scope("outer"):
        names, written = strategy.run(lambda: (tf.Variable(1.0, name="v").name, tf.summary.scalar("x", 1.0)))
    assert strategy.experimental_local_results(names) == ("outer/v:0", "outer/v:0")
    assert all(bool(w) for w in strategy.experimental_local_results(written))


def test_each_replica_keeps_its_own_batch_norm_statistics():
    strategy = _strategy(2)
    with strategy.scope():
        bn = tf.keras.layers.BatchNormalization(momentum=0.5)
        bn.build((None, 1))
    batch = PerReplica([tf.constant([[2.0], [4.0]]), tf.constant([[20.0], [40.0]])])
    strategy.run(lambda t: bn(t, training=True), args=(batch,))
    # cross-replica reads see the first replica's copy: 0.5 * 0 + 0.5 * mean(2, 4)
    np.testing.assert_allclose(bn.moving_mean.numpy(), [1.5])
    seen = strategy.run(lambda: tf.identity(bn.moving_mean))
    np.testing.assert_allclose([t.numpy() for t in strategy.experimental_local_results(seen)], [[1.5], [15.0]])
    bn.moving_mean.assign([7.0])  # a write outside the replicas sets every copy
    seen = strategy.run(lambda: tf.identity(bn.moving_mean))
    np.testing.assert_allclose([t.numpy() for t in strategy.experimental_local_results(seen)], [[7.0], [7.0]])


def test_aggregated_writes_combine_the_replicas():
    strategy = _strategy(3)
    with strategy.scope():
        mean = tf.Variable(0.0, aggregation=tf.VariableAggregation.MEAN, trainable=False)
        total = tf.Variable(10.0, aggregation=tf.VariableAggregation.SUM, trainable=False)
        first = tf.Variable(0.0, aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA, trainable=False)
        metric = tf.keras.metrics.Sum()
    one_based = lambda: tf.cast(_replica_id(), tf.float32) + 1.0  # noqa: E731
    strategy.run(lambda: (mean.assign(one_based()), total.assign_add(one_based()), first.assign(one_based()),
                          metric.update_state(one_based())))
    assert float(mean.numpy()) == 2.0
    assert float(total.numpy()) == 16.0
    assert float(first.numpy()) == 1.0
    assert float(metric.result().numpy()) == 6.0


def test_generators_give_each_replica_its_own_stream():
    strategy = _strategy(2)
    with strategy.scope():
        g = tf.random.Generator.from_seed(3)
    first = [t.numpy() for t in strategy.experimental_local_results(strategy.run(lambda: g.normal([4])))]
    second = [t.numpy() for t in strategy.experimental_local_results(strategy.run(lambda: g.normal([4])))]
    assert not np.allclose(first[0], first[1])
    assert not np.allclose(first[0], second[0])  # each replica's stream moves on
    unshared = tf.random.Generator.from_seed(3)
    plain = [unshared.normal([4]).numpy(), unshared.normal([4]).numpy()]
    assert not np.allclose(first[0], plain[0])  # the replica id is hashed into the key
    np.testing.assert_array_equal(g.state.numpy(), unshared.state.numpy())  # every copy advanced alike


def test_synchronized_batch_norm_equals_batch_norm_over_the_global_batch():
    x = np.random.default_rng(5).standard_normal((8, 3)).astype(np.float32) * 3.0 + 1.0

    def step(model, batch):
        with tf.GradientTape() as tape:
            out = model(batch, training=True)
            loss = tf.nn.compute_average_loss(tf.reduce_sum(out * out * out, axis=1), global_batch_size=8)
        return out, tape.gradient(loss, model.trainable_variables)

    def build(synchronized):
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.BatchNormalization(
            synchronized=synchronized, center=True, scale=True, momentum=0.5)])
        model.set_weights([np.full(3, 1.5, np.float32), np.full(3, 0.2, np.float32),
                           np.zeros(3, np.float32), np.ones(3, np.float32)])
        return model
    single = build(False)
    out_one, grads_one = step(single, tf.constant(x))
    strategy = _strategy(2)
    with strategy.scope():
        model = build(True)
    batch = PerReplica([tf.constant(x[:4]), tf.constant(x[4:])])
    outs, grads = strategy.run(lambda b: step(model, b), args=(batch,))
    np.testing.assert_allclose(np.concatenate([t.numpy() for t in strategy.experimental_local_results(outs)]),
                               out_one.numpy(), rtol=1e-4, atol=1e-5)
    for summed, one in zip(grads, grads_one):  # the replicas' gradients add up to the global batch's
        total = sum(t.numpy() for t in strategy.experimental_local_results(summed))
        np.testing.assert_allclose(total, one.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(model.layers[0].moving_mean.numpy(), single.layers[0].moving_mean.numpy(), rtol=1e-5)


@pytest.mark.parametrize("reduce_op", ["SUM", "MEAN"])
def test_all_reduce_gradient_matches_finite_differences(reduce_op):
    """The gradient each replica gets through `all_reduce` is the derivative of the replicas'
    summed loss with respect to its own input (float64, central differences)."""
    strategy = _strategy(2)
    weights = tf.constant([[1.0, -2.0], [0.5, 3.0]], dtype=tf.float64)

    def replica_loss(x):
        reduced = tf.distribute.get_replica_context().all_reduce(reduce_op, tf.sin(x) * x)
        scale = tf.cast(_replica_id(), tf.float64) + 1.0
        return tf.reduce_sum(tf.square(reduced) * weights[int(_replica_id())]) * scale

    def losses_and_grads(x0, x1):
        def fn(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                loss = replica_loss(x)
            return loss, tape.gradient(loss, x)
        loss, grad = strategy.run(fn, args=(PerReplica([tf.constant(x0), tf.constant(x1)]),))
        total = sum(float(t) for t in strategy.experimental_local_results(loss))
        return total, [g.numpy() for g in strategy.experimental_local_results(grad)]

    inputs = [np.array([0.3, -1.2]), np.array([0.7, 0.4])]
    _, analytic = losses_and_grads(*inputs)
    h = 1e-6
    for r in range(2):
        for i in range(2):
            up = [x.copy() for x in inputs]
            down = [x.copy() for x in inputs]
            up[r][i] += h
            down[r][i] -= h
            numeric = (losses_and_grads(*up)[0] - losses_and_grads(*down)[0]) / (2 * h)
            np.testing.assert_allclose(analytic[r][i], numeric, rtol=1e-6, atol=1e-8)


def test_the_replica_collective_meets_every_local_replica():
    """The Collective contract inside `run` (the engine's gradient sum, metrics and loss scaling
    reach the replicas through it); outside `run` it is the one-process group."""
    strategy = _strategy(3)
    collective = strategy.extended._collective

    def calls():
        me = int(_replica_id())
        value = np.array([me + 1.0, 10.0 * me])
        return (collective.rank, collective.size,
                [a.tolist() for a in collective.allreduce([value, np.array(me)], "sum")],
                collective.allreduce([value], "mean")[0].tolist(),
                collective.allreduce([value], "max")[0].tolist(),
                collective.allreduce([value], "min")[0].tolist(),
                collective.broadcast([value], root=2)[0].tolist(),
                [a.tolist() for a in collective.allgather(value[:me])],
                collective.broadcast_object({"me": me}, root=1),
                collective.allgather_object(me),
                collective.barrier())
    results = strategy.run(calls)
    expected_common = ([[6.0, 30.0], 3], [2.0, 10.0], [3.0, 20.0], [1.0, 0.0], [3.0, 20.0],
                       [[], [2.0], [3.0, 20.0]], {"me": 1}, [0, 1, 2], None)
    for me in range(3):
        result = select_replica(results, me)
        assert result[:2] == (me, 3)
        assert tuple(result[2:]) == expected_common
    assert (collective.rank, collective.size) == (0, 3)
    assert [a.tolist() for a in collective.allreduce([np.array([1.0])], "sum")] == [[1.0]]
    with pytest.raises(ValueError, match="unknown reduction"):
        collective.allreduce([np.array([1.0])], "prod")


def test_loss_scale_optimizer_counts_steps_once_and_replicas_agree_on_overflow():
    strategy = _strategy(2)
    with strategy.scope():
        v = tf.Variable([1.0, 2.0])
        optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1),
                                                                dynamic_growth_steps=3)

    def step(poison):
        with tf.GradientTape() as tape:
            loss = optimizer.scale_loss(tf.reduce_sum(v * v) * poison)
        optimizer.apply_gradients(zip(tape.gradient(loss, [v]), [v]))

    fine = PerReplica([tf.constant(1.0), tf.constant(1.0)])
    strategy.run(step, args=(fine,))
    scale = float(optimizer.dynamic_scale.numpy())  # made at the first step
    assert int(optimizer.step_counter.numpy()) == 1  # one step, not one per replica
    assert int(optimizer.iterations.numpy()) == 1
    np.testing.assert_allclose(v.numpy(), [1.0 - 0.1 * 4.0, 2.0 - 0.1 * 8.0], rtol=1e-6)  # both replicas' gradients
    before = v.numpy()
    overflow = PerReplica([tf.constant(1.0), tf.constant(np.inf)])  # only the second replica overflows
    strategy.run(step, args=(overflow,))
    np.testing.assert_array_equal(v.numpy(), before)  # every replica skipped the step
    assert float(optimizer.dynamic_scale.numpy()) == scale / 2  # halved once
    assert int(optimizer.step_counter.numpy()) == 0
