"""How-questions from the sixteenth round's blind batch.

"When I read an identifier back from a database column, which kinds of stored values are
accepted and how is each one turned into an ID?" opens with a clause and a which-question,
and asks how the code works in its second, joined question: the how-word after "and" («и
как») opens a clause as a how-word after a comma does. The question goes to the code, not to
the fallback intent's README.
"""

from __future__ import annotations

import pytest

from ragstrata.query.facets import read_facets
from ragstrata.query.router import route

_JOINED_HOW = [
    "When I read an identifier back from a SQL database column, which kinds of stored values"
    " are accepted and how is each one turned into an ID?",
    "Когда я читаю идентификатор обратно из столбца базы данных, какие виды значений"
    " принимаются и как каждое из них превращается в ID?",
]


@pytest.mark.parametrize("question", _JOINED_HOW)
def test_a_how_question_joined_by_and_asks_how_the_code_works(question: str) -> None:
    assert read_facets(question).how
    plan = route(question)
    assert plan["intent"] == "CODE_QA", plan["notes"]


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Where is parse defined and how is it used?", "where"),
        ("Who calls parse and how?", "callers"),
        ("Где определён parse и как он используется?", "where"),
    ],
)
def test_a_lookup_joined_by_a_how_word_stays_a_lookup(question: str, asks: str) -> None:
    facets = read_facets(question)
    assert asks in facets.asks and not facets.how, facets.asks
