"""Keras' fit/evaluate under a tf.distribute strategy of several replicas.

Every worker runs the same loop over the same global batches (array data is shuffled with a
seed rank 0 picks) and trains on its slice of each: of a batch of G examples, replica r of n
takes examples [r*ceil(G/n), (r+1)*ceil(G/n)), as tf.distribute's distributed datasets split
them, so a short last batch leaves some replicas a smaller or empty one. Losses of the
'sum_over_batch_size' reduction are scaled by 1/n (minitf.losses) and the optimizer sums the
gradients over the replicas, so one step on n workers is one step on the global batch. Metrics
made in the strategy's scope sum their states across the workers when read outside its `run`
(minitf.metrics), so the epoch and evaluation results cover every worker's data while the
per-batch logs are each worker's own. With several replicas in one process (MirroredStrategy
over several devices) each worker's slice is split again between them, as TF's MirroredStrategy
splits a batch, and the step runs once per replica. With the default strategy every helper here
is a pass-through.
"""
import contextlib
import math

import numpy as np

from minitf import distribution_context as _context
from minitf.distribute import strategy as strategy_module
from minitf.distribute.input import DistributedIterator, leading_size, local_replica_parts, replica_part
from minitf.distribute.values import select_replica

__all__ = ["replica_strategy", "strategy_scope", "shuffle_seed", "local_batches", "run_step",
           "default_strategy_of_compile"]


def replica_strategy(model):
    """The strategy of several replicas `model` runs under (the one in force when it was compiled,
    else the one in force now), or None when it runs as one replica."""
    strategy = getattr(model, "_distribute_strategy", None)
    if strategy is None:
        entry = _context.top()
        strategy = entry[0] if entry is not None else None
    return strategy if strategy is not None and strategy._num_replicas > 1 else None


def strategy_scope(strategy):
    """`strategy.scope()`, or no context for a single replica (fit and evaluate run inside it)."""
    if strategy is None or _context.top() is not None and _context.top()[0] is strategy:
        return contextlib.nullcontext()
    return strategy.scope()


def shuffle_seed(strategy):
    """A seed every worker shares (rank 0's draw), so all shuffle array data the same way and
    their slices of each batch partition it; None for a single replica."""
    if strategy is None:
        return None
    mine = int(np.random.randint(0, 2 ** 31 - 1))
    return int(strategy.extended._worker_collective.broadcast_object(mine, root=0))


def local_batches(batches, strategy):
    """This worker's slice of each global batch of `batches`; the workers stay in step until
    every one has run out (one that runs out first takes empty batches)."""
    if strategy is None:
        yield from batches
        return
    collective = strategy.extended._worker_collective
    replicas = strategy._local_count

    def parts():
        per = None  # from the first batch, the global batch size: a short last one splits unevenly
        for element in batches:
            if per is None:
                per = math.ceil(leading_size(element) / collective.size)
            part = replica_part(element, per, collective.rank)
            yield local_replica_parts(part, replicas) if replicas > 1 else part
    yield from DistributedIterator(parts(), collective, None, replicas)


def run_step(strategy, step, batch):
    """`step(batch)` as each replica of this process (so collectives in it meet the other
    replicas'); with several local replicas, the logs of the last one, which ran after the
    others had updated the shared metrics."""
    if strategy is None:
        return step(batch)
    logs = strategy.run(step, args=(batch,))
    return select_replica(logs, strategy._local_count - 1)


def default_strategy_of_compile():
    """The strategy whose scope is open while a model compiles (None outside every scope): the
    one fit and evaluate later run under."""
    entry = _context.top()
    if entry is None or isinstance(entry[0], strategy_module._DefaultStrategy):
        return None
    return entry[0]
