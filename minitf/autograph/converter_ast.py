"""AST tools every AutoGraph converter pass shares: qualified names, code templates, clean
copies of nodes, and the namer that invents fresh symbols.

Annotations live on the `ast` nodes as attributes prefixed `ag_` (`ag_scope`, `ag_qn`, ...).
A copy made for a template keeps only the few annotations later passes rely on (which loads
were in the user's code, a loop's extra test, its loop options, a function's scope name);
analysis results are recomputed by each pass that needs them.
"""
import ast
import textwrap

__all__ = ["Literal", "QN", "resolve_qns", "copy_clean", "replace", "replace_as_expression",
           "parse_expression", "unparse", "Namer", "set_ctx"]

# Annotations a template copy carries over; everything else is analysis, redone per pass.
_PRESERVED = ("ag_orig", "ag_extra_test", "ag_directives", "ag_fscope_name")


class Literal:
    """A constant used as a subscript in a qualified name (`a[0]`, `d['k']`)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Literal) and type(other.value) is type(self.value) \
            and other.value == self.value

    def __hash__(self):
        return hash((Literal, self.value))

    def __str__(self):
        return repr(self.value) if isinstance(self.value, str) else str(self.value)

    __repr__ = __str__


class QN:
    """A qualified name: a symbol (`x`), an attribute of one (`self.w`), or a subscript with a
    constant or symbolic index (`a[0]`, `a[i]`).

    Simple names are what control flow can carry as loop or branch state directly; composite
    ones are carried through `ag__.ldu` reads and attribute/item writes.
    """

    __slots__ = ("parts", "kind", "_parent")

    def __init__(self, base, attr=None, subscript=None):
        if attr is not None:
            self.parts, self.kind, self._parent = (base, attr), "attr", base
        elif subscript is not None:
            self.parts, self.kind, self._parent = (base, subscript), "sub", base
        else:
            if not isinstance(base, (str, Literal)):
                raise ValueError(f"a simple qualified name needs a str or Literal, got {base!r}")
            self.parts, self.kind, self._parent = (base,), "simple", None

    def is_simple(self):
        """Whether this is a plain symbol (`x`)."""
        return self.kind == "simple"

    def is_composite(self):
        """Whether this is an attribute or subscript (`a.b`, `a[0]`)."""
        return self.kind != "simple"

    def is_symbol(self):
        """Whether the base is a name (not a literal)."""
        return isinstance(self.parts[0], str)

    @property
    def parent(self):
        """The qualified name this attribute or subscript is taken of."""
        if self._parent is None:
            raise ValueError(f"{self} has no parent")
        return self._parent

    @property
    def owner_set(self):
        """The qualified names a write to this one may affect (`a` and `a.b` for `a.b[c]`)."""
        if self._parent is None:
            return set()
        return {self._parent} | self._parent.owner_set

    @property
    def support_set(self):
        """The simple symbols needed to evaluate this name (`a` and `i` for `a[i]`)."""
        if self.kind == "simple":
            return {self}
        found = set(self._parent.support_set)
        if self.kind == "sub":
            found |= self.parts[1].support_set
        return found

    def name_parts(self):
        """The strings this name contributes to a namer's reserved set."""
        if self.kind == "simple":
            return {self.parts[0]} if isinstance(self.parts[0], str) else set()
        return {self.parts[1]} if self.kind == "attr" else set()

    def __eq__(self, other):
        return isinstance(other, QN) and self.kind == other.kind and self.parts == other.parts

    def __hash__(self):
        return hash((self.kind, self.parts))

    def __lt__(self, other):
        return str(self) < str(other)

    def __str__(self):
        if self.kind == "attr":
            return f"{self.parts[0]}.{self.parts[1]}"
        if self.kind == "sub":
            return f"{self.parts[0]}[{self.parts[1]}]"
        return str(self.parts[0])

    __repr__ = __str__

    def ssf(self):
        """A flat identifier for the name (`a_b` for `a.b`, `a_sub_0` for `a[0]`)."""
        if self.kind == "simple":
            return str(self.parts[0])
        glue = "_sub_" if self.kind == "sub" else "_"
        tail = self.parts[1].ssf() if isinstance(self.parts[1], QN) else str(self.parts[1])
        return self.parts[0].ssf() + glue + tail

    def to_ast(self, ctx=None):
        """An expression node reading (or, with `ast.Store()`, writing) this name."""
        ctx = ctx if ctx is not None else ast.Load()
        if self.kind == "attr":
            return ast.Attribute(value=self.parts[0].to_ast(), attr=self.parts[1], ctx=ctx)
        if self.kind == "sub":
            return ast.Subscript(value=self.parts[0].to_ast(), slice=self.parts[1].to_ast(), ctx=ctx)
        if isinstance(self.parts[0], Literal):
            return ast.Constant(value=self.parts[0].value)
        return ast.Name(id=self.parts[0], ctx=ctx)


class _QnResolver(ast.NodeVisitor):
    def visit_Name(self, node):  # noqa: N802 (ast's visitor naming)
        node.ag_qn = QN(node.id)

    def visit_Attribute(self, node):  # noqa: N802
        self.generic_visit(node)
        base = getattr(node.value, "ag_qn", None)
        node.ag_qn = QN(base, attr=node.attr) if base is not None else None

    def visit_Subscript(self, node):  # noqa: N802
        self.generic_visit(node)
        node.ag_qn = None
        index = node.slice
        if isinstance(index, (ast.Tuple, ast.Slice)):
            return
        if isinstance(index, ast.Constant) and index.value is not Ellipsis:
            sub = QN(Literal(index.value))
        else:
            sub = getattr(index, "ag_qn", None)
        base = getattr(node.value, "ag_qn", None)
        if sub is not None and base is not None:
            node.ag_qn = QN(base, subscript=sub)


def resolve_qns(node):
    """Annotate every Name, Attribute and Subscript under `node` with its `ag_qn` (None when
    the expression has no static name, like `f().x` or `a[1:2]`)."""
    _QnResolver().visit(node)
    return node


def copy_clean(node):
    """A deep copy of an AST node (or list of nodes) with only the preserved annotations."""
    if isinstance(node, list):
        return [copy_clean(n) for n in node]
    if isinstance(node, tuple):
        return tuple(copy_clean(n) for n in node)
    if not isinstance(node, ast.AST):
        return node
    new = type(node)()
    for field in node._fields:
        if hasattr(node, field):
            setattr(new, field, copy_clean(getattr(node, field)))
    for attribute in node._attributes:
        if hasattr(node, attribute):
            setattr(new, attribute, getattr(node, attribute))
    for attribute in _PRESERVED:
        if hasattr(node, attribute):
            setattr(new, attribute, getattr(node, attribute))
    return new


def set_ctx(node, ctx):
    """Give a target expression (and the elements of a tuple/list/starred target) `ctx`."""
    if isinstance(node, (ast.Tuple, ast.List)):
        node.ctx = ctx
        for element in node.elts:
            set_ctx(element, ctx)
    elif isinstance(node, ast.Starred):
        node.ctx = ctx
        set_ctx(node.value, ctx)
    elif isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
        node.ctx = ctx
    return node


class _Replacer(ast.NodeTransformer):
    """Substitutes the placeholders of a template: names become nodes, strings, qualified names
    or lists of them (lists splice into tuples, argument lists and statement blocks)."""

    def __init__(self, replacements):
        self.replacements = replacements

    def _make(self, value, ctx):
        if isinstance(value, (list, tuple)):
            made = []
            for item in value:
                item = self._make(item, ctx)
                made.extend(item if isinstance(item, list) else [item])
            return made
        if isinstance(value, str):
            return ast.Name(id=value, ctx=ctx)
        if isinstance(value, QN):
            return value.to_ast(ctx)
        if isinstance(value, ast.AST):
            node = copy_clean(value)
            if isinstance(node, ast.expr):
                set_ctx(node, ctx)
            return node
        raise ValueError(f"template: cannot substitute {value!r}")

    def visit_Name(self, node):  # noqa: N802
        if node.id in self.replacements:
            return self._make(self.replacements[node.id], node.ctx)
        return node

    def visit_Expr(self, node):  # noqa: N802
        value = node.value
        if isinstance(value, ast.Name) and value.id in self.replacements:
            made = self._make(self.replacements[value.id], ast.Load())
            made = made if isinstance(made, list) else [made]
            return [m if isinstance(m, ast.stmt) else ast.Expr(value=m) for m in made]
        return self.generic_visit(node)

    def _rename(self, name):
        value = self.replacements.get(name, name)
        if isinstance(value, ast.Name):
            return value.id
        return str(value) if isinstance(value, QN) else value

    def visit_FunctionDef(self, node):  # noqa: N802
        node.name = self._rename(node.name)
        return self.generic_visit(node)

    def visit_arg(self, node):  # noqa: N802
        if node.arg not in self.replacements:
            return node
        value = self.replacements[node.arg]
        if isinstance(value, (list, tuple)):
            return [ast.arg(arg=self._rename(v)) for v in value]
        node.arg = self._rename(node.arg)
        return node


def replace(template, **replacements):
    """The statements of `template` (source text) with its placeholder names substituted."""
    module = ast.parse(textwrap.dedent(template))
    body = []
    replacer = _Replacer(replacements)
    for statement in module.body:
        result = replacer.visit(statement)
        body.extend(result if isinstance(result, list) else [result])
    return body


def replace_as_expression(template, **replacements):
    """The single expression of `template` with its placeholders substituted."""
    statements = replace(template, **replacements)
    if len(statements) != 1 or not isinstance(statements[0], ast.Expr):
        raise ValueError(f"template {template!r} is not a single expression")
    return statements[0].value


def parse_expression(text):
    """The expression node of `text`."""
    return ast.parse(text.strip(), mode="eval").body


def unparse(node):
    """Python source for a node or a list of nodes."""
    nodes = node if isinstance(node, list) else [node]
    return "\n".join(ast.unparse(ast.fix_missing_locations(n)) for n in nodes)


class Namer:
    """Invents symbols that clash with nothing: not the function's namespace (globals and
    closure), not the names a block reads, not any symbol invented before for this function."""

    def __init__(self, namespace):
        self.namespace = namespace
        self.generated = set()

    def new_symbol(self, root, reserved):
        """A fresh name: `root`, else `root_1`, `root_2`, ... (a numeric suffix of `root` counts on)."""
        taken = set()
        for symbol in reserved:
            taken |= symbol.name_parts() if isinstance(symbol, QN) else {symbol}
        pieces = root.split("_")
        count = 0
        if pieces[-1].isdigit():
            root, count = "_".join(pieces[:-1]), int(pieces[-1])
        name = root
        while name in self.namespace or name in taken or name in self.generated:
            count += 1
            name = f"{root}_{count}"
        self.generated.add(name)
        return name
