"""The floor plan is held: each part of ``src/ragstrata`` imports only the parts below it.

The rules are data (``tests/layers.toml``), the same table ``docs/architecture.md`` draws. Every
import counts — module level, ``if TYPE_CHECKING:`` blocks and imports inside functions (lazy on
purpose, but still a dependency) — read with ``ast`` from the source, not by importing it.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import ragstrata

ROOT = Path(ragstrata.__file__).parent
PACKAGE = "ragstrata"
RULES = tomllib.loads((Path(__file__).parent / "layers.toml").read_text(encoding="utf-8"))


def _module_name(path: Path) -> str:
    parts = [PACKAGE, *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def part_of(module: str) -> str | None:
    """The part a module belongs to: the longest prefix in ``[parts]`` that names it."""
    best, best_len = None, -1
    for part, prefixes in RULES["parts"].items():
        for prefix in prefixes:
            # the root package names only itself (``ragstrata/__init__.py``, the public API)
            inside = prefix != PACKAGE and module.startswith(prefix + ".")
            if (module == prefix or inside) and len(prefix) > best_len:
                best, best_len = part, len(prefix)
    return best


def _imported(module: str, path: Path, tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, imported ragstrata module or package) for every import in the file."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join(parts[:keep] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def _resolve(target: str, modules: set[str]) -> str:
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target


def violations() -> list[str]:
    """Every import that crosses the floor plan, as ``module:line -> target (a -> b)``."""
    paths = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}
    modules = set(paths)
    allowed = {part: {part, "floor", *deps} for part, deps in RULES["imports"].items()}
    found: set[str] = set()
    for module, path in paths.items():
        source = part_of(module)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for line, raw in _imported(module, path, tree):
            if not raw.startswith(PACKAGE):
                continue
            target = _resolve(raw, modules)
            dest = part_of(target)
            if source is None or dest is None:
                found.add(f"{module}:{line} -> {target} (a module outside every part)")
            elif dest not in allowed[source]:
                found.add(f"{module}:{line} -> {target} ({source} -> {dest})")
    return sorted(found)


def test_every_part_has_rules() -> None:
    assert set(RULES["parts"]) == set(RULES["imports"])
    for deps in RULES["imports"].values():
        assert set(deps) <= set(RULES["parts"])


def test_every_module_is_in_a_part() -> None:
    orphans = [m for m in map(_module_name, ROOT.rglob("*.py")) if part_of(m) is None]
    assert orphans == []


def test_imports_follow_the_floor_plan() -> None:
    assert violations() == []


def test_a_crossing_import_is_caught(tmp_path: Path) -> None:
    """The checker itself: a store module importing the answer stage is reported."""
    tree = ast.parse("def f():\n    from ragstrata.answer import graphs\n")
    hits = list(_imported("ragstrata.store.x", tmp_path / "x.py", tree))
    assert hits == [(2, "ragstrata.answer.graphs")]
    assert part_of("ragstrata.store.x") == "store"
    assert "answer" not in RULES["imports"]["store"]


def test_the_product_never_imports_testing() -> None:
    assert not [v for v in violations() if "(" in v and "-> testing)" in v]
    assert all("testing" not in deps for p, deps in RULES["imports"].items() if p != "testing")
