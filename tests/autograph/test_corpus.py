"""Original vs converted, run eagerly: every program of `autograph_corpus` must give the same
results and the same side effects (printed text, `LOG` entries) once AutoGraph converts it.

With Python inputs the converted code runs plain Python control flow: results must match
exactly, types included. With tensor inputs the control flow is staged (tf.cond /
tf.while_loop, which run eagerly here): values must match; a loop variable may come back as a
tensor where the original returned a Python number, as in TF (`tf.while_loop` returns tensors).
"""
import contextlib
import io
import logging

import numpy as np
import pytest

import autograph_corpus as corpus
import minitf as tf
from minitf.autograph import api

# Tensor programs without tensor-dependent control flow (nothing to stage).
NOTHING_STAGED = {"for_dataset", "formatting", "globals_read_write", "library_calls"}

# Programs TF's converter refuses (for/else, while/else, :=): they run unconverted, with a warning.
UNCONVERTED = {"while_else", "for_else", "walrus"}


def _args(arg_set):
    values = arg_set() if callable(arg_set) else arg_set
    return tuple(v() if callable(v) else v for v in values)


def _run(fn, args):
    corpus.LOG.clear()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result, error = fn(*args), None
        except Exception as e:  # noqa: BLE001 (errors are compared too)
            result, error = None, (type(e), str(e))
    return result, error, out.getvalue(), list(corpus.LOG)


def _is_tensor(value):
    return isinstance(value, (tf.Tensor, tf.Variable))


def _same(a, b, strict):
    """Equal values; `strict` also requires equal types (tensors: equal dtypes)."""
    if _is_tensor(a) and _is_tensor(b):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a.numpy(), b.numpy())
    if _is_tensor(a) or _is_tensor(b):
        if strict:
            return False
        try:
            return np.array_equal(np.asarray(a), np.asarray(b))
        except (TypeError, ValueError):
            return False
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y, strict) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], strict) for k in a)
    return a == b


def _cases():
    for fn, tensor_sets, python_sets in corpus.PROGRAMS:
        for i, arg_set in enumerate(tensor_sets):
            yield pytest.param(fn, arg_set, False, id=f"{fn.__name__}-tensor{i}")
        for i, arg_set in enumerate(python_sets):
            yield pytest.param(fn, arg_set, True, id=f"{fn.__name__}-python{i}")


def test_the_corpus_is_large():
    assert len(corpus.PROGRAMS) >= 60
    assert sum(len(t) for _, t, _ in corpus.PROGRAMS) >= 40  # tensor runs


@pytest.fixture
def staged(monkeypatch):
    """Count the conds and while loops converted code stages."""
    from minitf.ops import control_flow
    calls = []
    real_cond, real_while = control_flow.cond, control_flow.while_loop
    monkeypatch.setattr(control_flow, "cond", lambda *a, **k: calls.append(1) or real_cond(*a, **k))
    monkeypatch.setattr(control_flow, "while_loop",
                        lambda *a, **k: calls.append(1) or real_while(*a, **k))
    return calls


@pytest.mark.parametrize("fn, arg_set, python", list(_cases()))
def test_converted_matches_original(fn, arg_set, python, caplog, staged):
    with caplog.at_level(logging.WARNING, logger="minitf.autograph"):
        converted = api.convert(fn)
    if fn.__name__ in UNCONVERTED:
        assert converted is fn
        assert "AutoGraph could not transform" in caplog.text or api.convert(fn) is fn
    else:
        assert converted is not fn and api.is_autograph_artifact(converted)
        assert not caplog.records, caplog.text
    expected = _run(fn, _args(arg_set))
    del staged[:]
    actual = _run(converted, _args(arg_set))
    if not python and fn.__name__ not in NOTHING_STAGED:
        assert staged, "tensor inputs, but nothing was staged"
    assert expected[1] is None, f"the original program fails: {expected[1]}"
    assert actual[1] == expected[1], f"errors differ: {actual[1]} vs {expected[1]}"
    assert _same(expected[0], actual[0], strict=python), f"{actual[0]!r} != {expected[0]!r}"
    assert actual[2] == expected[2], "printed text differs"
    assert len(actual[3]) == len(expected[3]) and all(
        _same(a, b, strict=python) for a, b in zip(expected[3], actual[3])), \
        f"side effects differ: {actual[3]} vs {expected[3]}"


# Where TF 2.21's converted code (run eagerly) does not give the original's results, minitf
# keeps the original's: TF stages dataset loops eagerly too (Dataset.reduce: a Python int
# state meets the dataset's int64/float32 elements, and results become tensors), and its eager
# tf.while_loop refuses a loop without state (TF's graph loop runs it, as minitf does).
TF_DIFFERS = {"for_dataset", "for_dataset_break", "variable_updates_in_loop"}


def test_tf_converted_code_agrees():
    """Each program converted by TF (`tf.autograph.to_graph`, run eagerly on TF tensors) gives
    the values, dtypes, printed text and side effects minitf's converted code gives."""
    import importlib.util
    tf_ref = pytest.importorskip("tensorflow")
    spec = importlib.util.spec_from_file_location("autograph_corpus_tf", corpus.__file__)
    tf_corpus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tf_corpus)
    tf_corpus.tf = tf_ref

    def run(module, fn, arg_set, convert):
        module.LOG.clear()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                result, error = convert(fn)(*_args(arg_set)), None
            except Exception as e:  # noqa: BLE001
                result, error = None, (type(e).__name__, str(e))
        return _plain(result), error, out.getvalue(), _plain(module.LOG)

    compared = 0
    for (theirs, tf_sets, tf_python), (ours, sets, python) in zip(tf_corpus.PROGRAMS,
                                                                  corpus.PROGRAMS):
        if ours.__name__ in UNCONVERTED | TF_DIFFERS:
            continue
        for tf_args, args in zip(tf_sets + tf_python, sets + python):
            expected = run(tf_corpus, theirs, tf_args, tf_ref.autograph.to_graph)
            assert run(corpus, ours, args, api.convert) == expected, ours.__name__
            compared += 1
    assert compared >= 150


def _plain(value):
    """Tensors of either library as (dtype name, nested list)."""
    if hasattr(value, "numpy") and hasattr(value, "dtype"):
        return (value.dtype.name, np.asarray(value.numpy()).tolist())
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
