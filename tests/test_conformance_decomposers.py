"""Conformance: rule / LLM / composite decomposers (seed 000, shared/conformance/*_decomposer.json).

Expected values are the files' ``expected`` fields, which already include ragstrata's
deviations R1 (case-insensitive split) and L1-L3 (unusable reply -> None, robust list
extraction, ``{query}`` placeholder).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import CONFORMANCE
from ragstrata.errors import ConfigError, DecomposerError, ProviderError
from ragstrata.llm.base import Request
from ragstrata.query.decompose import (
    DEFAULT_LLM_PROMPT,
    CompositeDecomposer,
    LLMQueryDecomposer,
    RuleQueryDecomposer,
    extract_string_list,
    merge_sub_query_hits,
    plan_sub_queries,
)
from ragstrata.testing import ScriptedRunner


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CONFORMANCE / name).read_text(encoding="utf-8"))
    return data


RULE = _load("rule_decomposer.json")
LLM = _load("llm_decomposer.json")
COMPOSITE = _load("composite_decomposer.json")
LLM_OTHER = {c["id"]: c for c in LLM["other_cases"]}


# ----------------------------------------------------------------------------- rule


@pytest.mark.parametrize("case", RULE["cases"], ids=[c["id"] for c in RULE["cases"]])
def test_rule_decomposer(case: dict[str, Any]) -> None:
    assert RuleQueryDecomposer().decompose(case["query"]) == case["expected"]


def test_rule_decomposer_separators_match_contract() -> None:
    from ragstrata.query.decompose import RULE_SEPARATORS

    assert list(RULE_SEPARATORS) == RULE["contract"]["separators_in_priority_order"]


# ----------------------------------------------------------------------------- LLM


@pytest.mark.parametrize("case", LLM["cases"], ids=[c["id"] for c in LLM["cases"]])
def test_llm_decomposer_reply_parsing(case: dict[str, Any]) -> None:
    runner = ScriptedRunner(case["llm_reply"])
    result = LLMQueryDecomposer(runner).decompose(case["query"])
    assert result == case["expected"]
    assert len(runner.requests) == 1
    # The pure extractor gives the same answer as the decomposer.
    assert extract_string_list(case["llm_reply"]) == case["expected"]


def test_llm_decomposer_transport_error_raises_decomposer_error() -> None:
    case = LLM_OTHER["ld-e1"]
    runner = ScriptedRunner(ProviderError(case["llm_error"]))
    with pytest.raises(DecomposerError, match=case["llm_error"]) as info:
        LLMQueryDecomposer(runner).decompose("X и Y")
    assert isinstance(info.value.__cause__, ProviderError)


def test_llm_decomposer_any_runner_exception_is_a_decomposer_error() -> None:
    runner = ScriptedRunner(ConnectionResetError("peer reset"))
    with pytest.raises(DecomposerError, match="ConnectionResetError: peer reset"):
        LLMQueryDecomposer(runner).decompose("q")


def test_llm_decomposer_requires_runner() -> None:
    assert LLM_OTHER["ld-e2"]["expected_error"] is True
    with pytest.raises(ConfigError, match="runner must not be None"):
        LLMQueryDecomposer(None)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="'str' has no run"):
        LLMQueryDecomposer("gpt")  # type: ignore[arg-type]


def test_llm_decomposer_custom_template() -> None:
    case = LLM_OTHER["ld-p1"]
    runner = ScriptedRunner(case["llm_reply"])
    dec = LLMQueryDecomposer(runner, prompt_template=case["prompt_template"])
    assert dec.decompose(case["query"]) == case["expected"]
    assert runner.requests == [
        Request(
            system_prompt=case["expected_system_prompt"], user_prompt=case["expected_user_message"]
        )
    ]


@pytest.mark.parametrize("template", ["", None], ids=["empty", "none"])
def test_llm_decomposer_default_prompt(template: str | None) -> None:
    case = LLM_OTHER["ld-p2"]
    runner = ScriptedRunner('["X", "Y"]')
    assert LLMQueryDecomposer(runner, prompt_template=template).decompose(case["query"]) == [
        "X",
        "Y",
    ]
    (request,) = runner.requests
    assert request.system_prompt == case["expected_system_prompt"]
    for fragment in case["expected_user_message_contains"]:
        assert fragment in request.user_prompt
    assert request.user_prompt == DEFAULT_LLM_PROMPT.replace("{query}", case["query"])


def test_llm_template_without_placeholder_is_the_system_prompt() -> None:
    runner = ScriptedRunner('["a"]')
    LLMQueryDecomposer(runner, prompt_template="Split it. Reply with a JSON list.").decompose("q?")
    assert runner.requests == [Request("Split it. Reply with a JSON list.", "q?")]


def test_llm_template_braces_are_not_format_fields() -> None:
    runner = ScriptedRunner('["a"]')
    LLMQueryDecomposer(runner, prompt_template='Reply like {"x": [..]}: {query}').decompose("q")
    assert runner.requests[0].user_prompt == 'Reply like {"x": [..]}: q'


def test_llm_decomposer_empty_query_does_not_call_the_model() -> None:
    runner = ScriptedRunner('["a"]')
    assert LLMQueryDecomposer(runner).decompose("   ") is None
    assert runner.requests == []


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"subqueries": ["a", "b"], "reasoning": "two parts"}', ["a", "b"]),
        ('{"a": ["x"], "b": ["y"]}', None),  # two lists: ambiguous
        ('Bad: [1] good: ["z"]', ["z"]),  # a non-string candidate is skipped
        ('```\n{"subqueries": [\n "a"\n]}\n```', ["a"]),
        ("[" * 5000, None),  # unbalanced garbage stays cheap and unusable
        ('prose ["unterminated', None),
    ],
    ids=[
        "object-with-extra-key",
        "two-lists",
        "skip-bad-candidate",
        "fenced-object",
        "brackets",
        "open",
    ],
)
def test_extract_string_list_extra(reply: str, expected: list[str] | None) -> None:
    assert extract_string_list(reply) == expected


# ----------------------------------------------------------------------------- composite


class _Scripted:
    """A decomposer fake returning/raising what a truth-table row scripts; counts calls."""

    def __init__(self, returns: dict[str, Any]) -> None:
        self.returns = returns
        self.calls = 0

    def decompose(self, query: str) -> list[str] | None:
        self.calls += 1
        if self.returns["error"] is not None:
            # Python cannot return a value and raise: "subs_and_error" raises an error that
            # carries the partial subs, which the composite must ignore.
            exc = DecomposerError(self.returns["error"])
            exc.partial = self.returns["subs"]  # type: ignore[attr-defined]
            raise exc
        subs = self.returns["subs"]
        return None if subs is None else list(subs)


def _row_id(row: dict[str, Any]) -> str:
    return f"{row['primary']}-{row['secondary']}"


@pytest.mark.parametrize(
    "row", COMPOSITE["truth_table"], ids=[_row_id(r) for r in COMPOSITE["truth_table"]]
)
def test_composite_truth_table(row: dict[str, Any]) -> None:
    primary, secondary = _Scripted(row["primary_returns"]), _Scripted(row["secondary_returns"])
    composite = CompositeDecomposer(primary, secondary)
    assert row["expected_error"] is None  # the composite never raises
    assert composite.decompose("query") == row["expected"]
    assert primary.calls == 1
    assert secondary.calls == (1 if row["secondary_called"] else 0)


def test_composite_explain_says_who_decided() -> None:
    fail = _Scripted({"subs": None, "error": "boom"})
    ok = _Scripted({"subs": ["s1", "s2"], "error": None})
    result = CompositeDecomposer(fail, ok).explain("q")
    assert result.sub_queries == ("s1", "s2")
    assert result.decided_by == "secondary"
    assert len(result.failures) == 1 and "boom" in result.failures[0]
    none = CompositeDecomposer(fail, _Scripted({"subs": [], "error": None})).explain("q")
    assert none.decided_by == "none" and none.sub_queries == ()


def test_composite_swallows_unexpected_exceptions() -> None:
    class Broken:
        def decompose(self, query: str) -> list[str] | None:
            raise KeyError("bug")

    assert CompositeDecomposer(Broken(), Broken()).decompose("X и Y") is None


INTEGRATION = COMPOSITE["integration_cases"]


@pytest.mark.parametrize("case", INTEGRATION, ids=[c["id"] for c in INTEGRATION])
def test_composite_integration(case: dict[str, Any]) -> None:
    if case.get("llm") == "error":
        runner = ScriptedRunner(ProviderError("llm unavailable"))
    else:
        runner = ScriptedRunner(case["llm_reply"])
    composite = CompositeDecomposer(LLMQueryDecomposer(runner), RuleQueryDecomposer())
    assert composite.decompose(case["query"]) == case["expected"]
    assert len(runner.requests) == 1


CONSTRUCTOR = COMPOSITE["constructor_cases"]


@pytest.mark.parametrize("case", CONSTRUCTOR, ids=[c["id"] for c in CONSTRUCTOR])
def test_composite_constructor(case: dict[str, Any]) -> None:
    def pick(value: Any) -> Any:
        return None if value is None else RuleQueryDecomposer()

    with pytest.raises(ConfigError) as info:
        CompositeDecomposer(pick(case["primary"]), pick(case["secondary"]))
    assert str(info.value) == case["expected_error"]


def test_composite_rejects_non_decomposers() -> None:
    with pytest.raises(ConfigError, match="secondary 'int' has no decompose"):
        CompositeDecomposer(RuleQueryDecomposer(), 3)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- pipeline use


def test_plan_sub_queries_follows_pipeline_rules() -> None:
    rules = COMPOSITE["pipeline_use_of_result (internal/application/subdecompose.go)"]
    assert len(rules) == 3
    empty: tuple[list[str] | None, ...] = (None, [])
    for subs in empty:
        plan = plan_sub_queries("orig", subs)
        assert (plan.queries, plan.query_text, plan.mode) == (("orig",), "orig", "single")
    one = plan_sub_queries("orig", ["only"])
    assert (one.queries, one.query_text, one.mode) == (("only",), "orig", "single")
    many = plan_sub_queries("orig", ["a", "b"])
    assert (many.queries, many.query_text, many.mode) == (("a", "b"), "orig", "multi")


def test_merge_sub_query_hits_dedupes_keeps_max_sorts_and_cuts() -> None:
    lists = [
        [("c1", 0.5), ("c2", 0.9), ("c3", 0.4)],
        [("c1", 0.7), ("c4", 0.9), ("c3", 0.1)],
    ]
    merged = merge_sub_query_hits(lists, key=lambda h: h[0], score=lambda h: h[1], top_k=3)
    # c2 and c4 tie at 0.9: the stable sort keeps first-seen order.
    assert merged == [("c2", 0.9), ("c4", 0.9), ("c1", 0.7)]
    assert merge_sub_query_hits(lists, key=lambda h: h[0], score=lambda h: h[1], top_k=0) == []
    with pytest.raises(ValueError, match="top_k"):
        merge_sub_query_hits(lists, key=lambda h: h[0], score=lambda h: h[1], top_k=-1)


# ----------------------------------------------------------------------------- properties

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_REPLY = st.one_of(
    st.text(max_size=120),
    st.lists(st.text(max_size=12), max_size=4).map(json.dumps),
    st.tuples(st.text(max_size=20), st.lists(st.text(max_size=8), max_size=3)).map(
        lambda t: f"{t[0]} {json.dumps(t[1])} {t[0]}"
    ),
)


@given(_REPLY)
@settings(max_examples=300, deadline=None)
def test_extract_string_list_never_raises(reply: str) -> None:
    result = extract_string_list(reply)
    assert result is None or (
        result and all(isinstance(s, str) and s == s.strip() and s for s in result)
    )


@given(st.text(alphabet=st.sampled_from(list("ab ИиЛл,")), max_size=60))
@settings(max_examples=300, deadline=None)
def test_rule_parts_are_trimmed_pieces_of_the_query(query: str) -> None:
    parts = RuleQueryDecomposer().decompose(query)
    if parts is not None:
        assert len(parts) >= 2
        for p in parts:
            assert p and p == p.strip() and p in query


def test_build_decomposer_by_settings_name() -> None:
    from ragstrata.query.decompose import build_decomposer
    from ragstrata.settings import RouterSettings

    default = build_decomposer(RouterSettings().decomposer)
    assert isinstance(default, RuleQueryDecomposer)
    runner = ScriptedRunner(ProviderError("down"))
    composite = build_decomposer("composite", runner)
    assert isinstance(composite, CompositeDecomposer)
    assert composite.decompose("X и Y") == ["X", "Y"]  # LLM failed, rule decided
    assert isinstance(build_decomposer("llm", runner), LLMQueryDecomposer)
    with pytest.raises(ConfigError, match="'llm' needs an LLM runner"):
        build_decomposer("llm")
    with pytest.raises(
        ConfigError, match="unknown decomposer 'magic'; valid: rule, llm, composite"
    ):
        build_decomposer("magic")
