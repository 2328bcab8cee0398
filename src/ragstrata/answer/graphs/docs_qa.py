"""DocsQAGraph: a documentation question answered by quoting the sections that match it.

Extractive answer: the best doc sections (require_spec's hits first, then D1/D2 hits), each
with its heading path and ``path:start-end`` and its lines quoted; then docstrings of matching
definitions (a definition's docstring documents it too).
"""

from __future__ import annotations

from collections.abc import Sequence

from ragstrata.answer.graphs.base import (
    CitationList,
    blockquote,
    disjoint_hits,
    hit_from_scored,
    quote_block,
)
from ragstrata.answer.graphs.common import EvidenceGraph
from ragstrata.answer.graphs.focus import literal_hits, not_overview_path, question_names
from ragstrata.answer.graphs.messages import Messages
from ragstrata.answer.graphs.missing import nothing_found_answer
from ragstrata.answer.graphs.sections import has_body, topic_sections
from ragstrata.core.answer import Answer
from ragstrata.core.evidence import Evidence, Hit
from ragstrata.core.languages import detect_language
from ragstrata.core.values import scored_row
from ragstrata.query.facets import facets_of
from ragstrata.query.models import AnchorType, RouterPlan

__all__ = ["MAX_DOCSTRINGS", "MAX_SECTIONS", "DocsQAGraph"]

MAX_SECTIONS = 3
MAX_DOCSTRINGS = 2
_DOC_LANGUAGES = ("markdown", "rst", "text")
_MAX_DOC_FILES = 50  # documents read for a section named without its file


def section_hits(evidence: Evidence, first: Sequence[Hit] = (), named: bool = False) -> list[Hit]:
    """Doc hits to quote: ``first`` (the sections whose heading answers the question's topic),
    require_spec's, then every D1/D2 hit; no span twice, none that is only a heading, and no
    licence / template / funding page unless the question names one (``named``)."""
    req = evidence.requirements.get("require_spec")
    ordered = list(first)
    ordered += [h for h in (req.hits if req else ()) if h.layer in ("D1", "D2")]
    ordered += [h for h in evidence.hits if h.layer in ("D1", "D2") and h not in ordered]
    kept = [
        h
        for h in ordered
        if has_body(h.text, h.heading_path or "") and (named or not not_overview_path(h.path))
    ]
    return disjoint_hits(kept)[:MAX_SECTIONS]


class DocsQAGraph(EvidenceGraph):
    """Answers DOCS_QA plans."""

    graph_id = "DocsQAGraph"

    def extractive(self, plan: RouterPlan, evidence: Evidence, msgs: Messages) -> Answer:
        first = self._named_sections(plan) + self._topic_hits(plan)
        names = question_names(plan)
        if names:  # sections that write a name the question uses (`jitless`) come first
            first += literal_hits([h for h in evidence.hits if h.layer in ("D1", "D2")], names)
        sections = section_hits(evidence, first, _names_a_doc(plan))
        docstrings = self._docstrings(evidence)
        if not sections and not docstrings:
            return nothing_found_answer(plan, self.graph_id)
        citations = CitationList()
        parts: list[str] = []
        lead = ""
        if sections:
            quoted = []
            for hit in sections:
                cited = citations.add_hit(hit)
                heading = hit.heading_path or hit.path
                title = heading.rsplit(">", 1)[-1].strip()
                lead = lead or msgs.t("lead_section", heading=title, cite=cited)
                quoted.append(
                    msgs.t("section", heading=heading, cite=cited)
                    + "\n"
                    + quote_block(hit.path, hit.text, hit.start_line)
                )
            parts.append(msgs.t("relevant_docs") + "\n\n" + "\n\n".join(quoted))
        for symbol, hit, doc in docstrings:
            cited = citations.add_hit(hit)
            lead = lead or msgs.t("lead_docstring", symbol=symbol, cite=cited)
            parts.append(msgs.t("docstring_of", symbol=symbol, cite=cited) + "\n" + blockquote(doc))
        return self.extractive_answer(parts, citations, msgs, lead=lead)

    def _named_sections(self, plan: RouterPlan) -> list[Hit]:
        """The sections the question names by heading ("the Configuration section of the
        README"), in the documents it names (shallowest first), else in any document."""
        wanted = [
            a.value.strip().lower()
            for a in plan.query_plan.anchors
            if a.type is AnchorType.DOC_REF and a.subtype == "section"
        ]
        if not wanted:
            return []
        files = [
            a.value.lower()
            for a in plan.query_plan.anchors
            if a.type is AnchorType.DOC_REF and a.subtype == "file"
        ]
        docs = [p for p in self.reader.paths() if detect_language(p) in _DOC_LANGUAGES]
        named = [p for p in docs if any(_stem(p) == f or p.lower() == f for f in files)]
        found = []
        for path in sorted(named or docs, key=lambda p: (p.count("/"), p))[:_MAX_DOC_FILES]:
            for section in self.reader.sections(path):
                title = section.heading_path.rsplit(">", 1)[-1].strip().lower()
                if title in wanted:
                    found.append(hit_from_scored(scored_row(section, 0.0), "docs:named"))
        return found[:MAX_SECTIONS]

    def _topic_hits(self, plan: RouterPlan) -> list[Hit]:
        """Sections whose heading answers the question's topic (install, usage...), from the
        documents the question names (a README) or else the project's own docs."""
        topics = facets_of(plan).topics
        if not topics:
            return []
        paths = self.reader.paths()
        refs = [
            a.value.lower()
            for a in plan.query_plan.anchors
            if a.type in (AnchorType.DOC_REF, AnchorType.FILE_PATH)
        ]
        if refs:
            named = [p for p in paths if any(r in p.lower() for r in refs)]
            paths = named or paths
        found = topic_sections(self.reader, paths, topics, facets_of(plan).words)
        return [hit_from_scored(scored_row(s, 0.0), "docs:topic") for s in found]

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


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()


def _names_a_doc(plan: RouterPlan) -> bool:
    return any(
        a.type in (AnchorType.DOC_REF, AnchorType.FILE_PATH) for a in plan.query_plan.anchors
    )
