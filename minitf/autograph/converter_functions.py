"""Function boilerplate: each converted function body runs inside `ag__.FunctionScope`.

    def f(x):                 def f(x):
        body          ->          with ag__.FunctionScope('f', 'fscope', <options>) as fscope:
                                      body

The scope object (`fscope`) carries the conversion options that calls made from the body use
(`ag__.converted_call(..., fscope)`) and turns the final return value into what the caller
sees (`fscope.ret(...)`). The function being converted loses its decorators (they were applied
already); functions and lambdas defined inside it are marked `ag__.autograph_artifact`, so that
calling them does not convert them again.
"""
import ast

from minitf.autograph import converter_activity
from minitf.autograph.converter_ast import parse_expression, replace, replace_as_expression
from minitf.autograph.converter_base import StateStack, Transformer

__all__ = ["transform"]


class _Function:
    def __init__(self):
        self.context_name = None


class _FunctionTransformer(Transformer):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.functions = StateStack(_Function)

    def _options_ast(self):
        """The top-level function runs with the options asked for; nested ones with the options
        for calls made from it."""
        options = self.ctx.options if self.functions.level <= 1 else self.ctx.options.call_options()
        return options.to_ast()

    def visit_Lambda(self, node):  # noqa: N802
        with self.functions as fn:
            self.generic_visit(node)
            if self.functions.level > 1:
                return replace_as_expression("ag__.autograph_artifact(l)", l=node)
            name = self.ctx.namer.new_symbol("lscope", node.ag_scope.referenced)
            fn.context_name = name
            node.ag_fscope_name = name
            node.body = replace_as_expression(
                "ag__.with_function_scope(lambda function_context: body, function_context_name, "
                "options)",
                options=self._options_ast(), function_context=name,
                function_context_name=ast.Constant(value=name), body=node.body)
            return node

    def visit_FunctionDef(self, node):  # noqa: N802
        with self.functions as fn:
            name = self.ctx.namer.new_symbol("fscope", node.ag_body_scope.referenced)
            fn.context_name = name
            node.ag_fscope_name = name
            self.generic_visit(node)
            if self.functions.level <= 1:
                node.decorator_list = []
            else:
                node.decorator_list.append(parse_expression("ag__.autograph_artifact"))
            docstring = None
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstring, body = body[0], body[1:]
            body = body or [ast.Pass()]
            wrapped = replace(
                """
                with ag__.FunctionScope(function_name, context_name, options) as function_context:
                    body
                """,
                function_name=ast.Constant(value=node.name), context_name=ast.Constant(value=name),
                options=self._options_ast(), function_context=name, body=body)
            node.body = ([docstring] if docstring is not None else []) + wrapped
            return node


def transform(node, ctx):
    """Wrap the body of `node` and of every function nested in it in a FunctionScope."""
    converter_activity.resolve(node)
    return _FunctionTransformer(ctx).visit(node)
