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
import warnings

from minitf import callbacks as callbacks_module
from minitf import optimizers
from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.distribute.strategy import get_strategy
from minitf.engine.compile_utils import (LossesContainer, MetricsContainer, add_losses,
                                         batch_size_of, is_metric)
from minitf.engine import distributed
from minitf.engine.evaluation import EvaluationMixin
from minitf.engine.data_adapter import (DataHandler, is_dataset, is_iterator, is_py_dataset,
                                        pack_x_y_sample_weight, split_validation,
                                        unpack_x_y_sample_weight)
from minitf.engine.logs import resolve_verbose, should_validate
from minitf.engine.loop_args import check_loop_args
from minitf.function import function
from minitf.keras_core.call_context import spec_of, spec_of_function
from minitf.losses.reduction import scale_loss_for_distribution, unscale_loss_for_distribution
from minitf.metrics import Mean
from minitf.ops import reduce as reduce_ops
from minitf.ops.constant import cast
from minitf.tape import GradientTape

__all__ = ["TrainingMixin", "unpack_x_y_sample_weight", "pack_x_y_sample_weight",
           "LossesContainer", "MetricsContainer", "DataHandler"]


def _set(obj, name, value):
    """Set an attribute without the Layer's tracking (training state is not a weight)."""
    object.__setattr__(obj, name, value)


# -- the mixin --------------------------------------------------------------------------------

class TrainingMixin(EvaluationMixin):
    """The training API of `tf.keras.Model`: compile, fit, evaluate, predict and their steps.

    Subclasses customize training by overriding `train_step(data)`, `test_step(data)`,
    `predict_step(data)` or `compute_loss(...)`; the loops in `fit`/`evaluate`/`predict`
    call them once per batch.
    """

    # -- configuration ---------------------------------------------------------------------
    # What fit/evaluate/predict call on each batch (see make_train_function); None until made.
    train_function = None
    test_function = None
    predict_function = None

    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                weighted_metrics=None, run_eagerly=False, steps_per_execution=1,
                jit_compile="auto", auto_scale_loss=True, **kwargs):
        """Configure the model for training: the optimizer, the loss and the metrics.

        Nothing is computed yet; `fit`, `evaluate`, `train_on_batch` and `test_on_batch`
        need it first. The losses and metrics are resolved on the first batch, when the
        outputs are known: 'accuracy' then becomes the sparse, binary or categorical accuracy
        that fits the loss (or, failing that, the shapes of labels and predictions).

        Example:

        ```python
        model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
                      loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        ```

        Args:
            optimizer: an optimizer instance or its name ('adam', 'sgd', ...).
            loss: a loss name ('mse'), a `tf.keras.losses.Loss`, or a function
                `fn(y_true, y_pred)`. For a model with several outputs: a list in output
                order or a dict by output name (outputs without a loss are not trained on).
                None leaves only the losses the layers add (`model.losses`).
            metrics: what to report besides the loss: names, Metric objects or functions;
                for several outputs, a list of lists or a dict by output name.
            loss_weights: the factor of each output's loss in the total (list or dict).
            weighted_metrics: metrics that also take the batch's `sample_weight`.
            run_eagerly: Keras 3's switch between running the steps eagerly (True) and as
                compiled functions (False, the default); kept as `model.run_eagerly`.
            steps_per_execution: accepted for compatibility; minitf runs one step at a time.
            jit_compile: True, False or 'auto' (the default), kept as `model.jit_compile`.
                As in Keras 3, 'auto' resolves to False where there is no XLA (minitf has none),
                and `jit_compile=True` with `run_eagerly=True` becomes False with a warning.
            auto_scale_loss: under the 'mixed_float16' policy, wrap the optimizer in a
                `LossScaleOptimizer` (Keras 3's default, True).

        Raises:
            TypeError: for any other keyword argument.
            ValueError: when an optimizer name is unknown, or a loss/metric dict names an
                output the model does not have (reported on the first batch).
        """
        if kwargs:
            raise TypeError(f"compile() got unexpected keyword arguments {sorted(kwargs)}.")
        if isinstance(steps_per_execution, int) and steps_per_execution < 1:  # Keras 3: range(0, n, 0)
            raise ValueError(f"Model.compile: `steps_per_execution` must be a positive integer, got "
                             f"{steps_per_execution}")
        if jit_compile == "auto":
            jit_compile = False  # Keras 3 resolves 'auto' to False without XLA, and when eager
        if jit_compile and run_eagerly:
            jit_compile = False
            warnings.warn("If `run_eagerly` is True, then `jit_compile` cannot also be True. "
                          "Disabling `jit_compile`.", stacklevel=2)
        _set(self, "optimizer", optimizers.get(optimizer) if optimizer is not None else None)
        # what `model.save` writes as the compile config, the optimizer as the object in use
        _set(self, "_compile_config", {
            "optimizer": self.optimizer, "loss": loss, "loss_weights": loss_weights, "metrics": metrics,
            "weighted_metrics": weighted_metrics, "run_eagerly": run_eagerly,
            "steps_per_execution": steps_per_execution, "jit_compile": jit_compile})
        _set(self, "loss", loss)
        compile_loss = LossesContainer(loss, loss_weights, model=self)
        _set(self, "_compile_loss", compile_loss if loss is not None else None)
        _set(self, "_compile_metrics",
             MetricsContainer(metrics, weighted_metrics, model=self, losses=compile_loss)
             if metrics is not None or weighted_metrics is not None else None)
        _set(self, "_loss_tracker", Mean(name="loss"))
        _set(self, "_distribute_strategy", distributed.default_strategy_of_compile())
        if (auto_scale_loss and self.optimizer is not None and self.dtype_policy.name == "mixed_float16"
                and not isinstance(self.optimizer, optimizers.LossScaleOptimizer)):
            # as Keras 3: float16 gradients need dynamic loss scaling (the compile config keeps
            # the optimizer given, so a loaded model is wrapped again when it compiles)
            _set(self, "optimizer", optimizers.LossScaleOptimizer(self.optimizer, name="loss_scale_optimizer"))
        _set(self, "_run_eagerly", run_eagerly)
        _set(self, "_steps_per_execution", int(steps_per_execution or 1))
        _set(self, "_jit_compile", jit_compile)
        _set(self, "_is_compiled", True)
        _set(self, "stop_training", False)
        for name in ("train_function", "test_function", "predict_function"):
            _set(self, name, None)  # as Keras 3: the next fit/evaluate/predict makes them again

    @property
    def run_eagerly(self):
        """Whether the steps run eagerly (Keras 3's setting; False until set or compiled)."""
        return getattr(self, "_run_eagerly", False)

    @run_eagerly.setter
    def run_eagerly(self, value):
        _set(self, "_run_eagerly", value)

    @property
    def jit_compile(self):
        """Whether the steps would be XLA-compiled (Keras 3's setting; 'auto' resolves to False)."""
        value = getattr(self, "_jit_compile", None)
        return False if value is None or value == "auto" else value

    @jit_compile.setter
    def jit_compile(self, value):
        _set(self, "_jit_compile", value)

    # -- the per-batch functions -----------------------------------------------------------
    def make_train_function(self, force=False):
        """The function `fit` calls on each batch: `train_function(data)` runs `train_step(data)`
        (once per replica under a tf.distribute strategy of several) and returns its logs.

        Made once and kept as `model.train_function` (compile forgets it); `force=True` makes it
        again, as in Keras 3.
        """
        if self.train_function is not None and not force:
            return self.train_function
        model = self

        def one_step_on_data(data):
            """One training step on one batch."""
            return distributed.run_step(distributed.replica_strategy(model), model.train_step, data)
        step = self._compiled(one_step_on_data)
        _set(self, "train_function", step)
        return step

    def _compiled(self, step):
        """`step` as Keras 3 runs it: a tf.function that relaxes the batch dimension after a
        retrace (the last batch of an epoch is smaller), unless `run_eagerly`. Under a strategy
        with several replicas in this process the replicas' threads run it eagerly."""
        if self.run_eagerly or distributed.replica_strategy(self) is not None:
            return step
        return function(step, reduce_retracing=True, jit_compile=bool(self.jit_compile))

    def make_test_function(self, force=False):
        """The function `evaluate` calls on each batch: `test_function(data)` runs
        `test_step(data)` (once per replica under a strategy of several); kept as
        `model.test_function`, made again with `force=True`."""
        if self.test_function is not None and not force:
            return self.test_function
        model = self

        def one_step_on_data(data):
            """One evaluation step on one batch."""
            return distributed.run_step(distributed.replica_strategy(model), model.test_step, data)
        step = self._compiled(one_step_on_data)
        _set(self, "test_function", step)
        return step

    def make_predict_function(self, force=False):
        """The function `predict` calls on each batch: `predict_function(data)` returns
        `predict_step(data)`; kept as `model.predict_function`, made again with `force=True`."""
        if self.predict_function is not None and not force:
            return self.predict_function
        model = self

        def one_step_on_data(data):
            """One inference step on one batch."""
            return model.predict_step(data)
        step = self._compiled(one_step_on_data)
        _set(self, "predict_function", step)
        return step

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
        metric objects assigned as attributes of the model, then those of its layers."""
        found = []
        if getattr(self, "_is_compiled", False):
            found.append(self._loss_tracker)
            if self._compile_metrics is not None:
                found.append(self._compile_metrics)
            if self._compile_loss is not None:
                found += self._compile_loss.metrics
        for value in vars(self).values():
            if is_metric(value) and not any(value is m for m in found):
                found.append(value)
        # then metrics held by sublayers, as Keras 3; nested models keep their own
        for layer in getattr(self, "submodules", ()):
            if isinstance(layer, TrainingMixin):
                continue
            for metric in getattr(layer, "metrics", ()):
                if not any(metric is m for m in found):
                    found.append(metric)
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
        for metric in self.metrics:
            if isinstance(metric, Mean):
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
        """The tf.distribute strategy the model trains under: the one whose scope was open at
        `compile`, else the one in force now (the default strategy outside every scope)."""
        return getattr(self, "_distribute_strategy", None) or get_strategy()

    # -- the overridable steps -------------------------------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The total loss of a batch: the compiled losses plus the model's `losses`
        (ValueError when there is none)."""
        losses = []
        if getattr(self, "_compile_loss", None) is not None:
            loss = self._compile_loss(y, y_pred, sample_weight)
            if loss is not None:
                losses.append(loss)
        for loss in self.losses:
            loss = convert_to_tensor(loss)
            if not loss.dtype.is_floating:
                loss = cast(loss, "float32")
            losses.append(scale_loss_for_distribution(reduce_ops.reduce_sum(loss)))
        if not losses:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        if len(losses) == 1:
            return losses[0]
        return add_losses(losses)

    def _compute_loss(self, x, y, y_pred, sample_weight, training):
        """`compute_loss` called as Keras 3 calls it: by keyword, `training` only for an override
        whose signature names it."""
        if spec_of_function(self.compute_loss).has("training"):
            return self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,
                                     training=training)
        return self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)

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
        examples = batch_size_of(next((t for t in nest.flatten(x) if t is not None), None))
        if type(examples) is int and examples == 0:  # a replica's empty part of a short global
            # batch: its loss is an empty tensor
            return
        self._loss_tracker.update_state(unscale_loss_for_distribution(loss), sample_weight=examples)

    def _forward(self, x, training):
        """The model on `x`, as Keras 3's steps call it: `training` is passed only when the
        model's `call` takes it (a model whose `call` does not is called without it, so the
        layers inside see no training value)."""
        if spec_of(self).takes_training:
            return self(x, training=training)
        return self(x)

    def train_step(self, data):
        """One optimization step on `data` = `(x, y, sample_weight)`; returns metric results."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self._forward(x, training=True)
            loss = self._compute_loss(x, y, y_pred, sample_weight, training=True)
            scaled_loss = self.optimizer.scale_loss(loss)
        self._track_loss(loss, x)
        variables = self.trainable_variables
        if variables:
            grads = tape.gradient(scaled_loss, variables)
            self.optimizer.apply_gradients(zip(grads, variables))
        else:
            warnings.warn("The model does not have any trainable weights.", stacklevel=2)
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data):
        """One evaluation step: forward pass, loss and metrics; returns metric results."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self._forward(x, training=False)
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
        return self._forward(x, training=False)

    # -- fit -------------------------------------------------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1, max_queue_size=10, workers=1,
            use_multiprocessing=False):
        """Train the model on data for a number of epochs.

        Each epoch runs `train_step` on every batch (the forward pass under a GradientTape,
        the loss, one optimizer update, the metrics), then evaluates on the validation data
        if any. Metrics are reset at the start of each epoch, so the logged values are
        averages over the epoch.

        Example:

        ```python
        history = model.fit(x_train, y_train, batch_size=32, epochs=5,
                            validation_split=0.1)
        history.history["val_loss"]      # one value per epoch
        ```

        Args:
            x: the inputs: a numpy array or tensor (or a list/dict of them for several
                inputs), a `tf.data.Dataset` yielding `x`, `(x, y)` or
                `(x, y, sample_weight)` batches, a Python generator/iterator yielding such
                tuples, or a `tf.keras.utils.PyDataset`. `train_step(data)` receives each
                batch as Keras 3 hands it over (`x` itself when there are no targets; see
                minitf.engine.data_adapter).
            y: the targets, like `x` for arrays; must be None for datasets, generators and
                PyDatasets (they yield the targets themselves).
            batch_size: examples per batch for array inputs (default 32).
            epochs: the epoch to stop at (training runs from `initial_epoch` to `epochs`).
            verbose: 0 silent, 1 a progress bar, 2 one line per epoch; 'auto' means 1.
            callbacks: `tf.keras.callbacks.Callback` objects called around epochs and
                batches; a History callback is always added and returned.
            validation_split: the fraction (0 to 1) of array data held out for validation:
                the last examples, taken before shuffling.
            validation_data: `(x_val, y_val)`, `(x_val, y_val, sample_weight)` or a dataset,
                evaluated at the end of epochs; its results are logged with a 'val_' prefix.
            shuffle: reshuffle array data before each epoch.
            class_weight: `{class index: weight}` multiplying each example's loss by the
                weight of its class (single-output models).
            sample_weight: per-example weights of the loss, an array of length `len(x)`.
            initial_epoch: the epoch to start from (to resume a previous run).
            steps_per_epoch: batches per epoch; default the whole array data or dataset.
                A generator is read on across epochs.
            validation_steps: batches of `validation_data` per evaluation.
            validation_batch_size: batch size for the validation arrays (default
                `batch_size`).
            validation_freq: validate every this many epochs, or at the epochs (1-based)
                listed in a collection.
            max_queue_size, workers, use_multiprocessing: accepted for compatibility (Keras 3
                reads them from a PyDataset's constructor instead).

        Returns:
            The `History` callback; its `history` dict maps each logged name ('loss',
            'accuracy', 'val_loss', ...) to a list with one value per epoch.

        Raises:
            ValueError: when the model is not compiled, the arrays have different numbers
                of examples, `y` is given with a dataset or generator, `validation_split`
                is used with a dataset, or the split leaves no training or validation data.
        """
        self._assert_compiled()
        check_loop_args("fit", x, y, batch_size, steps_per_epoch, callbacks, epochs, validation_split,
                        validation_data, class_weight)
        if self.optimizer is None:  # Keras 3 fails calling its apply_gradients: an AttributeError
            raise AttributeError("Model.fit: the model was compiled with optimizer=None; compile it with "
                                 "an optimizer to train")
        strategy = distributed.replica_strategy(self)
        with distributed.strategy_scope(strategy):
            return self._fit(strategy, x, y, batch_size, epochs, verbose, callbacks, validation_split,
                             validation_data, shuffle, class_weight, sample_weight, initial_epoch,
                             steps_per_epoch, validation_steps, validation_batch_size, validation_freq)

    def _fit(self, strategy, x, y, batch_size, epochs, verbose, callbacks, validation_split, validation_data,
             shuffle, class_weight, sample_weight, initial_epoch, steps_per_epoch, validation_steps,
             validation_batch_size, validation_freq):
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = split_validation(
                x, y, sample_weight, validation_split)
        data = DataHandler(x, y, sample_weight, batch_size, steps_per_epoch, shuffle,
                           class_weight, seed=distributed.shuffle_seed(strategy))
        verbose = resolve_verbose(verbose)
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
            logs = self._run_epoch(data, cb, strategy)
            if data.exhausted:
                self.stop_training = True
            epoch_logs = dict(self._get_metrics_result_or_logs(logs))
            if validation_data is not None and should_validate(epoch, validation_freq):
                val_logs = self._validate(validation_data, validation_batch_size or batch_size,
                                          validation_steps, cb)
                epoch_logs.update({"val_" + k: v for k, v in val_logs.items()})
            cb.on_epoch_end(epoch, epoch_logs)
            logs = epoch_logs
            if self.stop_training:
                break
        cb.on_train_end(logs)
        return history

    def _run_epoch(self, data, cb, strategy=None):
        logs = {}
        step = 0
        batch_begin, batch_end = cb.on_train_batch_begin, cb.on_train_batch_end
        train_function = self.make_train_function()
        for batch in distributed.local_batches(data.epoch_batches(), strategy):
            batch_begin(step)
            logs = train_function(batch)
            batch_end(step, logs)
            step += 1
            if self.stop_training:
                break
        return logs

    def _validate(self, validation_data, batch_size, steps, cb):
        if is_dataset(validation_data) or is_iterator(validation_data) or \
                is_py_dataset(validation_data):
            vx, vy, vsw = validation_data, None, None
        else:
            vx, vy, vsw = unpack_x_y_sample_weight(validation_data)
        return self.evaluate(vx, vy, batch_size=batch_size, verbose=0, sample_weight=vsw,
                             steps=steps, callbacks=cb, return_dict=True)
