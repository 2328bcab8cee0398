"""Go: ``package.Type.Method`` names, capitalised names are exported, ``//`` doc blocks."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from ragstrata.ingest.code.rules import DefContext, LanguageRules
from ragstrata.ingest.code.source import Source

__all__ = ["GoRules"]

# a directive comment (``//go:noinline``, ``//nolint:errcheck``, ``//export F``) is not doc text
_DIRECTIVE = re.compile(r"^//(?:[a-z0-9]+:[a-z0-9]|line |extern |export |\s*\+build )")
_TYPE_KINDS = {"struct_type": "struct", "interface_type": "interface"}


class GoRules(LanguageRules):
    language: ClassVar[str] = "go"
    wrappers: ClassVar[frozenset[str]] = frozenset(
        {"type_declaration", "const_declaration", "var_declaration"}
    )

    def is_doc_comment(self, text: str) -> bool:
        return not _DIRECTIVE.match(text)

    def kind_of(self, kind: str, node: Any) -> str:
        if kind == "type":
            inner = node.child_by_field_name("type")
            return _TYPE_KINDS.get(inner.type if inner is not None else "", "type_alias")
        return kind

    def outer(self, node: Any) -> Any:
        parent = node.parent
        if parent is not None and parent.type in self.wrappers and parent.named_child_count == 1:
            return parent  # a grouped `type ( ... )` keeps the spec itself
        return node

    def body(self, node: Any) -> Any | None:
        if node.type == "type_spec":
            inner = node.child_by_field_name("type")
            if inner is not None and inner.type in _TYPE_KINDS:
                for child in inner.named_children:
                    return child if child.type == "field_declaration_list" else inner
        return super().body(node)

    def signature(self, ctx: DefContext) -> str:
        sig = super().signature(ctx)
        if ctx.outer is not ctx.node and ctx.node.type == "type_spec":
            return "type " + sig
        return sig

    def is_exported(self, ctx: DefContext) -> bool:
        return ctx.name[:1].isupper()

    def imports(self, node: Any, names: list[Any], src: Source) -> list[tuple[str, str]]:
        """``u "example.com/m/util"`` binds ``u``: written ``example.com/m/util as u`` so
        ``u.Helper()`` resolves through the import (``_`` and ``.`` bind no name)."""
        out = super().imports(node, names, src)
        alias = node.child_by_field_name("name")
        name = src.node_text(alias).strip() if alias is not None else ""
        if not out or name in ("", "_", "."):
            return out
        return [(f"{text} as {name}", module) for text, module in out]
