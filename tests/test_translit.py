"""Programming-aware transliteration of Russian loanwords and the loanword heuristic."""

from __future__ import annotations

import pytest

from ragstrata.text.translit import looks_like_loanword, transliterate, transliterate_candidates


@pytest.mark.parametrize(
    ("word", "english"),
    [
        ("редирект", "redirect"),
        ("аутентификация", "authentication"),
        ("конфигурация", "configuration"),
        ("сериализация", "serialization"),
        ("кэш", "cache"),
        ("сервер", "server"),
        ("клиент", "client"),
        ("парсер", "parser"),
        ("токен", "token"),
        ("роутер", "router"),
        ("хендлер", "handler"),
        ("интерфейс", "interface"),
        ("эндпоинт", "endpoint"),
        ("таймаут", "timeout"),
        ("апдейт", "update"),
        ("файл", "file"),
        ("индекс", "index"),
        ("сессия", "session"),
        ("категория", "category"),
        ("прокси", "proxy"),
        ("сервис", "service"),
        ("коммит", "commit"),
        ("тикет", "ticket"),
        ("логирование", "logging"),
        ("парсинг", "parsing"),
        ("валидировать", "validate"),
        ("сериализовать", "serialize"),
        ("нотификация", "notification"),
        ("кластер", "cluster"),
        ("функция", "function"),
        ("конференция", "conference"),
    ],
)
def test_candidates_contain_the_english_word(word: str, english: str) -> None:
    cands = transliterate_candidates(word)
    assert english in cands, cands
    assert 1 <= len(cands) <= 8
    assert len(set(cands)) == len(cands)
    assert all(c.isascii() and c == c.lower() for c in cands)


@pytest.mark.parametrize(
    ("word", "best"),
    [("редирект", "redirect"), ("сервер", "server"), ("конфигурация", "configuration"),
     ("токен", "token"), ("роутер", "router"), ("клиент", "client"), ("Парсер", "parser")],
)  # fmt: skip
def test_transliterate_gives_the_best_candidate_first(word: str, best: str) -> None:
    assert transliterate(word) == best


def test_latin_and_empty_input() -> None:
    assert transliterate_candidates("Redirect") == ("redirect",)
    assert transliterate_candidates("") == ()
    assert transliterate("") == ""


@pytest.mark.parametrize(
    "word",
    ["редирект", "аутентификация", "сериализация", "сервер", "роутер", "хендлер", "коннектор",
     "дашборд", "эндпоинт", "интерфейс", "парсинг", "логирование", "скрипт", "бэкенд"],
)  # fmt: skip
def test_loanwords_are_recognised(word: str) -> None:
    assert looks_like_loanword(word)


@pytest.mark.parametrize(
    "word",
    ["размер", "пример", "набор", "выбор", "ответ", "хранение", "говорить", "работа",
     "вопрос", "человек", "голова", "вечер", "учитель", "асинхронный", "где", "кот", "HTTP",
     "пройти", "договор"],
)  # fmt: skip
def test_native_and_short_words_are_not_loanwords(word: str) -> None:
    assert not looks_like_loanword(word)
