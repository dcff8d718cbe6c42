"""MultiHeadAttention (Keras 3), built on EinsumDense projections.

The projections and the weight layout are Keras 3's: query/key/value kernels [dim, heads,
key_dim] (value: value_dim), biases [heads, size], the output kernel [heads, value_dim, dim],
created in the order query, key, (gate,) value, output, so Keras weight files load as they are.
The attention itself runs as batched matrix products (transposes, then BLAS) rather than
general einsums; the scores keep Keras' layout [batch dims..., heads, query axes..., key axes...].
"""
import math

import numpy as np

from minitf import constraints
from minitf.initializers import initializers
from minitf.regularizers import regularizers
from minitf.convert import convert_to_tensor
from minitf.keras_core.keras_tensor import any_symbolic
from minitf.layers import layer_utils
from minitf.layers.activation import Softmax
from minitf.layers.attention import and_masks, as_bool_mask, causal_mask, large_negative, sequence_lengths
from minitf.layers.base import Layer
from minitf.layers.einsum_dense import EinsumDense
from minitf.layers.input_spec import shape_of
from minitf.layers.mask_propagation import get_keras_mask, set_keras_mask
from minitf.layers.regularization import Dropout
from minitf.ops import array as array_ops
from minitf.ops import nn as nn_ops
from minitf.ops import shaping as shaping_ops
from minitf.ops.linalg import matmul
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["MultiHeadAttention", "dot_product_attention", "projection_equation"]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


# -- equations (Keras 3's projection layout) --------------------------------------------------
def projection_equation(free_dims, bound_dims, output_dims):
    """('abc,cde->abde', 'de', 4): the EinsumDense equation of a projection, its bias axes and
    its output rank, for `free_dims` kept axes, `bound_dims` contracted, `output_dims` new."""
    free = _LETTERS[:free_dims]
    bound = _LETTERS[free_dims:free_dims + bound_dims]
    new = _LETTERS[free_dims + bound_dims:free_dims + bound_dims + output_dims]
    return f"{free}{bound},{bound}{new}->{free}{new}", new, free_dims + output_dims


def _partial_shape(rank, known_last):
    return [None] * (rank - len(known_last)) + list(known_last)


def _prod(values):
    if any(not isinstance(v, (int, np.integer)) for v in values):  # a runtime size among them
        out = 1
        for v in values:
            out = out * v
        return out
    return int(np.prod(values, dtype=np.int64)) if values else 1


def _dims(x):
    """`x`'s static sizes, with a scalar runtime size where a traced value leaves one unknown."""
    dims = x.shape.as_list()
    if any(d is None for d in dims):
        dynamic = shaping_ops.shape(x)
        dims = [dynamic[i] if d is None else d for i, d in enumerate(dims)]
    return dims


def _permute(x, perm):
    return x if list(perm) == list(range(len(perm))) else array_ops.transpose(x, perm)


def dot_product_attention(query, key, value, attn_axes, mask, scores_path, dropout=None):
    """Softmax(q . k) . v over `attn_axes` of projected [..., heads, size] tensors.

    Returns (output in the query's layout with the value's size, probabilities in Keras'
    scores layout [batch dims..., heads, query axes..., key axes...]). `mask` is bool and
    broadcasts against the scores (after Keras' expansion); masked logits become a large
    negative number, and on the scores path (`scores_path`) masked probabilities become 0.
    `dropout(probs)` is applied to the probabilities used for the output only.
    """
    rank = query.shape.rank
    batch_dims = [i for i in range(rank - 1) if i not in attn_axes]
    qs, ks, vs = _dims(query), _dims(key), _dims(value)
    batch_shape = [qs[i] for i in batch_dims]
    tq, tk = [qs[i] for i in attn_axes], [ks[i] for i in attn_axes]
    perm_q = batch_dims + list(attn_axes) + [rank - 1]
    q = array_ops.reshape(_permute(query, perm_q), batch_shape + [_prod(tq), qs[-1]])
    k = array_ops.reshape(_permute(key, batch_dims + [rank - 1] + list(attn_axes)),
                          batch_shape + [ks[-1], _prod(tk)])
    logits = matmul(q, k)
    flat_shape = batch_shape + [_prod(tq), _prod(tk)]
    full_shape = batch_shape + tq + tk
    if mask is not None:
        mshape = mask.shape.as_list()
        if len(mshape) > len(full_shape) or any(
                m not in (1, s) and isinstance(s, (int, np.integer))  # runtime sizes unchecked
                for m, s in zip(mshape[::-1], full_shape[::-1])):
            raise ValueError(f"MultiHeadAttention: the attention mask of shape {tuple(mshape)} does not "
                             f"broadcast to the attention scores' shape {tuple(full_shape)}; give a mask "
                             f"of shape [batch, query length, key length] (size-1 axes broadcast).")
        mask = array_ops.reshape(array_ops.broadcast_to(mask, full_shape), flat_shape)
        neg = convert_to_tensor(large_negative(logits.dtype, scores_path), dtype=logits.dtype)
        logits = array_ops.where(mask, logits, neg)
    probs = nn_ops.softmax(logits, axis=-1)
    if mask is not None and scores_path:
        probs = array_ops.where(mask, probs, array_ops.zeros_like(probs))
    used = dropout(probs) if dropout is not None else probs
    v = array_ops.reshape(_permute(value, perm_q), batch_shape + [_prod(tk), vs[-1]])
    out = array_ops.reshape(matmul(used, v), batch_shape + tq + [vs[-1]])
    out = _permute(out, list(np.argsort(perm_q)))
    return out, array_ops.reshape(probs, full_shape)


@export("layers.MultiHeadAttention", "keras.layers.MultiHeadAttention")
class MultiHeadAttention(Layer):
    """Multi-head attention (Vaswani et al., 2017) with Keras 3's weights and masks.

    `query`, `key` and `value` are each projected to `num_heads` heads (EinsumDense layers
    `query`, `key`, `value`); every query position takes a softmax-weighted average of the
    value positions, weighted by the scaled dot products of its query with the keys; the heads
    are projected back (EinsumDense `attention_output`) to the query's last size or
    `output_shape`. `key` defaults to `value` (self-attention: `mha(x, x)`).

    Example:

    ```python
    mha = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)
    x = tf.random.normal((4, 10, 16))
    y, scores = mha(x, x, return_attention_scores=True)   # (4, 10, 16), (4, 2, 10, 10)
    ```

    Args:
        num_heads: the number of heads (a positive int).
        key_dim: the size of each head's query and key.
        value_dim: the size of each head's value (default `key_dim`).
        dropout: the dropout rate on the attention probabilities (training only).
        use_bias: whether the projections have biases.
        output_shape: the output's last axes (an int or tuple); default the query's last size.
        attention_axes: the axes attended over (default all but batch, heads and features).
        sliding_window: attend only to keys fewer than this many positions away.
        flash_attention: accepted for Keras' signature; True is refused (not available).
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
        kernel_constraint, bias_constraint: passed to every projection.
        use_gate: multiply the heads by a sigmoid gate projected from the query (Keras'
            gated attention) before the output projection.
        seed: the dropout seed.
        **kwargs: the Layer arguments (`name`, `dtype`, `activity_regularizer`, ...).

    Call arguments:
        query: [batch, T, dim]; value: [batch, S, dim]; key: [batch, S, dim] (default value).
        attention_mask: bool [batch, T, S] (missing leading axes broadcast): True where a
            query position may attend to a key position.
        return_attention_scores: also return the probabilities [batch, heads, T, S].
        training: apply dropout.
        use_causal_mask: forbid attending to later positions (decoders).
        query_mask, value_mask, key_mask: padding masks [batch, T] / [batch, S]; by default
            the `_keras_mask` the inputs carry (from Embedding(mask_zero=True), Masking).

    Raises:
        ValueError: invalid arguments, key and value shapes that differ before their last
            axis, or a mask that does not broadcast to the scores.
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True, output_shape=None,
                 attention_axes=None, sliding_window=None, flash_attention=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 use_gate=False, seed=None, **kwargs):
        for arg, value, allow_none in (("num_heads", num_heads, False), ("key_dim", key_dim, False),
                                       ("value_dim", value_dim, True)):
            if (value is None and not allow_none) or (value is not None and (
                    not isinstance(value, int) or isinstance(value, bool) or value <= 0)):
                raise ValueError(f"Received an invalid value for argument `{arg}`, expected a positive "
                                 f"integer{' or `None`' if allow_none else ''}. Received: {arg}={value}")
        if flash_attention:
            raise NotImplementedError("MultiHeadAttention(flash_attention=True) is not available in minitf; "
                                      "leave flash_attention=None (the same result, computed directly).")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self._activity_regularizer = regularizers.get(activity_regularizer)
        self.supports_masking = True  # the output carries the query's padding mask, as in Keras
        self._num_heads = num_heads
        self._key_dim = key_dim
        self._value_dim = value_dim if value_dim else key_dim
        self._dropout = float(dropout)
        self._use_bias = use_bias
        self._use_gate = use_gate
        if output_shape:
            if isinstance(output_shape, int):
                output_shape = (output_shape,)
            try:
                output_shape = tuple(output_shape)
            except TypeError:
                raise ValueError(f"Invalid `output_shape`: {output_shape}. When specified, the "
                                 f"`output_shape` should be of type tuple, list, or int.") from None
        self._output_shape = output_shape or None
        self._flash_attention = flash_attention
        self._kernel_initializer = initializers.get(kernel_initializer)
        self._bias_initializer = initializers.get(bias_initializer)
        self._kernel_regularizer = regularizers.get(kernel_regularizer)
        self._bias_regularizer = regularizers.get(bias_regularizer)
        self._kernel_constraint = constraints.get(kernel_constraint)
        self._bias_constraint = constraints.get(bias_constraint)
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        elif attention_axes and not isinstance(attention_axes, (list, tuple)):
            raise ValueError(f"`attention_axes` must be an int, list, or tuple. "
                             f"Received: attention_axes={attention_axes}")
        self._attention_axes = tuple(attention_axes) if attention_axes else None
        if sliding_window is not None and (not isinstance(sliding_window, int) or sliding_window <= 0):
            raise ValueError(f"`sliding_window` must be `None` or a positive integer. "
                             f"Received: sliding_window={sliding_window}")
        self._sliding_window = sliding_window
        self.seed = seed
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(self._key_dim))

    # -- Keras' read-only properties ------------------------------------------------------------
    num_heads = property(lambda self: self._num_heads, doc="The number of heads.")
    key_dim = property(lambda self: self._key_dim, doc="The size of each head's query and key.")
    value_dim = property(lambda self: self._value_dim, doc="The size of each head's value.")
    dropout = property(lambda self: self._dropout, doc="The dropout rate on the probabilities.")
    use_bias = property(lambda self: self._use_bias, doc="Whether the projections have biases.")
    attention_axes = property(lambda self: self._attention_axes, doc="The axes attended over.")
    # Keras keeps the projections private and exposes them as properties, so its weight files
    # name them 'query_dense', ...; here they are public attributes and these are the aliases.
    _query_dense = property(lambda self: self.query_dense)
    _key_dense = property(lambda self: self.key_dense)
    _value_dense = property(lambda self: self.value_dense)
    _output_dense = property(lambda self: self.output_dense)

    # -- building -------------------------------------------------------------------------------
    def _sublayer_kwargs(self):
        """Each projection's arguments, with fresh copies of the initializers (as Keras does, so
        the four kernels do not come from one seeded initializer object)."""
        return dict(kernel_initializer=type(self._kernel_initializer).from_config(
                        self._kernel_initializer.get_config()),
                    bias_initializer=type(self._bias_initializer).from_config(self._bias_initializer.get_config()),
                    kernel_regularizer=self._kernel_regularizer, bias_regularizer=self._bias_regularizer,
                    activity_regularizer=self._activity_regularizer, kernel_constraint=self._kernel_constraint,
                    bias_constraint=self._bias_constraint, dtype=self.dtype_policy)

    def _projection(self, input_rank, sizes, name, activation=None, bound=1):
        equation, bias_axes, out_rank = projection_equation(input_rank - 1, bound, len(sizes))
        return EinsumDense(equation, output_shape=_partial_shape(out_rank - 1, sizes),
                           bias_axes=bias_axes if self._use_bias else None, activation=activation, name=name,
                           **self._sublayer_kwargs())

    @staticmethod
    def _build_sublayer(layer, shape):
        with layer._scope():
            layer.build(shape)
        layer.built = True
        layer._build_input_shape = shape

    def build(self, query_shape, value_shape=None, key_shape=None):
        """Create the projections for inputs of these shapes (`key_shape` defaults to the value's)."""
        if value_shape is None:
            raise ValueError(f"MultiHeadAttention {self.name!r}: build needs both the query and the value "
                             f"shape: build(query_shape, value_shape, key_shape=None).")
        query_shape, value_shape = TensorShape(query_shape), TensorShape(value_shape)
        key_shape = value_shape if key_shape is None else TensorShape(key_shape)
        if value_shape[1:-1].as_list() != key_shape[1:-1].as_list():
            raise ValueError(f"All dimensions of `value` and `key`, except the last one, must be equal. "
                             f"Received: value_shape={value_shape} and key_shape={key_shape}")
        q_rank = query_shape.rank
        with self._scope():
            # creation order decides the weight order: query, key, (gate,) value, output
            self.query_dense = self._projection(q_rank, [self._num_heads, self._key_dim], "query")
            self._build_sublayer(self.query_dense, query_shape)
            self.key_dense = self._projection(key_shape.rank, [self._num_heads, self._key_dim], "key")
            self._build_sublayer(self.key_dense, key_shape)
            if self._use_gate:
                self._gate_dense = self._projection(q_rank, [self._num_heads, self._value_dim], "gate",
                                                    activation="sigmoid")
                self._build_sublayer(self._gate_dense, query_shape)
            self.value_dense = self._projection(value_shape.rank, [self._num_heads, self._value_dim], "value")
            self._build_sublayer(self.value_dense, value_shape)
            rank = q_rank + 1  # of the projected tensors
            if self._attention_axes is None:
                self._attention_axes = tuple(range(1, rank - 2))
            else:
                self._attention_axes = tuple(a if a >= 0 else (rank - 1) + a for a in self._attention_axes)
            scores_rank = rank + len(self._attention_axes) - 1
            self._softmax = Softmax(axis=tuple(range(scores_rank - len(self._attention_axes), scores_rank)),
                                    dtype=self.dtype_policy)
            self._dropout_layer = Dropout(rate=self._dropout, seed=self.seed, dtype=self.dtype_policy)
            out_sizes = list(self._output_shape) if self._output_shape else [query_shape[-1]]
            self.output_dense = self._projection(q_rank, out_sizes, "attention_output", bound=2)
            out_in = self.query_dense.compute_output_shape(query_shape).as_list()
            out_in[-1] = self._value_dim
            self._build_sublayer(self.output_dense, TensorShape(out_in))
        self.built = True

    def __call__(self, query, value=None, key=None, **kwargs):
        """Build on the first call from all three shapes, pick up the inputs' padding masks, then
        run the layer (see the class docstring for the arguments)."""
        if value is None and "value" not in kwargs and isinstance(query, (list, tuple)) and 2 <= len(query) <= 3:
            # Keras 3 functional configs keep the call's positional arguments as one list, and
            # minitf's reader passes that list on as the first argument
            query, value, key = (list(query) + [None])[:3]
        if value is None and "value" not in kwargs:
            raise TypeError(f"MultiHeadAttention {self.name!r}: call() missing 1 required argument: "
                            f"'value'; call it as mha(query, value) (value=query for self-attention).")
        value = kwargs.pop("value", value)
        key = kwargs.pop("key", key)
        if not any_symbolic([query, value, key]):
            # Keras fills these from the inputs' masks at run time; a symbolic call records none
            # (the model's replay passes eager tensors, which carry their masks again)
            for name, x in (("query_mask", query), ("value_mask", value), ("key_mask", key)):
                if kwargs.get(name) is None and get_keras_mask(x) is not None:
                    kwargs[name] = get_keras_mask(x)
            # Keras then removes the masks from the inputs (this layer has used them), so a later
            # layer reading the same tensors sees none; models depend on it, so minitf does too
            for x in (query, value, key):
                if x is not None and get_keras_mask(x) is not None:
                    set_keras_mask(x, None)
        if not self.built:
            self.build(shape_of(query), shape_of(value), None if key is None else shape_of(key))
        return super().__call__(query, value, key, **kwargs)

    # -- calling --------------------------------------------------------------------------------
    def _attention_mask(self, query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask):
        """Keras' combined mask: query [B, T, 1] & value/key [B, 1, S] & causal [1, T, S] & window
        & the given attention_mask; None when there is no mask at all."""
        auto = None
        if query_mask is not None:
            auto = array_ops.expand_dims(as_bool_mask(query_mask), -1)
        for m in (value_mask, key_mask):
            if m is not None:
                auto = and_masks(auto, array_ops.expand_dims(as_bool_mask(m), -2))
        t, s = query.shape[1], value.shape[1]
        if use_causal_mask:
            auto = and_masks(auto, causal_mask(*sequence_lengths(query, value)))
        if self._sliding_window is not None:
            rows, cols = np.arange(t)[:, None], np.arange(s)[None, :]
            auto = and_masks(auto, convert_to_tensor((np.abs(rows - cols) < self._sliding_window)[None]))
        attention_mask = as_bool_mask(attention_mask)
        return and_masks(attention_mask, auto)

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None,
             return_attention_scores=False, training=None, use_causal_mask=False):
        value = self._cast_inputs(value)
        key = value if key is None else self._cast_inputs(key)
        mask = self._attention_mask(query, value, query_mask, value_mask, key_mask, attention_mask,
                                    use_causal_mask)
        gate = self._gate_dense(query) if self._use_gate else None
        q = self.query_dense(query)
        k = self.key_dense(key)
        v = self.value_dense(value)
        q = q * convert_to_tensor(self._inverse_sqrt_key_dim, dtype=q.dtype)  # exact in float64
        if mask is not None:
            # Keras inserts the missing axes just before the query axes (the head axis first)
            for _ in range(q.shape.rank + len(self._attention_axes) - 1 - mask.shape.rank):
                mask = array_ops.expand_dims(mask, -len(self._attention_axes) * 2 - 1)
        # Keras' fused path (rank-4 heads, no dropout, no scores) and its softmax path differ
        # only for fully masked rows: uniform probabilities there, zeros here
        scores_path = self._dropout > 0.0 or return_attention_scores or q.shape.rank != 4
        dropout = None
        if self._dropout > 0.0:
            def dropout(p):
                return self._dropout_layer(p, training=training)
        out, scores = dot_product_attention(q, k, v, list(self._attention_axes), mask, scores_path, dropout)
        if self._use_gate:
            out = out * gate
        out = self.output_dense(out)
        if query_mask is not None:
            set_keras_mask(out, query_mask)
        return (out, scores) if return_attention_scores else out

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        """The query's shape, its last axes replaced by `output_shape` when given."""
        query_shape = TensorShape(query_shape)
        if value_shape is not None and key_shape is not None:
            if TensorShape(value_shape)[1:-1].as_list() != TensorShape(key_shape)[1:-1].as_list():
                raise ValueError(f"All dimensions of `value` and `key`, except the last one, must be equal. "
                                 f"Received: value_shape={value_shape} and key_shape={key_shape}")
        if self._output_shape:
            return query_shape[:-1].concatenate(list(self._output_shape))
        return query_shape

    def get_config(self):
        """Keras 3's keys: heads, sizes, dropout, bias, output shape, axes, window, gate, seed,
        initializers, regularizers and constraints."""
        config = super().get_config()
        config.update({
            "num_heads": self._num_heads, "key_dim": self._key_dim, "value_dim": self._value_dim,
            "dropout": self._dropout, "use_bias": self._use_bias, "use_gate": self._use_gate,
            "output_shape": self._output_shape, "attention_axes": self._attention_axes,
            "sliding_window": self._sliding_window,
            "kernel_initializer": layer_utils.serialize(self._kernel_initializer, "initializers"),
            "bias_initializer": layer_utils.serialize(self._bias_initializer, "initializers"),
            "kernel_regularizer": layer_utils.serialize(self._kernel_regularizer, "regularizers"),
            "bias_regularizer": layer_utils.serialize(self._bias_regularizer, "regularizers"),
            "activity_regularizer": layer_utils.serialize(self._activity_regularizer, "regularizers"),
            "kernel_constraint": layer_utils.serialize(self._kernel_constraint, "constraints"),
            "bias_constraint": layer_utils.serialize(self._bias_constraint, "constraints"),
            "seed": self.seed,
        })
        return config
