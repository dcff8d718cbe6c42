"""Reading a function's source into an AST, and refusing what AutoGraph does not convert.

The source comes from the function's own code object (`inspect.findsource`), not through
`__wrapped__`: a decorator's wrapper is converted as the wrapper it is, and the function it
calls is converted when the wrapper's converted code calls it. Cells of a notebook count as
files too: the notebook harness registers their text in `linecache`, where `inspect` looks.
"""
import ast
import inspect
import linecache

from minitf.autograph.ag_errors import InaccessibleSourceCodeError, UnsupportedLanguageElementError

__all__ = ["parse_entity", "check_supported", "namespace_of", "mark_original_names"]


def _source_error(entity, error):
    return InaccessibleSourceCodeError(
        f"Unable to locate the source code of {entity!r}. Note that functions defined in "
        f"certain environments, like the interactive Python shell, do not expose their source "
        f"code. If that is the case, you should define them in a .py source file. If you are "
        f"certain the code is graph-compatible, wrap the call using "
        f"@tf.autograph.experimental.do_not_convert. Original error: {error}")


def _source_lines(entity):
    """(lines of the source file, index of the function's first line, decorators included)."""
    code = getattr(entity, "__code__", None)
    if code is None:
        raise _source_error(entity, "the object has no __code__")
    try:
        return inspect.findsource(code)
    except (OSError, TypeError, IndexError) as e:
        raise _source_error(entity, e) from None


def _parse_block(source):
    """The first statement of a block of source, indented or not. The text of string literals
    (docstrings) stays exactly as written, as TF keeps it."""
    indented = source[:1] in (" ", "\t")
    try:
        if indented:  # parsed inside a block rather than dedented, so strings keep their text
            return ast.parse("if True:\n" + source).body[0].body[0]
        return ast.parse(source).body[0]
    except SyntaxError as e:
        raise UnsupportedLanguageElementError(f"could not parse the source code: {e}") from None


def _parse_lambda(entity, file_lines):
    """The Lambda node of a lambda, found among the lambdas of its source file's lines."""
    line = entity.__code__.co_firstlineno
    try:
        module = ast.parse("".join(file_lines))
    except SyntaxError as e:
        raise UnsupportedLanguageElementError(f"could not parse the source file of {entity!r}: "
                                              f"{e}") from None
    candidates = []
    for node in ast.walk(module):
        if isinstance(node, ast.Lambda) and node.lineno <= line <= node.end_lineno:
            candidates.append(node)
    if len(candidates) > 1:
        spec = inspect.getfullargspec(entity)
        candidates = [n for n in candidates
                      if [a.arg for a in n.args.args] == spec.args
                      and (n.args.vararg.arg if n.args.vararg else None) == spec.varargs
                      and (n.args.kwarg.arg if n.args.kwarg else None) == spec.varkw
                      and [a.arg for a in n.args.kwonlyargs] == spec.kwonlyargs]
    if len(candidates) != 1:
        raise UnsupportedLanguageElementError(
            f"could not identify source code of lambda function {entity!r}. It was defined on "
            f"line {line}, which contains {'no' if not candidates else 'multiple'} lambdas "
            f"with identical argument names. To avoid ambiguity, define each lambda in a "
            f"separate expression.")
    return candidates[0]


def parse_entity(entity):
    """(AST node, source text) of a function or lambda: a FunctionDef, or a Lambda."""
    file_lines, start = _source_lines(entity)
    if entity.__name__ == "<lambda>":
        node = _parse_lambda(entity, file_lines)
        return node, ast.unparse(node)
    source = "".join(inspect.getblock(file_lines[start:]))
    node = _parse_block(source)
    if isinstance(node, ast.AsyncFunctionDef):
        raise UnsupportedLanguageElementError("async functions are not supported")
    if not isinstance(node, ast.FunctionDef):
        raise UnsupportedLanguageElementError(
            f"the source code of {entity!r} does not start with a function definition")
    return node, source


class _UnsupportedFeatures(ast.NodeVisitor):
    """TF's quick check for what AutoGraph does not convert."""

    def visit_Attribute(self, node):  # noqa: N802 (ast's visitor naming)
        if node.attr.startswith("__") and not node.attr.endswith("__"):
            raise UnsupportedLanguageElementError("mangled names are not yet supported")
        self.generic_visit(node)

    def visit_For(self, node):  # noqa: N802
        if node.orelse:
            raise UnsupportedLanguageElementError("for/else statement not yet supported")
        self.generic_visit(node)

    def visit_While(self, node):  # noqa: N802
        if node.orelse:
            raise UnsupportedLanguageElementError("while/else statement not yet supported")
        self.generic_visit(node)

    def visit_Yield(self, node):  # noqa: N802
        raise UnsupportedLanguageElementError("generators are not supported")

    def visit_NamedExpr(self, node):  # noqa: N802
        # TF's static analysis fails on them too (the function then runs unconverted)
        raise UnsupportedLanguageElementError("assignment expressions (:=) are not supported")

    visit_YieldFrom = visit_Yield


def check_supported(node):
    """Raise UnsupportedLanguageElementError for for/else, while/else, generators, assignment
    expressions and mangled attribute names anywhere in `node`."""
    _UnsupportedFeatures().visit(node)


def namespace_of(function):
    """The names a function sees: its globals, then its closure's values."""
    namespace = dict(function.__globals__)
    closure = function.__closure__ or ()
    for name, cell in zip(function.__code__.co_freevars, closure):
        try:
            namespace[name] = cell.cell_contents
        except ValueError:  # an empty cell
            pass
    return namespace


class _OriginalNames(ast.NodeVisitor):
    def visit_FunctionDef(self, node):  # noqa: N802
        # decorators and annotations of nested functions are not rewritten
        for default in node.args.defaults + node.args.kw_defaults:
            if default is not None:
                self.visit(default)
        for statement in node.body:
            self.visit(statement)

    def visit_ExceptHandler(self, node):  # noqa: N802
        for statement in node.body:  # the exception type and name are not rewritten
            self.visit(statement)

    def visit_Name(self, node):  # noqa: N802
        node.ag_orig = True


def mark_original_names(node):
    """Mark every name the user wrote (`ag_orig`), so later passes tell them from their own."""
    _OriginalNames().visit(node)
    return node


def linecache_register(filename, source):
    """Make generated source readable by `inspect` and tracebacks."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
