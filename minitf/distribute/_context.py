"""Which strategy is in force: the small piece of tf.distribute state that lower layers read.

The optimizer (to all-reduce gradients) and the checkpoint manager (to leave writing to the
chief) consult this module, so it imports nothing of minitf: a strategy registers itself here
when its scope is entered or `run` starts, and a multi-worker strategy records this process's
place in the job when it is built.
"""
import threading

__all__ = ["push", "pop", "top", "aggregating_strategy", "set_worker", "is_chief", "clear_worker"]


class _Stack(threading.local):
    def __init__(self):
        self.entries = []  # (strategy, replica context or None for cross-replica), innermost last


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


def aggregating_strategy():
    """The strategy in force when it has several replicas (gradients must be summed across
    them), else None: the one-replica case costs one list look-up."""
    entries = _stack.entries
    if not entries:
        return None
    strategy = entries[-1][0]
    return strategy if strategy._num_replicas > 1 else None


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
