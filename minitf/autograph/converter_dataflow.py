"""Dataflow over a function's control flow graph: which names are defined when a statement
starts (reaching definitions), which function definitions reach it, and which names are live
when it starts and ends (liveness).

The graph has one node per simple statement and one per header of a compound statement (the
test of an `if`/`while`, the iterate of a `for`, each `with` item, the argument list); edges
follow Python's control flow, including `break`, `continue`, `return` and `raise`. A `try`
body is taken to run whole, then one handler or none. Each node's effect comes from the scope
that activity analysis left on it (`converter_activity`), so that runs first.

Results land on the compound statements (`if`, `while`, `for`, `try`, `except`):
`ag_defined_in` (names with a definition reaching the statement from before it),
`ag_live_in` and `ag_live_out` (names live when it starts and after it ends).
"""
import ast

__all__ = ["resolve"]

_COMPOUND = (ast.If, ast.While, ast.For, ast.Try, ast.ExceptHandler)


class _Node:
    __slots__ = ("ast", "next", "prev", "owners")

    def __init__(self, node, owners):
        self.ast = node
        self.next = []
        self.prev = []
        self.owners = owners


class _Graph:
    """The control flow graph of one function body."""

    def __init__(self):
        self.nodes = []
        self.index = {}
        self.leaves = []
        self.owners = []        # compound statements enclosing the current position
        self.loops = []         # [head node, break nodes, finally depth] of enclosing loops
        self.raises = []        # raise nodes of each enclosing try body that has handlers
        self.finally_jumps = []  # (jumps, loop depth) of each enclosing try that has a finally
        self.nested = []        # function definitions met (their bodies get graphs of their own)

    def add(self, node):
        cfg_node = _Node(node, frozenset(self.owners))
        for leaf in self.leaves:
            _connect(leaf, cfg_node)
        self.leaves = [cfg_node]
        self.nodes.append(cfg_node)
        self.index[node] = cfg_node
        return cfg_node

    def block(self, statements):
        for statement in statements:
            self.statement(statement)

    def statement(self, node):
        handler = getattr(self, "_" + type(node).__name__, None)
        if handler is not None:
            handler(node)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.nested.append(node)
        self.add(node)

    def _ClassDef(self, node):  # noqa: N802
        self.add(node)
        pending = list(node.body)
        while pending:
            member = pending.pop(0)
            if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.nested.append(member)
            elif isinstance(member, ast.ClassDef):
                pending.extend(member.body)

    def _If(self, node):  # noqa: N802
        self.owners.append(node)
        head = self.add(node.test)
        self.block(node.body)
        after_body = self.leaves
        self.leaves = [head]
        self.block(node.orelse)
        self.leaves = after_body + self.leaves
        self.owners.pop()

    def _loop(self, node, head_ast, first=None):
        self.owners.append(node)
        head = self.add(head_ast)
        if first is not None:
            self.add(first)
        breaks = []
        self.loops.append((head, breaks, len(self.finally_jumps)))
        self.block(node.body)
        for leaf in self.leaves:
            _connect(leaf, head)
        self.loops.pop()
        self.leaves = [head]
        self.block(node.orelse)
        self.leaves = self.leaves + breaks
        self.owners.pop()

    def _While(self, node):  # noqa: N802
        self._loop(node, node.test)

    def _For(self, node):  # noqa: N802
        self._loop(node, node.iter, getattr(node, "ag_extra_test", None))

    # -- jumps: they pass through the finally blocks between them and their target -----------
    def _jump(self, node, kind):
        cfg_node = self.add(node)
        self.leaves = []
        self._route([cfg_node], kind, len(self.finally_jumps))
        return cfg_node

    def _route(self, sources, kind, depth):
        """Send a jump (from `sources`) to the innermost finally block at or below `depth`
        that lies between it and its target, or to the target itself."""
        floor = self.loops[-1][2] if kind in ("break", "continue") and self.loops else 0
        if depth > floor:
            self.finally_jumps[depth - 1][0].append((sources, kind))
        elif kind == "break" and self.loops:
            self.loops[-1][1].extend(sources)
        elif kind == "continue" and self.loops:
            for source in sources:
                _connect(source, self.loops[-1][0])

    def _Break(self, node):  # noqa: N802
        self._jump(node, "break")

    def _Continue(self, node):  # noqa: N802
        self._jump(node, "continue")

    def _Return(self, node):  # noqa: N802
        self._jump(node, "exit")

    def _Raise(self, node):  # noqa: N802
        cfg_node = self._jump(node, "exit")
        for raised in self.raises:  # every enclosing handler may catch it
            raised.append(cfg_node)

    def _With(self, node):  # noqa: N802
        for item in node.items:
            self.add(item)
        self.block(node.body)

    def _Try(self, node):  # noqa: N802
        self.owners.append(node)
        if node.finalbody:
            self.finally_jumps.append(([], len(self.loops)))
        if node.handlers:
            self.raises.append([])
        self.block(node.body)
        if node.orelse:
            after_body = self.leaves
            self.block(node.orelse)
            self.leaves = self.leaves + after_body
        raised = self.raises.pop() if node.handlers else []
        if node.handlers:
            entry = self.leaves + raised
            # as TF's graph builder: the raise nodes join the branch where no handler runs too
            ends = list(entry)
            for handler in node.handlers:
                self.owners.append(handler)
                self.leaves = list(entry)
                self.block(handler.body)
                ends += self.leaves
                self.owners.pop()
            self.leaves = ends
        if node.finalbody:
            self._finally(node)
        self.owners.pop()

    _TryStar = _Try

    def _finally(self, node):
        jumps, _ = self.finally_jumps.pop()
        direct = bool(self.leaves)
        first = len(self.nodes)
        self.block(node.finalbody)
        ends = self.leaves
        if len(self.nodes) > first:
            for sources, _ in jumps:
                for source in sources:
                    _connect(source, self.nodes[first])
        for sources, kind in jumps:  # then on towards their targets
            self._route(ends if len(self.nodes) > first else sources, kind,
                        len(self.finally_jumps))
        if not direct:  # reached only by jumps: it does not flow into the next statement
            self.leaves = []


def _connect(first, second):
    if second not in first.next:
        first.next.append(second)
        second.prev.append(first)


def _scope(node):
    return getattr(node.ast, "ag_scope", None)


def _reaching_definitions(graph):
    """Forward: the names with a definition reaching the end of each node."""
    out = {n: frozenset() for n in graph.nodes}
    work = list(graph.nodes)
    while work:
        node = work.pop(0)
        defined = set()
        for prev in node.prev:
            defined |= out[prev]
        scope = _scope(node)
        if scope is not None:
            gen = (scope.bound | scope.globals) - scope.deleted
            gen |= set(scope.params)
            defined = gen | (defined - (scope.modified | scope.deleted))
        defined = frozenset(defined)
        if defined != out[node]:
            out[node] = defined
            work.extend(n for n in node.next if n not in work)
    return out


def _reaching_functions(graph, external):
    """Forward: the function definitions reaching the start of each node."""
    into = {n: frozenset() for n in graph.nodes}
    out = {n: frozenset() for n in graph.nodes}
    entry = graph.nodes[0] if graph.nodes else None
    work = list(graph.nodes)
    while work:
        node = work.pop(0)
        reaching = set(external) if node is entry else set()
        for prev in node.prev:
            reaching |= out[prev]
        into[node] = frozenset(reaching)
        if isinstance(node.ast, (ast.FunctionDef, ast.AsyncFunctionDef)):
            reaching.add(node.ast)
        reaching = frozenset(reaching)
        if reaching != out[node]:
            out[node] = reaching
            work.extend(n for n in node.next if n not in work)
    return into


def _liveness(graph, functions_in):
    """Backward: the names live at the start of each node."""
    live_in = {n: frozenset() for n in graph.nodes}
    work = list(reversed(graph.nodes))
    while work:
        node = work.pop(0)
        live_out = set()
        for following in node.next:
            live_out |= live_in[following]
        scope = _scope(node)
        if scope is not None:
            live = set(scope.read) | (live_out - (scope.modified | scope.deleted))
        else:
            live = live_out
        for function in functions_in[node]:
            fn_scope = function.ag_args_and_body_scope
            live |= fn_scope.read - fn_scope.bound  # a closure may read them at any call
        live = frozenset(live)
        if live != live_in[node]:
            live_in[node] = live
            work.extend(n for n in node.prev if n not in work)
    return live_in


def _entry_of(statement):
    if isinstance(statement, (ast.If, ast.While)):
        return statement.test
    if isinstance(statement, ast.For):
        return statement.iter
    return statement.body[0] if statement.body else None


def _annotate(graph, defined_out, live_in):
    prev, following = {}, {}
    for node in graph.nodes:
        for nxt in node.next:
            for statement in node.owners - nxt.owners:
                following.setdefault(statement, set()).add(nxt)
            for statement in nxt.owners - node.owners:
                prev.setdefault(statement, set()).add(node)
    statements = {s for node in graph.nodes for s in node.owners}
    for statement in statements:
        defined = set()
        for node in prev.get(statement, ()):
            defined |= defined_out[node]
        statement.ag_defined_in = frozenset(defined)
        live = set()
        for node in following.get(statement, ()):
            live |= live_in[node]
        statement.ag_live_out = frozenset(live)
        entry = graph.index.get(_entry_of(statement))
        statement.ag_live_in = live_in[entry] if entry is not None else frozenset()


def _analyze_function(function, external_functions):
    graph = _Graph()
    graph.add(function.args)
    if isinstance(function, ast.Lambda):
        return
    graph.block(function.body)
    defined_out = _reaching_definitions(graph)
    functions_in = _reaching_functions(graph, external_functions)
    live_in = _liveness(graph, functions_in)
    _annotate(graph, defined_out, live_in)
    for nested in graph.nested:
        _analyze_function(nested, functions_in.get(graph.index.get(nested), frozenset()))


def resolve(function):
    """Annotate the compound statements of `function` (a FunctionDef whose scopes activity
    analysis has set) and of the functions nested in it."""
    _analyze_function(function, frozenset())
    return function
