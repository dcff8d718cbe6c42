"""SymbolicTensor: a tensor of a graph that `tf.function` is tracing: a dtype and a static shape
(None for unknown dimensions), but no value.

Ops never compute on a symbolic tensor. Their argument conversion refuses one with
`SymbolicArgumentError` (a TypeError), and the dispatch seam (`minitf.dispatch`) then hands the
call to `SymbolicTensor.__tf_dispatch__`, which asks the graph being traced on this thread to
record it as a node. Anything that needs a value (`bool(t)`, `t.numpy()`, `np.asarray(t)`,
iterating) raises the error TF raises for a graph tensor.

The graph itself lives above the ops (`minitf.graph`); this module only knows the small protocol
a graph offers (`recording.active_graph()`), so the ops below can stay unaware of graphs.
"""
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.recording import thread_state, tracing
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape

__all__ = ["SymbolicTensor", "SymbolicArgumentError", "GraphObject", "is_symbolic", "out_of_scope_error"]


class GraphObject:
    """Base of the graph values that are not tensors (a TensorArray being built in a traced
    function): like symbolic tensors, nodes take them from the run's values by their `_id`."""

    __slots__ = ()


class SymbolicArgumentError(TypeError):
    """Raised by an op's argument conversion for a symbolic tensor: the op must dispatch the call
    to the graph instead of computing (ops catch it as the TypeError it is)."""


class _NoValue:
    """The `_value` of a symbolic tensor: its dtype and rank, and a TypeError for any use as an
    array, so an op that forgot to dispatch fails loudly instead of computing on nothing."""

    __slots__ = ("dtype", "ndim", "_owner")
    __array_ufunc__ = None  # numpy defers binary operators to us, and we refuse them

    def __init__(self, dtype, ndim, owner):
        self.dtype = dtype
        self.ndim = ndim
        self._owner = owner

    def __getattr__(self, name):
        if thread_state.graph is None and not tracing[0]:
            raise out_of_scope_error(self._owner)
        raise SymbolicArgumentError(f"{self._owner!r} is symbolic: an op tried to read its value "
                                    f"(.{name}) instead of recording itself in the graph.")

    def __array__(self, *args, **kwargs):
        raise SymbolicArgumentError(f"{self._owner!r} is symbolic and has no array value.")

    def __bool__(self):
        raise SymbolicArgumentError(f"{self._owner!r} is symbolic and has no truth value.")

    def _refuse(self, *args):
        raise SymbolicArgumentError(f"{self._owner!r} is symbolic: an op tried to compute with its "
                                    f"value instead of recording itself in the graph.")

    # Python would answer == and != by identity, and order comparisons with a TypeError of its
    # own; every operator refuses the same way instead, so no op computes on a missing value.
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _refuse
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __neg__ = __pos__ = __abs__ = _refuse
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __invert__ = _refuse
    __getitem__ = __setitem__ = __len__ = __iter__ = __float__ = __int__ = __index__ = _refuse
    __hash__ = object.__hash__


def out_of_scope_error(tensor):
    """TF's TypeError for a graph tensor used outside the function whose trace made it."""
    return TypeError(
        f"{tensor!r} is out of scope and cannot be used here. Use return values, explicit Python "
        f"locals or TensorFlow collections to access it.\nPlease see https://www.tensorflow.org/"
        f"guide/function#all_outputs_of_a_tffunction_must_be_return_values for more information.")


def _graph_error(what):
    return errors.OperatorNotAllowedInGraphError(
        f"{what} a symbolic `tf.Tensor` is not allowed. You can attempt the following resolutions "
        f"to the problem: If you are running in Graph mode, use Eager execution mode or decorate "
        f"this function with @tf.function. If you are using AutoGraph, you can try decorating this "
        f"function with @tf.function. If that does not work, then you may be using an unsupported "
        f"feature or your source code may not be visible to AutoGraph.")


class SymbolicTensor(Tensor):
    """An output of a node of a traced graph (TF's `SymbolicTensor`).

    Attributes:
      graph: the FuncGraph that owns it.
      op: the node (Operation) that produces it.
      value_index: which output of `op` it is.
      example: an eager Tensor of the same dtype standing in for its value while tracing
        (used to infer the shapes of later nodes; never returned to the user).
      example_b: a second stand-in whose unknown dimensions have other sizes, or None when the
        static shape is fully known.
    """

    __slots__ = ("graph", "op", "value_index", "_static_shape", "_static_dtype", "example",
                 "example_b")

    def __init__(self, graph, op, value_index, shape, dtype, example=None, example_b=None):
        super().__init__(None)
        self.graph = graph
        self.op = op
        self.value_index = value_index
        self._static_shape = TensorShape(shape)
        self._static_dtype = dtypes.as_dtype(dtype)
        self._value = _NoValue(self._static_dtype._np, self._static_shape.rank, self)
        self.example = example
        self.example_b = example_b

    # -- what a graph tensor has -----------------------------------------------------------
    @property
    def shape(self):
        """The static shape (None for dimensions unknown while tracing)."""
        return self._static_shape

    @property
    def dtype(self):
        """The element type."""
        return self._static_dtype

    @property
    def ndim(self):
        """The rank, or None when unknown."""
        return self._static_shape.rank

    @property
    def name(self):
        """`"<op name>:<output index>"`, as TF names graph tensors."""
        return f"{self.op.name}:{self.value_index}"

    @property
    def device(self):
        """Graph tensors are not placed while tracing: the empty device string, as in TF."""
        return ""

    def set_shape(self, shape):
        """Refine the static shape with `shape` (ValueError when the two are incompatible)."""
        shape = TensorShape(shape)
        if not self._static_shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self._static_shape} is not compatible with supplied "
                             f"shape {shape}.")
        self._static_shape = self._static_shape.merge_with(shape)

    def __tf_tensor__(self, dtype=None, name=None):
        if dtype is not None and dtypes.as_dtype(dtype) != self._static_dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for "
                             f"Tensor with dtype {self._static_dtype.name}: {self!r}")
        return self

    # -- what needs a value: TF's errors ---------------------------------------------------
    @property
    def numpy(self):
        raise AttributeError("'SymbolicTensor' object has no attribute 'numpy'")

    def __bool__(self):
        raise _graph_error("Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. Using")

    def __iter__(self):
        raise _graph_error("Iterating over a symbolic `tf.Tensor` is not allowed. Iterating over")

    def __len__(self):
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}). Please call "
                        f"`x.shape` rather than `len(x)` for shape information.")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This error may "
            f"indicate that you're trying to pass a Tensor to a NumPy call, which is not supported.")

    def __index__(self):
        raise TypeError(f"A symbolic tf.Tensor ({self.name}) cannot be used as a Python index.")

    def __float__(self):
        raise TypeError("float() argument must be a string or a real number, not 'SymbolicTensor'")

    def __int__(self):
        raise TypeError("int() argument must be a string, a bytes-like object or a real number, "
                        "not 'SymbolicTensor'")

    def __complex__(self):
        raise TypeError("complex() argument must be a string or a number, not 'SymbolicTensor'")

    def __format__(self, spec):
        return format(str(self), spec)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        raise TypeError(f"A symbolic tf.Tensor ({self.name}) cannot be pickled: it has no value.")

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={_shape_text(self._static_shape)} dtype={self.dtype.name}>"

    def __str__(self):
        if self._static_shape.rank is None:  # as TF's: an unknown shape is left out
            return f'Tensor("{self.name}", dtype={self.dtype.name})'
        return f'Tensor("{self.name}", shape={_shape_text(self._static_shape)}, dtype={self.dtype.name})'

    # -- the dispatch seam -----------------------------------------------------------------
    @staticmethod
    def __tf_dispatch__(api, args, kwargs):
        """Record `api(*args, **kwargs)` in the graph being traced (minitf.dispatch calls this)."""
        graph = thread_state.graph
        if graph is None:
            for a in _flat_candidates(args, kwargs):
                if isinstance(a, SymbolicTensor):
                    raise out_of_scope_error(a)
        return graph.call(api, args, kwargs)


def _flat_candidates(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, (list, tuple)):
            yield from a
        else:
            yield a


def _shape_text(shape):
    """A TensorShape as TF prints graph tensor shapes: `(None, 3)`, `()`, `<unknown>`."""
    if shape.rank is None:
        return "<unknown>"
    dims = shape.as_list()
    if len(dims) == 1:
        return f"({dims[0]},)"
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ")"


def is_symbolic(x):
    """True for a tensor of a graph being (or having been) traced."""
    return isinstance(x, SymbolicTensor)
