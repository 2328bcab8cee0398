"""Markdown that is safe to publish when its words come from an untrusted repository.

Names (folders, files, symbols, Kotlin backticked names) go into code spans whose backtick
fence is longer than any backtick run inside, on one line. Doc comments, README sections and
LLM prose go through :func:`safe_markdown`: outside code (fenced blocks and code spans, found
the way CommonMark finds them) every ``<`` is escaped, so no raw HTML, autolink or comment
survives; links and images keep only ``http(s)`` and relative targets, percent-encoded; a
fence left open is closed, so the text cannot swallow the rest of the page. Pure functions.
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote

__all__ = ["code_span", "fence_for", "safe_markdown", "safe_url"]

_RUN = re.compile(r"`+")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_LINK = re.compile(
    r"(!?)\[((?:[^\[\]\\]|\\.)*)\]\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()<>]*\)"
    r"[^\s()<>]*)*)(\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_REF = re.compile(r"^(\s*\[[^\]\n]+\]:[ \t]*)(<[^<>\n]*>|\S+)(.*)$", re.M)
_REF_OPEN = re.compile(r"^(\s*\[[^\]\n]+\]):[ \t]*$", re.M)  # its URL on the next line
_CONTROL = re.compile(r"[\x00-\x20\x7f]")
_ENTITY_AMP = re.compile(r"&(?=#|[A-Za-z][A-Za-z0-9]*;)")
_URL_SAFE = "/#?&=%:@.~-_+,;!$'*"


def code_span(text: str) -> str:
    """``text`` as one inline code span: whitespace runs (newlines too) become one space, the
    fence is one backtick longer than the longest run inside."""
    text = " ".join(str(text).split()) or " "
    longest = max((len(m.group()) for m in _RUN.finditer(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text[0] == "`" or text[-1] == "`" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def fence_for(body: str) -> str:
    """A backtick fence longer than any backtick run at the start of a line of ``body``."""
    longest = max((len(m.group(1)) for m in re.finditer(r"(?m)^ *(`+)", body)), default=0)
    return "`" * max(3, longest + 1)


def safe_url(url: str) -> str | None:
    """An ``http(s)`` or relative URL, percent-encoded; ``None`` for any other scheme."""
    text = url.strip()
    if text.startswith("<") and text.endswith(">"):
        text = text[1:-1]
    for _ in range(5):  # entities may be nested: &amp;#106; -> &#106; -> j
        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    text = re.sub(r"[\x00-\x1f\x7f]", "", text.replace("\\", "/")).strip()
    bare = _CONTROL.sub("", text)  # what a browser reads the scheme from
    m = _SCHEME.match(bare)
    if m and m.group(1).lower() not in ("http", "https"):
        return None
    if bare.startswith("//"):
        return None  # protocol-relative: another host without a scheme we checked
    encoded = quote(text, safe=_URL_SAFE)
    return _ENTITY_AMP.sub("%26", encoded).replace("(", "%28").replace(")", "%29")


def _link(m: re.Match[str]) -> str:
    bang, label, target, title = m.group(1), m.group(2), m.group(3), m.group(4) or ""
    url = safe_url(target)
    label = label.replace("<", "&lt;")
    if url is None:
        return label
    return f"{bang}[{label}]({url}{title.replace('<', '&lt;')})"


def _ref(m: re.Match[str]) -> str:
    url = safe_url(m.group(2))
    if url is None:
        return m.group(1).rstrip().removesuffix(":") + "\\:"
    return f"{m.group(1)}{url}{m.group(3).replace('<', '&lt;')}"


def _code_spans(line: str) -> str:
    """Escape ``<`` outside the code spans of one line (a span never crosses a line here, so
    nothing a renderer reads as prose is taken for code)."""
    out: list[str] = []
    i = pos = 0
    while (m := _RUN.search(line, i)) is not None:
        end = re.compile(rf"(?<!`)`{{{len(m.group())}}}(?!`)").search(line, m.end())
        if end is None:  # an unmatched run is literal backticks
            i = m.end()
            continue
        out += [line[pos : m.start()].replace("<", "&lt;"), line[m.start() : end.end()]]
        pos = i = end.end()
    out.append(line[pos:].replace("<", "&lt;"))
    return "".join(out)


def _prose(text: str) -> str:
    """Prose outside fences: links and reference definitions checked first (wherever they
    are), then no raw HTML outside code spans."""
    kept: list[str] = []

    def keep(m: re.Match[str]) -> str:
        kept.append(_link(m))
        return f"\x00{len(kept) - 1}\x00"

    text = _LINK.sub(keep, text.replace("\x00", ""))
    text = _REF.sub(_ref, text)
    text = _REF_OPEN.sub(lambda m: m.group(1) + "\\:", text)
    text = "\n".join(_code_spans(line) for line in text.split("\n"))
    return re.sub("\x00(\\d+)\x00", lambda m: kept[int(m.group(1))], text)


def safe_markdown(text: str) -> str:
    """Untrusted Markdown made safe to publish (see the module docstring)."""
    out: list[str] = []
    prose: list[str] = []
    fence: tuple[str, int] | None = None
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence is None:
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                if prose:
                    out.append(_prose("\n".join(prose)))
                prose = []
                fence = (m.group(1)[0], len(m.group(1)))
                word = (m.group(2).split() or [""])[0]
                info = re.sub(r"[^\w+.#-]", "", word)[:30]  # a language name, no more
                out.append(m.group(1) + info)
            else:
                prose.append(line)
            continue
        out.append(line)
        if (
            m
            and m.group(1)[0] == fence[0]
            and len(m.group(1)) >= fence[1]
            and not m.group(2).strip()
        ):
            fence = None
    if prose:
        out.append(_prose("\n".join(prose)))
    if fence is not None:
        out.append(fence[0] * fence[1])
    return "\n".join(out)
