"""Query paraphrasers (seed 004): the Query contract, RU/EN keywords, chains and the registry.

The Chinese expected keyword lists of shared/conformance/keyword_extractor.json are not
targets (see its README note): its cases check the CONTRACT here (set union, mutate-and-return,
other fields untouched, top_k); RU/EN keyword expectations are ragstrata's own.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from conftest import CONFORMANCE
from ragstrata.errors import ConfigError, ProviderError
from ragstrata.query.decompose import LLMQueryDecomposer
from ragstrata.query.paraphrase import (
    BUILTIN_PARAPHRASERS,
    DecomposerParaphraser,
    IdentifierSplitter,
    KeywordExtractor,
    ParaphraserChain,
    Query,
    QueryParaphraser,
    RuEnTermExpander,
    build_chain,
    keyword_candidates,
    load_paraphraser,
)
from ragstrata.query.terms import TermHit
from ragstrata.settings import RouterSettings
from ragstrata.testing import ScriptedRunner

KW = json.loads((CONFORMANCE / "keyword_extractor.json").read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------- components
# Tiny user components, loaded by "module:Class" in the registry tests.


class Marker:
    """Appends its name to ext_info["trace"]: shows the order a chain ran in."""

    tag = "marker"

    def paraphrase(self, query: Query) -> Query:
        query.ext_info.setdefault("trace", []).append(self.tag)
        return query


class SecondMarker(Marker):
    tag = "second"


class Rewriter:
    """Returns a NEW Query with a rewritten question (the next paraphraser must see it)."""

    def paraphrase(self, query: Query) -> Query:
        return Query(query_str="кэш и индекс", keywords=set(query.keywords))


class NotAParaphraser:
    def rewrite(self, query: Query) -> Query:
        return query


class NeedsArguments:
    def __init__(self, required: int) -> None:
        self.required = required

    def paraphrase(self, query: Query) -> Query:
        return query


class ReturnsNone:
    def paraphrase(self, query: Query) -> Query:
        return None  # type: ignore[return-value]


def _full_query(text: str | None) -> Query:
    return Query(
        query_str=text,
        query_text_bundles=["bundle"],
        keywords={"pre-existing"},
        embeddings=[[0.25, 0.5]],
        ext_info={"k": 1},
        similarity_top_k=5,
    )


# ----------------------------------------------------------------------------- contract


@pytest.mark.parametrize("case", KW["cases"], ids=[c["id"] for c in KW["cases"]])
def test_keyword_extractor_contract(case: dict[str, Any]) -> None:
    query = _full_query(case["query_str"])
    out = KeywordExtractor(top_k=case["top_k"]).paraphrase(query)
    assert out is query  # mutate and return
    assert "pre-existing" in out.keywords  # union: existing keywords kept
    added = out.keywords - {"pre-existing"}
    assert len(added) <= case["top_k"]
    assert bool(added) == bool(case["expected_keywords"])  # nothing only where upstream has nothing
    assert all(k in case["query_str"] for k in added)  # surface forms of the question
    assert out.query_str == case["query_str"]
    assert out.query_text_bundles == ["bundle"]
    assert out.embeddings == [[0.25, 0.5]]
    assert out.ext_info == {"k": 1}
    assert out.similarity_top_k == 5


def test_keyword_extractor_none_query_str_adds_nothing() -> None:
    query = _full_query(None)
    assert KeywordExtractor().paraphrase(query).keywords == {"pre-existing"}


def test_keywords_are_a_set_union() -> None:
    query = Query(query_str="parse_query parse_query", keywords={"parse_query", "x"})
    KeywordExtractor().paraphrase(query)
    assert query.keywords == {"parse_query", "x"}


def test_query_validation() -> None:
    with pytest.raises(ValidationError):
        Query(query_str="q", similarity_top_k=0)
    with pytest.raises(ValidationError):
        Query(query_str="q", unknown_field=1)  # type: ignore[call-arg]
    assert Query().keywords == set() and Query().query_text_bundles == []


# ----------------------------------------------------------------------------- keywords RU/EN

KEYWORD_CASES = [
    ("где определена функция parse_query", None, ["parse_query", "определена", "функция"]),
    (
        "как работает класс RecursiveSplitter в модуле splitter",
        3,
        ["RecursiveSplitter", "splitter", "работает"],
    ),
    ("What does HttpClient.send return for a 404?", None, ["HttpClient.send", "return", "404"]),
    ("Почему a.b.c ломается?", None, ["a.b.c", "ломается"]),
    (
        "user_id user-id UserID config.yaml src/app/main.py",
        None,
        ["user_id", "UserID", "config.yaml", "src/app/main.py", "user-id"],
    ),
    ("что читает ../../etc/passwd", None, ["../../etc/passwd", "читает"]),
    ("Где вызывается std::vector::push_back", None, ["std::vector::push_back", "вызывается"]),
    ("C++ или C# для HttpClient", None, ["C++", "C#", "HttpClient"]),
    (
        "see https://example.com/a/b, docs/ and ./run.sh",
        None,
        ["https://example.com/a/b", "docs/", "./run.sh", "see"],
    ),
    ("и/или 29/11/2026 read/write", None, ["read", "write", "29", "11", "2026"]),
    (
        "Where is the retry policy configured for uploads?",
        None,
        ["retry", "policy", "configured", "uploads"],
    ),
    ("Как HttpClient обрабатывает редиректы и retries", 2, ["HttpClient", "retries"]),
    ("RAG RAG RAG pipeline pipeline index", 3, ["RAG", "pipeline", "index"]),
    ("Index index INDEX search", None, ["Index", "search"]),
    ("the and of", None, []),
    ("и или но что где как", None, []),
    ("а б c d", None, []),
    ("", None, []),
]


@pytest.mark.parametrize(
    ("text", "top_k", "expected"),
    KEYWORD_CASES,
    ids=[f"kw-ru-en-{i + 1}" for i in range(len(KEYWORD_CASES))],
)
def test_keyword_extraction_ru_en(text: str, top_k: int | None, expected: list[str]) -> None:
    assert KeywordExtractor(top_k=top_k).extract(text) == expected


@pytest.mark.parametrize("bad", [0, -1, True])
def test_keyword_extractor_rejects_bad_top_k(bad: int) -> None:
    with pytest.raises(ConfigError, match="top_k"):
        KeywordExtractor(top_k=bad)


# ----------------------------------------------------------------------------- identifiers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("где parse_query", ["parse", "query"]),
        ("HTTPClientError и HttpClient", ["http", "client", "error"]),
        ("a.b.c и config.yaml", ["config", "yaml"]),  # one-character parts skipped
        ("../../etc/passwd", ["etc", "passwd"]),
        ("src/ragstrata/query/decompose.py", ["src", "ragstrata", "query", "decompose", "py"]),
        ("max-age и get_the_value", ["max", "age", "get", "value"]),  # stopword part skipped
        ("обычные слова only", []),
    ],
)
def test_identifier_splitter(text: str, expected: list[str]) -> None:
    assert IdentifierSplitter().split(text) == expected


def test_identifier_splitter_also_splits_existing_keywords() -> None:
    query = _full_query("plain words")
    query.keywords.add("HttpClient")
    out = IdentifierSplitter().paraphrase(query)
    assert out is query
    assert out.keywords == {"pre-existing", "HttpClient", "http", "client"}
    assert out.query_text_bundles == ["bundle"] and out.ext_info == {"k": 1}


# ----------------------------------------------------------------------------- RU->EN terms


class _Finder:
    """A term finder with fixed hits (the real glossary is covered by the router's tests)."""

    def __init__(self, hits: list[TermHit]) -> None:
        self.hits = hits
        self.texts: list[str] = []

    def find(self, text: str) -> list[TermHit]:
        self.texts.append(text)
        return self.hits


HITS = [
    TermHit(4, 13, "заголовок", "заголовок", ("header", "heading", "title", "caption"), False),
    TermHit(14, 21, "запроса", "запрос", ("request", "query"), True),
    TermHit(22, 31, "редиректа", "редирект", ("redirect",), False, source="translit"),
]


def test_ru_en_term_expander_adds_expansions() -> None:
    finder = _Finder(HITS)
    query = _full_query("где заголовок запроса редиректа")
    out = RuEnTermExpander(finder).paraphrase(query)
    assert out is query
    assert finder.texts == ["где заголовок запроса редиректа"]
    assert out.keywords == {
        "pre-existing",
        "header",
        "heading",
        "title",
        "request",
        "query",
        "redirect",
    }
    assert out.query_text_bundles == ["bundle"] and out.ext_info == {"k": 1}


def test_ru_en_term_expander_options() -> None:
    expander = RuEnTermExpander(_Finder(HITS), max_per_term=1, include_translit=False)
    assert expander.expansions("…") == ["header", "request"]
    with pytest.raises(ConfigError, match="max_per_term"):
        RuEnTermExpander(_Finder(HITS), max_per_term=0)


def test_ru_en_term_expander_with_packaged_glossary() -> None:
    query = RuEnTermExpander().paraphrase(Query(query_str="где обрабатывается заголовок запроса"))
    assert {"header", "request"} <= query.keywords


# ----------------------------------------------------------------------------- decompose


def test_decomposer_paraphraser_adds_sub_questions_as_bundles() -> None:
    query = _full_query("что такое RAG и как работает retrieval")
    out = DecomposerParaphraser().paraphrase(query)
    assert out is query
    assert out.query_text_bundles == ["bundle", "что такое RAG", "как работает retrieval"]
    assert out.keywords == {"pre-existing"}
    DecomposerParaphraser().paraphrase(out)  # idempotent: nothing added twice
    assert out.query_text_bundles == ["bundle", "что такое RAG", "как работает retrieval"]


def test_decomposer_paraphraser_single_query_and_failures() -> None:
    assert (
        DecomposerParaphraser().paraphrase(Query(query_str="простой запрос")).query_text_bundles
        == []
    )
    # One sub-query equal to the original adds nothing.
    same = DecomposerParaphraser(LLMQueryDecomposer(ScriptedRunner('["Q?"]')))
    assert same.paraphrase(Query(query_str="Q?")).query_text_bundles == []
    # A transport failure degrades to the single query.
    broken = DecomposerParaphraser(LLMQueryDecomposer(ScriptedRunner(ProviderError("down"))))
    assert broken.paraphrase(Query(query_str="X и Y")).query_text_bundles == []
    with pytest.raises(ConfigError, match="has no decompose"):
        DecomposerParaphraser(object())  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- chains


def test_chain_applies_in_order() -> None:
    chain = build_chain([f"{__name__}:Marker", f"{__name__}:SecondMarker", f"{__name__}:Marker"])
    assert chain.names == (f"{__name__}:Marker", f"{__name__}:SecondMarker", f"{__name__}:Marker")
    out = chain.paraphrase(Query(query_str="q"))
    assert out.ext_info["trace"] == ["marker", "second", "marker"]


def test_chain_passes_each_output_to_the_next() -> None:
    # The rewriter returns a new object; decompose must see the rewritten question.
    chain = ParaphraserChain([Rewriter(), DecomposerParaphraser(), KeywordExtractor()])
    original = Query(query_str="один вопрос", keywords={"a1"})
    out = chain.paraphrase(original)
    assert out is not original
    assert out.query_str == "кэш и индекс"
    assert out.query_text_bundles == ["кэш", "индекс"]
    assert out.keywords == {"a1", "кэш", "индекс"}
    reversed_chain = ParaphraserChain([DecomposerParaphraser(), Rewriter()])
    assert reversed_chain.paraphrase(Query(query_str="один вопрос")).query_text_bundles == []


def test_builtin_chain_end_to_end() -> None:
    chain = build_chain(["keywords", "identifiers", "decompose"])
    assert chain.names == ("keywords", "identifiers", "decompose")
    out = chain.paraphrase(
        Query(query_str="где вызывается parse_query и кто использует HttpClient")
    )
    assert {"parse_query", "HttpClient", "parse", "query", "http", "client"} <= out.keywords
    assert out.query_text_bundles == ["где вызывается parse_query", "кто использует HttpClient"]


def test_chain_rejects_a_paraphraser_returning_none() -> None:
    chain = build_chain(["keywords", f"{__name__}:ReturnsNone"])
    with pytest.raises(TypeError, match="ReturnsNone' returned NoneType"):
        chain.paraphrase(Query(query_str="q"))


# ----------------------------------------------------------------------------- registry


def test_default_settings_chain_is_valid() -> None:
    chain = build_chain(RouterSettings().paraphrasers)
    assert chain.names == RouterSettings().paraphrasers
    assert isinstance(chain, QueryParaphraser)


def test_every_builtin_loads_and_satisfies_the_protocol() -> None:
    assert sorted(BUILTIN_PARAPHRASERS) == ["decompose", "identifiers", "keywords", "ru_en_terms"]
    for name in BUILTIN_PARAPHRASERS:
        item = load_paraphraser(name)
        assert isinstance(item, QueryParaphraser)
        assert item.name == name  # type: ignore[attr-defined]


def test_decompose_uses_the_given_decomposer() -> None:
    runner = ScriptedRunner('["a?", "b?"]')
    chain = build_chain(["decompose"], decomposer=LLMQueryDecomposer(runner))
    assert chain.paraphrase(Query(query_str="q")).query_text_bundles == ["a?", "b?"]
    assert len(runner.requests) == 1


def test_unknown_name_is_named_with_the_valid_set() -> None:
    with pytest.raises(ConfigError) as info:
        build_chain(["keywords", "synonyms"])
    message = str(info.value)
    assert "'synonyms'" in message
    for name in ("decompose", "identifiers", "keywords", "ru_en_terms", "module:Class"):
        assert name in message


@pytest.mark.parametrize(
    ("spec", "pattern"),
    [
        ("no_such_module_xyz:Thing", r"cannot import 'no_such_module_xyz'.*ModuleNotFoundError"),
        (f"{__name__}:Missing", r"has no 'Missing'"),
        (f"{__name__}:NotAParaphraser", r"NotAParaphraser is not a QueryParaphraser"),
        (f"{__name__}:NeedsArguments", r"cannot construct NeedsArguments.*TypeError"),
        (f"{__name__}:KW", r"'KW' is not a class"),
        (f"{__name__}:", r"expected module:Class"),
        (":Marker", r"expected module:Class"),
        ("", r"empty"),
    ],
)
def test_bad_component_specs(spec: str, pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern) as info:
        build_chain([spec])
    if spec:
        assert repr(spec) in str(info.value)


def test_names_must_be_a_list() -> None:
    with pytest.raises(ConfigError, match="list of names"):
        build_chain("keywords")


def test_component_loading_by_dotted_attribute() -> None:
    item = load_paraphraser("ragstrata.query.paraphrase:KeywordExtractor")
    assert isinstance(item, KeywordExtractor)


# ----------------------------------------------------------------------------- properties

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("abcXYZ_.-/\\:~@+#`'\"[](){} ,?!0123456789\t\nабвгдИЛИё")),
        st.characters(),
    ),
    max_size=200,
)


@given(_TEXT)
@settings(max_examples=300, deadline=None)
def test_keywords_never_raise_and_are_substrings(text: str) -> None:
    keywords = KeywordExtractor(top_k=None).extract(text)
    assert len(set(k.casefold() for k in keywords)) == len(keywords)
    for k in keywords:
        assert k in text and len(k) >= 2
    for c in keyword_candidates(text):
        assert text[c.start : c.end] == c.text
    for part in IdentifierSplitter().split(text):
        assert part == part.lower() and len(part) >= 2
