"""`tf.autograph`: AutoGraph, the source transformation `tf.function` applies to Python code.

AutoGraph rewrites a function's `if`, `while`, `for`, `break`, `continue`, `return`, `and`,
`or`, `not` and conditional expressions into calls that run them as Python when their
condition or iterable is a Python value, and stage `tf.cond` / `tf.while_loop` when it is a
tensor (see `minitf.autograph.api.convert`, and `converter` for the passes).

    tf.autograph.to_code(f)        the generated source, as TF 2.21 prints it
    tf.autograph.to_graph(f)       the converted function
    tf.autograph.experimental.do_not_convert
"""
from minitf.autograph import experimental  # noqa: F401
from minitf.autograph.ag_logging import set_verbosity, trace
from minitf.autograph.api import to_code, to_graph

__all__ = ["experimental", "set_verbosity", "to_code", "to_graph", "trace"]
