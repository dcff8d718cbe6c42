"""Weighting and reducing per-example losses (Keras 3's loss reduction rules).

`reduce_weighted_values` turns the per-example values a loss function returns into what a
`Loss` object gives: weighted by `sample_weight` (and a validity mask), then summed or
averaged as `reduction` says. `squeeze_or_expand_to_same_rank` is Keras' rule for bringing
labels, predictions and weights whose ranks differ by one to the same rank.
"""
import numpy as np

from minitf.convert import convert_to_tensor
from minitf import distribution_context as distribute_context
from minitf.ops import array as array_ops
from minitf.ops import constant as constant_ops
from minitf.ops import math as math_ops
from minitf.ops import reduce as reduce_ops
from minitf.api_export import export

__all__ = ["Reduction", "standardize_reduction", "reduce_weighted_values",
           "squeeze_or_expand_to_same_rank", "scale_loss_for_distribution", "unscale_loss_for_distribution"]


def static_rank(x):
    return len(x.shape)


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """Make two tensors whose ranks differ by one agree, by dropping or adding a trailing 1."""
    r1, r2 = static_rank(x1), static_rank(x2)
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = array_ops.expand_dims(x2, -1)
        else:
            x1 = array_ops.squeeze(x1, -1)
    elif r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = array_ops.expand_dims(x1, -1)
        else:
            x2 = array_ops.squeeze(x2, -1)
    return x1, x2



@export("losses.Reduction", "keras.losses.Reduction")
class Reduction:
    """Keras 2's reduction names (tf.keras.losses.Reduction, kept by Keras 3 as a legacy class).

    Loss objects accept a different set: see `standardize_reduction`."""
    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        """The legacy reduction names."""
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        """Raise ValueError unless `key` is one of `all()` (None included, as in Keras 3)."""
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


_REDUCTIONS = ("sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight")


def standardize_reduction(reduction):
    """`reduction` if a Loss accepts it (Keras 3: 'sum_over_batch_size', 'sum', 'mean',
    'mean_with_sample_weight', 'none' or None); ValueError otherwise ('auto' included)."""
    if not any(reduction is r or (isinstance(reduction, str) and reduction == r)
               for r in _REDUCTIONS):
        raise ValueError(f"Invalid value for argument `reduction`. Expected one of {set(_REDUCTIONS)}. "
                         f"Received: reduction={reduction}")
    return reduction


def _divide_no_nan(x, y):
    return math_ops.divide_no_nan(x, constant_ops.cast(y, x.dtype))


def _apply_mask(sample_weight, mask, dtype, reduction):
    """Merge a validity mask into the sample weights (Keras' apply_mask): with 'mean' or
    'sum_over_batch_size' valid entries weigh total/valid, so the mean runs over them only."""
    if mask is None:
        return sample_weight
    if reduction in ("mean", "sum_over_batch_size"):
        total = float(np.prod(mask.shape.as_list()))
        valid = reduce_ops.reduce_sum(constant_ops.cast(mask, dtype))
        weight = _divide_no_nan(constant_ops.constant(total, dtype=dtype), valid)
        float_mask = array_ops.where(constant_ops.cast(mask, "bool"), weight, array_ops.zeros_like(weight))
    else:
        float_mask = constant_ops.cast(mask, dtype)
    if sample_weight is None:
        return float_mask
    sample_weight = constant_ops.cast(sample_weight, dtype)
    float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask, sample_weight)
    return sample_weight * float_mask


def reduce_weighted_values(values, sample_weight=None, mask=None, reduction="sum_over_batch_size",
                           dtype=None):
    """Weight per-example `values` by `sample_weight` (and an optional validity mask), then reduce.

    'sum' sums; 'sum_over_batch_size' and 'mean' divide the sum by the number of values;
    'mean_with_sample_weight' divides it by the sum of the weights (by the number of values
    without weights); 'none'/None return the weighted values. 0-d values and values of shape
    (0,) are returned as they are.
    """
    reduction = standardize_reduction(reduction)
    values = convert_to_tensor(values)
    if dtype is not None:
        values = constant_ops.cast(values, dtype)
    if sample_weight is not None:
        sample_weight = convert_to_tensor(sample_weight)
    sample_weight = _apply_mask(sample_weight, mask, values.dtype, reduction)
    if sample_weight is not None:
        sample_weight = constant_ops.cast(sample_weight, values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    if reduction in (None, "none") or static_rank(values) == 0 or values.shape.as_list() == [0]:
        return values
    loss = reduce_ops.reduce_sum(values)
    if reduction in ("sum_over_batch_size", "mean", "mean_with_sample_weight"):
        if reduction == "mean_with_sample_weight" and sample_weight is not None:
            divisor = reduce_ops.reduce_sum(sample_weight)
        else:
            dims = values.shape.as_list()
            if None in dims:  # traced with an unknown batch size: the count when the graph runs
                divisor = constant_ops.cast(array_ops.size(values), loss.dtype)
            else:
                divisor = constant_ops.constant(float(np.prod(dims)), dtype=loss.dtype)
        loss = _divide_no_nan(loss, divisor)
        loss = scale_loss_for_distribution(loss)
    return loss


def _replicas_in_force():
    entry = distribute_context.top()
    return entry[0]._num_replicas if entry is not None else 1


def scale_loss_for_distribution(value):
    """`value` / the number of replicas of the tf.distribute strategy in force (Keras 3 scales
    averaged losses so, as summing the replicas' gradients then gives the global batch's mean);
    `value` itself with one replica."""
    replicas = _replicas_in_force()
    return value if replicas == 1 else value * constant_ops.constant(1.0 / replicas, dtype=value.dtype)


def unscale_loss_for_distribution(value):
    """`value` * the number of replicas in force: the loss as one replica's batch mean again (what
    the loss tracker records)."""
    replicas = _replicas_in_force()
    return value if replicas == 1 else value * constant_ops.constant(float(replicas), dtype=value.dtype)
