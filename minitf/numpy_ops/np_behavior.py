"""`tnp.experimental_enable_numpy_behavior`: NumPy's methods, indexing and operator promotion
on every Tensor, process-wide and opt-in, as TF.

After the call, tensors gain `T`, `size`, `tolist`, `reshape`, `ravel`, `flatten`, `transpose`,
`clip`, `astype`, `max`, `min`, `mean`, `data` and `round()`; `t[...]` accepts NumPy's integer
and boolean array indices; and `+ - * / // % **` between tensors (or a tensor and a Python or
NumPy value) of different dtypes promote with NumPy's rules instead of raising.
"""
import numbers

import numpy as np

from minitf.convert import convert_to_tensor
from minitf.dtypes import dtypes
from minitf.ops import array as A
from minitf.ops import constant as C
from minitf.ops import operators  # noqa: F401 (installs the operators this module wraps)
from minitf.symbolic_tensor import is_symbolic
from minitf.tensor import Tensor
from minitf.variable import Variable
from minitf.numpy_ops import np_array as NA
from minitf.numpy_ops import np_dtypes as D
from minitf.numpy_ops import np_math as NM
from minitf.api_export import export

_MODES = ("off", "legacy", "safe", "all")
_PROMOTED = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow")
_state = {"mode": None, "originals": None, "getitem": None}


def _promote_operands(x, y):
    """x (a tensor) and y converted to their NumPy result type, as TF's operators do in NumPy
    mode: Python scalars count as NumPy's weak scalars, lists by their elements, arrays by their
    dtype; a value that does not convert to that dtype raises TypeError, as in TF."""
    if y is None or isinstance(y, (str, bytes)) or x.dtype == dtypes.string:
        return x, y
    try:
        dtype = D.result_type(x, y)
    except (TypeError, ValueError):
        return x, y  # not a NumPy-typed value: the operator itself decides
    if isinstance(x, Variable):
        x = convert_to_tensor(x)
    x = x if x.dtype == dtype else C.cast(x, dtype)
    if isinstance(y, Tensor) or getattr(type(y), "_is_tensor_like", False):
        y = convert_to_tensor(y)
        return x, (y if y.dtype == dtype else C.cast(y, dtype))
    return x, convert_to_tensor(y, dtype=dtype)


def _numeric(t):
    dtype = t.dtype
    return dtype.is_floating or dtype.is_integer or dtype.is_complex or dtype.is_bool


def _promoting(original):
    def op(self, other):
        if _state["mode"] == "legacy":
            self, other = _promote_operands(self, other)
        return original(self, other)
    op.__name__ = getattr(original, "__name__", "op")
    return op


def _is_basic(item):
    if item is None or item is Ellipsis or isinstance(item, slice):
        return True
    if isinstance(item, (bool, np.bool_)):
        return False
    if isinstance(item, (numbers.Integral, np.integer)):
        return True
    return isinstance(item, Tensor) and item.shape.rank == 0 and item.dtype.is_integer


def _index_array(item):
    if isinstance(item, Tensor):
        return np.asarray(item)
    if isinstance(item, (list, tuple)):
        return np.asarray([np.asarray(i) if isinstance(i, Tensor) else i for i in item])
    return item


def _numpy_getitem(self, key):
    """NumPy indexing: basic indices as TF slices; integer or boolean arrays (lists, tuples,
    tensors) pick elements through a gather, so gradients flow."""
    items = key if isinstance(key, tuple) else (key,)
    if all(_is_basic(i) for i in items) or not self.shape.is_fully_defined() or any(
            isinstance(i, Tensor) and is_symbolic(i) for i in items):
        return _state["getitem"](self, key)  # a graph value's index arrays have no value to read
    np_key = tuple(_index_array(i) for i in items)
    shape = self.shape.as_list()
    positions = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    try:
        positions = positions[np_key if isinstance(key, tuple) else np_key[0]]
    except IndexError as exc:
        raise IndexError(f"Index {key!r} is invalid for a tensor of shape {tuple(shape)}: {exc}") from None
    return A.gather(A.reshape(self, [-1]), positions)


def _tensor_t(self):
    return NA.transpose(self)


def _tensor_size(self):
    if not self.shape.is_fully_defined():
        return None
    return np.prod(self.shape.as_list())


def _tensor_tolist(self):
    if is_symbolic(self):
        raise ValueError("Symbolic Tensors do not support the tolist API.")
    return self.numpy().tolist()


def _install_methods():
    Tensor.T = property(_tensor_t)
    Tensor.size = property(_tensor_size)
    Tensor.data = property(lambda self: self)
    Tensor.__pos__ = lambda self: self
    Tensor.tolist = _tensor_tolist
    Tensor.transpose = NA.transpose
    Tensor.flatten = NA.flatten
    Tensor.reshape = NA.reshape_method
    Tensor.ravel = NA.ravel
    Tensor.clip = NM.clip
    Tensor.astype = C.cast
    Tensor.__round__ = NM.around
    Tensor.max = NA.amax
    Tensor.mean = NA.mean
    Tensor.min = NA.amin


def _install_operators():
    if _state["originals"] is not None:
        return
    originals = {}
    for name in _PROMOTED:
        for attr in (f"__{name}__", f"__r{name}__"):
            originals[attr] = getattr(Tensor, attr)
            setattr(Tensor, attr, _promoting(originals[attr]))
            # a variable's operators promote too (its methods and indexing stay TF's, as in TF)
            setattr(Variable, attr, _promoting(getattr(Variable, attr)))
    _state["originals"] = originals
    for attr in ("__eq__", "__ne__"):  # TF's == and != promote too (None still compares False/True)
        originals[attr] = getattr(Tensor, attr)
        setattr(Tensor, attr, _promoting(originals[attr]))
    _state["getitem"] = Tensor.__getitem__
    Tensor.__getitem__ = _numpy_getitem


@export("experimental.numpy.experimental_enable_numpy_behavior")
def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Give every Tensor NumPy's methods and indexing, and make mixed-dtype operators promote
    with NumPy's rules ('legacy'; 'off' keeps TF's errors). `prefer_float32` makes Python
    floats infer float32 in tnp. The effect is process-wide, as in TF.

    minitf has no WeakTensor, so the 'safe' and 'all' modes (TF's automatic dtype conversion)
    raise NotImplementedError.
    """
    if dtype_conversion_mode not in _MODES:
        raise ValueError(f"The provided promotion mode {dtype_conversion_mode} does not exist. Make sure the "
                         "provided dtype conversion mode is one of the followings: 'off', 'legacy', 'safe' or 'all'.")
    if dtype_conversion_mode in ("safe", "all"):
        raise NotImplementedError(
            f"dtype_conversion_mode={dtype_conversion_mode!r} (TF's WeakTensor auto dtype conversion) is not "
            "available in minitf; use 'legacy' (NumPy promotion, the default) or 'off'.")
    _state["mode"] = dtype_conversion_mode
    _install_operators()
    _install_methods()
    D.set_prefer_float32(prefer_float32)
