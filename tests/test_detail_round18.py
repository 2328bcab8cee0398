"""Detail follow-ups from the eighteenth round's blind batch.

A raw docstring (``r\"\"\"Read the byte order mark …``) is documentation like any other: its
first line is no line of code answering a follow-up, so the branch that does what the
question asks is quoted instead.

«При какой ошибке он перестаёт пробовать новый вызов?» asks about a kind of call (a new, a
system, a repeated one), not who calls something: a callers cue after an adjective is a noun
the question is about. A determiner («этот вызов», «все вызовы parse») still picks calls out.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from answer_fixture import method_row
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.query.facets import read_facets

READ_MARK = '''\
def read_mark(data):
    r"""Read the byte order mark at the start of the data and return the encoding it names.

    >>> read_mark(b'\\xfe\\xff\\x00')
    'utf-16-be'
    """
    for mark, encoding in MARKS:
        if data.startswith(mark):
            return encoding
    return None'''


@pytest.mark.parametrize(
    "question",
    [
        "What encoding does it return when the data starts with a byte order mark?",
        "Какую кодировку он вернёт, если данные начинаются с метки порядка байтов (byte order"
        " mark)?",
    ],
)
def test_a_raw_docstring_is_no_answering_line(question: str) -> None:
    row = method_row("marks.read_mark", "marks.py", "python", READ_MARK)
    facets = replace(read_facets(question), terms=("encoding", "byte", "order", "mark"))
    span = answering_lines(row, facets)
    # the branch returning the encoding, not the docstring's first line (2)
    assert span is not None and 8 <= span.start_line <= 9, span


@pytest.mark.parametrize(
    "question",
    [
        "При какой именно ошибке он навсегда перестаёт пробовать новый вызов?",
        "А если системный вызов вернёт ошибку?",
        "Что будет, если повторный вызов тоже упадёт?",
    ],
)
def test_a_kind_of_call_is_no_callers_question(question: str) -> None:
    assert "callers" not in read_facets(question).asks


@pytest.mark.parametrize(
    "question",
    ["Покажи все вызовы parse", "Кто делает этот вызов?", "Где вызовы функции parse?"],
)
def test_calls_picked_out_still_ask_for_callers(question: str) -> None:
    assert "callers" in read_facets(question).asks
