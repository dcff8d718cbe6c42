"""tf.train.ExponentialMovingAverage against TF 2.21 (tf.train is not a scanned namespace of the
parity table): the same sequence of applies and assignments in both libraries must give the same
shadow values, dtypes, names, average_name and variables_to_restore keys, and the same errors."""
import os

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitf


def _run(lib, script, tag):
    """Play `script` (a list of (kind, argument)) on fresh variables; return what was observed."""
    base = f"v{tag}"
    variables = [lib.Variable(np.asarray([1.0, -2.0], dtype="float32"), name=base),
                 lib.Variable(np.asarray(0.5, dtype="float64"), name=base),
                 lib.Variable(np.asarray([3.0], dtype="float16"), name=f"u{tag}")]
    steps = lib.Variable(0)
    decay_var = lib.Variable(0.9)
    out = []
    ema = None
    for kind, arg in script:
        try:
            if kind == "make":
                decay, with_steps, name = arg
                ema = lib.train.ExponentialMovingAverage(decay_var if decay == "var" else decay,
                                                         num_updates=steps if with_steps else None,
                                                         name=name)
            elif kind == "apply":
                ema.apply([variables[i] for i in arg] if arg is not None else None)
                steps.assign_add(1)
            elif kind == "assign":
                i, value = arg
                variables[i].assign(np.full(variables[i].shape, value, variables[i].dtype.as_numpy_dtype))
            elif kind == "decay":
                decay_var.assign(arg)
            elif kind == "bad":
                ema.apply([lib.constant(1.0)] if arg == "tensor" else [lib.Variable(1)])
            names = [ema.average_name(v).replace(tag, "") for v in variables]
            shadows = [ema.average(v) for v in variables]
            out.append((kind, names, [None if s is None else (s.name.replace(tag, ""), s.dtype.name,
                                                              np.asarray(s.numpy()).tolist()) for s in shadows],
                        sorted(k.replace(tag, "") for k in ema.variables_to_restore(variables))))
        except Exception as exc:  # noqa: BLE001 -- the class is what is compared
            out.append((kind, type(exc).__name__))
    return out


step = st.one_of(
    st.tuples(st.just("apply"), st.sampled_from([[0], [0, 1], [1, 2], [2], [], None])),
    st.tuples(st.just("assign"), st.tuples(st.integers(0, 2), st.sampled_from([0.0, 4.0, -1.5]))),
    st.tuples(st.just("decay"), st.sampled_from([0.5, 0.99])),
    st.tuples(st.just("bad"), st.sampled_from(["tensor", "int"])))


@given(st.tuples(st.sampled_from([0.9, 0.5, "var"]), st.booleans(), st.sampled_from(["ExponentialMovingAverage", "avg"])),
       st.lists(step, min_size=1, max_size=8))
def test_ema_agrees_with_tf(tf_ref, make, steps):
    tag = os.urandom(4).hex()  # shadow names are counted per process: start both from fresh names
    script = [("make", make)] + steps
    mine, ref = _run(minitf, script, tag), _run(tf_ref, script, tag)
    assert len(mine) == len(ref)
    for m, r in zip(mine, ref):
        assert m[:2] == r[:2] and (len(m) == 2 or m[3] == r[3]), f"{script}: minitf {m} vs TF {r}"
        if len(m) > 2:
            for a, b in zip(m[2], r[2]):
                assert (a is None) == (b is None)
                if a is not None:
                    assert a[:2] == b[:2]
                    np.testing.assert_allclose(a[2], b[2], rtol=1e-3 if a[1] == "float16" else 1e-6)


def test_ema_object_is_not_trackable_in_either(tf_ref):
    assert not hasattr(tf_ref.train.ExponentialMovingAverage(0.9), "_track_trackable")
    assert not isinstance(minitf.train.ExponentialMovingAverage(0.9), minitf.Module)
    pytest.importorskip("tensorflow")
