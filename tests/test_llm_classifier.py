"""The LLM intent classifier: decides only weak cases, degrades to the rules on any failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragstrata.app.facade import Ragstrata
from ragstrata.errors import ConfigError, ProviderError
from ragstrata.query.llm_classifier import LLMIntentClassifier, parse_reply
from ragstrata.query.models import Intent
from ragstrata.query.router import Router
from ragstrata.settings import load_settings
from ragstrata.testing import ScriptedRunner

WEAK = "Привет! Расскажи что-нибудь"  # no cue: the rules fall back with low confidence


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"intent": "DOCS_QA", "confidence": 0.8}', (Intent.DOCS_QA, 0.8)),
        ('Sure.\n```json\n{"intent": "code_qa", "confidence": 2}\n```', (Intent.CODE_QA, 1.0)),
        ('{"note": {"x": 1}} then {"intent": "PROJECT_MISC"}', None),  # first object decides
        ('{"intent": "WEATHER", "confidence": 0.9}', None),
        ("I think it is about docs", None),
        ("{broken", None),
    ],
)
def test_parse_reply(reply: str, expected: tuple[Intent, float] | None) -> None:
    assert parse_reply(reply) == expected


def test_weak_question_is_decided_by_the_model_and_says_so() -> None:
    runner = ScriptedRunner('{"intent": "DOCS_QA", "confidence": 0.7}')
    router = Router(classifier=LLMIntentClassifier(runner))
    plan = router.plan(WEAK)
    assert (plan.intent, plan.decided_by, plan.confidence) == (Intent.DOCS_QA, "classifier", 0.7)
    assert WEAK in runner.requests[0].user_prompt
    assert "<<<" in runner.requests[0].user_prompt  # the question is delimited as data


def test_confident_rules_never_call_the_model() -> None:
    runner = ScriptedRunner('{"intent": "DOCS_QA", "confidence": 0.9}')
    plan = Router(classifier=LLMIntentClassifier(runner)).plan("где определён класс UserService?")
    assert (plan.intent, plan.decided_by) == (Intent.CODE_QA, "rules")
    assert runner.requests == []


@pytest.mark.parametrize("reply", [ProviderError("openai: down"), "no json here"])
def test_failures_keep_the_rules_decision(reply: object) -> None:
    runner = ScriptedRunner(reply)  # type: ignore[arg-type]
    plan = Router(classifier=LLMIntentClassifier(runner)).plan(WEAK)
    assert plan.decided_by == "rules"
    assert len(runner.requests) == 1


def test_facade_builds_classifier_and_llm_decomposer_from_settings(tmp_path: Path) -> None:
    runner = ScriptedRunner(
        lambda req: (
            '{"intent": "PROJECT_MISC", "confidence": 0.9}'
            if "Rule scores" in req.user_prompt
            else '["where is Gateway defined", "who calls charge"]'
        )
    )
    settings = load_settings(
        tmp_path, overrides={"router": {"classifier": "llm", "decomposer": "composite"}}
    )
    rs = Ragstrata(tmp_path, settings, runner=runner)
    plan = rs.router.plan("where is Gateway defined and who calls charge")
    assert plan.query_plan.sub_queries == ["where is Gateway defined", "who calls charge"]
    weak = rs.router.plan(WEAK)
    assert weak.decided_by == "classifier"


def test_llm_classifier_without_a_model_is_a_config_error(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, overrides={"router": {"classifier": "llm"}})
    with pytest.raises(ConfigError, match="needs an LLM"):
        _ = Ragstrata(tmp_path, settings).router
