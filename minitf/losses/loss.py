"""Loss objects: a loss function plus sample weighting and a reduction to one number.

A `Loss` casts labels and predictions to its dtype (float32 unless told otherwise, as
Keras 3), computes one loss per example with `call`, weights them by `sample_weight` and
reduces them ('sum_over_batch_size' by default: the sum of the weighted losses divided by
their number). The built-in losses wrap the functions of `minitf.losses.functions`.
"""
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.ops.arg_checks import named
from minitf.keras_core.config import floatx
from minitf.keras_core.naming import to_snake_case, unique_layer_name
from minitf.convert import convert_to_tensor
from minitf.tensor import Tensor
from minitf.losses.functions import (binary_crossentropy, categorical_crossentropy, categorical_hinge,
                                     cosine_similarity, hinge, huber, kl_divergence, log_cosh,
                                     mean_absolute_error, mean_absolute_percentage_error,
                                     mean_squared_error, mean_squared_logarithmic_error, poisson,
                                     sparse_categorical_crossentropy, squared_hinge,
                                     sparse_cce_with_mask)
from minitf.losses.reduction import (reduce_weighted_values, squeeze_or_expand_to_same_rank,
                                     standardize_reduction)
from minitf.ops import compare as compare_ops
from minitf.ops import constant as constant_ops
from minitf.api_export import export, export_value

__all__ = ["Loss", "LossFunctionWrapper", "BinaryCrossentropy", "CategoricalCrossentropy",
           "SparseCategoricalCrossentropy", "MeanSquaredError", "MeanAbsoluteError",
           "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError", "Huber", "KLDivergence",
           "CosineSimilarity", "Hinge", "SquaredHinge", "CategoricalHinge", "LogCosh", "Poisson"]


@export("losses.Loss", "keras.losses.Loss")
class Loss:
    """Base class of the loss objects: per-example losses, weighted, reduced to a scalar.

    Subclasses implement `call(y_true, y_pred)`, returning one loss per example; calling the
    object adds the casting, the sample weights and the reduction:

    ```python
    class Absolute(tf.keras.losses.Loss):
        def call(self, y_true, y_pred):
            return tf.reduce_mean(tf.abs(y_pred - y_true), axis=-1)

    Absolute()([[0.0, 1.0]], [[1.0, 1.0]])   # 0.5
    ```

    Args:
        name: the loss's name; by default the snake_case class name made unique per
            process ('absolute', 'absolute_1', ...), as Keras' auto_name.
        reduction: how the weighted per-example losses become the result:
            'sum_over_batch_size' (default; their sum divided by their number), 'mean'
            (the same), 'mean_with_sample_weight' (divided by the sum of the weights),
            'sum', or 'none'/None (no reduction: one loss per example).
        dtype: the dtype the loss computes in (a name, DType or dtype policy); `floatx()`,
            float32, by default.

    Raises:
        ValueError: for a reduction outside that list (Keras 2's 'auto' included).
    """

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):  # Keras 3's order
        if name is not None and (not isinstance(name, str) or "/" in name):
            raise ValueError(f"{type(self).__name__}: argument `name` must be a string and cannot contain "
                             f"character `/`. Received: name={name!r}")
        self.name = name or unique_layer_name(to_snake_case(type(self).__name__))  # first, as Keras
        try:
            self.reduction = standardize_reduction(reduction)
        except ValueError as e:
            raise ValueError(f"{type(self).__name__}: {e}") from None
        try:
            self._dtype = _compute_dtype(dtype)
        except (TypeError, ValueError):  # Keras 3 makes a DTypePolicy of it: a ValueError
            raise ValueError(f"{type(self).__name__}: cannot convert {dtype!r} to a mixed precision "
                             f"DTypePolicy. Valid policies include 'mixed_float16', 'mixed_bfloat16', and "
                             f"the name of any float dtype such as 'float32'.") from None

    @property
    def dtype(self):
        """The dtype the loss computes in, as a string ('float32' by default)."""
        return self._dtype

    def call(self, y_true, y_pred):
        """The per-example losses; subclasses override.

        Args:
            y_true: the labels, already cast to the loss's dtype.
            y_pred: the predictions, already cast to the loss's dtype.

        Returns:
            A tensor of losses, usually one per example (shape `y_true.shape[:-1]`).
        """
        raise NotImplementedError(f"{type(self).__name__} must implement call(y_true, y_pred).")

    def _call_with_mask(self, y_true, y_pred):
        return self.call(y_true, y_pred), None

    def __call__(self, y_true, y_pred, sample_weight=None):
        """The reduced loss of one batch.

        Args:
            y_true: labels, anything convertible to a tensor.
            y_pred: predictions, of y_true's shape (or a rank one more or less, for the
                regression losses).
            sample_weight: optional weights: a scalar scales every loss, a tensor of shape
                `(batch,)` (or broadcastable to the per-example losses) weights each one.

        Returns:
            A scalar tensor, or the weighted per-example losses for reduction 'none'/None.

        A Keras mask on `y_pred` (from Embedding(mask_zero=True), Masking, ...) weighs in as
        Keras 3 does: masked entries count 0, and with 'sum_over_batch_size' or 'mean' the
        valid ones weigh total/valid, so the result is the mean over the valid entries only.
        """
        in_mask = getattr(y_pred, "_keras_mask", None)  # read first: the cast drops it
        y_pred = constant_ops.cast(_loss_input(y_pred, "y_pred", self), self._dtype)
        y_true = constant_ops.cast(_loss_input(y_true, "y_true", self), self._dtype)
        if sample_weight is not None:
            sample_weight = _loss_input(sample_weight, "sample_weight", self)
        try:
            losses, out_mask = self._call_with_mask(y_true, y_pred)
            if out_mask is None:
                out_mask = getattr(losses, "_keras_mask", None)
            return reduce_weighted_values(losses, sample_weight, _both(in_mask, out_mask), self.reduction,
                                          dtype=self._dtype)
        except (TypeError, ValueError, errors.OpError) as e:
            raise named(e, type(self).__name__) from e

    def get_config(self):
        """The constructor arguments as a dict (name and reduction here; subclasses add theirs)."""
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        """A new loss from the dict `get_config` produced."""
        return cls(**config)


def _loss_input(value, arg, loss):
    """`value` as a tensor; Python data Keras 3 converts to the loss's dtype, so strings there
    are its TypeError (and any conversion error names the loss)."""
    if isinstance(value, Tensor):
        return value
    try:
        t = convert_to_tensor(value)
    except (TypeError, ValueError) as e:
        if type(e) not in (TypeError, ValueError):
            raise
        raise type(e)(f"{type(loss).__name__}: argument `{arg}`: {e}") from None
    if t.dtype == dtypes.string and not hasattr(value, "dtype"):
        raise TypeError(f"{type(loss).__name__}: cannot convert `{arg}`={value!r} to EagerTensor of dtype "
                        f"{loss._dtype}; pass numbers")
    return t


def _both(in_mask, out_mask):
    """The entries valid in both masks (either one alone when the other is None)."""
    if in_mask is None or out_mask is None:
        return out_mask if in_mask is None else convert_to_tensor(in_mask)
    return compare_ops.logical_and(constant_ops.cast(convert_to_tensor(in_mask), "bool"),
                                   constant_ops.cast(convert_to_tensor(out_mask), "bool"))


def _compute_dtype(dtype):
    """A dtype argument (None, a name, a DType or a dtype policy) as the name of a dtype."""
    dtype = getattr(dtype, "compute_dtype", dtype)
    return dtypes.as_dtype(dtype or floatx()).name


class LossFunctionWrapper(Loss):
    """A Loss around a function `fn(y_true, y_pred, **kwargs)` returning per-example losses.

    Labels and predictions whose ranks differ by one are first brought to the same rank; the
    keyword arguments are passed to `fn` on every call and appear in `get_config()`.
    """

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(reduction=reduction, name=name, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        y_pred = convert_to_tensor(y_pred)
        y_true = convert_to_tensor(y_true)
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


@export("losses.MeanSquaredError", "keras.losses.MeanSquaredError")
class MeanSquaredError(LossFunctionWrapper):
    """The mean of squared errors: `mean((y_true - y_pred) ** 2)` over the last axis, then
    reduced over the batch.

    ```python
    mse = tf.keras.losses.MeanSquaredError()
    mse([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]])   # 0.5
    ```

    Args:
        reduction: see `Loss` ('sum_over_batch_size' by default).
        name: the loss's name ('mean_squared_error').
        dtype: the dtype the loss computes in (float32 by default).
    """

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, reduction=reduction, name=name, dtype=dtype)


@export("losses.BinaryCrossentropy", "keras.losses.BinaryCrossentropy")
class BinaryCrossentropy(LossFunctionWrapper):
    """Cross-entropy between 0/1 labels and predicted probabilities (or logits).

    Per element it is `-(y * log(p) + (1 - y) * log(1 - p))`, averaged over `axis`, then
    reduced over the batch. Use it for two-class problems and for multi-label outputs (each
    output an independent yes/no).

    ```python
    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)
    bce([[0.0, 1.0]], [[-2.0, 3.0]])   # small: both logits point the right way
    ```

    Args:
        from_logits: whether `y_pred` holds logits (any real number; the sigmoid is applied
            inside, without overflow) rather than probabilities in [0, 1] (clipped to
            [1e-7, 1 - 1e-7] before the logs).
        label_smoothing: in [0, 1]; labels move toward 0.5 by this much
            (`y * (1 - s) + 0.5 * s`), which discourages over-confident predictions.
        axis: the axis averaged over (the last by default).
        reduction: see `Loss` ('sum_over_batch_size' by default).
        name: the loss's name ('binary_crossentropy').
        dtype: the dtype the loss computes in (float32 by default).

    Raises:
        ValueError (when called): if `y_true` and `y_pred` differ in shape.
    """

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="binary_crossentropy", dtype=None):
        super().__init__(binary_crossentropy, reduction=reduction, name=name, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


@export("losses.CategoricalCrossentropy", "keras.losses.CategoricalCrossentropy")
class CategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy between one-hot labels and a predicted distribution over classes.

    Per example it is `-sum(y * log(p))` along `axis`, where `p` is `y_pred` normalized to
    sum to 1 (or `softmax(y_pred)` with `from_logits=True`). For integer labels use
    `SparseCategoricalCrossentropy` instead of one-hot encoding them.

    ```python
    cce = tf.keras.losses.CategoricalCrossentropy()
    cce([[0.0, 1.0, 0.0]], [[0.1, 0.8, 0.1]])   # -log(0.8) = 0.223
    ```

    Args:
        from_logits: whether `y_pred` holds logits rather than probabilities.
        label_smoothing: in [0, 1]; one-hot labels become `y * (1 - s) + s / num_classes`.
        axis: the class axis (the last by default).
        reduction: see `Loss` ('sum_over_batch_size' by default).
        name: the loss's name ('categorical_crossentropy').
        dtype: the dtype the loss computes in (float32 by default).

    Raises:
        ValueError (when called): if `y_true` and `y_pred` differ in shape.
    """

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_crossentropy", dtype=None):
        super().__init__(categorical_crossentropy, reduction=reduction, name=name, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


@export("losses.SparseCategoricalCrossentropy", "keras.losses.SparseCategoricalCrossentropy")
class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy between integer class labels and a predicted distribution over classes.

    Per example it is `-log(p[label])`: the same as `CategoricalCrossentropy` on one-hot
    labels, without building them. Labels have the predictions' shape minus the class axis
    (a trailing axis of size 1 is accepted too).

    ```python
    scce = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    scce([1, 0], [[0.0, 2.0], [3.0, 0.0]])
    ```

    Args:
        from_logits: whether `y_pred` holds logits rather than probabilities.
        ignore_class: an optional label value (e.g. a padding class) whose examples count
            as 0 and are left out of the mean.
        reduction: see `Loss` ('sum_over_batch_size' by default).
        name: the loss's name ('sparse_categorical_crossentropy').
        dtype: the dtype the loss computes in (float32 by default).
        axis: the class axis; only -1 is supported (as in Keras 3).

    Raises:
        ValueError (when called): if the labels' shape does not match the predictions'.
        InvalidArgumentError (when called): for a label outside [0, num_classes).
    """

    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size",
                 name="sparse_categorical_crossentropy", dtype=None, axis=-1):
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name, dtype=dtype,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)

    def call(self, y_true, y_pred):
        return sparse_categorical_crossentropy(y_true, y_pred, **self._fn_kwargs)

    def _call_with_mask(self, y_true, y_pred):
        kw = self._fn_kwargs
        return sparse_cce_with_mask(y_true, y_pred, kw["from_logits"], kw["ignore_class"], kw["axis"])


def _wrapper_class(class_name, fn, default_name, doc, **defaults):
    """A LossFunctionWrapper subclass around `fn` whose extra arguments are `defaults`
    (positional in that order; reduction, name and dtype by keyword)."""
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

    cls = type(class_name, (LossFunctionWrapper,), {"__init__": __init__, "__doc__": doc})
    cls.__module__ = __name__
    return cls


MeanAbsoluteError = _wrapper_class("MeanAbsoluteError", mean_absolute_error, "mean_absolute_error",
                                   "Mean of absolute errors over the last axis, then reduced.")
export_value("MeanAbsoluteError", "losses.MeanAbsoluteError", "keras.losses.MeanAbsoluteError")
MeanAbsolutePercentageError = _wrapper_class(
    "MeanAbsolutePercentageError", mean_absolute_percentage_error, "mean_absolute_percentage_error",
    "100 * mean(|(y_true - y_pred) / y_true|), then reduced.")
export_value("MeanAbsolutePercentageError", "losses.MeanAbsolutePercentageError",
             "keras.losses.MeanAbsolutePercentageError")
MeanSquaredLogarithmicError = _wrapper_class(
    "MeanSquaredLogarithmicError", mean_squared_logarithmic_error, "mean_squared_logarithmic_error",
    "Mean of squared differences of log(1 + y), then reduced.")
export_value("MeanSquaredLogarithmicError", "losses.MeanSquaredLogarithmicError",
             "keras.losses.MeanSquaredLogarithmicError")
Huber = _wrapper_class("Huber", huber, "huber_loss", "Huber loss with threshold `delta` (default 1.0).",
                       delta=1.0)
export_value("Huber", "losses.Huber", "keras.losses.Huber")
KLDivergence = _wrapper_class("KLDivergence", kl_divergence, "kl_divergence",
                              "Kullback-Leibler divergence of y_pred from y_true, then reduced.")
export_value("KLDivergence", "losses.KLDivergence", "keras.losses.KLDivergence")
CosineSimilarity = _wrapper_class("CosineSimilarity", cosine_similarity, "cosine_similarity",
                                  "Negative cosine similarity along `axis` (default -1), then reduced.",
                                  axis=-1)
export_value("CosineSimilarity", "losses.CosineSimilarity", "keras.losses.CosineSimilarity")
Hinge = _wrapper_class("Hinge", hinge, "hinge", "Hinge loss for -1/1 (or 0/1) labels, then reduced.")
export_value("Hinge", "losses.Hinge", "keras.losses.Hinge")
SquaredHinge = _wrapper_class("SquaredHinge", squared_hinge, "squared_hinge",
                              "Squared hinge loss for -1/1 (or 0/1) labels, then reduced.")
export_value("SquaredHinge", "losses.SquaredHinge", "keras.losses.SquaredHinge")
CategoricalHinge = _wrapper_class("CategoricalHinge", categorical_hinge, "categorical_hinge",
                                  "Categorical hinge loss for one-hot labels, then reduced.")
export_value("CategoricalHinge", "losses.CategoricalHinge", "keras.losses.CategoricalHinge")
LogCosh = _wrapper_class("LogCosh", log_cosh, "log_cosh", "log(cosh(error)) averaged, then reduced.")
export_value("LogCosh", "losses.LogCosh", "keras.losses.LogCosh")
Poisson = _wrapper_class("Poisson", poisson, "poisson", "Poisson negative log-likelihood, then reduced.")
export_value("Poisson", "losses.Poisson", "keras.losses.Poisson")
