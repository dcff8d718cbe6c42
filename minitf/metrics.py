"""tf.keras.metrics: stateful metrics (Mean, Accuracy, Precision, AUC, ...) and metric functions.

A Metric keeps its state in non-trainable variables (checkpointed by name: 'total', 'count',
'true_positives', ...). `update_state` accumulates a batch, `result` reads the value,
`reset_state` zeroes the state, and `metric(y_true, y_pred)` updates then returns the result.
Updates never reach a GradientTape: they run with recording paused and mostly on raw arrays.

Averages follow Keras 3: a batch's values are reduced to one value per sample (the mean of
its entries) before weighting, so Mean and the MeanMetricWrapper metrics count samples.
"""
import functools

import numpy as np

from minitf import kernels
from minitf.module import Module
from minitf.recording import stop_recording_all
from minitf.variable import Variable

__all__ = ["Metric", "Mean", "Sum", "MeanMetricWrapper", "MeanSquaredError",
           "MeanAbsoluteError", "MeanAbsolutePercentageError", "RootMeanSquaredError",
           "Accuracy", "BinaryAccuracy", "CategoricalAccuracy", "SparseCategoricalAccuracy",
           "TopKCategoricalAccuracy", "SparseTopKCategoricalAccuracy", "Precision", "Recall",
           "AUC", "CategoricalCrossentropy", "BinaryCrossentropy", "SparseCategoricalCrossentropy",
           "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
           "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy", "get", "serialize",
           "deserialize", "mse", "mae", "mape", "MSE", "MAE", "MAPE", "binary_crossentropy",
           "categorical_crossentropy", "sparse_categorical_crossentropy"]

EPSILON = 1e-7
NEG_INF = -1e10  # what top_k filtering gives the predictions it drops (as Keras)


def _tf():
    import minitf
    return minitf


def _raw(x, np_dtype=None):
    """The raw array of `x` (tensor, variable, array or Python data), optionally cast."""
    from minitf.ops.constant import convert_to_tensor
    from minitf.variable import Variable
    v = x._value if isinstance(x, Variable) else convert_to_tensor(x)._value
    if np_dtype is not None and v.dtype != np_dtype:
        v = v.astype(np_dtype)
    return v


def _xp(value):
    from minitf.backend import array_module
    return array_module(value)


def _tensor(value):
    from minitf.tensor import Tensor
    return Tensor(value)


def _divide_no_nan(a, b):
    xp = _xp(a)
    safe = xp.where(b == 0, 1, b)
    return xp.where(b == 0, 0, a / safe).astype(a.dtype)


# -- base ---------------------------------------------------------------------------------------

def _paused(method):
    """Wrap an update_state so no tape records it."""
    @functools.wraps(method)
    def update_state(self, *args, **kwargs):
        with stop_recording_all():
            return method(self, *args, **kwargs)
    update_state._paused = True
    return update_state


class _StateVariable(Variable):
    """A metric's state variable: writes cast the value to its dtype first, as Keras 3
    variables do (a float32 'total' accepts a float64 sum), where tf.Variable would refuse."""

    def _new_value(self, value, op):
        from minitf.ops.constant import convert_to_tensor
        raw = value._value if isinstance(value, Variable) else convert_to_tensor(value)._value
        if raw.dtype != self.dtype._np:
            raw = raw.astype(self.dtype._np)
        return super()._new_value(raw, op)


class Metric(Module):
    """Base of all metrics: subclasses create state with `add_variable` and implement
    `update_state(...)` and `result()`."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        update = cls.__dict__.get("update_state")
        if update is not None and not getattr(update, "_paused", False):
            cls.update_state = _paused(update)

    def __init__(self, name=None, dtype=None):
        from minitf import dtypes
        from minitf.layers.base import floatx, to_snake_case, unique_layer_name
        # Keras' auto_name: a default name is unique per process ('positives', 'positives_1')
        super().__init__(name=name or unique_layer_name(to_snake_case(type(self).__name__)))
        self._dtype = dtypes.as_dtype(getattr(dtype, "compute_dtype", dtype) or floatx())
        self._metric_variables = []
        self._metric_variable_names = []

    @property
    def dtype(self):
        """The name of the metric's dtype ('float32' unless given), a string as in Keras 3."""
        return self._dtype.name

    @property
    def name(self):
        """The metric's name (settable, as in Keras: compile names a metric after its string)."""
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    def add_variable(self, shape=(), initializer="zeros", dtype=None, aggregation="sum", name=None):
        """A new non-trainable state variable, tracked in creation order.

        Without `dtype` it is float32 (Keras' floatx), whatever the metric's own dtype: as in
        Keras 3, built-in metrics pass `dtype=self.dtype` explicitly."""
        from minitf import initializers
        from minitf.layers.base import floatx
        dtype = dtype or floatx()
        init = initializers.get(initializer or "zeros")
        shape = tuple(shape) if shape is not None else ()
        var = _StateVariable(init(shape, dtype=dtype), trainable=False, name=name or "variable",
                             dtype=dtype)
        key = name or f"variable_{len(self._metric_variables)}"
        self._metric_variables.append(var)
        self._metric_variable_names.append(key)
        self._track_child(key, var)
        return var

    def add_weight(self, name=None, shape=(), aggregation="sum", synchronization="on_read",
                   initializer=None, dtype=None):
        """Keras 2 spelling of `add_variable` (name first)."""
        return self.add_variable(shape=shape, initializer=initializer, dtype=dtype,
                                 aggregation=aggregation, name=name)

    @property
    def variables(self):
        """The state variables, in creation order."""
        return tuple(self._metric_variables) + tuple(
            v for v in super().variables if not any(v is w for w in self._metric_variables))

    @property
    def trainable_variables(self):
        """Always empty: metric state is never trained."""
        return tuple(v for v in self.variables if v.trainable)

    @property
    def non_trainable_variables(self):
        """The state variables."""
        return tuple(v for v in self.variables if not v.trainable)

    def _checkpoint_dependencies(self):
        deps = list(zip(self._metric_variable_names, self._metric_variables))
        names = {n for n, _ in deps}
        return deps + [(n, c) for n, c in super()._checkpoint_dependencies()
                       if n not in names and not any(c is v for v in self._metric_variables)]

    def update_state(self, *args, **kwargs):
        """Accumulate statistics from one batch; subclasses implement this."""
        raise NotImplementedError(f"{type(self).__name__} must implement update_state().")

    def result(self):
        """The metric's current value as a tensor; subclasses implement this."""
        raise NotImplementedError(f"{type(self).__name__} must implement result().")

    def reset_state(self):
        """Set every state variable back to zero."""
        for v in self.variables:
            xp = _xp(v._value)
            v.assign(xp.zeros(v._value.shape, dtype=v._value.dtype))

    def reset_states(self):
        """Alias of `reset_state` (Keras 2 name)."""
        self.reset_state()

    def __call__(self, *args, **kwargs):
        """Update with one batch, then return the result."""
        with stop_recording_all():
            self.update_state(*args, **kwargs)
            return self.result()

    def get_config(self):
        """Constructor arguments as a dict."""
        return {"name": self.name, "dtype": self._dtype.name}

    @classmethod
    def from_config(cls, config):
        """A new metric from the dict `get_config` produced."""
        return cls(**config)


# -- averages -------------------------------------------------------------------------------------

def _same_rank(x1, x2, expand_rank_1=True):
    """Keras' squeeze_or_expand_to_same_rank on raw arrays: ranks that differ by one agree by
    dropping the longer one's trailing 1 (or, for a rank-1 partner, adding one to it)."""
    xp = _xp(x1)
    r1, r2 = x1.ndim, x2.ndim
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = xp.expand_dims(x2, -1)
        else:
            x1 = x1[..., 0]
    elif r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = xp.expand_dims(x1, -1)
        else:
            x2 = x2[..., 0]
    return x1, x2


def _samplewise(values, sample_weight, reduce_fn, dt, who):
    """Keras' reduce_to_samplewise_values: one value per sample (axis 0), and its weight.

    Values are first reduced over the axes the weights lack, the weights broadcast to them
    (InvalidArgumentError as BroadcastTo when they cannot), then every axis after the first
    is reduced (`reduce_fn` is 'mean' or 'sum'), for the values and the weights alike."""
    from minitf import errors
    values = _raw(values, dt)
    weights = None
    if sample_weight is not None:
        weights = _raw(sample_weight, dt)
        values, weights = _same_rank(values, weights)
        w_nd, v_nd = weights.ndim, values.ndim
        if v_nd > w_nd:
            values = getattr(values, reduce_fn)(axis=tuple(range(w_nd, v_nd)))
        try:
            weights = _xp(values).broadcast_to(weights, values.shape)
        except ValueError:
            raise errors.invalid_argument(
                "BroadcastTo", f"{who}: sample_weight of shape {list(weights.shape)} cannot be "
                f"broadcast to the values' shape {list(values.shape)}; give one weight per "
                "sample (or a shape that broadcasts)") from None
        values = values * weights
        if w_nd > 1:
            weights = getattr(weights, reduce_fn)(axis=tuple(range(1, w_nd)))
    if values.ndim > 1:
        values = getattr(values, reduce_fn)(axis=tuple(range(1, values.ndim)))
    return values, weights


class Reduce(Metric):
    """Accumulates values into 'total' (and 'count'): the base of Sum and Mean."""

    def __init__(self, reduction, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self.total = self.add_variable(shape=(), initializer="zeros", name="total", dtype=self._dtype)
        if reduction != "sum":
            self.count = self.add_variable(shape=(), initializer="zeros", name="count",
                                           dtype=self._dtype)

    def update_state(self, values, sample_weight=None):
        """Add `values` (weighted by `sample_weight`) to the state, as Keras 3: each sample's
        entries are first averaged (summed, for Sum), so Mean counts samples, not entries."""
        dt = self._dtype._np
        fn = "sum" if self.reduction == "sum" else "mean"
        values, weights = _samplewise(values, sample_weight, fn, dt, self.name)
        xp = _xp(values)
        self.total.assign_add(xp.asarray(values.sum(), dtype=dt))
        if self.reduction == "sum":
            return
        if weights is not None:
            n = weights.sum()
        else:
            n = values.shape[0] if values.ndim >= 1 else 1
        self.count.assign_add(xp.asarray(n, dtype=dt))

    def result(self):
        if self.reduction == "sum":
            return _tensor(self.total._value.copy())
        return _tensor(_divide_no_nan(self.total._value, self.count._value))


class Sum(Reduce):
    """The (weighted) sum of all values seen."""

    def __init__(self, name="sum", dtype=None):
        super().__init__("sum", name=name, dtype=dtype)

    def get_config(self):
        return Metric.get_config(self)


class Mean(Reduce):
    """The (weighted) mean of all values seen: total / count."""

    def __init__(self, name="mean", dtype=None):
        super().__init__("weighted_mean", name=name, dtype=dtype)

    def get_config(self):
        return Metric.get_config(self)


class MeanMetricWrapper(Mean):
    """The mean of `fn(y_true, y_pred, **kwargs)` over every example seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        # Keras 3 calls Mean.__init__(name=None): the default name is 'mean_metric_wrapper'
        Reduce.__init__(self, "weighted_mean", name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Apply the function to the batch as given (the function aligns the shapes) and
        average its per-sample values into the state."""
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        Reduce.update_state(self, values, sample_weight)

    def get_config(self):
        config = Metric.get_config(self)
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config):
        if cls is MeanMetricWrapper:
            raise ValueError("MeanMetricWrapper.from_config needs the function; construct it directly.")
        return cls(**config)


# -- metric functions ------------------------------------------------------------------------------

def _float_matches(mask, like=None):
    return _tensor(mask.astype("float32"))


def accuracy(y_true, y_pred):
    """1.0 where y_true equals y_pred exactly, else 0.0 (elementwise, after Keras' rank alignment)."""
    p = _raw(y_pred)
    t = _raw(y_true, p.dtype)
    t, p = _same_rank(t, p)
    return _float_matches(t == p)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where (y_pred > threshold) equals y_true, else 0.0: elementwise, y_true's shape
    (after Keras' rank alignment), as Keras 3 (Keras 2 averaged over the last axis)."""
    t, p = _same_rank(_raw(y_true), _raw(y_pred))
    predicted = (p > threshold).astype(t.dtype)
    return _float_matches(t == predicted)


def _sparse_matches(labels, preds):
    """Keras' sparse_categorical_accuracy on raw arrays: argmax(preds) == labels.

    Labels of shape (..., 1) with predictions of the same rank give matches of the labels'
    shape, and a trailing 1 is then dropped ((batch, 1) labels give (batch,) matches)."""
    xp = _xp(preds)
    shape = labels.shape
    squeezed = labels.ndim == preds.ndim and labels.ndim > 0 and labels.shape[-1] == 1
    if squeezed:
        labels = labels[..., 0]
    matches = labels == xp.argmax(preds, axis=-1).astype(labels.dtype)
    if squeezed:
        matches = matches.reshape(shape)
    if matches.ndim > 1 and matches.shape[-1] == 1:
        matches = matches[..., 0]
    return matches


def categorical_accuracy(y_true, y_pred):
    """1.0 where argmax(y_true) == argmax(y_pred) over the last axis."""
    t = _raw(y_true)
    return _float_matches(_xp(t).argmax(t, axis=-1) == _xp(t).argmax(_raw(y_pred), axis=-1))


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label equals argmax(y_pred) over the last axis."""
    p = _raw(y_pred)
    return _float_matches(_sparse_matches(_raw(y_true, p.dtype), p))


def _in_top_k(labels, preds, k):
    """Whether each label's score is among the k largest (ties at the boundary count as in)."""
    xp = _xp(preds)
    flat = preds.reshape(-1, preds.shape[-1])
    lab = labels.reshape(-1).astype("int64")
    target = xp.take_along_axis(flat, lab[:, None], axis=-1)
    higher = (flat > target).sum(axis=-1)
    return (higher < k) & xp.isfinite(target[:, 0])


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the integer label is among the top-k predictions."""
    t, p = _raw(y_true), _raw(y_pred)
    shape = t.shape
    if t.ndim == p.ndim and t.ndim and t.shape[-1] == 1:
        t = t[..., 0]
    hits = _in_top_k(t, p, k).reshape(shape if len(shape) == p.ndim else p.shape[:-1])
    return _float_matches(hits)


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where argmax(y_true) is among the top-k predictions."""
    t, p = _raw(y_true), _raw(y_pred)
    return _float_matches(_in_top_k(_xp(t).argmax(t, axis=-1), p, k).reshape(p.shape[:-1]))


def _losses():
    from minitf import losses
    return losses


def mean_squared_error(y_true, y_pred):
    """Per-example mean squared error (same as tf.keras.losses.mean_squared_error)."""
    return _losses().mean_squared_error(y_true, y_pred)


def mean_absolute_error(y_true, y_pred):
    """Per-example mean absolute error."""
    return _losses().mean_absolute_error(y_true, y_pred)


def mean_absolute_percentage_error(y_true, y_pred):
    """Per-example mean absolute percentage error."""
    return _losses().mean_absolute_percentage_error(y_true, y_pred)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Per-example binary cross-entropy (see tf.keras.losses.binary_crossentropy)."""
    return _losses().binary_crossentropy(y_true, y_pred, from_logits, label_smoothing, axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Per-example categorical cross-entropy."""
    return _losses().categorical_crossentropy(y_true, y_pred, from_logits, label_smoothing, axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1, ignore_class=None):
    """Per-example cross-entropy with integer labels."""
    return _losses().sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits,
                                                     ignore_class=ignore_class, axis=axis)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error


# -- wrapper metrics ------------------------------------------------------------------------------

def _wrapper_class(class_name, fn, default_name, doc, **defaults):
    """A MeanMetricWrapper subclass around `fn` whose extra keyword arguments are `defaults`."""
    argnames = tuple(defaults)

    def __init__(self, name=default_name, dtype=None, *args, **kwargs):
        values = dict(defaults)
        for key, value in zip(argnames, args):
            values[key] = value
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"{class_name}() got an unexpected keyword argument {key!r}")
            values[key] = value
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **values)

    cls = type(class_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc})
    cls.__module__ = __name__
    return cls


Accuracy = _wrapper_class("Accuracy", accuracy, "accuracy",
                          "How often predictions equal labels exactly.")
BinaryAccuracy = _wrapper_class("BinaryAccuracy", binary_accuracy, "binary_accuracy",
                                "How often (y_pred > threshold) matches 0/1 labels; threshold=0.5.",
                                threshold=0.5)
CategoricalAccuracy = _wrapper_class("CategoricalAccuracy", categorical_accuracy, "categorical_accuracy",
                                     "How often argmax(y_pred) matches argmax of one-hot labels.")
SparseCategoricalAccuracy = _wrapper_class(
    "SparseCategoricalAccuracy", sparse_categorical_accuracy, "sparse_categorical_accuracy",
    "How often argmax(y_pred) matches integer labels.")


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot label is among the top-k predictions (k=5)."""

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the top-k predictions (k=5)."""

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None):
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k)

MeanSquaredError = _wrapper_class("MeanSquaredError", mean_squared_error, "mean_squared_error",
                                  "The mean of per-example squared errors.")
MeanAbsoluteError = _wrapper_class("MeanAbsoluteError", mean_absolute_error, "mean_absolute_error",
                                   "The mean of per-example absolute errors.")
MeanAbsolutePercentageError = _wrapper_class(
    "MeanAbsolutePercentageError", mean_absolute_percentage_error, "mean_absolute_percentage_error",
    "The mean of per-example absolute percentage errors.")
CategoricalCrossentropy = _wrapper_class(
    "CategoricalCrossentropy", categorical_crossentropy, "categorical_crossentropy",
    "Mean categorical cross-entropy; (from_logits=False, label_smoothing=0, axis=-1).",
    from_logits=False, label_smoothing=0.0, axis=-1)
BinaryCrossentropy = _wrapper_class(
    "BinaryCrossentropy", binary_crossentropy, "binary_crossentropy",
    "Mean binary cross-entropy; (from_logits=False, label_smoothing=0).",
    from_logits=False, label_smoothing=0.0)
SparseCategoricalCrossentropy = _wrapper_class(
    "SparseCategoricalCrossentropy", sparse_categorical_crossentropy, "sparse_categorical_crossentropy",
    "Mean cross-entropy with integer labels; (from_logits=False, ignore_class=None, axis=-1).",
    from_logits=False, ignore_class=None, axis=-1)


class RootMeanSquaredError(Mean):
    """sqrt of the (weighted) mean of elementwise squared errors."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulate the squared errors of one batch."""
        dt = self._dtype._np
        y_true, y_pred = _same_rank(_raw(y_true, dt), _raw(y_pred, dt))
        Reduce.update_state(self, (y_pred - y_true) ** 2, sample_weight)

    def result(self):
        return _tensor(_xp(self.total._value).sqrt(_divide_no_nan(self.total._value, self.count._value)))


# -- confusion-matrix metrics ------------------------------------------------------------------------

def _check_thresholds(thresholds, who):
    values = [thresholds] if np.isscalar(thresholds) else list(thresholds)
    for t in values:
        if not 0.0 <= float(t) <= 1.0:
            raise ValueError(f"{who}: threshold values must be in [0, 1], got {thresholds!r}.")
    return values


def _confusion_update(metric, y_true, y_pred, sample_weight, thresholds, wanted,
                      top_k=None, class_id=None):
    """Add weighted tp/fp/tn/fn counts per threshold (prediction > threshold is positive)."""
    from minitf import errors
    dt = metric._dtype._np
    preds, labels = _same_rank(_raw(y_pred, dt), _raw(y_true, dt))
    xp = _xp(preds)
    weights = None
    if sample_weight is not None:
        # Keras 3: weights gain a trailing axis, then lose it again only to match the labels'
        # rank; so (batch,) weights on (batch, a, b) labels broadcast along axis 1
        weights = xp.expand_dims(_raw(sample_weight, dt), -1)
        _, weights = _same_rank(labels, weights, expand_rank_1=False)
        try:
            weights = xp.broadcast_to(weights, preds.shape)
        except ValueError:
            raise errors.invalid_argument(
                "BroadcastTo", f"{metric.name}: sample_weight of shape {list(_raw(sample_weight).shape)} "
                f"does not broadcast to predictions of shape {list(preds.shape)}") from None
    if top_k is not None:
        if preds.ndim == 0 or preds.shape[-1] < top_k:
            raise errors.invalid_argument(
                "TopKV2", f"{metric.name}: input must have at least k={top_k} columns, got "
                f"predictions of shape {list(preds.shape)}; use a smaller top_k")
        preds = _filter_top_k(preds, top_k)
    if class_id is not None:
        if preds.ndim == 1:
            raise ValueError("When class_id is provided, y_pred must be a 2D array with shape "
                             f"(num_samples, num_classes), found shape: {preds.shape}")
        if not -preds.shape[-1] <= class_id < preds.shape[-1]:
            raise errors.invalid_argument(
                "StridedSlice", f"{metric.name}: class_id={class_id} is out of range for "
                f"predictions with {preds.shape[-1]} classes (shape {list(preds.shape)})")
        labels, preds = labels[..., class_id], preds[..., class_id]
        weights = None if weights is None else weights[..., class_id]
    labels = labels.reshape(-1) != 0
    preds = preds.reshape(-1)
    weights = xp.ones(preds.shape, dtype=dt) if weights is None else weights.reshape(-1)
    if _evenly_distributed(thresholds):
        _bucket_update(metric, labels, preds, weights, thresholds, wanted)
        return
    thresh = xp.asarray(np.asarray(thresholds, dtype=dt))
    predicted = preds[None, :] > thresh[:, None]
    cells = {"true_positives": predicted & labels, "false_positives": predicted & ~labels,
             "true_negatives": ~predicted & ~labels, "false_negatives": ~predicted & labels}
    for name in wanted:
        getattr(metric, name).assign_add((cells[name] * weights).sum(axis=1).astype(dt))


def _evenly_distributed(thresholds):
    """Keras' is_evenly_distributed_thresholds: at least 3 thresholds evenly spread over [0, 1]
    (AUC's own ones: the outer two are then -1e-7 and 1 + 1e-7)."""
    n = len(thresholds)
    if n < 3:
        return False
    even = np.arange(n, dtype=np.float32) / (n - 1)
    return bool(np.allclose(np.asarray(thresholds, dtype=np.float64), even, atol=EPSILON))


def _bucket_update(metric, labels, preds, weights, thresholds, wanted):
    """Keras' counting for evenly spread thresholds: predictions are clipped to [0, 1] and
    put in bucket ceil(p * (n - 1)) - 1 (0 at least, with AUC's epsilon endpoints); a bucket
    counts as positive at every threshold up to its index."""
    xp = _xp(preds)
    dt = metric._dtype._np
    n = len(thresholds)
    with_epsilon = thresholds[0] < 0.0 or thresholds[-1] > 1.0
    buckets = xp.ceil(xp.clip(preds, 0.0, 1.0) * dt.type(n - 1)) - 1
    if with_epsilon:
        buckets = xp.maximum(buckets, 0)
    buckets = buckets.astype("int64")
    keep = (buckets >= 0) & (buckets < n)  # bucket -1 (p == 0 without epsilon) counts nowhere
    true_w = (labels * weights).astype(dt)
    false_w = (~labels * weights).astype(dt)

    def above(w):  # sum of the weights in buckets >= i, for every threshold i
        counts = xp.bincount(buckets[keep], weights=w[keep], minlength=n)
        return xp.cumsum(counts[::-1])[::-1].astype(dt)

    tp, fp = above(true_w), above(false_w)
    cells = {"true_positives": tp, "false_positives": fp,
             "true_negatives": false_w.sum().astype(dt) - fp,
             "false_negatives": true_w.sum().astype(dt) - tp}
    for name in wanted:
        getattr(metric, name).assign_add(cells[name])


def _filter_top_k(preds, k):
    """Predictions outside the k largest per row set to NEG_INF (ties: lower index wins, as top_k)."""
    xp = _xp(preds)
    order = kernels.for_module(xp).argsort_stable(-preds, axis=-1)
    keep = xp.zeros(preds.shape, dtype=bool)
    xp.put_along_axis(keep, order[..., :k], True, axis=-1)
    return xp.where(keep, preds, NEG_INF)


class _ThresholdMetric(Metric):
    """Shared state of Precision and Recall: one count per threshold."""
    _CELLS = ()

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k, self.class_id = top_k, class_id
        default = 0.5 if top_k is None else NEG_INF
        self.thresholds = (_check_thresholds(thresholds, type(self).__name__)
                           if thresholds is not None else [default])
        self._single = thresholds is None or np.isscalar(thresholds)
        for cell in self._CELLS:
            setattr(self, cell, self.add_variable(shape=(len(self.thresholds),), initializer="zeros",
                                                  name=cell))

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Count this batch's outcomes at every threshold."""
        _confusion_update(self, y_true, y_pred, sample_weight, self.thresholds, self._CELLS,
                          top_k=self.top_k, class_id=self.class_id)

    def _ratio(self, num, other):
        value = _divide_no_nan(num._value, num._value + other._value)
        return _tensor(value[0] if len(self.thresholds) == 1 else value)

    def get_config(self):
        config = {"thresholds": self.init_thresholds, "top_k": self.top_k, "class_id": self.class_id}
        config.update(Metric.get_config(self))
        return config


class Precision(_ThresholdMetric):
    """true_positives / (true_positives + false_positives), per threshold (default 0.5)."""
    _CELLS = ("true_positives", "false_positives")

    def result(self):
        return self._ratio(self.true_positives, self.false_positives)


class Recall(_ThresholdMetric):
    """true_positives / (true_positives + false_negatives), per threshold (default 0.5)."""
    _CELLS = ("true_positives", "false_negatives")

    def result(self):
        return self._ratio(self.true_positives, self.false_negatives)


class AUC(Metric):
    """Area under the ROC or precision-recall curve, from counts at `num_thresholds` thresholds.

    summation_method: 'interpolation' (trapezoids for ROC, Davis & Goadrich interpolation for
    PR), 'minoring' or 'majoring' (left/right Riemann sums). Only `multi_label=False` is
    supported: every label and prediction counts toward one curve.
    """
    _CELLS = ("true_positives", "true_negatives", "false_positives", "false_negatives")

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None,
                 dtype=None, thresholds=None, multi_label=False, num_labels=None, label_weights=None,
                 from_logits=False):
        super().__init__(name=name, dtype=dtype)  # None: auto_name, "auc", "auc_1", ...
        curve = curve.upper() if isinstance(curve, str) else curve
        if curve not in ("ROC", "PR"):
            raise ValueError(f'AUC: invalid curve {curve!r}; expected "ROC" or "PR".')
        summation_method = summation_method.lower() if isinstance(summation_method, str) else summation_method
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f"AUC: invalid summation_method {summation_method!r}; expected "
                             "'interpolation', 'minoring' or 'majoring'.")
        if multi_label:
            raise NotImplementedError("AUC(multi_label=True) is not supported by minitf; "
                                      "use multi_label=False.")
        if thresholds is not None:
            inner = sorted(_check_thresholds(thresholds, "AUC"))
            num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError(f"AUC: num_thresholds must be > 1, got {num_thresholds}.")
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.num_thresholds = num_thresholds
        self.thresholds = [0.0 - EPSILON] + list(inner) + [1.0 + EPSILON]
        self._init_thresholds = thresholds
        self.curve, self.summation_method = curve, summation_method
        self.multi_label, self.num_labels, self.label_weights = multi_label, num_labels, label_weights
        self._from_logits = from_logits
        for cell in self._CELLS:
            setattr(self, cell, self.add_variable(shape=(num_thresholds,), initializer="zeros", name=cell))

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Count this batch's outcomes at every threshold."""
        if self._from_logits:
            y_pred = _tf().sigmoid(_tf().cast(y_pred, self._dtype))
        _confusion_update(self, y_true, y_pred, sample_weight, self.thresholds, self._CELLS)

    def _interpolate_pr_auc(self, tp, fp, fn):
        """PR-AUC with precision interpolated between thresholds (Davis & Goadrich, 2006)."""
        xp = _xp(tp)
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        slope = _divide_no_nan(dtp, xp.maximum(dp, 0))
        intercept = tp[1:] - slope * p[1:]
        both = (p[:-1] > 0) & (p[1:] > 0)
        ratio = xp.where(both, _divide_no_nan(p[:-1], xp.maximum(p[1:], 0)), xp.ones_like(p[1:]))
        increments = _divide_no_nan(slope * (dtp + intercept * xp.log(ratio)),
                                    xp.maximum(tp[1:] + fn[1:], 0))
        return increments.sum()

    def result(self):
        tp, fp = self.true_positives._value, self.false_positives._value
        tn, fn = self.true_negatives._value, self.false_negatives._value
        xp = _xp(tp)
        if self.curve == "PR" and self.summation_method == "interpolation":
            return _tensor(xp.asarray(self._interpolate_pr_auc(tp, fp, fn), dtype=tp.dtype))
        recall = _divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = _divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, _divide_no_nan(tp, tp + fp)
        if self.summation_method == "interpolation":
            heights = (y[:-1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = xp.minimum(y[:-1], y[1:])
        else:
            heights = xp.maximum(y[:-1], y[1:])
        return _tensor(xp.asarray(((x[:-1] - x[1:]) * heights).sum(), dtype=tp.dtype))

    def get_config(self):
        config = {"num_thresholds": self.num_thresholds, "curve": self.curve,
                  "summation_method": self.summation_method, "multi_label": self.multi_label,
                  "num_labels": self.num_labels, "label_weights": self.label_weights,
                  "from_logits": self._from_logits}
        if self._init_thresholds is not None:
            config["thresholds"] = self.thresholds[1:-1]
        config.update(Metric.get_config(self))
        return config


# -- lookup -----------------------------------------------------------------------------------------

_CLASSES = {c.__name__: c for c in (
    Mean, Sum, MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
    RootMeanSquaredError, Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy, Precision, Recall, AUC,
    CategoricalCrossentropy, BinaryCrossentropy, SparseCategoricalCrossentropy)}
_FUNCTIONS = {
    "accuracy": accuracy, "acc": accuracy, "binary_accuracy": binary_accuracy,
    "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
    "top_k_categorical_accuracy": top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy": sparse_top_k_categorical_accuracy,
    "mean_squared_error": mean_squared_error, "mse": mse, "MSE": mse,
    "mean_absolute_error": mean_absolute_error, "mae": mae, "MAE": mae,
    "mean_absolute_percentage_error": mean_absolute_percentage_error, "mape": mape, "MAPE": mape,
    "binary_crossentropy": binary_crossentropy, "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
}


def _class_lookup():
    """Keras 3's ALL_OBJECTS_DICT: class names, their snake_case forms and a few aliases."""
    from minitf.layers.base import to_snake_case
    table = dict(_CLASSES)
    table.update({to_snake_case(name): cls for name, cls in _CLASSES.items()})
    table.update({"bce": BinaryCrossentropy, "BCE": BinaryCrossentropy, "mse": MeanSquaredError,
                  "MSE": MeanSquaredError, "mae": MeanAbsoluteError, "MAE": MeanAbsoluteError,
                  "mape": MeanAbsolutePercentageError, "MAPE": MeanAbsolutePercentageError})
    return table


def serialize(metric):
    """Keras 3's dict for a metric: {'module': 'keras.metrics', 'class_name', 'config',
    'registered_name': None} for a Metric object, {'module': 'builtins', 'class_name':
    'function', 'config': name, 'registered_name': 'function'} for a metric function."""
    if isinstance(metric, Metric):
        return {"module": "keras.metrics", "class_name": type(metric).__name__,
                "config": metric.get_config(), "registered_name": None}
    name = getattr(metric, "__name__", None)
    if name in _FUNCTIONS:
        return {"module": "builtins", "class_name": "function", "config": name,
                "registered_name": "function"}
    raise ValueError(f"Cannot serialize metric {metric!r}; pass a built-in metric function or a "
                     "Metric object.")


def deserialize(config, custom_objects=None):
    """A metric from a `serialize` dict, or from a name: a class name, its snake_case form or
    an alias ('mse', 'accuracy', 'BinaryAccuracy', ...) gives a new Metric object, as Keras 3."""
    custom_objects = custom_objects or {}
    if isinstance(config, dict):
        name = config.get("class_name")
        if name == "function":
            fn = custom_objects.get(config.get("config")) or _FUNCTIONS.get(config.get("config"))
            if fn is None:
                raise ValueError(f"Unknown metric function: {config.get('config')!r}.")
            return fn
        cls = custom_objects.get(name) or _CLASSES.get(name)
        if cls is None:
            raise ValueError(f"Unknown metric class: {name!r}.")
        return cls.from_config(config.get("config") or {})
    if config in custom_objects:
        obj = custom_objects[config]
        return obj() if isinstance(obj, type) else obj
    cls = _class_lookup().get(config)
    if cls is not None:
        return cls()
    raise ValueError(f"Unknown metric: {config!r}. Use a Keras metric name such as "
                     "'accuracy', 'mse' or 'AUC', a Metric object or a callable.")


def get(identifier):
    """A metric from a name (a new Metric object, as `deserialize`), a config dict, a Metric
    class (instantiated) or a callable (returned as is)."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = _class_lookup().get(identifier)
        if cls is None:
            raise ValueError(f"Could not interpret metric identifier: {identifier!r}; use a Keras "
                             "metric name such as 'accuracy', 'mse' or 'AUC'.")
        return cls()
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric identifier: {identifier!r}")
