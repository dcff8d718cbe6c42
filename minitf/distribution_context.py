"""Which tf.distribute strategy is in force: the small piece of its state that lower layers read.

The optimizer (to all-reduce gradients) and the checkpoint manager (to leave writing to the
chief) consult this module, so it imports nothing of minitf: a strategy registers itself here
when its scope is entered or `run` starts, and a multi-worker strategy records this process's
place in the job when it is built.
"""
import threading

__all__ = ["push", "pop", "top", "aggregating_strategy", "replicas_in_sync", "in_cross_replica",
           "applies_updates", "set_local_run", "local_run", "set_worker", "is_chief", "clear_worker"]


class _Stack(threading.local):
    def __init__(self):
        self.entries = []  # (strategy, replica context or None for cross-replica), innermost last
        self.local_run = None  # (run, local replica index) on a thread running a local replica


_stack = _Stack()
# (is_chief, task_id) of this process while a strategy spanning several processes exists
_worker = None


def push(strategy, replica_context):
    """Enter `strategy`: in cross-replica context when `replica_context` is None."""
    _stack.entries.append((strategy, replica_context))


def pop():
    """Leave the innermost strategy context."""
    _stack.entries.pop()


def top():
    """(strategy, replica context) innermost, or None outside every strategy."""
    entries = _stack.entries
    return entries[-1] if entries else None


def aggregating_strategy(variables=()):
    """The strategy whose replicas must sum their gradients, else None: the one in force when
    it has several replicas, or, outside every strategy, the multi-replica strategy in whose
    scope the first of `variables` was created (its copies on the other replicas must stay
    equal). The one-replica case costs a list look-up and an attribute look-up."""
    entries = _stack.entries
    if entries:
        strategy = entries[-1][0]
        return strategy if strategy._num_replicas > 1 else None
    if variables:
        return getattr(variables[0], "_distribute_strategy", None)
    return None


def replicas_in_sync():
    """How many replicas the strategy in force has (1 outside every strategy): what
    `tf.nn.compute_average_loss` multiplies the per-replica batch by, and
    `tf.nn.scale_regularization_loss` divides by."""
    entries = _stack.entries
    return entries[-1][0]._num_replicas if entries else 1


def in_cross_replica():
    """Whether the caller is inside a strategy's scope but outside its `run`."""
    entries = _stack.entries
    return bool(entries) and entries[-1][1] is None


def applies_updates():
    """Whether the caller writes shared state (optimizer steps, loss-scale counters): False only
    for the second and later replicas of a strategy with several replicas in this process, whose
    variables the first replica updates once for all of them."""
    entries = _stack.entries
    return not entries or entries[-1][1] is None or getattr(entries[-1][1], "_local_index", 0) == 0


def set_local_run(run, index):
    """Record that this thread runs local replica `index` of the `Strategy.run` call `run`."""
    _stack.local_run = (run, index)


def local_run():
    """(run, local replica index) when this thread runs one of several replicas of a process,
    else None: state that TF keeps per replica (a generator's) is kept per run and index."""
    return _stack.local_run


def set_worker(chief, task_id):
    """Record that this process is worker `task_id` of a job of several processes."""
    global _worker
    _worker = (bool(chief), int(task_id))


def clear_worker():
    """Forget the job (its strategy's group was closed)."""
    global _worker
    _worker = None


def is_chief():
    """Whether this process writes shared files: True unless it is a non-chief worker of a job."""
    return _worker is None or _worker[0]
