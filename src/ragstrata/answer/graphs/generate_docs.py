"""GenerateDocsGraph: "generate documentation for module payments" -> the Markdown doc.

The target is the plan's FILE_PATH anchor, else its SYMBOL anchors (``payments``), else the top
definition hit. The target's own resolution against C0/C1 (:mod:`ragstrata.answer.docs.targets`) is
the evidence check: a target that resolves is documented from the index; one that does not
yields the "not found" answer with near candidates. Output is template-based with or without
an LLM, so it stays deterministic.
"""

from __future__ import annotations

from ragstrata.answer.docs.targets import build_docs
from ragstrata.answer.graphs.base import answer_language, hit_from_scored, question_symbols
from ragstrata.answer.graphs.common import EvidenceGraph
from ragstrata.answer.graphs.messages import Messages, messages
from ragstrata.answer.graphs.missing import not_found_answer
from ragstrata.core.answer import Answer
from ragstrata.core.evidence import Evidence, Requirement
from ragstrata.core.values import SymbolMode
from ragstrata.errors import UserError
from ragstrata.query.facets import facets_of
from ragstrata.query.models import AnchorType, RouterPlan

__all__ = ["GenerateDocsGraph", "doc_targets"]


def doc_targets(plan: RouterPlan, evidence: Evidence) -> list[str]:
    """Targets to try, in order: file paths, symbols, then the top definition hit."""
    out = [a.value for a in plan.query_plan.anchors if a.type is AnchorType.FILE_PATH]
    out += question_symbols(plan)
    top = [h for h in evidence.hits if h.layer == "C1" and h.symbol]
    if not out and top:
        out.append(top[0].symbol or "")
    return list(dict.fromkeys(t for t in out if t))


class GenerateDocsGraph(EvidenceGraph):
    """Answers GENERATE_DOCS_FROM_CODE plans with generated Markdown."""

    graph_id = "GenerateDocsGraph"
    uses_llm = False

    def answer(self, plan: RouterPlan, evidence: Evidence) -> Answer:
        return self.extractive(plan, evidence, messages(answer_language(plan)))

    def extractive(self, plan: RouterPlan, evidence: Evidence, msgs: Messages) -> Answer:

        targets = doc_targets(plan, evidence)
        facets = facets_of(plan)
        module, tests = facets.names_module, facets.mentions_tests
        for target in targets:
            try:
                docs = build_docs(
                    target, reader=self.reader, language=msgs.language, module=module, tests=tests
                )
            except UserError:
                continue
            lead = msgs.t("gendocs_intro", target=docs.target.value)
            return Answer(
                text=lead + "\n\n" + docs.markdown,
                citations=docs.citations,
                graph_id=self.graph_id,
                grounded=True,
                lead=lead,
                meta={
                    "mode": "generated",
                    "language": msgs.language,
                    "target": docs.target.value,
                    "target_kind": docs.target.kind,
                },
            )
        candidates = evidence.candidates
        if targets and not candidates:
            found = self.resolver.resolve(targets[0], limit=3, modes=(SymbolMode.FUZZY,))
            candidates = tuple(hit_from_scored(s, "symbol:fuzzy") for s in found.hits)
        missing = Evidence(
            hits=evidence.hits,
            requirements={
                "require_def": Requirement(
                    name="require_def",
                    required=True,
                    satisfied=False,
                    looked_for=targets[0] if targets else "",
                )
            },
            candidates=candidates,
        )
        return not_found_answer(plan, missing, self.graph_id)
