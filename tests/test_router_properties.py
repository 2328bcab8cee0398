"""Router invariants under arbitrary input (Hypothesis): never raises on non-empty text, every
required field present, raw kept byte for byte, normalized idempotent, spans valid, and no
expansion leaking into normalized."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragstrata.errors import ConfigError, InvalidQueryError, InvalidStateError
from ragstrata.query.models import Intent
from ragstrata.query.normalize import _apply_rules, normalize
from ragstrata.query.router import Router, route
from ragstrata.settings import RouterSettings
from ragstrata.text.tokens import word_tokens

ROUTER = Router()

# Text that looks like questions: words of both languages, identifiers, paths, punctuation,
# backticks, quotes, emoji, control characters and odd whitespace.
_PIECES = [
    "где",
    "определён",
    "класс",
    "классе",
    "методы",
    "функции",
    "модуля",
    "пакете",
    "файле",
    "тесты",
    "юнит-тестов",
    "документацию",
    "сгенерируй",
    "how",
    "does",
    "where",
    "is",
    "defined",
    "tests",
    "docs",
    "README.md",
    "src/app/main.py",
    "src/ingest",
    "a.b.c",
    "parse_query",
    "HttpClient",
    "UserService.get",
    "`x = 1`",
    "`",
    "``",
    "«",
    "»",
    "“",
    "”",
    "—",
    "…",
    "???",
    "!!!",
    "..",
    "../../etc/passwd",
    "path.py:12",
    "docs/guide.md#setup",
    "раздел «Configuration»",
    "на Go",
    "in the Python code",
    "👋",
    "\x00",
    "\t",
    "\n",
    "\u00a0",
    "\u200b",
    "e\u0301",
    "SELECT * FROM t;",
    "и",
    "или",
    ",",
    " ",
    "Ё",
    "ё",
    "https://x.io/a/b",
]
_texts = st.one_of(
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12).map(" ".join),
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12).map("".join),
    st.text(min_size=1, max_size=80),
).filter(lambda s: s.strip() != "")

_REQUIRED = [
    ("intent",),
    ("graph_id",),
    ("conversation_mode",),
    ("query_plan", "raw"),
    ("query_plan", "normalized"),
    ("query_plan", "expansions"),
    ("query_plan", "anchors"),
    ("retrieval_spec", "domains"),
    ("retrieval_spec", "layer_queries"),
    ("retrieval_spec", "filters", "test_policy"),
    ("retrieval_spec", "rerank_profile"),
    ("evidence_policy", "require_def"),
    ("evidence_policy", "require_flow"),
    ("evidence_policy", "require_spec"),
    ("evidence_policy", "allow_answer_without_evidence"),
]
_STATES = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {
            "active_intent": st.sampled_from(
                ["CODE_QA", "DOCS_QA", "GENERATE_DOCS_FROM_CODE", "PROJECT_MISC"]
            ),
            "active_anchors": st.lists(
                st.fixed_dictionaries(
                    {
                        "type": st.sampled_from(["FILE_PATH", "SYMBOL", "DOC_REF", "KEY_TERM"]),
                        "value": st.sampled_from(["src/a.py", "Foo", "README.md", "класс"]),
                    }
                ),
                max_size=3,
            ),
        }
    ),
)
_FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_FAST
@given(_texts, _STATES)
def test_plan_is_always_complete(text: str, state: dict | None) -> None:
    plan = ROUTER.route(text, state)
    for path in _REQUIRED:
        node = plan
        for key in path:
            assert key in node, path
            node = node[key]
    assert plan["schema_version"] == "1.1"
    assert plan["query_plan"]["raw"] == text  # byte for byte
    assert plan["query_plan"]["raw"].encode("utf-8", "surrogatepass") == text.encode(
        "utf-8", "surrogatepass"
    )


@_FAST
@given(_texts)
def test_normalized_is_idempotent_and_deterministic(text: str) -> None:
    once = normalize(text)
    assert normalize(once) == once
    assert normalize(text) == once
    assert ROUTER.route(text)["query_plan"]["normalized"] == once


@_FAST
@given(st.one_of(_texts, st.text(alphabet=st.characters(codec="utf-8"), max_size=40)))
def test_fast_path_agrees_with_the_rules(text: str) -> None:
    assert normalize(text) == _apply_rules(text)


@_FAST
@given(_texts)
def test_spans_point_at_the_value(text: str) -> None:
    for anchor in ROUTER.route(text)["query_plan"]["anchors"]:
        span = anchor["span"]
        assert span is not None  # no state: every anchor comes from the question
        assert 0 <= span["start"] < span["end"] <= len(text)
        if anchor["type"] in ("FILE_PATH", "SYMBOL", "DOC_REF", "KEY_TERM"):
            assert text[span["start"] : span["end"]] == anchor["value"]
        assert 0.0 <= anchor["confidence"] <= 1.0


@_FAST
@given(_texts)
def test_no_expansion_leaks_into_normalized(text: str) -> None:
    plan = ROUTER.route(text)["query_plan"]
    raw_words = {w.casefold() for w in word_tokens(text)}
    raw_lower = text.casefold()
    norm_words = {w.casefold() for w in word_tokens(plan["normalized"])}
    for expansion in plan["expansions"]:
        for word in word_tokens(expansion):
            w = word.casefold()
            if w in norm_words:
                assert w in raw_words or w in raw_lower, (expansion, plan["normalized"])


@pytest.mark.parametrize("text", ["", " ", "\t\n", "\u00a0\u2003", "\r\n  \x0b\x0c"])
def test_empty_or_whitespace_is_a_value_error(text: str) -> None:
    with pytest.raises(InvalidQueryError, match="empty or whitespace-only"):
        route(text)
    with pytest.raises(ValueError):
        ROUTER.plan(text)


@pytest.mark.parametrize(
    "text",
    [
        "где определён класс UserService? " * 600,  # ~20,000 characters
        "x" * 20_000,
        "`" * 5_001 + "a" + "`" * 4_000,
        "\x00\x01\x02 класс \x7f",
        "👋🏽 где класс 🙂 Foo?",
        "SELECT * FROM users WHERE name = 'x'; DROP TABLE users;--",
        "../../etc/passwd",
        "класс UserСервис и метод getДанные",
        "what does `parse_query( do",
        "\u200b",
        "/" * 3000,
        "a/" * 5000,
    ],
)
def test_hostile_input_gives_a_valid_plan(text: str) -> None:
    plan = ROUTER.plan(text)
    assert plan.query_plan.raw == text
    assert normalize(plan.query_plan.normalized) == plan.query_plan.normalized
    assert plan.retrieval_spec.rerank_profile


# ---------------------------------------------------------------- contracts around the rules


class _FixedClassifier:
    """A stand-in for an LLM/embedding classifier: always answers DOCS_QA."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def classify(self, query: str, scores: Mapping[Intent, float]) -> tuple[Intent, float] | None:
        self.calls.append(query)
        assert set(scores) == set(Intent)
        return Intent.DOCS_QA, 0.77


def test_classifier_decides_only_low_confidence_cases() -> None:
    fake = _FixedClassifier()
    router = Router(RouterSettings(classifier="llm"), classifier=fake)
    low = router.plan("Привет!")  # no cue at all: confidence 0.3
    assert (low.intent, low.decided_by, low.confidence) == (Intent.DOCS_QA, "classifier", 0.77)
    assert fake.calls == ["Привет!"]
    high = router.plan("где определён класс UserService?")
    assert (high.intent, high.decided_by) == (Intent.CODE_QA, "rules")
    assert fake.calls == ["Привет!"]


def test_configured_classifier_without_instance_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"router\.classifier 'llm'"):
        Router(RouterSettings(classifier="llm"))


def test_user_cue_file_extends_the_rules(tmp_path: Path) -> None:
    question = "что умеет шлюз оплаты?"
    assert ROUTER.plan(question).intent is Intent.PROJECT_MISC  # no signal: the fallback
    cues = tmp_path / "cues.toml"
    cues.write_text(
        '[[cue]]\nintent = "CODE_QA"\nweight = 3.0\nru = ["шлюз"]\n'
        '[tests]\ninclude_ru = ["оплата"]\n',
        encoding="utf-8",
    )
    plan = Router(RouterSettings(cue_files=(cues,))).plan(question)
    assert plan.intent is Intent.CODE_QA  # "шлюз" matched through its inflection
    assert plan.retrieval_spec.filters.test_policy.value == "INCLUDE"  # "оплаты" too


def test_bad_user_cue_file_names_file_and_value(tmp_path: Path) -> None:
    cues = tmp_path / "cues.toml"
    cues.write_text('[[cue]]\nintent = "CHAT"\nru = ["x"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"cues\.toml.*'CHAT'.*CODE_QA"):
        Router(RouterSettings(cue_files=(cues,)))


@pytest.mark.parametrize(
    ("state", "field"),
    [
        ({"active_intent": "CHAT"}, "conversation_state.active_intent"),
        ({"active_anchors": [{"type": "SYMBOL"}]}, "conversation_state.active_anchors.0.value"),
        ({"active_anchors": "Foo"}, "conversation_state.active_anchors"),
        ({"turn": -1}, "conversation_state.turn"),
        ("CODE_QA", "conversation_state"),
    ],
)
def test_malformed_state_is_a_one_line_error_naming_the_field(state: object, field: str) -> None:
    with pytest.raises(InvalidStateError) as info:
        ROUTER.plan("где класс Foo?", state)  # type: ignore[arg-type]
    message = str(info.value)
    assert field in message and "\n" not in message
    assert isinstance(info.value, ValueError)


def test_unknown_state_keys_are_ignored_and_router_is_reusable() -> None:
    state = {"active_intent": "CODE_QA", "whatever": {"nested": [1]}, "last_query": "x"}
    first = ROUTER.route("а где он вызывается?", state)
    second = ROUTER.route("а где он вызывается?", state)
    assert first == second and first["conversation_mode"] == "CONTINUE"


def test_decomposer_chain_fills_sub_queries_and_degrades() -> None:
    from ragstrata.errors import ProviderError
    from ragstrata.query.decompose import (
        CompositeDecomposer,
        LLMQueryDecomposer,
        RuleQueryDecomposer,
    )
    from ragstrata.testing import ScriptedRunner

    question = "где определён класс UserService и кто его вызывает"
    runner = ScriptedRunner(
        ['["где определён UserService", "кто вызывает UserService"]', ProviderError("down")]
    )
    chain = CompositeDecomposer(LLMQueryDecomposer(runner), RuleQueryDecomposer())
    router = Router(decomposer=chain)
    first = router.plan(question).query_plan.sub_queries
    assert first == ["где определён UserService", "кто вызывает UserService"]
    second = router.plan(question).query_plan.sub_queries  # the model fails: rule split
    assert second == ["где определён класс UserService", "кто его вызывает"]
    assert ROUTER.plan("где определён класс UserService?").query_plan.sub_queries == []
