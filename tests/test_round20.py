"""Answers from the twentieth round's blind batches.

- An answer whose opening names the lines of the code that answer opens its citations with
  them too: a usage text of the README quoted before (a how-to section matching the question's
  words) follows them, in the text and in the citations.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import indexed

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
