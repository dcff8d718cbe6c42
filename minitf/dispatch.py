"""The dispatch seam: tf.* ops hand composite arguments (RaggedTensor) to their own implementation,
and graph values (the symbolic tensors of a traced `tf.function`) to the graph being traced.

An op stays a plain function on its hot path. Only after its argument conversion has failed (a
TypeError or ValueError) does it ask `fallback` whether some argument's type defines
`__tf_dispatch__(api, args, kwargs)`; that answer replaces the op's result, and otherwise the
original error stands. Ops either wear the `add_dispatch_support` decorator, or (the hottest
ones, where even a wrapper frame would show) call `fallback` from an `except` around their own
conversion, which costs nothing while no exception is raised.

`elementwise` marks an op whose result has its first argument's structure ("unary": f(x, ...)
applied value by value; "binary": f(x, y) with broadcasting), so a composite type can serve every
such op with one rule instead of a table entry per op.
"""
import functools

from minitf.recording import thread_state

__all__ = ["add_dispatch_support", "fallback", "is_dispatchable", "elementwise_kind", "stateful_op",
           "returns_none", "returns_first_argument"]


def is_dispatchable(value):
    """True when `value`'s type takes over the tf.* ops it is passed to."""
    return hasattr(type(value), "__tf_dispatch__")


def _candidates(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, (list, tuple)):
            for item in a:  # x[i:j, k] passes its slices inside a tuple
                yield from (item.start, item.stop, item.step) if type(item) is slice else (item,)
        elif type(a) is slice:
            yield from (a.start, a.stop, a.step)
        else:
            yield a


def fallback(api, args, kwargs):
    """The composite argument's answer for `api(*args, **kwargs)`; call it inside an `except`.

    Re-raises the exception being handled when no argument dispatches (or none accepts).
    """
    seen = set()
    for a in _candidates(args, kwargs):
        handler = getattr(type(a), "__tf_dispatch__", None)
        if handler is None or type(a) in seen:
            continue
        seen.add(type(a))
        out = handler(api, args, kwargs)
        if out is not NotImplemented:
            return out
    raise  # noqa: PLE0704 (re-raises the conversion error of the op being handled)


def elementwise_kind(api):
    """'unary', 'binary' or None: how `api` maps values, as declared to `add_dispatch_support`."""
    return getattr(api, "_tf_elementwise", None)


def add_dispatch_support(fn=None, *, elementwise=None):
    """Decorate a tf.* op so composite arguments (a RaggedTensor) dispatch to their own rules.

    Usage: `@add_dispatch_support` or `@add_dispatch_support(elementwise="unary")`.
    """
    if fn is None:
        return functools.partial(add_dispatch_support, elementwise=elementwise)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError):
            return fallback(wrapper, args, kwargs)
        except AttributeError:
            # an op computing on the host asked a symbolic tensor for `.numpy()` (TF's
            # AttributeError): while tracing, the whole call becomes one node of the graph
            if thread_state.graph is None:
                raise
            return fallback(wrapper, args, kwargs)
    wrapper._tf_elementwise = elementwise
    return wrapper


def mark_elementwise(fn, kind):
    """Declare an undecorated op (one that calls `fallback` itself) elementwise; returns `fn`."""
    fn._tf_elementwise = kind
    return fn


def returns_none(*args, **kwargs):
    """What a stateful op whose result is None (an assertion, a print) gives while tracing."""
    return None


def returns_first_argument(x, *args, **kwargs):
    """What a checking op that passes its input through gives while tracing."""
    return x


def stateful_op(fn=None, *, abstract=None):
    """Decorate an op with an effect (a random draw, printing, a file write, an assertion).

    Eagerly it runs as `add_dispatch_support` makes it run. Inside a traced function it is
    always a node of the graph, run each time the graph runs, even when none of its arguments
    is a graph value (`tf.random.uniform([2])` draws anew on every call, as in TF). While
    tracing, `abstract(*args, **kwargs)` stands in for the op when given (a print prints
    nothing then); otherwise the op runs once on examples to learn its outputs.
    """
    if fn is None:
        return functools.partial(stateful_op, abstract=abstract)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        graph = thread_state.graph
        if graph is not None:
            return graph.call(wrapper, args, kwargs, stateful=True, abstract=abstract)
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError):
            return fallback(wrapper, args, kwargs)
    return wrapper
