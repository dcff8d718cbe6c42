"""The compiled losses and metrics of a Keras model (Keras 3's CompileLoss/CompileMetrics).

`Model.compile(loss=..., metrics=...)` accepts one entry for every output, a list in output
order, or a dict by output name. `LossesContainer` resolves the losses and returns their
weighted sum; `MetricsContainer` resolves the metrics on first use (so 'accuracy' can pick
the sparse, binary or categorical accuracy that fits the loss and the labels) and behaves as
one metric whose `result()` is a dict.
"""
import numpy as np

from minitf import losses, metrics
from minitf.losses.loss import LossFunctionWrapper
from minitf.keras_core.naming import to_snake_case
from minitf.convert import convert_to_tensor
from minitf.engine.data_adapter import to_numpy
from minitf.losses.reduction import unscale_loss_for_distribution
from minitf.ops import math as math_ops
from minitf.ops import shaping as shape_ops
from minitf.ops.constant import cast

__all__ = ["LossesContainer", "MetricsContainer", "is_metric", "batch_size_of", "add_losses"]


def _accuracy_metric(kind, name):
    """'sparse', 'binary' or 'categorical' accuracy named `name`."""
    classes = {"sparse": metrics.SparseCategoricalAccuracy, "binary": metrics.BinaryAccuracy,
               "categorical": metrics.CategoricalAccuracy}
    return classes[kind](name=name)


def _wrap_metric_fn(fn, name):
    return metrics.MeanMetricWrapper(fn, name=name)


def is_metric(obj):
    """Whether `obj` behaves as a Keras metric (update_state, result, reset_state)."""
    cls = type(obj)  # class lookups: cheap, and never trigger an instance __getattr__
    return hasattr(cls, "update_state") and hasattr(cls, "result") and \
        hasattr(cls, "reset_state") and cls is not MetricsContainer and cls is not type


def _accuracy_kind(loss_fn, y_true, y_pred):
    """Which accuracy 'accuracy' means, from the loss and (failing that) the shapes."""
    name = _loss_name(loss_fn)
    if "sparse_categorical" in name:
        return "sparse"
    if "binary_crossentropy" in name:
        return "binary"
    if "categorical" in name:
        return "categorical"
    t_shape = tuple(np.shape(to_numpy(y_true)))
    p_shape = tuple(y_pred.shape)
    if p_shape and p_shape[-1] == 1:
        return "binary"
    if len(t_shape) < len(p_shape) or (t_shape and t_shape[-1] == 1):
        return "sparse"
    return "categorical"


def _loss_name(loss_fn):
    if loss_fn is None:
        return ""
    if hasattr(loss_fn, "fn"):
        return getattr(loss_fn.fn, "__name__", "")
    if hasattr(loss_fn, "name") and isinstance(loss_fn.name, str):
        return loss_fn.name
    if isinstance(loss_fn, type):
        return to_snake_case(loss_fn.__name__)
    return getattr(loss_fn, "__name__", "")


# -- outputs, losses and metrics by output name -----------------------------------------------

def _output_names(model, y_pred):
    """Names for the model's outputs: dict keys, the functional output names, or output_N."""
    if isinstance(y_pred, dict):
        return list(y_pred)
    count = len(y_pred) if isinstance(y_pred, (list, tuple)) else 1
    names = list(getattr(model, "output_names", None) or [])
    if len(names) != count or len(set(names)) != count:
        names = [f"output_{i + 1}" for i in range(count)]
    return names


def _flat_outputs(struct, names):
    """The entries of `struct` (one per output) in `names` order."""
    if isinstance(struct, dict):
        return [struct.get(n) for n in names]
    if isinstance(struct, (list, tuple)) and len(names) > 1:
        return list(struct)
    if isinstance(struct, (list, tuple)) and len(struct) == 1 and len(names) == 1:
        return [struct[0]]
    return [struct] * len(names) if len(names) == 1 else [struct] + [None] * (len(names) - 1)


def _per_output(spec, names, what):
    """Map a compile argument (single, list or dict) onto the output names."""
    if isinstance(spec, dict):
        unknown = [k for k in spec if k not in names]
        if unknown:
            raise ValueError(f"compile: {what} keys {unknown} do not match the model's output "
                             f"names {names}.")
        return [spec.get(n) for n in names]
    if isinstance(spec, (list, tuple)) and what != "metrics":
        if len(spec) != len(names):
            raise ValueError(f"compile: got {len(spec)} {what} for a model with "
                             f"{len(names)} outputs {names}; pass one per output.")
        return list(spec)
    if isinstance(spec, (list, tuple)) and len(names) > 1 and len(spec) == len(names):
        return list(spec)  # Keras 3: a metrics list with one entry per output
    return [spec] * len(names)


class LossesContainer:
    """The compiled loss(es) and their weights (Keras 3's CompileLoss).

    Calling it returns the weighted sum of the output losses and, for several outputs,
    updates the running '<output>_loss' means. The model's 'loss' tracker is updated by
    `train_step`/`test_step`, not here.
    """

    def __init__(self, losses, loss_weights=None, model=None):
        if loss_weights is not None and (isinstance(loss_weights, (str, bytes, bool)) or not isinstance(
                loss_weights, (int, float, np.integer, np.floating, list, tuple, dict))):
            raise ValueError(f"Model.compile: expected `loss_weights` argument to be a float (single output "
                             f"case) or a list, tuple, or dict (multiple output case). Received instead: "
                             f"loss_weights={loss_weights!r} of type {type(loss_weights)}")
        self._spec = losses
        self._weights_spec = loss_weights
        self._model = model
        self._output_trackers = []
        self._built = False

    def _build(self, y_pred):
        self._names = _output_names(self._model, y_pred)
        fns = _per_output(self._spec, self._names, "losses")
        self._fns = [None if f is None else _as_loss_object(losses.get(f)) for f in fns]
        weights = self._weights_spec
        self._loss_weights = [1.0 if w is None else float(w) for w in
                              _per_output(weights, self._names, "loss_weights")]
        if len(self._names) > 1:
            self._output_trackers = [metrics.Mean(name=f"{n}_loss") if f is not None else None
                                     for n, f in zip(self._names, self._fns)]
        self._built = True

    def loss_fn_for(self, index):
        """The loss object for output `index` (after the first call), else the spec."""
        if self._built:
            return self._fns[index]
        return self._spec if not isinstance(self._spec, (list, tuple, dict)) else None

    @property
    def metrics(self):
        """The per-output loss trackers of multi-output models (after the first call)."""
        return [t for t in self._output_trackers if t is not None]

    def reset_state(self):
        """Reset the loss trackers."""
        for metric in self.metrics:
            metric.reset_state()

    def __call__(self, y_true, y_pred, sample_weight=None):
        if not self._built:
            self._build(y_pred)
        preds = _flat_outputs(y_pred, self._names)
        trues = _flat_outputs(y_true, self._names)
        weights = _flat_outputs(sample_weight, self._names) if sample_weight is not None \
            else [None] * len(self._names)
        terms = []
        for i, fn in enumerate(self._fns):
            if fn is None or trues[i] is None:
                continue
            value = fn(trues[i], preds[i], sample_weight=weights[i])
            examples = batch_size_of(preds[i])
            if self._output_trackers and (type(examples) is not int or examples != 0):
                # an empty replica batch adds nothing
                self._output_trackers[i].update_state(unscale_loss_for_distribution(value),
                                                      sample_weight=examples)
            terms.append(value * self._loss_weights[i] if self._loss_weights[i] != 1.0 else value)
        if not terms:
            return None
        return add_losses(terms)


def add_losses(terms):
    """The sum of loss tensors, each cast to the first one's dtype."""
    if len(terms) == 1:
        return terms[0]
    like = terms[0]
    terms = [convert_to_tensor(t) for t in terms]
    return math_ops.add_n([t if t.dtype == like.dtype else cast(t, like.dtype) for t in terms])


def _as_loss_object(fn):
    if isinstance(fn, losses.Loss):
        return fn
    return LossFunctionWrapper(fn, name=getattr(fn, "__name__", "loss"))


def batch_size_of(tensor):
    """The number of examples in a batch: the first dimension (1 for a scalar); inside a function
    traced with an unknown batch size, a tensor read when the graph runs."""
    shape = getattr(tensor, "shape", None)
    if shape is None or len(shape) == 0:
        return 1
    if shape[0] is None:
        return shape_ops.shape(tensor)[0]
    return int(shape[0])


class MetricsContainer:
    """The compiled metrics as one metric named 'compile_metrics' (Keras 3's CompileMetrics).

    `update_state(y, y_pred, sample_weight)` resolves the metrics per output on first use;
    `result()` is a dict `{metric name: value}` (ValueError before the first update).
    """

    name = "compile_metrics"

    def __init__(self, metrics=None, weighted_metrics=None, model=None, losses=None):
        self._spec = metrics
        self._weighted_spec = weighted_metrics
        self._model = model
        self._losses = losses
        self._plain, self._weighted = [], []
        self._built = False

    @property
    def built(self):
        """Whether the first update has resolved the metrics."""
        return self._built

    @property
    def metrics(self):
        """The metric objects (empty until the first update resolves them)."""
        return [m for _, m in self._plain] + [m for _, m in self._weighted]

    @property
    def variables(self):
        """The state variables of every compiled metric."""
        return [v for metric in self.metrics for v in metric.variables]

    def reset_state(self):
        """Reset every compiled metric."""
        for metric in self.metrics:
            metric.reset_state()

    def result(self):
        """`{name: result}` of the compiled metrics."""
        if not self._built:
            raise ValueError("Cannot get result() since the metric has not yet been built.")
        return {m.name: m.result() for m in self.metrics}

    def _build(self, y_true, y_pred):
        names = _output_names(self._model, y_pred)
        trues = _flat_outputs(y_true, names)
        preds = _flat_outputs(y_pred, names)
        taken = set()
        for spec, out, prefix in ((self._spec, self._plain, ""),
                                  (self._weighted_spec, self._weighted, "weighted_")):
            for i, items in enumerate(_per_output(spec, names, "metrics")):
                if items is None:
                    continue
                for item in (items if isinstance(items, (list, tuple)) else [items]):
                    metric = self._resolve(item, i, trues[i], preds[i])
                    if len(names) > 1 and not is_metric(item):
                        _rename(metric, f"{names[i]}_{metric.name}")
                    if metric.name in taken and prefix:
                        _rename(metric, prefix + metric.name)
                    taken.add(metric.name)
                    out.append((i, metric))
        self._names = names
        self._built = True

    def _resolve(self, item, index, y_true, y_pred):
        if is_metric(item):
            return item
        loss_fn = self._losses.loss_fn_for(index) if self._losses is not None else None
        if item in ("accuracy", "acc"):
            return _accuracy_metric(_accuracy_kind(loss_fn, y_true, y_pred), item)
        if item in ("crossentropy", "ce"):
            kind = _accuracy_kind(loss_fn, y_true, y_pred)
            fn = {"sparse": "sparse_categorical_crossentropy", "binary": "binary_crossentropy",
                  "categorical": "categorical_crossentropy"}[kind]
            return _wrap_metric_fn(losses.get(fn), item)
        resolved = metrics.get(item)
        if isinstance(resolved, type):
            resolved = resolved()
        if is_metric(resolved):
            if isinstance(item, str):  # Keras names a metric given by string after the string
                resolved.name = item
            return resolved
        name = item if isinstance(item, str) else getattr(resolved, "__name__", "metric")
        return _wrap_metric_fn(resolved, name)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Update every compiled metric with this batch."""
        if not self._built:
            self._build(y_true, y_pred)
        trues = _flat_outputs(y_true, self._names)
        preds = _flat_outputs(y_pred, self._names)
        weights = _flat_outputs(sample_weight, self._names) if sample_weight is not None \
            else [None] * len(self._names)
        for i, metric in self._plain:
            if trues[i] is not None:
                metric.update_state(trues[i], preds[i])
        for i, metric in self._weighted:
            if trues[i] is not None:
                metric.update_state(trues[i], preds[i], sample_weight=weights[i])


def _rename(metric, name):
    try:
        metric.name = name
    except AttributeError:
        object.__setattr__(metric, "_name", name)
