"""Keras 3's gradient accumulation (`gradient_accumulation_steps=N`), mixed into the Optimizer base.

Each variable gets a 'gradient_accumulator' slot, made before its other slots as Keras 3 orders
them. A step that is not the N-th adds the (dense) gradients to the accumulators and updates
nothing; every N-th step updates with `(gradient + accumulator) / N` (clipped and decayed then)
and zeroes the accumulators. The `iteration` variable counts every step; Keras' `iterations`, the
count of updates, is that floor-divided by N, and it is what the update rules and the EMA read
(`_counting_update_steps`), while learning-rate schedules read the step count, as in Keras 3.
"""
import contextlib

__all__ = ["GradientAccumulation"]


class GradientAccumulation:
    """The accumulators of an Optimizer (needs `gradient_accumulation_steps`, `_iterations`,
    `_slots` and `add_variable_from_reference`)."""

    def _create_accumulators(self, variables):
        """Keras 3's 'gradient_accumulator' of each variable, when gradients are accumulated."""
        if self.gradient_accumulation_steps:
            for var in variables:
                self.add_variable_from_reference(var, "gradient_accumulator")

    @contextlib.contextmanager
    def _counting_update_steps(self):
        """With accumulation, the `iteration` variable holds the count of updates (the step count
        floor-divided by N) for the duration, and the step count again afterwards."""
        steps = self.gradient_accumulation_steps
        if not steps:
            yield
            return
        raw_step = self._iterations._value
        self._counting_updates = True
        self._iterations._set(raw_step // steps)
        try:
            yield
        finally:
            self._iterations._set(raw_step)
            self._counting_updates = False

    def _accumulate(self, dense, variables):
        """Off an update step, add the dense gradient arrays to the accumulators and return None;
        on it (every N-th step) return `(gradient + accumulator) / N` for each variable."""
        steps = self.gradient_accumulation_steps
        accumulators = [self._slots[v._id]["gradient_accumulator"] for v in variables]
        if (int(self._iterations._value) + 1) % steps != 0:
            for g, acc in zip(dense, accumulators):
                buffer = acc._buffer_for_update()
                buffer += g
            return None
        return [(g + acc._value) / steps for g, acc in zip(dense, accumulators)]

    def _reset_accumulators(self, variables):
        """Zero the accumulators after an update used them."""
        if self.gradient_accumulation_steps:
            for var in variables:
                self._slots[var._id]["gradient_accumulator"]._buffer_for_update()[...] = 0
