"""TracedArray: a numpy array (or numpy scalar) whose every use is recorded by a `Recorder`.

Its numpy protocols (`__array_ufunc__`, `__array_function__`), operators and the array methods
listed here compute on the real array and append the call to the recorder; shape and dtype
are static (a plan is made for one signature); Python values read from it (`bool`, `int`,
`item` ...) are guards; anything else it is asked for is an escape (see `minitf.graph.compiler.
recording`).
"""
import operator

import numpy as np

__all__ = ["TracedArray", "READERS"]

# Results that depend only on shapes and dtypes, which a plan's key fixes: computed, not recorded.
_STATIC_RESULT = frozenset((np.shape, np.ndim, np.size, np.result_type, np.iscomplexobj,
                            np.isrealobj, np.min_scalar_type))

# How a guard reads a Python value from an array (`bool(a)`, `a.item()` ...).
READERS = {"bool": bool, "int": int, "float": float, "complex": complex, "index": operator.index,
           "item": lambda a: a.item(), "tolist": lambda a: a.tolist()}

# Methods recorded as calls of the array's own method.
_METHODS = frozenset((
    "reshape", "transpose", "swapaxes", "astype", "copy", "view", "ravel", "flatten", "squeeze",
    "sum", "mean", "prod", "max", "min", "argmax", "argmin", "any", "all", "cumsum", "cumprod",
    "clip", "dot", "std", "var", "round", "conj", "conjugate", "take", "repeat", "argsort",
    "searchsorted", "diagonal", "trace", "fill", "sort", "nonzero", "compress", "tobytes", "put",
    "partition", "argpartition", "ptp", "byteswap", "newbyteorder", "__array_namespace__"))


class TracedArray:
    """A numpy array (or numpy scalar) whose uses are recorded (see the module docstring)."""

    __slots__ = ("array", "reg", "recorder", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, array, reg, recorder):
        self.array = array
        self.reg = reg
        self.recorder = recorder

    # -- numpy's protocols -------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        fn = ufunc if method == "__call__" else getattr(ufunc, method)
        return self.recorder.call(fn, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func in _STATIC_RESULT:
            real, _, _ = self.recorder.unwrap(tuple(args))
            real_kwargs, _, _ = self.recorder.unwrap(dict(kwargs))
            return func(*real, **real_kwargs)
        return self.recorder.call(func, args, kwargs)

    def __array__(self, dtype=None, copy=None):
        self.recorder.escape("a traced array was converted to a plain numpy array")
        array = np.asarray(self.array)
        return array if dtype is None else array.astype(dtype)

    # -- what stays static in a plan: shape and type -----------------------------------------
    shape = property(lambda self: np.shape(self.array))
    dtype = property(lambda self: self.array.dtype)
    ndim = property(lambda self: self.array.ndim)
    size = property(lambda self: self.array.size)
    itemsize = property(lambda self: self.array.itemsize)
    nbytes = property(lambda self: self.array.nbytes)

    @property
    def T(self):  # noqa: N802 (numpy's name)
        return self.recorder.method(self, "transpose", (), {})

    @property
    def mT(self):  # noqa: N802 (numpy's name)
        return self.recorder.call(np.matrix_transpose, (self,), {})

    @property
    def real(self):
        return self.recorder.call(np.real, (self,), {})

    @property
    def imag(self):
        return self.recorder.call(np.imag, (self,), {})

    @property
    def flat(self):
        return self.recorder.method(self, "ravel", (), {})

    def __getattr__(self, name):
        if name in _METHODS:
            return lambda *a, **k: self.recorder.method(self, name, a, k)
        if name.startswith("__") and name.endswith("__") and name not in (
                "__array_interface__", "__array_struct__", "__dlpack__", "__buffer__"):
            raise AttributeError(name)
        self.recorder.escape(f"ndarray.{name} is not recorded")
        return getattr(self.array, name)

    def __len__(self):
        return len(self.array)

    def __iter__(self):
        return (self[i] for i in range(len(self.array)))

    # -- Python values read from the data: guards ----------------------------------------------
    def __bool__(self):
        return self.recorder.read(self, "bool")

    def __int__(self):
        return self.recorder.read(self, "int")

    def __float__(self):
        return self.recorder.read(self, "float")

    def __complex__(self):
        return self.recorder.read(self, "complex")

    def __index__(self):
        return self.recorder.read(self, "index")

    def item(self, *args):
        if args:
            element = self[args if len(args) > 1 else args[0]]
            return element.item() if isinstance(element, TracedArray) else element
        return self.recorder.read(self, "item")

    def tolist(self):
        return self.recorder.read(self, "tolist")

    def __repr__(self):
        self.recorder.escape("a traced array was printed")
        return repr(self.array)

    __str__ = __repr__

    def __format__(self, spec):
        self.recorder.escape("a traced array was formatted")
        return format(self.array, spec)

    def __contains__(self, value):
        self.recorder.escape("`in` on a traced array")
        return value in self.array

    def __copy__(self):
        return self.recorder.method(self, "copy", (), {})

    def __deepcopy__(self, memo):
        return self.recorder.method(self, "copy", (), {})

    # -- indexing -------------------------------------------------------------------------------
    def __getitem__(self, key):
        return self.recorder.call(operator.getitem, (self, key), {}, shaped=_key_shaped(key))

    def __setitem__(self, key, value):
        self.recorder.call(operator.setitem, (self, key, value), {}, shaped=False)


def _key_shaped(key):
    """True when an index's traced parts decide the result's shape: a boolean mask, a slice
    with a traced bound (an integer array gathers: the result has the index's shape)."""
    parts = key if isinstance(key, tuple) else (key,)
    for part in parts:
        if isinstance(part, TracedArray) and part.array.dtype.kind not in "iu":
            return True
        if isinstance(part, slice) and any(isinstance(b, TracedArray)
                                           for b in (part.start, part.stop, part.step)):
            return True
        if isinstance(part, (list, tuple)) and any(isinstance(b, TracedArray) for b in part):
            return True
    return False


def _binary(ufunc, reflected=False):
    if reflected:
        return lambda self, other: self.recorder.call(ufunc, (other, self), {})
    return lambda self, other: self.recorder.call(ufunc, (self, other), {})


def _inplace(ufunc):
    def op(self, other):
        return self.recorder.call(ufunc, (self, other), {"out": (self,)})
    return op


for _name_, _ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                       ("truediv", np.true_divide), ("floordiv", np.floor_divide),
                       ("mod", np.remainder), ("pow", np.power), ("matmul", np.matmul),
                       ("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor),
                       ("lshift", np.left_shift), ("rshift", np.right_shift),
                       ("divmod", np.divmod)):
    setattr(TracedArray, f"__{_name_}__", _binary(_ufunc))
    setattr(TracedArray, f"__r{_name_}__", _binary(_ufunc, reflected=True))
    if _name_ != "divmod":
        setattr(TracedArray, f"__i{_name_}__", _inplace(_ufunc))
for _name_, _ufunc in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                       ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)):
    setattr(TracedArray, f"__{_name_}__", _binary(_ufunc))
TracedArray.__hash__ = None
TracedArray.__neg__ = lambda self: self.recorder.call(np.negative, (self,), {})
TracedArray.__pos__ = lambda self: self.recorder.call(np.positive, (self,), {})
TracedArray.__abs__ = lambda self: self.recorder.call(np.absolute, (self,), {})
TracedArray.__invert__ = lambda self: self.recorder.call(np.invert, (self,), {})
