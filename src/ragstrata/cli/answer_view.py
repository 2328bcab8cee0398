"""How ``ragstrata ask`` draws an answer in a terminal: one screen by default, all of it with
``--full``.

The answer's Markdown is cut into blocks (paragraphs, lists, quotes, code fences). The default
view keeps the lead and, in order, the blocks that fit a budget of :data:`SCREEN_LINES` lines at
the console's width: lists keep their first items, quotes their first lines, code its first
lines; what is left out is counted. Citations are capped at :data:`SHORT_CITATIONS`.

Code is drawn with its ``NNN |`` gutter on every line: a line wider than the console is cropped
with a visible ``…`` (default view) or wrapped onto continuation lines indented under the code
(``--full``); it never wraps back to column 1. Prose wraps at spaces, so paths, symbols and
``path:start-end`` stay whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Markdown
from rich.syntax import Syntax
from rich.text import Text

from ragstrata.text.visible import visible

if TYPE_CHECKING:
    from markdown_it.token import Token

    from ragstrata.core.answer import AskResult, Citation

__all__ = [
    "SCREEN_LINES",
    "SHORT_CITATIONS",
    "AnswerMarkdown",
    "compact_blocks",
    "render_answer",
    "split_blocks",
]

SCREEN_LINES = 40
"""Lines the default answer may take, citations and status included."""
SHORT_CITATIONS = 5
"""Citations listed by the default view (``--full`` lists them all)."""
_LIST_ITEMS = 3  # items a list keeps in the default view
_QUOTE_LINES = 3  # lines a quote (a docstring) keeps
_CODE_LINES = 8  # code lines a fence keeps
_FIRST_CODE_LINES = 16  # ... the answer's first excerpt of more than one line: the evidence
_GUTTER = re.compile(r"^( *\d*) \| ?(.*)$")
_ITEM = re.compile(r"^(?:[-*+]|\d+[.)]) ")
_MORE = re.compile(r"^… and (\d+) more\.?$")


class GutterCodeBlock(CodeBlock):
    """A fenced code block whose ``NNN |`` gutter survives a narrow console."""

    crop: bool = False

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> GutterCodeBlock:
        block = cls((token.info or "").partition(" ")[0] or "text", markdown.code_theme)
        block.crop = bool(getattr(markdown, "crop_code", False))
        return block

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = str(self.text).rstrip("\n").split("\n")
        matches = [_GUTTER.match(line) for line in lines]
        if all(matches):
            gutters = [m.group(1).strip() for m in matches if m]
            bodies = [m.group(2) for m in matches if m]
        else:
            gutters, bodies = [], lines
        syntax = Syntax("", self.lexer_name, theme=self.theme, background_color="default")
        highlighted = syntax.highlight("\n".join(bodies)).split("\n", allow_blank=True)
        texts = list(highlighted) if len(highlighted) >= len(bodies) else [Text(b) for b in bodies]
        number_width = max((len(g) for g in gutters), default=0)
        for i, body in enumerate(texts[: len(bodies)]):
            body.rstrip()
            prefix = f"{gutters[i]:>{number_width}} | " if gutters else ""
            yield from self._fit(prefix, body, options.max_width, number_width if gutters else -1)

    def _fit(self, prefix: str, body: Text, width: int, number_width: int) -> Iterator[Text]:
        room = max(width - len(prefix), 8)
        if body.cell_len <= room:
            yield _line(prefix, body)
        elif self.crop:
            cropped = body.copy()
            cropped.truncate(room - 1)
            cropped.append("…", style="bold")
            yield _line(prefix, cropped)
        else:
            plain = body.plain
            indent = min(len(plain) - len(plain.lstrip(" ")) + 2, room // 2)
            cont = (" " * number_width + " | " if number_width >= 0 else "") + " " * indent
            first, *rest = body.wrap(Console(width=room - indent), room - indent)
            yield _line(prefix, first)
            for piece in rest:
                yield _line(cont, piece)


def _line(prefix: str, body: Text) -> Text:
    line = Text(prefix, style="dim", no_wrap=True, overflow="crop", end="\n")
    line.append_text(body)
    return line


class AnswerMarkdown(Markdown):
    """rich's Markdown with :class:`GutterCodeBlock` for code (``crop_code``: crop long code
    lines instead of wrapping them)."""

    elements: ClassVar = {
        **Markdown.elements,
        "fence": GutterCodeBlock,
        "code_block": GutterCodeBlock,
    }

    def __init__(self, markup: str, *, crop_code: bool = False) -> None:
        # repository text: control and bidi characters shown as escapes, never obeyed
        super().__init__(visible(markup), code_theme="monokai")
        self.crop_code = crop_code


@dataclass(frozen=True, slots=True)
class Block:
    """One Markdown block: ``kind`` is paragraph, list, quote or fence."""

    kind: str
    lines: tuple[str, ...]


def split_blocks(text: str) -> list[Block]:
    """``text`` cut at blank lines, around code fences and where a quote starts or ends."""
    chunks: list[list[str]] = []
    current: list[str] = []
    fence = False
    for line in text.splitlines():
        if fence:
            current.append(line)
            if line.strip().startswith("```"):
                chunks.append(current)
                current, fence = [], False
            continue
        if line.lstrip().startswith("```") or not line.strip():
            if current:
                chunks.append(current)
            current, fence = ([line], True) if line.strip() else ([], False)
            continue
        if current and current[-1].startswith(">") != line.startswith(">"):
            chunks.append(current)  # a caption and its quote are two blocks
            current = []
        current.append(line)
    if current:
        chunks.append(current)
    return [Block(_kind(c), tuple(c)) for c in chunks]


def _kind(lines: list[str]) -> str:
    if lines[0].lstrip().startswith("```"):
        return "fence"
    if all(line.startswith(">") for line in lines):
        return "quote"
    if any(_ITEM.match(line) for line in lines):
        return "list"
    return "paragraph"


def _trim(block: Block, more: int = 0, code_lines: int = _CODE_LINES) -> Block:
    """``block`` cut for the default view; ``more`` items were already left out of a list;
    a fence keeps ``code_lines`` lines."""
    lines = list(block.lines)
    if block.kind == "fence" and len(lines) > code_lines + 2:
        body, end = lines[1:-1], lines[-1:] if lines[-1].strip().startswith("```") else []
        if not end:
            body = lines[1:]
        left = len(body) - code_lines
        gutter = " | " if all(_GUTTER.match(b) for b in body) else ""
        lines = [lines[0], *body[:code_lines], f"{gutter}… {left} more lines", *end]
    elif block.kind == "quote":
        blank = next((i for i, line in enumerate(lines) if not line.strip(" >")), len(lines))
        keep = min(blank, _QUOTE_LINES)
        lines = lines[:keep] + (["> …"] if keep < len(lines) else [])
    elif block.kind == "list":
        starts = [i for i, line in enumerate(lines) if _ITEM.match(line)]
        left = max(len(starts) - _LIST_ITEMS, 0) + more
        if len(starts) > _LIST_ITEMS:
            lines = lines[: starts[_LIST_ITEMS]]
        if left:
            lines.append(f"- … and {left} more")
    return Block(block.kind, tuple(lines))


def compact_blocks(blocks: Sequence[Block]) -> list[list[Block]]:
    """The default view's blocks in order, each trimmed (the first excerpt of several lines
    keeps more of them: it is the evidence), grouped so that a short caption
    (``**Definition:** …``, ``Docstring:``, a cited path) stays with the block it introduces; a
    list's trailing "… and N more." is folded into the list."""
    groups: list[list[Block]] = []
    i, first_excerpt = 0, True
    while i < len(blocks):
        group: list[Block] = []
        while i < len(blocks):
            block, step, more = blocks[i], 1, 0
            after = blocks[i + 1] if i + 1 < len(blocks) else None
            if block.kind == "list" and after is not None and after.kind == "paragraph":
                found = _MORE.match(" ".join(after.lines).strip())
                if found:
                    step, more = 2, int(found.group(1))
            excerpt = block.kind == "fence" and len(block.lines) > 3  # not a lone signature
            code = _FIRST_CODE_LINES if excerpt and first_excerpt else _CODE_LINES
            first_excerpt = first_excerpt and not excerpt
            group.append(_trim(block, more, code))
            i += step
            caption = block.kind == "paragraph" and len(block.lines) <= 2 and bool(groups)
            if not (caption and i < len(blocks)):
                break
        groups.append(group)
    return groups


def _markdown(groups: Sequence[Sequence[Block]]) -> str:
    return "\n\n".join("\n".join(b.lines) for g in groups for b in g)


def _height(console: Console, markup: str, *, crop: bool) -> int:
    if not markup:
        return 0
    return len(console.render_lines(AnswerMarkdown(markup, crop_code=crop), pad=False))


def render_answer(result: AskResult, console: Console, *, full: bool = False) -> None:
    """The human view of ``result``: the answer, its citations and the evidence status; one
    screen (:data:`SCREEN_LINES`) unless ``full``."""
    cites = result.answer.citations
    shown = len(cites) if full else min(len(cites), SHORT_CITATIONS)
    if full:
        console.print(AnswerMarkdown(result.answer.text))
        left = 0
    else:
        footer = (2 + shown + (len(cites) > shown) if cites else 0) + 4
        groups = compact_blocks(split_blocks(result.answer.text))
        kept = _fit(console, groups, SCREEN_LINES - footer)
        console.print(AnswerMarkdown(_markdown(kept), crop_code=True))
        left = len(groups) - len(kept)
        if left:
            console.print()
            console.print(
                Text(f"({left} more parts of the answer; --full shows it all)", style="dim")
            )
    if cites:
        console.print()
        console.print(Text("citations:", style="bold"))
        for c in cites[:shown]:
            console.print(Text(f"  {visible(_span(c), multiline=False)}"))
        if len(cites) > shown:
            console.print(Text(f"  … and {len(cites) - shown} more (--full lists them)"))
    console.print()
    console.print(_status(result))


def _fit(console: Console, groups: list[list[Block]], budget: int) -> list[list[Block]]:
    """The leading groups whose rendering fits ``budget`` lines (the lead always). Each group
    is measured once, a blank line between two; the chosen ones are measured together once
    more (Markdown may join what touches), dropping the last while they overflow."""
    kept = groups[:1]
    used = _height(console, _markdown(kept), crop=True)
    for group in groups[1:]:
        height = _height(console, _markdown([group]), crop=True)
        if used + 1 + height > budget:
            break
        kept.append(group)
        used += 1 + height
    while len(kept) > 1 and _height(console, _markdown(kept), crop=True) > budget:
        kept.pop()
    return kept


def _span(c: Citation) -> str:
    span = f"{c.start_line}" if c.start_line == c.end_line else f"{c.start_line}-{c.end_line}"
    return f"{c.path}:{span}"


def _status(result: AskResult) -> Text:
    """The evidence status in plain words (the answer's ``footer``, in its language)."""
    answer = result.answer
    footer = answer.footer or (
        "evidence: satisfied" if result.evidence.satisfied else "evidence: incomplete"
    )
    plain = result.evidence.satisfied and not answer.uncited_llm_reply
    status = Text(visible(footer, multiline=False), style="green" if plain else "yellow")
    if result.session:
        status.append(f"  (session {result.session})", style="dim")
    return status
