"""The answer-graph contract and the pure helpers every graph shares.

A graph turns a router plan and the evidence retrieval found for it into an :class:`Answer`.
Helpers here are pure: citation strings (``path:start-end``), quoting code with line numbers,
picking the answer language, and collecting citations in first-cited order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, runtime_checkable

from ragstrata.core.answer import Answer, Citation
from ragstrata.core.evidence import Evidence, Hit
from ragstrata.core.languages import detect_language
from ragstrata.core.values import ScoredRow
from ragstrata.query.models import AnchorType, RouterPlan

__all__ = [
    "MAX_QUOTE_LINES",
    "CitationList",
    "Graph",
    "answer_language",
    "blockquote",
    "cite",
    "disjoint_hits",
    "fence",
    "first_sentence",
    "hit_from_scored",
    "numbered",
    "overlaps",
    "question_symbols",
    "quote_block",
    "quote_hits",
    "short_name",
]

MAX_QUOTE_LINES = 15
"""Longest quote of code or docs in an extractive answer; longer spans are cut with ``…``."""

_CYRILLIC = re.compile(r"[\u0400-\u04FF]")


@runtime_checkable
class Graph(Protocol):
    """Answers one plan from its evidence."""

    def answer(self, plan: RouterPlan, evidence: Evidence) -> Answer:
        """The answer in the question's language, citing every span it relies on."""
        ...


def cite(path: str, start_line: int, end_line: int | None = None) -> str:
    """``path:start-end``, or ``path:line`` for a single line."""
    if end_line is None or end_line == start_line:
        return f"{path}:{start_line}"
    return f"{path}:{start_line}-{end_line}"


def answer_language(plan: RouterPlan) -> str:
    """``ru`` or ``en``: the plan's language, or Cyrillic in the question when it is unknown."""
    if plan.language in ("ru", "en"):
        return plan.language
    return "ru" if _CYRILLIC.search(plan.query_plan.raw) else "en"


def question_symbols(plan: RouterPlan) -> list[str]:
    """SYMBOL anchors of the plan, those typed in the question before carried ones."""
    anchors = [a for a in plan.query_plan.anchors if a.type is AnchorType.SYMBOL]
    anchors.sort(key=lambda a: a.source != "query")
    out: list[str] = []
    for anchor in anchors:
        if anchor.value not in out:
            out.append(anchor.value)
    return out


def project_words(plan: RouterPlan) -> list[str]:
    """The project's own names the question uses (KEY_TERM anchors of subtype ``project``,
    lower-cased), and both halves of one written as ``owner/name`` ("gorilla/mux"): they match
    every title and prefix every setting, so they tell nothing apart."""
    out: list[str] = []
    for a in plan.query_plan.anchors:
        if a.type is AnchorType.KEY_TERM and a.subtype == "project":
            name = a.value.lower()
            out += [name, *(p for p in name.split("/") if "/" in name and p)]
    return list(dict.fromkeys(out))


def short_name(symbol: str, segments: int = 1) -> str:
    """The last ``segments`` dotted parts of a qualified name (``a.b.C.m`` -> ``C.m`` for 2)."""
    parts = [p for p in re.split(r"\.|::|#", symbol) if p]
    return ".".join(parts[-max(1, segments) :]) if parts else symbol


def numbered(text: str, start_line: int, max_lines: int = MAX_QUOTE_LINES) -> tuple[str, int]:
    """``text`` with right-aligned line numbers, cut after ``max_lines`` lines.

    Returns the quote and the last line number shown.
    """
    lines = text.splitlines() or [""]
    shown = lines[:max_lines]
    last = start_line + len(shown) - 1
    width = len(str(last))
    out = [f"{start_line + i:>{width}} | {line}".rstrip() for i, line in enumerate(shown)]
    if len(lines) > max_lines:
        out.append(f"{'':>{width}} | …")
    return "\n".join(out), last


def fence(path: str) -> str:
    """The Markdown code-fence language for a file (``python``, ``go``; ``text`` when unknown)."""
    language = detect_language(path)
    return "text" if language in ("unknown", "") else language


def quote_block(hit_path: str, text: str, start_line: int, max_lines: int = MAX_QUOTE_LINES) -> str:
    """A fenced, line-numbered quote of ``text`` that starts at ``start_line`` of ``hit_path``."""
    body, _ = numbered(text, start_line, max_lines)
    return f"```{fence(hit_path)}\n{body}\n```"


def blockquote(text: str) -> str:
    """``text`` as a Markdown blockquote (``> `` before each line, ``>`` for blank ones)."""
    return "\n".join("> " + ln if ln.strip() else ">" for ln in text.splitlines())


def overlaps(a: Hit, spans: Sequence[tuple[str, int, int]]) -> bool:
    """True when ``a`` overlaps one of the ``(path, start, end)`` spans."""
    return any(p == a.path and a.start_line <= e and s <= a.end_line for p, s, e in spans)


def disjoint_hits(hits: Iterable[Hit]) -> list[Hit]:
    """``hits`` in order, leaving out each one that overlaps a hit kept before it."""
    out: list[Hit] = []
    for hit in hits:
        if not overlaps(hit, [(h.path, h.start_line, h.end_line) for h in out]):
            out.append(hit)
    return out


def quote_hits(
    hits: Iterable[Hit],
    citations: CitationList,
    quoted: list[tuple[str, int, int]],
    keep: Callable[[Hit], bool],
    limit: int,
) -> list[str]:
    """Cited, fenced quotes of up to ``limit`` hits that ``keep`` accepts.

    A hit overlapping a span in ``quoted`` is skipped; each quoted hit's span is appended to
    ``quoted``. Each quote is headed by its citation and its heading path or symbol.
    """
    out: list[str] = []
    for hit in hits:
        if not keep(hit) or overlaps(hit, quoted):
            continue
        cited = citations.add_hit(hit)
        where = hit.heading_path or (f"`{hit.symbol}`" if hit.symbol else "")
        head = f"`{cited}`" + (f" — {where}" if where else "")
        out.append(f"{head}\n{quote_block(hit.path, hit.text, hit.start_line)}")
        quoted.append((hit.path, hit.start_line, hit.end_line))
        if len(out) == limit:
            break
    return out


def first_sentence(text: str, limit: int = 200) -> str:
    """The first paragraph's first sentence of a docstring-like text, at most ``limit`` chars."""
    para = " ".join(text.strip().split("\n\n", 1)[0].split())
    match = re.search(r"(?<=[.!?])\s", para)
    sentence = para[: match.start()] if match else para
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"


def hit_from_scored(scored: ScoredRow, reason: str) -> Hit:
    """A store hit as an evidence :class:`Hit` (for rows a graph looks up itself)."""
    return Hit(
        layer=str(scored.layer),
        path=scored.path,
        start_line=scored.start_line,
        end_line=scored.end_line,
        symbol=scored.symbol,
        score=scored.score,
        reasons=(reason,),
        text=scored.text,
        row_id=scored.row_id,
        kind=getattr(scored.row, "kind", None),
        heading_path=getattr(scored.row, "heading_path", None),
    )


class CitationList:
    """Citations in first-cited order, each span once."""

    def __init__(self) -> None:
        self._items: list[Citation] = []

    def add(self, path: str, start_line: int, end_line: int) -> str:
        """Record a span and return its ``path:start-end`` string."""
        item = Citation(path=path, start_line=start_line, end_line=end_line)
        if item not in self._items:
            self._items.append(item)
        return cite(path, start_line, end_line)

    def add_hit(self, hit: Hit) -> str:
        """Record a hit's span."""
        return self.add(hit.path, hit.start_line, hit.end_line)

    def extend(self, items: Iterable[Citation]) -> None:
        for item in items:
            self.add(item.path, item.start_line, item.end_line)

    def items(self) -> tuple[Citation, ...]:
        return tuple(self._items)

    def promote(self, mark: int) -> None:
        """Put the spans recorded since there were ``mark`` of them first: the part they were
        cited in now opens the answer."""
        self._items = self._items[mark:] + self._items[:mark]
