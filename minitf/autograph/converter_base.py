"""What every AutoGraph converter pass shares: the conversion context and a transformer base
with block visiting (a pass may move the statements that follow one into a new block).
"""
import ast

__all__ = ["Context", "Transformer"]


class Context:
    """One function's conversion: its namer, options, namespace (globals and closure values)
    and the name the converted function gets.

    Attributes:
      namer: the `converter_ast.Namer` that invents fresh symbols for this conversion.
      options: the `ConversionOptions` the converted code is generated for.
      namespace: dict of the names the function sees (globals, then closure values).
      name: the converted function's name (`tf__f`).
    """

    def __init__(self, namer, options, namespace, name):
        self.namer = namer
        self.options = options
        self.namespace = namespace
        self.name = name


class Transformer(ast.NodeTransformer):
    """A converter pass: an `ast.NodeTransformer` with a context and `visit_block`."""

    def __init__(self, ctx):
        self.ctx = ctx

    def visit(self, node):
        """Visit a node; an expression statement whose value became statements is replaced by them."""
        if isinstance(node, ast.Expr):
            value = node.value
            result = super().visit(node)
            # a replaced expression that became statements needs no Expr around them
            if isinstance(result, ast.Expr) and result.value is not value and isinstance(
                    result.value, (list, tuple, ast.Assign, ast.AugAssign)):
                return result.value
            return result
        return super().visit(node)

    def visit_block(self, nodes, after_visit=None):
        """Visit a list of statements. `after_visit(node)` may return `(node, destination)`:
        a non-None destination (a list) receives every later statement of the block."""
        results = []
        destination = results
        for node in nodes:
            replacement = self.visit(node)
            new_destination = None
            if after_visit is not None and replacement:
                replacement, new_destination = after_visit(replacement)
            if replacement:
                if isinstance(replacement, (list, tuple)):
                    destination.extend(replacement)
                else:
                    destination.append(replacement)
            if new_destination is not None:
                destination = new_destination
        return results


class StateStack:
    """A stack of per-construct records (the function, loop or block being visited)."""

    def __init__(self, factory):
        self.factory = factory
        self.stack = []

    def __enter__(self):
        self.stack.append(self.factory())
        return self.stack[-1]

    def __exit__(self, *exc):
        self.stack.pop()

    @property
    def top(self):
        """The innermost record."""
        return self.stack[-1]

    @property
    def level(self):
        """How many records are open."""
        return len(self.stack)
