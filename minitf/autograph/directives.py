"""AutoGraph directives: calls that configure how the converter stages the code around them.
They are removed from converted code (`converter_calls`), so calling one directly does nothing.
"""
from minitf.api_export import export

__all__ = ["UNSPECIFIED", "set_loop_options"]

UNSPECIFIED = object()


@export("autograph.experimental.set_loop_options")
def set_loop_options(parallel_iterations=UNSPECIFIED, swap_memory=UNSPECIFIED,
                     maximum_iterations=UNSPECIFIED, shape_invariants=UNSPECIFIED):
    """Options for the `tf.while_loop` the enclosing loop becomes when AutoGraph stages it.

    Call it as the first statement of a `for` or `while` body inside a converted function:

        for i in tf.range(10):
            tf.autograph.experimental.set_loop_options(maximum_iterations=3)
            n += 1

    `shape_invariants` is a list of `(tensor, shape)` pairs naming loop variables whose shape
    may change across iterations. The options apply only when the loop runs as a TF loop (its
    condition or iterable is a tensor); a Python loop ignores them, and so does a direct call.
    """
    del parallel_iterations, swap_memory, maximum_iterations, shape_invariants
