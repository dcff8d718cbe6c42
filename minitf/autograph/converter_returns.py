"""`return` statements become a flag and a value, with one return at the end of the function,
so that a return inside a staged branch or loop body (itself a function) reaches the caller.

    def f(x):                        def f(x):
        if x > 0:                        with ag__.FunctionScope(...) as fscope:
            return x                         do_return = False
        return -x            ->              retval_ = ag__.UndefinedReturnValue()
                                             if x > 0:
                                                 try:
                                                     do_return = True
                                                     retval_ = x
                                                 except:
                                                     do_return = False
                                                     raise
                                             else:
                                                 <the same for -x>
                                             return fscope.ret(retval_, do_return)

First, when one branch of an `if` always returns, the statements after the `if` move into the
other branch (fewer None-valued paths). Then each return sets the two variables; statements
after a statement that may have returned run under `if not do_return:`, and loops gain
`not do_return` in their condition (`while`) or extra test (`for`).
"""
import ast

from minitf.autograph import converter_activity
from minitf.autograph.converter_ast import parse_expression, replace, replace_as_expression
from minitf.autograph.converter_base import StateStack, Transformer

__all__ = ["transform"]


class _RewriteBlock:
    def __init__(self):
        self.definitely_returns = False


class _ConditionalReturnRewriter(Transformer):
    """Moves the statements after an `if` whose body (or else) always returns into the other
    branch."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.blocks = StateStack(_RewriteBlock)

    def visit_Return(self, node):  # noqa: N802
        if self.blocks.level:
            self.blocks.top.definitely_returns = True
        return node

    def _after(self, node):
        if getattr(node, "ag_definitely_returns", False):
            self.blocks.top.definitely_returns = True
        if isinstance(node, ast.If) and getattr(node, "ag_body_returns", False):
            return node, node.orelse
        if isinstance(node, ast.If) and getattr(node, "ag_orelse_returns", False):
            return node, node.body
        return node, None

    def _block(self, nodes):
        with self.blocks as block:
            nodes = self.visit_block(nodes, after_visit=self._after)
            return nodes, block.definitely_returns

    def visit_While(self, node):  # noqa: N802
        node.test = self.visit(node.test)
        node.body, _ = self._block(node.body)
        node.orelse, _ = self._block(node.orelse)
        return node

    def visit_For(self, node):  # noqa: N802
        node.iter = self.visit(node.iter)
        node.target = self.visit(node.target)
        node.body, _ = self._block(node.body)
        node.orelse, _ = self._block(node.orelse)
        return node

    def visit_With(self, node):  # noqa: N802
        node.items = self.visit_block(node.items)
        node.body, returns = self._block(node.body)
        if returns:
            node.ag_definitely_returns = True
        return node

    def visit_Try(self, node):  # noqa: N802
        node.body, _ = self._block(node.body)
        node.orelse, _ = self._block(node.orelse)
        node.finalbody, _ = self._block(node.finalbody)
        node.handlers = self.visit_block(node.handlers)
        return node

    def visit_ExceptHandler(self, node):  # noqa: N802
        node.body, _ = self._block(node.body)
        return node

    def visit_If(self, node):  # noqa: N802
        node.test = self.visit(node.test)
        node.body, body_returns = self._block(node.body)
        node.ag_body_returns = body_returns
        node.orelse, orelse_returns = self._block(node.orelse)
        node.ag_orelse_returns = orelse_returns
        if body_returns and orelse_returns and self.blocks.level:
            self.blocks.top.definitely_returns = True
        return node

    def visit_FunctionDef(self, node):  # noqa: N802
        node.args = self.visit(node.args)
        node.body, _ = self._block(node.body)
        return node


class _Block:
    def __init__(self):
        self.is_function = False
        self.return_used = False
        self.create_guard_next = False
        self.create_guard_now = False


class _Function:
    def __init__(self):
        self.do_return_var_name = None
        self.retval_var_name = None


class _ReturnTransformer(Transformer):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.blocks = StateStack(_Block)
        self.functions = StateStack(_Function)

    def visit_Return(self, node):  # noqa: N802
        for block in reversed(self.blocks.stack):
            block.return_used = True
            block.create_guard_next = True
            if block.is_function:
                break
        value = node.value if node.value is not None else parse_expression("None")
        # if evaluating the value raises, the function has not returned
        return replace("""
            try:
                do_return_var_name = True
                retval_var_name = retval
            except:
                do_return_var_name = False
                raise
        """, do_return_var_name=self.functions.top.do_return_var_name,
            retval_var_name=self.functions.top.retval_var_name, retval=value)

    def _after(self, node):
        block = self.blocks.top
        if not block.return_used:
            return node, None
        destination = None
        if block.create_guard_now:
            guard, = replace("""
                if not do_return_var_name:
                    original_node
            """, do_return_var_name=self.functions.top.do_return_var_name, original_node=node)
            node, destination = guard, guard.body
        block.create_guard_now = block.create_guard_next
        block.create_guard_next = False
        return node, destination

    def _block(self, nodes):
        with self.blocks:
            return self.visit_block(nodes, after_visit=self._after)

    def visit_While(self, node):  # noqa: N802
        node.test = self.visit(node.test)
        node.body = self._block(node.body)
        if self.blocks.top.return_used:
            node.test = replace_as_expression("not control_var and test", test=node.test,
                                              control_var=self.functions.top.do_return_var_name)
        node.orelse = self._block(node.orelse)
        return node

    def visit_For(self, node):  # noqa: N802
        node.iter = self.visit(node.iter)
        node.target = self.visit(node.target)
        node.body = self._block(node.body)
        if self.blocks.top.return_used:
            control_var = self.functions.top.do_return_var_name
            extra_test = getattr(node, "ag_extra_test", None)
            if extra_test is not None:
                node.ag_extra_test = replace_as_expression(
                    "not control_var and extra_test", extra_test=extra_test, control_var=control_var)
            else:
                node.ag_extra_test = replace_as_expression("not control_var", control_var=control_var)
        node.orelse = self._block(node.orelse)
        return node

    def visit_With(self, node):  # noqa: N802
        node.items = self.visit_block(node.items)
        node.body = self._block(node.body)
        return node

    def visit_Try(self, node):  # noqa: N802
        node.body = self._block(node.body)
        node.orelse = self._block(node.orelse)
        node.finalbody = self._block(node.finalbody)
        node.handlers = self.visit_block(node.handlers)
        return node

    def visit_ExceptHandler(self, node):  # noqa: N802
        node.body = self._block(node.body)
        return node

    def visit_If(self, node):  # noqa: N802
        node.test = self.visit(node.test)
        node.body = self._block(node.body)
        node.orelse = self._block(node.orelse)
        return node

    def visit_FunctionDef(self, node):  # noqa: N802
        with self.functions as fn, self.blocks as block:
            block.is_function = True
            referenced = node.ag_body_scope.referenced
            fn.do_return_var_name = self.ctx.namer.new_symbol("do_return", referenced)
            fn.retval_var_name = self.ctx.namer.new_symbol("retval_", referenced)
            node.body = self._block(node.body)
            if block.return_used:
                wrapper = node.body[-1]  # the FunctionScope `with` of converter_functions
                if not isinstance(wrapper, ast.With):
                    raise AssertionError("the return converter runs after the functions converter")
                wrapper.body = replace("""
                    do_return_var_name = False
                    retval_var_name = ag__.UndefinedReturnValue()
                    body
                    return function_context.ret(retval_var_name, do_return_var_name)
                """, body=wrapper.body, do_return_var_name=fn.do_return_var_name,
                    retval_var_name=fn.retval_var_name, function_context=node.ag_fscope_name)
        return node


def transform(node, ctx):
    """Give `node` and every function nested in it a single return at the end."""
    converter_activity.resolve(node)
    node = _ConditionalReturnRewriter(ctx).visit(node)
    converter_activity.resolve(node)
    return _ReturnTransformer(ctx).visit(node)
