"""No import cycle inside ``src/ragstrata``.

The graph is read with ``ast`` from the source, not by importing it: an edge is every import
that runs when the module is loaded — module level, including ``if TYPE_CHECKING:`` blocks
and ``try:`` fallbacks (a type checker follows those too) — while imports inside functions
(deliberately lazy) are not edges. ``from pkg import name`` is an edge to ``pkg.name`` when
that is a module, else to ``pkg``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import ragstrata

ROOT = Path(ragstrata.__file__).parent
PACKAGE = "ragstrata"


def _module_name(path: Path) -> str:
    parts = [PACKAGE, *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _load_time_nodes(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Import statements outside any function or class body's methods (classes run at load)."""
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        else:
            stack.extend(ast.iter_child_nodes(node))


def _base(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    keep = len(parts) - node.level + (1 if is_package else 0)
    prefix = ".".join(parts[:keep])
    return f"{prefix}.{node.module}" if node.module else prefix


def import_graph() -> dict[str, set[str]]:
    """Module -> the ``ragstrata`` modules it imports at load time."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in _load_time_nodes(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _base(name, node, path.name == "__init__.py")
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                    for a in node.names
                ]
            for target in targets:
                while target and target not in modules:  # import a.b.c of a non-module tail
                    target = target.rpartition(".")[0]
                if target.startswith(PACKAGE) and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_the_reader_sees_the_edges_that_exist() -> None:
    graph = import_graph()
    assert "ragstrata.errors" in graph["ragstrata.app.facade"]  # module level
    assert "ragstrata.store.protocols" in graph["ragstrata.app.facade"]  # under TYPE_CHECKING
    assert "ragstrata.retrieve.retriever" not in graph["ragstrata.app.facade"]  # lazy, in a method
    assert "ragstrata.http.app" in graph["ragstrata.http"]  # from ragstrata.http.app import ...


def test_cycle_finder_finds_a_planted_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_import_cycle_in_ragstrata() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)
