"""How-questions from the sixteenth round's blind batch.

"When I read an identifier back from a database column, which kinds of stored values are
accepted and how is each one turned into an ID?" opens with a clause and a which-question,
and asks how the code works in its second, joined question: the how-word after "and" («и
как») opens a clause as a how-word after a comma does. The question goes to the code, not to
the fallback intent's README. "What final checks decide whether it is reported?", «Что
определяет, попадёт ли путь в результат?» ask the same without a how-word.

A word most of the candidates' names carry names no part: "remove an entry" of a map whose
`swap_remove_entry`, `first_entry`, `last_entry` all say "entry" does not send the answer to
`entry.rs` (nor "temporary file" to `file/`).

Rust's test modules kept in files of their own (`#[cfg(test)] mod decoder_tests;` in
`src/read/decoder_tests.rs`, `mod tests;` in `tests.rs`) are tests, as `*_test.rs` are.
"""

from __future__ import annotations

import pytest

from answer_fixture import code_hit, how_order
from ragstrata.core.languages import is_test
from ragstrata.query.facets import read_facets
from ragstrata.query.router import route

_DECIDES = [
    "Once a candidate path has been found, what final checks decide whether it is reported?",
    "What determines whether a match is reported?",
    "Что определяет, попадёт ли найденный путь в результат?",
    "Какие проверки решают, будет ли путь выдан?",
]


_JOINED_HOW = [
    "When I read an identifier back from a SQL database column, which kinds of stored values"
    " are accepted and how is each one turned into an ID?",
    "Когда я читаю идентификатор обратно из столбца базы данных, какие виды значений"
    " принимаются и как каждое из них превращается в ID?",
]


@pytest.mark.parametrize("question", [*_JOINED_HOW, *_DECIDES])
def test_a_how_question_without_a_leading_how_word_asks_how_the_code_works(
    question: str,
) -> None:
    assert read_facets(question).how
    plan = route(question)
    assert plan["intent"] == "CODE_QA", plan["notes"]


def test_a_question_about_the_project_stays_with_the_project() -> None:
    assert route("What is the license of this project?")["intent"] != "CODE_QA"


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


SWAP = """\
def swap_remove_entry(self, key):
    position = self.index.pop(key)
    last = self.entries.pop()
    if position < len(self.entries):
        self.entries[position] = last
        self.index[last[0]] = position
    return last"""
SHIFT = """\
def shift_remove_entry(self, key):
    position = self.index.pop(key)
    removed = self.entries.pop(position)
    for offset, (name, _) in enumerate(self.entries[position:]):
        self.index[name] = position + offset
    return removed"""
FIRST = """\
def first_entry(self):
    if not self.entries:
        return None
    return self.entries[0]"""
LAST = """\
def last_entry(self):
    if not self.entries:
        return None
    return self.entries[-1]"""
VIEW = """\
def remove(self):
    removed = self.store.shift_remove_entry(self.key)
    self.store = None
    self.key = None
    return removed"""


@pytest.mark.parametrize(
    "question",
    [
        "How does it remove an entry quickly when the order of the other entries doesn't matter?",
        "Как быстро удаляется запись, если порядок остальных записей не важен?",
    ],
)
def test_a_word_most_names_carry_names_no_part(question: str) -> None:
    hits = [
        code_hit("store.Store.swap_remove_entry", "mapping/store.py", SWAP, kind="method"),
        code_hit("store.Store.shift_remove_entry", "mapping/store.py", SHIFT, kind="method"),
        code_hit("store.Store.first_entry", "mapping/store.py", FIRST, kind="method"),
        code_hit("store.Store.last_entry", "mapping/store.py", LAST, kind="method"),
        code_hit("entry.OccupiedEntry.remove", "mapping/entry.py", VIEW, kind="method"),
    ]
    head = how_order(question, hits)
    assert head[0].path == "mapping/store.py", [h.symbol for h in head]


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("src/read/decoder_tests.rs", True),
        ("src/map/tests.rs", True),
        ("src/lexer_test.rs", True),
        ("src/read/decoder.rs", False),
        ("src/contests.rs", False),
    ],
)
def test_rust_test_modules_in_files_of_their_own_are_tests(path: str, test: bool) -> None:
    assert is_test(path, "rust") is test
