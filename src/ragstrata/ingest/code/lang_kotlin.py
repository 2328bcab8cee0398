"""Kotlin: package-qualified names; public unless ``private``/``internal``."""

from __future__ import annotations

from typing import Any, ClassVar

from ragstrata.ingest.code.lang_java import annotation_texts, modifier_words
from ragstrata.ingest.code.rules import DefContext, LanguageRules

__all__ = ["KotlinRules"]


class KotlinRules(LanguageRules):
    language: ClassVar[str] = "kotlin"

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
        return annotation_texts(ctx.node, ctx, frozenset({"annotation"}))

    def is_exported(self, ctx: DefContext) -> bool:
        words = modifier_words(ctx.node, ctx)
        return ctx.parent_exported and not words & {"private", "internal"}
