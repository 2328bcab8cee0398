"""DocsQAGraph: a documentation question answered by quoting the sections that match it.

Extractive answer: the best doc sections (require_spec's hits first, then D1/D2 hits), each
with its heading path and ``path:start-end`` and its lines quoted; then docstrings of matching
definitions (a definition's docstring documents it too).
"""

from __future__ import annotations

from ragstrata.answer.base import Answer
from ragstrata.answer.graphs.base import CitationList, blockquote, disjoint_hits, quote_block
from ragstrata.answer.graphs.common import EvidenceGraph
from ragstrata.answer.graphs.messages import Messages
from ragstrata.answer.graphs.missing import nothing_found_answer
from ragstrata.query.models import RouterPlan
from ragstrata.retrieve.base import Evidence, Hit

__all__ = ["MAX_DOCSTRINGS", "MAX_SECTIONS", "DocsQAGraph"]

MAX_SECTIONS = 3
MAX_DOCSTRINGS = 2


def section_hits(evidence: Evidence) -> list[Hit]:
    """Doc hits to quote: require_spec's first, then every D1/D2 hit, no span twice."""
    req = evidence.requirements.get("require_spec")
    ordered = [h for h in (req.hits if req else ()) if h.layer in ("D1", "D2")]
    ordered += [h for h in evidence.hits if h.layer in ("D1", "D2") and h not in ordered]
    return disjoint_hits(ordered)[:MAX_SECTIONS]


class DocsQAGraph(EvidenceGraph):
    """Answers DOCS_QA plans."""

    graph_id = "DocsQAGraph"

    def extractive(self, plan: RouterPlan, evidence: Evidence, msgs: Messages) -> Answer:
        sections = section_hits(evidence)
        docstrings = self._docstrings(evidence)
        if not sections and not docstrings:
            return nothing_found_answer(plan, self.graph_id)
        citations = CitationList()
        parts: list[str] = []
        if sections:
            quoted = []
            for hit in sections:
                cited = citations.add_hit(hit)
                heading = hit.heading_path or hit.path
                quoted.append(
                    msgs.t("section", heading=heading, cite=cited)
                    + "\n"
                    + quote_block(hit.path, hit.text, hit.start_line)
                )
            parts.append(msgs.t("relevant_docs") + "\n\n" + "\n\n".join(quoted))
        for symbol, hit, doc in docstrings:
            cited = citations.add_hit(hit)
            parts.append(msgs.t("docstring_of", symbol=symbol, cite=cited) + "\n" + blockquote(doc))
        return self.extractive_answer(parts, citations, msgs)

    def _docstrings(self, evidence: Evidence) -> list[tuple[str, Hit, str]]:
        out: list[tuple[str, Hit, str]] = []
        for hit in evidence.hits:
            if hit.layer != "C1":
                continue
            row = self.definition(hit)
            if row is not None and row.docstring:
                out.append((row.symbol, hit, row.docstring))
            if len(out) == MAX_DOCSTRINGS:
                break
        return out
