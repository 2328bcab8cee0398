"""Answers from the twentieth round's blind batches.

- An answer whose opening names the lines of the code that answer opens its citations with
  them too: a usage text of the README quoted before (a how-to section matching the question's
  words) follows them, in the text and in the citations.
- In a how-question, a name no definition carries that the code writes inside its names
  ("a CamelCase name" of `ToCamelCase`, "snake_case" of `ToSnakeCase`) is what the code works
  on, not a missing definition; an invented name is still not found.
- «вызывается» asks for callers only with «где», «кем», «откуда» or «из»: «колбэк вызывается
  сразу или откладывается?» asks when, as "is it called right away?" does.
- A number literal in backticks (`0x1F`, `1e10`, `10_000`) is a value, never a symbol the
  answer must find ("Definition of `0x1F` not found").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import ROUTER, indexed
from ragstrata.query.facets import read_facets

FLATTEN = {
    "README.md": """
        # multierr

        Collects several errors into one.

        ## Nested errors

        Errors appended to a multi-error may be multi-errors themselves; they stay nested
        until you ask for one flat list.

        ## Licence

        MIT.
        """,
    "flatten.go": """
        package multierr

        // Flatten returns one error holding every error nested under err.
        func Flatten(err error) error {
            if _, ok := err.(*Error); !ok {
                return err
            }
            flat := new(Error)
            flatten(err, flat)
            return flat
        }

        func flatten(err error, flat *Error) {
            switch err := err.(type) {
            case *Error:
                for _, e := range err.Errors {
                    flatten(e, flat)
                }
            default:
                flat.Errors = append(flat.Errors, err)
            }
        }
        """,
    "multierr.go": """
        package multierr

        // Error is a list of errors.
        type Error struct {
            Errors []error
        }
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        "If errors are nested several levels deep, how do I get one error with a flat list,"
        " and what happens to a plain error?",
        "Если ошибки вложены друг в друга на несколько уровней, как получить из них одну"
        " ошибку с плоским списком всех исходных?",
    ],
)
def test_the_lines_the_opening_names_come_first(tmp_path: Path, question: str) -> None:
    with indexed(tmp_path, FLATTEN) as repo:
        answer = repo.ask(question).answer
    first = answer.citations[0]
    assert first.path == "flatten.go", answer.text
    named = f"{first.path}:{first.start_line}"
    assert named in answer.lead, (answer.lead, first)
    paths = [c.path for c in answer.citations]
    if "README.md" in paths:  # the usage text still follows
        assert answer.text.index("flatten.go:") < answer.text.index("README.md:"), answer.text


CASES = {
    "convert.go": """
        package xstr

        // ToSnakeCase writes a name in camel case as lower-case words joined by underscores.
        func ToSnakeCase(s string) string {
            return camelCaseToLowerCase(s, '_')
        }

        // ToKebabCase writes a name in camel case as lower-case words joined by dashes.
        func ToKebabCase(s string) string {
            return camelCaseToLowerCase(s, '-')
        }

        func camelCaseToLowerCase(s string, sep rune) string {
            out := []rune{}
            for i, r := range s {
                if i > 0 && isUpper(r) && !isUpper(rune(s[i-1])) {
                    out = append(out, sep)
                }
                out = append(out, toLower(r))
            }
            return string(out)
        }
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        "How does xstr split a CamelCase name like HTTPServer into words for snake_case?",
        "Как xstr делит имя в CamelCase, например HTTPServer, на слова для snake_case?",
    ],
)
def test_a_style_name_the_code_writes_is_no_missing_definition(
    tmp_path: Path, question: str
) -> None:
    with indexed(tmp_path, CASES) as repo:
        answer = repo.ask(question).answer
    assert answer.status != "not_found", answer.text
    assert answer.citations[0].path == "convert.go", answer.text


@pytest.mark.parametrize(
    "question",
    [
        "How does UserServiceFactory split a name into words?",
        "Как UserServiceFactory делит имя на слова?",
    ],
)
def test_an_invented_name_in_a_how_question_is_still_not_found(
    tmp_path: Path, question: str
) -> None:
    with indexed(tmp_path, CASES) as repo:
        answer = repo.ask(question).answer
    assert answer.status == "not_found", answer.text
    assert "UserServiceFactory" in answer.lead


@pytest.mark.parametrize(
    ("question", "callers"),
    [
        ("А колбэк с размером вызывается сразу или откладывается?", False),
        ("Генератор вызывается заново при каждом создании таблицы?", False),
        ("Is the size callback called right away or deferred?", False),
        ("Где вызывается колбэк?", True),
        ("а где он вызывается?", True),
        ("Откуда вызывается parse?", True),
        ("Кем вызывается parse?", True),
        ("parse вызывается из каких функций?", True),
        ("Кто вызывает parse?", True),
    ],
)
def test_is_called_asks_for_callers_only_with_where_or_by_whom(
    question: str, callers: bool
) -> None:
    assert read_facets(question).callers is callers


@pytest.mark.parametrize(
    "question",
    [
        "How does it decide whether a plain value such as `0x1F`, `+12`, `~` or `3.5` becomes"
        " an integer, a null, a float or a string?",
        "Как решается, станет ли значение вроде `0x1F`, `1e10` или `10_000` целым числом или"
        " строкой?",
    ],
)
def test_a_number_literal_is_no_symbol(question: str) -> None:
    plan = ROUTER.plan(question, None, {})
    symbols = [a.value for a in plan.query_plan.anchors if a.type.value == "SYMBOL"]
    assert not symbols, symbols
