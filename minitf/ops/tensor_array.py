"""tf.TensorArray with TF's eager semantics: a Python list of tensors that ops write, read, stack
and split (each method updates the array in place and returns it, as TF's eager TensorArray
does), differentiable through the stack/unstack/concat/split ops it uses."""
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.ops._core import Tensor, thread_state
from minitf.ops.creation import zeros
from minitf.ops.shaping import concat as _concat
from minitf.ops.shaping import split as _split
from minitf.ops.shaping import stack as _stack
from minitf.ops.shaping import unstack as _unstack
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["TensorArray"]


def _as_shape(shape):
    if shape is None:
        return TensorShape(None)
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def _index(i):
    return int(i.numpy()) if isinstance(i, Tensor) else int(i)


@export("TensorArray")
class TensorArray:
    """A list of same-dtype tensors indexed by position, growable when `dynamic_size`.

    Args:
      dtype: the dtype of every element (required).
      size: the initial number of (unwritten) elements (required eagerly).
      dynamic_size: whether writes past the end grow the array (default False).
      clear_after_read: whether a read empties its slot, so a second read of it fails
        (default True).
      tensor_array_name, handle, flow, colocate_with_first_write_call, name: TF's graph-mode
        arguments; eagerly `handle` must be None and the rest are ignored.
      infer_shape: whether the first written element fixes the shape of the others.
      element_shape: the shape every element must be compatible with (unwritten elements read
        as zeros of it).

    Raises:
      ValueError: `size` missing or a `handle` given.
    """

    def __new__(cls, *args, **kwargs):
        graph = thread_state.graph
        if cls is TensorArray and graph is not None:  # traced: a graph value (minitf.graph)
            return graph.tensor_array(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        if handle is not None:
            raise ValueError("TensorArray handles are not supported when eager execution is enabled.")
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is enabled.")
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        self._element_shape = _as_shape(element_shape)
        self._previously_read = set()
        self._flow = convert_to_tensor(0)
        self._tensor_array = [None] * _index(size)

    @property
    def dtype(self):
        """The dtype of the elements."""
        return self._dtype

    @property
    def element_shape(self):
        """The elements' shape as known so far (a TensorShape)."""
        return self._element_shape

    @property
    def dynamic_size(self):
        """Whether writes past the end grow the array."""
        return self._dynamic_size

    @property
    def flow(self):
        """A scalar int32 tensor (TF's graph-mode ordering token; constant eagerly)."""
        return self._flow

    @property
    def handle(self):
        """None eagerly (TF's resource handle exists only in graphs)."""
        return None

    def identity(self):
        """This array (eagerly there is nothing to copy)."""
        return self

    def _zero_if_unwritten(self, i):
        if self._tensor_array[i] is None:
            self._tensor_array[i] = zeros(self._element_shape.as_list(), dtype=self._dtype)
        return self._tensor_array[i]

    def read(self, index, name=None):
        """The element at `index` (zeros of element_shape if never written).

        Raises:
          OutOfRangeError: `index` negative or past the end.
          InvalidArgumentError: the slot was cleared by an earlier read (clear_after_read).
        """
        index = _index(index)
        if index < 0:
            raise errors.OutOfRangeError(None, None, f"Reading from negative indices (index {index}) is not "
                                                     "allowed.")
        if index >= len(self._tensor_array):
            raise errors.OutOfRangeError(None, None, f"Tried to read from index {index} but array size is: "
                                                     f"{len(self._tensor_array)} ")
        tensor = self._tensor_array[index]
        if tensor is None:
            if index in self._previously_read:
                raise errors.InvalidArgumentError(
                    None, None, f"Could not read index {index} twice because it was cleared after a "
                                "previous read (perhaps try setting clear_after_read = false?)")
            tensor = self._zero_if_unwritten(index)
        if self._clear_after_read:
            self._tensor_array[index] = None
            self._previously_read.add(index)
        return tensor

    def _write(self, index, value):
        index = _index(index)
        if index < 0:
            raise errors.OutOfRangeError(None, None, f"Writing to negative indices (index {index}) is not "
                                                     "allowed.")
        size = len(self._tensor_array)
        if index >= size:
            if not self._dynamic_size:
                raise errors.OutOfRangeError(
                    None, None, f"Tried to write to index {index} but array is not resizeable and size "
                                f"is: {size} ")
            self._tensor_array.extend([None] * (index - size + 1))
        if not isinstance(value, Tensor):
            try:
                value = convert_to_tensor(value, dtype=self._dtype)
            except (TypeError, ValueError):
                value = convert_to_tensor(value)
        if value.dtype != self._dtype:
            raise errors.InvalidArgumentError(
                None, None, f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                            f"{value.dtype.name} ")
        if not self._element_shape.is_compatible_with(value.shape):
            raise ValueError(f"Incompatible shape for value ({value.shape}), expected "
                             f"({self._element_shape})")
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(value.shape)
        self._tensor_array[index] = value

    def write(self, index, value, name=None):
        """Put `value` at `index` (growing the array when dynamic_size); returns this array.

        Raises:
          OutOfRangeError: `index` negative, or past the end of a fixed-size array.
          InvalidArgumentError: `value` has another dtype.
          ValueError: `value`'s shape does not fit element_shape.
        """
        self._write(index, value)
        return self

    def stack(self, name=None):
        """All elements stacked along a new first axis (unwritten ones as zeros)."""
        for i in range(len(self._tensor_array)):
            self._zero_if_unwritten(i)
        if not self._tensor_array:
            shape = [0] + (self._element_shape.as_list() if self._element_shape.is_fully_defined() else [])
            return zeros(shape, dtype=self._dtype)
        return _stack(self._tensor_array)

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked."""
        if isinstance(indices, Tensor):
            indices = indices.numpy()
        return _stack([self._zero_if_unwritten(int(i)) for i in indices])

    def concat(self, name=None):
        """All elements joined along their first axis.

        Raises:
          InvalidArgumentError: an element is a scalar.
        """
        parts = [self._zero_if_unwritten(i) for i in range(len(self._tensor_array))]
        for i, t in enumerate(parts):
            if len(t.shape) == 0:
                raise errors.InvalidArgumentError(None, None, f"Concat saw a scalar shape at index {i} but "
                                                              "requires at least vectors.")
        return _concat(parts, 0)

    def unstack(self, value, name=None):
        """Replace the elements by the slices of `value` along its first axis; returns this array.

        Raises:
          ValueError: more slices than a fixed-size array holds.
        """
        tensors = _unstack(convert_to_tensor(value))
        if len(tensors) > len(self._tensor_array) and not self._dynamic_size:
            raise ValueError(f"Cannot unstack {len(tensors)} tensors into a TensorArray of static size "
                             f"{len(self._tensor_array)} ")
        self._tensor_array = tensors
        return self

    def scatter(self, indices, value, name=None):
        """Write the slices of `value` along its first axis at `indices`; returns this array."""
        if isinstance(indices, Tensor):
            indices = indices.numpy()
        for index, v in zip(indices, _unstack(convert_to_tensor(value))):
            self._write(index, v)
        return self

    def split(self, value, lengths, name=None):
        """Replace the elements by pieces of `value` (along axis 0) of the given `lengths`.

        Raises:
          InvalidArgumentError: `lengths` not a vector, `value` a scalar, lengths not summing to
            value.shape[0], or a fixed-size array of another size.
        """
        value = convert_to_tensor(value)
        lengths = convert_to_tensor(lengths)
        if len(lengths.shape) != 1:
            raise errors.InvalidArgumentError(None, None, "Expected lengths to be a vector, received shape: "
                                                          f"{lengths.shape.as_list()} ")
        if len(value.shape) == 0:
            raise errors.InvalidArgumentError(None, None, "Expected value to be at least a vector, but "
                                                          f"received shape: {value.shape.as_list()} ")
        total = int(lengths.numpy().sum())
        if total != value.shape[0]:
            raise errors.InvalidArgumentError(
                None, None, f"Expected sum of lengths to be equal to values.shape[0], but sum of lengths "
                            f"is {total} and value's shape is: {value.shape.as_list()} ")
        if not self._dynamic_size and lengths.shape[0] != len(self._tensor_array):
            raise errors.InvalidArgumentError(
                None, None, f"TensorArray's size is not equal to the size of lengths "
                            f"({len(self._tensor_array)} vs. {lengths.shape[0]}), and the TensorArray is "
                            "not marked as dynamically resizeable.")
        self._tensor_array = list(_split(value, [int(n) for n in lengths.numpy()], 0))
        return self

    def size(self, name=None):
        """The number of elements, as an int32 scalar tensor."""
        return convert_to_tensor(len(self._tensor_array))

    def close(self, name=None):
        """Drop all elements."""
        del self._tensor_array[:]

    def grad(self, source, flow=None, name=None):
        """Not available eagerly (the tape differentiates through the element ops instead)."""
        raise NotImplementedError("TensorArray.grad is not supported when executing eagerly; eager's "
                                  "gradient implementation does not use/need this function to compute "
                                  "gradients of operations that use TensorArrays.")
