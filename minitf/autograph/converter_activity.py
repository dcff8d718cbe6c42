"""Activity analysis: which names each block of a function reads, writes, binds or deletes.

Every statement gets a `Scope` (`node.ag_scope`); compound statements also get the scopes of
their parts (`ag_body_scope`, `ag_orelse_scope`, `ag_iterate_scope` of a for loop, and for
functions `ag_args_and_body_scope`). Block scopes are not Python scopes: what a block does is
also counted in the blocks around it, up to the enclosing function, whose own scope is
isolated (only its free reads show outside). The control flow converter reads these sets to
know which names a branch or loop modifies; the namer avoids every name a block references.

Requires `converter_ast.resolve_qns` to have named the expressions first (this module's
`resolve` runs it).
"""
import ast
import copy

from minitf.autograph.converter_ast import QN, resolve_qns

__all__ = ["Scope", "resolve"]


class Scope:
    """The symbols a block reads, modifies, binds and deletes, and the names it declares
    global or nonlocal. `isolated` marks a real Python scope (a function)."""

    def __init__(self, parent, isolated=True, function_name=None):
        self.parent = parent
        self.isolated = isolated
        self.function_name = function_name
        self.isolated_names = set()
        self.read = set()
        self.modified = set()
        self.deleted = set()
        self.bound = set()
        self.globals = set()
        self.nonlocals = set()
        self.annotations = set()
        self.params = {}
        self.is_final = False

    @property
    def referenced(self):
        """Every symbol read here or in an enclosing block."""
        return self.read | self.parent.referenced if self.parent is not None else set(self.read)

    @property
    def enclosing_scope(self):
        """The innermost real (isolated) scope: this one, or the parent of a block."""
        return self.parent if self.parent is not None and not self.isolated else self

    def copy_from(self, other):
        """Take `other`'s activity (and its parents' for the parents)."""
        if self.parent is not None:
            self.parent.copy_from(other.parent)
        for field in ("isolated_names", "read", "modified", "deleted", "bound", "annotations",
                      "params"):
            setattr(self, field, copy.copy(getattr(other, field)))

    @classmethod
    def copy_of(cls, other):
        """A new scope chain with the activity of `other`'s."""
        parent = cls.copy_of(other.parent) if other.parent is not None else None
        new = cls(parent)
        new.copy_from(other)
        return new

    def merge_from(self, other):
        """Add `other`'s activity (and its parents') to this scope's."""
        if self.parent is not None:
            self.parent.merge_from(other.parent)
        for field in ("isolated_names", "read", "modified", "deleted", "bound", "annotations"):
            getattr(self, field).update(getattr(other, field))
        self.params.update(other.params)

    def finalize(self):
        """Freeze the scope, handing its activity to the parent: all of it for a block, only
        the free reads for a function."""
        parent = self.parent
        if parent is not None:
            if not self.isolated:
                parent.read.update(self.read - self.isolated_names)
                parent.modified.update(self.modified - self.isolated_names)
                parent.bound.update(self.bound - self.isolated_names)
                parent.globals.update(self.globals)
                parent.nonlocals.update(self.nonlocals)
                parent.annotations.update(self.annotations)
            else:
                parent.read.update(self.read - self.bound)
                parent.annotations.update(self.annotations - self.bound)
        self.is_final = True

    def __repr__(self):
        return f"Scope(read={sorted(map(str, self.read))}, modified={sorted(map(str, self.modified))})"


class _Analyzer(ast.NodeVisitor):
    """Builds the scopes of one function (or lambda) and everything nested in it."""

    def __init__(self):
        self.scope = Scope(None, isolated=True)
        self.comprehension_targets = []  # one set per comprehension being visited
        self.in_aug_assign = False
        self.in_annotation = False
        self.annotations_only = False
        self.owner = None  # the function or lambda whose parameters are being declared

    # -- scopes ----------------------------------------------------------------------------
    def _enter(self, isolated, name=None):
        self.scope = Scope(self.scope, isolated=isolated, function_name=name)

    def _exit(self, node=None, tag="ag_scope"):
        scope = self.scope
        scope.finalize()
        self.scope = scope.parent
        if node is not None:
            setattr(node, tag, scope)
        return scope

    def _statement(self, node):
        self._enter(False)
        self.generic_visit(node)
        self._exit(node)

    # -- symbols ---------------------------------------------------------------------------
    def _track(self, node, qn, ctx):
        if self.annotations_only and not self.in_annotation:
            return
        if qn is None:
            return
        for targets in self.comprehension_targets:
            if qn in targets or qn.owner_set & targets:
                return
        scope = self.scope
        if isinstance(ctx, ast.Store):
            if self.comprehension_targets:
                self.comprehension_targets[-1].add(qn)
                return
            scope.modified.add(qn)
            scope.bound.add(qn)
            if self.in_aug_assign:
                scope.read.add(qn)
        elif isinstance(ctx, ast.Load):
            scope.read.add(qn)
            if self.in_annotation:
                scope.annotations.add(qn)
        elif isinstance(ctx, ast.Del):
            scope.read.add(qn)
            scope.bound.add(qn)
            scope.deleted.add(qn)

    def visit_Name(self, node):  # noqa: N802 (ast's visitor naming)
        self._track(node, node.ag_qn, node.ctx)

    def visit_Attribute(self, node):  # noqa: N802
        self.generic_visit(node)
        self._track(node, node.ag_qn, node.ctx)

    def visit_Subscript(self, node):  # noqa: N802
        self.generic_visit(node)
        self._track(node, node.ag_qn, node.ctx)

    def visit_arg(self, node):  # noqa: N802
        if node.annotation is not None:
            self._annotation(node.annotation)
        if self.annotations_only:
            return
        qn = QN(node.arg)
        self.scope.bound.add(qn)
        self.scope.params[qn] = self.owner

    def _annotation(self, node):
        saved = self.in_annotation
        self.in_annotation = True
        self.visit(node)
        self.in_annotation = saved

    # -- simple statements -----------------------------------------------------------------
    visit_Expr = visit_Assign = visit_Return = visit_Raise = visit_Delete = _statement
    visit_Assert = visit_Pass = visit_Import = visit_ImportFrom = _statement
    visit_Break = visit_Continue = _statement

    def visit_AnnAssign(self, node):  # noqa: N802
        self._enter(False)
        self.visit(node.target)
        if node.value is not None:
            self.visit(node.value)
        self._annotation(node.annotation)
        self._exit(node)

    def visit_AugAssign(self, node):  # noqa: N802
        self._enter(False)
        self.in_aug_assign = True
        self.visit(node.target)
        self.in_aug_assign = False
        self.visit(node.value)
        self._exit(node)

    def visit_Global(self, node):  # noqa: N802
        self._enter(False)
        for name in node.names:
            self.scope.read.add(QN(name))
            self.scope.globals.add(QN(name))
        self._exit(node)

    def visit_Nonlocal(self, node):  # noqa: N802
        self._enter(False)
        for name in node.names:
            self.scope.read.add(QN(name))
            self.scope.bound.add(QN(name))
            self.scope.nonlocals.add(QN(name))
        self._exit(node)

    def visit_alias(self, node):  # noqa: N802
        qn = QN(node.asname if node.asname else node.name.split(".")[0])
        self.scope.modified.add(qn)
        self.scope.bound.add(qn)

    def visit_NamedExpr(self, node):  # noqa: N802
        self.visit(node.value)
        self.visit(node.target)

    def visit_Call(self, node):  # noqa: N802
        self._enter(False)
        for arg in node.args:
            self.visit(arg)
        for keyword in node.keywords:
            self.visit(keyword)
        self._exit(node, "ag_args_scope")
        self.visit(node.func)

    # -- comprehensions --------------------------------------------------------------------
    def _comprehension(self, node, *results):
        self.comprehension_targets.append(set())
        for generator in node.generators:
            self.visit(generator.iter)
            self.visit(generator.target)
            self.generic_visit(generator)
        for result in results:
            self.visit(result)
        self.comprehension_targets.pop()

    def visit_ListComp(self, node):  # noqa: N802
        self._comprehension(node, node.elt)

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):  # noqa: N802
        self._comprehension(node, node.key, node.value)

    # -- definitions -----------------------------------------------------------------------
    def _arg_defaults_and_annotations(self, node):
        for default in node.args.kw_defaults:
            if default is not None:
                self.visit(default)
        for default in node.args.defaults:
            self.visit(default)
        self.annotations_only = True
        self._arg_declarations(node)
        self.annotations_only = False

    def _arg_declarations(self, node):
        saved, self.owner = self.owner, node
        args = node.args
        for arg in args.posonlyargs + args.args:
            self.visit_arg(arg)
        if args.vararg is not None:
            self.visit_arg(args.vararg)
        for arg in args.kwonlyargs:
            self.visit_arg(arg)
        if args.kwarg is not None:
            self.visit_arg(args.kwarg)
        self.owner = saved

    def visit_FunctionDef(self, node):  # noqa: N802
        self._enter(False)  # the statement defining the function, in the enclosing block
        for decorator in node.decorator_list:
            self.visit(decorator)
        if node.returns is not None:
            self._annotation(node.returns)
        self._arg_defaults_and_annotations(node)
        self.scope.modified.add(QN(node.name))
        self.scope.bound.add(QN(node.name))
        self._exit(node)

        self._enter(True, node.name)  # the function itself
        self._enter(False, node.name)
        self._arg_declarations(node)
        self._exit(node.args)
        self._enter(False, node.name)
        for statement in node.body:
            self.visit(statement)
        self._exit(node, "ag_body_scope")
        self._exit(node, "ag_args_and_body_scope")

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):  # noqa: N802
        self._enter(False)
        self._arg_defaults_and_annotations(node)
        self._exit(node)
        self._enter(True)
        self._enter(False)
        self._arg_declarations(node)
        self._exit(node.args)
        self._enter(False)
        self.visit(node.body)
        if not hasattr(node.body, "ag_scope"):
            node.body.ag_scope = self.scope
        self._exit(node, "ag_body_scope")
        lambda_scope = self.scope
        self._exit(node, "ag_args_and_body_scope")
        # a lambda counts as used where it is written: its free reads belong to the statement
        self.scope.read.update(lambda_scope.read - lambda_scope.bound)

    def visit_ClassDef(self, node):  # noqa: N802
        self._enter(False)
        for decorator in node.decorator_list:
            self.visit(decorator)
        self.scope.modified.add(QN(node.name))
        self.scope.bound.add(QN(node.name))
        for base in node.bases:
            self.visit(base)
        for keyword in node.keywords:
            self.visit(keyword)
        self._exit(node)
        self._enter(True)
        for statement in node.body:
            self.visit(statement)
        self._exit()

    # -- compound statements ---------------------------------------------------------------
    def _block(self, node, statements, tag):
        self._enter(False)
        for statement in statements:
            self.visit(statement)
        self._exit(node, tag)

    def _parallel_blocks(self, node, blocks):
        """Visit alternative blocks (if/else) each from the same starting state, then merge."""
        before = Scope.copy_of(self.scope)
        after = []
        for statements, tag in blocks:
            self.scope.copy_from(before)
            self._block(node, statements, tag)
            after.append(Scope.copy_of(self.scope))
        for state in after:
            self.scope.merge_from(state)

    def visit_If(self, node):  # noqa: N802
        self._enter(False)
        self.visit(node.test)
        node.ag_cond_scope = self._exit(node.test)
        self._parallel_blocks(node, ((node.body, "ag_body_scope"), (node.orelse, "ag_orelse_scope")))

    def visit_While(self, node):  # noqa: N802
        self._enter(False)
        self.visit(node.test)
        node.ag_cond_scope = self._exit(node.test)
        self._parallel_blocks(node, ((node.body, "ag_body_scope"), (node.orelse, "ag_orelse_scope")))

    def visit_For(self, node):  # noqa: N802
        self._enter(False)
        self.visit(node.target)
        self.visit(node.iter)
        self._exit(node.iter)
        self._enter(False)
        self.visit(node.target)
        extra_test = getattr(node, "ag_extra_test", None)
        if extra_test is not None:
            resolve_qns(extra_test)  # not part of the tree: named here
            self._enter(False)
            self.visit(extra_test)
            self._exit(extra_test)
        self._exit(node, "ag_iterate_scope")
        self._parallel_blocks(node, ((node.body, "ag_body_scope"), (node.orelse, "ag_orelse_scope")))

    def visit_With(self, node):  # noqa: N802
        self._enter(False)
        for item in node.items:
            self._statement(item)
        for statement in node.body:
            self.visit(statement)
        self._exit(node, "ag_body_scope")

    def visit_Try(self, node):  # noqa: N802
        for statement in node.body + node.orelse + node.finalbody:
            self.visit(statement)
        for handler in node.handlers:
            self.visit(handler)

    visit_TryStar = visit_Try

    def visit_ExceptHandler(self, node):  # noqa: N802
        self._enter(False)
        if node.type is not None:
            self.visit(node.type)
        if node.name is not None:
            qn = QN(node.name)
            self.scope.isolated_names.add(qn)
            self.scope.modified.add(qn)
            self.scope.bound.add(qn)
        for statement in node.body:
            self.visit(statement)
        self._exit()


def resolve(node):
    """Name the expressions under `node` and annotate its blocks with their scopes."""
    resolve_qns(node)
    _Analyzer().visit(node)
    return node
