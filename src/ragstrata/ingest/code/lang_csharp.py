"""C#: namespace-qualified names, ``[Attributes]``, ``/// <summary>`` docs."""

from __future__ import annotations

import re
from typing import ClassVar

from ragstrata.ingest.code.lang_java import JavaRules
from ragstrata.ingest.code.rules import DefContext
from ragstrata.ingest.code.source import collapse

__all__ = ["CSharpRules"]

_XML_TAG = re.compile(r"</?[A-Za-z][^>]*>")


class CSharpRules(JavaRules):
    language: ClassVar[str] = "csharp"

    def docstring(self, ctx: DefContext) -> str | None:
        doc = super().docstring(ctx)
        if doc is None:
            return None
        text = "\n".join(line.strip() for line in _XML_TAG.sub("", doc).splitlines())
        return text.strip() or None

    def decorators(self, ctx: DefContext) -> tuple[str, ...]:
        out: list[str] = []
        for child in ctx.node.children:
            if child.type == "attribute_list":
                out.extend(
                    collapse(ctx.src.node_text(a))
                    for a in child.named_children
                    if a.type == "attribute"
                )
        return tuple(out)
