"""Conformance: seed 003 request/hash/fingerprint/template/preflight
(shared/conformance/llm_summary_preflight_embedder.json).

``preflight_check_selection`` and ``summarize_skip_logic`` belong to a later issue (entry
summaries) and are not covered here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import CONFORMANCE
from ragstrata.embed.base import apply_template, fingerprint
from ragstrata.errors import ProviderError
from ragstrata.llm.base import Request, summary_hash
from ragstrata.llm.preflight import Finding, PreflightResult, Severity, parse_preflight

DATA: dict[str, Any] = json.loads(
    (CONFORMANCE / "llm_summary_preflight_embedder.json").read_text(encoding="utf-8")
)


def _section(prefix: str) -> list[dict[str, Any]]:
    (key,) = [k for k in DATA if k.startswith(prefix)]
    cases: list[dict[str, Any]] = DATA[key]
    return cases


COMBINED = _section("request_combined")
HASHES = _section("summary_hash")
FINGERPRINTS = _section("embedder_fingerprint")
TEMPLATES = _section("embed_template_apply")
PREFLIGHT = _section("preflight_parse")
BLOCKING = _section("preflight_has_blocking")


@pytest.mark.parametrize("case", COMBINED, ids=[f"rc-{i + 1}" for i in range(len(COMBINED))])
def test_request_combined(case: dict[str, Any]) -> None:
    assert Request(case["system"], case["user"]).combined() == case["expected"]


@pytest.mark.parametrize("case", HASHES, ids=[f"sh-{i + 1}" for i in range(len(HASHES))])
def test_summary_hash(case: dict[str, Any]) -> None:
    # Build a request whose combined() equals the case's text (system part only works for all).
    request = Request(system_prompt=case["combined"])
    assert request.combined() == case["combined"]
    assert summary_hash(request) == case["expected_summary_hash"]


def test_summary_hash_over_split_request_matches_combined_text() -> None:
    assert summary_hash(Request("sys", "user")) == HASHES[0]["expected_summary_hash"]


STATIC_FP = [c for c in FINGERPRINTS if "expected" in c]


@pytest.mark.parametrize("case", STATIC_FP, ids=[c["id"] for c in STATIC_FP])
def test_embedder_fingerprint(case: dict[str, Any]) -> None:
    # query_template (fp-04/fp-05) is deliberately not an argument: it never enters the fingerprint.
    got = fingerprint(
        case["provider"], case["model"], case["dimensions"], case["document_template"]
    )
    assert got == case["expected"]


def test_fingerprint_ignores_lazily_discovered_dimensions() -> None:
    """fp-07: upstream v0.4.0 appended dims learnt from the first Ollama reply, so the value
    drifted ("ollama/nomic-embed-text" before, ".../2" after) and stored rows looked stale.
    ragstrata's rule: never put a lazily discovered value into the fingerprint. An embedder
    configured with dimensions=0 passes 0 both before and after discovering the vector length,
    so the fingerprint is the model-only form throughout (what upstream later switched to)."""
    (case,) = [c for c in FINGERPRINTS if c["id"] == "fp-07"]
    before = fingerprint(case["provider"], case["model"], case["dimensions_config"])
    assert before == case["before_first_call"]
    after = fingerprint(case["provider"], case["model"], case["dimensions_config"])
    assert after == case["before_first_call"]
    assert after != case["after_first_call_returning_2_dims"]


@pytest.mark.parametrize("case", TEMPLATES, ids=[f"tpl-{i + 1}" for i in range(len(TEMPLATES))])
def test_embed_template_apply(case: dict[str, Any]) -> None:
    assert apply_template(case["template"], case["texts"]) == case["expected"]


@pytest.mark.parametrize("case", PREFLIGHT, ids=[c["id"] for c in PREFLIGHT])
def test_preflight_parse(case: dict[str, Any]) -> None:
    if case.get("expected_error"):
        with pytest.raises(ProviderError, match="preflight"):
            parse_preflight(case["llm_text"])
        return
    result = parse_preflight(case["llm_text"])
    expected = tuple(
        Finding(Severity(f["severity"]), f["category"], f["observation"])
        for f in case["expected_findings"]
    )
    assert result.findings == expected


@pytest.mark.parametrize("case", BLOCKING, ids=[f"hb-{i + 1}" for i in range(len(BLOCKING))])
def test_preflight_has_blocking(case: dict[str, Any]) -> None:
    result = PreflightResult.of(Finding(Severity(s), "c", "o") for s in case["severities"])
    assert result.has_blocking() is case["expected"]


def test_preflight_error_names_bad_severity_and_valid_set() -> None:
    with pytest.raises(ProviderError, match=r"'critical'; valid: high, medium, low"):
        parse_preflight(
            '{"findings": [{"severity": "critical", "category": "t", "observation": "x"}]}'
        )


def test_preflight_findings_must_be_a_list() -> None:
    with pytest.raises(ProviderError, match="not a list"):
        parse_preflight('{"findings": "none"}')
