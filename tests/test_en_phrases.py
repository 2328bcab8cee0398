"""Plain English phrases reach the code's words: "tried again" searches for ``retry`` as a
Russian «повторить» does through the RU->EN glossary."""

from __future__ import annotations

import pytest

from ragstrata.errors import ConfigError
from ragstrata.query.en_phrases import paraphrase_hits, paraphrases, parse_paraphrases
from ragstrata.query.facets import concepts_of
from ragstrata.query.router import default_router
from ragstrata.text.tokens import tokenize


def _phrases(question: str) -> list[str]:
    return [p.phrase for p in paraphrases(tokenize(question))]


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("Should a failed request be tried again?", "try ... again"),
        ("when it tries it again", "try ... again"),
        ("drop entries whose time is up", "time be up"),
        ("what if all retries were used up?", "use up"),
        ("What happens when the key doesn't exist?", "doesn't exist"),
        ("a line the parser cannot understand", "cannot understand"),
        ("Which one wins when both are set?", "which one win"),
        ("what happens if I don't pass a value for id?", "don't pass"),
        ("How does it answer a request for only part of a file?", "part of ... file"),
        ("an item stored with the default lifetime", "lifetime"),
        ("How does it find the original error underneath?", "original error"),
    ],
)
def test_an_inflected_phrase_matches(question: str, phrase: str) -> None:
    assert _phrases(question) == [phrase]


def test_a_gap_skips_a_few_words_and_the_longest_phrase_wins() -> None:
    # a string turned into a thing is parsed; a thing turned into a string is written out
    assert _phrases('turn a string like "info" into a Level') == ["turn ... into"]
    assert _phrases("when a cookie is turned into a Set-Cookie string") == [
        "turn ... into ... string"
    ]
    assert _phrases("turn the whole long list of many values into a map") == []


def test_phrases_do_not_overlap_and_words_alone_do_not_match() -> None:
    assert _phrases("at the same time") == ["at the same time"]
    assert _phrases("How do I try the example?") == []  # "try" alone is code vocabulary


def test_a_russian_question_is_left_to_the_ru_en_glossary() -> None:
    assert paraphrase_hits("Как клиент решает, что пора try again?") == []
    hits = paraphrase_hits("Should it be tried again?")
    assert [(h.surface, h.source, h.key_term) for h in hits] == [
        ("tried again", "paraphrase", False)
    ]
    assert hits[0].expansions[0] == "retry"


def test_the_code_words_join_the_phrase_s_first_content_word() -> None:
    question = "How does the client decide whether a request should be tried again?"
    groups = concepts_of(question, ("retry", "attempt"))
    assert frozenset({"tried", "retry", "attempt"}) in groups
    # a phrase of stopwords only stands alone, not inside the next word's group
    groups = concepts_of("Are 1.0 and 1 the same version?", ("equal", "compare", "normalize"))
    assert frozenset({"equal", "compare", "normalize"}) in groups
    assert frozenset({"version"}) in groups


def test_the_router_adds_the_code_words_to_an_english_question() -> None:
    plan = default_router().plan("How does the client decide whether to try the request again?")
    assert "retry" in plan.query_plan.expansions
    plain = default_router().plan("How does the client decide whether to send the request?")
    assert "retry" not in plain.query_plan.expansions


def test_a_malformed_table_line_is_named() -> None:
    with pytest.raises(ConfigError, match=r"phrases\.tsv:2"):
        parse_paraphrases("try again\tretry\nno tab here\n", "phrases.tsv")
    with pytest.raises(ConfigError, match=r"phrases\.tsv:1"):
        parse_paraphrases("... again\tretry\n", "phrases.tsv")


def test_a_hyphenated_word_also_searches_for_its_parts_joined() -> None:
    plan = default_router().plan("Can I ask it to re-raise the original error?")
    assert "reraise" in plan.query_plan.expansions
    groups = concepts_of(plan.query_plan.raw, tuple(plan.query_plan.expansions))
    assert any({"re-raise", "reraise"} <= g for g in groups)


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("and what if the compression format is one it does not support?", "unsupported"),
        ("What if the variable isn't defined?", "undefined"),
        ("a header the parser doesn't recognise", "unrecognised"),
        ("when the mode is never used", "unused"),
        ("and what if the requested range cannot be satisfied?", "unsatisfied"),
    ],
)
def test_a_negated_word_also_searches_for_it_with_un(question: str, word: str) -> None:
    assert any(word in h.expansions for h in paraphrase_hits(question))


def test_a_negation_the_table_reads_is_not_read_twice() -> None:
    hits = [h for h in paraphrase_hits("what if the value is not set?") if h.surface == "not set"]
    assert len(hits) == 1 and "missing" in hits[0].expansions
