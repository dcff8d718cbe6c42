"""The package's shape: imports flow one way between modules and between rooms, and few imports
hide inside functions.

A room is what sits directly under minitf/: a package (`minitf.ops`, `minitf.layers`, ...) or a
top-level module (`minitf.tensor`, `minitf.tape`, ...). Rooms are cut by concept, not by size, so
no module size limit is checked; what is checked is that no two rooms import each other, however
indirectly.

The import graph is read from the source with `ast`, module-level and function-level imports
alike, so a cycle cannot hide behind a lazy import. Run this file as a script for a report:

    python tests/test_package_structure.py
"""
import ast
import collections
import pathlib
import sys

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "minitf"
MAX_FUNCTION_IMPORTS = 40
REASON_MARK = "# lazy:"  # a function-level import says why on its own line


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules():
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _targets(module, node, modules):
    """The package modules an import statement in `module` loads."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module if modules[module].name == "__init__.py" else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{base}" if base else package
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                 for alias in node.names]
    found = []
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            found.append(name)
    return found


class _ImportCollector(ast.NodeVisitor):
    def __init__(self):
        self.imports = []  # (node, inside_function)
        self._depth = 0

    def visit_FunctionDef(self, node):  # noqa: N802 (ast's visitor naming)
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_Import(self, node):  # noqa: N802
        self.imports.append((node, self._depth > 0))

    visit_ImportFrom = visit_Import


def scan():
    """(edges, function-level imports, line counts) of the package, read from its source."""
    modules = _modules()
    edges = collections.defaultdict(set)
    inner = []
    lines = {}
    for name, path in modules.items():
        source = path.read_text()
        lines[name] = len(source.splitlines())
        source_lines = source.splitlines()
        collector = _ImportCollector()
        collector.visit(ast.parse(source))
        for node, in_function in collector.imports:
            edges[name].update(_targets(name, node, modules))
            if in_function:
                line = source_lines[node.lineno - 1]
                inner.append((name, node.lineno, line.strip(), REASON_MARK in line))
    return edges, inner, lines


def cycles(edges):
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = 0
    for root in list(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_import_graph_has_no_cycle():
    edges, _, _ = scan()
    assert cycles(edges) == []


def test_few_imports_inside_functions_each_with_a_reason():
    _, inner, _ = scan()
    unexplained = [f"{m}:{n}: {text}" for m, n, text, has_reason in inner if not has_reason]
    assert unexplained == []
    assert len(inner) < MAX_FUNCTION_IMPORTS


def room_of(module):
    """The room a module belongs to: `minitf.ops.math` -> `minitf.ops`; `minitf.tensor` itself."""
    return ".".join(module.split(".")[:2])


def room_edges(edges):
    """{room: rooms it imports}, leaving out the facade `minitf` (its __init__ imports everything
    and nothing may import it) and imports inside one room."""
    found = collections.defaultdict(set)
    for module, targets in edges.items():
        for target in targets:
            source_room, target_room = room_of(module), room_of(target)
            if source_room != target_room and "minitf" not in (source_room, target_room):
                found[source_room].add(target_room)
    return found


def test_rooms_import_one_way():
    """No package knot: between rooms, as between modules, imports never run in a loop."""
    edges, _, _ = scan()
    assert cycles(room_edges(edges)) == []


def test_no_module_imports_the_facade():
    """Inside the package, code imports the module it needs, never `minitf` itself."""
    modules = _modules()
    offenders = []
    for name, path in modules.items():
        if name == "minitf":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import) and any(a.name == "minitf" for a in node.names):
                offenders.append(f"{name}:{node.lineno}")
            elif isinstance(node, ast.ImportFrom) and node.module == "minitf" and not node.level \
                    and any(f"minitf.{a.name}" not in modules for a in node.names):
                offenders.append(f"{name}:{node.lineno}")
    assert offenders == []


def test_the_scanner_sees_cycles_and_lazy_imports(tmp_path):
    """The checks above could fail: a lazy import that closes a loop is a cycle."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    rooms = room_edges({"minitf.ops.math": {"minitf.ragged.ops", "minitf.ops.core"},
                        "minitf.ragged.ops": {"minitf.ops.core"}, "minitf": {"minitf.ops"}})
    assert cycles(rooms) == [["minitf.ops", "minitf.ragged"]]
    collector = _ImportCollector()
    collector.visit(ast.parse("import os\ndef f():\n    import json\n"))
    assert [inside for _, inside in collector.imports] == [False, True]


def _report():
    edges, inner, lines = scan()
    print(f"imports inside functions: {len(inner)} (limit {MAX_FUNCTION_IMPORTS})")
    for module, count in collections.Counter(m for m, *_ in inner).most_common():
        print(f"  {count:4d} {module}")
    found = cycles(edges)
    print(f"module cycles: {len(found)}")
    for component in found:
        print(f"  {len(component)}: {' '.join(component)}")
    knots = cycles(room_edges(edges))
    print(f"room knots: {len(knots)}")
    for component in knots:
        print(f"  {len(component)}: {' '.join(component)}")
    rooms = sorted({room_of(m) for m in lines})
    print(f"rooms: {len(rooms)}; modules: {len(lines)}; largest modules:")
    for n, m in sorted(((n, m) for m, n in lines.items()), reverse=True)[:10]:
        print(f"  {n:5d} {m}")


if __name__ == "__main__":
    sys.exit(_report())
