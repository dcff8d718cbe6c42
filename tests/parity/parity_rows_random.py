"""Rows for tf.random: seeded draws compared bit for bit with TF (stateful ops under a global
seed, stateless ops, seed splitting and tf.random.Generator), plus the seed-rule rows."""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import D, T
from parity_strategies import cases, maybe, tensors
from parity_table import Table

TABLE = Table()
add = TABLE.add

_shapes = st.sampled_from([[2, 3], [0], [], [5], [3, 1, 2]])
_float_dtypes = st.sampled_from(["float16", "float32", "float64"]).map(D)
_op_seeds = st.sampled_from([None, 0, 7, 2 ** 31 + 5])
_global_seeds = st.sampled_from([None, 0, 1, 42])
_seed_pairs = st.one_of(st.tuples(st.integers(-2 ** 31, 2 ** 31 - 1), st.integers(-2 ** 31, 2 ** 31 - 1)).map(list),
                        st.tuples(st.integers(-2 ** 63, 2 ** 63 - 1), st.integers(-2 ** 63, 2 ** 63 - 1))
                        .map(lambda p: T(np.array(p, dtype=np.int64))),
                        st.sampled_from([[1], [1, 2, 3], [1.0, 2.0]]))


def bits(x):
    """A tensor as (dtype name, shape, exact bit pattern), so floats compare with no tolerance."""
    a = np.asarray(x.numpy())
    if a.dtype.kind == "f":
        a = a.view(f"u{a.itemsize}")
    return [x.dtype.name, list(a.shape), a]


def seeded(draw, repeats=2):
    """A call that sets the global seed (drawn as the keyword `global_seed`), draws `repeats`
    times with the same arguments (so a stream's continuation is compared too), and unsets the
    seed again. Without a global or op seed the values are random, so only shapes compare."""
    def call(lib, *args, global_seed=None, **kwargs):
        lib.random.set_seed(global_seed)
        try:
            out = [draw(lib, *args, **kwargs) for _ in range(repeats)]
        finally:
            lib.random.set_seed(None)
        if global_seed is None and kwargs.get("seed") is None:
            return [[y.dtype.name, y.shape.as_list()] for y in out]
        return [bits(y) for y in out]
    return call


add("random.normal", cases(_shapes, mean=maybe(st.sampled_from([1.0, -2.5])), stddev=maybe(st.sampled_from([0.5, 3.0])),
                           dtype=maybe(st.one_of(_float_dtypes, st.just(D("int32")))), seed=_op_seeds,
                           global_seed=_global_seeds),
    call=seeded(lambda lib, *a, **k: lib.random.normal(*a, **k)))
add("random.truncated_normal", cases(_shapes, mean=maybe(st.sampled_from([1.0, -2.5])),
                                     dtype=maybe(_float_dtypes), seed=_op_seeds, global_seed=_global_seeds),
    call=seeded(lambda lib, *a, **k: lib.random.truncated_normal(*a, **k)))
add("random.uniform", cases(_shapes, minval=maybe(st.sampled_from([0, -1.0, -7])),
                            maxval=maybe(st.sampled_from([1, 5.0, 9, None])),
                            dtype=maybe(st.sampled_from(["float16", "float32", "float64", "int32", "int64"]).map(D)),
                            seed=_op_seeds, global_seed=_global_seeds),
    call=seeded(lambda lib, *a, **k: lib.random.uniform(*a, **k)))
add("random.categorical", cases(tensors(("float32", "float64"), shape=st.sampled_from([(2, 3), (1, 5), (3, 1)])),
                                st.integers(0, 6), dtype=maybe(st.sampled_from(["int32", "int64"]).map(D)),
                                seed=_op_seeds, global_seed=_global_seeds),
    call=seeded(lambda lib, *a, **k: lib.random.categorical(*a, **k)))
add("random.poisson", cases(st.sampled_from([[2], [3, 1], [0], []]),
                            st.sampled_from([[0.5, 12.0], 3.0, [[40.0], [2.0]]]),
                            dtype=maybe(st.sampled_from(["float32", "float64", "int32", "int64"]).map(D)),
                            seed=_op_seeds, global_seed=_global_seeds),
    call=seeded(lambda lib, *a, **k: lib.random.poisson(*a, **k)))
add("random.shuffle", cases(tensors(("float32", "int32"), shape=st.sampled_from([(4, 2), (9,), (1, 3), ()])),
                            seed=_op_seeds, global_seed=_global_seeds),
    call=seeded(lambda lib, *a, **k: lib.random.shuffle(*a, **k)))


def seeded_repeat(lib, seed):
    """Two runs after the same global seed draw the same numbers; the seed is unset afterwards."""
    try:
        lib.random.set_seed(seed)
        first = lib.random.uniform([3])
        lib.random.set_seed(seed)
        return bool(lib.reduce_all(lib.random.uniform([3]) == first))
    finally:
        lib.random.set_seed(None)


add("random.set_seed", cases(st.sampled_from([1, 42])), call=seeded_repeat)

# -- stateless ops ------------------------------------------------------------------------------

add("random.stateless_normal", cases(_shapes, _seed_pairs, mean=maybe(st.sampled_from([1.0, -2.5])),
                                     stddev=maybe(st.sampled_from([0.5, 3.0])), dtype=maybe(_float_dtypes),
                                     alg=maybe(st.sampled_from(["philox", "auto_select", "threefry"]))),
    call=lambda lib, *a, **k: bits(lib.random.stateless_normal(*a, **k)))
add("random.stateless_truncated_normal", cases(_shapes, _seed_pairs, mean=maybe(st.sampled_from([1.0, -2.5])),
                                               dtype=maybe(_float_dtypes)),
    call=lambda lib, *a, **k: bits(lib.random.stateless_truncated_normal(*a, **k)))
add("random.stateless_uniform", cases(_shapes, _seed_pairs, minval=maybe(st.sampled_from([0, -3, -1.5, None])),
                                      maxval=maybe(st.sampled_from([1, 10, 2.5, None])),
                                      dtype=maybe(st.sampled_from(["float16", "float32", "float64", "int32", "int64",
                                                                   "uint32", "uint64"]).map(D))),
    call=lambda lib, *a, **k: bits(lib.random.stateless_uniform(*a, **k)))
add("random.stateless_categorical", cases(tensors(("float32", "float64"), shape=st.sampled_from([(2, 3), (1, 5)])),
                                          st.integers(0, 6), _seed_pairs,
                                          dtype=maybe(st.sampled_from(["int32", "int64"]).map(D))),
    call=lambda lib, *a, **k: bits(lib.random.stateless_categorical(*a, **k)))
add("random.stateless_binomial", cases(st.sampled_from([[2], [4, 2], [3, 1, 2], [2, 3]]), _seed_pairs,
                                        st.sampled_from([[10.0, 20.0], [3.0, 400.0], 7.0]),
                                        st.sampled_from([[0.8], [0.3, 0.6], 0.02, [1.0, 0.0]]),
                                        output_dtype=maybe(st.sampled_from(["int32", "int64", "float32"]).map(D))),
    call=lambda lib, *a, **k: bits(lib.random.stateless_binomial(*a, **k)))
add("random.stateless_poisson", cases(st.sampled_from([[2], [4, 2], [3, 1, 2], [2, 3]]), _seed_pairs,
                                       st.sampled_from([[5, 15], [0.5, 30.0], 7.0, [[2.0], [60.0]]]),
                                       dtype=maybe(st.sampled_from(["int32", "int64", "float32", "float64"]).map(D))),
    call=lambda lib, *a, **k: bits(lib.random.stateless_poisson(*a, **k)))
add("random.split", cases(_seed_pairs, num=maybe(st.integers(1, 4))),
    call=lambda lib, *a, **k: bits(lib.random.split(*a, **k)))
add("random.fold_in", cases(_seed_pairs, st.one_of(st.integers(0, 2 ** 31 - 1),
                                                   st.integers(0, 2 ** 62).map(lambda v: T(np.int64(v))))),
    call=lambda lib, *a, **k: bits(lib.random.fold_in(*a, **k)))

# -- Generator ----------------------------------------------------------------------------------


def generator_run(lib, seed, alg=None):
    """A generator's draws of every kind, its state after each, its seeds and its children."""
    g = lib.random.Generator.from_seed(seed, alg=alg) if alg else lib.random.Generator.from_seed(seed)
    out = [g.algorithm]
    for draw in (lambda: g.normal([2, 3]), lambda: g.uniform([3], dtype=lib.float64),
                 lambda: g.uniform([4], minval=-5, maxval=5, dtype=lib.int64), lambda: g.truncated_normal([5]),
                 lambda: g.uniform_full_int([3], dtype=lib.uint32), lambda: g.make_seeds(2), lambda: g.normal([]),
                 lambda: g.binomial([3, 2], counts=[5.0, 60.0], probs=[0.4, 0.9])):
        out += [bits(draw()), g.state.numpy()]
    out += [bits(child.normal([2])) for child in g.split(2)]
    g.reset_from_seed(seed)
    out.append(bits(g.normal([2])))
    return out


add("random.Generator", cases(st.one_of(st.integers(-2 ** 70, 2 ** 70), st.lists(st.integers(0, 2 ** 40), min_size=1,
                                                                                   max_size=4)),
                              alg=maybe(st.sampled_from(["philox", "auto_select"]))),
    call=generator_run)
add("random.create_rng_state", cases(st.one_of(st.integers(-2 ** 70, 2 ** 70), st.lists(st.integers(0, 2 ** 40),
                                                                                          min_size=1, max_size=4)),
                                     st.sampled_from(["philox", 1, 2, 3, "threefry"])),
    call=lambda lib, seed, alg: lib.random.create_rng_state(seed, alg).numpy())
add("random.Algorithm", call=lambda lib: [(a.name, a.value) for a in lib.random.Algorithm])
add("random.get_global_generator", call=lambda lib: isinstance(lib.random.get_global_generator(),
                                                               lib.random.Generator))


def swap_global_generator(lib):
    """Install a seeded global generator, draw from it, then put the previous one back."""
    previous = lib.random.get_global_generator()
    lib.random.set_global_generator(lib.random.Generator.from_seed(3))
    try:
        return bits(lib.random.get_global_generator().normal([2]))
    finally:
        lib.random.set_global_generator(previous)


add("random.set_global_generator", call=swap_global_generator)
