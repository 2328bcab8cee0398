"""JSON found in model replies (``llm.json_reply``): the standard decoder's ``raw_decode``
decides where a value ends; callers get every value that starts at an opening bracket."""

from __future__ import annotations

import pytest

from ragstrata.llm.json_reply import json_at, json_values


@pytest.mark.parametrize(
    ("text", "start", "expected"),
    [
        ('x {"a": "}"} y', 2, ({"a": "}"}, 12)),  # a closing brace inside a string
        ('[" \\" ]", 1] tail', 0, ([' " ]', 1], 12)),  # an escaped quote, then a bracket
        ('{"вопрос": "где [класс]?"}', 0, ({"вопрос": "где [класс]?"}, 26)),
        ("[1, [2, [3]]]", 0, ([1, [2, [3]]], 13)),
        ("{draft}", 0, None),  # balanced but not JSON
        ('["unterminated', 0, None),
        ("[1, 2", 0, None),
        ("[" * 100_000, 0, None),  # too deep: no RecursionError escapes
    ],
)
def test_json_at(text: str, start: int, expected: object) -> None:
    assert json_at(text, start) == expected


def test_json_values_tries_every_opening_nested_included() -> None:
    text = 'Bad: [1] then [[2], ["a"]] and ["b"'
    assert list(json_values(text, "[")) == [[1], [[2], ["a"]], [2], ["a"]]
    assert list(json_values('{"x": {"y": 1}} {broken', "{")) == [{"x": {"y": 1}}, {"y": 1}]
    assert list(json_values("no json here", "[")) == []


def test_json_values_limit_bounds_the_starting_points() -> None:
    text = "[x " * 10 + '["late"]'
    assert list(json_values(text, "[", limit=10)) == []
    assert list(json_values(text, "[", limit=11)) == [["late"]]
