"""The question facets: what a question asks for besides its intent (``core.question``).

This module and the router are the only readers of a question's words. Cue words are data
(``data/router/questions.toml``), matched with the router's lexicon (Russian by lemma, English
as written or by ``word*`` prefix, phrase words in order with small gaps). The same table says
which section headings answer a documentation topic (:func:`heading_topic_score`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from ragstrata.core.question import QuestionFacets
from ragstrata.query.kinds import question_kinds
from ragstrata.query.lexicon import Lexicon, query_tokens
from ragstrata.query.models import RouterPlan, TestPolicy

__all__ = ["ASKS", "TOPICS", "facets_of", "heading_topic_score", "read_facets", "topic_commands"]

ASKS = ("callers", "callees", "tests", "how", "where")
TOPICS = ("install", "build", "usage", "overview")


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    ref = resources.files("ragstrata").joinpath("data", "router", "questions.toml")
    return tomllib.loads(ref.read_text(encoding="utf-8"))


def _lexicon(section: str, names: Sequence[str], key: str | None = None) -> Lexicon:
    table = _data()[section]
    entries = []
    for n, name in enumerate(names):
        block = table[name]
        words = [*block.get(key, [])] if key else [*block.get("ru", []), *block.get("en", [])]
        entries += [(w, n) for w in words]
    return Lexicon(entries, 3)


@lru_cache(maxsize=1)
def _asks() -> Lexicon:
    return _lexicon("ask", ASKS)


@lru_cache(maxsize=1)
def _topics() -> Lexicon:
    return _lexicon("topic", TOPICS)


@lru_cache(maxsize=1)
def _headings() -> Lexicon:
    return _lexicon("topic", TOPICS, "heading")


@lru_cache(maxsize=1)
def _minor_headings() -> Lexicon:
    return _lexicon("topic", TOPICS, "minor")


@lru_cache(maxsize=512)
def read_facets(question: str, tests_only: bool = False) -> QuestionFacets:
    """The facets of ``question`` (``tests_only``: the plan keeps only tests)."""
    toks = query_tokens(question)
    asks = {ASKS[p.label] for p, _, _ in _asks().find(toks)}
    if tests_only:
        asks.add("tests")
    counts: dict[str, int] = {}
    for phrase, _, _ in _topics().find(toks):
        counts[TOPICS[phrase.label]] = counts.get(TOPICS[phrase.label], 0) + 1
    topics = tuple(sorted(counts, key=lambda t: (-counts[t], TOPICS.index(t))))
    return QuestionFacets(frozenset(asks), topics, question_kinds(question))


def facets_of(plan: RouterPlan) -> QuestionFacets:
    """The facets of ``plan``'s question."""
    tests_only = plan.retrieval_spec.filters.test_policy is TestPolicy.ONLY
    return read_facets(plan.query_plan.raw, tests_only)


def topic_commands(topic: str) -> tuple[str, ...]:
    """Commands whose presence shows a section body answers ``topic`` (``pip install``)."""
    return tuple(str(c) for c in _data()["topic"].get(topic, {}).get("commands", []))


def _heading_topics(text: str, lexicon: Lexicon | None = None) -> set[str]:
    found = (lexicon or _headings()).find(query_tokens(text))
    return {TOPICS[p.label] for p, _, _ in found}


def heading_topic_score(heading: str, topics: Sequence[str], body: str = "") -> int:
    """How well a section answers ``topics``, from its heading path (``Getting Started >
    Installation``) and body: 4 when its own heading names the first topic, 3 when a parent
    heading does, 2 when its body holds the topic's command (``gem install``), 1 for a heading
    that borders on it (``Requirements``) or names another topic, 0 otherwise."""
    if not topics:
        return 0
    first = topics[0]
    own = _heading_topics(heading.rsplit(">", 1)[-1]) if heading else set()
    if first in own:
        return 4
    found = own | (_heading_topics(heading) if heading else set())
    if first in found:
        return 3
    low = body.lower()
    if body and any(c in low for c in topic_commands(first)):
        return 2
    minor = _heading_topics(heading.rsplit(">", 1)[-1], _minor_headings()) if heading else set()
    return 1 if found.intersection(topics) or first in minor else 0
