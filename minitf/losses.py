"""tf.keras.losses: loss functions (per-example values) and Loss objects (reduced to a scalar).

The function forms (`mean_squared_error(y_true, y_pred)`, ...) return one loss per example,
averaging or summing over the last axis as Keras does; y_pred keeps its floating dtype and
y_true is cast to it. A `Loss` object casts both to its dtype (float32 by default, as Keras 3),
calls its function, weights the result by `sample_weight` and reduces it
('sum_over_batch_size' by default: sum of weighted losses divided by their number).

Shapes follow Keras 3: the regression functions and every Loss object first bring y_true and
y_pred whose ranks differ by one to the same rank (`squeeze_or_expand_to_same_rank`); the
cross-entropies then require equal shapes (ValueError). Formulas follow Keras (probabilities
are clipped to [1e-7, 1 - 1e-7]; the `from_logits` paths work on logits directly, without
overflow).
"""
import warnings

import numpy as np

__all__ = ["Reduction", "Loss", "BinaryCrossentropy",
           "CategoricalCrossentropy", "SparseCategoricalCrossentropy", "MeanSquaredError",
           "MeanAbsoluteError", "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError",
           "Huber", "KLDivergence", "CosineSimilarity", "Hinge", "SquaredHinge",
           "CategoricalHinge", "LogCosh", "Poisson",
           "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy",
           "huber", "cosine_similarity", "hinge", "squared_hinge", "categorical_hinge", "poisson",
           "mse", "mae", "mape", "msle", "kld", "MSE", "MAE", "MAPE", "MSLE", "KLD", "logcosh",
           "kullback_leibler_divergence", "get", "serialize", "deserialize"]

EPSILON = 1e-7


def _tf():
    import minitf
    return minitf


# -- conversion and shape helpers ---------------------------------------------------------------

def _pred_true(y_true, y_pred):
    """y_pred as a floating tensor, y_true cast to its dtype."""
    tf = _tf()
    y_pred = tf.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = tf.cast(y_pred, tf.float32)
    y_true = tf.cast(tf.convert_to_tensor(y_true), y_pred.dtype)
    return y_true, y_pred


def _rank(x):
    return len(x.shape)


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """Make two tensors whose ranks differ by one agree, by dropping or adding a trailing 1."""
    tf = _tf()
    r1, r2 = _rank(x1), _rank(x2)
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = tf.expand_dims(x2, -1)
        else:
            x1 = tf.squeeze(x1, -1)
    elif r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = tf.expand_dims(x1, -1)
        else:
            x2 = tf.squeeze(x2, -1)
    return x1, x2


def _const_like(value, like):
    """A constant tensor (no gradient) from a raw array, in the dtype of `like`."""
    from minitf.tensor import Tensor
    return Tensor(value.astype(like._value.dtype))


# -- reductions -------------------------------------------------------------------------------

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
    tf = _tf()
    return tf.math.divide_no_nan(x, tf.cast(y, x.dtype))


def _apply_mask(sample_weight, mask, dtype, reduction):
    """Merge a validity mask into the sample weights (Keras' apply_mask): with 'mean' or
    'sum_over_batch_size' valid entries weigh total/valid, so the mean runs over them only."""
    tf = _tf()
    if mask is None:
        return sample_weight
    if reduction in ("mean", "sum_over_batch_size"):
        total = float(np.prod(mask.shape.as_list()))
        valid = tf.reduce_sum(tf.cast(mask, dtype))
        weight = _divide_no_nan(tf.constant(total, dtype=dtype), valid)
        float_mask = tf.where(tf.cast(mask, "bool"), weight, tf.zeros_like(weight))
    else:
        float_mask = tf.cast(mask, dtype)
    if sample_weight is None:
        return float_mask
    sample_weight = tf.cast(sample_weight, dtype)
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
    tf = _tf()
    reduction = standardize_reduction(reduction)
    values = tf.convert_to_tensor(values)
    if dtype is not None:
        values = tf.cast(values, dtype)
    if sample_weight is not None:
        sample_weight = tf.convert_to_tensor(sample_weight)
    sample_weight = _apply_mask(sample_weight, mask, values.dtype, reduction)
    if sample_weight is not None:
        sample_weight = tf.cast(sample_weight, values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    if reduction in (None, "none") or _rank(values) == 0 or values.shape.as_list() == [0]:
        return values
    loss = tf.reduce_sum(values)
    if reduction in ("sum_over_batch_size", "mean", "mean_with_sample_weight"):
        if reduction == "mean_with_sample_weight" and sample_weight is not None:
            divisor = tf.reduce_sum(sample_weight)
        else:
            divisor = tf.constant(float(np.prod(values.shape.as_list())), dtype=loss.dtype)
        loss = _divide_no_nan(loss, divisor)
    return loss


# -- the loss functions -----------------------------------------------------------------------

def mean_squared_error(y_true, y_pred):
    """mean((y_pred - y_true)^2) over the last axis."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return tf.reduce_mean(tf.math.squared_difference(y_pred, y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """mean(|y_pred - y_true|) over the last axis."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return tf.reduce_mean(tf.abs(y_pred - y_true), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    """100 * mean(|(y_true - y_pred) / max(|y_true|, eps)|) over the last axis."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    diff = tf.abs((y_true - y_pred) / tf.maximum(tf.abs(y_true), EPSILON))
    return 100.0 * tf.reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    """mean((log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1))^2) over the last axis."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    first = tf.math.log(tf.maximum(y_pred, EPSILON) + 1.0)
    second = tf.math.log(tf.maximum(y_true, EPSILON) + 1.0)
    return tf.reduce_mean(tf.square(first - second), axis=-1)


def huber(y_true, y_pred, delta=1.0):
    """Quadratic for |error| <= delta, linear beyond: mean over the last axis."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    error = y_pred - y_true
    abs_error = tf.abs(error)
    quadratic = 0.5 * tf.square(error)
    linear = delta * abs_error - 0.5 * delta * delta
    return tf.reduce_mean(tf.where(tf.less_equal(abs_error, delta), quadratic, linear), axis=-1)


def log_cosh(y_true, y_pred):
    """mean(log(cosh(y_pred - y_true))) over the last axis, computed without overflow."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    x = y_pred - y_true
    return tf.reduce_mean(x + tf.math.softplus(-2.0 * x) - float(np.log(2.0)), axis=-1)


def kl_divergence(y_true, y_pred):
    """sum(y_true * log(y_true / y_pred)) over the last axis, both clipped to [eps, 1]."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = tf.clip_by_value(y_true, EPSILON, 1.0)
    y_pred = tf.clip_by_value(y_pred, EPSILON, 1.0)
    return tf.reduce_sum(y_true * tf.math.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    """mean(y_pred - y_true * log(y_pred + eps)) over the last axis."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    return tf.reduce_mean(y_pred - y_true * tf.math.log(y_pred + EPSILON), axis=-1)


def _l2_normalize(x, axis):
    """keras.ops.normalize: x * min(rsqrt(sum(x^2)), 1/epsilon); a 0-d x is a 1-vector."""
    tf = _tf()
    if _rank(x) == 0:
        x = tf.expand_dims(x, 0)
    # rsqrt(max(s, eps^2)) == min(rsqrt(s), 1/eps), without dividing by zero
    square_sum = tf.reduce_sum(tf.square(x), axis=axis, keepdims=True)
    return x * tf.math.rsqrt(tf.maximum(square_sum, EPSILON * EPSILON))


def cosine_similarity(y_true, y_pred, axis=-1):
    """-sum(l2_normalize(y_true) * l2_normalize(y_pred)) along `axis` (-1 means aligned)."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return -tf.reduce_sum(_l2_normalize(y_true, axis) * _l2_normalize(y_pred, axis), axis=axis)


def _signed_labels(y_true):
    """Labels in {0, 1} become {-1, 1}; anything else is used as given (Keras' rule)."""
    from minitf.backend import array_module
    raw = y_true._value
    xp = array_module(raw)
    if bool(xp.all((raw == 0) | (raw == 1))):
        return 2.0 * y_true - 1.0
    return y_true


def hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0)) over the last axis; 0/1 labels become -1/1."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = _signed_labels(y_true)
    return tf.reduce_mean(tf.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0)^2) over the last axis; 0/1 labels become -1/1."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = _signed_labels(y_true)
    return tf.reduce_mean(tf.square(tf.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true, y_pred):
    """max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0) over the last axis."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    pos = tf.reduce_sum(y_true * y_pred, axis=-1)
    neg = tf.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return tf.maximum(neg - pos + 1.0, 0.0)


def _check_same_shape(y_true, y_pred, who):
    """Keras 3's cross-entropy checks: same rank, then same shape (ValueError otherwise)."""
    t, p = y_true.shape.as_list(), y_pred.shape.as_list()
    if len(t) != len(p):
        raise ValueError(f"{who}: y_true and y_pred must have the same rank (ndim), got shapes "
                         f"{t} and {p}; reshape one of them (e.g. tf.expand_dims(y_true, -1)).")
    if t != p:
        raise ValueError(f"{who}: y_true and y_pred must have the same shape, got {t} and {p}.")


def _log_softmax(x, axis):
    from minitf import activations
    return activations.log_softmax(x, axis=axis)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy averaged over `axis`; labels are smoothed toward 0.5 first.

    Probabilities are clipped to [1e-7, 1 - 1e-7] before the logs (Keras 3; Keras 2 also
    added 1e-7 inside each log, a difference below 1e-6 for unclipped values).
    """
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    _check_same_shape(y_true, y_pred, "binary_crossentropy")
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return tf.reduce_mean(_elementwise_bce(y_true, y_pred, from_logits), axis=axis)


def _elementwise_bce(target, output, from_logits):
    tf = _tf()
    if from_logits:
        op = getattr(tf.nn, "sigmoid_cross_entropy_with_logits", None)
        if op is not None:
            return op(labels=target, logits=output)
        # max(x, 0) - x z + log(1 + exp(-|x|)): never overflows
        return tf.maximum(output, 0.0) - output * target + tf.math.softplus(-tf.abs(output))
    output = tf.clip_by_value(output, EPSILON, 1.0 - EPSILON)
    return -(target * tf.math.log(output) + (1.0 - target) * tf.math.log(1.0 - output))


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """-sum(y_true * log(p)) along `axis`; p is y_pred normalized and clipped, or softmax(logits)."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    if _rank(y_pred) < 1:  # Keras 3 reads y_pred.shape[-1] first: IndexError
        raise IndexError("categorical_crossentropy: y_pred must be at least rank 1 (batch, classes), "
                         f"got a 0-d y_pred (y_true of shape {y_true.shape.as_list()}).")
    if _rank(y_true) < 1:
        raise ValueError("categorical_crossentropy: y_true and y_pred must be at least rank 1, got "
                         f"shapes {y_true.shape.as_list()} and {y_pred.shape.as_list()}.")
    _check_same_shape(y_true, y_pred, "categorical_crossentropy")
    if y_pred.shape[-1] == 1:
        warnings.warn("In loss categorical_crossentropy, expected y_pred.shape to be (batch_size, "
                      f"num_classes) with num_classes > 1. Received: y_pred.shape={y_pred.shape}. "
                      "Consider using 'binary_crossentropy' if you only have 2 classes.",
                      SyntaxWarning, stacklevel=2)
    if label_smoothing:  # Keras 3 smooths over the last axis whatever `axis` is
        num_classes = float(y_true.shape[-1])
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    if from_logits:
        op = getattr(tf.nn, "softmax_cross_entropy_with_logits", None)
        if op is not None:
            return op(labels=y_true, logits=y_pred, axis=axis)
        return -tf.reduce_sum(y_true * _log_softmax(y_pred, axis), axis=axis)
    y_pred = y_pred / tf.reduce_sum(y_pred, axis=axis, keepdims=True)
    y_pred = tf.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
    return -tf.reduce_sum(y_true * tf.math.log(y_pred), axis=axis)


def _sparse_labels(y_true, y_pred, axis):
    """Integer labels as a raw array with y_pred's rank minus one (a trailing 1 is dropped)."""
    from minitf.backend import array_module
    tf = _tf()
    y_true = tf.convert_to_tensor(y_true)
    raw = y_true._value
    if raw.ndim == _rank(y_pred) and raw.ndim and raw.shape[-1] == 1:
        raw = raw[..., 0]
    xp = array_module(raw)
    if raw.dtype.kind == "f":
        raw = raw.astype("int64")
    expected = y_pred.shape.as_list()
    del expected[axis]
    if list(raw.shape) != expected:
        raise ValueError(f"sparse_categorical_crossentropy: labels of shape {list(y_true.shape)} do not "
                         f"match logits of shape {y_pred.shape.as_list()} (expected labels of shape "
                         f"{expected}).")
    return xp.asarray(raw)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    """Cross-entropy with integer labels: -log p[label] along `axis`.

    Labels equal to `ignore_class` contribute 0 (and are left out of the Loss object's mean).
    """
    losses, _ = _sparse_cce_with_mask(y_true, y_pred, from_logits, ignore_class, axis)
    return losses


def _sparse_cce_with_mask(y_true, y_pred, from_logits, ignore_class, axis):
    from minitf import errors
    from minitf.backend import array_module
    tf = _tf()
    y_pred = tf.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = tf.cast(y_pred, tf.float32)
    rank = _rank(y_pred)
    if axis != -1 and axis != rank - 1:
        if ignore_class is not None:
            # Keras masks y_pred with expand_dims(labels != ignore_class, axis) first
            t_shape = list(tf.convert_to_tensor(y_true).shape.as_list())
            if len(t_shape) == rank and -rank <= axis < rank and t_shape[axis] == 1:
                del t_shape[axis]
            if -len(t_shape) - 1 <= axis <= len(t_shape):
                t_shape.insert(axis % (len(t_shape) + 1), 1)
            try:
                np.broadcast_shapes(tuple(t_shape), tuple(y_pred.shape.as_list()))
            except ValueError:
                raise errors.invalid_argument(
                    "SelectV2", f"condition {t_shape}, then {y_pred.shape.as_list()}, and else [] "
                                "must be broadcastable") from None
        raise ValueError(f"sparse_categorical_crossentropy: only axis=-1 is currently supported "
                         f"(as Keras 3). Received: axis={axis}; move the class axis last "
                         "(e.g. tf.transpose) first.")
    labels = _sparse_labels(y_true, y_pred, axis)
    xp = array_module(labels)
    num_classes = y_pred.shape[axis]
    valid = None
    if ignore_class is not None:
        valid = labels != ignore_class
        labels = xp.where(valid, labels, 0)
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        bad = int(labels.max() if labels.max() >= num_classes else labels.min())
        raise errors.invalid_argument(
            "SparseSoftmaxCrossEntropyWithLogits",
            f"Received a label value of {bad} which is outside the valid range of [0, {num_classes}). "
            f"Label values: {labels.tolist()}")
    if from_logits:
        log_probs = _log_softmax(y_pred, axis)
    else:
        # Keras: clip, take logs, then treat those as logits (re-normalizes)
        clipped = tf.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
        log_probs = _log_softmax(tf.math.log(clipped), axis)
    ax = axis % _rank(y_pred)
    picks = xp.expand_dims(labels, ax) == xp.arange(num_classes).reshape(
        [num_classes if i == ax else 1 for i in range(_rank(y_pred))])
    losses = -tf.reduce_sum(log_probs * _const_like(picks, log_probs), axis=ax)
    if valid is not None:
        losses = losses * _const_like(valid, losses)
        valid = _const_like(valid, losses)
    return losses, valid


# -- aliases Keras accepts ---------------------------------------------------------------------
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh


# -- Loss objects -----------------------------------------------------------------------------

class Loss:
    """Base class: subclasses implement `call(y_true, y_pred)` returning per-example losses.

    `loss(y_true, y_pred, sample_weight=None)` casts both inputs to the loss dtype (float32
    unless `dtype` says otherwise, as Keras 3), then weights and reduces the losses as
    `reduction` says: 'sum_over_batch_size' (default) or 'mean', 'mean_with_sample_weight',
    'sum', or 'none'/None. A default name is the snake_case class name made unique per
    process ('squared', 'squared_1', ...), as Keras' auto_name.
    """

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):  # Keras 3's order
        self.name = name or _auto_name(type(self).__name__)  # first: Keras names even a bad loss
        self.reduction = standardize_reduction(reduction)
        self._dtype = _compute_dtype(dtype)

    @property
    def dtype(self):
        """The dtype the loss computes in, as a string ('float32' by default)."""
        return self._dtype

    def call(self, y_true, y_pred):
        """Per-example losses; subclasses override."""
        raise NotImplementedError(f"{type(self).__name__} must implement call(y_true, y_pred).")

    def _call_with_mask(self, y_true, y_pred):
        return self.call(y_true, y_pred), None

    def __call__(self, y_true, y_pred, sample_weight=None):
        tf = _tf()
        y_pred = tf.cast(tf.convert_to_tensor(y_pred), self._dtype)
        y_true = tf.cast(tf.convert_to_tensor(y_true), self._dtype)
        losses, mask = self._call_with_mask(y_true, y_pred)
        return reduce_weighted_values(losses, sample_weight, mask, self.reduction, dtype=self._dtype)

    def get_config(self):
        """Constructor arguments as a dict (name and reduction here; subclasses add theirs)."""
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        """A new loss from the dict `get_config` produced."""
        return cls(**config)


def _compute_dtype(dtype):
    """A dtype argument (None, a name, a DType or a dtype policy) as the name of a dtype."""
    from minitf import dtypes
    from minitf.layers.base import floatx
    dtype = getattr(dtype, "compute_dtype", dtype)
    return dtypes.as_dtype(dtype or floatx()).name


def _auto_name(class_name):
    from minitf.layers.base import unique_layer_name  # the counter Keras shares with layers
    return unique_layer_name(_snake(class_name))


def _snake(name):
    from minitf.layers.base import to_snake_case  # Keras' naming rule
    return to_snake_case(name)


class LossFunctionWrapper(Loss):
    """A Loss around a function `fn(y_true, y_pred, **kwargs)` returning per-example losses."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(reduction=reduction, name=name, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        tf = _tf()
        y_pred = tf.convert_to_tensor(y_pred)
        y_true = tf.convert_to_tensor(y_true)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        config = super().get_config()
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config):
        if cls is LossFunctionWrapper:
            raise ValueError("LossFunctionWrapper.from_config needs the function; "
                             "construct it directly with LossFunctionWrapper(fn, ...).")
        return cls(**config)


def _wrapper(fn, default_name, doc, **defaults):
    """Define a LossFunctionWrapper subclass whose keyword arguments are `defaults`."""
    argnames = tuple(defaults)

    def __init__(self, *args, reduction="sum_over_batch_size", name=default_name, dtype=None, **kwargs):
        values = dict(defaults)
        for key, value in zip(argnames, args):
            values[key] = value
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {key!r}")
            values[key] = value
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, dtype=dtype, **values)

    return {"__init__": __init__, "__doc__": doc}


def _define(class_name, fn, default_name, doc, **defaults):
    cls = type(class_name, (LossFunctionWrapper,), _wrapper(fn, default_name, doc, **defaults))
    cls.__module__ = __name__
    return cls


BinaryCrossentropy = _define(
    "BinaryCrossentropy", binary_crossentropy, "binary_crossentropy",
    "Cross-entropy for 0/1 labels; BinaryCrossentropy(from_logits=False, label_smoothing=0.0, axis=-1).",
    from_logits=False, label_smoothing=0.0, axis=-1)
CategoricalCrossentropy = _define(
    "CategoricalCrossentropy", categorical_crossentropy, "categorical_crossentropy",
    "Cross-entropy for one-hot labels; (from_logits=False, label_smoothing=0.0, axis=-1).",
    from_logits=False, label_smoothing=0.0, axis=-1)
MeanSquaredError = _define("MeanSquaredError", mean_squared_error, "mean_squared_error",
                           "Mean of squared errors over the last axis, then reduced.")
MeanAbsoluteError = _define("MeanAbsoluteError", mean_absolute_error, "mean_absolute_error",
                            "Mean of absolute errors over the last axis, then reduced.")
MeanAbsolutePercentageError = _define(
    "MeanAbsolutePercentageError", mean_absolute_percentage_error, "mean_absolute_percentage_error",
    "100 * mean(|(y_true - y_pred) / y_true|), then reduced.")
MeanSquaredLogarithmicError = _define(
    "MeanSquaredLogarithmicError", mean_squared_logarithmic_error, "mean_squared_logarithmic_error",
    "Mean of squared differences of log(1 + y), then reduced.")
Huber = _define("Huber", huber, "huber_loss", "Huber loss with threshold `delta` (default 1.0).",
                delta=1.0)
KLDivergence = _define("KLDivergence", kl_divergence, "kl_divergence",
                       "Kullback-Leibler divergence of y_pred from y_true, then reduced.")
CosineSimilarity = _define("CosineSimilarity", cosine_similarity, "cosine_similarity",
                           "Negative cosine similarity along `axis` (default -1), then reduced.",
                           axis=-1)
Hinge = _define("Hinge", hinge, "hinge", "Hinge loss for -1/1 (or 0/1) labels, then reduced.")
SquaredHinge = _define("SquaredHinge", squared_hinge, "squared_hinge",
                       "Squared hinge loss for -1/1 (or 0/1) labels, then reduced.")
CategoricalHinge = _define("CategoricalHinge", categorical_hinge, "categorical_hinge",
                           "Categorical hinge loss for one-hot labels, then reduced.")
LogCosh = _define("LogCosh", log_cosh, "log_cosh", "log(cosh(error)) averaged, then reduced.")
Poisson = _define("Poisson", poisson, "poisson", "Poisson negative log-likelihood, then reduced.")


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy for integer labels; labels equal to `ignore_class` are left out of the mean."""

    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size",
                 name="sparse_categorical_crossentropy", dtype=None, axis=-1):
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name, dtype=dtype,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)

    def call(self, y_true, y_pred):
        return sparse_categorical_crossentropy(y_true, y_pred, **self._fn_kwargs)

    def _call_with_mask(self, y_true, y_pred):
        kw = self._fn_kwargs
        return _sparse_cce_with_mask(y_true, y_pred, kw["from_logits"], kw["ignore_class"], kw["axis"])


# -- lookup -----------------------------------------------------------------------------------

_CLASSES = {c.__name__: c for c in (
    BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy, MeanSquaredError,
    MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredLogarithmicError, Huber,
    KLDivergence, CosineSimilarity, Hinge, SquaredHinge, CategoricalHinge, LogCosh, Poisson)}
_FUNCTIONS = {
    "binary_crossentropy": binary_crossentropy, "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "mean_squared_error": mean_squared_error, "mean_absolute_error": mean_absolute_error,
    "mean_absolute_percentage_error": mean_absolute_percentage_error,
    "mean_squared_logarithmic_error": mean_squared_logarithmic_error, "huber": huber,
    "huber_loss": huber, "kl_divergence": kl_divergence, "cosine_similarity": cosine_similarity,
    "hinge": hinge, "squared_hinge": squared_hinge, "categorical_hinge": categorical_hinge,
    "log_cosh": log_cosh, "logcosh": log_cosh, "poisson": poisson, "mse": mse, "MSE": mse,
    "mae": mae, "MAE": mae, "mape": mape, "MAPE": mape, "msle": msle, "MSLE": msle, "kld": kld,
    "KLD": kld, "kullback_leibler_divergence": kl_divergence,
}


def serialize(loss):
    """Keras 3's dict for a loss: {'module': 'keras.losses', 'class_name', 'config',
    'registered_name': None} for a Loss object, {'module': 'builtins', 'class_name':
    'function', 'config': name, 'registered_name': 'function'} for a loss function."""
    if isinstance(loss, Loss):
        return {"module": "keras.losses", "class_name": type(loss).__name__,
                "config": loss.get_config(), "registered_name": None}
    name = getattr(loss, "__name__", None)
    if name in _FUNCTIONS:
        return {"module": "builtins", "class_name": "function", "config": name,
                "registered_name": "function"}
    raise ValueError(f"Cannot serialize loss {loss!r}; pass a built-in loss or a Loss object.")


def deserialize(name, custom_objects=None):
    """A loss from a name (function names give functions, class names new objects) or a
    `serialize` dict."""
    custom_objects = custom_objects or {}
    if isinstance(name, dict):
        if name.get("class_name") == "function":
            fn = custom_objects.get(name.get("config")) or _FUNCTIONS.get(name.get("config"))
            if fn is None:
                raise ValueError(f"Unknown loss function: {name.get('config')!r}.")
            return fn
        cls = custom_objects.get(name.get("class_name")) or _CLASSES.get(name.get("class_name"))
        if cls is None:
            raise ValueError(f"Unknown loss class: {name.get('class_name')!r}.")
        return cls.from_config(name.get("config") or {})
    if name in custom_objects:
        obj = custom_objects[name]
        return obj() if isinstance(obj, type) else obj
    if name in _FUNCTIONS:
        return _FUNCTIONS[name]
    if name in _CLASSES:
        return _CLASSES[name]()
    raise ValueError(f"Unknown loss function: {name!r}. Use a Keras loss name such as "
                     "'mse' or 'sparse_categorical_crossentropy', or pass a callable.")


def get(identifier):
    """A loss from None, a name, a config dict, a Loss class or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier!r}")
