"""Attention and AdditiveAttention (Keras 3), and the mask helpers the attention layers share.

Padding masks travel on tensors as `_keras_mask` (Embedding(mask_zero=True), Masking; see
minitf.layers.mask_propagation): Attention receives them as its `mask` list, MultiHeadAttention as its
query/value/key masks. The mask helpers here are shared by both modules.
"""
import numpy as np

from minitf.dtypes import dtypes
from minitf.convert import convert_to_tensor
from minitf.keras_ops import random as keras_random
from minitf.layers.base import Layer
from minitf.layers.mask_propagation import set_keras_mask
from minitf.ops import array as array_ops
from minitf.ops import compare as compare_ops
from minitf.ops import creation
from minitf.ops import math as math_ops
from minitf.ops import nn as nn_ops
from minitf.ops import reduce as reduce_ops
from minitf.ops.constant import cast
from minitf.ops.linalg import matmul
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Attention", "AdditiveAttention", "as_bool_mask", "causal_mask",
           "large_negative", "and_masks"]


# -- masks ------------------------------------------------------------------------------------
def as_bool_mask(mask):
    """`mask` as a bool tensor (nonzero is True), or None."""
    if mask is None:
        return None
    mask = convert_to_tensor(mask)
    return mask if mask.dtype == dtypes.bool else compare_ops.not_equal(mask, cast(0, mask.dtype))


def causal_mask(q_len, k_len):
    """[1, q_len, k_len] bool: position i may attend to positions j <= i. The lengths are ints,
    or scalar tensors (a traced call whose sequence length is unknown)."""
    if isinstance(q_len, int) and isinstance(k_len, int):
        return convert_to_tensor(np.tril(np.ones((q_len, k_len), dtype=bool))[None])
    rows = array_ops.expand_dims(creation.range(q_len), -1)
    cols = array_ops.expand_dims(creation.range(k_len), 0)
    return array_ops.expand_dims(compare_ops.greater_equal(rows, cols), 0)


def sequence_lengths(query, value):
    """The lengths of axis 1 of `query` and `value`: ints where known, else scalar tensors."""
    return tuple(t.shape[1] if t.shape[1] is not None else array_ops.shape(t)[1] for t in (query, value))


def _tanh(x):
    return math_ops.tanh(x)


def _reduce_sum(x, axis):
    return reduce_ops.reduce_sum(x, axis=axis)


def and_masks(a, b):
    """The logical and of two bool masks, either of which may be None."""
    return b if a is None else (a if b is None else compare_ops.logical_and(a, b))


def large_negative(dtype, for_scores):
    """The logit masked positions get: Keras' Softmax value (scores path) or its fused
    attention's (-0.7 * the float's range), which decide what a fully masked row gives."""
    half = dtypes.as_dtype(dtype) == dtypes.float16
    if for_scores:
        return -3e4 if half else -1e9
    return -0.7 * (65500.0 if half else 3.38953e38)


@export("layers.Attention", "keras.layers.Attention")
class Attention(Layer):
    """Dot-product (Luong-style) attention over `[query, value]` or `[query, value, key]`.

    The scores are `query @ key^T` (times the scalar `scale` when `use_scale`), or for
    `score_mode='concat'` `concat_score_weight * sum(tanh(scale * (q + k)), -1)`; their softmax
    over the value positions weights the values. The query and value are [batch, Tq, dim] and
    [batch, Tv, dim]; the output is [batch, Tq, dim].

    Example:

    ```python
    attention = tf.keras.layers.Attention()
    out = attention([query, value])   # query [2, 4, 8], value [2, 6, 8] -> [2, 4, 8]
    ```

    Args:
        use_scale: learn a scalar `scale` for the scores (starts at 1).
        score_mode: 'dot' or 'concat'.
        dropout: the dropout rate on the attention probabilities (training only).
        seed: the dropout seed.
        **kwargs: the Layer arguments.

    Call arguments:
        inputs: a list [query, value] or [query, value, key] (key defaults to value).
        mask: a list [query_mask, value_mask] of bool [batch, Tq] / [batch, Tv]: masked values
            get no weight; masked query positions give zero outputs. By default the inputs'
            `_keras_mask`.
        training, return_attention_scores, use_causal_mask: as for MultiHeadAttention.

    Raises:
        ValueError: an unknown score_mode, inputs or masks that are not lists of 2 or 3.
    """

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale
        self.score_mode = score_mode
        self.dropout = float(dropout)
        self.seed = seed
        if self.dropout > 0:  # where Keras 3 builds it (an unseeded one takes a Python-random seed)
            self.seed_generator = keras_random.SeedGenerator(seed)
        if self.score_mode not in ("dot", "concat"):
            raise ValueError(f"Invalid value for argument score_mode. Expected one of {{'dot', 'concat'}}. "
                             f"Received: score_mode={score_mode}")

    def _validate_inputs(self, inputs, mask=None):
        name = type(self).__name__
        if not isinstance(inputs, list):
            raise ValueError(f"{name} layer must be called on a list of inputs, namely [query, value] or "
                             f"[query, value, key]. Received: inputs={inputs}.")
        if not 2 <= len(inputs) <= 3:
            raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely [query, value] or "
                             f"[query, value, key]. Received length: {len(inputs)}.")
        if mask is not None:
            if not isinstance(mask, list):
                raise ValueError(f"{name} layer mask must be a list, namely [query_mask, value_mask]. "
                                 f"Received: mask={mask}.")
            if not 2 <= len(mask) <= 3:
                raise ValueError(f"{name} layer accepts mask list of length 2 or 3. Received: "
                                 f"inputs={inputs}, mask={mask}.")

    def _record_shapes(self, input_shape):
        """Validate the shapes and keep them as plain lists (the build config Keras writes)."""
        shapes = list(input_shape) if isinstance(input_shape, tuple) else input_shape
        self._validate_inputs(shapes)
        self._build_input_shape = [TensorShape(s).as_list() for s in shapes]
        return shapes

    def build(self, input_shape):
        self._record_shapes(input_shape)
        self.scale = None
        self.concat_score_weight = None
        if self.use_scale:
            self.scale = self.add_weight("scale", shape=(), initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight("concat_score_weight", shape=(), initializer="ones")
        self.built = True

    def _calculate_scores(self, query, key):
        """[batch, Tq, Tv] scores of each query against each key."""
        if self.score_mode == "dot":
            scores = matmul(query, key, transpose_b=True)
            return scores * cast(self.scale, scores.dtype) if self.scale is not None else scores
        summed = array_ops.expand_dims(query, -2) + array_ops.expand_dims(key, -3)
        if self.scale is not None:
            summed = cast(self.scale, summed.dtype) * summed
        return cast(self.concat_score_weight, summed.dtype) * _reduce_sum(_tanh(summed), -1)

    def _apply_scores(self, scores, value, scores_mask=None, training=False):
        """softmax(scores) @ value, masked positions pushed down by a large number first."""
        if scores_mask is not None:
            padding = compare_ops.logical_not(scores_mask)
            big = 65504.0 if scores.dtype == dtypes.float16 else 1.0e9
            if padding.shape.rank == 2:
                padding = array_ops.expand_dims(padding, -2)
            scores = array_ops.where(padding, scores - convert_to_tensor(big, dtype=scores.dtype), scores)
        weights = nn_ops.softmax(scores, axis=-1)
        if training and self.dropout > 0:  # the scores returned are the dropped ones, as Keras'
            weights = keras_random.dropout(weights, self.dropout, seed=self.seed_generator)
        return matmul(weights, value), weights

    def call(self, inputs, mask=None, training=False, return_attention_scores=False, use_causal_mask=False):
        self._validate_inputs(inputs, mask)
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = as_bool_mask(mask[0]) if mask else None
        v_mask = as_bool_mask(mask[1]) if mask else None
        scores = self._calculate_scores(q, k)
        if use_causal_mask:
            known = scores.shape.as_list()
            sizes = [d if d is not None else array_ops.shape(scores)[i] for i, d in
                     ((-2, known[-2]), (-1, known[-1]))]
            scores_mask = causal_mask(*sizes)
            if v_mask is not None:
                scores_mask = compare_ops.logical_and(array_ops.expand_dims(v_mask, -2), scores_mask)
        else:
            scores_mask = v_mask
        out, weights = self._apply_scores(scores, v, scores_mask, training)
        if q_mask is not None:
            out = array_ops.where(array_ops.expand_dims(q_mask, -1), out, array_ops.zeros_like(out))
            set_keras_mask(out, q_mask)
        return (out, weights) if return_attention_scores else out

    def compute_mask(self, inputs, mask=None):
        """The query's mask (the output has the query's positions)."""
        self._validate_inputs(inputs, mask)
        if mask is None or mask[0] is None:
            return None
        return convert_to_tensor(mask[0])

    def compute_output_shape(self, input_shape):
        """(*query_shape[:-1], value_shape[-1])."""
        query_shape, value_shape = TensorShape(input_shape[0]), TensorShape(input_shape[1])
        return query_shape[:-1].concatenate(value_shape[-1:])

    def get_config(self):
        """use_scale, score_mode, dropout, seed."""
        config = super().get_config()
        config.update({"use_scale": self.use_scale, "score_mode": self.score_mode, "dropout": self.dropout,
                       "seed": self.seed})
        return config


@export("layers.AdditiveAttention", "keras.layers.AdditiveAttention")
class AdditiveAttention(Attention):
    """Additive (Bahdanau-style) attention: scores `sum(scale * tanh(query + key), -1)`.

    `scale` is a learned vector of the feature size (glorot-uniform start) when `use_scale`
    (the default). Inputs, masks and outputs are as for `Attention`.

    Args:
        use_scale: learn the per-feature `scale`.
        dropout: the dropout rate on the attention probabilities (training only).
        **kwargs: `seed` and the Layer arguments.
    """

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        dim = TensorShape(self._record_shapes(input_shape)[0])[-1]
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight("scale", shape=[dim], initializer="glorot_uniform")
        self.built = True

    def _calculate_scores(self, query, key):
        summed = _tanh(array_ops.expand_dims(query, -2) + array_ops.expand_dims(key, -3))
        if self.use_scale:
            summed = cast(self.scale, summed.dtype) * summed
        return _reduce_sum(summed, -1)

    def get_config(self):
        """use_scale, dropout, seed (no score_mode)."""
        config = super().get_config()
        del config["score_mode"]
        return config
