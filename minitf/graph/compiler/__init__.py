"""Compiled plans of traced graphs: each ConcreteFunction's graph, per input signature, becomes
one generated Python function of numpy calls (see `minitf.graph.compiler.plan`)."""
