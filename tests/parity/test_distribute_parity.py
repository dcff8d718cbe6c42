"""tf.distribute in one process against TF 2.21: the default strategy and MirroredStrategy on
the CPU give the same replica counts, contexts, run/reduce/all_reduce/gather results, distributed
input, optimizer steps and exception types."""
import numpy as np
import pytest

import minitf


def _outcome(fn):
    """fn()'s value, or the name of the exception it raised."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 (the exception type is the result compared)
        return type(e).__name__


def _plain(value):
    """Tensors (nested) as numpy, for comparison across the two libraries."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    return value


def _scenario(tf):
    """The same program on `tf` (TensorFlow or minitf): a dict of what it observed."""
    out = {}
    d = tf.distribute.get_strategy()
    out["default"] = (type(d).__name__, d.num_replicas_in_sync, tf.distribute.has_strategy(),
                      tf.distribute.in_cross_replica_context(), tf.distribute.get_replica_context() is not None,
                      int(tf.distribute.get_replica_context().replica_id_in_sync_group))
    out["default_run"] = _plain(d.run(lambda x: x * 2.0, args=(tf.constant([1.0, 2.0]),)))
    out["default_reduce"] = _plain([d.reduce("SUM", tf.constant([1.0, 2.0]), axis=None),
                                    d.reduce("MEAN", tf.constant([1.0, 2.0]), axis=0)])
    with d.scope():
        out["default_scope"] = (tf.distribute.has_strategy(), tf.distribute.in_cross_replica_context())

    m = tf.distribute.MirroredStrategy(["/cpu:0"])
    out["mirrored"] = (m.num_replicas_in_sync, m.extended.worker_devices)
    with m.scope():
        out["scope"] = (tf.distribute.has_strategy(), tf.distribute.in_cross_replica_context(),
                        tf.distribute.get_replica_context() is None, tf.distribute.get_strategy() is m)
        out["mixing"] = _outcome(lambda: tf.distribute.OneDeviceStrategy("/cpu:0").scope().__enter__())
        v = tf.Variable([1.0, -2.0, 3.0])
        opt = tf.keras.optimizers.SGD(0.1, momentum=0.5)
    out["after_scope"] = tf.distribute.has_strategy()

    def step(x):
        ctx = tf.distribute.get_replica_context()
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum(tf.square(v * x), axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=4)
        opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))
        seen = (int(ctx.replica_id_in_sync_group), ctx.num_replicas_in_sync,
                tf.distribute.in_cross_replica_context(), tf.distribute.has_strategy())
        reduce_inside = _outcome(lambda: m.reduce("SUM", x, axis=None))
        scope_inside = _outcome(lambda: m.scope().__enter__())
        summed = ctx.all_reduce(tf.distribute.ReduceOp.SUM, loss)
        merged = ctx.merge_call(lambda s, t: (tf.distribute.in_cross_replica_context(), s is m, t * 1.0),
                                args=(loss,))
        return loss, seen, reduce_inside, scope_inside, summed, merged

    x = tf.constant([[1.0, 0.5, 2.0], [0.0, 1.0, -1.0]])
    for _ in range(2):
        result = m.run(step, args=(x,))
    loss, seen, reduce_inside, scope_inside, summed, merged = result
    out["run"] = _plain([loss, seen, reduce_inside, scope_inside, summed, merged[0], merged[1], merged[2]])
    out["weights"] = v.numpy()
    out["iterations"] = int(opt.iterations.numpy())
    y = tf.constant([[1.0, 2.0], [3.0, 5.0]])
    out["reduce"] = _plain([m.reduce(tf.distribute.ReduceOp.SUM, y, axis=None), m.reduce("MEAN", y, axis=None),
                            m.reduce("SUM", y, axis=0), m.reduce("MEAN", y, axis=0), m.reduce("MEAN", y, axis=1),
                            m.reduce("MEAN", y * 2.0, axis=(0, 1))])
    out["gather"] = _plain([m.gather(y, axis=0), m.gather(y, axis=1)])
    out["local"] = len(m.experimental_local_results(y))
    out["bad_op"] = _outcome(lambda: m.reduce("PROD", y, axis=None))
    out["bad_op_case"] = _outcome(lambda: tf.distribute.ReduceOp("sum"))
    out["reduce_ops"] = [op.name for op in tf.distribute.ReduceOp]
    ds = tf.data.Dataset.range(10).batch(4)
    out["dist_dataset"] = [b.numpy().tolist() for b in m.experimental_distribute_dataset(ds)]
    pairs = tf.data.Dataset.from_tensor_slices((np.arange(6.0), np.arange(6))).batch(4)
    out["dist_pairs"] = [(a.numpy().tolist(), b.numpy().tolist()) for a, b in m.experimental_distribute_dataset(pairs)]
    contexts = []

    def dataset_fn(ctx):
        contexts.append((ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync,
                         ctx.get_per_replica_batch_size(8)))
        return tf.data.Dataset.range(5).batch(ctx.get_per_replica_batch_size(2))

    it = iter(m.distribute_datasets_from_function(dataset_fn))
    out["from_function"] = [it.get_next().numpy().tolist() for _ in range(3)]
    out["from_function_end"] = _outcome(it.get_next)
    out["input_contexts"] = contexts
    ic = tf.distribute.InputContext()
    out["input_context"] = (ic.num_input_pipelines, ic.input_pipeline_id, ic.num_replicas_in_sync, str(ic),
                            _outcome(lambda: tf.distribute.InputContext(1, 0, 4).get_per_replica_batch_size(7)))
    co = tf.distribute.experimental.CommunicationOptions()
    out["options"] = (co.bytes_per_pack, co.timeout_seconds, co.implementation.name,
                      [i.name for i in tf.distribute.experimental.CommunicationImplementation],
                      tf.distribute.experimental.CollectiveCommunication.RING.name,
                      _outcome(lambda: tf.distribute.experimental.CommunicationOptions(bytes_per_pack=-1)))
    out["average_loss"] = _plain([tf.nn.compute_average_loss(tf.constant([1.0, 2.0, 3.0]), global_batch_size=6),
                                  tf.nn.compute_average_loss(tf.constant([1.0, 2.0]),
                                                             sample_weight=tf.constant([0.5, 2.0]),
                                                             global_batch_size=4)])
    mirrored = tf.distribute.MirroredStrategy(["/cpu:0"])
    with mirrored.scope():  # cross-replica context: the replica's batch is unknown there
        out["average_loss_cross_replica"] = _outcome(lambda: tf.nn.compute_average_loss(tf.constant([1.0])))
        out["regularization_cross_replica"] = _outcome(lambda: tf.nn.scale_regularization_loss(1.0))
    out["average_loss_in_run"] = _plain(mirrored.run(lambda: tf.nn.compute_average_loss(tf.constant([1.0, 2.0]))))
    out["average_loss_empty"] = _plain(tf.nn.compute_average_loss(tf.zeros([0])))
    out["regularization"] = _plain(tf.nn.scale_regularization_loss([tf.constant(1.0), tf.constant(2.0)]))
    return out


def _assert_same(a, b, path="out"):
    if isinstance(a, dict):
        assert set(a) == set(b), path
        for k in a:
            _assert_same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)) and not isinstance(b, np.ndarray):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), f"{path}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{path}[{i}]")
    elif isinstance(a, (np.ndarray, np.generic, float)) and not isinstance(a, (bool, np.bool_)):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-6, atol=1e-7, err_msg=path)
    else:
        assert a == b, f"{path}: TF {a!r} vs minitf {b!r}"


def test_single_process_strategies_match_tf(tf_ref):
    expected = _scenario(tf_ref)
    got = _scenario(minitf)
    _assert_same(expected, got)


def test_the_namespace_has_tfs_names(tf_ref):
    names = ["MirroredStrategy", "MultiWorkerMirroredStrategy", "OneDeviceStrategy", "ReduceOp", "ReplicaContext",
             "InputContext", "InputOptions", "InputReplicationMode", "RunOptions",
             "Strategy", "StrategyExtended", "DistributedDataset", "DistributedIterator",
             "get_strategy", "has_strategy", "in_cross_replica_context", "get_replica_context",
             "experimental_set_strategy", "cluster_resolver", "experimental"]
    for name in names:
        assert hasattr(tf_ref.distribute, name) and hasattr(minitf.distribute, name), name
    for name in ["CommunicationOptions", "CommunicationImplementation", "CollectiveCommunication",
                 "MultiWorkerMirroredStrategy", "ValueContext"]:
        assert hasattr(tf_ref.distribute.experimental, name) and hasattr(minitf.distribute.experimental, name), name
    assert hasattr(minitf.distribute.cluster_resolver, "TFConfigClusterResolver")


@pytest.mark.parametrize("global_batch_size", [None, 4])
def test_compute_average_loss_default_batch_under_mirrored_strategy(tf_ref, global_batch_size):
    """Inside run, TF's default global batch is the per-replica batch times the replicas."""
    def run(tf):
        m = tf.distribute.MirroredStrategy(["/cpu:0"])
        return float(m.run(lambda: tf.nn.compute_average_loss(tf.constant([1.0, 2.0, 4.0]),
                                                              global_batch_size=global_batch_size)))
    assert run(minitf) == pytest.approx(run(tf_ref))
