"""Weighted reciprocal-rank fusion, grouping of overlapping hits, and a file-level view.

RRF fits here because the lists' scores mean different things (BM25, cosine, symbol-match
grades): only ranks are compared. A row at rank ``r`` of a list of weight ``w`` gets
``w / (k + r)``; a row's score is the sum over every list that returned it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ragstrata.core.evidence import Hit
from ragstrata.core.rows import DefinitionRow, RelationRow, Row, SectionRow
from ragstrata.core.texts import OUTLINE_KINDS
from ragstrata.core.values import ScoredRow

__all__ = [
    "MERGE_INTO",
    "RankedList",
    "file_ranking",
    "fuse",
    "group_hits",
    "hit_from_row",
    "is_container",
    "merge_same_symbol",
]

MERGE_INTO: dict[str, str] = {"C3": "C1", "D2": "D1"}
"""A hit of the key layer that lies inside a hit of the value layer (same file) is merged into
it: the same lines are not returned twice. A chunk larger than the definition or section stays
apart: it carries other lines too, and merging it would credit one section with all of them.
A container definition (class, module) absorbs a chunk without being credited for it (its
score becomes the better of the two, no corroboration): a chunk inside a class is about one of
its members (the retriever promotes such chunks to the member) or about the class's own lines,
and crediting the class with every chunk of its members ranked it above them."""

_PRIORITY = {"C1": 0, "D1": 1, "C2": 2, "C3": 3, "D2": 4, "C0": 5, "D0": 6}
"""Which layer's row represents hits with identical spans (lower wins)."""
_MAX_REASONS = 8


@dataclass(frozen=True, slots=True)
class RankedList:
    """One ranked candidate list: its kind (see ``profiles.LIST_KINDS``), the layer it
    searched, the label used in reasons (``lexical:C1``), its fusion weight and its rows."""

    kind: str
    layer: str
    label: str
    weight: float
    rows: tuple[ScoredRow, ...]


def hit_from_row(row: ScoredRow, score: float, reasons: Sequence[str]) -> Hit:
    """A :class:`Hit` for a store row."""
    r = row.row
    kind: str | None = None
    heading: str | None = None
    if isinstance(r, DefinitionRow):
        kind = r.kind
    elif isinstance(r, RelationRow):
        kind = r.relation
    elif isinstance(r, SectionRow):
        kind, heading = "section", r.heading_path
    else:
        heading = getattr(r, "heading_path", None)
    return Hit(
        layer=str(row.layer),
        path=row.path,
        start_line=row.start_line,
        end_line=row.end_line,
        symbol=row.symbol,
        score=score,
        reasons=tuple(reasons),
        text=row.text,
        row_id=row.row_id,
        kind=kind,
        heading_path=heading,
        extra={"is_test": r.is_test, "row": r},
    )


def is_container(row: Row | None) -> bool:
    """Whether ``row`` is a definition that holds others (class, module, ...)."""
    return isinstance(row, DefinitionRow) and row.kind in OUTLINE_KINDS


def fuse(lists: Iterable[RankedList], rrf_k: float = 60.0) -> list[Hit]:
    """Weighted RRF over ``lists``; reasons list each contribution, largest first."""
    score: dict[str, float] = {}
    parts: dict[str, list[tuple[float, str]]] = {}
    first: dict[str, ScoredRow] = {}
    for lst in lists:
        if lst.weight <= 0:
            continue
        seen: set[str] = set()
        rank = 0
        for row in lst.rows:
            if row.row_id in seen:
                continue
            seen.add(row.row_id)
            rank += 1
            gain = lst.weight / (rrf_k + rank)
            score[row.row_id] = score.get(row.row_id, 0.0) + gain
            parts.setdefault(row.row_id, []).append((gain, f"{lst.label}#{rank}"))
            first.setdefault(row.row_id, row)
    hits = []
    for rid, total in score.items():
        reasons = [label for _, label in sorted(parts[rid], key=lambda p: -p[0])]
        hits.append(hit_from_row(first[rid], total, _dedupe(reasons)[:_MAX_REASONS]))
    return sort_hits(hits)


def sort_hits(hits: Iterable[Hit]) -> list[Hit]:
    """Best score first; ties: non-test, path, line (stable, independent of list order)."""
    return sorted(
        hits, key=lambda h: (-h.score, bool(h.extra.get("is_test")), h.path, h.start_line)
    )


def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _inside(a: Hit, b: Hit) -> bool:
    return b.start_line <= a.start_line and a.end_line <= b.end_line


CORROBORATION = 0.25
"""Share of the weaker score a merged hit adds to the stronger one (see :func:`group_hits`)."""


def group_hits(hits: Sequence[Hit]) -> list[Hit]:
    """Merge hits that repeat the same lines: identical spans (any layers; the row of the
    layer first in :data:`_PRIORITY` stays), then each chunk that lies inside a definition or
    section of the same file (see :data:`MERGE_INTO`) into the smallest such hit. A merged hit
    keeps the better score plus :data:`CORROBORATION` of the other (both rows ranked for the
    question, which is evidence, but a long definition holding many matching chunks must not
    outrank a short exact one by accumulation) and both hits' reasons."""
    by_span: dict[tuple[str, int, int], Hit] = {}
    for hit in sort_hits(hits):
        key = (hit.path, hit.start_line, hit.end_line)
        other = by_span.get(key)
        if other is None:
            by_span[key] = hit
            continue
        keep = hit if _PRIORITY.get(hit.layer, 9) < _PRIORITY.get(other.layer, 9) else other
        by_span[key] = _combined(keep, other, hit)
    containers: dict[str, list[Hit]] = {}
    for hit in by_span.values():
        if hit.layer in MERGE_INTO.values():
            containers.setdefault(hit.path, []).append(hit)
    merged: dict[tuple[str, int, int], Hit] = {}
    chunks: list[Hit] = []
    for hit in by_span.values():
        target_layer = MERGE_INTO.get(hit.layer)
        inside = [
            c for c in containers.get(hit.path, ()) if c.layer == target_layer and _inside(hit, c)
        ]
        if not inside:
            chunks.append(hit)
            continue
        box = min(inside, key=lambda c: (c.end_line - c.start_line, c.start_line))
        key = (box.path, box.start_line, box.end_line)
        current = merged.get(key, box)
        share = 0.0 if is_container(box.extra.get("row")) else CORROBORATION
        merged[key] = _combined(current, current, hit, share)
    out = [merged.get((h.path, h.start_line, h.end_line), h) for h in chunks]
    return sort_hits(merge_same_symbol(out))


def merge_same_symbol(hits: Sequence[Hit]) -> list[Hit]:
    """Definitions of one symbol in one file (``@overload`` stubs, a property's getter and
    setter) are one answer: they merge into the longest of them, the implementation."""
    groups: dict[tuple[str, str], list[Hit]] = {}
    out: list[Hit] = []
    for hit in hits:
        if hit.layer == "C1" and hit.symbol:
            groups.setdefault((hit.path, hit.symbol), []).append(hit)
        else:
            out.append(hit)
    for group in groups.values():
        keep = max(group, key=lambda h: (h.end_line - h.start_line, -h.start_line))
        merged = keep
        for other in sorted(group, key=lambda h: -h.score):
            if other is not keep:
                merged = _combined(merged, merged, other)
        out.append(merged)
    return out


def _combined(keep: Hit, a: Hit, b: Hit, share: float = CORROBORATION) -> Hit:
    ordered = sorted((a, b), key=lambda h: -h.score)
    reasons = _dedupe(r for h in ordered for r in h.reasons)[:_MAX_REASONS]
    hi, lo = max(a.score, b.score), min(a.score, b.score)
    return replace(keep, score=hi + share * lo, reasons=tuple(reasons))


def file_ranking(hits: Sequence[Hit]) -> list[tuple[str, float]]:
    """Files ranked by their best hit (score of the best hit per file), best first."""
    best: dict[str, float] = {}
    for h in hits:
        if h.score > best.get(h.path, float("-inf")):
            best[h.path] = h.score
    return sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))
