"""`break` and `continue` become flag variables and guarded code, so loop bodies can be staged
as functions (a function cannot `break` its caller's loop).

    for x in xs:                      break_ = False
        if x > 3:                     for x in xs:          # + extra test: not break_
            break             ->          (break_,)
        s += x                            continue_ = False
                                          if x > 3:
                                              break_ = True
                                              continue_ = True
                                          if not continue_:
                                              s += x

A `break` sets the break flag and continues; the flag joins the loop condition (`while not
break_ and test`) or, for a `for`, the loop's extra test. A `continue` sets the continue flag
and every statement after it, in the blocks up to the loop body, runs under
`if not continue_:`. A fresh flag name is drawn for every loop, used or not, as TF does.
"""
from minitf.autograph import converter_activity
from minitf.autograph.converter_ast import replace, replace_as_expression
from minitf.autograph.converter_base import StateStack, Transformer

__all__ = ["transform_breaks", "transform_continues"]


class _Break:
    def __init__(self):
        self.used = False
        self.control_var_name = None


def _copy_loop_annotations(original, new, *names):
    for name in names:
        if hasattr(original, name):
            setattr(new, name, getattr(original, name))


class _BreakTransformer(Transformer):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.breaks = StateStack(_Break)

    def visit_Break(self, node):  # noqa: N802
        self.breaks.top.used = True
        return replace("""
            var_name = True
            continue
        """, var_name=self.breaks.top.control_var_name)

    def _guard(self, block, var_name):
        if not block:
            return block
        return replace("""
            if not var_name:
                block
        """, var_name=var_name, block=block)

    def _body(self, nodes, break_var):
        with self.breaks as state:
            state.control_var_name = break_var
            nodes = self.visit_block(nodes)
            return nodes, state.used

    def visit_While(self, node):  # noqa: N802
        break_var = self.ctx.namer.new_symbol("break_", node.ag_body_scope.referenced)
        node.test = self.visit(node.test)
        node.body, used = self._body(node.body, break_var)
        node.orelse = self.visit_block(node.orelse)  # a break there leaves the outer loop
        if not used:
            new = replace("""
                while test:
                    body
                orelse
            """, test=node.test, body=node.body, orelse=node.orelse)
            _copy_loop_annotations(node, new[0], "ag_directives")
            return new
        new = replace("""
            var_name = False
            while not var_name and test:
                body
            orelse
        """, var_name=break_var, test=node.test, body=node.body,
            orelse=self._guard(node.orelse, break_var))
        _copy_loop_annotations(node, new[1], "ag_directives")
        return new

    def visit_For(self, node):  # noqa: N802
        break_var = self.ctx.namer.new_symbol("break_", node.ag_body_scope.referenced)
        node.target = self.visit(node.target)
        node.iter = self.visit(node.iter)
        node.body, used = self._body(node.body, break_var)
        node.orelse = self.visit_block(node.orelse)
        if not used:
            new = replace("""
                for target in iter_:
                    body
                orelse
            """, iter_=node.iter, target=node.target, body=node.body, orelse=node.orelse)
            _copy_loop_annotations(node, new[0], "ag_extra_test", "ag_directives")
            return new
        # the marker statement keeps the flag visibly used in the body for the analyses
        new = replace("""
            var_name = False
            for target in iter_:
                (var_name,)
                body
            orelse
        """, var_name=break_var, iter_=node.iter, target=node.target, body=node.body,
            orelse=self._guard(node.orelse, break_var))
        new[1].ag_extra_test = replace_as_expression("not var_name", var_name=break_var)
        _copy_loop_annotations(node, new[1], "ag_directives")
        return new


def transform_breaks(node, ctx):
    """Replace the `break` statements of `node` by flags."""
    converter_activity.resolve(node)
    return _BreakTransformer(ctx).visit(node)


class _Continue:
    def __init__(self):
        self.used = False
        self.control_var_name = None


class _Block:
    def __init__(self):
        self.is_loop_type = False
        self.create_guard_current = False
        self.create_guard_next = False


class _ContinueTransformer(Transformer):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.continues = StateStack(_Continue)
        self.blocks = StateStack(_Block)

    def visit_Continue(self, node):  # noqa: N802
        self.continues.top.used = True
        for block in reversed(self.blocks.stack):
            block.create_guard_next = True  # every enclosing block up to the loop body
            if block.is_loop_type:
                break
        return replace("var_name = True", var_name=self.continues.top.control_var_name)

    def _after(self, node):
        if self.continues.level and self.continues.top.used:
            block = self.blocks.top
            wrap = block.create_guard_current
            block.create_guard_current = block.create_guard_next
            block.create_guard_next = False
            if wrap:
                guard, = replace("""
                    if not var_name:
                        original_node
                """, var_name=self.continues.top.control_var_name, original_node=node)
                return guard, guard.body
        return node, None

    def _loop_body(self, node, nodes):
        with self.continues as state, self.blocks as block:
            block.is_loop_type = True
            state.control_var_name = self.ctx.namer.new_symbol(
                "continue_", node.ag_body_scope.referenced)
            nodes = self.visit_block(nodes, after_visit=self._after)
            if state.used:
                nodes = replace("var_name = False", var_name=state.control_var_name) + nodes
            return nodes

    def _plain_body(self, nodes):
        with self.blocks:
            return self.visit_block(nodes, after_visit=self._after)

    def visit_While(self, node):  # noqa: N802
        node.test = self.visit(node.test)
        node.body = self._loop_body(node, node.body)
        node.orelse = self._plain_body(node.orelse)
        return node

    def visit_For(self, node):  # noqa: N802
        node.target = self.generic_visit(node.target)
        node.iter = self.generic_visit(node.iter)
        node.body = self._loop_body(node, node.body)
        node.orelse = self._plain_body(node.orelse)
        return node

    def visit_If(self, node):  # noqa: N802
        node.body = self._plain_body(node.body)
        node.orelse = self._plain_body(node.orelse)
        return node

    def visit_With(self, node):  # noqa: N802
        node.items = self.visit_block(node.items)
        node.body = self._plain_body(node.body)
        return node

    def visit_Try(self, node):  # noqa: N802
        node.body = self._plain_body(node.body)
        node.orelse = self._plain_body(node.orelse)
        node.finalbody = self._plain_body(node.finalbody)
        node.handlers = self.visit_block(node.handlers)
        return node

    def visit_ExceptHandler(self, node):  # noqa: N802
        node.body = self._plain_body(node.body)
        return node


def transform_continues(node, ctx):
    """Replace the `continue` statements of `node` by a flag and guards."""
    converter_activity.resolve(node)
    return _ContinueTransformer(ctx).visit(node)
