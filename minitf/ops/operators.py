"""Python operators on Tensor and Variable (+, *, @, [], <, ...), dispatched to minitf ops."""
import numpy as np

from minitf import dispatch
from minitf.ops import math as m
from minitf.ops.constant import cast, convert_to_tensor
from minitf.ops.indexing import getitem
from minitf.ops.linalg import matmul
from minitf.ops._core import array_module, binary
from minitf.symbolic_tensor import SymbolicArgumentError
from minitf.tensor import Tensor
from minitf.variable import Variable


def _compare_or(x, y, fn, unequal):
    """TF's eager `==`/`!=`: elementwise, dtype and conversion errors raise, but operands whose
    shapes do not broadcast compare as a scalar bool tensor (False for ==, True for !=)."""
    try:
        x, y = binary(x, y, "Equal" if fn is m.equal else "NotEqual")
    except SymbolicArgumentError:  # a graph value: the comparison is a node of the graph
        return dispatch.fallback(_compare_or, (x, y, fn, unequal), {})
    try:
        np.broadcast_shapes(x._value.shape, y._value.shape)
    except ValueError:
        xp = array_module(x._value)
        return Tensor(xp.asarray(unequal))
    return fn(x, y)


def _tensor_eq(x, y):
    """Elementwise ==; comparing with None gives False, as in TF."""
    if y is None:
        return False
    return _compare_or(x, y, m.equal, False)


def _tensor_ne(x, y):
    """Elementwise !=; comparing with None gives True, as in TF."""
    if y is None:
        return True
    return _compare_or(x, y, m.not_equal, True)


def _and(x, y):
    return m.logical_and(x, y) if _is_bool(x) else m.bitwise_and(x, y)


def _or(x, y):
    return m.logical_or(x, y) if _is_bool(x) else m.bitwise_or(x, y)


def _xor(x, y):
    return m.logical_xor(x, y) if _is_bool(x) else m.bitwise_xor(x, y)


def _is_bool(x):
    return getattr(x, "_value", None) is not None and x._value.dtype.kind == "b"


def _mul(x, y):
    """`*`: TF multiplies bool tensors as int32 and casts the product back to bool."""
    if _is_bool(x) or _is_bool(y):
        return cast(m.multiply(cast(x, "int32"), cast(y, "int32")), "bool")
    return m.multiply(x, y)


_BINARY = {
    "add": m.add, "sub": m.subtract, "mul": _mul, "truediv": m.truediv,
    "floordiv": m.floordiv, "mod": m.floormod, "pow": m.pow, "matmul": matmul,
    "and": _and, "or": _or, "xor": _xor,
}


def _reflected(fn):
    """`other <op> self`: a non-tensor `other` first takes `self`'s dtype, as TF's __r*__ do."""
    def op(self, other):
        if not isinstance(other, (Tensor, Variable)):
            other = convert_to_tensor(other, dtype=self.dtype)
        return fn(other, self)
    return op


def _forward(fn, name):
    """`self <op> other`; on a conversion error `other`'s own reflected operator gets a try
    (TF does this, so `tf.constant(3) * [1.5]` repeats the list), else the first error stands."""
    def op(self, other):
        try:
            return fn(self, other)
        except (TypeError, ValueError):
            r_op = getattr(type(other), f"__r{name}__", None)
            if r_op is None or isinstance(other, (Tensor, Variable)):
                raise
            try:
                out = r_op(other, self)
            except (TypeError, ValueError):
                out = NotImplemented
            if out is NotImplemented:
                raise
            return out
    return op


def _install(cls):
    for name, fn in _BINARY.items():
        setattr(cls, f"__{name}__", _forward(fn, name))
        setattr(cls, f"__r{name}__", _reflected(fn))
    cls.__neg__ = lambda self: m.negative(self)
    cls.__pos__ = lambda self: self
    cls.__abs__ = lambda self: m.abs(self)
    cls.__invert__ = lambda self: m.logical_not(self) if _is_bool(self) else m.invert(self)
    cls.__lt__ = lambda self, other: m.less(self, other)
    cls.__le__ = lambda self, other: m.less_equal(self, other)
    cls.__gt__ = lambda self, other: m.greater(self, other)
    cls.__ge__ = lambda self, other: m.greater_equal(self, other)
    cls.__getitem__ = getitem


_install(Tensor)
Tensor.__eq__ = _tensor_eq
Tensor.__ne__ = _tensor_ne
Tensor.__hash__ = Tensor.__hash__
def _variable_equality(fn, unequal):
    """Variable `==`/`!=`: as for tensors, except that None is a conversion error, as in TF
    (variables are not compared by identity: use `is`, or `v.ref()` as a key)."""
    def op(self, other):
        if other is None:
            raise ValueError("Attempt to convert a value (None) with an unsupported type "
                             f"(<class 'NoneType'>) to a Tensor, comparing variable {self.name}; "
                             "to test for a missing variable use `is None`.")
        return _compare_or(self, other, fn, unequal)
    return op


_install(Variable)
Variable.__eq__ = _variable_equality(m.equal, False)
Variable.__ne__ = _variable_equality(m.not_equal, True)
