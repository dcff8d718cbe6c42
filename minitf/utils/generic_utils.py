"""tf.keras.utils.Progbar: a text progress bar for loops of known or unknown length."""
import sys
import time

import numpy as np
from minitf.api_export import export

__all__ = ["Progbar"]


@export("utils.Progbar", "keras.utils.Progbar")
class Progbar:
    """Displays progress and running averages of named values (`update(current, values)`).

    Values passed as (name, value) pairs are averaged over the steps seen, unless their name
    is in `stateful_metrics`, whose latest value is shown as is.
    """

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None,
                 unit_name="step"):
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.stateful_metrics = set(stateful_metrics or ())
        self.unit_name = unit_name
        self._seen_so_far = 0
        self._sums = {}  # name -> [weighted sum, count], or the last value for stateful ones
        self._start = time.time()
        self._last_update = 0.0

    def update(self, current, values=None, finalize=None):
        """Set the progress to `current` steps and record `values` [(name, value), ...]."""
        for name, value in values or ():
            value = float(np.mean(np.asarray(value)))
            if name in self.stateful_metrics:
                self._sums[name] = value
            else:
                steps = max(current - self._seen_so_far, 1)
                total = self._sums.setdefault(name, [0.0, 0])
                total[0] += value * steps
                total[1] += steps
        self._seen_so_far = current
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        now = time.time()
        if self.verbose and (finalize or now - self._last_update >= self.interval):
            self._last_update = now
            sys.stdout.write("\r" + self._line(current) + ("\n" if finalize else ""))
            sys.stdout.flush()

    def add(self, n, values=None):
        """Advance by `n` steps."""
        self.update(self._seen_so_far + n, values)

    def _line(self, current):
        if self.target is not None:
            done = int(self.width * min(current / max(self.target, 1), 1))
            bar = f"{current}/{self.target} [" + "=" * done + "." * (self.width - done) + "]"
        else:
            bar = f"{current} {self.unit_name}s"
        parts = [bar, f"{time.time() - self._start:.0f}s"]
        for name, total in self._sums.items():
            value = total if name in self.stateful_metrics else total[0] / max(total[1], 1)
            parts.append(f"{name}: {value:.4f}")
        return " - ".join(parts)
