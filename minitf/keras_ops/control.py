"""keras.ops core: control flow (cond, switch, while_loop, fori_loop, scan, map,
associative_scan, vectorized_map), custom_gradient and vectorize.

Eager code runs these as Python loops over minitf ops, as TF's eager while_loop does, so
gradients flow through every step.
"""
import functools
import re

from minitf.nest import nest
from minitf.custom_gradient import custom_gradient as tf_custom_gradient
from minitf.keras_ops.core import canonical_axis, convert, keras_op
from minitf.ops import array as array_ops
from minitf.ops import constant as constant_ops
from minitf.ops.indexing import getitem
from minitf.api_export import export, export_value

__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map", "associative_scan",
           "vectorized_map", "custom_gradient", "vectorize"]


def _truth(pred):
    if constant_ops.is_tensor(pred):
        return bool(convert(pred).numpy())
    return bool(pred)


def cond(pred, true_fn, false_fn):
    """`true_fn()` if `pred` holds, else `false_fn()`."""
    return true_fn() if _truth(pred) else false_fn()


def switch(index, branches, *operands):
    """`branches[index](*operands)`, with `index` clipped to the valid range."""
    i = int(convert(index, "int32").numpy())
    i = min(max(i, 0), len(branches) - 1)
    return branches[i](*operands)


def _tensors(values):
    return nest.map_structure(lambda v: v if v is None else convert(v), values)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Apply `body` to `loop_vars` while `cond(*loop_vars)` holds (at most
    `maximum_iterations` times); a tuple or list of loop variables gives a tuple back."""
    is_tuple = isinstance(loop_vars, (tuple, list))
    values = tuple(_tensors(list(loop_vars))) if is_tuple else (_tensors(loop_vars),)
    steps = 0
    while (maximum_iterations is None or steps < maximum_iterations) and _truth(cond(*values)):
        out = body(*values)
        values = tuple(_tensors(list(out))) if is_tuple else (_tensors(out),)
        steps += 1
    return values if is_tuple else values[0]


def fori_loop(lower, upper, body_fun, init_val):
    """`body_fun(i, val)` applied for i = lower, ..., upper - 1, starting from `init_val`."""
    i, val = convert(lower), _tensors(init_val)
    stop = int(convert(upper).numpy())
    while int(i.numpy()) < stop:
        val = _tensors(body_fun(i, val))
        i = convert(int(i.numpy()) + 1, i.dtype.name)
    return val


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """`jax.lax.scan`: carry = init; for each slice x of xs, (carry, y) = f(carry, x); returns
    the last carry and the stacked ys."""
    if not callable(f):
        raise TypeError(f"`f` should be a callable. Received: f={f}")
    if not isinstance(unroll, bool) and (not isinstance(unroll, int) or unroll < 1):
        raise ValueError(f"`unroll` must be an positive integer or boolean. Received: "
                         f"unroll={unroll}")
    if xs is None and length is None:
        raise ValueError("Got no `xs` to scan over and `length` not provided.")
    xs_flat = [] if xs is None else [convert(x) for x in nest.flatten(xs)]
    n = int(length) if length is not None else int(xs_flat[0].shape[0])
    carry = _tensors(init)
    order = range(n - 1, -1, -1) if reverse else range(n)
    ys = [None] * n
    for i in order:
        x = None if xs is None else nest.pack_sequence_as(xs, [v[i] for v in xs_flat])
        carry, y = f(carry, x)
        carry = _tensors(carry)
        ys[i] = _tensors(y)
    if n == 0 or ys[0] is None:
        template = nest.flatten(carry)
        stacked = [array_ops.zeros([n] + list(t.shape), t.dtype) for t in template]
        return carry, nest.pack_sequence_as(carry, stacked)
    stacked = [array_ops.stack([nest.flatten(y)[j] for y in ys], axis=0)
               for j in range(len(nest.flatten(ys[0])))]
    return carry, nest.pack_sequence_as(ys[0], stacked)


def map(f, xs):  # noqa: A001 (Keras' name)
    """`f` applied to each slice of `xs` along its first axis, the results stacked."""
    flat = [convert(x) for x in nest.flatten(xs)]
    n = int(flat[0].shape[0])
    outs = [f(nest.pack_sequence_as(xs, [v[i] for v in flat])) for i in range(n)]
    if not outs:
        raise ValueError("keras.ops.map needs at least one element to infer the output.")
    leaves = [nest.flatten(o) for o in outs]
    stacked = [array_ops.stack([convert(leaf[j]) for leaf in leaves], axis=0)
               for j in range(len(leaves[0]))]
    return nest.pack_sequence_as(outs[0], stacked)


def associative_scan(f, elems, reverse=False, axis=0):
    """The running combination f(f(x0, x1), x2) ... along `axis` for an associative `f`
    (computed left to right; the parallel order gives the same result)."""
    if not callable(f):
        raise TypeError(f"`f` should be a callable. Received: f={f}")
    flat = [convert(e) for e in nest.flatten(elems)]
    rank = flat[0].shape.rank
    axis = canonical_axis(axis, rank)
    n = int(flat[0].shape[axis])
    if any(int(e.shape[axis]) != n for e in flat[1:]):
        raise ValueError(f"Array inputs to associative_scan must have the same first dimension. "
                         f"(saw: {[list(e.shape) for e in flat]})")

    def part(e, i):
        key = tuple(slice(i, i + 1) if d == axis else slice(None) for d in range(rank))
        return getitem(e, key)
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    if not order:
        return elems
    acc = [part(e, order[0]) for e in flat]
    results = [acc]
    for i in order[1:]:
        step = [part(e, i) for e in flat]
        acc = nest.flatten(f(nest.pack_sequence_as(elems, acc), nest.pack_sequence_as(elems, step)))
        acc = [convert(a) for a in acc]
        results.append(acc)
    if reverse:
        results = results[::-1]
    joined = [array_ops.concat([r[j] for r in results], axis=axis) for j in range(len(flat))]
    return nest.pack_sequence_as(elems, joined)


def vectorized_map(function, elements):
    """`function` applied to each slice of `elements` along the first axis, results stacked."""
    return map(function, elements)


@export("keras.ops.custom_gradient")
def custom_gradient(f):
    """Decorator: `f(*args)` returns (result, grad_fn), and grad_fn(*upstream) gives the
    gradients of the inputs (TF's custom_gradient)."""
    return tf_custom_gradient(f)


def _core_dims(signature):
    match = re.fullmatch(r"\s*(.*?)\s*->\s*(.*?)\s*", signature)
    if not match:
        raise ValueError(f"not a valid gufunc signature: {signature}")
    return [tuple(d.strip() for d in group.split(",") if d.strip())
            for group in re.findall(r"\(([^()]*)\)", match.group(1))]


@export("keras.ops.vectorize", "keras.ops.numpy.vectorize")
def vectorize(pyfunc, *, excluded=None, signature=None):
    """numpy's vectorize. On the TensorFlow backend Keras can map over no axis, so as there the
    wrapped function accepts only inputs whose non-core dimensions are all 1."""
    if not callable(pyfunc):
        raise ValueError(f"Expected argument `pyfunc` to be a callable. Received: pyfunc={pyfunc}")

    @functools.wraps(pyfunc)
    def wrapped(*args):
        core = _core_dims(signature) if signature is not None else [()] * len(args)
        args = [convert(a) for a in args]
        lead = 0
        squeezed = []
        for arg, dims in zip(args, core):
            outer = list(arg.shape[:arg.shape.rank - len(dims)])
            lead = max(lead, len(outer))
            if any(d != 1 for d in outer):
                raise ValueError("Not supported with `vectorize()` with the TensorFlow backend.")
            squeezed.append(array_ops.squeeze(arg, list(range(len(outer)))) if outer else arg)
        out = pyfunc(*squeezed)
        for _ in range(lead):
            out = tuple(array_ops.expand_dims(o, 0) for o in out) if isinstance(out, tuple) else \
                array_ops.expand_dims(out, 0)
        return out
    return wrapped


# these take functions, which never hold KerasTensors: only their array arguments are checked
cond = keras_op(cond)
export_value("cond", "keras.ops.cond")
switch = keras_op(switch)
export_value("switch", "keras.ops.switch")
while_loop = keras_op(while_loop)
export_value("while_loop", "keras.ops.while_loop")
fori_loop = keras_op(fori_loop)
export_value("fori_loop", "keras.ops.fori_loop")
scan = keras_op(scan)
export_value("scan", "keras.ops.scan")
map = keras_op(map)  # noqa: A001
export_value("map", "keras.ops.map")
associative_scan = keras_op(associative_scan)
export_value("associative_scan", "keras.ops.associative_scan")
vectorized_map = keras_op(vectorized_map)
export_value("vectorized_map", "keras.ops.vectorized_map")
