"""``EvidenceGraph``: the policy check, extractive draft and optional LLM pass every graph runs.

``answer(plan, evidence)``:

1. a required requirement missing and ``allow_answer_without_evidence`` false: when a name the
   question uses exists nowhere in the index (:func:`~ragstrata.answer.graphs.focus.absent_names`)
   or nothing was retrieved, the "not found" answer (:mod:`~ragstrata.answer.graphs.missing`),
   which asserts nothing; otherwise the answer is made from the best evidence with status
   ``partial`` (the evidence's ``missing`` names the requirement only partly met);
2. the graph's extractive answer (``extractive``), in the question's language, opening with its
   lead sentence(s);
3. with a runner, the LLM answer over the graph's evidence blocks (``blocks``), the extractive
   one kept in ``meta`` and used as the fallback.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

from ragstrata.answer.graphs.base import CitationList, answer_language
from ragstrata.answer.graphs.focus import absent_names
from ragstrata.answer.graphs.llm import llm_answer
from ragstrata.answer.graphs.messages import Messages, messages
from ragstrata.answer.graphs.missing import not_found_answer
from ragstrata.core.answer import Answer
from ragstrata.core.evidence import Evidence, Hit
from ragstrata.core.rows import DefinitionRow, Row
from ragstrata.core.values import SearchFilters, SymbolMode
from ragstrata.llm.base import Runner
from ragstrata.query.models import RouterPlan
from ragstrata.retrieve.reader import IndexReader

__all__ = ["EvidenceGraph"]


class EvidenceGraph:
    """Base of the four graphs; subclasses implement :meth:`extractive`."""

    graph_id: ClassVar[str] = ""
    uses_llm: ClassVar[bool] = True

    def __init__(self, *, reader: IndexReader, runner: Runner | None = None) -> None:
        self.reader = reader
        self.runner = runner
        self.resolver = reader.resolver

    def answer(self, plan: RouterPlan, evidence: Evidence) -> Answer:
        """The answer to ``plan`` from ``evidence`` (see the module docstring)."""
        strict = evidence.missing and not plan.evidence_policy.allow_answer_without_evidence
        if strict and (not evidence.hits or absent_names(self.reader, plan)):
            return not_found_answer(plan, evidence, self.graph_id)
        language = answer_language(plan)
        draft = self.extractive(plan, evidence, messages(language))
        if evidence.missing and draft.status == "answered" and not draft.meta.get("met"):
            draft = replace(draft, status="partial")
        if self.runner is None or not self.uses_llm or not draft.grounded:
            return draft
        blocks = self.blocks(plan, evidence)
        if not blocks:
            return draft
        return llm_answer(self.runner, plan.query_plan.raw, blocks, draft, language)

    def extractive(self, plan: RouterPlan, evidence: Evidence, msgs: Messages) -> Answer:
        """The answer quoted from evidence, with no model."""
        raise NotImplementedError

    def blocks(self, plan: RouterPlan, evidence: Evidence) -> Sequence[Hit]:
        """The evidence given to the LLM, best first."""
        return evidence.hits

    def extractive_answer(
        self, parts: Sequence[str], citations: CitationList, msgs: Messages, *, lead: str = ""
    ) -> Answer:
        """The grounded extractive answer: ``lead`` then ``parts`` (blank-line separated)."""
        return Answer(
            text="\n\n".join([lead, *parts] if lead else parts),
            citations=citations.items(),
            graph_id=self.graph_id,
            grounded=True,
            meta={"mode": "extractive", "language": msgs.language},
            lead=lead,
        )

    # ------------------------------------------------------------------ store helpers
    def row(self, hit: Hit) -> Row | None:
        """The stored row behind ``hit`` (by row id), or None."""
        if not hit.row_id:
            return None
        rows = self.reader.get_rows([hit.row_id])
        return rows[0] if rows else None

    def definition(self, hit: Hit) -> DefinitionRow | None:
        """The C1 row behind a hit: by row id, else by its qualified symbol in its file."""
        row = self.row(hit)
        if isinstance(row, DefinitionRow):
            return row
        if not hit.symbol:
            return None
        match = self.resolver.resolve(
            hit.symbol,
            SearchFilters(path_prefixes=(hit.path,)),
            limit=5,
            widen=False,
            modes=(SymbolMode.QUALIFIED,),
        )
        rows = [s.row for s in match.definitions if isinstance(s.row, DefinitionRow)]
        enclosing = [r for r in rows if r.start_line <= hit.start_line] or rows
        return enclosing[0] if enclosing else None
