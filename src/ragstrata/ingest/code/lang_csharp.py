"""C#: namespace-qualified names, ``[Attributes]``, ``/// <summary>`` docs."""

from __future__ import annotations

import re
from typing import ClassVar

from ragstrata.ingest.code.lang_java import JavaRules
from ragstrata.ingest.code.rules import DefContext
from ragstrata.ingest.code.source import collapse

__all__ = ["CSharpRules", "xml_doc"]

_XML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_FIELD = re.compile(r'<(param|typeparam|exception)\s+(?:name|cref)="([^"]*)"\s*>(.*?)</\1>', re.S)
_INLINE = [
    (re.compile(r'<see\s+(?:cref|href)="(?:[A-Z]:)?([^"]*)"\s*/>'), r"{@link \1}"),
    (re.compile(r'<see\s+cref="(?:[A-Z]:)?([^"]*)"\s*>(.*?)</see>', re.S), r"\2 ({@link \1})"),
    (re.compile(r'<see\s+langword="([^"]*)"\s*/>'), r"{@code \1}"),
    (re.compile(r'<(?:paramref|typeparamref)\s+name="([^"]*)"\s*/>'), r"{@code \1}"),
    (re.compile(r"<c>(.*?)</c>", re.S), r"{@code \1}"),
    (re.compile(r"<para>|</para>|<para\s*/>"), "\n\n"),
    (re.compile(r"<code>(.*?)</code>", re.S), "\n```\n\\1\n```\n"),
]


def xml_doc(doc: str) -> str:
    """A C# XML doc comment as tagged text: ``<summary>``/``<remarks>`` as the description,
    ``<param>``/``<typeparam>``/``<returns>``/``<exception>``/``<example>`` as ``@param x``,
    ``@return``, ``@throws T``, ``@example``; ``<see cref>``/``<c>`` as ``{@link}``/``{@code}``."""
    fields: list[str] = []
    for m in _FIELD.finditer(doc):
        tag = {"param": "@param", "typeparam": "@tparam", "exception": "@throws"}[m.group(1)]
        name = re.sub(r"^[A-Z]:", "", m.group(2))
        fields.append(f"{tag} {name} {_inline(m.group(3))}")
    body = _FIELD.sub("", doc)
    for tag, field in (("returns", "@return"), ("value", "@return"), ("example", "@example")):
        for m in re.finditer(rf"<{tag}>(.*?)</{tag}>", body, re.S):
            text = _inline(m.group(1)) if tag != "example" else _example(m.group(1))
            fields.append(f"{field} {text}")
        body = re.sub(rf"<{tag}>.*?</{tag}>", "", body, flags=re.S)
    body = re.sub(r"<inheritdoc\s*/>|<inheritdoc\b[^>]*/>", "", body)
    parts = [_inline(body), *fields]
    return "\n".join(p for p in parts if p.strip()).strip()


def _example(text: str) -> str:
    m = re.search(r"<code>(.*?)</code>", text, re.S)
    code = m.group(1).strip("\n") if m else _XML_TAG.sub("", text).strip("\n")
    return "\n" + code


def _inline(text: str) -> str:
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    text = _XML_TAG.sub("", text)
    lines = [line.strip() for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


class CSharpRules(JavaRules):
    language: ClassVar[str] = "csharp"

    def docstring(self, ctx: DefContext) -> str | None:
        doc = super().docstring(ctx)
        if doc is None:
            return None
        return xml_doc(doc) or None

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
