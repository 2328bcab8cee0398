"""C and C++: ``static`` hides, C++ ``ns::Class::method`` names and access specifiers."""

from __future__ import annotations

from typing import Any, ClassVar

from ragstrata.ingest.code.rules import DefContext, LanguageRules
from ragstrata.ingest.code.source import collapse

__all__ = ["CRules", "CppRules"]


def _is_static(node: Any, ctx: DefContext) -> bool:
    return any(
        c.type == "storage_class_specifier" and ctx.src.node_text(c) == "static"
        for c in node.children
    )


class CRules(LanguageRules):
    language: ClassVar[str] = "c"
    wrappers: ClassVar[frozenset[str]] = frozenset({"type_definition"})

    def outer(self, node: Any) -> Any:
        parent = node.parent
        if node.type in {"struct_specifier", "union_specifier", "enum_specifier"} and (
            parent is not None and parent.type in self.wrappers
        ):
            return parent
        return node

    def signature(self, ctx: DefContext) -> str:
        if ctx.kind in {"constant", "macro"}:
            return collapse(ctx.src.node_text(ctx.node).split("\n", 1)[0])[:400]
        return super().signature(ctx)

    def is_exported(self, ctx: DefContext) -> bool:
        return not _is_static(ctx.node, ctx)


class CppRules(CRules):
    language: ClassVar[str] = "cpp"
    sep: ClassVar[str] = "::"
    ns_sep: ClassVar[str] = "::"
    wrappers: ClassVar[frozenset[str]] = frozenset({"type_definition", "template_declaration"})

    def outer(self, node: Any) -> Any:
        parent = node.parent
        if parent is not None and parent.type == "template_declaration":
            return parent
        return super().outer(node)

    def is_exported(self, ctx: DefContext) -> bool:
        node = ctx.node
        parent = node.parent
        if parent is not None and parent.type == "field_declaration_list":
            access = None
            sib = node.prev_sibling
            while sib is not None:
                if sib.type == "access_specifier":
                    access = ctx.src.node_text(sib)
                    break
                sib = sib.prev_sibling
            holder = parent.parent
            if access is None:
                access = (
                    "private"
                    if holder is not None and holder.type == "class_specifier"
                    else "public"
                )
            return ctx.parent_exported and not access.startswith("private")
        return ctx.parent_exported and not _is_static(node, ctx)
