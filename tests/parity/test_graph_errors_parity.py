"""Errors while tracing, against TF 2.21: inputs of mismatched dtypes are a TypeError from the graph
builder inside tf.function (with or without an input signature), where eager execution raises
the kernel's InvalidArgumentError."""
import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")

_PROGRAMS = {
    "concat": lambda lib: lambda a, b: lib.concat([a, b], 0),
    "add": lambda lib: lambda a, b: a + b,
    "stack": lambda lib: lambda a, b: lib.stack([a, b]),
    "matmul": lambda lib: lambda a, b: lib.matmul(a[None], b[None], transpose_b=True),
    "maximum": lambda lib: lambda a, b: lib.maximum(a, b),
}


def _error(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 (the class is compared)
        return type(e).__name__
    return None


@pytest.mark.parametrize("name", sorted(_PROGRAMS))
def test_mismatched_dtypes(name):
    def errors(lib):
        fn = _PROGRAMS[name](lib)
        a, b = lib.constant(np.ones(2, np.float32)), lib.constant(np.ones(2, np.float64))
        signature = [lib.TensorSpec([2], lib.float32), lib.TensorSpec([2], lib.float64)]
        return [_error(lambda: fn(a, b)), _error(lambda: lib.function(fn)(a, b)),
                _error(lambda: lib.function(fn, input_signature=signature)(a, b))]

    ours, theirs = errors(minitf), errors(tf_ref)
    assert ours == theirs == ["InvalidArgumentError", "TypeError", "TypeError"]
