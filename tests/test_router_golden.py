"""Golden Router plans, checked field by field (tests/golden/router/*.json).

Each case gives a question (and optionally conversation_state / repo_context) and what the
seed spec requires of its plan. Anchors other than KEY_TERM are compared exactly (type, value,
subtype, source, in order; spans must point at the first occurrence of the value); KEY_TERM
anchors and expansions come from the RU->EN glossary, which grows, so a case lists the ones
that must be present. Regenerate after a deliberate change with ``UPDATE_GOLDEN=1 pytest
tests/test_router_golden.py`` and review the diff: the *_include lists are kept as written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ragstrata.query.models import GRAPH_IDS, Intent
from ragstrata.query.router import Router

GOLDEN = Path(__file__).resolve().parent / "golden" / "router"
ROUTER = Router()
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def _cases() -> list[tuple[Path, dict[str, Any]]]:
    out = []
    for path in sorted(GOLDEN.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            out.append((path, case))
    return out


CASES = _cases()


def _summary(plan: dict[str, Any], expect: dict[str, Any]) -> dict[str, Any]:
    qp, spec = plan["query_plan"], plan["retrieval_spec"]
    return {
        "intent": plan["intent"],
        "conversation_mode": plan["conversation_mode"],
        "decided_by": plan["decided_by"],
        "language": plan["language"],
        "normalized": qp["normalized"],
        "anchors": [
            [a["type"], a["value"], a["subtype"], a["source"]]
            for a in qp["anchors"]
            if a["type"] != "KEY_TERM"
        ],
        "key_terms_include": expect.get("key_terms_include", []),
        "keyword_hints": qp["keyword_hints"],
        "expansions_include": expect.get("expansions_include", []),
        "domains": spec["domains"],
        "layer_queries": [f"{q['layer_id']}:{q['top_k']}" for q in spec["layer_queries"]],
        "rerank_profile": spec["rerank_profile"],
        "filters": spec["filters"],
        "evidence_policy": plan["evidence_policy"],
        "sub_queries": qp["sub_queries"],
    }


def test_enough_golden_cases() -> None:
    assert len(CASES) >= 60
    intents = {case["expect"]["intent"] for _, case in CASES}
    assert intents == {i.value for i in Intent}
    modes = {case["expect"]["conversation_mode"] for _, case in CASES}
    assert modes == {"NEW", "CONTINUE", "SWITCH"}
    types = {a[0] for _, case in CASES for a in case["expect"]["anchors"]}
    assert types == {"FILE_PATH", "SYMBOL", "DOC_REF"}
    assert any(case["expect"]["key_terms_include"] for _, case in CASES)
    assert {case["expect"]["filters"]["test_policy"] for _, case in CASES} == {
        "EXCLUDE",
        "INCLUDE",
        "ONLY",
    }
    ids = [case["id"] for _, case in CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(("path", "case"), CASES, ids=[c["id"] for _, c in CASES])
def test_golden_plan(path: Path, case: dict[str, Any]) -> None:
    plan = ROUTER.route(case["query"], case.get("state"), case.get("repo_context"))
    expect = case["expect"]
    actual = _summary(plan, expect)
    if UPDATE:
        _rewrite(path, case["id"], actual)
        return
    qp = plan["query_plan"]
    raw = case["query"]
    assert qp["raw"] == raw
    assert plan["schema_version"] == "1.1"
    assert plan["graph_id"] == GRAPH_IDS[Intent(plan["intent"])]
    # Field by field, so a failure names the field.
    for key in expect:
        if key in ("key_terms_include", "expansions_include"):
            continue
        assert actual[key] == expect[key], f"{case['id']}: field {key!r}"
    key_terms = [a for a in qp["anchors"] if a["type"] == "KEY_TERM"]
    surfaces = {a["value"] for a in key_terms}
    for term in expect["key_terms_include"]:
        assert term in surfaces, f"{case['id']}: KEY_TERM {term!r} missing from {surfaces}"
    lowered = {e.casefold() for e in qp["expansions"]}
    for term in expect["expansions_include"]:
        assert term.casefold() in lowered, f"{case['id']}: expansion {term!r} missing"
    for anchor in qp["anchors"]:
        if anchor["source"] == "conversation_state":
            assert anchor["span"] is None
            assert anchor["confidence"] <= 0.6
            continue
        s, e = anchor["span"]["start"], anchor["span"]["end"]
        assert raw[s:e] == anchor["value"]
        if anchor["type"] != "KEY_TERM":
            assert s == raw.find(anchor["value"]), f"{case['id']}: span of {anchor['value']!r}"
    for expansion in qp["expansions"]:  # expansions never leak into normalized
        if expansion.casefold() not in raw.casefold():
            assert expansion.casefold() not in qp["normalized"].casefold().split()


def _rewrite(path: Path, case_id: str, actual: dict[str, Any]) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    for case in doc["cases"]:
        if case["id"] == case_id:
            case["expect"] = actual
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
