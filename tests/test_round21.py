"""The twenty-first round's Russian vocabulary.

- Transliteration drops a stem's silent e before a vowel ending, as English spells it
  (таймер -> timer, тайминг -> timing), reads -айс, -айз, -айп as -ice, -ize, -ipe (слайс ->
  slice) and э before к as the English a (бэкап -> backup, бэкофф -> backoff).
- Loanwords and everyday words the transliteration cannot reach have glossary entries:
  «эмодзи» (emoji), «нечёткий поиск» (fuzzy), «градиентный» (gradient), «зависнуть» (hang),
  «часы» (clock), «пункт» (item), «запаниковать» (panic).
"""

from __future__ import annotations

import pytest

from answer_fixture import ROUTER
from ragstrata.query.facets import facets_of
from ragstrata.text.translit import transliterate_candidates


@pytest.mark.parametrize(
    ("word", "english"),
    [("таймер", "timer"), ("тайминг", "timing"), ("слайс", "slice"), ("девайс", "device"),
     ("сайз", "size"), ("бэкап", "backup"), ("бэкенд", "backend"),
     ("бэкофф", "backoff")],
)  # fmt: skip
def test_loanwords_spelled_as_english_spells_them(word: str, english: str) -> None:
    assert english in transliterate_candidates(word)


def test_the_silent_e_stays_where_english_keeps_it() -> None:
    # "coder" is no "codr": the e before -er belongs to the word, not to a dropped stem
    assert "coder" in transliterate_candidates("кодер")
    assert "parser" in transliterate_candidates("парсер")


def _concepts(question: str) -> set[str]:
    return {w for group in facets_of(ROUTER.plan(question, None, {})).concepts for w in group}


@pytest.mark.parametrize(
    ("question", "english"),
    [
        ("Как библиотека находит эмодзи в тексте?", "emoji"),
        ("Как работает нечёткий поиск по вариантам?", "fuzzy"),
        ("Как вычисляются цвета для градиентной схемы?", "gradient"),
        ("Не зависнет ли поток, если задача упадёт?", "hang"),
        ("Какие часы берутся по умолчанию?", "clock"),
        ("Сколько пунктов показывается на странице?", "item"),
        ("Что будет, если задача запаникует?", "panic"),
        ("Как ставится таймер до следующего запуска?", "timer"),
    ],
)
def test_russian_words_of_behaviour_questions_reach_the_code_words(
    question: str, english: str
) -> None:
    assert english in _concepts(question)
