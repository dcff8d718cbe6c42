"""The Metric base class and the averaging metrics built on it (Mean, Sum, MeanMetricWrapper).

A Metric keeps its state in non-trainable variables (checkpointed by name: 'total', 'count',
...). Updates run with recording paused and mostly on raw arrays. Averages follow Keras 3: a
batch's values are reduced to one value per sample (the mean of its entries) before
weighting, so Mean and the MeanMetricWrapper metrics count samples.
"""
import functools

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.initializers import initializers
from minitf.keras_core.config import floatx
from minitf.keras_core.naming import to_snake_case, unique_layer_name
from minitf.backend import array_module
from minitf.convert import convert_to_tensor
from minitf import distribution_context as distribute_context
from minitf.module import Module
from minitf.ops.arg_checks import named
from minitf.recording import active_graph, stop_recording_all
from minitf.tensor import Tensor
from minitf.variable import Variable, VariableAggregation, VariableSynchronization
from minitf.api_export import export

__all__ = ["Metric", "Reduce", "Sum", "Mean", "MeanMetricWrapper"]

EPSILON = 1e-7


def raw_value(x, np_dtype=None):
    """The raw array of `x` (tensor, variable, array or Python data), optionally cast."""
    v = x._value if isinstance(x, Variable) else convert_to_tensor(x)._value
    if np_dtype is not None and v.dtype.kind in "OSU" and v.dtype != np_dtype:  # as TF's Cast
        raise errors.UnimplementedError(None, None, f"Cast string to {np_dtype} is not supported: metrics "
                                                    f"take numbers, got {x!r} [Op:Cast]")
    if np_dtype is not None and v.dtype != np_dtype:
        v = v.astype(np_dtype)
    return v




def divide_no_nan(a, b):
    xp = array_module(a)
    safe = xp.where(b == 0, 1, b)
    return xp.where(b == 0, 0, a / safe).astype(a.dtype)


# -- base ---------------------------------------------------------------------------------------

def _paused(method):
    """Wrap an update_state so no tape records it."""
    @functools.wraps(method)
    def update_state(self, *args, **kwargs):
        graph = active_graph()
        if graph is not None:  # traced: a node that updates the state each time the graph runs
            return graph.call(update_state, (self,) + args, kwargs, stateful=True,
                              abstract=_no_effect, op_type="UpdateState", name=self.name)
        with stop_recording_all():
            try:
                return method(self, *args, **kwargs)
            except (TypeError, ValueError, errors.OpError) as e:  # name the metric, keep the class
                raise named(e, f"{type(self).__name__}.update_state") from e
    update_state._paused = True
    return update_state


def _no_effect(*args, **kwargs):
    return None


def _summed_across_workers(result):
    """Wrap a `result` so that a metric made inside the scope of a multi-worker tf.distribute
    strategy reads its state summed over the workers, except inside the strategy's `run` (where a
    replica sees its own): what reading Keras' sync-on-read metric variables gives in TF. As
    there, such a read is a collective: every worker must make it (not only the chief)."""
    @functools.wraps(result)
    def read(self):
        graph = active_graph()
        if graph is not None:  # traced: a node reading the state when the graph runs
            return graph.call(read, (self,), {}, op_type="MetricResult", name=self.name)
        strategy = self.__dict__.get("_strategy")
        if strategy is None or self.__dict__.get("_summing"):
            return result(self)
        entry = distribute_context.top()
        if entry is not None and entry[1] is not None:  # in replica context: the local state
            return result(self)
        workers = strategy.extended._worker_collective
        if workers.size == 1:  # the replicas of one process update the same state
            return result(self)
        variables = self.variables
        local = [v.numpy() for v in variables]
        totals = workers.allreduce(local, "sum")
        self._summing = True
        try:
            for variable, total in zip(variables, totals):
                variable.assign(total)
            return result(self)
        finally:
            for variable, value in zip(variables, local):
                variable.assign(value)
            self._summing = False
    read._summed = True
    return read


class _StateVariable(Variable):
    """A metric's state variable: writes cast the value to its dtype first, as Keras 3
    variables do (a float32 'total' accepts a float64 sum), where tf.Variable would refuse."""

    def _new_value(self, value, op):
        raw = value._value if isinstance(value, Variable) else convert_to_tensor(value)._value
        if raw.dtype != self.dtype._np:
            raw = raw.astype(self.dtype._np)
        return super()._new_value(raw, op)


@export("metrics.Metric", "keras.metrics.Metric")
class Metric(Module):
    """Base class of the metrics: state that accumulates over batches, and a value read from it.

    A metric is used in three steps: `update_state(...)` once per batch adds that batch's
    statistics to the state, `result()` reads the value so far, and `reset_state()` starts
    over (Model.fit calls it at every epoch). Calling the metric, `metric(y_true, y_pred)`,
    updates and returns the result at once. Updates never reach a GradientTape.

    A subclass creates its state in `__init__` with `add_variable` and implements
    `update_state` and `result`:

    ```python
    class Positives(tf.keras.metrics.Metric):
        def __init__(self, name=None, dtype=None):
            super().__init__(name=name, dtype=dtype)
            self.count = self.add_variable(shape=(), initializer="zeros", name="count")

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.count.assign_add(tf.reduce_sum(tf.cast(y_pred > 0.5, "float32")))

        def result(self):
            return tf.identity(self.count)
    ```

    Args:
        name: the metric's name; by default the snake_case class name made unique per
            process ('positives', 'positives_1', ...), as Keras' auto_name.
        dtype: the dtype of the result (`floatx()`, float32, by default).
    """

    _checks_module_name = False  # Keras takes any string as a name

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        update = cls.__dict__.get("update_state")
        if update is not None and not getattr(update, "_paused", False):
            cls.update_state = _paused(update)
        result = cls.__dict__.get("result")
        if result is not None and not getattr(result, "_summed", False):
            cls.result = _summed_across_workers(result)

    def __init__(self, name=None, dtype=None):
        if name is not None and not isinstance(name, str):  # Keras 3 calls name.replace()
            raise AttributeError(f"{type(self).__name__}: `name` must be a string, not {name!r}")
        # Keras' auto_name: a default name is unique per process ('positives', 'positives_1')
        super().__init__(name=name or unique_layer_name(to_snake_case(type(self).__name__)))
        try:
            self._dtype = dtypes.as_dtype(getattr(dtype, "compute_dtype", dtype) or floatx())
        except (TypeError, ValueError):  # Keras 3 makes a DTypePolicy of it: a ValueError
            raise ValueError(f"{type(self).__name__}: cannot convert {dtype!r} to a mixed precision "
                             f"DTypePolicy. Valid policies include 'mixed_float16', 'mixed_bfloat16', and "
                             f"the name of any float dtype such as 'float32'.") from None
        self._metric_variables = []
        self._metric_variable_names = []
        # made in a multi-worker strategy's scope: results read outside its `run` sum the workers
        self._strategy = distribute_context.aggregating_strategy()
        self._summing = False

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
        dtype = dtype or floatx()
        init = initializers.get(initializer or "zeros")
        shape = tuple(shape) if shape is not None else ()
        # synchronized on read, as Keras' metric variables: each replica adds its share
        var = _StateVariable(init(shape, dtype=dtype), trainable=False, name=name or "variable",
                             dtype=dtype, synchronization=VariableSynchronization.ON_READ,
                             aggregation=VariableAggregation.SUM)
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
        """Add one batch's statistics to the state; subclasses implement this.

        Args:
            *args: usually `y_true, y_pred` (`values` for Mean and Sum).
            **kwargs: usually `sample_weight`, weights for the batch's samples.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement update_state().")

    def result(self):
        """The metric's value from the state accumulated so far; subclasses implement this.

        Returns:
            A tensor (a scalar for most metrics).
        """
        raise NotImplementedError(f"{type(self).__name__} must implement result().")

    def reset_state(self):
        """Set every state variable back to zero, as before the first update."""
        for v in self.variables:
            xp = array_module(v._value)
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

def same_rank(x1, x2, expand_rank_1=True):
    """Keras' squeeze_or_expand_to_same_rank on raw arrays: ranks that differ by one agree by
    dropping the longer one's trailing 1 (or, for a rank-1 partner, adding one to it)."""
    xp = array_module(x1)
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
    values = raw_value(values, dt)
    weights = None
    if sample_weight is not None:
        weights = raw_value(sample_weight, dt)
        values, weights = same_rank(values, weights)
        w_nd, v_nd = weights.ndim, values.ndim
        if v_nd > w_nd:
            values = getattr(values, reduce_fn)(axis=tuple(range(w_nd, v_nd)))
        try:
            weights = array_module(values).broadcast_to(weights, values.shape)
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


def _with_mask(sample_weight, mask, dt, who):
    """Keras' apply_mask with reduction 'sum' on raw arrays: the mask (1 valid, 0 masked)
    multiplies the sample weights, or stands for them when there are none."""
    if mask is None:
        return sample_weight
    mask = raw_value(mask, dt)
    if sample_weight is None:
        return mask
    weights = raw_value(sample_weight, dt)
    mask, weights = same_rank(mask, weights)
    try:
        return weights * mask
    except ValueError:
        raise errors.invalid_argument(
            "Mul", f"{who}: sample_weight of shape {list(weights.shape)} and the Keras mask of "
            f"y_pred, shape {list(mask.shape)}, are incompatible; give weights of the mask's shape "
            "(or one per sample with a matching rank)") from None


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
        entries are first averaged (summed, for Sum), so Mean counts samples, not entries.
        A Keras mask on `values` multiplies `sample_weight` (when weights are given, as Keras 3)."""
        dt = self._dtype._np
        fn = "sum" if self.reduction == "sum" else "mean"
        if sample_weight is not None:
            sample_weight = _with_mask(sample_weight, getattr(values, "_keras_mask", None), dt, self.name)
        values, weights = _samplewise(values, sample_weight, fn, dt, self.name)
        xp = array_module(values)
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
            return Tensor(self.total._value.copy())
        return Tensor(divide_no_nan(self.total._value, self.count._value))


@export("metrics.Sum", "keras.metrics.Sum")
class Sum(Reduce):
    """The (weighted) sum of all values seen."""

    def __init__(self, name="sum", dtype=None):
        super().__init__("sum", name=name, dtype=dtype)

    def get_config(self):
        return Metric.get_config(self)


@export("metrics.Mean", "keras.metrics.Mean")
class Mean(Reduce):
    """The (weighted) mean of every value seen: `total / count`.

    Each update adds the values' weighted sum to 'total' and their weight to 'count'. A
    batch is first reduced to one value per sample (the mean of its entries), so
    `update_state([[1, 2], [3, 4]])` counts two samples of values 1.5 and 3.5, as Keras 3.

    ```python
    m = tf.keras.metrics.Mean()
    m.update_state([1.0, 3.0])
    m.update_state([5.0], sample_weight=[2.0])
    m.result()   # (1 + 3 + 2 * 5) / (1 + 1 + 2) = 3.5
    ```

    Args:
        name: the metric's name ('mean').
        dtype: the dtype of the state and result (float32 by default).
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__("weighted_mean", name=name, dtype=dtype)

    def get_config(self):
        return Metric.get_config(self)


@export("metrics.MeanMetricWrapper", "keras.metrics.MeanMetricWrapper")
class MeanMetricWrapper(Mean):
    """The mean of `fn(y_true, y_pred, **kwargs)` over every example seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        # Keras 3 calls Mean.__init__(name=None): the default name is 'mean_metric_wrapper'
        Reduce.__init__(self, "weighted_mean", name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Apply the function to the batch as given (the function aligns the shapes) and
        average its per-sample values into the state. A Keras mask on `y_pred` (Embedding
        with mask_zero=True, Masking, ...) leaves the masked entries out, as in Keras 3."""
        mask = getattr(y_pred, "_keras_mask", None)  # read first: the function drops it
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        Reduce.update_state(self, values, _with_mask(sample_weight, mask, self._dtype._np, self.name))

    def get_config(self):
        config = Metric.get_config(self)
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config):
        if cls is MeanMetricWrapper:
            raise ValueError("MeanMetricWrapper.from_config needs the function; construct it directly.")
        return cls(**config)


def wrapper_class(class_name, fn, default_name, doc, **defaults):
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

