"""Python: dotted module names from the path, docstrings, decorators, ``_private`` names."""

from __future__ import annotations

import ast
import inspect
from typing import Any, ClassVar

from ragstrata.ingest.code.rules import DefContext, LanguageRules
from ragstrata.ingest.code.source import Source, collapse

__all__ = ["PythonRules", "python_module", "string_literal"]

_NOT_PACKAGES = frozenset({"src", "lib", "python", "source"})


def python_module(path: str) -> str:
    """``src/pkg/sub/mod.py`` -> ``pkg.sub.mod``; ``pkg/__init__.py`` -> ``pkg``.

    Everything up to a ``src`` folder is dropped, and a leading folder that cannot be a
    package (``lib``, ``python``, a name that is not an identifier) is dropped too.
    """
    parts = path.split("/")
    last = parts[-1]
    for suffix in (".pyi", ".pyw", ".py"):
        if last.endswith(suffix):
            last = last[: -len(suffix)]
            break
    parts[-1] = last
    if last == "__init__":
        parts.pop()
    if "src" in parts[:-1]:
        parts = parts[len(parts) - 1 - parts[::-1].index("src") + 1 :]
    while len(parts) > 1 and (parts[0] in _NOT_PACKAGES or not parts[0].isidentifier()):
        parts.pop(0)
    return ".".join(parts)


def string_literal(node: Any, src: Source) -> str | None:
    """The value of a Python string node (prefixes and quotes removed), cleaned like ``ast``."""
    raw = src.node_text(node)
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        stripped = raw.lstrip("rRbBuUfF")
        for quote in ('"""', "'''", '"', "'"):
            if stripped.startswith(quote) and stripped.endswith(quote) and len(stripped) >= 2:
                stripped = stripped[len(quote) : -len(quote)]
                break
        value = stripped
    if isinstance(value, bytes):
        return None
    return inspect.cleandoc(str(value)) if value is not None else None


def first_string(block: Any, src: Source) -> str | None:
    """Docstring: the first statement of a block, when it is a plain string expression."""
    if block is None:
        return None
    for child in block.named_children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_child_count == 1:
            expr = child.named_children[0]
            if expr.type == "string":
                return string_literal(expr, src)
        return None
    return None


class PythonRules(LanguageRules):
    language: ClassVar[str] = "python"
    wrappers: ClassVar[frozenset[str]] = frozenset({"decorated_definition"})
    comment_types: ClassVar[frozenset[str]] = frozenset({"comment"})
    type_nodes: ClassVar[frozenset[str]] = frozenset({"identifier", "attribute"})

    def qualifier(self, path: str, package: str | None) -> str:
        return python_module(path)

    def signature(self, ctx: DefContext) -> str:
        if ctx.kind in {"constant", "type_alias"}:
            return collapse(ctx.src.node_text(ctx.node))[:400]
        return super().signature(ctx)

    def docstring(self, ctx: DefContext) -> str | None:
        if ctx.kind in {"constant", "type_alias"}:
            return None
        return first_string(ctx.node.child_by_field_name("body"), ctx.src)

    def module_doc(self, root: Any, src: Source) -> tuple[str, Any] | None:
        doc = first_string(root, src)
        if not doc:
            return None
        for child in root.named_children:
            if child.type != "comment":
                return doc, child
        return None

    def decorators(self, ctx: DefContext) -> tuple[str, ...]:
        parent = ctx.node.parent
        if parent is None or parent.type != "decorated_definition":
            return ()
        return tuple(
            collapse(ctx.src.node_text(c)).lstrip("@").strip()
            for c in parent.children
            if c.type == "decorator"
        )

    def is_exported(self, ctx: DefContext) -> bool:
        name = ctx.name
        private = name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
        return ctx.parent_exported and not private

    def imports(self, node: Any, names: list[Any], src: Source) -> list[tuple[str, str]]:
        """``import a.b`` -> ``a.b``; ``from .m import x`` -> ``.m.x`` (module ``.m``)."""
        if node.type == "import_statement":
            out = []
            for c in node.children_by_field_name("name"):
                target = _import_target(c, src)
                out.append((target, target.split(" as ")[0]))
            return out
        if node.type == "future_import_statement":
            return [
                ("__future__." + _import_target(c, src), "__future__")
                for c in node.children_by_field_name("name")
            ]
        module_node = node.child_by_field_name("module_name")
        module = collapse(src.node_text(module_node)).replace(" ", "") if module_node else ""
        targets = [_import_target(c, src) for c in node.children_by_field_name("name")]
        joiner = "" if module.endswith(".") else "."
        if not targets:  # from x import *
            return [(module + joiner + "*", module)]
        return [(module + joiner + t, module) for t in targets]  # ``t`` may end ``as alias``


def _import_target(node: Any, src: Source) -> str:
    """``a.b`` / ``a.b as c`` (the name a file binds is the alias)."""
    if node.type == "aliased_import":
        name = node.child_by_field_name("name")
        alias = node.child_by_field_name("alias")
        target = collapse(src.node_text(name)).replace(" ", "")
        return f"{target} as {src.node_text(alias)}" if alias is not None else target
    return collapse(src.node_text(node)).replace(" ", "")
