"""Inline doc-comment markup as Markdown: Javadoc/JSDoc ``{@link}`` / ``{@code}`` tags, rustdoc
intra-doc links, and the HTML Javadoc uses (``<p>``, ``<pre>``, ``<code>``, lists, emphasis,
entities). Code spans and ``<pre>`` blocks are kept as written."""

from __future__ import annotations

import html
import re

__all__ = ["dedent_block", "html_to_markdown", "inline_links"]


def dedent_block(text: str) -> str:
    """``text`` without the indentation its non-blank lines share, blank edges trimmed."""
    lines = text.split("\n")
    real = [s for s in lines if s.strip()]
    indent = min((len(s) - len(s.lstrip()) for s in real), default=0)
    return "\n".join(s[indent:] for s in lines).strip("\n")



_RUST_LINK = re.compile(r"\[`([^`\]]+)`\](?:\([^)]*\)|\[[^\]]*\])?")
_TAG = re.compile(r"</?([a-zA-Z][a-zA-Z0-9]*)(\s[^<>]*)?/?>")


def inline_links(text: str) -> str:
    """``{@link a.B#c label}`` -> `` `label` `` (else `` `a.B#c` ``; ``#c`` -> `` `c` ``),
    ``{@code x}`` -> `` `x` `` (braces inside balanced, ``{@code new int[] {2}}``),
    ``{@value}`` -> ``the value``, rustdoc ``[`X`]`` -> `` `X` ``."""
    out: list[str] = []
    i = 0
    while True:
        m = _INLINE_START.search(text, i)
        if m is None:
            out.append(text[i:])
            break
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        if depth:  # unbalanced: leave the rest as written
            out.append(text[i:])
            break
        out.append(text[i : m.start()])
        out.append(_inline(m.group(1), text[m.end() : j - 1].strip()))
        i = j
    return _RUST_LINK.sub(lambda r: f"`{r.group(1)}`", "".join(out))


_INLINE_START = re.compile(r"\{@(link|linkplain|code|literal|value|docRoot|inheritDoc)\b\s*")


def _inline(kind: str, body: str) -> str:
    if kind in ("code", "literal"):
        body = inline_links(body).replace("`", "")  # a {@link} inside {@code}
        return f"`{body}`" if body else ""
    if kind == "value":
        return f"`{body}`" if body else "the value"
    if kind in ("docRoot", "inheritDoc"):
        return ""
    target, _, label = body.partition(" ")
    shown = label.strip() or target.lstrip("#")  # `Type#member` as Javadoc writes it
    return f"`{shown}`"


def html_to_markdown(text: str) -> str:
    """Javadoc-style HTML -> Markdown: paragraphs, ``<pre>`` fences, lists, emphasis, code."""
    if "<" not in text and "&" not in text:
        return text
    fences: list[str] = []

    def pre_block(m: re.Match[str]) -> str:
        body = html.unescape(_TAG.sub("", m.group(1)))
        fences.append("```\n" + dedent_block(body.strip("\n")) + "\n```")
        return f"\n\n\x00FENCE{len(fences) - 1}\x00\n\n"

    spans: list[str] = []

    def keep_span(m: re.Match[str]) -> str:
        spans.append(m.group(0))
        return f"\x00SPAN{len(spans) - 1}\x00"

    out = re.sub(r"(?is)<pre>\s*(?:<code>)?(.*?)(?:</code>)?\s*</pre>", pre_block, text)
    out = re.sub(r"`[^`\n]+`", keep_span, out)
    out = re.sub(r"(?i)<p\s*/?>|</p>", "\n\n", out)
    out = re.sub(r"(?i)<br\s*/?>", "\n", out)
    out = re.sub(r"(?i)<li>\s*", "\n- ", out)
    out = re.sub(r"(?i)</li>|</?[uo]l>", "\n", out)
    out = re.sub(r"(?i)</?(b|strong)>", "**", out)
    out = re.sub(r"(?i)</?(i|em)>", "*", out)
    out = re.sub(r"(?i)</?(code|tt)>", "`", out)
    out = re.sub(r"(?i)<h[1-6][^>]*>(.*?)</h[1-6]>", r"\n\n**\1**\n\n", out)
    out = re.sub(r'(?i)<a\s[^>]*href="([^"]*)"[^>]*>(.*?)</a>', r"[\2](\1)", out)
    out = _TAG.sub("", out)
    out = html.unescape(out)
    for i, block in enumerate(fences):
        out = out.replace(f"\x00FENCE{i}\x00", block)
    for i, span in enumerate(spans):
        out = out.replace(f"\x00SPAN{i}\x00", span)
    return re.sub(r"\n{3,}", "\n\n", out).strip()


