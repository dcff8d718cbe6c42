"""Loading converted code as a function with the original's globals, closure and defaults.

The converted definition is wrapped in two factories:

    def outer_factory():
        free_var_1 = None              # one dummy local per free variable of the original
        def inner_factory(ag__):
            def tf__f(...): ...        # the converted function
            return tf__f
        return inner_factory

The dummies make the compiler give `inner_factory` closure cells named like the original's
free variables. Instantiating builds `inner_factory` again from its code object with the
original function's globals and *its* cells in place of the dummies, then calls it: the
converted function reads and writes the same globals and closure cells as the original (a
later rebinding of a closure variable is seen by both). One compiled factory serves every
function object sharing the same code.
"""
import __future__
import ast
import itertools
import types

from minitf.autograph.converter_ast import replace
from minitf.autograph.converter_source import linecache_register

__all__ = ["Factory"]

_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag
_file_counter = itertools.count()


class Factory:
    """A compiled converted function, ready to be instantiated for any function object with
    the code it was converted from.

    Attributes:
      source: the generated module's source (both factories around the function).
      filename: the name the source is registered under in `linecache`.
    """

    def __init__(self, nodes, entity_name, namer, freevars, extra_local_names, future_flags=0):
        inner_name = namer.new_symbol("inner_factory", ())
        outer_name = namer.new_symbol("outer_factory", ())
        dummies = []
        for name in freevars:
            dummies += replace("var_name = None", var_name=name)
        module_body = replace("""
            def outer_factory_name():
                dummy_closure_defs
                def inner_factory_name(factory_args):
                    entity_defs
                    return entity_name
                return inner_factory_name
        """, outer_factory_name=outer_name, inner_factory_name=inner_name,
            dummy_closure_defs=dummies, factory_args=list(extra_local_names),
            entity_defs=nodes, entity_name=entity_name)
        module = ast.fix_missing_locations(ast.Module(body=module_body, type_ignores=[]))
        self.source = ast.unparse(module) + "\n"
        self.filename = f"<autograph generated file {next(_file_counter)}: {entity_name}>"
        linecache_register(self.filename, self.source)
        code = compile(self.source, self.filename, "exec",
                       flags=future_flags & _FUTURE_FLAGS, dont_inherit=True)
        namespace = {}
        exec(code, namespace)  # noqa: S102 (the converter's own generated code)
        self._unbound = namespace[outer_name]()
        self._name = entity_name

    def instantiate(self, function, extra_locals):
        """The converted function for `function`: its globals, closure cells and defaults."""
        code = self._unbound.__code__
        cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))
        closure = tuple(cells[name] if name in cells else types.CellType()
                        for name in code.co_freevars)
        factory = types.FunctionType(code, function.__globals__, self._name, (), closure)
        converted = factory(**extra_locals)
        if function.__defaults__:
            converted.__defaults__ = function.__defaults__
        if function.__kwdefaults__:
            converted.__kwdefaults__ = dict(function.__kwdefaults__)
        return converted
