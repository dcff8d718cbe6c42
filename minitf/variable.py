"""Variable: a mutable, named value that tapes watch automatically when it is read."""
import enum
import functools
import sys
import threading

import numpy as np

from minitf import backend, kernels, recording as _recording
from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.convert import convert_to_tensor
from minitf.recording import tracing as _tracing
from minitf.indexed_slices import IndexedSlices
from minitf.tensor import Tensor, TensorLike, next_id
from minitf.tensor_shape import TensorShape
from minitf.api_export import export

__all__ = ["Variable", "VariableSynchronization", "VariableAggregation", "name_scope"]


@export("VariableSynchronization")
class VariableSynchronization(enum.Enum):
    """Accepted for API compatibility; minitf runs on one replica."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


@export("VariableAggregation")
class VariableAggregation(enum.Enum):
    """Accepted for API compatibility; minitf runs on one replica."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class _Scopes(threading.local):
    def __init__(self):
        self.stack = []


scopes = _Scopes()


@export("name_scope")
class name_scope:  # noqa: N801 (TF's name)
    """Context manager that prefixes the names of variables created inside it ('outer/inner/')."""

    def __init__(self, name):
        self._name = name.rstrip("/") if name else ""

    @property
    def name(self):
        """The scope's own name."""
        return self._name

    def __enter__(self):
        scopes.stack.append(self._name)
        return "/".join(s for s in scopes.stack if s) + "/"

    def __exit__(self, *exc):
        scopes.stack.pop()
        return False


def current_scope_prefix():
    """The active name-scope path ('a/b/'), or '' outside any scope."""
    parts = [s for s in scopes.stack if s]
    return "/".join(parts) + "/" if parts else ""


def name_scope_stack():
    """A copy of this thread's name-scope stack (for threads that continue the caller's scope)."""
    return list(scopes.stack)


def set_name_scope_stack(stack):
    """Make `stack` (from `name_scope_stack`) this thread's name-scope stack."""
    scopes.stack = list(stack)


class _Holder:
    """Calibrates `_UNSHARED_REFS` below: an object holding an array exactly as a Variable does."""

    def __init__(self):
        self._value = np.zeros(1)

    def refs(self):
        return sys.getrefcount(self._value)


# References to a variable's buffer when nobody but the variable holds it, counted the way
# `Variable._buffer_for_update` counts (measured, so it holds on any CPython version).
_UNSHARED_REFS = _Holder().refs()


def _recorded_in_graph(method):
    """A writing method that, inside a traced `tf.function`, becomes a stateful node of the
    graph: the write happens each time the graph runs, never while tracing."""
    name = method.__name__

    @functools.wraps(method)
    def write(self, *args, **kwargs):
        if _tracing[0] and _recording.thread_state.graph is not None:
            return _recording.thread_state.graph.write_variable(self, name, args, kwargs)
        return method(self, *args, **kwargs)
    return write


def _named(exc, arg=None):
    """A conversion error of tf.Variable's arguments, re-made to name tf.Variable."""
    if type(exc) not in (TypeError, ValueError):
        return exc
    return type(exc)(f"tf.Variable: {'argument `' + arg + '`: ' if arg else ''}{exc}")


def _check_settings(name, constraint, synchronization, aggregation):
    """TF's ValueErrors for tf.Variable's name, constraint and distribution settings."""
    if name is not None and not isinstance(name, str):
        raise ValueError(f"tf.Variable: `name` must be a string (it names a name scope), not {name!r}")
    if constraint is not None and not callable(constraint):
        raise ValueError(f"tf.Variable: argument `constraint` must be None or a callable, got {constraint!r}")
    for enum_type, value in ((VariableSynchronization, synchronization), (VariableAggregation, aggregation)):
        try:
            enum_type(value)
        except ValueError:
            raise ValueError(f"tf.Variable: invalid variable {enum_type.__name__[8:].lower()} mode "
                             f"{value!r}; use a tf.{enum_type.__name__}") from None


class _CountedWrites:
    """`Variable._value`: read straight from the instance dict (no `__get__`, so a read costs
    what a plain attribute does), and every assignment adds one to `Variable._version`.
    In-place writers ask `_buffer_for_update` first, which counts too. Compiled plans keep
    values computed from variables alone while the variables' versions stay the same."""

    def __set__(self, variable, value):
        state = variable.__dict__
        state["_value"] = value
        state["_version"] = state.get("_version", 0) + 1


@export("Variable")
class Variable(TensorLike):
    """State that persists across steps: a mutable value that works wherever a tensor does.

    Model weights, optimizer slots and counters are variables. Passing one to an op reads its
    current value; while a `GradientTape` records, reading a trainable variable makes the tape
    watch it. `assign`, `assign_add` and `assign_sub` check the shape and dtype and give the
    variable a new value; the `scatter_*` methods and optimizers update it in place. Either way,
    tensors read earlier keep the value they had. Variables are unhashable (`==` compares
    elementwise): key dicts by `v.ref()`.

    Args:
      initial_value: the first value: a Tensor, a numpy array, Python data, or a callable
        returning one (called once, here). Required.
      trainable: whether tapes watch it automatically and `Model.trainable_variables` lists
        it. Defaults to True (False with `synchronization=ON_READ`).
      validate_shape: True (the default) refuses later assignments of another shape. False,
        or a `shape` with None dimensions, allows shapes compatible with `shape`.
      name: the name, to which TF's ':0' suffix and any enclosing `tf.name_scope` are added.
      dtype: converts `initial_value` to this dtype (a tensor of another dtype is an error;
        cast it first).
      constraint: a function applied to the value after each optimizer update (a projection
        such as a max-norm), or None.
      synchronization, aggregation: TF's distribution settings, recorded and returned.
      shape: the declared shape, which may hold None dimensions (see `validate_shape`).
      caching_device, variable_def, import_scope: accepted for TF compatibility; unused.

    Raises:
      ValueError: when `initial_value` is missing, when its shape does not fit `shape`, or
        when `trainable=True` is combined with `synchronization=ON_READ`.
    """

    # Hooks run on every new variable (checkpoint restoration that waits for creation).
    _creation_hooks = []
    _value = _CountedWrites()  # the current array; each write counts a new `_version`

    def __init__(self, initial_value=None, trainable=None, validate_shape=True, caching_device=None,
                 name=None, variable_def=None, dtype=None, import_scope=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE, shape=None, **kwargs):
        if initial_value is None:
            raise ValueError("The initial_value must be specified when creating a tf.Variable.")
        graph = _recording.thread_state.graph
        if graph is not None:
            # made inside a traced function: created once, eagerly, as TF lifts it out of the graph
            initial_value = graph.lift_initial_value(initial_value)
        elif callable(initial_value):
            initial_value = initial_value()
        if isinstance(initial_value, Variable):
            initial_value = initial_value._value
        try:
            value = convert_to_tensor(initial_value, dtype=dtype)._value
        except (TypeError, ValueError) as e:
            raise _named(e) from None
        _check_settings(name, constraint, synchronization, aggregation)
        xp = backend.array_module(value)
        self._value = xp.array(value, copy=True)
        self._id = next_id()
        self._trainable = True if trainable is None else bool(trainable)
        if synchronization == VariableSynchronization.ON_READ and trainable:
            raise ValueError("Synchronization value ON_READ cannot be combined with trainable=True.")
        if synchronization == VariableSynchronization.ON_READ and trainable is None:
            self._trainable = False
        base = name if name else "Variable"
        self._name = current_scope_prefix() + base.split(":")[0] + ":0"
        try:
            self._shape = TensorShape(shape) if shape is not None else TensorShape(self._value.shape)
        except (TypeError, ValueError) as e:
            raise _named(e, "shape") from None
        if shape is not None and not self._shape.is_compatible_with(self._value.shape):
            raise ValueError(f"Variable {self._name}: initial value shape {tuple(self._value.shape)} "
                             f"is incompatible with the declared shape {self._shape}.")
        self._validate_shape = validate_shape and self._shape.is_fully_defined()
        self._constraint = constraint
        self._synchronization = synchronization
        self._aggregation = aggregation
        for hook in list(Variable._creation_hooks):
            hook(self)
        if graph is not None:
            graph.note_created_variable(self)

    @staticmethod
    def __tf_dispatch__(api, args, kwargs):
        """Inside a traced function, an op given a variable records itself in the graph (the
        variable is read when the graph runs); eagerly, ops read variables themselves."""
        graph = _recording.thread_state.graph
        if graph is None:
            return NotImplemented
        return graph.call(api, args, kwargs)

    # -- identity and metadata -----------------------------------------------------------
    @property
    def name(self):
        """The variable's name, with TF's ':0' suffix."""
        return self._name

    @property
    def trainable(self):
        """Whether optimizers and tapes treat this variable as trainable."""
        return self._trainable

    @property
    def dtype(self):
        """The element type."""
        return dtypes.as_dtype(self._value.dtype)

    @property
    def shape(self):
        """The variable's shape (dimensions declared None stay None)."""
        return self._shape if not self._validate_shape else TensorShape(self._value.shape)

    def get_shape(self):
        """Alias of `shape`."""
        return self.shape

    @property
    def ndim(self):
        """Number of dimensions."""
        return self._value.ndim

    @property
    def device(self):
        """TF's device string for where the value lives."""
        return backend.device_name(self._value)

    @property
    def constraint(self):
        """The projection applied by optimizers after each update, or None."""
        return self._constraint

    @property
    def synchronization(self):
        """The synchronization mode given at creation."""
        return self._synchronization

    @property
    def aggregation(self):
        """The aggregation mode given at creation."""
        return self._aggregation

    @property
    def handle(self):
        """This variable (minitf has no separate resource handles)."""
        return self

    def __hash__(self):
        raise TypeError("Variable is unhashable. Instead, use variable.ref() as the key. "
                        f"(Variable: {self!r})")

    # -- reading -------------------------------------------------------------------------
    def value(self):
        """The current value as a Tensor.

        While a tape records, the read is recorded, and a trainable variable becomes watched by
        tapes created with `watch_accessed_variables=True`. The tensor keeps this value when
        the variable is assigned later.
        """
        if _recording.thread_state.active or (_tracing[0] and _recording.thread_state.graph is not None):
            return _recording.read_variable(self)
        return Tensor(self._value)

    read_value = value

    def __tf_tensor__(self, dtype=None, name=None):
        """The current value as a tensor: how `tf.convert_to_tensor` reads a variable."""
        return self.value()

    def numpy(self):
        """A host numpy copy of the current value."""
        value = np.array(backend.to_host(self._value), copy=True)
        return value[()] if value.ndim == 0 else value

    # -- writing -------------------------------------------------------------------------
    def _new_value(self, value, op):
        if isinstance(value, Variable):
            value = value._value
        try:
            new = convert_to_tensor(value, dtype=self.dtype)._value
        except (TypeError, ValueError) as e:  # TF's class: TypeError for Python values of another kind
            raise (TypeError if type(e) is TypeError else ValueError)(
                f"{op}: cannot write a value of a different dtype into variable "
                f"{self._name} of dtype {self.dtype.name}: {e}") from None
        if self._validate_shape and tuple(new.shape) != tuple(self._value.shape):
            message = (f"{op}: cannot assign a value of shape {tuple(new.shape)} to variable "
                       f"{self._name} of shape {tuple(self._value.shape)}; the shapes must match.")
            if op == "assign":
                raise ValueError(message)
            raise errors.invalid_argument("AssignAddVariableOp" if op == "assign_add" else "AssignSubVariableOp",
                                          message)
        if not self._validate_shape and not self._shape.is_compatible_with(new.shape):
            raise ValueError(f"{op}: value shape {tuple(new.shape)} is incompatible with variable "
                             f"{self._name} of shape {self._shape}.")
        return new

    def _set(self, new):
        xp = backend.array_module(self._value)
        if backend.array_module(new) is not xp:
            new = xp.asarray(backend.to_host(new))
        self._value = new

    def _buffer_for_update(self):
        """The value's array, safe to overwrite in place; every in-place write goes through here.

        Reads (`value()`, `tf.identity`, tape records, views, `numpy.asarray`) share the
        variable's array without copying. If anything besides the variable still holds that
        array, it is first replaced by a copy, so the earlier read keeps its value (copy on
        write); otherwise, the common case in a training step, the array is returned as is.
        Callers must ask right before writing and not hold `self._value` themselves.
        """
        if sys.getrefcount(self._value) > _UNSHARED_REFS:
            self._value = self._value.copy()
        else:
            self._version += 1
        return self._value

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Replace the value with `value`.

        Args:
          value: a Tensor, Variable, numpy array or Python data of the variable's shape,
            converted to the variable's dtype (no implicit float -> int casts).
          use_locking, name: accepted for TF compatibility.
          read_value: True returns the variable, False returns None.

        Returns:
          The variable (so `v.assign(x).numpy()` works), or None when `read_value=False`.

        Raises:
          ValueError: when the shape does not match (with `validate_shape`) or the value
            cannot be converted to the variable's dtype.
        """
        if _tracing[0] and _recording.thread_state.graph is not None:  # traced: a node of the graph
            return _recording.thread_state.graph.write_variable(
                self, "assign", (value,), {"read_value": read_value})
        self._write("assign", self._new_value(value, "assign"))
        return self if read_value else None

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Add `delta` (of the variable's shape and dtype) to the value.

        Returns:
          The variable, or None when `read_value=False`.

        Raises:
          ValueError: for a shape or dtype mismatch, as in `assign`.
        """
        if _tracing[0] and _recording.thread_state.graph is not None:  # traced: a node of the graph
            return _recording.thread_state.graph.write_variable(
                self, "assign_add", (delta,), {"read_value": read_value})
        self._write("assign_add", self._new_value(delta, "assign_add"))
        return self if read_value else None

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtract `delta` (of the variable's shape and dtype) from the value.

        Returns:
          The variable, or None when `read_value=False`.

        Raises:
          ValueError: for a shape or dtype mismatch, as in `assign`.
        """
        if _tracing[0] and _recording.thread_state.graph is not None:  # traced: a node of the graph
            return _recording.thread_state.graph.write_variable(
                self, "assign_sub", (delta,), {"read_value": read_value})
        self._write("assign_sub", self._new_value(delta, "assign_sub"))
        return self if read_value else None

    # set by a strategy with several replicas in one process on the variables of its scope: it
    # takes a replica's write (returning True) to combine the replicas' writes as TF's aggregation says
    _replica_writes = None

    def _write(self, op, new):
        if self._replica_writes is not None and self._replica_writes(self, op, new):
            return
        self._apply_write(op, new)

    def _apply_write(self, op, new):
        """Write the converted value `new` as `op` ('assign', 'assign_add' or 'assign_sub') says."""
        if op == "assign":
            xp = backend.array_module(self._value)
            moved = backend.coerce_to_module(new, xp)
            self._set(moved if moved is not new else xp.array(new, copy=True))
        elif op == "assign_add":
            self._set(self._value + new)
        else:
            self._set(self._value - new)

    # -- sparse updates ------------------------------------------------------------------
    def _scatter(self, op, indices, updates, how):
        """Write `updates` at `indices` (raw integer arrays/tuples) in place with ufunc `how`."""
        try:
            values = convert_to_tensor(updates, dtype=self.dtype)._value
        except (TypeError, ValueError) as e:
            raise ValueError(f"{op}: updates must have the variable's dtype "
                             f"{self.dtype.name}: {e}") from None
        buf = self._buffer_for_update()
        xp = backend.array_module(buf)
        if backend.array_module(values) is not xp:
            values = xp.asarray(backend.to_host(values))
        if how is None:
            buf[indices] = values
        else:
            kernels.for_module(xp).scatter_at(buf, indices, values, how)
        return self

    def _sparse_delta(self, op, sparse_delta):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError("Argument `sparse_delta` must be a `tf.IndexedSlices`. "
                            f"Received arg: {sparse_delta!r}")
        indices = np.asarray(backend.to_host(convert_to_tensor(sparse_delta.indices)._value))
        if indices.dtype.kind not in "iu":
            raise TypeError(f"{op}: indices must be integers, got dtype {indices.dtype}.")
        dim = self._value.shape[0] if self._value.ndim else 0
        bad = (indices < 0) | (indices >= dim)
        if bad.any():
            pos = int(np.argmax(bad.reshape(-1)))
            raise errors.invalid_argument(
                op, f"indices[{pos}] = {int(indices.reshape(-1)[pos])} is not in [0, {dim}); "
                f"every index must name a row of variable {self._name} of shape "
                f"{tuple(self._value.shape)}.")
        values = convert_to_tensor(sparse_delta.values)
        want = indices.shape + tuple(self._value.shape[1:])
        if tuple(values.shape) != want:
            raise errors.invalid_argument(
                op, f"updates of shape {tuple(values.shape)} do not match indices of shape "
                f"{indices.shape} into variable {self._name} of shape "
                f"{tuple(self._value.shape)}; updates must have shape {want}.")
        xp = backend.array_module(self._value)
        return xp.asarray(indices) if xp is not np else indices, values

    def _nd_indices(self, op, indices, updates):
        idx = np.asarray(backend.to_host(convert_to_tensor(indices)._value))
        shape = tuple(self._value.shape)
        if idx.dtype.kind not in "iu" or idx.ndim == 0 or idx.shape[-1] > len(shape):
            raise errors.invalid_argument(
                op, f"indices of shape {idx.shape} (dtype {idx.dtype}) cannot index variable "
                f"{self._name} of shape {shape}: they must be integers whose last dimension is "
                f"at most the variable's rank {len(shape)}.")
        k = idx.shape[-1]
        flat = idx.reshape(-1, k)
        bad = ((flat < 0) | (flat >= np.array(shape[:k], dtype=np.int64))).any(axis=1)
        if bad.any():
            pos = int(np.argmax(bad))
            raise errors.invalid_argument(
                op, f"indices[{pos}] = {list(map(int, flat[pos]))} does not index into shape "
                f"{list(shape)}.")
        values = convert_to_tensor(updates)
        want = idx.shape[:-1] + shape[k:]
        if tuple(values.shape) != want:
            raise errors.invalid_argument(
                op, f"updates of shape {tuple(values.shape)} do not match indices of shape "
                f"{idx.shape} into variable {self._name} of shape {shape}; updates must have "
                f"shape {want}.")
        xp = backend.array_module(self._value)
        if xp is not np:
            idx = xp.asarray(idx)
        return tuple(idx[..., i] for i in range(k)), values

    @_recorded_in_graph
    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """Add the rows of an IndexedSlices to the variable (repeated rows add up)."""
        idx, values = self._sparse_delta("ResourceScatterAdd", sparse_delta)
        return self._scatter("ResourceScatterAdd", idx, values, "add")

    @_recorded_in_graph
    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        """Subtract the rows of an IndexedSlices from the variable."""
        idx, values = self._sparse_delta("ResourceScatterSub", sparse_delta)
        return self._scatter("ResourceScatterSub", idx, values, "subtract")

    @_recorded_in_graph
    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        """Multiply rows of the variable by the rows of an IndexedSlices."""
        idx, values = self._sparse_delta("ResourceScatterMul", sparse_delta)
        return self._scatter("ResourceScatterMul", idx, values, "multiply")

    @_recorded_in_graph
    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        """Divide rows of the variable by the rows of an IndexedSlices."""
        idx, values = self._sparse_delta("ResourceScatterDiv", sparse_delta)
        return self._scatter("ResourceScatterDiv", idx, values, "divide")

    @_recorded_in_graph
    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        """Elementwise maximum of rows of the variable and the rows of an IndexedSlices."""
        idx, values = self._sparse_delta("ResourceScatterMax", sparse_delta)
        return self._scatter("ResourceScatterMax", idx, values, "maximum")

    @_recorded_in_graph
    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        """Elementwise minimum of rows of the variable and the rows of an IndexedSlices."""
        idx, values = self._sparse_delta("ResourceScatterMin", sparse_delta)
        return self._scatter("ResourceScatterMin", idx, values, "minimum")

    @_recorded_in_graph
    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Overwrite rows of the variable with the rows of an IndexedSlices."""
        idx, values = self._sparse_delta("ResourceScatterUpdate", sparse_delta)
        return self._scatter("ResourceScatterUpdate", idx, values, None)

    @_recorded_in_graph
    def scatter_nd_add(self, indices, updates, name=None):
        """Add `updates` at the index tuples in the last dimension of `indices`."""
        idx, values = self._nd_indices("ResourceScatterNdAdd", indices, updates)
        return self._scatter("ResourceScatterNdAdd", idx, values, "add")

    @_recorded_in_graph
    def scatter_nd_sub(self, indices, updates, name=None):
        """Subtract `updates` at the index tuples in the last dimension of `indices`."""
        idx, values = self._nd_indices("ResourceScatterNdSub", indices, updates)
        return self._scatter("ResourceScatterNdSub", idx, values, "subtract")

    @_recorded_in_graph
    def scatter_nd_max(self, indices, updates, name=None):
        """Elementwise maximum with `updates` at the index tuples of `indices`."""
        idx, values = self._nd_indices("ResourceScatterNdMax", indices, updates)
        return self._scatter("ResourceScatterNdMax", idx, values, "maximum")

    @_recorded_in_graph
    def scatter_nd_min(self, indices, updates, name=None):
        """Elementwise minimum with `updates` at the index tuples of `indices`."""
        idx, values = self._nd_indices("ResourceScatterNdMin", indices, updates)
        return self._scatter("ResourceScatterNdMin", idx, values, "minimum")

    @_recorded_in_graph
    def scatter_nd_update(self, indices, updates, name=None):
        """Overwrite the elements or slices at the index tuples of `indices` with `updates`."""
        idx, values = self._nd_indices("ResourceScatterNdUpdate", indices, updates)
        return self._scatter("ResourceScatterNdUpdate", idx, values, None)

    # -- presentation --------------------------------------------------------------------
    def __repr__(self):
        value = self.numpy()
        text = repr(value) if isinstance(value, np.ndarray) else str(value)
        return (f"<tf.Variable '{self._name}' shape={self.shape} dtype={self.dtype.name}, "
                f"numpy={text}>")

    def __iter__(self):
        return iter(self.value())

    def __deepcopy__(self, memo):
        return Variable(self._value, trainable=self._trainable, name=self._name.split(":")[0])
