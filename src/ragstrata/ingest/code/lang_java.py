"""Java, C# and Kotlin: package / namespace qualified names, modifiers and annotations."""

from __future__ import annotations

from typing import Any, ClassVar

from ragstrata.ingest.code.rules import DefContext, LanguageRules
from ragstrata.ingest.code.source import collapse

__all__ = ["JavaRules", "annotation_texts"]

_ANNOTATIONS = frozenset({"marker_annotation", "annotation"})


def annotation_texts(node: Any, ctx: DefContext, types: frozenset[str]) -> tuple[str, ...]:
    """Texts (without ``@``) of annotation nodes under ``node``'s modifier children."""
    out: list[str] = []
    for child in node.children:
        if child.type in types:
            out.append(collapse(ctx.src.node_text(child)).lstrip("@"))
        elif child.type in {"modifiers", "modifier", "modifier_list"}:
            out.extend(annotation_texts(child, ctx, types))
    return tuple(out)


def modifier_words(node: Any, ctx: DefContext) -> set[str]:
    """Keyword modifiers of a definition (``public``, ``static``, ``private`` ...)."""
    words: set[str] = set()
    for child in node.children:
        if child.type in {"modifiers", "modifier", "visibility_modifier"}:
            words.update(collapse(ctx.src.node_text(child)).split())
    return words


class JavaRules(LanguageRules):
    language: ClassVar[str] = "java"

    def decorators(self, ctx: DefContext) -> tuple[str, ...]:
        return annotation_texts(ctx.node, ctx, _ANNOTATIONS)

    def is_exported(self, ctx: DefContext) -> bool:
        words = modifier_words(ctx.node, ctx)
        if "private" in words:
            return False
        parent = ctx.node.parent
        in_interface = parent is not None and parent.type in {
            "interface_body",
            "annotation_type_body",
        }
        visible = bool(words & {"public", "protected"}) or in_interface
        return visible and ctx.parent_exported
