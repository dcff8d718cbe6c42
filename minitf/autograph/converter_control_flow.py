"""`if`, `while` and `for` statements become calls of `ag__.if_stmt`, `ag__.while_stmt` and
`ag__.for_stmt`, with their blocks as local functions:

    if x > 0:                        def get_state():
        y = y + 1                        return (y,)
                                     def set_state(vars_):
                             ->          nonlocal y
                                         y, = vars_
                                     def if_body():
                                         nonlocal y
                                         y = y + 1
                                     def else_body():
                                         nonlocal y
                                         pass
                                     ag__.if_stmt(x > 0, if_body, else_body, get_state,
                                                  set_state, ('y',), 1)

The operator decides at run time: a Python condition runs the chosen block as Python would;
a tensor condition stages `tf.cond` / `tf.while_loop` over the block's state. The state is
exactly the names a block modifies that matter outside it: modified in the block and live when
it starts or ends (or declared nonlocal), plus modified attributes/items (`self.n`, `d['k']`)
whose base names are live. Names modified in a block but not defined before it are set to
`ag__.Undefined(name)` first, so reading one that a path left unset raises TF's error. For an
`if`, state names not live after it (inputs only) come last, and `nouts` counts the others.

The names come from activity analysis and dataflow (reaching definitions, liveness), run on
the whole function before any statement is rewritten.
"""
import ast

from minitf.autograph import converter_activity, converter_dataflow
from minitf.autograph.converter_ast import replace, replace_as_expression
from minitf.autograph.converter_base import StateStack, Transformer

__all__ = ["transform"]


class _Function:
    def __init__(self):
        self.scope = None


class _ControlFlowTransformer(Transformer):

    def __init__(self, ctx):
        super().__init__(ctx)
        self.functions = StateStack(_Function)

    def visit_Lambda(self, node):  # noqa: N802
        with self.functions as fn:
            fn.scope = node.ag_scope
            return self.generic_visit(node)

    def visit_FunctionDef(self, node):  # noqa: N802
        with self.functions as fn:
            fn.scope = node.ag_body_scope
            return self.generic_visit(node)

    # -- the state of a block --------------------------------------------------------------
    def _nonlocal_declarations(self, names):
        names = set(names)
        declarations = []
        global_names = self.functions.top.scope.globals & names
        if global_names:
            declarations.append(ast.Global(names=sorted(str(n) for n in global_names)))
        nonlocal_names = [n for n in names if not n.is_composite() and n not in global_names]
        if nonlocal_names:
            declarations.append(ast.Nonlocal(names=sorted(str(n) for n in nonlocal_names)))
        return declarations

    def _state_functions(self, names, declarations, getter, setter):
        if not names:
            return replace("""
                def getter_name():
                    return ()
                def setter_name(block_vars):
                    pass
            """, getter_name=getter, setter_name=setter)
        guarded = []
        for name in names:
            if name.is_simple():
                guarded.append(name)
            else:  # an attribute or item may not exist yet: read it as Undefined then
                guarded.append(replace_as_expression("ag__.ldu(lambda: var_, name)", var_=name,
                                                     name=ast.Constant(value=str(name))))
        return replace("""
            def getter_name():
                return guarded_state_vars,
            def setter_name(vars_):
                nonlocal_declarations
                state_vars, = vars_
        """, getter_name=getter, setter_name=setter, guarded_state_vars=guarded,
            nonlocal_declarations=declarations, state_vars=tuple(names))

    @staticmethod
    def _loop_options(node):
        options = getattr(node, "ag_directives", {}).get("set_loop_options")
        if not options:
            return ast.Dict(keys=[], values=[])
        keys = [ast.Constant(value=k) for k in options]
        return ast.Dict(keys=keys, values=list(options.values()))

    @staticmethod
    def _undefined_assigns(names):
        assigns = []
        for name in names:
            assigns += replace("var = ag__.Undefined(symbol_name)", var=name,
                               symbol_name=ast.Constant(value=name.ssf()))
        return assigns

    def _block_vars(self, node, modified):
        """(state names, names to pre-set as Undefined, number of outputs) of a block."""
        defined_in, live_in, live_out = node.ag_defined_in, node.ag_live_in, node.ag_live_out
        fn_scope = self.functions.top.scope
        basic = frozenset(s for s in modified if not s.is_composite() and (
            s in live_in or s in live_out or s in fn_scope.nonlocals))
        composite = frozenset(
            s for s in modified if s.is_composite()
            and all(base in live_in for base in s.support_set if base.is_symbol()))
        possibly_undefined = modified - defined_in - fn_scope.globals - fn_scope.nonlocals
        undefined = sorted(s for s in possibly_undefined if not s.is_composite())
        input_only = basic & (live_in - live_out)
        names = sorted(basic | composite, key=lambda s: (s in input_only, str(s)))
        return names, undefined, len(names) - len(input_only)

    @staticmethod
    def _symbol_names(names):
        return tuple(ast.Constant(value=str(s)) for s in names)

    # -- the statements --------------------------------------------------------------------
    def visit_If(self, node):  # noqa: N802
        self.generic_visit(node)
        body_scope, orelse_scope = node.ag_body_scope, node.ag_orelse_scope
        names, undefined, nouts = self._block_vars(node, body_scope.bound | orelse_scope.bound)
        declarations = self._nonlocal_declarations(names)
        reserved = body_scope.referenced | orelse_scope.referenced
        namer = self.ctx.namer
        getter = namer.new_symbol("get_state", reserved)
        setter = namer.new_symbol("set_state", reserved)
        state_functions = self._state_functions(names, declarations, getter, setter)
        body_name = namer.new_symbol("if_body", reserved)
        orelse_name = namer.new_symbol("else_body", reserved)
        return replace("""
            state_functions
            def body_name():
                nonlocal_declarations
                body
            def orelse_name():
                nonlocal_declarations
                orelse
            undefined_assigns
            ag__.if_stmt(test, body_name, orelse_name, state_getter_name, state_setter_name,
                         (symbol_names,), nouts)
        """, body=node.body, body_name=body_name, orelse=node.orelse or [ast.Pass()],
            orelse_name=orelse_name, nonlocal_declarations=declarations,
            nouts=ast.Constant(value=nouts), state_functions=state_functions,
            state_getter_name=getter, state_setter_name=setter,
            symbol_names=self._symbol_names(names), test=node.test,
            undefined_assigns=self._undefined_assigns(undefined))

    def visit_While(self, node):  # noqa: N802
        self.generic_visit(node)
        body_scope = node.ag_body_scope
        names, undefined, _ = self._block_vars(node, body_scope.bound)
        declarations = self._nonlocal_declarations(names)
        reserved = body_scope.referenced
        namer = self.ctx.namer
        getter = namer.new_symbol("get_state", reserved)
        setter = namer.new_symbol("set_state", reserved)
        state_functions = self._state_functions(names, declarations, getter, setter)
        body_name = namer.new_symbol("loop_body", reserved)
        test_name = namer.new_symbol("loop_test", reserved)
        return replace("""
            state_functions
            def body_name():
                nonlocal_declarations
                body
            def test_name():
                return test
            undefined_assigns
            ag__.while_stmt(test_name, body_name, state_getter_name, state_setter_name,
                            (symbol_names,), opts)
        """, body=node.body, body_name=body_name, nonlocal_declarations=declarations,
            opts=self._loop_options(node), state_functions=state_functions,
            state_getter_name=getter, state_setter_name=setter,
            symbol_names=self._symbol_names(names), test=node.test, test_name=test_name,
            undefined_assigns=self._undefined_assigns(undefined))

    def visit_For(self, node):  # noqa: N802
        self.generic_visit(node)
        body_scope, iterate_scope = node.ag_body_scope, node.ag_iterate_scope
        names, undefined, _ = self._block_vars(node, body_scope.bound | iterate_scope.bound)
        declarations = self._nonlocal_declarations(names)
        reserved = body_scope.referenced | iterate_scope.referenced
        namer = self.ctx.namer
        getter = namer.new_symbol("get_state", reserved)
        setter = namer.new_symbol("set_state", reserved)
        state_functions = self._state_functions(names, declarations, getter, setter)
        opts = self._loop_options(node)
        opts.keys.append(ast.Constant(value="iterate_names"))
        opts.values.append(ast.Constant(value=ast.unparse(node.target)))
        extra_test = getattr(node, "ag_extra_test", None)
        if extra_test is not None:
            extra_test_name = namer.new_symbol("extra_test", reserved)
            extra_test_function = replace("""
                def extra_test_name():
                    nonlocal_declarations
                    return extra_test_expr
            """, extra_test_expr=extra_test, extra_test_name=extra_test_name,
                nonlocal_declarations=declarations)
            extra_test_ref = ast.Name(id=extra_test_name, ctx=ast.Load())
        else:
            extra_test_function, extra_test_ref = [], ast.Constant(value=None)
        iterate_arg = namer.new_symbol("itr", reserved)
        expansion = replace("iterates = iterate_arg_name", iterate_arg_name=iterate_arg,
                            iterates=node.target)
        body_name = namer.new_symbol("loop_body", reserved)
        return replace("""
            state_functions
            def body_name(iterate_arg_name):
                nonlocal_declarations
                iterate_expansion
                body
            extra_test_function
            undefined_assigns
            ag__.for_stmt(iterated, extra_test_name, body_name, state_getter_name,
                          state_setter_name, (symbol_names,), opts)
        """, body=node.body, body_name=body_name, extra_test_function=extra_test_function,
            extra_test_name=extra_test_ref, iterate_arg_name=iterate_arg,
            iterate_expansion=expansion, iterated=node.iter, nonlocal_declarations=declarations,
            opts=opts, symbol_names=self._symbol_names(names), state_functions=state_functions,
            state_getter_name=getter, state_setter_name=setter,
            undefined_assigns=self._undefined_assigns(undefined))


def transform(node, ctx):
    """Rewrite the `if`, `while` and `for` statements of `node` into operator calls."""
    converter_activity.resolve(node)
    converter_dataflow.resolve(node)
    return _ControlFlowTransformer(ctx).visit(node)
