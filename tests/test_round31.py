"""Round thirty-one (issue 23): «значение по умолчанию» after a noun names the default value (as
"the default value" does), not a missing one («используется по умолчанию», "by default": when
nothing is given); the call right above a condition testing its result (`file, err :=
os.OpenFile(…)` above `if err != nil {`) says what the branch handles.

Тридцать первый раунд: «значение по умолчанию» после существительного называет само значение,
а не его отсутствие («используется по умолчанию» — когда ничего не задано); вызов прямо над
условием, которое проверяет его результат, говорит, что обрабатывает эта ветка."""

from __future__ import annotations

import pytest

from answer_fixture import method_row, plan
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.query.facets import facets_of


@pytest.mark.parametrize(
    ("question", "missing"),
    [
        # the default value itself: given, not missing
        (
            "А что будет, если поле помечено как обязательное и для него задано значение по умолчанию?",
            False,
        ),
        ("А если значение по умолчанию — это функция, её вызовут?", False),
        # used when nothing is given
        ("Какой предел используется по умолчанию, если пользователь его не задал?", True),
        ("Что выводится по умолчанию?", True),
        ("What limit is used by default?", True),
        ("And what if the default value is a function?", False),
    ],
)
def test_a_default_value_named_is_no_missing_value(question: str, missing: bool) -> None:
    assert ("missing" in facets_of(plan(question)).details) is missing


CACHE_GET = """\
func (c *Cache) Get(key string) (Value, error) {
	entry, found := c.items[key]
	if !found {
		return nil, ErrNoValue
	}
	if entry.Expired() {
		c.remove(key)
		return nil, ErrExpired
	}
	return entry.value, nil
}"""


@pytest.mark.parametrize(
    "question",
    ["And what if the key has no entry in the cache?", "А если для ключа в кеше нет записи?"],
)
def test_the_assignment_above_a_condition_says_what_its_branch_tests(question: str) -> None:
    row = method_row("cache.Cache.Get", "cache.go", "go", CACHE_GET)
    span = answering_lines(row, facets_of(plan(question)))
    # `if !found {` under `entry, found := c.items[key]`, not the expired entry's branch that
    # names the key again
    assert span is not None and (span.start_line, span.end_line) == (3, 5)
