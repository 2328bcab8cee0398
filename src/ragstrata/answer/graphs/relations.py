"""The relations an answer lists: callers (resolved ones first, those matching the name only
apart and labelled as possible), callees, uses of a type; each item cited at its line."""

from __future__ import annotations

from ragstrata.answer.graphs.base import CitationList, quote_hits
from ragstrata.answer.graphs.focus import literal_hits
from ragstrata.answer.graphs.messages import Messages
from ragstrata.core.evidence import Evidence, Hit
from ragstrata.core.languages import detect_language, is_test
from ragstrata.core.names import last_segment
from ragstrata.core.rows import RelationRow
from ragstrata.core.values import Direction, SearchFilters
from ragstrata.retrieve.resolve import SymbolResolver

__all__ = [
    "MAX_LEAD_ITEMS",
    "MAX_RELATED",
    "call_sites",
    "hit_items",
    "is_possible",
    "items_of",
    "lead_items",
    "relation_items",
    "test_uses",
]

MAX_RELATED = 8
MAX_LEAD_ITEMS = 3


def relation_items(
    title: str,
    rows: list[RelationRow],
    msgs: Messages,
    citations: CitationList,
    callers: bool,
) -> str:
    """The listed relations; callers the code resolves come first, callers that only share
    the name are listed apart and labelled as possible."""
    if callers:
        sure = [r for r in rows if not is_possible(r)]
        maybe = [r for r in rows if is_possible(r)]
        parts = []
        if sure:
            parts.append(items_of(title, sure, msgs, citations, True))
        if maybe:
            parts.append(items_of(msgs.t("possible_callers"), maybe, msgs, citations, True))
        return "\n\n".join(parts)
    return items_of(title, rows, msgs, citations, False)


def items_of(
    title: str,
    rows: list[RelationRow],
    msgs: Messages,
    citations: CitationList,
    callers: bool,
) -> str:
    """``title`` and one cited item per caller's call site (or per callee, at its first call),
    at most :data:`MAX_RELATED` of them."""
    items = []
    seen: set[tuple[str, str, int]] = set()
    for rel in rows:
        name = rel.from_symbol if callers else (rel.to_symbol or rel.to_name)
        line = rel.line or rel.start_line
        # every call site of a caller counts; a callee is listed once (its first call)
        key = (name, rel.path, line) if callers else (name, "", 0)
        if key in seen:
            continue
        seen.add(key)
        items.append(msgs.t("item", name=name, cite=citations.add(rel.path, line, line)))
    text = title + "\n" + "\n".join(items[:MAX_RELATED])
    if len(items) > MAX_RELATED:
        text += "\n\n" + msgs.t("more", count=len(items) - MAX_RELATED)
    return text


def hit_items(title: str, hits: list[Hit], msgs: Messages, citations: CitationList) -> str:
    """``title`` and one cited item per hit (its text on one line)."""
    items = [
        msgs.t("item", name=" ".join(h.text.split()), cite=citations.add_hit(h))
        for h in hits[:MAX_RELATED]
    ]
    return title + "\n" + "\n".join(items)


def call_sites(rows: list[RelationRow]) -> list[tuple[str, str]]:
    """Distinct call sites: (caller, ``path:line``)."""
    out: dict[tuple[str, str], None] = {}
    for rel in rows:
        line = rel.line or rel.start_line
        out.setdefault((rel.from_symbol, f"{rel.path}:{line}"), None)
    return list(out)


def is_possible(rel: RelationRow) -> bool:
    """True for a call matched to the name only: the code does not show it reaches this
    definition (``resolution`` "possible"; before that field existed, an unresolved target)."""
    if rel.resolution:
        return rel.resolution == "possible"
    return rel.to_symbol is None


def lead_items(sites: list[tuple[str, str]], msgs: Messages) -> tuple[str, str]:
    """The first :data:`MAX_LEAD_ITEMS` call sites as the lead names them, and the sentence
    saying how many more there are (``""`` when none)."""
    items = ", ".join(f"`{name}` (`{cite}`)" for name, cite in sites[:MAX_LEAD_ITEMS])
    more = len(sites) - MAX_LEAD_ITEMS
    return items, (msgs.t("lead_more", count=more) if more > 0 else "")


def test_uses(
    resolver: SymbolResolver,
    name: str,
    defs: list[Hit],
    evidence: Evidence,
    msgs: Messages,
    citations: CitationList,
    snippets: int,
) -> tuple[str, str]:
    """Where the tests use ``name``: call sites in test code (C2), else at most ``snippets``
    test lines that contain it (C3); the part and its lead."""
    symbols = [h.symbol for h in defs if h.symbol]
    match = resolver.resolve(name, SearchFilters(is_test=False), limit=5)
    symbols += [r.symbol for r in match.definitions if r.symbol]
    rows: list[RelationRow] = []
    seen: set[str] = set()
    for symbol in dict.fromkeys(symbols):
        for scored in resolver.relations(
            symbol, Direction.CALLERS, ("calls",), SearchFilters(is_test=True), 50
        ):
            if isinstance(scored.row, RelationRow) and scored.row_id not in seen:
                seen.add(scored.row_id)
                rows.append(scored.row)
    target = symbols[0] if symbols else name
    if rows:
        sites = call_sites(rows)
        items, more = lead_items(sites, msgs)
        lead = msgs.t("lead_tests", symbol=target, count=len(sites), items=items) + more
        return relation_items(msgs.t("test_uses"), rows, msgs, citations, True), lead
    tail = last_segment(name)
    lines = [h for h in literal_hits(evidence.hits, [tail]) if h.layer in ("C1", "C3")]
    lines = [h for h in lines if is_test(h.path, detect_language(h.path))]
    if not lines:
        return "", msgs.t("lead_no_tests", symbol=target)
    quotes = quote_hits(lines, citations, [], lambda h: True, snippets)
    lead = msgs.t("lead_tests_lines", symbol=target, cite=lines[0].citation)
    return msgs.t("test_uses") + "\n\n" + "\n\n".join(quotes), lead
