"""JavaScript, TypeScript and TSX: path-based module names, ``export``, JSDoc comments."""

from __future__ import annotations

from typing import Any, ClassVar

from ragstrata.ingest.code.rules import DefContext, LanguageRules
from ragstrata.ingest.code.source import collapse

__all__ = ["JavaScriptRules", "TsxRules", "TypeScriptRules", "strip_extension"]

_MEMBERS = frozenset(
    {
        "method_definition",
        "method_signature",
        "abstract_method_signature",
        "field_definition",
        "public_field_definition",
    }
)
# definitions that bind a function value to a name: `name = (...) => {...}`
_BOUND = frozenset(
    {
        "variable_declarator",
        "field_definition",
        "public_field_definition",
        "pair",
        "assignment_expression",
    }
)
_EXTENSIONS = (".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")


def strip_extension(path: str) -> str:
    """``src/api/client.ts`` -> ``src/api/client``."""
    for ext in _EXTENSIONS:
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


class JavaScriptRules(LanguageRules):
    language: ClassVar[str] = "javascript"
    wrappers: ClassVar[frozenset[str]] = frozenset(
        {"export_statement", "lexical_declaration", "variable_declaration"}
    )
    container_kinds: ClassVar[frozenset[str]] = frozenset({"class", "interface"})

    def qualifier(self, path: str, package: str | None) -> str:
        return strip_extension(path)

    def entry_name(self, node: Any, name: str, path: str) -> str:
        """``module.exports = function f(..) {..}`` is ``f``; an anonymous one is named after
        its file (``lib/send.js`` -> ``send``; an ``index`` file after its folder)."""
        left = node.child_by_field_name("left") if node.type == "assignment_expression" else None
        if left is None or left.type != "member_expression" or name != "exports":
            return name
        obj = left.child_by_field_name("object")
        if obj is None or obj.text != b"module":
            return name
        right = node.child_by_field_name("right")
        own = right.child_by_field_name("name") if right is not None else None
        if own is not None and own.text:
            return own.text.decode("utf-8", errors="replace")
        stem, _, folder = strip_extension(path).rpartition("/")[::-1]
        if stem == "index" and folder:
            stem = folder.rsplit("/", 1)[-1]
        return stem or name

    def outer(self, node: Any) -> Any:
        parent = node.parent
        # `const a = 1, b = () => {}`: the declarator alone
        if (
            node.type == "variable_declarator"
            and parent is not None
            and parent.named_child_count > 1
        ):
            return node
        return super().outer(node)

    def signature(self, ctx: DefContext) -> str:
        node, src = ctx.node, ctx.src
        if node.type in _BOUND:
            value = node.child_by_field_name("value") or node.child_by_field_name("right")
            body = value.child_by_field_name("body") if value is not None else None
            start = src.offset(ctx.outer.start_point)
            if ctx.kind in {"function", "method"} and body is not None:
                text = src.text[start : src.offset(body.start_point)]
            else:
                text = src.node_text(ctx.outer).split("\n", 1)[0]
            return collapse(text).rstrip("{;= ").strip()[:400]
        return super().signature(ctx)

    def decorators(self, ctx: DefContext) -> tuple[str, ...]:
        found = []
        for holder in (ctx.outer, ctx.node):
            for child in holder.children:
                if child.type == "decorator":
                    found.append(collapse(ctx.src.node_text(child)).lstrip("@"))
        return tuple(dict.fromkeys(found))

    def is_exported(self, ctx: DefContext) -> bool:
        node = ctx.node
        if node.type in _MEMBERS:
            if ctx.name.startswith("#"):
                return False
            for child in node.children:
                if child.type == "accessibility_modifier" and ctx.src.node_text(child) != "public":
                    return False
            return ctx.parent_exported
        if node.type == "assignment_expression":  # CommonJS: module.exports.f = ...
            left = ctx.src.node_text(node.child_by_field_name("left") or node)
            return left.startswith(("module.exports", "exports."))
        cur = node
        while cur is not None and cur.type != "program":
            if cur.type == "export_statement":
                return True
            cur = cur.parent
        return False


class TypeScriptRules(JavaScriptRules):
    language: ClassVar[str] = "typescript"


class TsxRules(JavaScriptRules):
    language: ClassVar[str] = "tsx"
