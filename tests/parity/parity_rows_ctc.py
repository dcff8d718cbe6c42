"""Parity rows for tf.nn's CTC functions: the loss on dense and SparseTensor labels (repeated
labels, empty and impossible label sequences, logit_length shorter than the frames, blank at
either end, batch-major logits) with its gradient, and the greedy and beam-search decoders
(whose SparseTensor outputs are compared as (indices, values, dense_shape))."""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, T, V
from parity_table import Table

TABLE = Table()
add = TABLE.add


@st.composite
def ctc_case(draw):
    frames, batch, classes = draw(st.integers(1, 6)), draw(st.integers(1, 3)), draw(st.integers(2, 5))
    blank = draw(st.sampled_from([None, 0, -1, classes - 1, 1 % classes]))
    b = 0 if blank is None else blank % classes
    width = draw(st.integers(1, 4))
    lengths = [draw(st.integers(0, width)) for _ in range(batch)]
    symbols = [c for c in range(classes) if c != b]
    labels = np.zeros((batch, width), np.int32)
    for i, n in enumerate(lengths):
        labels[i, :n] = [draw(st.sampled_from(symbols)) for _ in range(n)]  # repeats are likely
    logit_length = [draw(st.integers(0, frames)) for _ in range(batch)]
    seed = draw(st.integers(0, 2 ** 16))
    scale = draw(st.sampled_from([0.5, 3.0]))
    logits = (np.random.default_rng(seed).normal(size=(frames, batch, classes)) * scale)
    dtype = draw(st.sampled_from(["float32", "float32", "float16", "float64"]))
    major = draw(st.booleans())
    if not major:
        logits = logits.transpose(1, 0, 2)
    mode = draw(st.sampled_from(["dense", "dense", "sparse", "sparse64"]))
    wrap = V if dtype == "float32" and draw(st.booleans()) else T
    return Case((T(labels), wrap(logits.astype(dtype)), T(np.asarray(lengths, np.int32)),
                 T(np.asarray(logit_length, np.int32))),
                {"logits_time_major": major, "blank_index": blank, "mode": mode})


def ctc_call(lib, labels, logits, label_length, logit_length, mode="dense", **kwargs):
    if mode != "dense":
        dense = labels.numpy()
        n = label_length.numpy()
        idx = np.array([[i, j] for i in range(dense.shape[0]) for j in range(n[i])], np.int64).reshape(-1, 2)
        vals = np.array([dense[i, j] for i, j in idx], np.int64 if mode == "sparse64" else np.int32)
        labels = lib.sparse.SparseTensor(idx, lib.constant(vals), [dense.shape[0], max(int(n.max(initial=0)), 1)])
        label_length = None
    return lib.nn.ctc_loss(labels, logits, label_length, logit_length, **kwargs)


add("nn.ctc_loss", ctc_case(), call=ctc_call, grad=1, rtol=1e-3, atol=1e-4)
TABLE.known("nn.ctc_loss", lambda case, verdict: case.args[1].value.dtype == np.float64
            and case.kwargs["mode"] == "dense" and verdict.kind == "tf_raises",
            "INTENTIONAL: TF's dense ctc_loss mixes float32 constants into float64 logits and raises "
            "InvalidArgumentError (Mul); minitf computes the float64 loss, as TF's SparseTensor path does")


@st.composite
def decoder_case(draw, beam):
    frames, batch, classes = draw(st.integers(1, 7)), draw(st.integers(1, 3)), draw(st.integers(2, 5))
    seed = draw(st.integers(0, 2 ** 16))
    logits = np.random.default_rng(seed).normal(size=(frames, batch, classes)) * draw(st.sampled_from([0.5, 4.0]))
    seq = [draw(st.integers(0, frames + (1 if draw(st.integers(0, 9)) == 0 else 0))) for _ in range(batch)]
    x = T(logits.astype(draw(st.sampled_from(["float32", "float64"]))))
    if beam:
        width = draw(st.integers(1, 6))
        return Case((x, T(np.asarray(seq, np.int32))),
                    {"beam_width": width, "top_paths": draw(st.integers(1, width + 1))})
    return Case((x, T(np.asarray(seq, np.int32))),
                {"merge_repeated": draw(st.booleans()), "blank_index": draw(st.sampled_from([None, 0, -1, 1]))})


def decoded(fn):
    def call(lib, *args, **kwargs):
        paths, logp = fn(lib)(*args, **kwargs)
        return [(p.indices, p.values, p.dense_shape) for p in paths], logp
    return call


add("nn.ctc_greedy_decoder", decoder_case(False), call=decoded(lambda lib: lib.nn.ctc_greedy_decoder))
add("nn.ctc_beam_search_decoder", decoder_case(True), call=decoded(lambda lib: lib.nn.ctc_beam_search_decoder),
    rtol=1e-4, atol=1e-4)
add("nn.ctc_unique_labels", st.sampled_from([[[3, 4, 4, 3], [1, 1, 0, 0]], [[0, 0]], [[2, 1, 2, 5, 1]]]).map(
    lambda v: Case((T(np.asarray(v, np.int32)),))))
