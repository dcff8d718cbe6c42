"""Python's protocols on tensors and variables, compared with TF: bool/int/float/complex/index,
len, iter, format, hash, numpy conversion. Tensor and Variable share one implementation in
minitf (`minitf.tensor.TensorLike`), and TF gives variables fewer of them (no `__index__`,
no `__len__`, no format spec); both differences must hold."""
import operator

import numpy as np
import pytest

import minitf

tf_ref = pytest.importorskip("tensorflow")

VALUES = [2.5, 3, 0.0, [1.0, 2.0], [], [[1, 2], [3, 4]], True]
PROBES = {
    "bool": bool, "float": float, "int": int, "complex": complex, "index": operator.index,
    "len": len, "list": lambda x: [np.asarray(e).tolist() for e in x],
    "format": lambda x: f"{x:.2f}", "format_empty": lambda x: len(f"{x}") > 0,
    "array": lambda x: np.asarray(x).tolist(), "hash": hash,
    "list_index": lambda x: [10, 20, 30, 40][x],
}


def _outcome(fn, x):
    try:
        return "value", fn(x)
    except Exception as e:  # noqa: BLE001  (the exception type is what is compared)
        return "raises", type(e).__name__


@pytest.mark.parametrize("kind", ["constant", "Variable"])
@pytest.mark.parametrize("probe", sorted(PROBES))
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_protocol_matches_tf(kind, probe, value):
    fn = PROBES[probe]
    expected = _outcome(fn, getattr(tf_ref, kind)(value))
    got = _outcome(fn, getattr(minitf, kind)(value))
    assert got == expected
