"""The Keras training API (`compile`, `fit`, `evaluate`, `predict`, the `*_step` hooks).

`TrainingMixin` is mixed into `tf.keras.Model` (it must come before `Layer` in the bases so
its `metrics` property wins). It follows Keras 3 ("Customizing what happens in fit()"):
`train_step(data)` unpacks `(x, y, sample_weight)`, runs the model under a GradientTape, asks
`compute_loss` (the compiled losses plus `model.losses`), updates the 'loss' tracker, applies
the gradients and returns `compute_metrics(...)`, a dict of the running metric results.
`model.metrics` is `[loss tracker, compile_metrics]` (+ per-output loss trackers): the
compiled metrics live in one container metric whose `result()` is a dict, so a custom step
that loops over `self.metrics` updates them too. `fit` drives the steps over batches, calls
the callbacks and collects per-epoch logs in a `History`.
"""
import inspect
import math
import warnings

import numpy as np

__all__ = ["TrainingMixin", "unpack_x_y_sample_weight", "LossesContainer", "MetricsContainer"]


# -- small helpers ----------------------------------------------------------------------------

def _set(obj, name, value):
    """Set an attribute without the Layer's tracking (training state is not a weight)."""
    object.__setattr__(obj, name, value)


def _to_numpy(value):
    if hasattr(value, "numpy"):
        return value.numpy()
    return np.asarray(value)


def _to_float(value):
    return float(_to_numpy(value))


def _nest():
    from minitf import nest
    return nest


def unpack_x_y_sample_weight(data):
    """Split a batch into `(x, y, sample_weight)`; missing parts are None (Keras' helper)."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`, found a tuple of length {len(data)}.")


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The inverse of `unpack_x_y_sample_weight`: the shortest tuple holding the parts."""
    if y is None:
        return (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


# -- metric objects (minitf.metrics when present, small stand-ins otherwise) ------------------

def _metrics_module():
    try:
        from minitf import metrics
    except ImportError:
        return None
    return metrics


class _Mean:
    """A weighted running mean (stands in for tf.keras.metrics.Mean when that is missing)."""

    def __init__(self, name="mean", fn=None):
        self.name = name
        self._fn = fn
        self.reset_state()

    def update_state(self, *args, sample_weight=None):
        values = self._fn(*args) if self._fn is not None else args[0]
        values = np.asarray(_to_numpy(values), dtype=np.float64)
        if sample_weight is None:
            self._total += float(values.sum())
            self._count += float(values.size)
            return
        weight = np.asarray(_to_numpy(sample_weight), dtype=np.float64)
        if weight.ndim > values.ndim:
            weight = weight.reshape(weight.shape[:values.ndim])
        weight = np.broadcast_to(weight.reshape(weight.shape + (1,) * (values.ndim - weight.ndim)),
                                 values.shape) if values.ndim else weight
        self._total += float((values * weight).sum())
        self._count += float(weight.sum())

    def result(self):
        from minitf.ops.constant import constant
        return constant(self._total / self._count if self._count else 0.0, dtype="float32")

    def reset_state(self):
        self._total = 0.0
        self._count = 0.0

    reset_states = reset_state


def _sparse_accuracy(y_true, y_pred):
    y_true = np.asarray(_to_numpy(y_true))
    y_pred = np.asarray(_to_numpy(y_pred))
    labels = y_true.reshape(y_pred.shape[:-1]) if y_true.size == np.prod(y_pred.shape[:-1]) \
        else y_true
    return (np.argmax(y_pred, axis=-1) == labels.astype(np.int64)).astype(np.float32)


def _categorical_accuracy(y_true, y_pred):
    y_true, y_pred = _to_numpy(y_true), _to_numpy(y_pred)
    return (np.argmax(y_true, axis=-1) == np.argmax(y_pred, axis=-1)).astype(np.float32)


def _binary_accuracy(y_true, y_pred, threshold=0.5):
    y_true = np.asarray(_to_numpy(y_true))
    y_pred = np.asarray(_to_numpy(y_pred))
    if y_true.ndim == y_pred.ndim - 1:
        y_true = y_true[..., None]
    return np.mean((y_pred > threshold) == (y_true > threshold), axis=-1).astype(np.float32)


def _mean_tracker(name):
    module = _metrics_module()
    if module is not None and hasattr(module, "Mean"):
        return module.Mean(name=name)
    return _Mean(name)


def _accuracy_metric(kind, name):
    """'sparse', 'binary' or 'categorical' accuracy named `name`."""
    classes = {"sparse": "SparseCategoricalAccuracy", "binary": "BinaryAccuracy",
               "categorical": "CategoricalAccuracy"}
    module = _metrics_module()
    if module is not None and hasattr(module, classes[kind]):
        return getattr(module, classes[kind])(name=name)
    fns = {"sparse": _sparse_accuracy, "binary": _binary_accuracy,
           "categorical": _categorical_accuracy}
    return _Mean(name, fn=fns[kind])


def _wrap_metric_fn(fn, name):
    module = _metrics_module()
    if module is not None and hasattr(module, "MeanMetricWrapper"):
        return module.MeanMetricWrapper(fn, name=name)
    return _Mean(name, fn=fn)


def _is_metric(obj):
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
    t_shape = tuple(np.shape(_to_numpy(y_true)))
    p_shape = tuple(y_pred.shape)
    if p_shape and p_shape[-1] == 1:
        return "binary"
    if len(t_shape) < len(p_shape) or (t_shape and t_shape[-1] == 1):
        return "sparse"
    return "categorical"


def _loss_name(loss_fn):
    from minitf.layers.base import to_snake_case
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
        self._spec = losses
        self._weights_spec = loss_weights
        self._model = model
        self._output_trackers = []
        self._built = False

    def _build(self, y_pred):
        from minitf import losses
        self._names = _output_names(self._model, y_pred)
        fns = _per_output(self._spec, self._names, "losses")
        self._fns = [None if f is None else _as_loss_object(losses.get(f)) for f in fns]
        weights = self._weights_spec
        self._loss_weights = [1.0 if w is None else float(w) for w in
                              _per_output(weights, self._names, "loss_weights")]
        if len(self._names) > 1:
            self._output_trackers = [_mean_tracker(f"{n}_loss") if f is not None else None
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
        import minitf as tf
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
            if self._output_trackers:
                self._output_trackers[i].update_state(value, sample_weight=_batch_size(preds[i]))
            terms.append(value * self._loss_weights[i] if self._loss_weights[i] != 1.0 else value)
        if not terms:
            return None
        return terms[0] if len(terms) == 1 else tf.add_n([_as_float32(t, terms[0])
                                                          for t in terms])


def _as_float32(term, like):
    import minitf as tf
    term = tf.convert_to_tensor(term)
    return term if term.dtype == like.dtype else tf.cast(term, like.dtype)


def _as_loss_object(fn):
    from minitf import losses
    if isinstance(fn, losses.Loss):
        return fn
    return losses.LossFunctionWrapper(fn, name=getattr(fn, "__name__", "loss"))


def _batch_size(tensor):
    shape = getattr(tensor, "shape", None)
    if shape is None or len(shape) == 0:
        return 1
    return int(shape[0]) if shape[0] is not None else 1


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
                    if len(names) > 1 and not _is_metric(item):
                        _rename(metric, f"{names[i]}_{metric.name}")
                    if metric.name in taken and prefix:
                        _rename(metric, prefix + metric.name)
                    taken.add(metric.name)
                    out.append((i, metric))
        self._names = names
        self._built = True

    def _resolve(self, item, index, y_true, y_pred):
        if _is_metric(item):
            return item
        loss_fn = self._losses.loss_fn_for(index) if self._losses is not None else None
        if item in ("accuracy", "acc"):
            return _accuracy_metric(_accuracy_kind(loss_fn, y_true, y_pred), item)
        if item in ("crossentropy", "ce"):
            kind = _accuracy_kind(loss_fn, y_true, y_pred)
            fn = {"sparse": "sparse_categorical_crossentropy", "binary": "binary_crossentropy",
                  "categorical": "categorical_crossentropy"}[kind]
            from minitf import losses
            return _wrap_metric_fn(losses.get(fn), item)
        module = _metrics_module()
        if module is not None and hasattr(module, "get"):
            resolved = module.get(item)
        else:
            from minitf import losses
            resolved = losses.get(item)
        if isinstance(resolved, type):
            resolved = resolved()
        if _is_metric(resolved):
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


# -- data: arrays, datasets and generators as batches -----------------------------------------

def _is_dataset(x):
    from minitf.data import Dataset
    return isinstance(x, Dataset)


def _is_iterator(x):
    return inspect.isgenerator(x) or (hasattr(x, "__next__") and hasattr(x, "__iter__"))


def _num_samples(struct):
    lengths = {len(a) for a in _nest().flatten(struct) if a is not None}
    if len(lengths) > 1:
        raise ValueError(f"Data cardinality is ambiguous: the arrays have different numbers of "
                         f"samples {sorted(lengths)}. Make sure all arrays contain the same "
                         "number of samples.")
    return lengths.pop() if lengths else 0


def _as_numpy_struct(struct):
    if struct is None:
        return None
    return _nest().map_structure(lambda a: None if a is None else np.asarray(_to_numpy(a)),
                                 struct)


def _take(struct, index):
    if struct is None:
        return None
    return _nest().map_structure(lambda a: a[index], struct)


def _class_weights_for(y, class_weight):
    y = np.asarray(_to_numpy(y))
    if isinstance(y, np.ndarray) and y.ndim == 2 and y.shape[1] > 1:
        labels = np.argmax(y, axis=-1)
    else:
        labels = y.reshape(len(y)).astype(np.int64)
    table = np.ones(int(max(max(class_weight) + 1, labels.max(initial=0) + 1)), np.float32)
    for cls, weight in class_weight.items():
        table[int(cls)] = weight
    return table[labels]


def _with_class_weight(data, class_weight):
    if not class_weight:
        return data
    x, y, sw = unpack_x_y_sample_weight(data)
    if isinstance(y, (list, tuple, dict)):
        raise ValueError("`class_weight` is only supported for models with a single output.")
    weights = _class_weights_for(y, class_weight)
    if sw is not None:
        weights = weights * np.asarray(_to_numpy(sw), np.float32).reshape(weights.shape)
    return (x, y, weights)


class DataHandler:
    """Batches for one `fit`/`evaluate`/`predict` run, epoch by epoch.

    Arrays (numpy, tensors, or lists/dicts of them) are sliced into batches (shuffled each
    epoch when asked); a `tf.data.Dataset` is iterated afresh each epoch; a Python generator
    or iterator is read on across epochs. `steps` is the number of batches per epoch (None
    when unknown).
    """

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None,
                 shuffle=False, class_weight=None):
        self._class_weight = class_weight
        self._iterator = None
        self.exhausted = False
        if _is_dataset(x) or _is_iterator(x):
            if y is not None:
                raise ValueError("`y` argument is not supported when using a dataset or a "
                                 "generator as input; yield (x, y) pairs from it instead.")
            self._kind = "dataset" if _is_dataset(x) else "iterator"
            self._source = x
            steps = None
            if self._kind == "dataset":
                card = int(x.cardinality())
                steps = card if card >= 0 else None
            self.steps = steps_per_epoch if steps_per_epoch is not None else steps
            self._keep_iterator = steps_per_epoch is not None or self._kind == "iterator"
            return
        self._kind = "arrays"
        self._x, self._y = _as_numpy_struct(x), _as_numpy_struct(y)
        self._sw = _as_numpy_struct(sample_weight)
        self._n = _num_samples((self._x, self._y, self._sw))
        self._batch = batch_size or 32
        self._shuffle = shuffle
        per_epoch = int(math.ceil(self._n / self._batch))
        self.steps = steps_per_epoch if steps_per_epoch is not None else per_epoch

    def _array_batches(self):
        while True:
            order = np.random.permutation(self._n) if self._shuffle else None
            for start in range(0, self._n, self._batch):
                index = slice(start, start + self._batch) if order is None else \
                    order[start:start + self._batch]
                yield pack_x_y_sample_weight(_take(self._x, index), _take(self._y, index),
                                             _take(self._sw, index))
            if self._n == 0:
                return

    def _fresh_iterator(self):
        if self._kind == "arrays":
            return self._array_batches()
        return iter(self._source)

    def epoch_batches(self):
        """Yield the batches of one epoch (each an `(x,)`, `(x, y)` or `(x, y, w)` tuple)."""
        if self._kind == "arrays" or not self._keep_iterator:
            iterator = self._fresh_iterator()
        else:
            if self._iterator is None:
                self._iterator = self._fresh_iterator()
            iterator = self._iterator
        count = 0
        while self.steps is None or count < self.steps:
            try:
                data = next(iterator)
            except StopIteration:
                if self._kind == "dataset" and self._keep_iterator and count == 0 and \
                        self._iterator is not None:
                    self._iterator = iterator = self._fresh_iterator()
                    continue
                if self.steps is not None and self._kind != "arrays":
                    self.exhausted = True
                    warnings.warn("Your input ran out of data; interrupting training. Make "
                                  "sure that your dataset or generator can generate at least "
                                  "`steps_per_epoch * epochs` batches.", stacklevel=4)
                break
            if not isinstance(data, tuple):
                data = tuple(data) if isinstance(data, list) else (data,)
            yield _with_class_weight(data, self._class_weight)
            count += 1
        if self._kind == "arrays" and self.steps is not None:
            iterator.close()


def _split_validation(x, y, sample_weight, validation_split):
    if _is_dataset(x) or _is_iterator(x):
        raise ValueError("`validation_split` is only supported for Tensors or NumPy arrays, "
                         f"found {type(x).__name__}; pass `validation_data` instead.")
    x, y, sw = _as_numpy_struct(x), _as_numpy_struct(y), _as_numpy_struct(sample_weight)
    n = _num_samples((x, y, sw))
    split_at = int(math.floor(n * (1.0 - validation_split)))
    if split_at == 0 or split_at == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to "
                         f"split it into a validation and training set as specified by "
                         f"`validation_split={validation_split}`.")
    head, tail = slice(0, split_at), slice(split_at, n)
    return ((_take(x, head), _take(y, head), _take(sw, head)),
            (_take(x, tail), _take(y, tail), _take(sw, tail)))


def _concat_outputs(batches):
    if not batches:
        return None
    first = batches[0]
    nest = _nest()
    flat = [nest.flatten(b) for b in batches]
    joined = [np.concatenate([_to_numpy(f[i]) for f in flat], axis=0)
              for i in range(len(flat[0]))]
    return nest.pack_sequence_as(first, joined)


def _floats(logs):
    """Logs with tensor values turned into Python floats (nested dicts flattened)."""
    out = {}
    for key, value in (logs or {}).items():
        if isinstance(value, dict):
            out.update(_floats(value))
        else:
            try:
                out[key] = _to_float(value)
            except (TypeError, ValueError):
                out[key] = value
    return out


def _flatten_logs(logs):
    if not isinstance(logs, dict) or not any(isinstance(v, dict) for v in logs.values()):
        return logs
    out = {}
    for key, value in logs.items():
        if isinstance(value, dict):
            out.update(_flatten_logs(value))
        else:
            out[key] = value
    return out


# -- the mixin --------------------------------------------------------------------------------

class TrainingMixin:
    """compile/fit/evaluate/predict for a Keras Model (Keras 2 semantics)."""

    # -- configuration ---------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                weighted_metrics=None, run_eagerly=None, steps_per_execution=1,
                jit_compile=None, **kwargs):
        """Configure training: the optimizer, the loss(es) and the metrics to report.

        Strings are looked up ('adam', 'mse', 'accuracy'); 'accuracy' becomes the sparse,
        binary or categorical accuracy that fits the loss. For several outputs, `loss`,
        `loss_weights` and `metrics` may be lists (in output order) or dicts by output name.
        """
        from minitf import optimizers
        if kwargs:
            raise TypeError(f"compile() got unexpected keyword arguments {sorted(kwargs)}.")
        _set(self, "optimizer", optimizers.get(optimizer) if optimizer is not None else None)
        _set(self, "loss", loss)
        compile_loss = LossesContainer(loss, loss_weights, model=self)
        _set(self, "_compile_loss", compile_loss if loss is not None else None)
        _set(self, "_compile_metrics",
             MetricsContainer(metrics, weighted_metrics, model=self, losses=compile_loss)
             if metrics is not None or weighted_metrics is not None else None)
        _set(self, "_loss_tracker", _mean_tracker("loss"))
        _set(self, "_run_eagerly", run_eagerly)
        _set(self, "_steps_per_execution", int(steps_per_execution or 1))
        _set(self, "_jit_compile", jit_compile)
        _set(self, "_is_compiled", True)
        _set(self, "stop_training", False)

    @property
    def run_eagerly(self):
        """Always true in minitf (everything runs eagerly); kept for API compatibility."""
        return True if getattr(self, "_run_eagerly", None) is None else bool(self._run_eagerly)

    @run_eagerly.setter
    def run_eagerly(self, value):
        _set(self, "_run_eagerly", value)

    def _assert_compiled(self):
        # Keras 3 raises ValueError (Keras 2 raised RuntimeError)
        if not getattr(self, "_is_compiled", False):
            raise ValueError("You must call `compile()` before using the model: call "
                             "`model.compile(optimizer, loss)` before fit, evaluate, "
                             "train_on_batch or test_on_batch.")

    @property
    def metrics(self):
        """Metrics reset at each epoch, in Keras 3's order: the 'loss' tracker, the
        'compile_metrics' container (when compiled with metrics), per-output loss trackers,
        then metric objects assigned as attributes of the model."""
        found = []
        if getattr(self, "_is_compiled", False):
            found.append(self._loss_tracker)
            if self._compile_metrics is not None:
                found.append(self._compile_metrics)
            if self._compile_loss is not None:
                found += self._compile_loss.metrics
        for value in vars(self).values():
            if _is_metric(value) and not any(value is m for m in found):
                found.append(value)
        return found

    @property
    def compiled_metrics(self):
        """Keras 3's deprecated shim: `update_state(y, y_pred, sample_weight)` updates every
        metric in `metrics`, Mean metrics (the 'loss' tracker included) with `y_pred`."""
        model = self

        class DeprecatedCompiledMetric:
            def update_state(self, y, y_pred, sample_weight=None):
                model._compiled_metrics_update_state(y, y_pred, sample_weight)
        return DeprecatedCompiledMetric()

    def _compiled_metrics_update_state(self, y, y_pred, sample_weight=None):
        warnings.warn("`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n```\n"
                      "for metric in self.metrics:\n    metric.update_state(y, y_pred)\n```\n",
                      stacklevel=3)
        mean = getattr(_metrics_module(), "Mean", None)
        for metric in self.metrics:
            if mean is not None and isinstance(metric, mean):
                metric.update_state(y_pred, sample_weight=sample_weight)
            else:
                metric.update_state(y, y_pred, sample_weight=sample_weight)

    def compiled_loss(self, y, y_pred, sample_weight=None, regularization_losses=None):
        """Keras 3's deprecated shim for `compute_loss(None, y, y_pred, sample_weight)` (it
        does not update the 'loss' tracker)."""
        warnings.warn("`model.compiled_loss()` is deprecated. Instead, use "
                      "`model.compute_loss(x, y, y_pred, sample_weight, training)`.",
                      stacklevel=2)
        return self.compute_loss(x=None, y=y, y_pred=y_pred, sample_weight=sample_weight)

    @property
    def metrics_names(self):
        """Names of `metrics`, in order ('loss' first)."""
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        """Reset the state of every metric in `metrics`."""
        for metric in self.metrics:
            metric.reset_state()

    @property
    def distribute_strategy(self):
        """None: minitf runs on one device."""
        return None

    # -- the overridable steps -------------------------------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The total loss of a batch: the compiled losses plus the model's `losses`
        (ValueError when there is none)."""
        import minitf as tf
        losses = []
        if getattr(self, "_compile_loss", None) is not None:
            loss = self._compile_loss(y, y_pred, sample_weight)
            if loss is not None:
                losses.append(loss)
        for loss in self.losses:
            loss = tf.convert_to_tensor(loss)
            if not loss.dtype.is_floating:
                loss = tf.cast(loss, "float32")
            losses.append(tf.reduce_sum(loss))
        if not losses:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        if len(losses) == 1:
            return losses[0]
        return tf.add_n([_as_float32(t, losses[0]) for t in losses])

    def _compute_loss(self, x, y, y_pred, sample_weight, training):
        """`compute_loss`, without `training` for overrides written before it existed."""
        if _accepts(self.compute_loss, "training"):
            return self.compute_loss(x, y, y_pred, sample_weight, training=training)
        return self.compute_loss(x, y, y_pred, sample_weight)

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Update the compiled metrics and return `get_metrics_result()`."""
        if getattr(self, "_compile_metrics", None) is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self):
        """`{name: result}` for every metric in `metrics`; a dict result (the compiled
        metrics) is merged in."""
        out = {}
        for metric in self.metrics:
            result = metric.result()
            if isinstance(result, dict):
                out.update(result)
            else:
                out[metric.name] = result
        return out

    def _track_loss(self, loss, x):
        self._loss_tracker.update_state(loss, sample_weight=_batch_size(
            next((t for t in _nest().flatten(x) if t is not None), None)))

    def train_step(self, data):
        """One optimization step on `data` = `(x, y, sample_weight)`; returns metric results."""
        from minitf.tape import GradientTape
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self._compute_loss(x, y, y_pred, sample_weight, training=True)
        self._track_loss(loss, x)
        variables = self.trainable_variables
        if variables:
            grads = tape.gradient(loss, variables)
            self.optimizer.apply_gradients(zip(grads, variables))
        else:
            warnings.warn("The model does not have any trainable weights.", stacklevel=2)
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data):
        """One evaluation step: forward pass, loss and metrics; returns metric results."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self._compute_loss(x, y, y_pred, sample_weight, training=False)
        self._track_loss(loss, x)
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def _get_metrics_result_or_logs(self, logs):
        """The model's metric results when the step logs have the same keys, else the logs
        (custom steps may report other values), as Keras 3 ends an epoch."""
        try:
            metric_logs = self.get_metrics_result()
        except ValueError:  # an unbuilt compile_metrics: the steps never updated it
            return logs
        if isinstance(logs, dict) and set(logs) == set(metric_logs):
            return metric_logs
        return logs

    def _flatten_metrics_in_order(self, logs):
        """`logs` as a list in `metrics` order (compiled metrics expanded), then any other
        keys sorted; a single value is returned bare."""
        names = []
        for metric in self.metrics:
            if isinstance(metric, MetricsContainer):
                names += [m.name for m in metric.metrics]
            else:
                names.append(metric.name)
        results = [logs[n] for n in names if n in logs]
        results += [logs[k] for k in sorted(logs) if k not in names]
        return results[0] if len(results) == 1 else results

    def predict_step(self, data):
        """One inference step: the model's outputs for the batch's `x`."""
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    # -- fit -------------------------------------------------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1, max_queue_size=10, workers=1,
            use_multiprocessing=False):
        """Train for `epochs` epochs; returns the `History` callback (`.history` dict)."""
        from minitf import callbacks as callbacks_module
        self._assert_compiled()
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = _split_validation(
                x, y, sample_weight, validation_split)
        data = DataHandler(x, y, sample_weight, batch_size, steps_per_epoch, shuffle,
                           class_weight)
        verbose = _resolve_verbose(verbose)
        cb = callbacks_module.CallbackList(
            callbacks, add_history=True, add_progbar=verbose != 0, model=self,
            verbose=verbose, epochs=epochs, steps=data.steps)
        history = next(c for c in cb if isinstance(c, callbacks_module.History))
        _set(self, "history", history)
        _set(self, "stop_training", False)
        cb.on_train_begin()
        logs = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cb.on_epoch_begin(epoch)
            logs = self._run_epoch(data, cb)
            if data.exhausted:
                self.stop_training = True
            epoch_logs = _floats(self._get_metrics_result_or_logs(logs))
            if validation_data is not None and _should_validate(epoch, validation_freq):
                val_logs = self._validate(validation_data, validation_batch_size or batch_size,
                                          validation_steps, cb)
                epoch_logs.update({"val_" + k: v for k, v in val_logs.items()})
            cb.on_epoch_end(epoch, epoch_logs)
            logs = epoch_logs
            if self.stop_training:
                break
        cb.on_train_end(logs)
        return history

    def _run_epoch(self, data, cb):
        logs = {}
        step = 0
        batch_begin, batch_end = cb.on_train_batch_begin, cb.on_train_batch_end
        for batch in data.epoch_batches():
            batch_begin(step)
            logs = _flatten_logs(self.train_step(batch))
            batch_end(step, logs)
            step += 1
            if self.stop_training:
                break
        return logs

    def _validate(self, validation_data, batch_size, steps, cb):
        if _is_dataset(validation_data) or _is_iterator(validation_data):
            vx, vy, vsw = validation_data, None, None
        else:
            vx, vy, vsw = unpack_x_y_sample_weight(validation_data)
        return self.evaluate(vx, vy, batch_size=batch_size, verbose=0, sample_weight=vsw,
                             steps=steps, callbacks=cb, return_dict=True)

    # -- evaluate / predict ----------------------------------------------------------------
    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, max_queue_size=10, workers=1,
                 use_multiprocessing=False, return_dict=False, **kwargs):
        """The loss and metrics on the data: a scalar, a list in `metrics_names` order, or a
        dict when `return_dict=True`."""
        from minitf import callbacks as callbacks_module
        self._assert_compiled()
        data = DataHandler(x, y, sample_weight, batch_size, steps, shuffle=False)
        verbose = _resolve_verbose(verbose)
        cb = callbacks if isinstance(callbacks, callbacks_module.CallbackList) else \
            callbacks_module.CallbackList(callbacks, add_progbar=verbose != 0, model=self,
                                          verbose=verbose, epochs=1, steps=data.steps)
        self.reset_metrics()
        cb.on_test_begin()
        logs = {}
        for step, batch in enumerate(data.epoch_batches()):
            cb.on_test_batch_begin(step)
            logs = _flatten_logs(self.test_step(batch))
            cb.on_test_batch_end(step, logs)
        logs = _floats(self._get_metrics_result_or_logs(logs))
        cb.on_test_end(logs)
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None,
                max_queue_size=10, workers=1, use_multiprocessing=False):
        """The model's outputs for `x`, batch by batch, joined into numpy array(s)."""
        from minitf import callbacks as callbacks_module
        data = DataHandler(x, None, None, batch_size, steps, shuffle=False)
        verbose = _resolve_verbose(verbose)
        cb = callbacks_module.CallbackList(callbacks, add_progbar=verbose != 0, model=self,
                                           verbose=verbose, epochs=1, steps=data.steps)
        cb.on_predict_begin()
        outputs = []
        for step, batch in enumerate(data.epoch_batches()):
            cb.on_predict_batch_begin(step)
            out = self.predict_step(batch)
            outputs.append(out)
            cb.on_predict_batch_end(step, {"outputs": out})
        cb.on_predict_end()
        if not outputs:
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs). "
                             "Please use `Model.compile(..., run_eagerly=True)`, or "
                             "check that your input is not empty.")
        return _concat_outputs(outputs)

    # -- single batches --------------------------------------------------------------------
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       reset_metrics=True, return_dict=False):
        """One training step on one batch; returns the loss/metrics like `evaluate`."""
        self._assert_compiled()
        if reset_metrics:
            self.reset_metrics()
        data = _with_class_weight(pack_x_y_sample_weight(x, y, sample_weight), class_weight)
        return self._batch_result(self.train_step(data), return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True,
                      return_dict=False):
        """One evaluation step on one batch; returns the loss/metrics like `evaluate`."""
        self._assert_compiled()
        if reset_metrics:
            self.reset_metrics()
        data = pack_x_y_sample_weight(x, y, sample_weight)
        return self._batch_result(self.test_step(data), return_dict)

    def predict_on_batch(self, x):
        """The model's outputs for one batch, as numpy array(s)."""
        out = self.predict_step((x,))
        return _nest().map_structure(_to_numpy, out)

    def _batch_result(self, logs, return_dict):
        logs = _floats(_flatten_logs(logs))
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)


def _accepts(fn, name):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def _resolve_verbose(verbose):
    if verbose == "auto":
        return 1
    return int(verbose)


def _should_validate(epoch, validation_freq):
    if isinstance(validation_freq, int):
        if validation_freq < 1:
            raise ValueError(f"`validation_freq` must be positive, got {validation_freq}.")
        return (epoch + 1) % validation_freq == 0
    return (epoch + 1) in validation_freq
