"""Python functions as ops: tf.py_function (tensors in, differentiable) and tf.numpy_function
(numpy arrays in, not differentiable), with TF's eager semantics."""
import functools

import numpy as np

from minitf.dtypes import dtypes
from minitf.errors import errors
from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.ops._core import Tensor, Variable, thread_state
from minitf.tensor_spec import TensorSpec
from minitf.api_export import export

__all__ = ["py_function", "numpy_function"]


def _decorator_or_none(script_op, op_name, func, inp, Tout, **kwargs):
    """TF's argument checks; with func=None, the decorator form `@tf.py_function(Tout=...)`."""
    if Tout is None:
        raise TypeError("Missing required argument: 'Tout'\n"
                        f"  If using {op_name} as a decorator, set `Tout`\n"
                        "  **by name** above the function:\n"
                        f"  `@{op_name}(Tout=tout)`")
    if func is None:
        if inp is not None:
            raise TypeError(f"Don't set the `inp` argument when using {op_name} as a decorator "
                            "(`func=None`).")

        def decorator(fun):
            @functools.wraps(fun)
            def wrapper(*args):
                return script_op(fun, inp=args, Tout=Tout, **kwargs)
            return wrapper
        return decorator
    if inp is None:
        raise TypeError("Missing argument `inp`:\n"
                        "  You must set the `inp` argument (the list of arguments to the\n"
                        f"  function), unless you use `{op_name}` as a decorator(`func=None`).")
    return None


def _out_dtype(t):
    """A dtype from a Tout entry (a dtype, its name, or a TensorSpec-like with .dtype)."""
    if hasattr(t, "dtype") and not isinstance(t, (dtypes.DType, str, type, np.dtype)):
        t = t.dtype
    return dtypes.as_dtype(t)


def _op_error(exc, func):
    """The TF error an exception raised inside a py_function becomes (as TF's EagerPyFunc kernel
    maps Python exception types to status codes)."""
    if isinstance(exc, errors.OpError):
        return exc
    if isinstance(exc, (ValueError, TypeError)):
        cls = errors.InvalidArgumentError
    elif isinstance(exc, StopIteration):
        cls = errors.OutOfRangeError
    elif isinstance(exc, MemoryError):
        cls = errors.ResourceExhaustedError
    elif isinstance(exc, NotImplementedError):
        cls = errors.UnimplementedError
    else:
        cls = errors.UnknownError
    fname = getattr(func, "__name__", repr(func))
    return cls(None, None, f"{type(exc).__name__}: {exc} (raised by {fname} inside tf.py_function) "
                           "[Op:EagerPyFunc]")


def _convert_output(value, dtype, func):
    if isinstance(value, Variable):
        raise RuntimeError("Attempting to return a variable from an eagerly executed py_func. Only "
                           "numeric data structures like Tensors or NumPy arrays should be returned; "
                           "to return the value of a variable, make sure to obtain the Tensor backing "
                           f"it by calling `.read_value()` on the variable in question: {value}")
    return convert_to_tensor(value, dtype=dtype)


def _unknown_outputs(func, inp, Tout, **kwargs):
    """While tracing: outputs of the `Tout` dtypes and unknown shapes (TF cannot know them)."""
    if isinstance(Tout, (list, tuple)):
        return [TensorSpec(None, _out_dtype(t)) for t in Tout]
    return TensorSpec(None, _out_dtype(Tout))


@export("py_function")
def py_function(func=None, inp=None, Tout=None, name=None):
    """Run the Python function `func` on tensors as an op; gradients flow through it.

    Eagerly, `func` is simply called with `inp` converted to tensors, so any minitf ops it uses
    are recorded on an active GradientTape as usual.

    Args:
      func: a Python callable taking len(inp) tensors. With func=None (and `Tout` by name) this
        returns a decorator.
      inp: the arguments (a list of tensors or values convertible to tensors).
      Tout: a dtype (the result is one tensor) or a list/tuple of dtypes (a list of tensors);
        [] when `func` returns None.
      name: ignored (TF's op name).

    Returns:
      `func`'s results converted to the `Tout` dtypes.

    Raises:
      TypeError: `Tout` or `inp` missing.
      InvalidArgumentError: `func` returned fewer values than `Tout` names, a tensor of another
        dtype, or raised ValueError/TypeError (other exceptions become UnknownError,
        StopIteration OutOfRangeError, as in TF).
    """
    decorator = _decorator_or_none(py_function, "tf.py_function", func, inp, Tout, name=name)
    if decorator is not None:
        return decorator
    if thread_state.graph is not None:  # traced: a node that calls `func` each time the graph runs
        return thread_state.graph.call(py_function, (func, list(inp), Tout), {}, stateful=True,
                                 abstract=_unknown_outputs, op_type="EagerPyFunc")
    single = not isinstance(Tout, (list, tuple))
    out_dtypes = [_out_dtype(t) for t in ([Tout] if single else Tout)]
    args = [convert_to_tensor(x) for x in inp]  # TF iterates `inp` (a tensor by its rows)
    fname = getattr(func, "__name__", repr(func))
    try:
        ret = func(*args)
        if ret is None:
            outputs = []
        elif isinstance(ret, (tuple, list)):
            outputs = [_convert_output(x, d, func) for x, d in zip(ret, out_dtypes)]
        else:
            outputs = [_convert_output(ret, out_dtypes[0], func)]
    except Exception as exc:
        raise _op_error(exc, func) from exc
    if len(outputs) < len(out_dtypes):
        raise errors.InvalidArgumentError(
            None, None, f"{fname} returns {len(outputs)} values, but expects to see "
                        f"{len(out_dtypes)} values (Tout={Tout!r}) [Op:EagerPyFunc]")
    return outputs[0] if single else outputs


@export("numpy_function")
def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Run the Python function `func` on numpy arrays; its results become tensors.

    Eagerly (as in TF), `func` gets each input as a numpy array and its results are converted
    with tf.convert_to_tensor as they are: `Tout` is not checked, and exceptions from `func`
    propagate unchanged. The results are not connected to the inputs, so a GradientTape gives
    None for them.

    Args:
      func: a Python callable taking len(inp) numpy arrays. With func=None (and `Tout` by name)
        this returns a decorator.
      inp: the arguments (tensors or values convertible to numpy arrays).
      Tout: the result dtype or list of dtypes (required, as in TF).
      stateful: ignored eagerly (whether TF may merge or skip calls in a graph).
      name: ignored (TF's op name).

    Returns:
      One tensor when `func` returns one value, else a list (None entries stay None).
    """
    decorator = _decorator_or_none(numpy_function, "tf.numpy_function", func, inp, Tout,
                                   stateful=stateful, name=name)
    if decorator is not None:
        return decorator
    if thread_state.graph is not None:
        return thread_state.graph.call(numpy_function, (func, list(inp), Tout), {"stateful": stateful},
                                 stateful=True, abstract=_unknown_outputs, op_type="PyFunc")
    arrays = [np.array(x.numpy() if isinstance(x, (Tensor, Variable)) else x) for x in inp]
    result = nest.flatten(func(*arrays))
    result = [x if x is None else convert_to_tensor(x) for x in result]
    if len(result) == 1:
        return result[0]
    return result
