"""RU->EN term expansion: glossary file, inflections, phrases, spans, user files, speed."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from ragstrata.errors import ConfigError
from ragstrata.query.terms import (
    TermExpander,
    TermHit,
    default_expander,
    default_glossary_text,
    expander_for,
    parse_glossary,
)
from ragstrata.text.morph import fold
from ragstrata.text.stopwords import is_stopword
from ragstrata.text.tokens import tokenize

MANDATORY = {
    "класс": ("class", ["класс", "классе", "классы", "классов", "классами", "Класса"]),
    "метод": ("method", ["метод", "методы", "методе", "методов", "методами"]),
    "функция": ("function", ["функция", "функции", "функций", "функцию", "функциями"]),
    "модуль": ("module", ["модуль", "модуля", "модуле", "модулей", "модулях"]),
    "пакет": ("package", ["пакет", "пакете", "пакеты", "пакетов", "пакетом"]),
    "файл": ("file", ["файл", "файле", "файлы", "файлов", "файлах"]),
    "тест": ("test", ["тест", "тесты", "тестов", "тестах", "тестами"]),
    "юнит-тест": ("unit test", ["юнит-тест", "юнит-тесты", "юнит-тестов", "юнит-тестах"]),
}
CASES = [(lemma, exp, form) for lemma, (exp, forms) in MANDATORY.items() for form in forms]


def _one(text: str) -> TermHit:
    hits = default_expander().find(text)
    assert len(hits) == 1, hits
    return hits[0]


@pytest.mark.parametrize(("lemma", "expansion", "form"), CASES)
def test_mandatory_keys_in_every_inflection(lemma: str, expansion: str, form: str) -> None:
    text = f"Где {form} для парсинга?"
    hit = next(h for h in default_expander().find(text) if h.surface == form)
    assert hit.lemma == lemma
    assert expansion in hit.expansions
    assert hit.key_term and hit.source == "glossary"
    assert text[hit.start : hit.end] == form


def test_seed_mapping_of_the_mandatory_keys() -> None:
    # seed §4.2: функция -> function, def; тест, юнит-тест -> test, unit test
    assert {"function", "def"} <= set(_one("функции").expansions)
    assert _one("тестами").expansions[:2] == ("test", "unit test")
    assert _one("юнит-тестов").expansions[:2] == ("unit test", "test")
    assert _one("юнит-тестов").category == "test"


@pytest.mark.parametrize(
    ("text", "surface", "expansion"),
    [
        ("какие заголовки отправляются", "заголовки", "header"),
        ("длина строки", "строки", "string"),
        ("что возвращает метод", "возвращает", "return"),
        ("откуда берутся данные", "данные", "data"),
        ("значение по ключу", "значение", "value"),
        ("исключение при вызове", "исключение", "exception"),
        ("где вызывается", "вызывается", "call"),
        ("где настраиваются ретраи", "настраиваются", "configure"),
        ("сколько ретраев", "ретраев", "retry"),
        ("в конфиге", "конфиге", "config"),
        ("переменной окружения", "переменной окружения", "environment variable"),
        ("ТОЧКИ ВХОДА", "ТОЧКИ ВХОДА", "entry point"),
        ("из базы данных", "базы данных", "database"),
        ("По умолчанию", "По умолчанию", "default"),
        # what code does, in plain words
        ("как pytest переписывает assert", "переписывает", "rewrite"),
        ("файл перезаписывается", "перезаписывается", "overwrite"),
        ("ответ сжимается", "сжимается", "compress"),
        ("когда запрос отменяется", "отменяется", "cancel"),
        ("куда перенаправляет", "перенаправляет", "redirect"),
        ("как шаблон отрисовывается", "отрисовывается", "render"),
        ("подставляет переменные", "подставляет", "interpolate"),
        ("если путь не совпадает", "совпадает", "match"),
        ("как сервер отвечает 304", "отвечает", "respond"),
        ("если у клиента свежая копия", "свежая", "fresh"),
        ("переключить язык сообщений", "язык", "locale"),
        ("ограничить глубину обхода", "глубину", "depth"),
        ("ограничить глубину обхода", "ограничить", "maximum"),  # a limit is a maximum
        ("если двоеточий слишком много", "двоеточий", "colon"),
        ("если двоеточий слишком много", "слишком много", "too many"),
        ("как bat убирает опасные байты", "убирает", "strip"),
        ("как bat убирает опасные байты", "опасные", "dangerous"),
        ("как отсортировать записи", "отсортировать", "sort"),
        ("в пределах одной файловой системы", "файловой системы", "filesystem"),
        # calendar words: «написать «сегодня» вместо даты» is answered by `_("today")`
        ("написать «сегодня» вместо даты", "сегодня", "today"),
        ("«завтра» или «вчера»", "завтра", "tomorrow"),
        ("«завтра» или «вчера»", "вчера", "yesterday"),
        ("для даты через неделю", "неделю", "week"),
        ("случайный разброс задержки", "разброс", "jitter"),
        ("с несколькими дефисами подряд", "дефисами", "hyphen"),
        ("если нет единицы измерения", "единицы измерения", "unit"),
        # where a string starts and ends, and what it is made of
        ("если шаблон заканчивается косой чертой", "заканчивается", "end"),
        ("если шаблон заканчивается косой чертой", "косой чертой", "slash"),
        ("строка начинается с префикса", "начинается", "start"),
        ("в конце строки", "конце", "end"),
        ("число из одной цифры", "цифры", "digit"),
        ("когда истекает срок", "истекает", "expire"),
        ("лишние пробелы", "лишние", "extra"),
        ("старшая версия равна нулю", "старшая", "major"),
        ("требование с крышкой вроде ^0.2", "крышкой", "caret"),
        ("при экспоненциальной задержке", "экспоненциальной", "exponential"),
        ("не даёт добавить ключ, который уже есть", "уже есть", "already"),
        ("как сервер защищается от таких путей", "защищается", "protect"),
        ("а если элемент уже просрочен", "просрочен", "expired"),
        ("сдвигать больше половины элементов", "сдвигать", "shift"),
        ("сдвигать больше половины элементов", "половины", "half"),
        ("если время подписи в будущем", "будущем", "future"),
        ("если степень переполняется", "переполняется", "overflow"),
        ("строка в фигурных скобках", "фигурных", "curly"),
        ("если после @ написано что-то незнакомое", "незнакомое", "unknown"),
        ("как пакет запоминает, где создана ошибка", "запоминает", "record"),
    ],
)
def test_everyday_programming_vocabulary(text: str, surface: str, expansion: str) -> None:
    hit = next(h for h in default_expander().find(text) if h.surface == surface)
    assert expansion in hit.expansions


def test_longest_phrase_wins_and_hits_do_not_overlap() -> None:
    text = "Как работает абстрактное синтаксическое дерево и синтаксическое дерево?"
    hits = default_expander().find(text)
    assert [h.lemma for h in hits] == [
        "абстрактное синтаксическое дерево",
        "синтаксическое дерево",
    ]
    for a, b in itertools.pairwise(hits):
        assert a.end <= b.start


def test_phrase_words_must_be_adjacent() -> None:
    hits = default_expander().find("точка, входа")
    assert "точка входа" not in [h.lemma for h in hits]


def test_hyphenated_word_falls_back_to_its_parts() -> None:
    text = "интеграционный-класс"
    hits = default_expander().find(text)
    assert [h.surface for h in hits] == ["класс"]
    assert text[hits[0].start : hits[0].end] == "класс"


@pytest.mark.parametrize(
    ("text", "surface", "expansion"),
    [
        ("Как koa отвечает на HEAD-запрос?", "запрос", "request"),
        ("Как express обрабатывает JSONP-запросы?", "запросы", "request"),
        ("Как определить IP-адрес клиента?", "адрес", "address"),
    ],
)
def test_a_compound_with_a_latin_half_expands_its_russian_half(
    text: str, surface: str, expansion: str
) -> None:
    # «HEAD-запрос» reads as an identifier (an upper-case letter inside); its Russian half is
    # still a word of the question
    hits = [h for h in default_expander().find(text) if h.surface == surface]
    assert hits and expansion in hits[0].expansions
    assert text[hits[0].start : hits[0].end] == surface


def test_spans_exact_on_a_long_mixed_question() -> None:
    text = (
        "Почему в классе `HttpClient` метод send() не повторяет запрос, когда сервер "
        "возвращает 503, и где в src/net/retry.py настраивается таймаут? Ёщё: юнит-тестов нет"
    )
    hits = default_expander().find(text)
    assert hits
    for h in hits:
        assert text[h.start : h.end] == h.surface
        assert h.expansions
    lemmas = [h.lemma for h in hits]
    for want in ["класс", "метод", "запрос", "сервер", "возвращать", "таймаут", "юнит-тест"]:
        assert want in lemmas
    assert [h.start for h in hits] == sorted(h.start for h in hits)


def test_precomputed_tokens_give_the_same_hits() -> None:
    text = "Где в классе HttpClient вызывается метод send и переменные окружения?"
    expander = default_expander()
    assert expander.find(text, tokens=tokenize(text)) == expander.find(text)


def test_identifiers_and_latin_words_are_not_expanded_by_default() -> None:
    assert default_expander().find("HttpClient parse_query class tests") == []


def test_english_key_terms_with_flag() -> None:
    hits = default_expander().find("Which classes and tests use this function?", english=True)
    assert [(h.surface, h.lemma, h.key_term) for h in hits] == [
        ("classes", "class", True),
        ("tests", "test", True),
        ("function", "function", True),
    ]
    assert all(h.expansions == () for h in hits)
    # generic English words that only expand a key term do not steer
    assert default_expander().find("What is the main new error?", english=True) == []


def test_translit_fallback_for_unknown_loanwords_only() -> None:
    hits = default_expander().find("где реконнект коннектора и размер окна")
    by_lemma = {h.lemma: h for h in hits}
    assert by_lemma["реконнект"].source == "translit"
    assert "reconnect" in by_lemma["реконнект"].expansions
    assert not by_lemma["реконнект"].key_term
    assert "connector" in by_lemma["коннектор"].expansions
    assert "размер" in by_lemma and by_lemma["размер"].source == "glossary"
    native = default_expander().find("почему голова болит вечером")
    assert native == []


def test_stopwords_never_hit_even_when_they_inflect_a_term() -> None:
    # "им" is a form of имя, "тем" of тема: as stopwords they must stay silent
    assert default_expander().find("им тем где как что это какой") == []
    hits = default_expander().find("по умолчанию")  # a phrase may still contain stopwords
    assert [h.lemma for h in hits] == ["по умолчанию"]


def test_translit_can_be_disabled() -> None:
    expander = TermExpander(parse_glossary("класс\tclass\tkey"), translit=False)
    assert [h.lemma for h in expander.find("реконнект классов")] == ["класс"]


def test_user_glossary_extends_and_overrides_default(tmp_path: Path) -> None:
    user = tmp_path / "team.tsv"
    user.write_text(
        "# team terms\nзаявка\tticket, issue\tkey cat=project\nкласс\tclass, klass\tkey\n",
        encoding="utf-8",
    )
    expander = TermExpander.from_files([user])
    hit = expander.find("в заявках")[0]
    assert (hit.lemma, hit.expansions, hit.key_term, hit.category) == (
        "заявка",
        ("ticket", "issue"),
        True,
        "project",
    )
    assert expander.find("классе")[0].expansions == ("class", "klass")
    assert expander.find("методе")[0].expansions == ("method",)  # default still there
    assert default_expander().find("в заявках") == []  # the default is untouched


def test_missing_or_malformed_user_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.tsv"):
        TermExpander.from_files([tmp_path / "nope.tsv"])
    bad = tmp_path / "bad.tsv"
    bad.write_text("класс class\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.tsv:1"):
        TermExpander.from_files([bad])
    bad.write_text("класс\tclass\tsteer\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="steer"):
        TermExpander.from_files([bad])


def test_packaged_glossary_is_well_formed() -> None:
    text = default_glossary_text()
    assert text.startswith("#")
    entries = parse_glossary(text, "ru_en.tsv")  # every line parses or this raises
    lemmas = [e.lemma for e in entries]
    assert len(lemmas) >= 400
    assert len(lemmas) == len(set(lemmas)), "duplicate lemma"
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            assert 2 <= len(line.split("\t")) <= 3, line
    categories = {e.category for e in entries if e.expansions}  # stop entries have none
    assert {"code_unit", "test", "docs", "flow", "config", "project"} <= categories
    header = "\n".join(line for line in text.splitlines()[:30] if line.startswith("#"))
    for category in categories:  # every category used is documented in the header
        assert category is not None and category in header, category
    for e in entries:
        assert e.lemma == fold(e.lemma) and "  " not in e.lemma
        assert all(x == x.strip() and x for x in e.expansions)
        if len(e.words) == 1:
            assert not is_stopword(e.lemma), e.lemma


def test_key_terms_marked() -> None:
    keys = {e.lemma for e in default_expander().entries if e.key_term}
    want = {"класс", "метод", "функция", "модуль", "пакет", "файл", "тест", "юнит-тест",
            "документация", "раздел", "интерфейс", "вызов", "наследование"}  # fmt: skip
    assert want <= keys


def test_every_single_word_entry_finds_itself() -> None:
    expander = default_expander()
    misses = [
        e.lemma
        for e in expander.entries
        if [h.lemma for h in expander.find(e.lemma)] != ([e.lemma] if e.expansions else [])
    ]
    assert misses == []


def test_stop_phrases_are_consumed_without_hits() -> None:
    expander = default_expander()
    assert expander.find("в том числе") == []
    hits = expander.find("Каким образом, в зависимости от числа ретраев, собирается образ?")
    assert [(h.surface, h.lemma) for h in hits] == [
        ("числа", "число"),
        ("ретраев", "ретрай"),
        ("собирается", "собирать"),
        ("образ", "образ"),
    ]
    stop = parse_glossary("в общем\t-\n")
    assert stop[0].expansions == ()
    with pytest.raises(ConfigError):
        parse_glossary("класс\tclass, -\n")


def test_default_expander_is_cached() -> None:
    assert default_expander() is default_expander()
    assert expander_for(()) is default_expander()


def test_expander_for_settings_paths_is_cached_per_path_list(tmp_path: Path) -> None:
    user = tmp_path / "g.tsv"
    user.write_text("заявка\tticket\n", encoding="utf-8")
    first = expander_for([user])
    assert first is expander_for((str(user),))
    assert first is not default_expander()
    assert first.find("заявки")[0].expansions == ("ticket",)
