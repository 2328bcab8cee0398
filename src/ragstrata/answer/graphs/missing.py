"""The answer when the evidence policy is not met: what was not found, and near candidates.

It asserts nothing about the code: one sentence per missing requirement naming what was looked
for, then up to :data:`MAX_CANDIDATES` near misses (``UserService`` in
``src/users/service.py:12``), each cited.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from ragstrata.answer.graphs.base import (
    CitationList,
    answer_language,
    cite,
    question_symbols,
    short_name,
)
from ragstrata.answer.graphs.messages import Messages, messages
from ragstrata.core.answer import Answer
from ragstrata.core.evidence import Evidence, Hit
from ragstrata.core.names import fuzzy_score
from ragstrata.query.models import AnchorType, RouterPlan

__all__ = [
    "MAX_CANDIDATES",
    "candidate_name",
    "evidence_footer",
    "not_found_answer",
    "nothing_found_answer",
    "rank_candidates",
]

MAX_CANDIDATES = 3

# requirement -> (template naming the target, template when no target is named)
_TEMPLATES: dict[str, tuple[str, str]] = {
    "require_def": ("not_found_def", "not_found_def_any"),
    "require_flow": ("not_found_flow", "not_found_flow_any"),
    "require_spec": ("not_found_spec", "not_found_spec_any"),
}


def _target(plan: RouterPlan, requirement: str) -> str | None:
    symbols = question_symbols(plan)
    if requirement == "require_spec":
        refs = [a.value for a in plan.query_plan.anchors if a.type is AnchorType.DOC_REF]
        named = refs or symbols
        return named[0] if named else None
    return symbols[0] if symbols else None


def candidate_name(hit: Hit, target: str | None = None) -> str:
    """How a near miss is named: its symbol (as many dotted parts as the target has), else the
    section heading, else the path."""
    if hit.symbol:
        segments = target.count(".") + 1 if target else 1
        return short_name(hit.symbol, segments)
    if hit.heading_path:
        return hit.heading_path
    return hit.path


def rank_candidates(candidates: Sequence[Hit], target: str | None) -> list[Hit]:
    """Near misses most like ``target`` first (letters, then exact case); else as given."""
    if not target:
        return list(candidates)

    def key(hit: Hit) -> tuple[float, float]:
        name = candidate_name(hit, target)
        exact = difflib.SequenceMatcher(None, target, name).ratio()
        return (-fuzzy_score(target, name), -exact)

    return sorted(candidates, key=key)


def _not_found_sentence(msgs: Messages, plan: RouterPlan, evidence: Evidence, name: str) -> str:
    named, generic = _TEMPLATES.get(name, ("not_found_other", "not_found_other"))
    if named == "not_found_other":
        return msgs.t(named, name=name)
    target = _target(plan, name)
    if target is None and name == "require_flow":
        found = evidence.requirements.get("require_def")
        if found is not None and found.hits and found.hits[0].symbol:
            target = short_name(found.hits[0].symbol, 2)
    return msgs.t(named, target=target) if target else msgs.t(generic)


def not_found_answer(plan: RouterPlan, evidence: Evidence, graph_id: str) -> Answer:
    """The ungrounded answer for a plan whose required evidence is missing."""
    msgs = messages(answer_language(plan))
    sentences = [_not_found_sentence(msgs, plan, evidence, name) for name in evidence.missing]
    citations = CitationList()
    target = _target(plan, evidence.missing[0]) if evidence.missing else None
    seen: set[str] = set()
    named: list[str] = []
    for hit in rank_candidates(evidence.candidates, target):
        name = candidate_name(hit, target)
        if name in seen:
            continue
        seen.add(name)
        citations.add(hit.path, hit.start_line, hit.end_line)
        named.append(msgs.t("candidate", name=name, cite=cite(hit.path, hit.start_line)))
        if len(named) == MAX_CANDIDATES:
            break
    if named:
        sentences.append(msgs.t("did_you_mean", candidates=msgs.t("candidate_sep").join(named)))
    return Answer(
        text=" ".join(sentences),
        citations=citations.items(),
        graph_id=graph_id,
        grounded=False,
        status="not_found",
        lead=sentences[0] if sentences else "",
        meta={
            "mode": "not_found",
            "language": msgs.language,
            "missing": list(evidence.missing),
            "candidates": [h.citation for h in evidence.candidates[:MAX_CANDIDATES]],
        },
    )


_FOOTER_KEYS: dict[str, tuple[str, str]] = {
    "require_def": ("footer.def", "footer.def_any"),
    "require_flow": ("footer.flow", "footer.flow_any"),
    "require_spec": ("footer.spec", "footer.spec_any"),
}


def evidence_footer(plan: RouterPlan, evidence: Evidence, answer: Answer) -> str:
    """The status line under an answer, in the question's language: the evidence was found,
    or what is missing in plain words ("no definition named `X` in this repository"), never
    a requirement id."""
    msgs = messages(answer_language(plan))
    if not evidence.missing:
        return msgs.t("footer.uncited" if answer.uncited_llm_reply else "footer.satisfied")
    items: list[str] = []
    for name in evidence.missing:
        named, generic = _FOOTER_KEYS.get(name, ("footer.other", "footer.other"))
        target = _target(plan, name) if named != "footer.other" else None
        item = msgs.t(named, target=target) if target else msgs.t(generic)
        if item not in items:
            items.append(item)
    key = "footer.partial" if answer.status == "partial" else "footer.missing"
    return msgs.t(key, items=msgs.t("footer.sep").join(items))


def nothing_found_answer(plan: RouterPlan, graph_id: str) -> Answer:
    """The answer when retrieval returned nothing at all."""
    msgs = messages(answer_language(plan))
    return Answer(
        text=msgs.t("nothing_found"),
        citations=(),
        graph_id=graph_id,
        grounded=False,
        status="not_found",
        lead=msgs.t("nothing_found"),
        meta={"mode": "not_found", "language": msgs.language, "missing": []},
    )
