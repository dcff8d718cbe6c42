"""Every row of the parity table inside `tf.function`: the traced call gives what the eager call
gives (values, dtypes, shapes, exception classes) and so do its gradients, taken by a tape
outside the function (first and second order where the row asks).

This compares minitf with itself, so it runs without TF. A row's case is traced with its
tensors as the function's arguments, so the graph, not Python, computes the result.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minitf
import parity_oracle as oracle
from minitf.graph.examples import graph_dtype_error
from parity_rows import TABLE

EXAMPLES = 4  # per row: the eager rows already run 25 cases each against TF

# Rows whose call means something else inside a function, as in TF.
UNTRACEABLE = {
    "function": "already a tf.function (called while tracing, it is inlined)",
    "print": "the row reads the printed file in Python, which runs at trace time, before the "
             "graph prints (TF's trace reads the same empty file)",
    "experimental.Optional": "the row steps iterators in Python and reads has_value() as a Python bool; "
                             "it traces its own tf.function over get_next_as_optional",
}
# Rows whose call reads tensor values in Python for some cases (`.numpy()`, `np.asarray`), which
# TF 2.21 refuses inside a function: those cases must raise what TF raises for a symbolic tensor.
READS_VALUES = {
    "Variable": "calls v.numpy()",
    "keras.optimizers.LossScaleOptimizer": "reads counters with np.asarray()",
    "nn.ctc_loss": "builds sparse labels from labels.numpy()",
    "keras.backend.eval": "returns x.numpy()",
    "keras.backend.get_value": "returns x.numpy()",
    "keras.ops.convert_to_numpy": "calls np.array(x)",
}
SYMBOLIC_VALUE_ERRORS = (("AttributeError", "has no attribute 'numpy'"),
                         ("NotImplementedError", "Cannot convert a symbolic"))
# Rows of preprocessing layers whose adapting cases read the learned state in Python while
# tracing, before the graph adapts (the layer's own call and adapt are traced and checked).
ADAPTING = {"keras.layers.Discretization", "keras.layers.IntegerLookup", "keras.layers.StringLookup"}
# What minitf's graphs leave out (see README): such a case raises NotImplementedError naming the
# limitation and the ways around it, instead of a confusing error; other cases must agree.
NOT_IN_GRAPHS = {
    "RaggedTensor": "ragged tensors built inside a traced function",
    "SparseTensor": "sparse tensors built inside a traced function",
    "autodiff.ForwardAccumulator": "forward-mode accumulators inside a traced function",
    "nn.ctc_beam_search_decoder": "its decoded paths are SparseTensors",
    "nn.ctc_greedy_decoder": "its decoded paths are SparseTensors",
    "keras.backend.ctc_label_dense_to_sparse": "it returns a SparseTensor",
    "keras.ops.jvp": "a forward-mode accumulator inside a traced function",
}
# Rows whose traced call, for a scalar input, ends otherwise than the eager call in TF 2.21 too:
# (eager error, traced error or None for a result, why).
SCALAR_INPUT_IN_GRAPHS = {
    "keras.ops.where": ("InvalidArgumentError", None, "the unused tf.where of a scalar is pruned"),
    "keras.ops.nonzero": ("InvalidArgumentError", None, "the unused tf.where of a scalar is pruned"),
    "keras.ops.argmax": ("InvalidArgumentError", "IndexError",
                         "keepdims sets axis 0 of the scalar's empty static shape"),
    "keras.ops.argmin": ("InvalidArgumentError", "IndexError",
                         "keepdims sets axis 0 of the scalar's empty static shape"),
}
RANDOM_PREFIXES = ("random.", "keras.random.", "nn.dropout", "keras.backend.random_",
                   "keras.backend.dropout", "keras.backend.truncated_normal", "image.random_", "keras.layers.Random",
                   "keras.layers.Dropout", "keras.layers.GaussianNoise", "keras.layers.GaussianDropout",
                   "keras.layers.AlphaDropout", "keras.layers.SpatialDropout", "experimental.numpy.random.")


def _adapts(case):
    config = case.kwargs.get("config", {})
    return config.get("adapt") is True or config.get("num_bins") is not None


def _traced(call):
    def run(lib, *args, **kwargs):
        return lib.function(lambda *a, **k: call(lib, *a, **k))(*args, **kwargs)
    return run


ROWS = sorted((r for r in TABLE.rows.values()
               if r.name not in UNTRACEABLE and not r.name.startswith(RANDOM_PREFIXES)),
              key=lambda r: r.name)


def _as_returned(value):
    """An eager result as a function returns it: Python numbers and strings become tensors."""
    if isinstance(value, (list, tuple)):
        return [_as_returned(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_returned(v) for k, v in value.items()}
    if isinstance(value, str):
        return np.asarray(value.encode())
    if isinstance(value, bool) or isinstance(value, bytes):
        return np.asarray(value)
    if isinstance(value, int):
        return np.asarray(value, np.int32 if -2**31 <= value < 2**31 else np.int64)
    if isinstance(value, float):
        return np.asarray(value, np.float32)
    return value


def _same(eager, traced):
    if eager.error is not None or traced.error is not None:
        return eager.error == traced.error, f"eager {eager.error}: {eager.message} / traced " \
                                            f"{traced.error}: {traced.message}"
    eager = oracle.Outcome(value=_as_returned(eager.value))
    verdict = oracle.compare(traced, eager)
    return verdict.agrees, verdict.detail


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_traced_row_matches_eager(row):
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
    @given(data=st.data())
    def agree(data):
        case = data.draw(row.cases, label="case")
        minitf.keras.backend.clear_session()  # automatic names count from the same start
        eager = oracle.run(minitf, row.call, case)
        if eager.error in ("ValueError", "TypeError") and "Variable" in (eager.message or ""):
            return
        minitf.keras.backend.clear_session()
        traced = oracle.run(minitf, _traced(row.call), case)
        if row.name in READS_VALUES and any(
                traced.error == kind and words in traced.message for kind, words in SYMBOLIC_VALUE_ERRORS):
            return
        if row.name in ADAPTING and _adapts(case):
            return
        if row.name in NOT_IN_GRAPHS and traced.error == "NotImplementedError":
            assert "cannot be recorded" in traced.message, (row.name, traced.message)
            return
        if traced.error == "ValueError" and ("singleton tf.Variables" in traced.message
                                             or "depends on the function's argument" in traced.message):
            return  # the call makes variables every time it runs: TF refuses to trace it too
        if (eager.error, traced.error) == SCALAR_INPUT_IN_GRAPHS.get(row.name, (0, 0, 0))[:2]:
            assert "rank >= 1" in eager.message, eager.message
            return
        if traced.error == "ValueError" and "out of range for float32" in traced.message:
            return  # a Python float past float32 returned: TF cannot make it a tensor either
        if (eager.error, traced.error) == ("InvalidArgumentError", "TypeError") and \
                graph_dtype_error(eager.message) is not None:
            return  # inputs of mismatched dtypes: TF's kernel (eager) and graph builder (traced) do the same
        ok, detail = _same(eager, traced)
        assert ok, f"{row.name}{case!r} value: {detail}"
        if row.grad and eager.error is None:
            for order in range(1, row.grad + 1):
                g_eager = oracle.run_gradient(minitf, row.call, case, order)
                g_traced = oracle.run_gradient(minitf, _traced(row.call), case, order)
                ok, detail = _same(g_eager, g_traced)
                assert ok, f"{row.name}{case!r} grad{order}: {detail}"
    agree()


def test_the_table_is_large():
    assert len(ROWS) > 300 and np.isfinite(EXAMPLES)
