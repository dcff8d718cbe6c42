"""Rows for keras.random: seeded draws compared bit for bit with Keras 3 on TF (int seeds and
SeedGenerator streams), unseeded draws by shape and dtype, gamma and beta by their support."""
import numpy as np
from hypothesis import strategies as st

from parity_kops import bits
from parity_oracle import Case, T
from parity_strategies import OMIT, maybe, tensors
from parity_table import Table

TABLE = Table()
add = TABLE.add
R = "keras.random."
_SHAPES = st.sampled_from([(2, 3), (5,), (), (0,), (3, 1, 2)])
_SEEDS = st.sampled_from([None, 0, 1, 42, 2 ** 31 + 5, 2 ** 40 + 3, "generator"])
_FLOATS = maybe(st.sampled_from(["float16", "float32", "float64"]))


def seeded(name, repeats=2):
    """Draw `repeats` times; an int seed repeats the numbers, a SeedGenerator (seed='generator')
    continues its stream, no seed gives random numbers (compared by shape and dtype)."""
    def call(lib, *args, seed=None, **kwargs):
        fn = getattr(lib.keras.random, name)
        if seed == "generator":
            seed = lib.keras.random.SeedGenerator(1234)
        out = [fn(*args, seed=seed, **kwargs) for _ in range(repeats)]
        if seed is None:
            return [[y.dtype.name, list(y.shape)] for y in out]
        return [bits(y) for y in out]
    return call


def kwargs_case(args, **strategies):
    @st.composite
    def make(draw):
        kw = {}
        for key, s in strategies.items():
            value = draw(s)
            if value is not OMIT:
                kw[key] = value
        return Case(tuple(draw(a) for a in args), kw)
    return make()


add(R + "normal", kwargs_case([_SHAPES], mean=maybe(st.sampled_from([0.0, 1.5])),
                              stddev=maybe(st.sampled_from([1.0, 0.25])), dtype=_FLOATS,
                              seed=_SEEDS), call=seeded("normal"))
add(R + "truncated_normal", kwargs_case([_SHAPES], mean=maybe(st.sampled_from([0.0, -1.0])),
                                        dtype=_FLOATS, seed=_SEEDS),
    call=seeded("truncated_normal"))
add(R + "uniform", kwargs_case([_SHAPES], minval=maybe(st.sampled_from([0.0, -2.0])),
                               maxval=maybe(st.sampled_from([1.0, 5.0])),
                               dtype=maybe(st.sampled_from(["float16", "float32", "float64",
                                                            "int32"])), seed=_SEEDS),
    call=seeded("uniform"))
add(R + "randint", kwargs_case([_SHAPES, st.sampled_from([0, -5]), st.sampled_from([3, 10])],
                               dtype=maybe(st.sampled_from(["int32", "int64", "int8", "uint8",
                                                            "float32"])), seed=_SEEDS),
    call=seeded("randint"))
add(R + "categorical", kwargs_case(
    [st.sampled_from([T(np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))),
                      T(np.zeros((1, 4), np.float64)), T(np.zeros((4,), np.float32))]),
     st.integers(0, 5)], dtype=maybe(st.sampled_from(["int32", "int64"])), seed=_SEEDS),
    call=seeded("categorical"))
add(R + "dropout", kwargs_case([tensors(("float32", "float64", "float16"),
                                        shape=st.sampled_from([(3, 4), (5,)])),
                                st.sampled_from([0.0, 0.5, 0.25, 1.0])],
                               noise_shape=maybe(st.sampled_from([None])), seed=_SEEDS),
    call=seeded("dropout"))
add(R + "shuffle", kwargs_case([tensors(("float32", "int32"), shape=st.sampled_from([(4, 2), (6,)]))],
                               axis=maybe(st.sampled_from([0, -1])), seed=_SEEDS),
    call=seeded("shuffle"))
add(R + "binomial", kwargs_case([_SHAPES, st.sampled_from([5, 10.0]), st.sampled_from([0.3, 0.5])],
                                dtype=maybe(st.sampled_from(["float32", "int32"])), seed=_SEEDS),
    call=seeded("binomial"))


def support(name, low, high):
    """Shape, dtype and whether every draw lies in [low, high] (the numbers differ by design)."""
    def call(lib, *args, **kwargs):
        y = getattr(lib.keras.random, name)(*args, **kwargs)
        v = y.numpy().astype(np.float64)
        return [y.dtype.name, list(y.shape), bool(np.all((v >= low) & (v <= high)))]
    return call


add(R + "gamma", kwargs_case([_SHAPES, st.sampled_from([0.5, 1.0, 3.0])], dtype=_FLOATS,
                             seed=st.sampled_from([None, 3, 11])), call=support("gamma", 0, np.inf))
add(R + "beta", kwargs_case([_SHAPES, st.sampled_from([0.5, 2.0]), st.sampled_from([1.0, 3.0])],
                            dtype=_FLOATS, seed=st.sampled_from([None, 3, 11])),
    call=support("beta", 0, 1))


def generator_stream(lib, seed, draws):
    """A SeedGenerator's state after each draw, and the draws (bits)."""
    gen = lib.keras.random.SeedGenerator(seed)
    out = []
    for kind in draws:
        y = (lib.keras.random.normal((3,), seed=gen) if kind == "normal"
             else lib.keras.random.uniform((2, 2), seed=gen))
        out.append([bits(y), np.asarray(gen.state.numpy()).tolist()])
    return [out, gen.get_config()["seed"]]


add(R + "SeedGenerator", st.tuples(st.sampled_from([0, 7, 42, 2 ** 33]),
                                   st.lists(st.sampled_from(["normal", "uniform"]), min_size=1,
                                            max_size=3)).map(Case), call=generator_stream)
