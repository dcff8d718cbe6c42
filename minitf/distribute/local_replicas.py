"""Several replicas in one process: a MirroredStrategy over several devices.

`Strategy.run` calls the function once per replica, each in its own thread (so each has its own
GradientTape stack, device scope and replica context), and the threads take turns: one runs
until it finishes or reaches a cross-replica point (an all-reduce of gradients, a `merge_call`),
then the next one runs. When every replica waits at the same point, the point's merge runs once,
in the calling thread, on all the replicas' values, and each replica resumes with its share of
the result. This is how TF runs MirroredStrategy eagerly; taking turns keeps model building,
metric updates and optimizer steps free of races.

The replicas share the process's variables: an optimizer step sums the replicas' gradients in
the merge and only the first replica writes the update (`distribution_context.applies_updates`).
Variables a replica writes for itself (BatchNormalization's moving statistics) keep a copy per
replica (`minitf.distribute.replica_copies`), swapped in as the turn passes.
"""
import threading

from minitf import backend
from minitf.device import device as device_scope
from minitf import distribution_context as _context
from minitf.distribute.collective import Collective, REDUCTIONS
from minitf.distribute.replica_copies import ReplicaCopies
from minitf.summary import writer as summary_writer
from minitf.variable import name_scope_stack, set_name_scope_stack

__all__ = ["LocalReplicas", "ReplicaCollective", "current_local_index"]


def current_local_index():
    """The local replica number of the calling thread (None outside replica threads)."""
    local = _context.local_run()
    return None if local is None else local[1]


class _Aborted(BaseException):
    """Unwinds a replica thread whose run was abandoned (another replica raised)."""


class _ReplicaThread(threading.Thread):
    def __init__(self, run, index, call, inherited):
        super().__init__(name=f"minitf-replica-{index}", daemon=True)
        self.run_state = run
        self.index = index
        self.call = call  # (fn, args, kwargs)
        self.inherited = inherited
        self.go = threading.Event()
        self.paused = threading.Event()
        self.request = None  # (what, value, combine) while waiting at a merge point
        self.reply = None
        self.done = False
        self.result = None
        self.error = None

    def run(self):
        _context.set_local_run(self.run_state, self.index)
        try:
            self._take_turn()
            strategy, context, device, names, summaries = self.inherited
            set_name_scope_stack(names)
            summary_writer.set_thread_state(summaries)
            _context.push(strategy, context)
            with device_scope(device):
                fn, args, kwargs = self.call
                self.result = fn(*args, **kwargs)
        except _Aborted:
            pass
        except BaseException as e:  # handed to the caller's thread, which raises it
            self.error = e
        finally:
            self.done = True
            self.paused.set()

    def _take_turn(self):
        self.go.wait()
        self.go.clear()
        if self.run_state.aborted:
            raise _Aborted()

    def wait_at(self, what, value, combine):
        """Hand `value` to the merge named `what` and sleep until it has run; its share for this
        replica."""
        self.request = (what, value, combine)
        self.paused.set()
        self._take_turn()
        reply, self.reply = self.reply, None
        return reply


class _Run:
    """One `Strategy.run` call: its replica group, its threads, and whether it was abandoned."""

    def __init__(self, group):
        self.group = group
        self.threads = []
        self.aborted = False


class LocalReplicas:
    """The replicas of a strategy that live in this process, one per device.

    Args:
      devices: the replicas' device strings, in replica order.
    """

    def __init__(self, devices):
        self.devices = tuple(devices)
        self.count = len(self.devices)
        self.copies = ReplicaCopies(self.count)

    def owns_current_thread(self):
        """Whether the calling thread is one of this group's replica threads."""
        local = _context.local_run()
        return local is not None and local[0].group is self

    def call_for_each_replica(self, strategy, fn, calls, contexts):
        """`fn(*args, **kwargs)` for each replica's (args, kwargs) in `calls`, with replica i in
        `contexts[i]` on `self.devices[i]`; the list of their results. A replica's exception is
        raised here once the others have been stopped."""
        run = _Run(self)
        inherited = (name_scope_stack(), summary_writer.thread_state())  # what TF's replica threads keep
        threads = run.threads = [
            _ReplicaThread(run, i, (fn, args, kwargs), (strategy, contexts[i], self.devices[i]) + inherited)
            for i, (args, kwargs) in enumerate(calls)]
        for thread in threads:
            thread.start()
        self.copies.begin_run()
        try:
            while True:
                for thread in threads:
                    if thread.done:
                        continue
                    self.copies.activate(thread.index)
                    thread.paused.clear()
                    thread.go.set()
                    thread.paused.wait()
                    if thread.error is not None:
                        raise thread.error
                waiting = [t for t in threads if not t.done]
                if not waiting:
                    return [t.result for t in threads]
                self._merge(strategy, threads, waiting)
        except BaseException:
            run.aborted = True
            for thread in threads:
                thread.go.set()
            raise
        finally:
            for thread in threads:
                thread.join()
            self.copies.end_run()

    def _merge(self, strategy, threads, waiting):
        whats = [t.request[0] for t in waiting]
        if len(waiting) != len(threads) or any(w != whats[0] for w in whats):
            seen = ", ".join(f"replica {t.index}: " + (t.request[0] if not t.done else "returned")
                             for t in threads)
            raise RuntimeError(f"Strategy.run: the replicas reached different cross-replica points ({seen}). "
                               "Every replica must make the same all_reduce/merge_call/apply_gradients "
                               "calls in the same order.")
        combine = waiting[0].request[2]
        self.copies.activate(0)  # cross-replica code reads the first replica's copies
        _context.push(strategy, None)  # the merge runs once, in cross-replica context
        try:
            replies = combine([t.request[1] for t in threads])
        finally:
            _context.pop()
        for thread, reply in zip(threads, replies):
            thread.request = None
            thread.reply = reply

    def variable_write(self, var, op, new):
        """Take a replica's write `op` of `new` to a variable of the strategy's scope, as TF's
        mirrored variables combine the replicas' writes: with aggregation NONE a non-trainable
        variable's write goes to the writing replica's own copy; with ONLY_FIRST_REPLICA (or
        NONE on a trainable variable) the first replica's write stands for all; with SUM or
        MEAN the replicas' values are summed or averaged and written once. Returns True when
        the write was taken, False to write as usual (outside this group's replica threads a
        write sets every replica's value)."""
        if not self.owns_current_thread():
            self.copies.forget(var)
            return False
        index = current_local_index()
        aggregation = getattr(var.aggregation, "name", str(var.aggregation)).upper()
        if aggregation == "NONE" and not var.trainable:
            self.copies.replica_writes(var, index)
            return False
        if aggregation not in ("SUM", "MEAN"):
            return index != 0

        def combine(per_replica):
            total = _reduce_arrays(per_replica, "sum")
            if aggregation == "MEAN":
                total = (total / len(per_replica)).astype(total.dtype, copy=False)
            var._apply_write(op, total)
            return [None] * len(per_replica)
        self.merge(f"{op} of variable {var.name}", new, combine)
        return True

    def merge(self, what, value, combine):
        """From a replica thread: wait until every replica has reached the merge `what`, then
        `combine(values)` (a list of per-replica replies) runs once and this replica gets its
        reply."""
        run, index = _context.local_run()
        return run.threads[index].wait_at(what, value, combine)


def _reduce_arrays(parts, op):
    """Elementwise reduction of equally shaped arrays (op sum, max or min), in a new array."""
    if len(parts) == 1:
        return parts[0].copy()
    xp = backend.array_module(parts[0])
    combine = xp.add if op == "sum" else xp.maximum if op == "max" else xp.minimum
    total = combine(parts[0], parts[1], out=xp.empty_like(parts[0]))  # an array even for 0-d parts
    for part in parts[2:]:
        combine(total, part, out=total)
    return total


class ReplicaCollective(Collective):
    """The collective of the replicas of one process (a MirroredStrategy over several devices):
    called from a replica thread it meets the other replicas (a merge); called from anywhere
    else it is the one-process group `workers`, whose collectives are identities.

    The replicas receive the same result arrays (copying them per replica doubled the cost of a
    gradient all-reduce): only the replica that applies an update (the first) may write into
    them, as the optimizer does; Tensors made from them are read-only.

    Args:
      replicas: the process's `LocalReplicas`.
      workers: the one-process group (several replicas per process in a job of several
        processes is not supported: such a job runs one process per device).
    """

    name = "local-replicas"

    def __init__(self, replicas, workers):
        if workers.size != 1:
            raise ValueError(f"ReplicaCollective: {replicas.count} replicas in each of {workers.size} processes is "
                             "not supported; run one process per device with MultiWorkerMirroredStrategy.")
        self.replicas = replicas
        self.workers = workers

    @property
    def size(self):
        """How many replicas there are."""
        return self.replicas.count

    @property
    def rank(self):
        """The calling replica's number (0 outside `run`)."""
        return current_local_index() if self.replicas.owns_current_thread() else 0

    def allreduce(self, arrays, op="sum"):
        """Each array reduced over the replicas."""
        if op not in REDUCTIONS:
            raise ValueError(f"allreduce: unknown reduction {op!r}; use one of {REDUCTIONS}")
        if not self.replicas.owns_current_thread():
            return self.workers.allreduce(arrays, op)

        def combine(per_replica):
            count = len(per_replica[0])
            if any(len(p) != count for p in per_replica):
                raise ValueError(f"all_reduce: the replicas passed different numbers of values "
                                 f"({[len(p) for p in per_replica]}).")
            totals = []
            for i in range(count):
                parts = [p[i] for p in per_replica]
                if any(p.shape != parts[0].shape or p.dtype != parts[0].dtype for p in parts):
                    raise ValueError(f"all_reduce: value {i} differs in shape or dtype between the replicas "
                                     f"({[(tuple(p.shape), str(p.dtype)) for p in parts]}).")
                total = _reduce_arrays(parts, "sum" if op == "mean" else op)
                totals.append(total / len(parts) if op == "mean" else total)  # integer means: float64
            return [totals if i == 0 else list(totals) for i in range(len(per_replica))]
        return self.replicas.merge(f"allreduce op={op}", list(arrays), combine)

    def broadcast(self, arrays, root=0):
        """Replica `root`'s arrays on every replica."""
        if not self.replicas.owns_current_thread():
            return self.workers.broadcast(arrays, root)
        return self.replicas.merge(f"broadcast root={root}", list(arrays),
                                   lambda per_replica: [[a.copy() for a in per_replica[root]] for _ in per_replica])

    def allgather(self, array):
        """Every replica's array, in replica order."""
        if not self.replicas.owns_current_thread():
            return self.workers.allgather(array)
        return self.replicas.merge("allgather", array, lambda per_replica: [list(per_replica) for _ in per_replica])

    def broadcast_object(self, obj, root=0):
        """Replica `root`'s object on every replica."""
        if not self.replicas.owns_current_thread():
            return self.workers.broadcast_object(obj, root)
        return self.replicas.merge(f"broadcast_object root={root}", obj,
                                   lambda per_replica: [per_replica[root] for _ in per_replica])

    def allgather_object(self, obj):
        """Every replica's object, in replica order."""
        if not self.replicas.owns_current_thread():
            return self.workers.allgather_object(obj)
        return self.replicas.merge("allgather_object", obj,
                                   lambda per_replica: [list(per_replica) for _ in per_replica])

    def barrier(self):
        """Return once every replica has called it."""
        if not self.replicas.owns_current_thread():
            return self.workers.barrier()
        return self.replicas.merge("barrier", None, lambda per_replica: [None for _ in per_replica])

    def close(self):
        """Release the group (nothing to release in one process)."""
        self.workers.close()
