"""tf.distribute in one process: the default strategy, OneDevice/Mirrored/MultiWorkerMirrored
with one replica, contexts and their errors, input, options, and the optimizer's gradient
all-reduce (through a stand-in group of two replicas)."""
import sys

import numpy as np
import pytest

import minitf as tf
from minitf import distribution_context as _context
from minitf.distribute import mirrored
from minitf.distribute.collective import LocalCollective
from minitf.distribute.strategy import Strategy, StrategyExtended


class TwinCollective(LocalCollective):
    """A stand-in group of two replicas whose other member always holds the same values as
    this one: sums double, broadcasts deliver `root_values` when set. Counts the calls."""

    size = 2

    def __init__(self):
        self.calls = []
        self.root_values = None

    def allreduce(self, arrays, op="sum"):
        self.calls.append(("allreduce", len(arrays)))
        return [a * 2 if op == "sum" else a.copy() for a in arrays]

    def broadcast(self, arrays, root=0):
        self.calls.append(("broadcast", len(arrays)))
        if self.root_values is not None:
            return [np.full_like(a, self.root_values) for a in arrays]
        return [a.copy() for a in arrays]


class TwinStrategy(Strategy):
    def __init__(self):
        super().__init__(StrategyExtended(self, TwinCollective(), ("/job:localhost/replica:0/task:0/device:CPU:0",)))
        mirrored._install_hook()


# -- contexts ---------------------------------------------------------------------------------
def test_default_strategy_outside_every_scope():
    s = tf.distribute.get_strategy()
    assert s.num_replicas_in_sync == 1
    assert not tf.distribute.has_strategy()
    assert not tf.distribute.in_cross_replica_context()
    ctx = tf.distribute.get_replica_context()
    assert ctx is not None and ctx.num_replicas_in_sync == 1 and int(ctx.replica_id_in_sync_group) == 0
    assert s.run(lambda x: x + 1, args=(1.0,)) == 2.0
    np.testing.assert_allclose(s.reduce("SUM", tf.constant([1.0, 2.0]), axis=None), [1.0, 2.0])
    np.testing.assert_allclose(s.reduce("MEAN", tf.constant([1.0, 2.0]), axis=0), 1.5)
    with s.scope():
        assert not tf.distribute.has_strategy()


def test_scope_and_run_contexts():
    m = tf.distribute.MirroredStrategy()
    with m.scope():
        assert tf.distribute.has_strategy() and tf.distribute.in_cross_replica_context()
        assert tf.distribute.get_replica_context() is None
        assert tf.distribute.get_strategy() is m

    def fn():
        ctx = tf.distribute.get_replica_context()
        return (type(ctx).__name__, tf.distribute.in_cross_replica_context(), tf.distribute.get_strategy() is m,
                ctx.merge_call(lambda strategy: tf.distribute.in_cross_replica_context()))

    assert m.run(fn) == ("ReplicaContext", False, True, True)
    assert not tf.distribute.has_strategy()  # run left no context behind


def test_mixing_strategies_and_cross_replica_methods_raise_runtime_error():
    m, o = tf.distribute.MirroredStrategy(), tf.distribute.OneDeviceStrategy("/cpu:0")
    with m.scope():
        with pytest.raises(RuntimeError, match="Mixing different tf.distribute.Strategy"):
            with o.scope():
                pass
    for method in (lambda: m.reduce("SUM", 1.0, axis=None), lambda: m.scope().__enter__(),
                   lambda: m.gather(tf.constant([1.0]), axis=0)):
        with pytest.raises(RuntimeError, match="cross-replica context"):
            m.run(method)
    assert not tf.distribute.has_strategy()


def test_reduce_ops_and_values():
    m = tf.distribute.MirroredStrategy()
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(m.reduce(tf.distribute.ReduceOp.SUM, x, axis=None), x.numpy())
    np.testing.assert_allclose(m.reduce("MEAN", x, axis=0), [2.0, 3.0])
    np.testing.assert_allclose(m.reduce("SUM", x, axis=0), [4.0, 6.0])
    np.testing.assert_allclose(m.reduce("MEAN", x, axis=[0, 1]), 2.5)
    np.testing.assert_allclose(m.reduce("MEAN", tf.zeros([0, 2]), axis=0), [0.0, 0.0])  # empty: no NaN
    with pytest.raises(ValueError, match="'PROD' is not a valid ReduceOp"):
        m.reduce("PROD", x, axis=None)
    assert m.experimental_local_results(x)[0] is x
    np.testing.assert_allclose(m.gather(x, axis=1), x.numpy())
    assert list(tf.distribute.ReduceOp) == [tf.distribute.ReduceOp.SUM, tf.distribute.ReduceOp.MEAN]
    assert tf.distribute.ReduceOp.from_variable_aggregation(tf.VariableAggregation.MEAN) is \
        tf.distribute.ReduceOp.MEAN


def test_devices_and_the_several_gpus_error():
    assert tf.distribute.OneDeviceStrategy("/cpu:0").extended.worker_devices == \
        ("/job:localhost/replica:0/task:0/device:CPU:0",)
    with pytest.raises(ValueError, match="MultiWorkerMirroredStrategy"):
        tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
    with pytest.raises(ValueError, match="empty"):
        tf.distribute.MirroredStrategy([])


def test_multi_worker_strategy_without_a_launcher_has_one_replica(monkeypatch):
    for var in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS",
                "TF_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    s = tf.distribute.MultiWorkerMirroredStrategy()
    assert s.num_replicas_in_sync == 1 and not s.extended._in_multi_worker_mode()
    assert s.cluster_resolver.task_type == "worker" and s.cluster_resolver.task_id == 0
    assert s.extended.should_checkpoint and _context.is_chief()
    assert s.cluster_resolver.cluster_spec().as_dict() == {"worker": ["mpi-rank-0"]}
    old = tf.distribute.experimental.MultiWorkerMirroredStrategy(
        tf.distribute.experimental.CollectiveCommunication.RING)
    assert old.num_replicas_in_sync == 1
    assert old.extended._communication_options.implementation.name == "RING"


def test_multi_worker_launch_without_mpi4py_names_the_mpi_extra(monkeypatch):
    monkeypatch.setenv("PMI_SIZE", "2")
    monkeypatch.setenv("PMI_RANK", "0")
    monkeypatch.delenv("TF_CONFIG", raising=False)
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # what a missing package looks like to import
    with pytest.raises(ImportError, match=r'minitf\[mpi\]'):
        tf.distribute.MultiWorkerMirroredStrategy()


def test_options_and_input_context():
    co = tf.distribute.experimental.CommunicationOptions()
    assert (co.bytes_per_pack, co.timeout_seconds, co.implementation) == \
        (0, None, tf.distribute.experimental.CommunicationImplementation.AUTO)
    assert tf.distribute.experimental.CollectiveCommunication is \
        tf.distribute.experimental.CommunicationImplementation
    with pytest.raises(ValueError, match="bytes_per_pack"):
        tf.distribute.experimental.CommunicationOptions(bytes_per_pack=-1)
    ic = tf.distribute.InputContext(2, 1, 4)
    assert (ic.num_input_pipelines, ic.input_pipeline_id, ic.num_replicas_in_sync) == (2, 1, 4)
    assert ic.get_per_replica_batch_size(8) == 2
    with pytest.raises(ValueError, match="not divisible"):
        ic.get_per_replica_batch_size(7)


def test_tf_config_cluster_resolver(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": 1}}')
    r = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert (r.task_type, r.task_id) == ("worker", 1)
    assert r.cluster_spec().as_dict() == {"worker": ["a:1", "b:2"]}
    assert r.cluster_spec().num_tasks("worker") == 2


# -- input ------------------------------------------------------------------------------------
def test_distributed_datasets_in_one_process():
    m = tf.distribute.MirroredStrategy()
    ds = tf.data.Dataset.range(10).batch(4)
    assert [b.numpy().tolist() for b in m.experimental_distribute_dataset(ds)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    dd = m.distribute_datasets_from_function(
        lambda ic: tf.data.Dataset.range(5 * ic.num_input_pipelines).batch(2))
    it = iter(dd)
    assert [it.get_next().numpy().tolist() for _ in range(3)] == [[0, 1], [2, 3], [4]]
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        m.experimental_distribute_dataset([1, 2])


# -- gradients and variables under several replicas -----------------------------------------
def _grads_step(strategy, skip=False, **kw):
    v = tf.Variable([1.0, 2.0])
    w = tf.Variable([[1.0]])
    opt = tf.keras.optimizers.SGD(0.5, **kw)

    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(v * 3.0) + tf.reduce_sum(w)
        opt.apply_gradients(zip(tape.gradient(loss, [v, w]), [v, w]), skip_gradients_aggregation=skip)

    strategy.run(step)
    return v.numpy(), w.numpy()


def test_apply_gradients_sums_over_replicas_in_one_collective():
    s = TwinStrategy()
    v, w = _grads_step(s)
    np.testing.assert_allclose(v, [1.0 - 0.5 * 6.0, 2.0 - 0.5 * 6.0])  # the twin's gradient added
    np.testing.assert_allclose(w, [[1.0 - 0.5 * 2.0]])
    assert s.extended._collective.calls == [("allreduce", 2)]  # both gradients, one call


def test_skip_gradients_aggregation_and_clipping_after_the_sum():
    s = TwinStrategy()
    v, _ = _grads_step(s, skip=True)
    np.testing.assert_allclose(v, [1.0 - 0.5 * 3.0, 2.0 - 0.5 * 3.0])
    assert s.extended._collective.calls == []
    v, _ = _grads_step(TwinStrategy(), clipvalue=4.0)  # summed 6 clipped to 4
    np.testing.assert_allclose(v, [1.0 - 2.0, 2.0 - 2.0])


def test_variables_of_a_multi_replica_scope_are_summed_outside_it_too():
    s = TwinStrategy()
    with s.scope():
        v = tf.Variable([1.0, 2.0])
        opt = tf.keras.optimizers.SGD(0.5)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * 3.0)
    opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))  # outside scope and run
    np.testing.assert_allclose(v.numpy(), [1.0 - 0.5 * 6.0, 2.0 - 0.5 * 6.0])
    assert s.extended._collective.calls[-1] == ("allreduce", 1)


def test_no_strategy_no_collective():
    v, w = _grads_step(tf.distribute.get_strategy())
    np.testing.assert_allclose(v, [-0.5, 0.5])


def test_replica_count_for_the_loss_helpers():
    assert _context.replicas_in_sync() == 1 and not _context.in_cross_replica()
    s = TwinStrategy()
    with s.scope():
        assert _context.replicas_in_sync() == 2 and _context.in_cross_replica()
        assert s.run(lambda: (_context.replicas_in_sync(), _context.in_cross_replica())) == (2, False)


def test_variables_created_in_scope_take_rank_zeros_value():
    s = TwinStrategy()
    s.extended._collective.root_values = 7.0
    with s.scope():
        layer = tf.keras.layers.Dense(2)
        layer.build((None, 3))
        counter = tf.Variable(0, trainable=False)
    np.testing.assert_array_equal(layer.kernel.numpy(), np.full((3, 2), 7.0))
    assert int(counter.numpy()) == 0  # non-trainable variables start from their constants
    assert s.extended.variable_created_in_scope(layer.kernel)
    outside = tf.Variable([1.0])
    np.testing.assert_array_equal(outside.numpy(), [1.0])
    assert not s.extended.variable_created_in_scope(outside)

    def build_inside():
        return tf.Variable([2.0, 3.0])
    np.testing.assert_array_equal(s.run(build_inside).numpy(), [7.0, 7.0])  # lazily, inside run too


def test_experimental_set_strategy_and_options_objects():
    m = tf.distribute.MirroredStrategy()
    tf.distribute.experimental_set_strategy(m)
    try:
        assert tf.distribute.get_strategy() is m and tf.distribute.in_cross_replica_context()
    finally:
        tf.distribute.experimental_set_strategy(None)
    assert not tf.distribute.has_strategy()
    options = tf.distribute.InputOptions(experimental_fetch_to_device=False)
    assert options.experimental_replication_mode is tf.distribute.InputReplicationMode.PER_WORKER
    batches = m.experimental_distribute_dataset(tf.data.Dataset.range(3).batch(2), options=options)
    assert [b.numpy().tolist() for b in batches] == [[0, 1], [2]]
    assert m.run(lambda: 5, options=tf.distribute.RunOptions()) == 5
