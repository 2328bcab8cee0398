"""Ruby and PHP: ``Module::Class#method`` / ``App\\Ns\\Class::method`` names and visibility."""

from __future__ import annotations

from typing import Any, ClassVar

from ragstrata.ingest.code.lang_java import modifier_words
from ragstrata.ingest.code.rules import DefContext, LanguageRules
from ragstrata.ingest.code.source import Source, collapse

__all__ = ["PhpRules", "RubyRules"]

_VISIBILITY = frozenset({"private", "protected", "public"})


class RubyRules(LanguageRules):
    language: ClassVar[str] = "ruby"
    sep: ClassVar[str] = "::"
    ns_sep: ClassVar[str] = "::"
    method_sep: ClassVar[str | None] = "#"
    comment_types: ClassVar[frozenset[str]] = frozenset({"comment"})
    container_kinds: ClassVar[frozenset[str]] = frozenset({"class", "module"})

    def leading_comments(self, node: Any, src: Source) -> str | None:
        # `class A` right after `module M` + comments: the comments sit before the body node
        parent = node.parent
        if (
            node.prev_named_sibling is None
            and parent is not None
            and parent.type == "body_statement"
            and parent.start_point[0] == node.start_point[0]
        ):
            return super().leading_comments(parent, src)
        return super().leading_comments(node, src)

    def is_exported(self, ctx: DefContext) -> bool:
        if ctx.node.type != "method":
            return ctx.parent_exported
        sib = ctx.node.prev_named_sibling
        while sib is not None:
            if sib.type == "identifier" and ctx.src.node_text(sib) in _VISIBILITY:
                return ctx.src.node_text(sib) == "public" and ctx.parent_exported
            sib = sib.prev_named_sibling
        return ctx.parent_exported

    def signature(self, ctx: DefContext) -> str:
        """The first line: Ruby has no body delimiter and comments may precede the body."""
        return collapse(ctx.src.node_text(ctx.node).split("\n", 1)[0])[:400]


class PhpRules(LanguageRules):
    language: ClassVar[str] = "php"
    sep: ClassVar[str] = "::"
    ns_sep: ClassVar[str] = "\\"
    call_sep: ClassVar[str] = "->"

    def decorators(self, ctx: DefContext) -> tuple[str, ...]:
        out: list[str] = []
        for child in ctx.node.children:
            if child.type == "attribute_list":
                for group in child.named_children:
                    out.extend(
                        collapse(ctx.src.node_text(a))
                        for a in group.named_children
                        if a.type == "attribute"
                    )
        return tuple(out)

    def is_exported(self, ctx: DefContext) -> bool:
        words = modifier_words(ctx.node, ctx)
        return ctx.parent_exported and not words & {"private", "protected"}
