"""Parity rows for eager control flow (cond, case, switch_case, while_loop, map_fn, scan, folds,
vectorized_map): the same Python callables built from each library's ops, values and gradients
with respect to the tensor the branches and loop bodies use."""
from hypothesis import strategies as st

from parity_strategies import cases, tensors
from parity_table import Table

TABLE = Table()
add = TABLE.add
FLOAT = ("float32", "float64")

add("cond", cases(tensors(FLOAT, shape=(3,), variable=True), st.booleans()),
    call=lambda lib, x, p: lib.cond(lib.constant(p), lambda: x * x, lambda: x * 3.0), grad=2)
add("case", cases(tensors(FLOAT, shape=(3,)), st.integers(0, 2)),
    call=lambda lib, x, k: lib.case([(lib.constant(k == 0), lambda: x * 2.0), (lib.constant(k == 1), lambda: x - 1.0)],
                                    default=lambda: x * x), grad=1)
add("switch_case", cases(tensors(FLOAT, shape=(3,)), st.integers(-1, 3)),
    call=lambda lib, x, k: lib.switch_case(lib.constant(k), [lambda: x * 2.0, lambda: x - 1.0, lambda: x * x]),
    grad=1)
add("while_loop", cases(tensors(FLOAT, shape=(2,), low=-1, high=1), st.integers(0, 4),
                        st.sampled_from([None, 0, 2, 5])),
    call=lambda lib, x, n, m: lib.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 1.5 + x),
                                             (lib.constant(0), x), maximum_iterations=m)[1], grad=1)
add("map_fn", cases(tensors(FLOAT, shape=(3, 2))), call=lambda lib, x: lib.map_fn(lambda r: r * r + 1.0, x),
    grad=2)
add("vectorized_map", cases(tensors(FLOAT, shape=(3, 2))),
    call=lambda lib, x: lib.vectorized_map(lambda r: lib.reduce_sum(r * r), x), grad=1)
add("scan", cases(tensors(FLOAT, shape=(4, 2)), st.booleans(), st.sampled_from([None, 1.0])),
    call=lambda lib, x, rev, init: lib.scan(lambda a, r: a * 0.5 + r, x, reverse=rev,
                                            initializer=None if init is None else lib.ones_like(x[0]) * init),
    grad=1)
add("foldl", cases(tensors(FLOAT, shape=(4, 2))), call=lambda lib, x: lib.foldl(lambda a, r: a * 0.5 + r * r, x),
    grad=1)
add("foldr", cases(tensors(FLOAT, shape=(4, 2))),
    call=lambda lib, x: lib.foldr(lambda a, r: a * 0.5 + r * r, x, initializer=lib.zeros_like(x[0])), grad=1)
