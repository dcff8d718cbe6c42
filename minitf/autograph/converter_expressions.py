"""Expression-level rewrites, run after the statements are converted:

* conditional expressions: `a if t else b` -> `ag__.if_exp(t, lambda: a, lambda: b, 't')`;
* logical operators, lazily as Python evaluates them: `a and b` ->
  `ag__.and_(lambda: a, lambda: b)`, `a or b` -> `ag__.or_(...)`, `not a` -> `ag__.not_(a)`,
  chained comparisons `a < b < c` -> `ag__.and_(lambda: a < b, lambda: b < c)` (and, with the
  EQUALITY_OPERATORS feature, `==` / `!=` -> `ag__.eq` / `ag__.not_eq`);
* variable reads: each read of a name the user wrote becomes `ag__.ld(name)`, which raises
  TF's error for a name a staged branch or loop left undefined; `del x` becomes
  `x = ag__.Undefined('x')`, and `x += v` first reads `x = ag__.ld(x)`.
"""
import ast

from minitf.autograph.converter_ast import parse_expression, replace, replace_as_expression
from minitf.autograph.converter_base import Transformer

__all__ = ["transform_conditional_expressions", "transform_logical_expressions",
           "transform_variables"]


class _ConditionalExpressionTransformer(Transformer):

    def visit_IfExp(self, node):  # noqa: N802
        # the branches are not visited: a conditional nested in one stays as written, as in TF
        return replace_as_expression(
            "ag__.if_exp(test, lambda: true_expr, lambda: false_expr, expr_repr)",
            test=node.test, true_expr=node.body, false_expr=node.orelse,
            expr_repr=ast.Constant(value=ast.unparse(node.test).strip()))


def transform_conditional_expressions(node, ctx):
    """Rewrite the conditional expressions of `node` into `ag__.if_exp` calls."""
    return _ConditionalExpressionTransformer(ctx).visit(node)


_LOGICAL = {ast.And: "ag__.and_", ast.Not: "ag__.not_", ast.Or: "ag__.or_"}
_EQUALITY = {ast.Eq: "ag__.eq", ast.NotEq: "ag__.not_eq"}


class _LogicalExpressionTransformer(Transformer):

    def _overload(self, operator):
        kind = type(operator)
        if kind in _LOGICAL:
            return _LOGICAL[kind]
        if kind in _EQUALITY and self.ctx.options.uses("EQUALITY_OPERATORS"):
            return _EQUALITY[kind]
        return None

    @staticmethod
    def _lambda(expr):
        return replace_as_expression("lambda: expr", expr=expr)

    @staticmethod
    def _call(function, *args):
        return ast.Call(func=parse_expression(function), args=list(args), keywords=[])

    def _binary(self, op, left, right):
        overload = self._overload(op)
        if overload is None:
            return ast.Compare(left=left, ops=[op], comparators=[right])
        return self._call(overload, left, right)

    def visit_Compare(self, node):  # noqa: N802
        self.generic_visit(node)
        left, tree = node.left, None
        for op, right in zip(node.ops, node.comparators):
            comparison = self._binary(op, left, right)
            tree = comparison if tree is None else self._call(
                "ag__.and_", self._lambda(tree), self._lambda(comparison))
            left = right
        return tree

    def visit_UnaryOp(self, node):  # noqa: N802
        self.generic_visit(node)
        overload = self._overload(node.op)
        return node if overload is None else self._call(overload, node.operand)

    def visit_BoolOp(self, node):  # noqa: N802
        self.generic_visit(node)
        values = list(node.values)
        right = values.pop()
        function = self._overload(node.op)
        while values:
            right = self._call(function, self._lambda(values.pop()), self._lambda(right))
        return right


def transform_logical_expressions(node, ctx):
    """Rewrite `and`, `or`, `not` and chained comparisons of `node` into operator calls."""
    return _LogicalExpressionTransformer(ctx).visit(node)


class _VariableAccessTransformer(Transformer):

    def visit_Name(self, node):  # noqa: N802
        # only the reads the user wrote are wrapped, not the converter's own names
        if getattr(node, "ag_orig", False) and isinstance(node.ctx, ast.Load):
            return replace_as_expression("ag__.ld(var_)", var_=node)
        return node

    def visit_Delete(self, node):  # noqa: N802
        self.generic_visit(node)
        names = [t for t in node.targets if isinstance(t, ast.Name)]
        if not names:
            return node
        results = []
        for target in names:
            results += replace("var_ = ag__.Undefined(var_name)", var_=target,
                               var_name=ast.Constant(value=target.id))
        remaining = [t for t in node.targets if not isinstance(t, ast.Name)]
        if remaining:
            results.append(ast.Delete(targets=remaining))
        return results

    def visit_AugAssign(self, node):  # noqa: N802
        if isinstance(node.target, ast.Name):
            # as TF, the right-hand side is left as written
            return replace("""
                var_ = ag__.ld(var_)
                original
            """, var_=node.target, original=node)
        return self.generic_visit(node)


def transform_variables(node, ctx):
    """Wrap the user's variable reads of `node` in `ag__.ld`."""
    return _VariableAccessTransformer(ctx).visit(node)
