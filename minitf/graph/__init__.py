"""Graphs for `tf.function`: tracing a Python function into a FuncGraph of op calls, running it,
the concrete functions that hold one trace each, and graph versions of the control-flow ops."""
