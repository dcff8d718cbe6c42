"""The memory plan of a compiled plan: buffers kept from call to call for mid-sized ufunc results.

A step's result that numpy would allocate fresh on every call (a ufunc or matmul without `out`)
is written instead into a buffer the plan keeps (`out=`), when it has MIN_BYTES to MAX_BYTES: a
step that allocates and frees the same few hundred KiB on every call can make glibc hand the top
of its heap back to the system and page-fault it in again on the next call (measured on the MLP
training step, depending on what else the process allocated: 95 page faults and ~890 us a step,
against 14 and ~650 us with kept buffers). Larger results are left to malloc: glibc's mmap
threshold grows with use (up to 32 MiB), so it keeps them and hands back the block freed last,
still warm; kept buffers measured 1-4% slower on the DCGAN step (6 MiB activations) and would
hold that memory between calls.

Steps whose results have the same shape and dtype and never live at the same time share one
buffer, so the buffers a plan keeps hold no more than the largest set of such values alive at
once. Liveness here is an estimate (a value stays alive while any value that may be a view of it
does); what makes reuse safe is checked when the plan runs: a buffer is written only when
nothing but the plan holds it (`sys.getrefcount`), so a value the caller kept, a view of it still
alive or a tensor an effect stored gets a fresh buffer instead, which the plan keeps from then on.
"""
import numpy as np

__all__ = ["plan_buffers", "fresh_call", "MIN_BYTES", "MAX_BYTES"]

# Results smaller than this come from malloc's free lists cheaply (glibc's trim and mmap
# thresholds start at 128 KiB).
MIN_BYTES = 32 << 10
MAX_BYTES = 1 << 20
# Keyword arguments that leave a ufunc's result an ordinary C-ordered array of its recorded dtype.
_PLAIN_KWARGS = frozenset(("dtype", "casting"))


def fresh_call(step):
    """Whether a step's result is a new array that shares memory with none of its arguments."""
    if step[0] != "call":
        return False
    fn, kwargs = step[1], step[3]
    if "out" in kwargs:
        return False
    if type(fn) is np.ufunc:
        return len(step[2]) <= fn.nin
    owner = getattr(fn, "__self__", None)
    args = step[2]
    return type(owner) is np.ufunc and getattr(fn, "__name__", "") == "reduce" and \
        (len(args) < 4 or args[3] is None)


def _recyclable(step, types, c_contiguous, min_bytes, max_bytes):
    """(shape, dtype) of the buffer a call step can write its result into, or None. The result
    must have been C-contiguous, as the buffer is: a result laid out otherwise (a ufunc follows
    its inputs' order) could make a later reduction or GEMM sum in another order."""
    if step[0] != "call" or type(step[4]) is not int or step[4] not in c_contiguous:
        return None
    fn, args, kwargs = step[1], step[2], step[3]
    if type(fn) is not np.ufunc or fn.nout != 1 or len(args) != fn.nin or \
            not set(kwargs) <= _PLAIN_KWARGS:
        return None
    kind, dtype, shape = types.get(step[4], (None, None, None))
    if kind is not np.ndarray or not shape or dtype.hasobject:
        return None
    if not min_bytes <= int(np.prod(shape)) * dtype.itemsize <= max_bytes:
        return None
    return tuple(shape), dtype


def plan_buffers(steps, types, c_contiguous, used, defined, last_use, min_bytes=MIN_BYTES,
                 max_bytes=MAX_BYTES):
    """({step index: buffer slot}, [(shape, dtype) of each slot]) for the program's steps.

    Args:
      steps: the program's steps.
      types: {register: (type, dtype, shape)} of the recorded run.
      c_contiguous: the registers whose ndarray was C-contiguous in the recorded run.
      used, defined: the names (`r12`, ...) each step reads and defines.
      last_use: {name: index of the last step reading it} (outputs: len(steps)).
      min_bytes, max_bytes: the sizes of result given a kept buffer.
    """
    candidates = {i: key for i, step in enumerate(steps)
                  if (key := _recyclable(step, types, c_contiguous, min_bytes, max_bytes)) is not None}
    if not candidates:
        return {}, []
    slots, slot_keys, slot_free_after = {}, [], []
    for i, key in sorted(candidates.items()):
        end = _lifetime_end(steps, used, defined, last_use, i)
        # the buffer freed last: the one most likely still in the caches
        free = [(free_after, slot) for slot, (slot_key, free_after)
                in enumerate(zip(slot_keys, slot_free_after)) if slot_key == key and free_after < i]
        if free:
            slot = max(free)[1]
        else:
            slot = len(slot_keys)
            slot_keys.append(key)
            slot_free_after.append(end)
        slot_free_after[slot] = end
        slots[i] = slot
    return slots, slot_keys


def _lifetime_end(steps, used, defined, last_use, start):
    """The last step at which the result of step `start`, or a value that may be a view of it,
    is read."""
    aliases = set(defined[start])
    end = max((last_use.get(name, start) for name in aliases), default=start)
    for j in range(start + 1, len(steps)):
        if j > end:
            break
        if used[j] & aliases and not fresh_call(steps[j]):
            new = defined[j] - aliases
            if new:
                aliases |= new
                end = max([end] + [last_use.get(name, j) for name in new])
    return end
