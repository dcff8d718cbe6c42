"""tf.math.confusion_matrix: counts (or summed weights) of each (label, prediction) pair, built
from checked int64 indices and scatter_nd as TF builds it, so weights are differentiable and the
op traces into tf.function like its parts."""
from minitf import dispatch, dtypes
from minitf.ops._core import as_tensor
from minitf.ops.constant import cast
from minitf.ops.creation import ones_like
from minitf.ops.debugging import assert_less, assert_non_negative
from minitf.ops.gather import scatter_nd
from minitf.ops.math import maximum
from minitf.ops.reduce import reduce_max
from minitf.ops.shaping import squeeze, stack
from minitf.api_export import export

__all__ = ["confusion_matrix"]


def _squeezable_last(shape):
    return shape.rank and shape[-1] in (None, 1)


def _remove_squeezable_dimensions(labels, predictions):
    """Squeeze a trailing size-1 axis off whichever of the two has rank one more than the other."""
    diff = predictions.shape.rank - labels.shape.rank
    if diff == 1 and _squeezable_last(predictions.shape):
        predictions = squeeze(predictions, [-1])
    elif diff == -1 and _squeezable_last(labels.shape):
        labels = squeeze(labels, [-1])
    return labels, predictions


@export("math.confusion_matrix")
@dispatch.add_dispatch_support
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32, name=None):
    """The [num_classes, num_classes] matrix whose entry (i, j) counts the examples with label i
    predicted as j (or sums their `weights`, cast to `dtype`).

    Labels and predictions are cast to int64 and must be non-negative (and below `num_classes`
    when given; otherwise it is max(labels, predictions) + 1): InvalidArgumentError if not. A
    trailing size-1 axis on one of them is squeezed, as TF does.
    """
    labels, predictions = _remove_squeezable_dimensions(as_tensor(labels), as_tensor(predictions))
    predictions = cast(predictions, "int64")
    labels = cast(labels, "int64")
    assert_non_negative(labels, message="`labels` contains negative values")
    assert_non_negative(predictions, message="`predictions` contains negative values")
    if num_classes is None:
        num_classes = maximum(reduce_max(predictions), reduce_max(labels)) + 1
    else:
        num_classes = cast(num_classes, "int64")
        assert_less(labels, num_classes, message="`labels` out of bound")
        assert_less(predictions, num_classes, message="`predictions` out of bound")
    if weights is not None:
        weights = as_tensor(weights)
        predictions.shape.assert_is_compatible_with(weights.shape)
        weights = cast(weights, dtype)
    values = ones_like(predictions, dtype) if weights is None else weights
    indices = stack([labels, predictions], axis=1)
    return scatter_nd(indices=indices, updates=values, shape=cast(stack([num_classes, num_classes]), "int64"))
