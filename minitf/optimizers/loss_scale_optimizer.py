"""LossScaleOptimizer: Keras 3's dynamic loss scaling around another optimizer.

float16 gradients underflow to zero when they are small. Multiplying the loss by a large scale
before differentiation scales every gradient by the same factor; the optimizer divides them
again before updating. The scale adapts: a step whose gradients are not all finite is skipped
and halves the scale; `dynamic_growth_steps` finite steps in a row double it.
"""
import numpy as np

from minitf import backend, recording as _recording
from minitf.dtypes import dtypes
from minitf.convert import convert_to_tensor
from minitf import distribution_context as distribute_context
from minitf.indexed_slices import IndexedSlices
from minitf.ops.constant import cast
from minitf.optimizers import base
from minitf.tensor import Tensor
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["LossScaleOptimizer"]

# Base-optimizer arguments Keras 3 still accepts from old configs, at their defaults only.
_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None,
                  "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
                  "loss_scale_factor": None, "gradient_accumulation_steps": None}


@export("optimizers.LossScaleOptimizer", "keras.mixed_precision.LossScaleOptimizer",
        "keras.optimizers.LossScaleOptimizer")
class LossScaleOptimizer(base.Optimizer):
    """An optimizer that scales the loss dynamically so that float16 gradients do not underflow.

    Wrap the optimizer you would use anyway; `model.compile` does it for you under the
    'mixed_float16' policy. In a custom training loop, scale the loss with `scale_loss` and pass
    the (scaled) gradients to `apply_gradients`, which unscales them:

    ```python
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1))
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x))
        scaled_loss = opt.scale_loss(loss)
    opt.apply_gradients(zip(tape.gradient(scaled_loss, model.trainable_variables),
                            model.trainable_variables))
    ```

    When a step's gradients hold an inf or NaN, the variables are left alone (the inner
    optimizer does not step) and the scale is halved; after `dynamic_growth_steps` finite steps
    in a row the scale doubles. Under a tf.distribute strategy the replicas agree: when any
    replica's gradients overflow, every replica skips the step (as Keras 2's optimizer did;
    Keras 3 on TF checks each replica's own gradients, so a replica with finite ones applies
    the summed, infinite gradient).

    Keras 3 dropped Keras 2's `get_scaled_loss` and `get_unscaled_gradients`; minitf keeps them
    for the TF mixed-precision guide's loop: gradients that `get_unscaled_gradients` returned
    are not divided a second time by `apply_gradients`.

    Args:
        inner_optimizer: the optimizer to wrap.
        initial_scale: the first loss scale (2**15).
        dynamic_growth_steps: finite steps between doublings of the scale (2000).
        name: the optimizer's name ('loss_scale_optimizer').

    Raises:
        ValueError: for `dynamic=False`, or base-optimizer arguments (clipnorm, ...) other than
            their defaults: set those on the inner optimizer.
    """

    # The optimizer registry (set by minitf.optimizers, which imports this module) that
    # (de)serializes the inner optimizer in configs.
    _registry = None

    def __init__(self, inner_optimizer, initial_scale=2.0 ** 15, dynamic_growth_steps=2000, name=None,
                 **kwargs):
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set "
                             "`loss_scale_factor` directly on the `inner_optimizer`.")
        for arg, default in _BASE_DEFAULTS.items():
            if arg in kwargs and kwargs.pop(arg) != default:
                raise ValueError(f"LossScaleOptimizer does not support `{arg}`. Instead, set `{arg}` on "
                                 "the `inner_optimizer`.")
        if kwargs:
            raise ValueError(f"LossScaleOptimizer does not support arguments: `{'`, `'.join(kwargs)}`.")
        if not isinstance(inner_optimizer, base.Optimizer):
            raise TypeError("LossScaleOptimizer: `inner_optimizer` must be a tf.keras.optimizers.Optimizer "
                            f"instance. Received: {inner_optimizer!r}")
        super().__init__(learning_rate=0.0, name=name)
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = dynamic_growth_steps
        # the inner optimizer must not scale too, or gradients would be unscaled twice
        self.inner_optimizer.loss_scale_factor = None
        self.step_counter = None
        self.dynamic_scale = None
        self._unscaled = []  # gradients get_unscaled_gradients returned, not to divide again

    # -- state -----------------------------------------------------------------------------
    def build(self, var_list):
        """Create `step_counter` (int64) and `dynamic_scale` (float32), then build the inner one."""
        if self.step_counter is None:
            self.step_counter = Variable(0, dtype=dtypes.int64, trainable=False, name="step_counter")
            self.dynamic_scale = Variable(float(self.initial_scale), dtype=dtypes.float32, trainable=False,
                                          name="dynamic_scale")
        self.inner_optimizer.build(var_list)
        super().build(var_list)

    @property
    def variables(self):
        """Keras' order: own iteration and learning rate, step_counter, dynamic_scale, then the
        inner optimizer's variables."""
        own = base.Optimizer.variables.fget(self)
        if self.step_counter is not None:
            own += [self.step_counter, self.dynamic_scale]
        return own + self.inner_optimizer.variables

    def _checkpoint_dependencies(self):
        deps = [("inner_optimizer", self.inner_optimizer)]
        if self.step_counter is not None:
            deps += [("step_counter", self.step_counter), ("dynamic_scale", self.dynamic_scale)]
        return deps

    @property
    def learning_rate(self):
        """The inner optimizer's learning rate (setting it sets the inner one's)."""
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        if "inner_optimizer" not in vars(self):  # the base constructor sets its own placeholder
            base.Optimizer.learning_rate.fset(self, value)
        else:
            self.inner_optimizer.learning_rate = value

    lr = learning_rate

    @property
    def iterations(self):
        """The inner optimizer's step count (skipped steps do not count)."""
        return self.inner_optimizer.iterations

    @iterations.setter
    def iterations(self, value):
        self.inner_optimizer.iterations = value

    def _current_scale(self):
        return float(self.dynamic_scale._value) if self.dynamic_scale is not None else float(self.initial_scale)

    def _scale_for_ops(self):
        """The scale as ops take it: inside a traced function the variable itself, so the graph
        reads the scale of each step (a float would freeze the scale of the trace)."""
        if self.dynamic_scale is not None and _recording.active_graph() is not None:
            return self.dynamic_scale
        return self._current_scale()

    # -- scaling ---------------------------------------------------------------------------
    def scale_loss(self, loss):
        """`loss` times the current loss scale (the initial scale before the first step).

        A float16 loss is promoted to float32 first, as Keras' type promotion does, so the
        scaled loss cannot overflow float16.
        """
        loss = convert_to_tensor(loss)
        if loss.dtype.is_floating and loss.dtype.size < 4:
            loss = cast(loss, dtypes.float32)
        return loss * cast(self._scale_for_ops(), loss.dtype)

    def get_scaled_loss(self, loss):
        """Keras 2's name for `scale_loss` (kept for the TF mixed-precision guide's loop)."""
        return self.scale_loss(loss)

    def get_unscaled_gradients(self, grads):
        """Keras 2's unscaling: each gradient divided by the loss scale (None stays None).

        `apply_gradients` recognises the returned gradients and does not divide them again.
        """
        scale = self._scale_for_ops()
        out = [None if g is None else self._divide(g, scale) for g in grads]
        self._unscaled.extend(g for g in out if g is not None)
        return out

    @staticmethod
    def _divide(grad, scale):
        if isinstance(grad, IndexedSlices):
            return IndexedSlices(grad.values / cast(scale, grad.values.dtype), grad.indices, grad.dense_shape)
        grad = convert_to_tensor(grad)
        return grad / cast(scale, grad.dtype)

    def check_finite(self, grads):
        """Whether every gradient (None ones ignored) is free of infs and NaNs; under a
        tf.distribute strategy of several replicas, on every replica (so all of them take or
        skip the step together)."""
        finite = True
        for g in grads:
            if g is None:
                continue
            value = g.values if isinstance(g, IndexedSlices) else g
            arr = value._value if isinstance(value, (Tensor, Variable)) else np.asarray(value)
            if not bool(backend.array_module(arr).isfinite(arr).all()):
                finite = False
                break
        strategy = distribute_context.aggregating_strategy()
        if strategy is not None:
            flag = np.asarray([1 if finite else 0], dtype=np.int32)
            finite = bool(strategy.extended.all_reduce_arrays([flag], "min")[0][0])
        return finite

    # -- applying ----------------------------------------------------------------------------
    def apply(self, grads, trainable_variables=None):
        """One step: unscale `grads` and let the inner optimizer apply them, or, when any is not
        finite, skip the step and halve the scale; then update the growth counter."""
        grads = list(grads)
        variables = list(trainable_variables) if trainable_variables is not None else self._trainable_variables
        graph = _recording.active_graph()
        if graph is not None:  # inside a traced function: the step is a node of its graph
            return self._record_step(graph, LossScaleOptimizer.apply, (self, grads, variables), {},
                                     variables)
        if not self.built:
            self.build(variables)
        done, self._unscaled = self._unscaled, []
        if not self.check_finite(grads):
            if not distribute_context.applies_updates():
                return  # another replica of this process updates the shared scale
            self.step_counter.assign(0)
            self.dynamic_scale.assign(self.dynamic_scale._value * np.float32(0.5))
            return
        scale = self._current_scale()
        unscaled = [g if g is None or any(g is d for d in done) else self._divide(g, scale) for g in grads]
        self.inner_optimizer.apply(unscaled, variables)
        if not distribute_context.applies_updates():
            return
        if int(self.step_counter._value) == self.dynamic_growth_steps - 1:
            self.step_counter.assign(0)
            self.dynamic_scale.assign(self.dynamic_scale._value * np.float32(2.0))
        else:
            self.step_counter.assign(int(self.step_counter._value) + 1)

    def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False, **kw):
        """Apply (scaled gradient, variable) pairs as `apply` does; returns `iterations`."""
        pairs = list(grads_and_vars)
        self.apply([g for g, _ in pairs], [v for _, v in pairs])
        return self.iterations

    def _prepare_slots(self, variables):
        if not self.built:
            self.build(variables)
        self.inner_optimizer._prepare_slots(variables)

    def finalize_variable_values(self, var_list):
        """The inner optimizer's finalization (its EMA swap)."""
        self.inner_optimizer.finalize_variable_values(var_list)

    # -- config ----------------------------------------------------------------------------
    def get_config(self):
        """Keras 3's config: name, the serialized inner optimizer, initial_scale, dynamic_growth_steps."""
        return {"name": self.name, "inner_optimizer": self._registry.serialize(self.inner_optimizer),
                "initial_scale": self.initial_scale, "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A LossScaleOptimizer from `get_config()` output (the inner optimizer deserialized)."""
        config = dict(config)
        inner = config.pop("inner_optimizer")
        if isinstance(inner, dict):
            inner = cls._registry.deserialize(inner, custom_objects)
        return cls(inner, **config)
