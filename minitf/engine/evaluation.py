"""Evaluation and inference of a Keras model: `evaluate`, `predict` and the single-batch calls.

`EvaluationMixin` is a base of `TrainingMixin` (minitf.engine.training), which supplies the steps
(`test_step`, `predict_step`, `train_step`), the per-batch functions (`make_test_function`,
`make_predict_function`) and the metrics these loops read.
"""
from minitf import callbacks as callbacks_module
from minitf.callbacks.callback_list import pythonify_logs
from minitf.nest import nest
from minitf.engine import distributed
from minitf.engine.data_adapter import DataHandler, concat_outputs, to_numpy, with_class_weight
from minitf.engine.logs import resolve_verbose
from minitf.engine.loop_args import check_loop_args
from minitf.kernels import threads

__all__ = ["EvaluationMixin"]


class EvaluationMixin:
    """`evaluate`, `predict`, `train_on_batch`, `test_on_batch` and `predict_on_batch`."""

    # -- evaluate / predict ----------------------------------------------------------------
    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, max_queue_size=10, workers=1,
                 use_multiprocessing=False, return_dict=False, **kwargs):
        """Compute the loss and metrics of the model on data, batch by batch.

        The model runs in inference mode (`training=False`: dropout off, batch
        normalization on its moving statistics); the metrics are reset first and averaged
        over all batches.

        Args:
            x: the inputs, as in `fit` (arrays, a dataset, a generator or a PyDataset).
            y: the targets for array inputs; None for datasets and generators.
            batch_size: examples per batch for array inputs (default 32).
            verbose: 0 silent, 1 a progress bar; 'auto' means 1.
            sample_weight: per-example weights of the loss.
            steps: the number of batches to evaluate (default: all the data).
            callbacks: callbacks whose `on_test_*` hooks are called.
            max_queue_size, workers, use_multiprocessing: accepted for compatibility (Keras 3
                reads them from a PyDataset's constructor instead).
            return_dict: return a `{name: value}` dict instead of a list.
            **kwargs: accepted for compatibility.

        Returns:
            The loss alone (a float) when nothing else is reported; otherwise a list of
            floats in the order of `model.metrics_names` ('loss' first), or a dict when
            `return_dict=True`.

        Raises:
            ValueError: when the model is not compiled, or the data is malformed (as in
                `fit`).
        """
        self._assert_compiled()
        check_loop_args("evaluate", x, y, batch_size, steps, callbacks,
                        extra={k: v for k, v in kwargs.items() if k != "_use_cached_eval_dataset"})
        strategy = distributed.replica_strategy(self)
        with distributed.strategy_scope(strategy):
            return self._evaluate(strategy, x, y, batch_size, verbose, sample_weight, steps, callbacks,
                                  return_dict)

    def _evaluate(self, strategy, x, y, batch_size, verbose, sample_weight, steps, callbacks, return_dict):
        data = DataHandler(x, y, sample_weight, batch_size, steps, shuffle=False)
        verbose = resolve_verbose(verbose)
        cb = callbacks if isinstance(callbacks, callbacks_module.CallbackList) else \
            callbacks_module.CallbackList(callbacks, add_progbar=verbose != 0, model=self,
                                          verbose=verbose, epochs=1, steps=data.steps)
        self.reset_metrics()
        cb.on_test_begin()
        logs = {}
        test_function = self.make_test_function()
        for step, batch in enumerate(distributed.local_batches(data.epoch_batches(), strategy)):
            cb.on_test_batch_begin(step)
            threads.adapt_to_load()
            logs = test_function(batch)
            cb.on_test_batch_end(step, logs)
        logs = pythonify_logs(self._get_metrics_result_or_logs(logs))
        cb.on_test_end(logs)
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None,
                max_queue_size=10, workers=1, use_multiprocessing=False):
        """Run the model on inputs, batch by batch, and return its outputs as numpy arrays.

        The model runs in inference mode (`training=False`). Batches are processed one at a
        time, so large inputs do not have to fit through the model at once; the outputs are
        joined along the batch axis.

        Args:
            x: the inputs: arrays (or a list/dict of them), a dataset, a generator or a
                PyDataset. `predict_step(data)` receives the batches as Keras 3 hands them
                over; the default one ignores targets in them.
            batch_size: examples per batch for array inputs (default 32).
            verbose: 0 silent, 1 a progress bar; 'auto' means 1.
            steps: the number of batches to run (default: all the data).
            callbacks: callbacks whose `on_predict_*` hooks are called.
            max_queue_size, workers, use_multiprocessing: accepted for compatibility (Keras 3
                reads them from a PyDataset's constructor instead).

        Returns:
            A numpy array, or the model's output structure (list/dict) of numpy arrays, with
            one row per input example.

        Raises:
            ValueError: when there is no data to predict on.
        """
        check_loop_args("predict", x, None, batch_size, steps, callbacks)
        data = DataHandler(x, None, None, batch_size, steps, shuffle=False)
        verbose = resolve_verbose(verbose)
        cb = callbacks_module.CallbackList(callbacks, add_progbar=verbose != 0, model=self,
                                           verbose=verbose, epochs=1, steps=data.steps)
        cb.on_predict_begin()
        outputs = []
        predict_function = self.make_predict_function()
        for step, batch in enumerate(data.epoch_batches()):
            cb.on_predict_batch_begin(step)
            threads.adapt_to_load()
            out = predict_function(batch)
            outputs.append(out)
            cb.on_predict_batch_end(step, {"outputs": out})
        cb.on_predict_end()
        if not outputs:
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs). "
                             "Please use `Model.compile(..., run_eagerly=True)`, or "
                             "check that your input is not empty.")
        return concat_outputs(outputs)

    # -- single batches --------------------------------------------------------------------
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       reset_metrics=True, return_dict=False):
        """Run one optimization step (`train_step`) on a single batch.

        Args:
            x: the batch's inputs.
            y: the batch's targets.
            sample_weight: per-example weights of the loss.
            class_weight: `{class index: weight}`, as in `fit`.
            reset_metrics: reset the metrics first, so the result covers this batch only;
                False accumulates over successive calls.
            return_dict: return a `{name: value}` dict instead of a list.

        Returns:
            The loss and metrics after the step, as `evaluate` returns them.

        Raises:
            ValueError: when the model is not compiled.
        """
        self._assert_compiled()
        if class_weight is not None:
            if sample_weight is not None:
                raise ValueError(f"Arguments `sample_weight` and `class_weight` cannot be specified "
                                 f"at the same time. Received: sample_weight={sample_weight}, "
                                 f"class_weight={class_weight}")
            sample_weight = with_class_weight((x, y), class_weight)[2]
        if reset_metrics:
            self.reset_metrics()
        # Keras 3 hands train_step the three parts, Nones included
        return self._batch_result(self.train_step((x, y, sample_weight)), return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True,
                      return_dict=False):
        """Compute the loss and metrics (`test_step`) on a single batch, without training.

        Args:
            x: the batch's inputs.
            y: the batch's targets.
            sample_weight: per-example weights of the loss.
            reset_metrics: reset the metrics first (False accumulates over calls).
            return_dict: return a `{name: value}` dict instead of a list.

        Returns:
            The loss and metrics, as `evaluate` returns them.

        Raises:
            ValueError: when the model is not compiled.
        """
        self._assert_compiled()
        if reset_metrics:
            self.reset_metrics()
        return self._batch_result(self.test_step((x, y, sample_weight)), return_dict)

    def predict_on_batch(self, x):
        """The model's outputs for one batch, as numpy array(s)."""
        out = self.predict_step((x,))
        return nest.map_structure(to_numpy, out)

    def _batch_result(self, logs, return_dict):
        logs = pythonify_logs(logs)
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)
