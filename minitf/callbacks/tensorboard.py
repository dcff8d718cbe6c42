"""tf.keras.callbacks.TensorBoard: training logs as TensorBoard event files, in Keras 3's layout.

`<log_dir>/train` receives 'epoch_<name>' scalars for the training logs (loss, each metric) and
'epoch_learning_rate', per epoch; 'batch_<name>' scalars at global batch steps when
`update_freq` is 'batch' or an integer; '<weight path>/histogram' (and '/image' with
`write_images`) every `histogram_freq` epochs. `<log_dir>/validation` receives the 'val_'
logs as 'epoch_<name>' (prefix dropped) and 'evaluation_<name>_vs_iterations' at the
optimizer's iteration count after each evaluation. The writers open lazily, so a run that logs
nothing to one side leaves no file there.

What Keras draws from TF graphs has no counterpart here: `write_graph` writes the model's
Keras JSON (tag 'keras') only for models that have `to_json`, and `profile_batch` is checked
as Keras checks it but profiles nothing.
"""
import os
import sys
import time
import warnings

import numpy as np

from minitf import summary
from minitf.callbacks.callback import Callback
from minitf.distribution_context import is_chief
from minitf.keras_core.config import image_data_format
from minitf.summary._proto import messages
from minitf.summary.ops import write as write_summary
from minitf.api_export import export

__all__ = ["TensorBoard"]


def _as_float(value):
    return float(np.asarray(getattr(value, "numpy", lambda: value)()))


@export("callbacks.TensorBoard", "keras.callbacks.TensorBoard")
class TensorBoard(Callback):
    """Write TensorBoard logs of `fit` (and `evaluate`) under `log_dir`.

    Args:
      log_dir: the run's directory ('logs'); 'train' and 'validation' go below it.
      histogram_freq: every how many epochs to write weight histograms (0: never).
      write_graph: write the model's Keras config (for models with `to_json`).
      write_images: write 1-d and 2-d weights (and conv kernels) as images too.
      write_steps_per_second: also log 'batch_steps_per_second' / 'epoch_steps_per_second'.
      update_freq: 'epoch', 'batch' (every batch) or an integer N (every N batches): when
        'batch_' scalars are written.
      profile_batch: 0, a batch number, or a (start, stop) pair / 'start,stop' string; checked
        as Keras does, but no profile is taken.
      embeddings_freq: every how many epochs to save the weights for the projector
        (train/keras_embedding.ckpt-<epoch>.weights.h5).
      embeddings_metadata: a metadata file path, or {embedding layer name: path}.

    Raises:
      ValueError: a malformed `profile_batch`, or `embeddings_metadata` naming layers that
        are not Embedding layers of the model.
      ImportError: protobuf is missing (pip install 'minitf[tensorboard]').
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0,
                 embeddings_freq=0, embeddings_metadata=None):
        super().__init__()
        self.log_dir = str(os.fspath(log_dir))
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._init_profile_batch(profile_batch)
        self._global_train_batch = 0
        self._global_test_batch = 0
        self._previous_epoch_iterations = 0
        self._batch_start_time = 0
        self._epoch_start_time = 0
        self._writers = {}
        self._prev_summary_state = []

    # -- writers -------------------------------------------------------------------------------
    def set_model(self, model):
        """Receive the model; writes its Keras config (write_graph) and the projector config.

        Raises:
          ImportError: protobuf is missing, said when fit starts rather than after an epoch.
        """
        messages()
        self.model = model
        self._log_write_dir = self.log_dir
        self._train_dir = os.path.join(self._log_write_dir, "train")
        self._val_dir = os.path.join(self._log_write_dir, "validation")
        self._writers = {}
        if not is_chief():  # workers of a tf.distribute job other than the chief write nothing
            return
        if self.write_graph:
            self._write_keras_model_summary()
        if self.embeddings_freq:
            self._configure_embeddings()

    @property
    def _train_writer(self):
        if "train" not in self._writers:
            self._writers["train"] = summary.create_file_writer(self._train_dir) if is_chief() else \
                summary.create_noop_writer()
        return self._writers["train"]

    @property
    def _val_writer(self):
        if "val" not in self._writers:
            self._writers["val"] = summary.create_file_writer(self._val_dir) if is_chief() else \
                summary.create_noop_writer()
        return self._writers["val"]

    def _write_keras_model_summary(self):
        to_json = getattr(self.model, "to_json", None)
        if type(self.model).__name__ not in ("Functional", "Sequential") or to_json is None:
            return
        try:
            config = to_json()
        except Exception as exc:  # noqa: BLE001 - as Keras: a model that cannot serialize is skipped
            warnings.warn(f"Model failed to serialize as JSON. Ignoring... {exc}")
            return
        metadata = messages()["SummaryMetadata"]()
        metadata.plugin_data.plugin_name = "graph_keras_model"  # TensorBoard's Keras graph view
        metadata.plugin_data.content = b"1"
        with self._train_writer.as_default():
            write_summary("keras", config, step=0, metadata=metadata)

    def _configure_embeddings(self):
        metadata = self.embeddings_metadata
        remaining = dict(metadata) if isinstance(metadata, dict) else None
        lines = []
        for layer in self.model.layers:
            if type(layer).__name__ != "Embedding":
                continue
            lines += ["embeddings {",
                      '  tensor_name: "layer_with_weights-0/embeddings/.ATTRIBUTES/VARIABLE_VALUE"']
            path = metadata if isinstance(metadata, str) else \
                (remaining.pop(layer.name, None) if remaining is not None else None)
            if path is not None:
                lines.append(f'  metadata_path: "{path}"')
            lines.append("}")
        if remaining:
            raise ValueError("Unrecognized `Embedding` layer names passed to "
                             "`keras.callbacks.TensorBoard` `embeddings_metadata` argument: "
                             f"{remaining.keys()}")
        os.makedirs(self._log_write_dir, exist_ok=True)
        with open(os.path.join(self._log_write_dir, "projector_config.pbtxt"), "w") as f:
            f.write("".join(line + "\n" for line in lines))

    def _push_writer(self, writer, step):
        """Make `writer` the default (batch-level summaries) while `step % update_freq == 0`."""
        if self.update_freq == "epoch":
            return
        contexts = (writer.as_default(step), summary.record_if(lambda: step % self.update_freq == 0))
        self._prev_summary_state.append(contexts)
        contexts[0].__enter__()
        contexts[1].__enter__()

    def _pop_writer(self):
        if self.update_freq == "epoch" or not self._prev_summary_state:
            return
        contexts = self._prev_summary_state.pop()
        contexts[1].__exit__(*sys.exc_info())
        contexts[0].__exit__(*sys.exc_info())

    def _close_writers(self):
        for writer in self._writers.values():
            writer.close()

    def _init_profile_batch(self, profile_batch):
        message = ("profile_batch must be a non-negative integer or 2-tuple of positive integers. "
                   "A pair of positive integers signifies a range of batches to profile. "
                   f"Found: {profile_batch}")
        if isinstance(profile_batch, str):
            try:
                profile_batch = [int(part) for part in profile_batch.split(",")]
            except ValueError:
                raise ValueError(message) from None
            if len(profile_batch) == 1:
                profile_batch = profile_batch[0]
        if isinstance(profile_batch, (int, np.integer)) and not isinstance(profile_batch, bool):
            start = stop = int(profile_batch)
        elif isinstance(profile_batch, (tuple, list)) and len(profile_batch) == 2:
            start, stop = profile_batch
        else:
            raise ValueError(message)
        if start < 0 or stop < start:
            raise ValueError(message)
        self._start_batch, self._stop_batch = start, stop
        if start or stop:
            warnings.warn("TensorBoard(profile_batch=...): minitf has no profiler; no profile is "
                          "written. Use profile_batch=0 to silence this.", stacklevel=3)

    # -- hooks ---------------------------------------------------------------------------------
    def on_train_begin(self, logs=None):
        """Start the global batch count and (batch updates) make the train writer the default."""
        self._global_train_batch = 0
        self._previous_epoch_iterations = 0
        self._push_writer(self._train_writer, self._global_train_batch)

    def on_train_end(self, logs=None):
        """Restore the previous default writer and close the writers."""
        self._pop_writer()
        self._close_writers()

    def on_test_begin(self, logs=None):
        """(Batch updates) make the validation writer the default."""
        self._push_writer(self._val_writer, self._global_test_batch)

    def on_test_end(self, logs=None):
        """Write 'evaluation_<name>_vs_iterations' at the optimizer's iteration count."""
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "iterations"):
            with self._val_writer.as_default():
                for name, value in (logs or {}).items():
                    summary.scalar(f"evaluation_{name}_vs_iterations", value,
                                   step=optimizer.iterations)
        self._pop_writer()

    def on_train_batch_begin(self, batch, logs=None):
        """Count the batch and move the default step to it."""
        self._global_train_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._train_writer, self._global_train_batch)
        if self.write_steps_per_second:
            self._batch_start_time = time.time()

    def on_train_batch_end(self, batch, logs=None):
        """Write 'batch_<name>' scalars (only with a batch `update_freq`)."""
        if self.write_steps_per_second:
            elapsed = max(time.time() - self._batch_start_time, 1e-12)
            summary.scalar("batch_steps_per_second", 1.0 / elapsed, step=self._global_train_batch)
        if isinstance(logs, dict):
            for name, value in logs.items():
                summary.scalar(f"batch_{name}", value, step=self._global_train_batch)

    def on_test_batch_begin(self, batch, logs=None):
        """Count the evaluation batch and move the default step to it."""
        self._global_test_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._val_writer, self._global_test_batch)

    def on_epoch_begin(self, epoch, logs=None):
        """Note the iteration count and time, for steps per second."""
        if self.write_steps_per_second:
            self._previous_epoch_iterations = _as_float(self.model.optimizer.iterations)
            self._epoch_start_time = time.time()

    def on_epoch_end(self, epoch, logs=None):
        """Write the epoch's scalars, and the weight histograms / embeddings when due."""
        self._log_epoch_metrics(epoch, logs)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            self._log_embeddings(epoch)

    # -- what is written -----------------------------------------------------------------------
    def _collect_learning_rate(self, logs):
        optimizer = getattr(self.model, "optimizer", None)
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)  # a LossScaleOptimizer's
        if hasattr(optimizer, "optimizers"):
            for opt in optimizer.optimizers:
                logs[f"learning_rate_{opt.name}"] = self._learning_rate_of(opt)
        elif optimizer is not None and hasattr(optimizer, "learning_rate"):
            logs["learning_rate"] = self._learning_rate_of(optimizer)
        return logs

    @staticmethod
    def _learning_rate_of(optimizer):
        current = getattr(optimizer, "_current_learning_rate", None)  # a schedule's value now
        return float(current()) if current is not None else _as_float(optimizer.learning_rate)

    def _log_epoch_metrics(self, epoch, logs):
        if not logs:
            return
        train_logs = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val_logs = {k: v for k, v in logs.items() if k.startswith("val_")}
        train_logs = self._collect_learning_rate(train_logs)
        if self.write_steps_per_second:
            elapsed = max(time.time() - self._epoch_start_time, 1e-12)
            steps = _as_float(self.model.optimizer.iterations) - self._previous_epoch_iterations
            train_logs["steps_per_second"] = steps / elapsed
        if train_logs:
            with self._train_writer.as_default():
                for name, value in train_logs.items():
                    summary.scalar(f"epoch_{name}", value, step=epoch)
        if val_logs:
            with self._val_writer.as_default():
                for name, value in val_logs.items():
                    summary.scalar(f"epoch_{name[4:]}", value, step=epoch)

    def _log_weights(self, epoch):
        with self._train_writer.as_default():
            for layer in self.model.layers:
                for weight in layer.weights:
                    name = getattr(weight, "path", weight.name).replace(":", "_")
                    summary.histogram(f"{name}/histogram", weight, step=epoch)
                    if self.write_images:
                        self._log_weight_as_image(weight, f"{name}/image", epoch)
            self._train_writer.flush()

    def _log_weight_as_image(self, weight, name, epoch):
        """Keras' layout: a bias as a 1-row image, a dense kernel wider than tall, conv kernels
        one image per output channel; other shapes are skipped."""
        image = np.squeeze(np.asarray(weight.numpy()))
        if image.ndim == 1:
            image = image.reshape(1, image.shape[0], 1, 1)
        elif image.ndim == 2:
            if image.shape[0] > image.shape[1]:
                image = image.T
            image = image.reshape(1, image.shape[0], image.shape[1], 1)
        elif image.ndim == 3:
            if image_data_format() == "channels_last":
                image = np.transpose(image, [2, 0, 1])
            image = image.reshape(image.shape[0], image.shape[1], image.shape[2], 1)
        if image.ndim == 4 and image.shape[-1] in (1, 3, 4):
            summary.image(name, image, step=epoch)

    def _log_embeddings(self, epoch):
        path = os.path.join(self._log_write_dir, "train", f"keras_embedding.ckpt-{epoch}.weights.h5")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.model.save_weights(path)
