"""tf.random.Generator inside tf.function against TF 2.21: each call of the traced function draws
the next numbers of the stream, for a generator made outside the function or by its first
trace (the random-numbers guide's two programs), and the state ends where TF's does."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")


def _outside(lib):
    g = lib.random.Generator.from_seed(7)

    @lib.function
    def draw():
        return g.normal([2]), g.truncated_normal([]), g.uniform([3], 1, 9, dtype=lib.int64), g.make_seeds(2)

    return [[t.numpy() for t in draw()] for _ in range(3)] + [g.state.numpy()]


def _first_trace(lib):
    made = []

    @lib.function
    def draw():
        if not made:
            made.append(lib.random.Generator.from_seed(1))
        return made[0].normal([])

    return [draw().numpy() for _ in range(3)] + [made[0].state.numpy()]


@pytest.mark.parametrize("program", [_outside, _first_trace])
def test_traced_draws_follow_the_stream(program):
    ours, theirs = program(minitf), program(tf_ref)
    flat = lambda items: [x for item in items for x in (item if isinstance(item, list) else [item])]  # noqa: E731
    for a, b in zip(flat(ours), flat(theirs), strict=True):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
