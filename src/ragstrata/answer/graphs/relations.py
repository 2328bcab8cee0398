"""The relations an answer lists: callers (resolved ones first, those matching the name only
apart and labelled as possible), callees, uses of a type; each item cited at its line."""

from __future__ import annotations

from ragstrata.answer.graphs.base import CitationList
from ragstrata.answer.graphs.messages import Messages
from ragstrata.core.evidence import Hit
from ragstrata.core.rows import RelationRow

__all__ = ["MAX_RELATED", "call_sites", "hit_items", "is_possible", "items_of", "relation_items"]

MAX_RELATED = 8


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
