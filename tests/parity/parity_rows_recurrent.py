"""Parity rows for the recurrent family: the cells, RNN, SimpleRNN/LSTM/GRU, StackedRNNCells,
Bidirectional, TimeDistributed and Masking.

Each row builds the layer from a drawn config in both libraries, sets every weight to the same
fixed pattern, and returns the outputs together with the gradients of a weighted sum of them
with respect to the input and to every trainable weight (taken inside the call, so the rows
compare gradients through time without a second-order pass). Masks are drawn as bool tensors;
dropout is left out (its masks are random).
"""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, T, weights_like
from parity_strategies import OMIT, maybe
from parity_table import Table, resolve

TABLE = Table()
RTOL, ATOL = 1e-4, 1e-5


def _fixed(layer):
    for i, w in enumerate(layer.weights):
        w.assign(weights_like(tuple(w.shape), np.dtype(getattr(w.dtype, "name", w.dtype)), salt=i) * 0.6)


def _weighted(lib, outputs):
    total = None
    for i, y in enumerate(lib.nest.flatten(outputs)):
        term = lib.reduce_sum(y * lib.constant(weights_like(tuple(y.shape), "float32", salt=i + 7)))
        total = term if total is None else total + term
    return total


def _run(lib, layer, x, call_kwargs, calls=1):
    """Build, fix the weights, call `calls` times; outputs of the last call plus gradients."""
    layer(x, **call_kwargs)
    _fixed(layer)
    if hasattr(layer, "reset_states") and getattr(layer, "stateful", False):
        layer.reset_states()
    for _ in range(calls - 1):
        layer(x, **call_kwargs)
    with lib.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, **call_kwargs)
        loss = _weighted(lib, y)
    grads = tape.gradient(loss, [x] + list(layer.trainable_weights))
    return {"outputs": y, "grads": grads, "names": [w.name.split("/")[-1].split(":")[0] for w in layer.weights],
            "shapes": [list(w.shape) for w in layer.weights]}


def _clean(config):
    return {k: v for k, v in config.items() if v is not OMIT}


@st.composite
def _sequence(draw, features=None):
    batch, steps = draw(st.integers(1, 3)), draw(st.integers(1, 5))
    feats = features or draw(st.integers(1, 3))
    x = np.cos(np.arange(batch * steps * feats) * 1.3 + draw(st.integers(0, 9))).reshape(batch, steps, feats)
    return T(x.astype("float32"))


@st.composite
def _mask_for(draw, x):
    batch, steps = x.value.shape[:2]
    bits = [[draw(st.booleans()) for _ in range(steps)] for _ in range(batch)]
    return T(np.array(bits, dtype=bool))


_ACT = st.sampled_from([None, "tanh", "relu", "sigmoid", "linear"])
_RNN_FLAGS = dict(return_sequences=maybe(st.booleans()), return_state=maybe(st.booleans()),
                  go_backwards=maybe(st.booleans()), zero_output_for_mask=maybe(st.booleans()))
_CELL_ARGS = {
    "SimpleRNN": dict(activation=maybe(_ACT), use_bias=maybe(st.booleans())),
    "LSTM": dict(activation=maybe(_ACT), recurrent_activation=maybe(st.sampled_from(["sigmoid", "hard_sigmoid",
                                                                                      "tanh"])),
                 use_bias=maybe(st.booleans()), unit_forget_bias=maybe(st.booleans())),
    "GRU": dict(activation=maybe(_ACT), recurrent_activation=maybe(st.sampled_from(["sigmoid", "tanh"])),
                use_bias=maybe(st.booleans()), reset_after=maybe(st.booleans())),
}


@st.composite
def _layer_case(draw, kind, with_flags=True, stateful=True):
    config = {"units": draw(st.integers(1, 3))}
    config.update(_clean({k: draw(s) for k, s in _CELL_ARGS[kind].items()}))
    if with_flags:
        config.update(_clean({k: draw(s) for k, s in _RNN_FLAGS.items()}))
    x = draw(_sequence())
    mask = draw(_mask_for(x)) if draw(st.booleans()) else None
    calls = 1
    if stateful and draw(st.integers(0, 3)) == 0:
        config["stateful"] = True
        calls = 2
    return Case((x,), {"config": config, "mask": mask, "calls": calls})


def _layer_call(path):
    def call(lib, x, config, mask=None, calls=1):
        layer = resolve(lib, path)(**config)
        kwargs = {} if mask is None else {"mask": mask}
        return _run(lib, layer, x, kwargs, calls)
    return call


for _kind in ("SimpleRNN", "LSTM", "GRU"):
    TABLE.add(f"keras.layers.{_kind}", _layer_case(_kind), call=_layer_call(f"keras.layers.{_kind}"),
              rtol=RTOL, atol=ATOL)


# -- cells on one step, and the generic RNN around them ---------------------------------------

@st.composite
def _cell_case(draw, kind):
    config = {"units": draw(st.integers(1, 3))}
    config.update(_clean({k: draw(s) for k, s in _CELL_ARGS[kind].items()}))
    x = draw(_sequence())
    return Case((x,), {"config": config})


def _cell_call(kind):
    def call(lib, x, config):
        cell = resolve(lib, f"keras.layers.{kind}Cell")(**config)
        step = x[:, 0, :]
        sizes = cell.state_size if isinstance(cell.state_size, (list, tuple)) else [cell.state_size]
        states = [lib.constant(weights_like((step.shape[0], s), "float32", salt=3 + i)) for i, s in enumerate(sizes)]
        cell(step, states)
        _fixed(cell)
        with lib.GradientTape() as tape:
            tape.watch(step)
            tape.watch(states)
            out, new_states = cell(step, states)
            loss = _weighted(lib, [out, new_states])
        return [out, new_states, tape.gradient(loss, [step] + states + list(cell.trainable_weights))]
    return call


for _kind in ("SimpleRNN", "LSTM", "GRU"):
    TABLE.add(f"keras.layers.{_kind}Cell", _cell_case(_kind), call=_cell_call(_kind), rtol=RTOL, atol=ATOL)


@st.composite
def _rnn_case(draw):
    kinds = draw(st.lists(st.sampled_from(["SimpleRNN", "LSTM", "GRU"]), min_size=1, max_size=2))
    cells = [[k, draw(st.integers(1, 3))] for k in kinds]
    flags = _clean({k: draw(s) for k, s in _RNN_FLAGS.items()})
    x = draw(_sequence())
    mask = draw(_mask_for(x)) if draw(st.booleans()) else None
    return Case((x,), {"cells": cells, "flags": flags, "mask": mask, "stacked": draw(st.booleans())})


def _make_cells(lib, cells):
    return [resolve(lib, f"keras.layers.{k}Cell")(u) for k, u in cells]


def _rnn_call(lib, x, cells, flags, mask=None, stacked=False):
    made = _make_cells(lib, cells)
    cell = made[0] if len(made) == 1 and not stacked else resolve(lib, "keras.layers.StackedRNNCells")(made)
    layer = resolve(lib, "keras.layers.RNN")(cell, **flags)
    return _run(lib, layer, x, {} if mask is None else {"mask": mask})


TABLE.add("keras.layers.RNN", _rnn_case(), call=_rnn_call, rtol=RTOL, atol=ATOL)
TABLE.add("keras.layers.StackedRNNCells", _rnn_case().map(lambda c: Case(c.args, dict(c.kwargs, stacked=True))),
          call=_rnn_call, rtol=RTOL, atol=ATOL)


# -- wrappers and masking ---------------------------------------------------------------------

@st.composite
def _bidirectional_case(draw):
    kind = draw(st.sampled_from(["SimpleRNN", "LSTM", "GRU"]))
    inner = _clean({"units": draw(st.integers(1, 3)), "return_sequences": maybe(st.booleans()),
                    "return_state": maybe(st.booleans())})
    inner = {k: draw(v) if hasattr(v, "example") else v for k, v in inner.items()}
    inner = _clean(inner)
    merge = draw(st.sampled_from(["concat", "sum", "mul", "ave", None]))
    backward = draw(st.sampled_from([None, "SimpleRNN", "GRU"]))
    x = draw(_sequence())
    mask = draw(_mask_for(x)) if draw(st.booleans()) else None
    return Case((x,), {"kind": kind, "inner": inner, "merge_mode": merge, "backward": backward, "mask": mask})


def _bidirectional_call(lib, x, kind, inner, merge_mode, backward=None, mask=None):
    layer = resolve(lib, f"keras.layers.{kind}")(**inner)
    kwargs = {"merge_mode": merge_mode}
    if backward is not None:
        same = {k: v for k, v in inner.items() if k != "units"}
        kwargs["backward_layer"] = resolve(lib, f"keras.layers.{backward}")(
            2, go_backwards=True, **same)
        if inner.get("return_state") and backward != kind:
            return "skip: states of different cells"
    bi = resolve(lib, "keras.layers.Bidirectional")(layer, **kwargs)
    result = _run(lib, bi, x, {} if mask is None else {"mask": mask})
    result["names"] = [(w.path if hasattr(w, "path") else w.name).split(":")[0] for w in bi.weights]
    return result


TABLE.add("keras.layers.Bidirectional", _bidirectional_case(), call=_bidirectional_call, rtol=RTOL, atol=ATOL)


@st.composite
def _time_distributed_case(draw):
    x = draw(_sequence())
    return Case((x,), {"units": draw(st.integers(1, 3)), "activation": draw(_ACT),
                       "mask": draw(_mask_for(x)) if draw(st.booleans()) else None})


def _time_distributed_call(lib, x, units, activation, mask=None):
    td = resolve(lib, "keras.layers.TimeDistributed")(resolve(lib, "keras.layers.Dense")(units, activation=activation))
    result = _run(lib, td, x, {} if mask is None else {"mask": mask})
    y = result["outputs"]
    result["mask"] = None if getattr(y, "_keras_mask", None) is None else lib.cast(y._keras_mask, "int32")
    return result


TABLE.add("keras.layers.TimeDistributed", _time_distributed_case(), call=_time_distributed_call,
          rtol=RTOL, atol=ATOL)


@st.composite
def _masking_case(draw):
    x = draw(_sequence()).value.copy()
    for b in range(x.shape[0]):
        for t in range(x.shape[1]):
            if draw(st.booleans()):
                x[b, t] = 0.0
    return Case((T(x),), {"mask_value": draw(st.sampled_from([0.0, 0.5])),
                          "then": draw(st.sampled_from([None, "LSTM", "GRU"]))})


def _masking_call(lib, x, mask_value, then=None):
    masking = resolve(lib, "keras.layers.Masking")(mask_value=mask_value)
    with lib.GradientTape() as tape:
        tape.watch(x)
        y = masking(x)
        out = [y, lib.cast(y._keras_mask, "int32")]
        if then is not None:
            rnn = resolve(lib, f"keras.layers.{then}")(2, return_sequences=True)
            rnn(y)
            _fixed(rnn)
            z = rnn(y)
            out += [z, lib.cast(z._keras_mask, "int32")]
        loss = _weighted(lib, out[::2])
    return out + [tape.gradient(loss, x)]


TABLE.add("keras.layers.Masking", st.builds(lambda c: c, _masking_case()), call=_masking_call,
          rtol=RTOL, atol=ATOL)


def _one_cell_stack_with_mask(case, verdict):
    kw = case.kwargs
    return kw.get("stacked") and len(kw.get("cells", ())) == 1 and kw.get("mask") is not None


for _name in ("keras.layers.RNN", "keras.layers.StackedRNNCells"):
    TABLE.known(_name, _one_cell_stack_with_mask,
                "INTENTIONAL: Keras 3's StackedRNNCells unwraps the state list of a one-cell stack, so its masked "
                "loop fails on a structure mismatch (ValueError); minitf keeps the structure and runs")
