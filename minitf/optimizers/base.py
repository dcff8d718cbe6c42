"""The Optimizer base: Keras 3 semantics on raw arrays, updated in place.

An update step runs, in Keras 3's order: drop pairs whose gradient is None (warning), clip the
gradients (clipnorm / clipvalue / global_clipnorm), apply decoupled weight decay
(`var -= var * weight_decay * lr`), run the update rule, apply variable constraints, update the
EMA averages, then `iterations += 1`. The learning rate used at step t is `schedule(iterations)`
for a schedule, else the current value.

One protocol: a built-in optimizer names its rule (`_rule`, a function of
`minitf.optimizers.rules` on raw arrays and an array module) and the constants of a step
(`_rule_constants(lr)`). The base class runs that rule on every dense gradient of the step in one
call to the kernel seam (`kernels.for_module(xp).update_variables`: the CPU kernel cuts the
arrays into cache blocks shared out over threads, the device kernel runs each whole), and on
the touched rows of an IndexedSlices gradient where the rule allows it (`_sparse_ok`). Keras 3's
`update_step(gradient, variable, learning_rate)` runs the same rule on one variable; a subclass
that overrides it (with `assign*` and `add_variable_from_reference`) is called instead, per
variable, with Tensors. A step inside a traced function is a stateful graph node that runs
`apply` itself when the graph runs (`_record_step`), so it takes the same path.

Slot variables (Adam's m and v, ...) are made lazily, per variable, on that variable's first
update. Checkpoints reach them through `_checkpoint_slots()`; the checkpoint keys a slot by its
variable's path in the object graph plus `/.OPTIMIZER_SLOT/<optimizer path>/<slot name>` (as TF
does), so keys never depend on creation order or generated names. Restoring before a slot exists
waits in `_pending_slots` (keyed by the variable's `_id`) until the slot is created.
"""
import warnings

import numpy as np

from minitf import backend, recording as _recording
from minitf.dtypes import dtypes
from minitf.keras_core.naming import to_snake_case, unique_layer_name
from minitf import distribution_context as _distribute_context
from minitf.kernels import for_module
from minitf.optimizers.arguments import check_name, learning_rate_float
from minitf.optimizers.gradient_accumulation import GradientAccumulation
from minitf.optimizers.gradients import clip, dense_rows, gradient_array, merged_rows, update_rows
from minitf.optimizers.schedules.schedules import LearningRateSchedule, deserialize, serialize
from minitf.tape import GradientTape
from minitf.tensor import Tensor
from minitf.trackable import Trackable
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["Optimizer"]


def _no_effect(*args, **kwargs):
    """What an update step does while it is traced: nothing (it updates when the graph runs)."""
    return None


@export("optimizers.Optimizer", "keras.optimizers.Optimizer")
class Optimizer(GradientAccumulation, Trackable):
    """Base class of Keras optimizers.

    A user's subclass may follow Keras 3's protocol: override `build(variables)` (calling
    `super().build(variables)`, then making slots with `add_variable_from_reference`) and
    `update_step(gradient, variable, learning_rate)`, which gets each gradient as a Tensor and
    updates the variable with `assign`/`assign_add`/`assign_sub`.

    minitf's own optimizers set `_slot_names` (or `_slot_names_for(var)`), `_rule` (a rule of
    `minitf.optimizers.rules`) and `_rule_constants(lr)` (the rule's keyword constants for this
    step, Python numbers). The variable's and slots' arrays are written only through
    `_buffer_for_update()`, asked for right before the rule runs: it copies first when an
    earlier read still holds the array, so reads taken before a step keep their values.
    """

    _slot_names = ()
    _rule = None  # staticmethod(rules.<name>) in a built-in optimizer

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        for key in kwargs:
            if key in ("decay", "lr"):
                raise ValueError(f"Argument `{key}` is no longer supported by Keras 3 optimizers; "
                                 "use `learning_rate` (and a LearningRateSchedule for decay).")
            raise ValueError(f"{type(self).__name__}: argument(s) not recognized: {kwargs}")  # Keras 3
        if name is None:  # Keras' auto_name, taken before the checks below as Keras does:
            # 'sgd', 'sgd_1', 'rm_sprop', 'adam_w', ... (one counter with layer names)
            name = unique_layer_name(to_snake_case(type(self).__name__))
        check_name(name, self)
        if sum(x is not None for x in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(f"{type(self).__name__}: Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. "
                             f"Received: clipnorm={clipnorm}, clipvalue={clipvalue}, "
                             f"global_clipnorm={global_clipnorm}")
        if gradient_accumulation_steps and not gradient_accumulation_steps >= 2:
            raise ValueError("`gradient_accumulation_steps` must be an integer >= 2. Received: "
                             f"gradient_accumulation_steps={gradient_accumulation_steps}")
        if use_ema and not 0 <= ema_momentum <= 1:
            raise ValueError(f"`ema_momentum` must be in the range [0, 1]. Received: {ema_momentum}")
        self.name = name
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.use_ema = use_ema
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self._iterations = Variable(0, dtype=dtypes.int64, trainable=False, name="iteration")
        self._learning_rate = None
        self.learning_rate = learning_rate
        self._slots = {}          # var._id -> {slot name: Variable}
        self._slot_vars = []      # (var, slot name, slot Variable) in creation order
        self._pending_slots = {}  # (var._id, slot name) -> restore callback
        self._exclude_names = ()
        self._exclude_ids = set()
        self.built = False
        self._trainable_variables = []
        self._trainable_variables_indices = {}
        # a subclass written to Keras 3's protocol overrides update_step (see apply)
        self._keras_update_step = type(self).update_step is not Optimizer.update_step
        self._counting_updates = False  # True while an accumulated update runs (see _accumulate)

    # -- learning rate and step counter ----------------------------------------------------
    @property
    def iterations(self):
        """The number of update steps taken (an int64 variable). With
        `gradient_accumulation_steps` N, Keras 3's count of applied updates: the steps taken
        floor-divided by N (an int64 tensor); the `iteration` variable counts every step."""
        steps = self.gradient_accumulation_steps
        if steps and not self._counting_updates:
            return Tensor(self._iterations._value // steps)
        return self._iterations

    @iterations.setter
    def iterations(self, value):
        self._iterations.assign(value)

    @property
    def learning_rate(self):
        """The learning rate: a float32 variable, a schedule, or a callable."""
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        if isinstance(value, (LearningRateSchedule, Variable)) or (
                callable(value) and not hasattr(value, "_value")):
            self._learning_rate = value
        elif isinstance(self._learning_rate, Variable):
            self._learning_rate.assign(learning_rate_float(value, self))
        else:
            self._learning_rate = Variable(learning_rate_float(value, self), dtype=dtypes.float32,
                                           trainable=False, name="learning_rate")

    lr = learning_rate

    def _current_learning_rate(self):
        """The learning rate for this step as a Python float."""
        lr = self._learning_rate
        raw = getattr(lr, "_value", None)
        if raw is not None:
            return float(raw)
        if isinstance(lr, LearningRateSchedule):
            return float(lr._value_at(int(self._iterations._value)))
        if hasattr(lr, "_value"):
            return float(lr._value)
        return float(np.asarray(lr()))

    # -- slots -----------------------------------------------------------------------------
    def add_variable_from_reference(self, reference_variable, name, initializer="zeros"):
        """Create a slot variable named `<var name>_<name>` shaped like `reference_variable`.

        A restoration waiting for this (variable, slot) pair is applied at once.
        """
        xp = backend.array_module(reference_variable._value)
        ref = reference_variable._value
        if isinstance(initializer, str) and initializer == "zeros":
            init = xp.zeros(ref.shape, dtype=ref.dtype)
        elif isinstance(initializer, (int, float)):
            init = xp.full(ref.shape, initializer, dtype=ref.dtype)
        else:
            init = initializer
        base = getattr(reference_variable, "path", reference_variable.name.split(":")[0]).replace("/", "_")
        slot = Variable(init, trainable=False, name=f"{base}_{name}", dtype=ref.dtype)
        self._slots.setdefault(reference_variable._id, {})[name] = slot
        self._slot_vars.append((reference_variable, name, slot))
        waiting = self._pending_slots.pop((reference_variable._id, name), None)
        if waiting is not None:
            waiting(slot)
        return slot

    def _slot_initial_value(self, name):
        """Initial value of slot `name` (subclasses override for non-zero accumulators)."""
        return "zeros"

    def _create_slots(self, var):
        for name in self._slot_names_for(var):
            self.add_variable_from_reference(var, name, self._slot_initial_value(name))
        if self.use_ema:
            self.add_variable_from_reference(var, "average")
        self._slots.setdefault(var._id, {})

    def _slot_names_for(self, var):
        return self._slot_names

    def get_slot(self, var, slot_name):
        """The slot variable `slot_name` of `var` (KeyError if it does not exist yet)."""
        return self._slots[var._id][slot_name]

    def get_slot_names(self):
        """Names of the slots this optimizer creates per variable."""
        return list(self._slot_names)

    def build(self, var_list):
        """Create the slots of every variable in `var_list` now (normally done lazily) and
        remember the variables' order for `_get_variable_index`, as Keras' build does."""
        new = [var for var in var_list if var._id not in self._slots]
        self._create_accumulators(new)
        for var in new:
            self._create_slots(var)
        for var in var_list:
            if id(var) not in self._trainable_variables_indices:
                self._trainable_variables_indices[id(var)] = len(self._trainable_variables)
                self._trainable_variables.append(var)
        self.built = True

    def _get_variable_index(self, variable):
        """The position of `variable` in the list the optimizer was built with."""
        return self._trainable_variables_indices[id(variable)]

    def assign(self, variable, value):
        """`variable.assign(value)` (Keras 3 optimizers update variables through these)."""
        variable.assign(value)

    def assign_add(self, variable, value):
        """`variable.assign_add(value)`."""
        variable.assign_add(value)

    def assign_sub(self, variable, value):
        """`variable.assign_sub(value)`."""
        variable.assign_sub(value)

    def update_step(self, gradient, variable, learning_rate):
        """Keras 3's per-variable update: `gradient` a Tensor (or IndexedSlices), `learning_rate`
        the learning rate (a float32 variable or tensor). A built-in optimizer runs its rule on
        the variable's arrays (what `apply` does for every variable at once); a subclass written
        to Keras 3's protocol overrides it, and `apply` then calls it for each variable."""
        if self._rule is None:
            raise NotImplementedError(f"{type(self).__name__} must implement "
                                      "update_step(gradient, variable, learning_rate).")
        self._prepare_slots([variable])
        grad = gradient_array(gradient, variable)
        if type(grad) is tuple:
            grad = self._sparse_or_dense(grad, variable)
        rate = float(getattr(learning_rate, "_value", learning_rate))
        self._apply_rule([grad], [variable], self._rule_constants(rate))

    def _rule_constants(self, lr):
        """The keyword constants of `_rule` for a step at learning rate `lr` (a Python float),
        computed once per step."""
        raise NotImplementedError(f"{type(self).__name__} must implement _rule_constants.")

    def _checkpoint_dependencies(self):
        deps = [("iter", self._iterations)]
        if isinstance(self._learning_rate, Variable):
            deps.append(("learning_rate", self._learning_rate))
        return deps

    def _checkpoint_slots(self):
        """(variable, slot name, slot variable) triples, for the checkpoint's slot keys."""
        return list(self._slot_vars)

    def _restore_slot(self, var, slot_name, restore):
        """Apply `restore(slot_variable)` now if the slot exists, else when it is created."""
        slot = self._slots.get(var._id, {}).get(slot_name)
        if slot is not None:
            restore(slot)
        else:
            self._pending_slots[(var._id, slot_name)] = restore

    @property
    def variables(self):
        """The optimizer's variables: iterations, the learning rate variable, then the slots."""
        out = [self._iterations]
        if isinstance(self._learning_rate, Variable):
            out.append(self._learning_rate)
        out.extend(slot for _, _, slot in self._slot_vars)
        return out

    # -- applying gradients ----------------------------------------------------------------
    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Exempt variables (or variables whose name contains one of `var_names`) from decay."""
        self._exclude_ids.update(v._id for v in (var_list or ()))
        self._exclude_names = tuple(var_names or ())

    def minimize(self, loss, var_list, tape=None):
        """Compute gradients of `loss` for `var_list` and apply them; returns `iterations`.

        `loss` is a zero-argument callable (a tape is made here) or a tensor computed under the
        given `tape`. `var_list` may be a callable returning the variables.
        """
        if not callable(loss) and tape is None:
            raise ValueError("`tape` is required when a `Tensor` loss is passed. "
                             f"Received: loss={loss}, tape={tape}.")
        if callable(loss):
            with GradientTape() as tape:
                if callable(var_list):
                    tape.watch(var_list())
                loss = loss()
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def scale_loss(self, loss):
        """`loss` times `loss_scale_factor` when one is set (Keras 3 scales before differentiating,
        `apply` divides the gradients again); `loss` itself otherwise."""
        if self.loss_scale_factor is not None:
            return loss * self.loss_scale_factor
        return loss

    def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False, **kw):
        """Apply (gradient, variable) pairs; returns the `iterations` variable.

        Under a tf.distribute strategy with several replicas the gradients are first summed
        across the replicas (one all-reduce for all of them, before clipping), unless
        `skip_gradients_aggregation=True` (or `experimental_aggregate_gradients=False`) says
        the caller already did."""
        pairs = list(grads_and_vars)
        graph = _recording.active_graph()
        if graph is not None:  # inside a traced function: the step is a node of its graph
            return self._record_step(graph, Optimizer.apply_gradients, (self, pairs, name,
                                     skip_gradients_aggregation), kw, [v for g, v in pairs if g is not None])
        aggregate = not skip_gradients_aggregation and kw.get("experimental_aggregate_gradients", True)
        self.apply([g for g, _ in pairs], [v for _, v in pairs], _aggregate=aggregate)
        return self._iterations

    def _record_step(self, graph, method, args, kwargs, variables):
        """Record an update step in the graph being traced: a stateful node that applies it each
        time the graph runs. The slots the first step makes are created now, while tracing, as
        TF creates a function's variables on its first trace."""
        self._prepare_slots(variables)
        graph.call(method, args, kwargs, stateful=True, abstract=_no_effect, read_variables=False,
                   op_type="ApplyGradients", name=self.name)
        return self._iterations

    def _prepare_slots(self, variables):
        """Create the optimizer variables an update of `variables` needs, without updating."""
        if self._keras_update_step:
            if not self.built:
                self.build(variables)
            return
        self._create_missing_slots(variables)

    def apply(self, grads, trainable_variables=None, *, _aggregate=True):
        """Apply `grads` to `trainable_variables` (one update step); under a strategy with
        several replicas, or for variables created in the scope of one, the gradients are
        summed across the replicas first."""
        grads = list(grads)
        variables = list(trainable_variables)
        graph = _recording.active_graph()
        if graph is not None:
            return self._record_step(graph, Optimizer.apply, (self, grads, variables),
                                     {"_aggregate": _aggregate},
                                     [v for g, v in zip(grads, variables) if g is not None])
        if len(grads) != len(variables):
            raise ValueError(f"Optimizer.apply: got {len(grads)} gradients for "
                             f"{len(variables)} variables; they must pair up.")
        if self._keras_update_step:
            self._check_built_with(variables)
        if any(g is None for g in grads):
            grads, variables = self._filter_empty(grads, variables)
        if self.loss_scale_factor is not None:  # undo scale_loss, as Keras 3's apply does
            grads = [g * (1.0 / self.loss_scale_factor) for g in grads]
        raws = [gradient_array(g, v) for g, v in zip(grads, variables)]
        if _aggregate:
            raws = self._summed_over_replicas(raws, variables)
            if raws is None:
                return  # another replica of this process writes the shared variables' update
        self._create_missing_slots(variables)
        lr = self._current_learning_rate()  # schedules read every step, as Keras' _iterations
        if self.gradient_accumulation_steps:
            raws = self._accumulate([dense_rows(g[0], g[1], v._value) if type(g) is tuple else g
                                     for g, v in zip(raws, variables)], variables)
            if raws is None:  # not an update step: the gradients only went into the accumulators
                self._finish_step(variables)
                return
        raws = clip(raws, self.clipnorm, self.clipvalue, self.global_clipnorm)
        raws = [self._sparse_or_dense(g, v) if type(g) is tuple else g
                for g, v in zip(raws, variables)]
        with self._counting_update_steps():
            self._update(raws, variables, lr)
        self._reset_accumulators(variables)
        self._finish_step(variables, constrain=False)

    def _check_built_with(self, variables):
        """A Keras-protocol subclass is built on its first step (its slots made in `build`, as in
        Keras) and refuses variables it was not built with, with Keras' ValueError."""
        if not self.built:
            self.build(variables)
        unknown = [v.name for v in variables if id(v) not in self._trainable_variables_indices]
        if unknown:
            raise ValueError(f"Unknown variable: {unknown}. This optimizer can only be called "
                             "for the variables it was originally built with. When working "
                             "with a new set of variables, you should recreate a new "
                             "optimizer instance.")

    def _summed_over_replicas(self, raws, variables):
        """The gradients summed over the replicas (one collective for the step, through the
        strategy's `all_reduce_arrays`) under a strategy with several replicas, or for variables
        created in the scope of one; `raws` as they are otherwise. None on a replica of this
        process that does not write the shared variables (the first one does, for all)."""
        strategy = _distribute_context.aggregating_strategy(variables)
        if strategy is None:
            return raws
        summed = strategy.extended.all_reduce_arrays(
            [dense_rows(g[0], g[1], v._value) if type(g) is tuple else g for g, v in zip(raws, variables)],
            "sum")
        return summed if _distribute_context.applies_updates() else None

    def _create_missing_slots(self, variables):
        """Make the slots (and gradient accumulators) of the variables that have none yet."""
        new = [var for var in variables if var._id not in self._slots]
        if new:
            self._create_accumulators(new)
            for var in new:
                self._create_slots(var)

    def _update(self, raws, variables, lr):
        """Weight decay, then each variable's update and constraint (one update step)."""
        if self.weight_decay:
            self._apply_weight_decay(variables, lr)
        if self._keras_update_step or self._rule is None:  # the latter raises Keras' error
            self._keras_updates(raws, variables, lr)
            return
        self._apply_rule(raws, variables, self._rule_constants(lr))
        for var in variables:
            if var.constraint is not None:
                var.assign(var.constraint(var))
        self.built = True

    def _apply_rule(self, raws, variables, constants):
        """Run `_rule` on each (raw gradient, variable): the dense gradients in one call to the
        kernel seam per array module, an (unique rows, summed values) gradient on its rows.
        Nothing here keeps an array after it returns (the next step's writes stay in place)."""
        rule, all_slots, slot_names, dense = self._rule, self._slots, self._slot_names_for, []
        if len({var._id for var in variables}) < len(variables):  # a variable twice: in order
            for grad, var in zip(raws, variables):
                self._apply_rule([grad], [var], constants)
            return
        for grad, var in zip(raws, variables):
            var_slots = all_slots[var._id]
            slots = {name: var_slots[name]._buffer_for_update() for name in slot_names(var)}
            if type(grad) is tuple:
                update_rows(rule, grad, var._buffer_for_update(), slots, constants)
            else:
                dense.append((grad, var._buffer_for_update(), slots))
        if not dense:
            return
        if len({type(entry[1]) for entry in dense}) == 1:
            for_module(backend.array_module(dense[0][1])).update_variables(rule, dense, constants)
            return
        groups = {}  # variables on several devices: one call per array module
        for entry in dense:
            groups.setdefault(for_module(backend.array_module(entry[1])), []).append(entry)
        for kernels, entries in groups.items():
            kernels.update_variables(rule, entries, constants)

    def _finish_step(self, variables, constrain=True):
        """The end of every step: constraints (when the update did not apply them), the EMA
        averages, then `iterations += 1` (on the step count, as Keras 3)."""
        if constrain:
            for var in variables:
                if var.constraint is not None:
                    var.assign(var.constraint(var))
        if self.use_ema:
            with self._counting_update_steps():
                self._update_ema(variables)
        # iterations += 1 without assign_add's conversion and checks (same dtype and result)
        self._iterations._set(self._iterations._value + 1)

    def _keras_updates(self, raws, variables, lr):
        """Run a Keras-protocol subclass's `update_step` on each (gradient Tensor, variable)."""
        rate = self._learning_rate
        if not isinstance(rate, Variable):
            rate = Tensor(np.asarray(lr, dtype=np.float32))
        for grad, var in zip(raws, variables):
            self.update_step(Tensor(grad), var, rate)
            if var.constraint is not None:
                var.assign(var.constraint(var))

    def _filter_empty(self, grads, variables):
        kept = [(g, v) for g, v in zip(grads, variables) if g is not None]
        missing = [v.name for g, v in zip(grads, variables) if g is None]
        if not kept:
            raise ValueError(f"No gradients provided for any variable: {missing}. "
                             "Check that the loss depends on the variables.")
        if missing:
            warnings.warn(f"Gradients do not exist for variables {missing} when minimizing the "
                          "loss; they are not updated.", stacklevel=3)
        return [g for g, _ in kept], [v for _, v in kept]

    def _sparse_or_dense(self, grad, var):
        """An (indices, values) gradient made ready for the rule: (unique rows, summed values)
        when `_sparse_ok()`, else densified."""
        indices, values = grad
        if self._sparse_ok():
            return merged_rows(indices, values)
        return dense_rows(indices, values, var._value)

    def _sparse_ok(self):
        """Whether an IndexedSlices gradient updates only its rows (the rule run on the gathered
        rows). Only right where a zero gradient leaves a row and its slots exactly unchanged;
        moment-based optimizers decay every row, so they get the dense gradient."""
        return False

    def _apply_weight_decay(self, variables, lr):
        for var in variables:
            if var._id in self._exclude_ids or any(n in var.name for n in self._exclude_names):
                continue
            value = var._buffer_for_update()
            value -= value * (self.weight_decay * lr)

    def _update_ema(self, variables):
        first = int(self._iterations._value) == 0
        momentum = 0.0 if first else self.ema_momentum
        for var in variables:
            avg = self._slots[var._id]["average"]._buffer_for_update()
            avg *= momentum
            avg += (1 - momentum) * var._value
        freq = self.ema_overwrite_frequency
        if freq and (int(self._iterations._value) + 1) % freq == 0:
            self.finalize_variable_values(variables)

    def finalize_variable_values(self, var_list):
        """With `use_ema`, overwrite each variable with its moving average."""
        if not self.use_ema:
            return
        for var in var_list:
            slots = self._slots.get(var._id)
            if slots and "average" in slots:
                var._buffer_for_update()[...] = slots["average"]._value

    # -- config ----------------------------------------------------------------------------
    def get_config(self):
        """The constructor arguments, as a dict (schedules serialized)."""
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            lr = serialize(lr)
        elif hasattr(lr, "_value"):
            lr = float(lr._value)
        return {"name": self.name, "learning_rate": lr, "weight_decay": self.weight_decay,
                "clipnorm": self.clipnorm, "global_clipnorm": self.global_clipnorm,
                "clipvalue": self.clipvalue, "use_ema": self.use_ema,
                "ema_momentum": self.ema_momentum,
                "ema_overwrite_frequency": self.ema_overwrite_frequency,
                "loss_scale_factor": self.loss_scale_factor,
                "gradient_accumulation_steps": self.gradient_accumulation_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """Rebuild an optimizer from `get_config()` output."""
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = deserialize(config["learning_rate"], custom_objects)
        return cls(**config)
