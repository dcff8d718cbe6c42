"""Helpers shared by the preprocessing layers: values as numpy, the batches `adapt` reads,
seeded random streams for augmentation, Keras' training default, and image axes."""
import functools
import threading

import numpy as np

from minitf.keras_ops import random as keras_random
from minitf.recording import thread_state
from minitf.ragged.ragged_tensor import RaggedTensor
from minitf.symbolic_tensor import SymbolicArgumentError, SymbolicTensor
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape
from minitf.variable import Variable

__all__ = ["adapts_when_run", "numpy_of", "adapt_batches", "refuse_sparse", "encoded_shape", "SeedStream", "is_training",
           "image_axes", "text_of"]


def adapts_when_run(abstract=None):
    """Decorate a layer's `adapt(data, ...)`: inside a traced function, data holding graph
    values makes adapt a stateful node that adapts each time the graph runs (`abstract(layer,
    data)` stands in while tracing, e.g. to build); eager data adapts at once, while tracing."""
    def decorate(adapt):
        @functools.wraps(adapt)
        def wrapper(layer, data, *args, **kwargs):
            graph = thread_state.graph
            if graph is not None and _holds_graph_value(data):
                stand_in = (lambda l, d, *a, **k: abstract(l, d)) if abstract is not None else None
                return graph.call(adapt, (layer, data) + args, kwargs, stateful=True,
                                  abstract=stand_in or (lambda *a, **k: None))
            return adapt(layer, data, *args, **kwargs)
        return wrapper
    return decorate


def _holds_graph_value(data):
    if isinstance(data, SymbolicTensor):
        return True
    return isinstance(data, (list, tuple)) and any(_holds_graph_value(d) for d in data)


def numpy_of(value):
    """A tensor, variable, array, list or scalar as a numpy array (strings as object arrays of bytes)."""
    if isinstance(value, Variable):
        value = value.value()
    if isinstance(value, SymbolicTensor):
        # a layer computing on the host becomes one node of the graph being traced (its call
        # wears add_dispatch_support, which takes this TypeError as the cue)
        raise SymbolicArgumentError(f"{value.name} is symbolic: the layer's call is recorded in the graph")
    if isinstance(value, Tensor):
        value = value.numpy()
        return np.array(value, dtype=object) if isinstance(value, bytes) else np.asarray(value)
    if isinstance(value, RaggedTensor):
        raise TypeError("numpy_of: ragged values need their flat values handled by the caller")
    if isinstance(value, (list, tuple)) and any(isinstance(v, (Tensor, Variable, list, tuple)) for v in value):
        # Layer.__call__ turns each entry of a list input into its own tensor
        arr = np.stack([numpy_of(v) for v in value])
    else:
        arr = np.asarray(value)
    if arr.dtype.kind == "U":
        arr = np.vectorize(lambda s: s.encode("utf-8"), otypes=[object])(arr) if arr.size else \
            arr.astype(object)
    elif arr.dtype.kind == "S":
        arr = arr.astype(object)
    return arr


def text_of(value, encoding="utf-8"):
    """A bytes or str scalar as str."""
    return value.decode(encoding) if isinstance(value, bytes) else str(value)


def _features(element):
    """The features of a dataset element or batch: the first entry of an (x, y[, w]) tuple."""
    if isinstance(element, tuple):
        return element[0]
    return element


def adapt_batches(data, layer_name, batch_rank1=False, steps=None):
    """(an iterable of numpy batches, the first batch's shape) for `adapt(data)`.

    Arrays, tensors and lists are one batch; a tf.data.Dataset or any other iterable yields
    batches (a dataset of rank-1 elements is batched by 128 first when `batch_rank1`, as
    Keras' Normalization does). Raises TypeError for anything else, ValueError when empty.
    """
    if isinstance(data, (np.ndarray, Tensor, Variable, list, tuple)) or np.isscalar(data):
        batch = numpy_of(data)
        return [batch], batch.shape
    if isinstance(data, RaggedTensor):
        return [data], tuple(TensorShape(data.shape).as_list())
    if hasattr(data, "element_spec") and hasattr(data, "batch"):
        spec = _features(data.element_spec)
        rank = getattr(TensorShape(spec.shape), "rank", None)
        if batch_rank1 and rank == 1:
            data = data.batch(128)
        if steps is not None:
            data = data.take(steps)
    elif not hasattr(data, "__iter__"):
        raise TypeError(f"Layer {layer_name!r}: unsupported data type {type(data).__name__} for adapt(); pass "
                        f"a NumPy array, a tensor, a tf.data.Dataset or an iterable of batches.")
    batches = []
    for i, element in enumerate(data):
        if steps is not None and i >= steps:
            break
        x = _features(element)
        batches.append(x if isinstance(x, RaggedTensor) else numpy_of(x))
    if not batches:
        raise ValueError(f"Layer {layer_name!r}: adapt() received an empty iterable (no batches). Pass at least "
                         f"one batch, e.g. layer.adapt([x]).")
    first = batches[0]
    return batches, tuple(TensorShape(first.shape).as_list()) if isinstance(first, RaggedTensor) else first.shape


def refuse_sparse(sparse, layer):
    """minitf layers produce dense outputs only."""
    if sparse:
        raise NotImplementedError(f"{type(layer).__name__} {layer.name!r}: sparse=True outputs are not "
                                  f"supported by minitf; use sparse=False (dense outputs).")


def encoded_shape(input_shape, output_mode, depth):
    """The output shape of Keras' categorical encoding of ids shaped `input_shape`."""
    shape = TensorShape(input_shape).as_list()
    if output_mode == "int":
        return TensorShape(shape)
    if not shape:
        return TensorShape([1, depth] if output_mode == "one_hot" else [depth])
    if output_mode == "one_hot" and shape[-1] != 1:
        return TensorShape(shape + [depth])
    return TensorShape(shape[:-1] + [depth])


class SeedStream:
    """A thread-safe numpy random stream for one augmentation layer.

    A given `seed` restarts the same sequence in every run (and in every copy made from the
    layer's config). Without a seed, the layer takes one from Python's `random` when built, as
    Keras 3's SeedGenerator does (so `keras.utils.set_random_seed` makes it repeat, and the
    layers built after it get Keras' initializer seeds). The numbers differ from Keras' (its
    SeedGenerator feeds the backend's stateless RNG); the distributions are the same.
    """

    def __init__(self, seed):
        if seed is None:
            seed = keras_random.make_default_seed()
        entropy = [int(seed) % (2 ** 63)]
        self._rng = np.random.Generator(np.random.Philox(np.random.SeedSequence(entropy)))
        self._lock = threading.Lock()

    def uniform(self, low, high, size):
        """Uniform floats in [low, high) of shape `size`."""
        with self._lock:
            return self._rng.uniform(low, high, size)


def is_training(training):
    """Keras' rule for augmentation layers: an omitted `training` means True (the default of their
    `call`), an explicit None or False means inference."""
    return bool(training) if training is not None else False


def image_axes(rank, data_format, layer):
    """(height axis, width axis) of a rank-3 image or rank-4 batch; ValueError for other ranks."""
    if rank not in (3, 4):
        raise ValueError(f"{type(layer).__name__} {layer.name!r}: expected the input image to be rank 3 "
                         f"(an image) or 4 (a batch); received a tensor of rank {rank}.")
    return (-2, -1) if data_format == "channels_first" else (-3, -2)
