"""The AutoGraph converter: a Python function in, the converted function out.

    converted, source = convert(f, options, extra_locals)

reads `f`'s source, parses it, checks for constructs AutoGraph does not convert, and runs the
passes in TF's order, each re-analysing the code the previous one left:

 1. functions: wrap bodies in `ag__.FunctionScope`; strip the top-level decorators;
 2. directives: move `set_loop_options(...)` into the loops' options;
 3. break, then continue: flags and guards instead of jumps;
 4. (ASSERT_STATEMENTS feature) `assert` -> `ag__.assert_stmt`;
 5. return: one `return fscope.ret(retval_, do_return)` at the end;
 6. calls: `ag__.converted_call`;
 7. control flow: `ag__.if_stmt` / `while_stmt` / `for_stmt` with state functions;
 8. conditional expressions, logical expressions, variable loads (`ag__.ld`).

The result is compiled once per code object and options (`converter_loader.Factory`) and
instantiated per function object with that function's globals, closure and defaults.
"""
import ast
import threading
import weakref

from minitf.autograph import (converter_calls, converter_control_flow, converter_expressions,
                              converter_functions, converter_jumps, converter_returns,
                              converter_source)
from minitf.autograph.converter_ast import Namer, parse_expression, replace
from minitf.autograph.converter_base import Context, Transformer
from minitf.autograph.converter_loader import Factory

__all__ = ["convert", "transform_ast"]

_factories = weakref.WeakKeyDictionary()  # code object -> {options: Factory}
_lock = threading.RLock()


class _AssertTransformer(Transformer):
    def visit_Assert(self, node):  # noqa: N802
        message = node.msg if node.msg is not None else ast.Constant(value="Assertion error")
        return replace("ag__.assert_stmt(test, lambda: msg)", test=node.test, msg=message)


def _erase_defaults(node):
    """Defaults are values of the original function: the converted one gets them as values."""
    args = node.args
    args.defaults = [parse_expression("None") for _ in args.defaults]
    args.kw_defaults = [None if d is None else parse_expression("None") for d in args.kw_defaults]


def transform_ast(node, ctx):
    """Run the conversion passes over a parsed function (or lambda) node."""
    node = converter_functions.transform(node, ctx)
    node = converter_calls.transform_directives(node, ctx)
    node = converter_jumps.transform_breaks(node, ctx)
    if ctx.options.uses("ASSERT_STATEMENTS"):
        node = _AssertTransformer(ctx).visit(node)
    node = converter_jumps.transform_continues(node, ctx)
    node = converter_returns.transform(node, ctx)
    node = converter_calls.transform_calls(node, ctx)
    node = converter_control_flow.transform(node, ctx)
    node = converter_expressions.transform_conditional_expressions(node, ctx)
    node = converter_expressions.transform_logical_expressions(node, ctx)
    return converter_expressions.transform_variables(node, ctx)


def _build(function, options, extra_local_names):
    node, _ = converter_source.parse_entity(function)
    converter_source.check_supported(node)
    if isinstance(node, ast.FunctionDef):  # as TF: a converted lambda's reads stay as written
        converter_source.mark_original_names(node)
    namespace = converter_source.namespace_of(function)
    namer = Namer(namespace)
    is_lambda = isinstance(node, ast.Lambda)
    name = namer.new_symbol("tf__" + ("lam" if is_lambda else node.name), ())
    ctx = Context(namer, options, namespace, name)
    _erase_defaults(node)
    node = transform_ast(node, ctx)
    if is_lambda:
        node = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=node)
    else:
        node.name = name
        node.decorator_list = []
    factory = Factory([node], name, namer, function.__code__.co_freevars, extra_local_names,
                      future_flags=function.__code__.co_flags)
    return factory


def convert(function, options, extra_locals):
    """The converted version of a plain function or lambda (not a bound method).

    Raises:
      InaccessibleSourceCodeError: no source code can be found.
      UnsupportedLanguageElementError: the function uses a construct AutoGraph leaves alone.
    """
    code = function.__code__
    with _lock:
        per_code = _factories.setdefault(code, {})
        factory = per_code.get(options)
        if factory is None:
            factory = _build(function, options, tuple(extra_locals))
            per_code[options] = factory
    converted = factory.instantiate(function, extra_locals)
    converted.ag_module_source = factory.source
    return converted
