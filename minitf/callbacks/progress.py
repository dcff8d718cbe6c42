"""Callbacks that report progress: ProgbarLogger (a bar or a line per epoch), CSVLogger (one
row per epoch in a file), and plot_history (the curves of a History as a PNG)."""
import csv
import math
import os
import sys
import time

from minitf.callbacks.callback import Callback
from minitf.distribution_context import is_chief
from minitf.api_export import export

__all__ = ["ProgbarLogger", "CSVLogger", "plot_history"]


def _format_value(value):
    try:
        return f"{float(value):.4f}"
    except (TypeError, ValueError):
        return str(value)


def _format_logs(logs):
    return {k: _format_value(v) for k, v in (logs or {}).items() if k not in ("outputs",)}


@export("callbacks.ProgbarLogger", "keras.callbacks.ProgbarLogger")
class ProgbarLogger(Callback):
    """Progress output: a tqdm bar per epoch on stderr (verbose=1) or one line per epoch on
    stdout (verbose=2). The bar redraws at most ten times a second to stay cheap."""

    def __init__(self, count_mode="steps", stateful_metrics=None):
        super().__init__()
        self._bar = None
        self._last_postfix = 0.0
        self._epoch_start = 0.0
        self._in_fit = False

    def _verbose(self):
        return self.params.get("verbose", 1)

    def _open_bar(self, desc):
        from tqdm.auto import tqdm  # lazy: tqdm.auto costs ~80 ms (asyncio); only bars need it
        self._bar = tqdm(total=self.params.get("steps"), desc=desc, file=sys.stderr,
                         mininterval=0.1, unit="step", leave=True, dynamic_ncols=True)
        self._last_postfix = time.monotonic()

    def _advance(self, logs):
        bar = self._bar
        if bar is None:
            return
        bar.update(1)
        now = time.monotonic()
        if logs and now - self._last_postfix >= 0.1:
            self._last_postfix = now
            bar.set_postfix(_format_logs(logs), refresh=False)

    def _close_bar(self, logs):
        if self._bar is None:
            return
        if logs:
            self._bar.set_postfix(_format_logs(logs), refresh=False)
        self._bar.close()
        self._bar = None

    def on_train_begin(self, logs=None):
        self._in_fit = True

    def on_train_end(self, logs=None):
        self._in_fit = False

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch_start = time.monotonic()
        epochs = self.params.get("epochs")
        if self._verbose() == 1:
            self._open_bar(f"Epoch {epoch + 1}/{epochs}")
        elif self._verbose() == 2 and epochs is not None and epochs > 1:  # Keras 3: no header for one epoch
            print(f"Epoch {epoch + 1}/{epochs}", file=sys.stdout)

    def on_train_batch_end(self, batch, logs=None):
        self._advance(logs)

    def on_epoch_end(self, epoch, logs=None):
        if self._verbose() == 1:
            self._close_bar(logs)
        elif self._verbose() == 2:
            seconds = time.monotonic() - self._epoch_start
            parts = [f"{k}: {v}" for k, v in _format_logs(logs).items()]
            steps = self.params.get("steps")
            prefix = f"{steps}/{steps} - " if steps else ""
            print(prefix + f"{seconds:.0f}s - " + " - ".join(parts), file=sys.stdout)

    def on_test_begin(self, logs=None):
        if not self._in_fit and self._verbose() == 1:
            self._open_bar("Evaluate")

    def on_test_batch_end(self, batch, logs=None):
        if not self._in_fit:
            self._advance(logs)

    def on_test_end(self, logs=None):
        if self._in_fit:
            return
        if self._verbose() == 1:
            self._close_bar(logs)
        elif self._verbose() == 2:
            print(" - ".join(f"{k}: {v}" for k, v in _format_logs(logs).items()))

    def on_predict_begin(self, logs=None):
        if self._verbose() == 1:
            self._open_bar("Predict")

    def on_predict_batch_end(self, batch, logs=None):
        self._advance(None)

    def on_predict_end(self, logs=None):
        self._close_bar(None)


@export("callbacks.CSVLogger", "keras.callbacks.CSVLogger")
class CSVLogger(Callback):
    """Write one CSV row per epoch: 'epoch' then the log keys in sorted order.

    As in Keras, when the first epoch's logs hold no 'val_' key, a 'val_<key>' column is
    added for every key (written as 'NA' until validation logs appear).
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename = os.fspath(filename)
        self.sep = separator
        self.append = append
        self.keys = None
        self._file = None
        self._writer = None
        self._append_header = True

    def on_train_begin(self, logs=None):
        if not is_chief():  # workers of a tf.distribute job other than the chief write nothing
            self._file = open(os.devnull, "w", newline="")
        elif self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as existing:
                    self._append_header = not bool(len(existing.readline()))
            self._file = open(self.filename, "a", newline="")
        else:
            self._file = open(self.filename, "w", newline="")
        self._writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            # Keras reserves val_ columns (filled with 'NA') when the first epoch has none.
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys += [f"val_{k}" for k in self.keys]
        if self._writer is None:
            self._writer = csv.DictWriter(self._file, fieldnames=["epoch"] + self.keys,
                                          delimiter=self.sep)
            if self._append_header:
                self._writer.writeheader()
        row = {"epoch": epoch}
        row.update({k: _csv_value(logs.get(k, "NA")) for k in self.keys})
        self._writer.writerow(row)
        self._file.flush()

    def on_train_end(self, logs=None):
        if self._file is not None:
            self._file.close()
            self._file = None
        self._writer = None


def _csv_value(value):
    if isinstance(value, str):
        return value
    try:
        return float(value.numpy() if hasattr(value, "numpy") else value)
    except (TypeError, ValueError):
        return value


# -- plotting ---------------------------------------------------------------------------------

_COLORS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189),
           (140, 86, 75), (227, 119, 194), (127, 127, 127)]


@export("callbacks.plot_history", "keras.callbacks.plot_history")
def plot_history(history, path, keys=None, size=(640, 400)):
    """Draw the per-epoch curves of a `History` (or its dict) into a PNG file at `path`.

    `keys` picks the series (default: every series whose name contains 'loss'). Needs
    Pillow: `pip install pillow` (or minitf's 'examples' extra).
    """
    try:
        from PIL import Image, ImageDraw  # lazy: Pillow is optional (the examples extra)
    except ImportError as error:
        raise ImportError("plot_history needs Pillow: run `pip install pillow` "
                          "(or `pip install minitf[examples]`).") from error
    series = history.history if hasattr(history, "history") else dict(history)
    keys = keys or [k for k in series if "loss" in k] or list(series)
    curves = {k: [float(v) for v in series[k]] for k in keys if series.get(k)}
    if not curves:
        raise ValueError(f"plot_history: no data for keys {keys}; the history holds "
                         f"{sorted(series)}.")
    width, height = size
    left, right, top, bottom = 60, 20, 20, 40
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.line([(left, top), (left, height - bottom), (width - right, height - bottom)],
              fill="black", width=1)
    finite = [v for vals in curves.values() for v in vals if math.isfinite(v)]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    if high == low:
        high = low + 1.0
    epochs = max(len(v) for v in curves.values())

    def point(i, v):
        x = left + (width - left - right) * (i / max(epochs - 1, 1))
        y = top + (height - top - bottom) * (1.0 - (v - low) / (high - low))
        return (x, y)

    draw.text((4, top), f"{high:.3g}", fill="black")
    draw.text((4, height - bottom - 10), f"{low:.3g}", fill="black")
    draw.text((width - right - 60, height - bottom + 8), f"epoch {epochs}", fill="black")
    for n, (key, values) in enumerate(curves.items()):
        color = _COLORS[n % len(_COLORS)]
        points = [point(i, v) for i, v in enumerate(values) if math.isfinite(v)]
        if len(points) > 1:
            draw.line(points, fill=color, width=2)
        elif points:
            x, y = points[0]
            draw.ellipse([x - 2, y - 2, x + 2, y + 2], fill=color)
        draw.text((left + 10 + 110 * n, height - bottom + 22), key, fill=color)
    image.save(path, format="PNG")
    return path
