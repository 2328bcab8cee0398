"""Kotlin: package-qualified names; public unless ``private``/``internal``."""

from __future__ import annotations

from typing import Any, ClassVar

from ragstrata.ingest.code.lang_java import annotation_texts, modifier_words
from ragstrata.ingest.code.rules import DefContext, LanguageRules
from ragstrata.ingest.code.source import collapse

__all__ = ["KotlinRules"]


class KotlinRules(LanguageRules):
    language: ClassVar[str] = "kotlin"
    # a top-level `@Ann("x")` line parses as an expression standing before the declaration
    skip_before: ClassVar[frozenset[str]] = frozenset({"annotated_expression", "annotation"})

    def kind_of(self, kind: str, node: Any) -> str:
        if kind != "class":
            return kind
        for child in node.children:
            if child.type == "interface":
                return "interface"
            if child.type == "modifiers" and "enum" in child.text.decode("utf-8", "replace"):
                return "enum"
        return kind

    def decorators(self, ctx: DefContext) -> tuple[str, ...]:
        found: list[str] = []
        sib = ctx.outer.prev_named_sibling
        while sib is not None and sib.type in self.skip_before:
            found.insert(0, collapse(ctx.src.node_text(sib)).lstrip("@"))
            sib = sib.prev_named_sibling
        return (*found, *annotation_texts(ctx.node, ctx, frozenset({"annotation"})))

    def is_exported(self, ctx: DefContext) -> bool:
        words = modifier_words(ctx.node, ctx)
        return ctx.parent_exported and not words & {"private", "internal"}
