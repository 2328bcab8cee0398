"""CodeQAGraph: a code question answered from definitions, call sites and quoted lines.

Extractive answer, in order: each definition found (qualified name, kind, signature, docstring,
``path:start-end``), where it is called from and what it calls (C2, ``path:line``), then the
most relevant code lines and doc sections quoted with line numbers. Every span shown is cited.
"""

from __future__ import annotations

import re

from ragstrata.answer.base import Answer
from ragstrata.answer.graphs.base import (
    CitationList,
    blockquote,
    disjoint_hits,
    overlaps,
    question_symbols,
    quote_block,
    quote_hits,
)
from ragstrata.answer.graphs.common import EvidenceGraph
from ragstrata.answer.graphs.messages import Messages
from ragstrata.answer.graphs.missing import nothing_found_answer
from ragstrata.ingest.rows import RelationRow
from ragstrata.query.models import RouterPlan
from ragstrata.retrieve.base import Evidence, Hit
from ragstrata.store.base import Direction, suffix_match

__all__ = ["MAX_DEFINITIONS", "MAX_RELATED", "MAX_SNIPPETS", "CodeQAGraph", "overlaps"]

MAX_DEFINITIONS = 2
MAX_RELATED = 8
MAX_SNIPPETS = 3
_QUOTED_LAYERS = ("C1", "C3", "D1", "D2")
_SEGMENT_SEP = re.compile(r"::|[.#\\]")


def definition_hits(plan: RouterPlan, evidence: Evidence) -> list[Hit]:
    """The definitions to present: require_def's hits (else C1 hits), the named symbol first."""
    req = evidence.requirements.get("require_def")
    hits = [h for h in (req.hits if req else ()) if h.layer == "C1"]
    if not hits:
        hits = [h for h in evidence.hits if h.layer == "C1"]
    symbols = question_symbols(plan)
    if symbols:
        named = [h for h in hits if h.symbol and any(suffix_match(h.symbol, s) for s in symbols)]
        # the definition named exactly as written (case included) first, modules last: a
        # module `retriever` also suffix-matches a question about the class `Retriever`
        wanted = {_last(s) for s in symbols}
        named.sort(key=lambda h: (_last(h.symbol or "") not in wanted, h.kind == "module"))
        hits = named + [h for h in hits if h not in named]
    return disjoint_hits(hits)[:MAX_DEFINITIONS]


def _last(symbol: str) -> str:
    return _SEGMENT_SEP.split(symbol)[-1]


class CodeQAGraph(EvidenceGraph):
    """Answers CODE_QA plans."""

    graph_id = "CodeQAGraph"

    def extractive(self, plan: RouterPlan, evidence: Evidence, msgs: Messages) -> Answer:
        if not evidence.hits:
            return nothing_found_answer(plan, self.graph_id)
        citations = CitationList()
        parts: list[str] = []
        shown: list[tuple[str, int, int]] = []
        for hit in definition_hits(plan, evidence):
            parts.append(self._definition_part(hit, msgs, citations))
            shown.append((hit.path, hit.start_line, hit.end_line))
        flow = evidence.requirements.get("require_flow")
        extra_flow = [h for h in (flow.hits if flow else ()) if h.layer == "C2"]
        if not shown and extra_flow:
            parts.append(self._items(msgs.t("callers"), extra_flow, msgs, citations))
        snippets = quote_hits(
            evidence.hits, citations, [], lambda h: h.layer in _QUOTED_LAYERS, MAX_SNIPPETS
        )
        if snippets:
            parts.append(msgs.t("relevant_code") + "\n\n" + "\n\n".join(snippets))
        if not parts:  # only file-level or relation rows that answer nothing by themselves
            return nothing_found_answer(plan, self.graph_id)
        return self.extractive_answer(parts, citations, msgs)

    # ------------------------------------------------------------------ parts
    def _definition_part(self, hit: Hit, msgs: Messages, citations: CitationList) -> str:
        row = self.definition(hit)
        symbol = row.symbol if row else (hit.symbol or hit.path)
        kind = row.kind if row else (hit.kind or "definition")
        span = (row.path, row.start_line, row.end_line) if row else None
        cited = citations.add(*span) if span else citations.add_hit(hit)
        lines = [msgs.t("definition", symbol=symbol, kind=msgs.kind(kind).lower(), cite=cited)]
        signature = row.signature if row else (hit.text.splitlines() or [""])[0]
        start = row.start_line if row else hit.start_line
        sig_lines = signature.count("\n") + 1
        lines.append(quote_block(hit.path, signature, start, max(sig_lines, 1)))
        docstring = row.docstring if row else None
        if docstring:
            lines.append(msgs.t("docstring") + "\n" + blockquote(docstring))
        else:
            lines.append(msgs.t("no_docstring"))
        if kind == "module":  # a module is imported, not called: its "callers" would be noise
            return "\n\n".join(lines)
        callers = self._relations(symbol, Direction.CALLERS)
        if callers:
            lines.append(self._relation_items(msgs.t("callers"), callers, msgs, citations, True))
        else:
            lines.append(msgs.t("no_callers", symbol=symbol))
        callees = self._relations(symbol, Direction.CALLEES)
        if callees:
            lines.append(self._relation_items(msgs.t("callees"), callees, msgs, citations, False))
        return "\n\n".join(lines)

    def _relations(self, symbol: str, direction: Direction) -> list[RelationRow]:
        # resolved targets (this repository's own code) first, then builtins and library calls
        found = self.resolver.relations(symbol, direction, ("calls",), limit=50)
        return [s.row for s in found if isinstance(s.row, RelationRow)]

    @staticmethod
    def _relation_items(
        title: str,
        rows: list[RelationRow],
        msgs: Messages,
        citations: CitationList,
        callers: bool,
    ) -> str:
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

    @staticmethod
    def _items(title: str, hits: list[Hit], msgs: Messages, citations: CitationList) -> str:
        items = [
            msgs.t("item", name=" ".join(h.text.split()), cite=citations.add_hit(h))
            for h in hits[:MAX_RELATED]
        ]
        return title + "\n" + "\n".join(items)
