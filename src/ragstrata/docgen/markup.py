"""Doc-comment markup as Markdown: Javadoc/JSDoc ``{@link}`` / ``{@code}`` tags, rustdoc
intra-doc links, the HTML Javadoc uses (``<p>``, ``<pre>``, ``<code>``, lists, emphasis,
entities), and the reStructuredText of Python docstrings (Sphinx roles, ````literals````,
``.. code-block::`` and ``::`` blocks, admonitions, ``auto*`` directives). Code is kept as
written."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

__all__ = [
    "dedent_block",
    "html_to_markdown",
    "inline_links",
    "outside_fences",
    "pre_blocks",
    "rst_blocks",
    "rst_inline",
]


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
    body = html.unescape(body)
    if kind in ("code", "literal"):
        body = " ".join(inline_links(body).replace("`", "").split())  # {@link} inside {@code}
        return f"`{body}`" if body else ""
    if kind == "value":
        return f"`{body}`" if body else "the value"
    if kind in ("docRoot", "inheritDoc"):
        return ""
    m = re.match(r"(?s)^(\S*?\([^)]*\)|\S+)\s*(.*)$", body)  # a target may be `m(A, B)`
    target, label = (m.group(1), m.group(2)) if m else (body, "")
    shown = " ".join(label.split()) if label.strip() else target.lstrip("#")  # `Type#member`
    return f"`{shown}`"


_PRE = re.compile(r"(?is)<pre[^>]*>(.*?)</pre>")


def pre_blocks(text: str) -> str:
    """Javadoc ``<pre>`` blocks (``<pre>{@code ...}</pre>``, ``<pre><code>``) as fenced code
    on their own lines, the code unescaped and otherwise as written."""

    def fence(m: re.Match[str]) -> str:
        body = m.group(1)
        inner = re.match(r"(?s)^\s*\{@code\s?(.*)\}\s*$", body)
        if inner:
            body = inner.group(1)
        body = re.sub(r"(?i)</?code>", "", body)
        code = html.unescape(dedent_block(body.strip("\n").rstrip()))
        return "\n\n```\n" + code + "\n```\n\n"

    if "<pre" in text.lower():
        text = _PRE.sub(fence, text)
    # a {@code ...} block on lines of its own (outside <pre>) is a code block too
    return _CODE_LINES.sub(lambda m: "\n\n```\n" + dedent_block(m.group(1)) + "\n```\n\n", text)


_CODE_LINES = re.compile(r"(?m)^[ \t]*\{@code[ \t]*\n(.*?)\n[ \t]*\}[ \t]*$", re.S)


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




# --------------------------------------------------------------------------- reStructuredText

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|data|exc|obj|const|ref|doc|term|"
                   r"envvar|option|program|file|command|kbd|abbr|any):`([^`]+)`")
_LITERAL = re.compile(r"``([^`\n]+?)``")
_DROP = re.compile(r"^\.\. (?:auto\w+|toctree|currentmodule|module|py:\w+|index|"
                   r"only|ifconfig|testsetup|testcleanup|highlight|_[\w-]+:)")
_CODE_DIRECTIVE = re.compile(r"^\.\. (?:code-block|code|sourcecode|doctest)::\s*(\w*)\s*$")
_ADMONITION = re.compile(r"^\.\. (note|warning|tip|important|hint|caution|attention|seealso|"
                         r"versionadded|versionchanged)::\s*(.*)$")
_UNDERLINE = re.compile(r"^([=~^\"'`#*+])\1{2,}\s*$")
_ADMONITION_LABEL = {"versionadded": "Added in version", "versionchanged": "Changed in version",
                     "seealso": "See also"}


def rst_inline(text: str) -> str:
    """Sphinx roles and RST literals as code spans: ``:class:`~a.B``` -> `` `B` ``,
    ``:func:`text <a.b>``` -> `` `text` ``, ````x```` -> `` `x` ``."""

    def role(m: re.Match[str]) -> str:
        body = m.group(1).strip()
        label = re.match(r"^(.*?)\s*<[^>]+>$", body)
        if label:
            return f"`{label.group(1)}`"
        if body.startswith("~"):
            body = body[1:].rsplit(".", 1)[-1]
        return f"`{body.lstrip('!.')}`"

    return _LITERAL.sub(lambda m: f"`{m.group(1)}`", _ROLE.sub(role, text))


def _indented_block(lines: list[str], start: int) -> int:
    """The index after the indented block (blank lines inside it included) from ``start``."""
    j = start
    while j < len(lines) and (not lines[j].strip() or lines[j].startswith((" ", "\t"))):
        j += 1
    while j > start and not lines[j - 1].strip():
        j -= 1
    return j


def rst_blocks(lines: list[str]) -> list[str]:
    """RST block markup as Markdown lines: code directives and ``::`` blocks fenced, Sphinx
    ``auto*`` directives dropped, admonitions and version notes as labelled paragraphs,
    underlined headings bold."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        code = _CODE_DIRECTIVE.match(stripped)
        if code or (stripped.endswith("::") and not stripped.startswith("..")
                    and i + 1 < len(lines) and not lines[i + 1].strip()):
            end = _indented_block(lines, i + 1)
            body = lines[i + 1 : end]
            if any(s.strip() for s in body):
                if not code:
                    head = stripped[:-2].rstrip()
                    if head:
                        out.append(line.rstrip()[: len(line.rstrip()) - 2].rstrip() + ":")
                lang = code.group(1) if code else ""
                out += ["", "```" + lang, dedent_block("\n".join(body)), "```", ""]
                i = end
                continue
        if _DROP.match(stripped):
            i = _indented_block(lines, i + 1)
            continue
        adm = _ADMONITION.match(stripped)
        if adm:
            kind, rest = adm.group(1), adm.group(2).strip()
            end = _indented_block(lines, i + 1)
            note_text = " ".join(s.strip() for s in lines[i + 1 : end] if s.strip())
            label = _ADMONITION_LABEL.get(kind, kind.capitalize())
            if kind in ("versionadded", "versionchanged"):
                version, _, note = rest.partition(" ")
                text = f"*{label} {version}.*" + (f" {note}" if note else "")
            else:
                text = f"**{label}:** {rest}".rstrip()
            out += [(text + " " + note_text).rstrip(), ""]
            i = end
            continue
        if (i + 1 < len(lines) and stripped and _UNDERLINE.match(lines[i + 1].strip())
                and len(lines[i + 1].strip()) >= len(stripped) - 1):
            out += [f"**{stripped}**", ""]
            i += 2
            continue
        out.append(line)
        i += 1
    return out


def outside_fences(text: str, fn: Callable[[str], str]) -> str:
    """``fn`` applied to the parts of ``text`` outside fenced code blocks."""
    parts = re.split(r"(?ms)(^```.*?^```[ \t]*$)", text)
    return "".join(p if p.startswith("```") else fn(p) for p in parts)
