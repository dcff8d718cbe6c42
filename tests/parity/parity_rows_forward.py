"""Parity rows for forward-mode differentiation, `tf.autodiff.ForwardAccumulator`.

A class is compared the way `GradientTape` is: one row names its public path and calls a
scenario that builds an accumulator and returns what it answers. The scenarios cover JVPs
through a spread of op families, a variable primal, nesting (accumulator in accumulator,
accumulator around a tape: a Hessian-vector product), lookups (unconnected tensors, `zero`) and
construction errors. `grad=2` then differentiates the returned tangents with GradientTape,
which checks backward-over-forward (second order included) against TF as well.

`tf.autodiff.GradientTape` is TF's `tf.GradientTape` object, so the `GradientTape` row covers it.
The row exists only while the coverage lists the `autodiff` namespace (tests/parity/parity_names
NAMESPACES): a row for a path the coverage does not export is reported as stale.
"""
from hypothesis import strategies as st

import parity_names
from parity_strategies import cases, tensors
from parity_table import Table

TABLE = Table()
add = TABLE.add
FLOAT = ("float32", "float64")

# f(lib, x) for each op family; x has shape (2, 3), values in [-1, 1]
FAMILIES = {
    "elementwise": lambda lib, x: lib.tanh(x) * lib.exp(x) + x ** 3.0,
    "broadcast": lambda lib, x: x * lib.reduce_mean(x, axis=0) - lib.sqrt(x * x + 1.0),
    "matmul": lambda lib, x: lib.matmul(x, x, transpose_b=True),
    "reductions": lambda lib, x: [lib.reduce_sum(x, axis=1), lib.reduce_max(x, axis=0), lib.reduce_logsumexp(x)],
    "softmax": lambda lib, x: lib.nn.softmax(x * 2.0),
    "conv2d": lambda lib, x: lib.nn.conv2d(lib.reshape(x, [1, 2, 3, 1]), lib.reshape(x, [2, 3, 1, 1]), 1, "SAME"),
    "indexing": lambda lib, x: lib.concat([lib.gather(x, [1, 0]), x[:, ::2] * 2.0], axis=1),
    "control_flow": lambda lib, x: lib.cond(lib.reduce_sum(x) > 0.0, lambda: x * x, lambda: lib.sin(x))
    + lib.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, s * x), (0, lib.ones_like(x)))[1],
}


def _tangent(lib, x):
    return lib.cos(x * 3.0 + 1.0)  # a fixed direction of x's shape and dtype


def forward_scenario(lib, x, family, variable):
    """JVP of one op family along a fixed tangent, plus TF's lookup rules."""
    f = FAMILIES[family]
    primal = lib.Variable(x) if variable else x
    acc = lib.autodiff.ForwardAccumulator(primal, _tangent(lib, x))
    outside = x * 2.0
    with acc:
        y = f(lib, primal if not variable else primal * 1.0)
        unconnected = lib.ones_like(x) * 3.0
    return [acc.jvp(y), acc.jvp(primal), acc.jvp(outside), acc.jvp(unconnected),
            acc.jvp(unconnected, unconnected_gradients="zero")]


def nested_scenario(lib, x, how):
    """Second-order JVPs (forward over forward) and Hessian-vector products both ways."""
    v = _tangent(lib, x)
    if how == "forward_over_forward":
        with lib.autodiff.ForwardAccumulator(x, v) as outer:
            with lib.autodiff.ForwardAccumulator(x, v) as inner:
                y = lib.reduce_sum(lib.sin(x) * x ** 2.0)
            first = inner.jvp(y)
        # stop_gradient: a tape through nested accumulators makes TF 2.21 trace for ~20 s and then
        # raise InternalError ("returned too few gradients"); minitf's answer is in the unit tests
        return [lib.stop_gradient(t) for t in (first, outer.jvp(first))] + [inner.jvp(outer.jvp(y))]
    if how == "forward_over_backward":
        with lib.autodiff.ForwardAccumulator(x, v) as acc:
            with lib.GradientTape() as tape:
                tape.watch(x)
                y = lib.reduce_sum(lib.nn.softmax(x) * lib.tanh(x))
            g = tape.gradient(y, x)
        return [g, acc.jvp(g)]
    with lib.GradientTape() as tape:  # backward over forward
        tape.watch(x)
        with lib.autodiff.ForwardAccumulator(x, v) as acc:
            y = lib.reduce_sum(lib.nn.softmax(x) * lib.tanh(x))
        jvp = acc.jvp(y)
    return [jvp, tape.gradient(jvp, x)]


def errors_scenario(lib, x, which):
    """The constructor's and jvp's refusals (both libraries raise the same classes)."""
    if which == "duplicate":
        return lib.autodiff.ForwardAccumulator([x, x], [x, x])
    if which == "dtype":
        other = "float64" if x.dtype == lib.float32 else "float32"
        return lib.autodiff.ForwardAccumulator(x, lib.cast(x, other))
    if which == "structure":
        return lib.autodiff.ForwardAccumulator((x,), [x])
    acc = lib.autodiff.ForwardAccumulator(x, x)
    if which == "twice":
        with acc:
            acc.__enter__()
    return acc.jvp(x, unconnected_gradients="sometimes")


def scenario(lib, x, kind, option, variable):
    if kind == "forward":
        return forward_scenario(lib, x, option, variable)
    if kind == "nested":
        return nested_scenario(lib, x, option)
    return errors_scenario(lib, x, option)


KINDS = st.one_of(
    st.tuples(st.just("forward"), st.sampled_from(sorted(FAMILIES))),
    st.tuples(st.just("nested"), st.sampled_from(["forward_over_forward", "forward_over_backward",
                                                  "backward_over_forward"])),
    st.tuples(st.just("errors"), st.sampled_from(["duplicate", "dtype", "structure", "twice", "unconnected"])),
)

if "autodiff" in parity_names.NAMESPACES:
    add("autodiff.ForwardAccumulator",
        cases(tensors(FLOAT, shape=(2, 3), low=-1.0, high=1.0), KINDS, st.booleans()),
        call=lambda lib, x, kind, variable: scenario(lib, x, kind[0], kind[1], variable), grad=2)
