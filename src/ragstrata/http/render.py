"""Server-side rendering for the web page: Pygments highlighting with line numbers, and the
answer's Markdown as HTML (raw HTML in it is escaped, unsafe link schemes dropped)."""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from pygments.lexer import Lexer

__all__ = ["highlight", "language_of", "markdown_html", "pygments_css"]

_CSS_SCOPE = ".hl"
_LIGHT, _DARK = "default", "github-dark"
_NUMBERED = re.compile(r"^\s*(\d+) \|(?: |$)(.*)$")


def _lexer(path: str, lang: str | None = None) -> Lexer:
    from pygments.lexers import TextLexer, get_lexer_by_name, get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        if lang:
            return get_lexer_by_name(lang, stripnl=False, ensurenl=False)
        return get_lexer_for_filename(path, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


def language_of(path: str) -> str:
    """The Pygments language name for a file (``"Text only"`` when unknown)."""
    return str(_lexer(path).name)


def highlight(text: str, path: str, start_line: int | None = 1) -> str:
    """``text`` (lines of ``path``) as highlighted HTML; numbered from ``start_line`` unless
    it is ``None`` (text that is not a span of the file, e.g. a relation sentence)."""
    from pygments import highlight as pyg_highlight
    from pygments.formatters import HtmlFormatter

    formatter = HtmlFormatter(
        cssclass=_CSS_SCOPE[1:],
        linenos="inline" if start_line is not None else False,
        linenostart=start_line or 1,
        wrapcode=True,
    )
    return str(pyg_highlight(text, _lexer(path), formatter))


def highlight_hit(hit: dict[str, Any]) -> str:
    """A hit's text, numbered when its lines are exactly the cited span."""
    text = str(hit.get("text", ""))
    start, end = int(hit.get("start_line", 1)), int(hit.get("end_line", 1))
    is_span = text.count("\n") + 1 == end - start + 1 and hit.get("layer") not in ("C0", "C2", "D0")
    return highlight(text, str(hit.get("path", "")), start if is_span else None)


def _numbered(code: str) -> tuple[str, int] | None:
    """``(code, first line)`` when every line is ``N | text`` with consecutive ``N`` (how
    extractive answers quote source), else ``None``."""
    lines = code.rstrip("\n").split("\n")
    matches = [_NUMBERED.match(line) for line in lines]
    if not lines or any(m is None for m in matches):
        return None
    numbers = [int(m.group(1)) for m in matches if m]
    if numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        return None
    return "\n".join(m.group(2) for m in matches if m), numbers[0]


def _fence(code: str, lang: str, _attrs: Any) -> str:
    """A fenced block of the answer: highlighted; ``N | `` prefixes become line numbers; a
    ``mermaid`` flowchart of generated docs is drawn as SVG on the server."""
    if lang == "mermaid":
        from ragstrata.app import flowchart_svg

        svg = flowchart_svg(code)
        if svg is not None:
            return f'<pre class="diagram">{svg}</pre>'
    from pygments import highlight as pyg_highlight
    from pygments.formatters import HtmlFormatter

    numbered = _numbered(code)
    text, start = numbered if numbered else (code, None)
    formatter = HtmlFormatter(
        cssclass=_CSS_SCOPE[1:],
        linenos="inline" if start is not None else False,
        linenostart=start or 1,
        wrapcode=True,
    )
    out = str(pyg_highlight(text, _lexer("snippet.txt", lang or None), formatter))
    # markdown-it keeps a block as it is only when it starts with "<pre".
    head, tail = f'<div class="{_CSS_SCOPE[1:]}"><pre>', "</pre></div>\n"
    if out.startswith(head) and out.endswith(tail):
        out = f'<pre class="{_CSS_SCOPE[1:]}">' + out[len(head) : -len(tail)] + "</pre>"
    return out


@lru_cache(maxsize=1)
def _md() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "highlight": _fence})


def markdown_html(text: str) -> str:
    """The answer's Markdown as HTML: raw HTML escaped, code fences highlighted."""
    try:
        return str(_md().render(text))
    except Exception:  # never lose an answer to a renderer bug; show it as text
        return f"<pre>{html.escape(text)}</pre>"


@lru_cache(maxsize=1)
def pygments_css() -> str:
    """The stylesheet for highlighted code: light by default, dark under
    ``prefers-color-scheme: dark``."""
    from pygments.formatters import HtmlFormatter
    from pygments.util import ClassNotFound

    light = HtmlFormatter(style=_LIGHT).get_style_defs(_CSS_SCOPE)
    try:
        dark = HtmlFormatter(style=_DARK).get_style_defs(_CSS_SCOPE)
    except ClassNotFound:
        dark = HtmlFormatter(style="monokai").get_style_defs(_CSS_SCOPE)
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"
