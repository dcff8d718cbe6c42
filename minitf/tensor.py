"""Tensor: an immutable array value with a dtype and a device.

The value is a raw array of its array module (numpy or cupy). Arithmetic and comparison
operators are attached by `minitf.ops.operators`, so this file holds no math.
"""
import itertools

import numpy as np

from minitf import backend
from minitf.dtypes import dtypes
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Tensor", "TensorLike", "is_tensor"]

# Tape identity of tensors and variables: a counter, never id() (ids are reused after GC).
next_id = itertools.count(1).__next__


@export("types.experimental.TensorLike")
class TensorLike:
    """What Tensor and Variable share: numpy and Python number protocols read from `numpy()`.

    The operators (`+`, `*`, `==`, `[]` ...) are installed on both classes by
    `minitf.ops.operators`; methods TF gives only to tensors (`__index__`, `__len__`,
    `__format__` with a spec) stay on Tensor.
    """

    __slots__ = ()
    _is_tensor_like = True  # tf.is_tensor
    # As with TF's EagerTensor, numpy functions (np.add, np.sum, np.concatenate ...) read a
    # tensor through `__array__` and return ndarrays. There is deliberately no `__array_ufunc__`:
    # without one, this priority makes `ndarray <op> tensor` call the tensor's reflected
    # operator, so that expression gives a tensor, as in TF.
    __array_priority__ = 100

    def __array__(self, dtype=None, copy=None):
        """The value as a host numpy array: numpy's array protocol, with NumPy 2's `copy`.

        As in TF, a tensor on the host gives a read-only view of its value (tensors are
        immutable, so numpy must not write into one), and a variable gives a writable copy
        (its value changes in place when assigned). `copy=True` always gives a writable copy;
        a `dtype` other than the value's gives a converted, writable array. `copy=False` is
        honoured only where no copy is needed; elsewhere it raises ValueError, as numpy asks.
        Device (GPU) values are copied to the host.
        """
        value = np.asarray(backend.to_host(self._value))
        on_host = value is self._value
        target = value.dtype if dtype is None else np.dtype(dtype)
        viewable = on_host and isinstance(self, Tensor) and target == value.dtype
        if copy is False and not viewable:
            raise ValueError(self._no_copy_message(target, on_host))
        if target != value.dtype:
            return value.astype(target)
        if copy or (on_host and not isinstance(self, Tensor)):
            return value.copy()
        if not on_host:
            return value  # already a fresh host copy of the device value
        view = value.view()
        view.flags.writeable = False
        return view

    def _no_copy_message(self, target, on_host):
        what = (f"{type(self).__name__} of shape {tuple(self._value.shape)} and dtype "
                f"{dtypes.as_dtype(self._value.dtype).name}")
        if target != np.dtype(self._value.dtype):
            why = f"converting it to {target} makes a new array"
        elif not on_host:
            why = f"its value lives on {backend.device_name(self._value)} and must be copied to the host"
        else:
            why = "a variable's value changes when it is assigned, so numpy may not share it"
        return (f"Unable to avoid a copy when making a numpy array (copy=False) from a {what}: "
                f"{why}. Use np.asarray(x) or np.array(x), which copy when needed.")

    def ref(self):
        """A hashable reference to this object, for use as a dict key or set member."""
        return _Reference(self)

    def experimental_ref(self):
        """Deprecated alias of `ref()`."""
        return self.ref()

    def __bool__(self):
        if self._value.size == 0:
            return False  # as TF (numpy would call an empty array ambiguous)
        return bool(self.numpy())

    def __float__(self):
        return float(self.numpy())

    def __int__(self):
        return int(self.numpy())

    def __complex__(self):
        return complex(self.numpy())


@export("Tensor")
class Tensor(TensorLike):
    """An immutable multi-dimensional value, the result of every minitf op."""

    __slots__ = ("_value", "_id", "__weakref__")

    def __init__(self, value):
        self._value = value
        self._id = next_id()

    @property
    def shape(self):
        """The static shape, a TensorShape."""
        return TensorShape(self._value.shape)

    def get_shape(self):
        """Alias of `shape`."""
        return self.shape

    def set_shape(self, shape):
        """Checks that `shape` is compatible with this eager tensor's shape, as TF's eager
        `set_shape` does (an eager shape is always fully known, so nothing changes).

        Raises:
            ValueError: If the shapes are not compatible.
        """
        shape = TensorShape(shape)
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied shape {shape}.")

    @property
    def dtype(self):
        """The element type, a DType."""
        return dtypes.as_dtype(self._value.dtype)

    @property
    def ndim(self):
        """Number of dimensions."""
        return self._value.ndim

    @property
    def device(self):
        """TF's device string for where this tensor's value lives."""
        return backend.device_name(self._value)

    def numpy(self):
        """The value as a new host numpy array (a numpy scalar for 0-d tensors), as TF returns.

        The array is the caller's own: writing to it leaves the tensor unchanged (tensors are
        immutable). `np.asarray(t)` gives a read-only view instead, without the copy.
        """
        host = backend.to_host(self._value)
        if not isinstance(host, np.ndarray):
            return host  # numpy scalars and bytes are immutable already
        if host.ndim == 0:
            return host[()]
        return host.copy() if host is self._value else host

    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def _numpy_text(self, is_repr):
        """TF's numpy_text: the value's repr or str, on a line of its own when it spans lines."""
        value = self.numpy()
        text = repr(value) if is_repr and isinstance(value, np.ndarray) else str(value)
        return "\n" + text if "\n" in text else text

    def __repr__(self):
        return f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={self._numpy_text(True)}>"

    def __str__(self):
        return f"tf.Tensor({self._numpy_text(False)}, shape={self.shape}, dtype={self.dtype.name})"

    def __index__(self):
        # as TF: the numpy value decides (integer scalars only; numpy's float scalars have no
        # __index__, so a float tensor raises AttributeError and a vector TypeError)
        return self.numpy().__index__()

    def __len__(self):
        if self._value.ndim == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return self._value.shape[0]

    def __iter__(self):
        if self._value.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(self._value.shape[0]))

    def __copy__(self):
        return self  # immutable

    def __deepcopy__(self, memo):
        return Tensor(self._value.copy())

    def __reduce__(self):
        return _rebuild_tensor, (self.numpy(),)

    def __format__(self, spec):
        # as TF: the numpy value formats itself ("{}" of a tensor is its numpy text)
        return format(self.numpy(), spec)


def _rebuild_tensor(array):
    return Tensor(backend.default_module().asarray(array))


class _Reference:
    """Hashable wrapper returned by `Tensor.ref()` / `Variable.ref()`; `deref()` gives it back."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        self._obj = obj

    def deref(self):
        """The wrapped tensor or variable."""
        return self._obj

    def __hash__(self):
        return self._obj._id

    def __eq__(self, other):
        return isinstance(other, _Reference) and other._obj is self._obj

    def __repr__(self):
        return f"<Reference wrapping {self._obj!r}>"


@export("is_tensor")
def is_tensor(x):
    """True for minitf tensors and variables (tf.is_tensor)."""
    return getattr(type(x), "_is_tensor_like", False)
