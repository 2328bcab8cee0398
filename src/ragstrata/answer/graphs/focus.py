"""What a question asks for, read by the answer stage: the kind of question (callers, tests,
how it works, where defined), the documentation topic (install, build, usage, overview), and
which of the names it uses exist in the index at all.

Cue words are data (``data/answer/questions.toml``), matched with the router's lexicon (Russian
by lemma, English as written or by ``word*`` prefix, phrase words in order with small gaps).

A name the question uses is *absent* when nothing in the index carries it: no definition (the
one resolver), no relation names it, and no code or documentation text contains it as a word.
Only an absent name makes an answer "not found"; a word that names no definition but occurs in
the code ("default", ``GIN_MODE``, ``Content-Type``) is a key term, answered from the best
evidence (status ``partial``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from ragstrata.answer.graphs.base import question_symbols
from ragstrata.query.lexicon import Lexicon, query_tokens
from ragstrata.query.models import AnchorType, RouterPlan, TestPolicy
from ragstrata.retrieve.base import Hit
from ragstrata.retrieve.resolve import SymbolResolver, parse_name
from ragstrata.store.base import Direction, SearchFilters, Store, last_segment

__all__ = [
    "ASKS",
    "TOPICS",
    "Focus",
    "absent_names",
    "focus_of",
    "heading_topic_score",
    "literal_hits",
    "mentions",
    "not_overview_path",
    "peripheral_path",
    "term_hits",
    "topic_commands",
]

ASKS = ("callers", "callees", "tests", "how", "where")
TOPICS = ("install", "build", "usage", "overview")
_TEXT_LAYERS = ("C1", "C3", "D1", "D2")
_TEXT_POOL = 20
_PERIPHERAL = frozenset(
    {"bench", "benchmarks", "benchmark", "examples", "example", "scripts", "docs", "doc", "site"}
)


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    ref = resources.files("ragstrata").joinpath("data", "answer", "questions.toml")
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


def topic_commands(topic: str) -> tuple[str, ...]:
    """Commands whose presence shows a section body answers ``topic`` (``pip install``)."""
    return tuple(str(c) for c in _data()["topic"].get(topic, {}).get("commands", []))


@dataclass(frozen=True, slots=True)
class Focus:
    """What one question asks for (see the module docstring)."""

    asks: frozenset[str]
    topics: tuple[str, ...]  # documentation topics, strongest first
    kinds: tuple[str, ...] = ()  # definition kinds the question names ("the Engine struct")

    @property
    def callers(self) -> bool:
        return "callers" in self.asks and "callees" not in self.asks

    @property
    def tests(self) -> bool:
        return "tests" in self.asks

    @property
    def how(self) -> bool:
        return "how" in self.asks


def focus_of(plan: RouterPlan) -> Focus:
    """The question kinds and documentation topics of ``plan``'s question."""
    toks = query_tokens(plan.query_plan.raw)
    asks = {ASKS[p.label] for p, _, _ in _asks().find(toks)}
    if plan.retrieval_spec.filters.test_policy is TestPolicy.ONLY:
        asks.add("tests")
    counts: dict[str, int] = {}
    for phrase, _, _ in _topics().find(toks):
        counts[TOPICS[phrase.label]] = counts.get(TOPICS[phrase.label], 0) + 1
    topics = tuple(sorted(counts, key=lambda t: (-counts[t], TOPICS.index(t))))
    kinds: list[str] = []
    for phrase, _, _ in _kind_words().find(toks):
        kinds += [k for k in _kind_table()[phrase.label][1] if k not in kinds]
    return Focus(frozenset(asks), topics, tuple(kinds))


@lru_cache(maxsize=1)
def _kind_table() -> list[tuple[str, list[str]]]:
    table = _data()["kinds"]
    return [(name, list(spec["kinds"])) for name, spec in table.items()]


@lru_cache(maxsize=1)
def _kind_words() -> Lexicon:
    table = _data()["kinds"]
    entries = [(w, n) for n, spec in enumerate(table.values()) for w in spec["words"]]
    return Lexicon(entries, 0)


LEXICONS = (_asks, _topics, _headings, _minor_headings, _kind_words)
"""Every lexicon this module builds (their words are in the precomputed morphology seed)."""


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


def peripheral_path(path: str) -> bool:
    """True for benchmarks, examples, scripts and docs sites: code beside the project's own."""
    parts = path.lower().split("/")[:-1]
    return any(p in _PERIPHERAL for p in parts)


def not_overview_path(path: str) -> bool:
    """True for repository templates, licences, funding and similar pages."""
    low = path.lower()
    table = _data()["not_overview"]
    if low.startswith(tuple(table["prefixes"])) or "/.github/" in low:
        return True
    name = low.rsplit("/", 1)[-1]
    return name.startswith(".") or name in set(table["names"])


# ---------------------------------------------------------------------- names in the index
def _word_re(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])", re.IGNORECASE)


def mentions(text: str, name: str) -> bool:
    """True when ``text`` contains ``name`` as a whole word (case-insensitive)."""
    return bool(name) and _word_re(name).search(text) is not None


def _in_index(store: Store, resolver: SymbolResolver, name: str) -> bool:
    query = parse_name(name)
    if resolver.resolve(query.name, limit=1, widen=True).found:
        return True
    tail = last_segment(query.name)
    for direction in (Direction.CALLERS, Direction.CALLEES):
        if store.relations(query.name, direction, None, None, 1):
            return True
    words = [w for w in {query.name, tail} if w]
    for scored in store.search_lexical(words, SearchFilters(layers=_TEXT_LAYERS), _TEXT_POOL):
        if mentions(scored.text, tail) or mentions(scored.text, query.name):
            return True
    return False


def question_names(plan: RouterPlan) -> list[str]:
    """The SYMBOL anchors the question itself names (those carried from a session when it
    names none)."""
    raw = plan.query_plan.raw
    own = []
    for a in plan.query_plan.anchors:
        if a.type is not AnchorType.SYMBOL or a.source != "query":
            continue
        # the name as written: `$constructor`, `$ref` keep the sigil the anchor dropped
        start = a.span.start if a.span is not None else 0
        sigil = raw[start - 1] if 0 < start <= len(raw) and raw[start - 1] == "$" else ""
        own.append(sigil + a.value)
    return list(dict.fromkeys(own)) or question_symbols(plan)


def absent_names(store: Store, resolver: SymbolResolver, plan: RouterPlan) -> list[str]:
    """The names the question uses that nothing in the index carries."""
    return [n for n in question_names(plan) if not _in_index(store, resolver, n)]


def literal_hits(hits: Sequence[Hit], names: Sequence[str]) -> list[Hit]:
    """``hits`` that contain one of ``names`` as a word, in their order: those that write it
    with the same case first (``SECRET_KEY`` before ``secret_key``)."""
    found = [h for h in hits if any(mentions(h.text, n) for n in names)]
    same = [h for h in found if any(_exact(h.text, n) for n in names)]
    return same + [h for h in found if h not in same]


def _exact(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text) is not None


def term_hits(store: Store, term: str, limit: int = 8) -> list[Hit]:
    """Code and documentation that write ``term`` as given (an option, a variable, a header),
    definitions and code before prose, tests and repository pages left out."""
    from ragstrata.answer.graphs.base import hit_from_scored

    found = store.search_lexical([term], SearchFilters(layers=("C1", "C3", "D2")), 40)
    rows = [
        s
        for s in found
        if _exact(s.text, term)
        and not getattr(s.row, "is_test", False)
        and not not_overview_path(s.path)
        and s.end_line - s.start_line < 80
    ]
    order = {"C1": 0, "C3": 1, "D2": 2}
    rows.sort(
        key=lambda s: (
            getattr(s.row, "name", None) != term,  # the definition named so, first
            peripheral_path(s.path),
            order.get(str(s.layer), 3),
        )
    )
    return [hit_from_scored(s, f"term:{term}") for s in rows[:limit]]
