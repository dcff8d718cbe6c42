"""tf.custom_gradient: a function that supplies its own gradient rule."""
import functools
import inspect

from minitf import recording, tape as _tape
from minitf.nest import nest
from minitf.convert import convert_to_tensor
from minitf.tensor import Tensor
from minitf.api_export import export

__all__ = ["custom_gradient"]

# Batched cotangents would reach the user's rule, which expects the forward shapes.
_CUSTOM_GRADIENT = recording.Op("CustomGradient")


def _accepts_variables(fn):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    return "variables" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


@export("custom_gradient")
def custom_gradient(f=None):
    """Decorator for `f(*x) -> (y, grad_fn)`, where `grad_fn(*upstream)` returns the input gradients.

    If `f` reads trainable variables, `grad_fn` must accept `variables=` and return
    `(input_grads, variable_grads)`. The forward ops inside `f` are not recorded; only the
    custom rule is. `grad_fn` written with minitf ops is itself differentiable. Inside a traced
    `tf.function` the call is one node of the graph, which runs `f` each time the graph runs.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        if recording.tracing[0] and recording.thread_state.graph is not None:
            # traced: one node running f and recording its rule each time the graph runs
            return recording.thread_state.graph.call(wrapped, args, kwargs, op_type="CustomGradient",
                                               name=getattr(f, "__name__", "custom_gradient"))
        tensor_args = [convert_to_tensor(a) if not isinstance(a, Tensor) else a for a in args]
        outer = recording.thread_state.active
        # Run f with the outer tapes paused; a private tape notes the variables f reads.
        probe = _tape.GradientTape(watch_accessed_variables=True)
        recording.thread_state.active = [probe]
        probe._recording = True
        try:
            result, grad_fn = f(*tensor_args, **kwargs)
        finally:
            recording.thread_state.active = outer
        variables = [v for v in probe.watched_variables() if v.trainable]
        if variables and not _accepts_variables(grad_fn):
            raise TypeError("If using @custom_gradient with a function that uses variables, then "
                            "grad_fn must accept a keyword argument 'variables'.")
        flat_out = nest.flatten(result)
        outputs = tuple(Tensor(convert_to_tensor(o)._value) for o in flat_out)
        if outer:
            for t in outer:
                if t._watch_accessed_variables:
                    for v in variables:
                        t._watch_variable(v)
            n_args = len(tensor_args)

            def grad(*upstream):
                if variables:
                    input_grads, var_grads = grad_fn(*upstream, variables=variables)
                else:
                    input_grads, var_grads = grad_fn(*upstream), []
                input_grads = list(input_grads) if isinstance(input_grads, (list, tuple)) else [input_grads]
                if len(input_grads) != n_args:
                    raise ValueError(f"custom_gradient function {f.__name__} returned {len(input_grads)} "
                                     f"input gradients for {n_args} inputs.")
                return tuple(input_grads) + tuple(var_grads)
            recording.record(_CUSTOM_GRADIENT, tuple(tensor_args) + tuple(variables), outputs, grad)
        return nest.pack_sequence_as(result, list(outputs))

    return wrapped
