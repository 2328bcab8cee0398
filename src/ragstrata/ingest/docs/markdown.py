"""Markdown headings from the markdown-it-py token stream (CommonMark).

Only headings at the top level of the document count (not ones inside block quotes or list
items), so a section is always a run of whole lines. Fenced and indented code blocks are
tokens of their own, so a ``# comment`` inside a fence never becomes a heading. ATX and setext
headings are both recognised; YAML (``---``) and TOML (``+++``) front matter is set aside and
its ``title`` kept.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ragstrata.ingest.docs.outline import Heading, Outline, Slugger, source_lines

__all__ = ["parse_markdown", "split_front_matter"]

_FENCES = {"---": ("---", "..."), "+++": ("+++",)}
_TITLE = re.compile(r"""^title\s*[:=]\s*(?P<v>.+?)\s*$""")
_LONE_CR = re.compile(r"\r(?!\n)")
# Inline tokens whose ``content`` is visible text of a heading.
_TEXT_TOKENS = frozenset({"text", "code_inline", "image", "text_special", "entity"})


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark")


def split_front_matter(lines: list[str]) -> tuple[int, str | None]:
    """Number of front-matter lines at the top of ``lines`` (0 if none) and its ``title``."""
    if not lines:
        return 0, None
    opener = lines[0].rstrip()
    closers = _FENCES.get(opener)
    if closers is None:
        return 0, None
    for index in range(1, len(lines)):
        if lines[index].rstrip() in closers:
            return index + 1, _front_title(lines[1:index])
    return 0, None  # never closed: not front matter, just a thematic break


def _front_title(lines: list[str]) -> str | None:
    for line in lines:
        match = _TITLE.match(line)
        if match:
            value = match.group("v")
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            return value.strip() or None
    return None


def _inline_text(token: Token) -> str:
    parts: list[str] = []
    for child in token.children or ():
        if child.type in _TEXT_TOKENS:
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return " ".join("".join(parts).split())


def parse_markdown(text: str) -> Outline:
    """The headings of a Markdown document with exact 1-based line spans."""
    lines = source_lines(text)
    skip, title = split_front_matter(lines)
    # markdown-it treats a lone CR as a line break; ragstrata counts lines by LF only.
    body = _LONE_CR.sub(" ", "\n".join(lines[skip:]))
    tokens = _parser().parse(body)
    slugger = Slugger()
    headings: list[Heading] = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or token.map is None:
            continue
        inline = tokens[index + 1] if index + 1 < len(tokens) else None
        name = _inline_text(inline) if inline is not None and inline.type == "inline" else ""
        start, end = token.map
        headings.append(
            Heading(
                level=int(token.tag[1:]),
                title=name,
                slug=slugger.slug(name),
                line=start + 1 + skip,
                end_line=max(end, start + 1) + skip,
            )
        )
    return Outline(headings=tuple(headings), body_start_line=skip + 1, title=title)
