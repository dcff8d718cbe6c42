"""Rows for the attention family of keras.layers: MultiHeadAttention, Attention,
AdditiveAttention, GroupNormalization and EinsumDense.

Each row builds the layer from a drawn config in both libraries, sets every weight to the same
fixed pattern, then calls it on drawn inputs (with drawn masks and call options); the outputs
(and attention scores) and the gradients with respect to the floating inputs are compared.
Dropout only appears with training off, so nothing random is compared.
"""
import numpy as np
from hypothesis import strategies as st

from parity_oracle import Case, T, weights_like
from parity_strategies import OMIT, maybe, values
from parity_table import Table, resolve

TABLE = Table()
FLOATS = ("float32",) * 4 + ("float64",)


def _fix_weights(layer):
    for i, w in enumerate(layer.weights):
        w.assign(0.5 * weights_like(tuple(w.shape), np.dtype(getattr(w.dtype, "as_numpy_dtype", w.dtype)), salt=i))


def _drop_omitted(d):
    return {k: v for k, v in d.items() if v is not OMIT}


@st.composite
def _tensor(draw, shape, dtypes=FLOATS):
    return T(draw(values(draw(st.sampled_from(dtypes)), tuple(shape), -2.0, 2.0)))


@st.composite
def _bool_mask(draw, shape):
    """A bool mask with every row keeping its first position (fully masked rows are a separate case)."""
    mask = np.array(draw(values("bool", tuple(shape))))
    mask[..., 0] = True
    return T(mask)


# -- MultiHeadAttention -----------------------------------------------------------------------

@st.composite
def _mha_cases(draw):
    config = _drop_omitted({
        "num_heads": draw(st.integers(1, 3)), "key_dim": draw(st.integers(1, 4)),
        "value_dim": draw(maybe(st.integers(1, 3))), "use_bias": draw(maybe(st.booleans())),
        "output_shape": draw(maybe(st.sampled_from([3, (2, 2)]))),
        "dropout": draw(maybe(st.sampled_from([0.0, 0.3]))), "use_gate": draw(maybe(st.booleans())),
        "sliding_window": draw(maybe(st.sampled_from([1, 2]))),
        "num_heads_error": draw(st.sampled_from([False] * 12 + [True])),
    })
    if config.pop("num_heads_error"):
        config["num_heads"] = 0
    rank4 = draw(st.integers(0, 4)) == 0
    b, t, s, dim = (draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 4)),
                    draw(st.integers(2, 5)))
    inner = [2] if rank4 else []
    if rank4:
        config["attention_axes"] = draw(st.sampled_from([(2,), (1, 2), 1]))
        config.pop("sliding_window", None)
        s = t
    q = draw(_tensor([b] + inner + [t, dim]))
    v = draw(_tensor([b] + inner + [s, draw(st.integers(2, 4))]))
    kwargs = {"config": config}
    if draw(st.booleans()):
        kwargs["key"] = draw(_tensor([b] + inner + [s, draw(st.integers(2, 4))]))
    if not rank4:
        if draw(st.booleans()):
            kwargs["attention_mask"] = draw(_bool_mask(draw(st.sampled_from([[b, t, s], [t, s], [b, 1, s]]))))
        if draw(st.booleans()):
            kwargs["use_causal_mask"] = True
    kwargs["return_attention_scores"] = draw(st.booleans())
    kwargs["training"] = draw(st.sampled_from([None, False]))
    return Case((q, v), kwargs)


def _mha_call(lib, query, value, config, key=None, **call_kwargs):
    layer = lib.keras.layers.MultiHeadAttention(**config)
    layer(query, value, key)
    _fix_weights(layer)
    out = layer(query, value, key, **call_kwargs)
    return list(out) if isinstance(out, tuple) else out


TABLE.add("keras.layers.MultiHeadAttention", _mha_cases(), call=_mha_call, grad=1, rtol=1e-3, atol=2e-3)


def _size_one_head_bias(case, verdict):
    """A projection bias of shape [heads, 1] (key_dim or value_dim 1) with as many heads as positions."""
    config = case.kwargs["config"]
    sizes = (config.get("key_dim"), config.get("value_dim", config.get("key_dim")))
    if config.get("use_bias") is False or 1 not in sizes:
        return False
    inputs = list(case.args) + ([case.kwargs["key"]] if "key" in case.kwargs else [])
    lengths = {np.shape(t.value)[1] for t in inputs}
    return config.get("num_heads") in lengths


TABLE.known("keras.layers.MultiHeadAttention", _size_one_head_bias,
            "INTENTIONAL: Keras 3's TensorFlow backend adds a bias that squeezes to one axis with tf.nn.bias_add, "
            "and picks axis 1 when the last axis does not match: a [heads, 1] projection bias on [batch, T, heads, 1] "
            "with T == heads lands on the positions instead of the heads. minitf adds the bias as its shape says")


# -- Attention / AdditiveAttention ------------------------------------------------------------

@st.composite
def _attention_cases(draw, additive):
    config = _drop_omitted({"use_scale": draw(maybe(st.booleans())),
                            "dropout": draw(maybe(st.sampled_from([0.0, 0.5])))})
    if not additive:
        config.update(_drop_omitted({"score_mode": draw(maybe(st.sampled_from(["dot", "concat", "bad"])))}))
    b, tq, tv, dim = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    inputs = [draw(_tensor([b, tq, dim])), draw(_tensor([b, tv, dim]))]
    if draw(st.booleans()):
        inputs.append(draw(_tensor([b, tv, dim])))
    kwargs = {"config": config, "return_attention_scores": draw(st.booleans()),
              "use_causal_mask": draw(st.booleans()), "training": draw(st.sampled_from([None, False]))}
    if draw(st.booleans()):
        q_mask = draw(maybe(_bool_mask([b, tq])))
        kwargs["mask"] = [None if q_mask is OMIT else q_mask, draw(_bool_mask([b, tv]))]
    return Case((inputs,), kwargs)


def _attention_call(name):
    def call(lib, inputs, config, **call_kwargs):
        layer = resolve(lib, name)(**config)
        layer(inputs)
        _fix_weights(layer)
        out = layer(inputs, **call_kwargs)
        return list(out) if isinstance(out, tuple) else out
    return call


for _name, _additive in (("keras.layers.Attention", False), ("keras.layers.AdditiveAttention", True)):
    TABLE.add(_name, _attention_cases(_additive), call=_attention_call(_name), grad=1, rtol=1e-3, atol=2e-3)


# -- GroupNormalization -----------------------------------------------------------------------

@st.composite
def _group_norm_cases(draw):
    rank = draw(st.integers(2, 4))
    axis = draw(st.sampled_from([-1, 1] + ([-2, 2] if rank > 2 else [])))
    groups = draw(st.sampled_from([1, 2, 3, -1]))
    shape = [draw(st.integers(1, 3)) for _ in range(rank)]
    shape[axis] = (abs(groups) if groups > 0 else 2) * draw(st.integers(1, 2))
    if draw(st.integers(0, 9)) == 0:
        shape[axis] += 1  # groups that do not divide the channels: the error class is compared
    config = _drop_omitted({"groups": groups, "axis": axis, "epsilon": draw(maybe(st.sampled_from([1e-3, 0.5]))),
                            "center": draw(maybe(st.booleans())), "scale": draw(maybe(st.booleans()))})
    return Case((draw(_tensor(shape, FLOATS + ("float16",))),), {"config": config})


def _group_norm_call(lib, x, config):
    layer = lib.keras.layers.GroupNormalization(**config)
    layer(x)
    _fix_weights(layer)
    return layer(x)


TABLE.add("keras.layers.GroupNormalization", _group_norm_cases(), call=_group_norm_call, grad=1,
          rtol=1e-3, atol=2e-3)


# -- EinsumDense ------------------------------------------------------------------------------

_EQUATIONS = [  # (equation, output_shape, bias_axes, input shape without batch)
    ("ab,bc->ac", 3, "c", [4]),
    ("abc,cd->abd", (3, 2), "d", [3, 4]),
    ("abc,cde->abde", (None, 2, 3), "de", [2, 4]),
    ("abcd,cde->abe", (None, 3), "e", [2, 2, 3]),
    ("...b,bc->...c", 2, "c", [2, 3]),
    ("ab...,bc->ac...", 3, "c", [2, 2]),
    ("abc,cd->abd", (3, 2), "b", [3, 4]),
]


@st.composite
def _einsum_cases(draw):
    equation, output_shape, bias_axes, inner = draw(st.sampled_from(_EQUATIONS))
    config = _drop_omitted({"equation": equation, "output_shape": output_shape,
                            "bias_axes": draw(st.sampled_from([bias_axes, None])),
                            "activation": draw(maybe(st.sampled_from(["tanh", "relu", None])))})
    return Case((draw(_tensor([draw(st.integers(1, 3))] + inner)),), {"config": config})


def _einsum_call(lib, x, config):
    layer = lib.keras.layers.EinsumDense(**config)
    layer(x)
    _fix_weights(layer)
    return layer(x)


TABLE.add("keras.layers.EinsumDense", _einsum_cases(), call=_einsum_call, grad=1, rtol=1e-3, atol=2e-3)
