"""tf.data.Iterator: iteration over a Dataset whose position a tf.train.Checkpoint can save."""
import numpy as np

from minitf.errors import errors
from minitf.data.optional import next_as_optional
from minitf.data.pipeline import END as _END, IterContext, shuffle_nodes
from minitf.recording import active_graph
from minitf.trackable import Trackable
from minitf.variable import Variable
from minitf.api_export import export

__all__ = ["Iterator"]


def _element_specs(iterator):
    """While tracing, an element is described by the dataset's element spec (never consumed)."""
    return iterator.element_spec


@export("data.Iterator")
class Iterator(Trackable):
    """An iterator over a Dataset whose position can be saved in a tf.train.Checkpoint.

    The state lives in Variables: `position` (elements consumed) and, for pipelines with
    shuffles, their base seeds and iteration keys. When a restore assigns them, the next
    `next()` replays the pipeline with those seeds and skips `position` elements, so
    iteration continues exactly where the saved iterator stopped.
    """

    def __init__(self, dataset):
        self._dataset = dataset
        shuffles = shuffle_nodes(dataset._node)
        self._shuffle_ids = [id(n) for n in shuffles]
        self._position = Variable(np.int64(0), trainable=False, name="iterator_position")
        self._seeds = self._keys = None
        if shuffles:
            self._seeds = Variable(np.array([n._base_seed for n in shuffles], np.int64),
                                   trainable=False, name="iterator_shuffle_seeds")
            self._keys = Variable(np.array([n._next_key() for n in shuffles], np.int64),
                                  trainable=False, name="iterator_shuffle_keys")
        self._generator = None
        self._synced = None

    @property
    def element_spec(self):
        """The element spec of the dataset being iterated."""
        return self._dataset.element_spec

    def _checkpoint_dependencies(self):
        deps = [("position", self._position)]
        if self._seeds is not None:
            deps += [("shuffle_seeds", self._seeds), ("shuffle_keys", self._keys)]
        return deps

    def _state(self):
        seeds = () if self._seeds is None else tuple(int(s) for s in self._seeds.numpy())
        keys = () if self._keys is None else tuple(int(k) for k in self._keys.numpy())
        return int(self._position.numpy()), seeds, keys

    def _restart(self, state):
        position, seeds, keys = state
        if self._generator is not None:
            self._generator.close()
        shuffle_state = {i: (s, k) for i, s, k in zip(self._shuffle_ids, seeds, keys)}
        self._generator = self._dataset._node._generate(IterContext(shuffle_state))
        for _ in range(position):  # fast-forward a restored iterator
            if next(self._generator, _END) is _END:
                break

    def __iter__(self):
        return self

    def __next__(self):
        graph = active_graph()
        if graph is not None:  # traced: a node taking the next element each time the graph runs
            return graph.call(Iterator.get_next, (self,), {}, stateful=True,
                              abstract=_element_specs, op_type="IteratorGetNext",
                              name="IteratorGetNext")
        state = self._state()
        if self._generator is None or state != self._synced:
            self._restart(state)
        try:
            element = next(self._generator)
        except StopIteration:
            self._synced = state
            raise
        position, seeds, keys = state
        self._position.assign(np.int64(position + 1))
        self._synced = (position + 1, seeds, keys)
        return element

    def get_next(self):
        """The next element; raises OutOfRangeError at the end, as TF's get_next."""
        graph = active_graph()
        if graph is not None:
            return next(self)
        try:
            return next(self)
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self):
        """A tf.experimental.Optional of the next element, empty at the end (no error)."""
        return next_as_optional(lambda: next(self), self.element_spec, self)

    def __del__(self):
        gen = self.__dict__.get("_generator")
        if gen is not None:
            try:
                gen.close()
            except Exception:  # noqa: BLE001 (interpreter shutdown)
                pass
