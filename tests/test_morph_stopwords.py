"""Russian lemmatisation (pymorphy3) and the RU/EN stopword lists."""

from __future__ import annotations

import threading

import pytest

from ragstrata.text import morph
from ragstrata.text.morph import fold, index_forms, lemma_candidates, lemma_tokens, lemmatize
from ragstrata.text.stopwords import STOPWORDS_EN, STOPWORDS_RU, is_stopword, load_stopword_file


@pytest.mark.parametrize(
    ("word", "lemma"),
    [
        ("классе", "класс"),
        ("Классами", "класс"),
        ("модуля", "модуль"),
        ("пакете", "пакет"),
        ("файле", "файл"),
        ("тестов", "тест"),
        ("юнит-тестов", "юнит-тест"),
        ("возвращает", "возвращать"),
        ("заголовки", "заголовок"),
        ("ЁЖИКИ", "ежик"),
    ],
)
def test_lemmatize_cyrillic(word: str, lemma: str) -> None:
    assert lemmatize(word) == lemma


@pytest.mark.parametrize("word", ["HttpClient", "parse_query", "README", "a.b.c"])
def test_lemmatize_latin_is_lowercased_only(word: str) -> None:
    assert lemmatize(word) == word.lower()


def test_lemma_candidates_keep_every_reading() -> None:
    # "данных" is a form of the noun данные AND of the verb дать: both must be offered.
    cands = lemma_candidates("данных")
    assert "данные" in cands and "дать" in cands
    assert len(set(cands)) == len(cands)


def test_fold_writes_yo_as_ye() -> None:
    assert fold("Определён") == "определен"


def test_index_forms_of_known_and_guessed_words() -> None:
    assert "переменный" in index_forms("переменная")  # known word: its normal form
    assert "ретраев" in index_forms("ретрай")  # guessed slang: its whole lexeme
    assert index_forms("HTTP") == frozenset({"http"})


def test_lemma_tokens_spans_and_lemmas() -> None:
    text = "Где метод HttpClient.send в классах?"
    pairs = lemma_tokens(text)
    assert [lemma for _, lemma in pairs] == ["где", "метод", "httpclient.send", "в", "класс"]
    for tok, _ in pairs:
        assert text[tok.start : tok.end] == tok.text


def test_analyzer_is_built_once_across_threads() -> None:
    seen: list[object] = []
    threads = [threading.Thread(target=lambda: seen.append(morph.analyzer())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(a) for a in seen}) == 1


@pytest.mark.parametrize(
    "word",
    ["где", "Как", "что", "какой", "каких", "который", "которых", "в", "и", "для", "ещё", "еще"],
)
def test_russian_stopwords(word: str) -> None:
    assert is_stopword(word)


@pytest.mark.parametrize(
    "word", ["what", "How", "where", "the", "is", "does", "which", "of", "cannot", "doesn"]
)
def test_english_stopwords(word: str) -> None:
    assert is_stopword(word)


@pytest.mark.parametrize(
    "word",
    ["класс", "метод", "функция", "файл", "тест", "class", "function", "test", "return", "file"],
)
def test_programming_terms_are_not_stopwords(word: str) -> None:
    assert not is_stopword(word)


def test_stopword_sets_are_frozen_and_folded() -> None:
    assert isinstance(STOPWORDS_RU, frozenset) and isinstance(STOPWORDS_EN, frozenset)
    assert len(STOPWORDS_RU) > 200 and len(STOPWORDS_EN) > 100
    assert all(w == fold(w) for w in STOPWORDS_RU | STOPWORDS_EN)


def test_load_stopword_file_skips_comments_and_blanks() -> None:
    assert load_stopword_file("# c\n\nГде\nwhat # trailing\n") == frozenset({"где", "what"})
