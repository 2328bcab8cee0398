"""An overview leads with the README's own description of the project, cited tightly.

"What are the main parts of X?" is answered first by where the README says what the project
is and what it is made of: a short "Features" / «Компоненты» section when there is one, else
the paragraph that says what the project is ("Relay is a …"), never the badges, the logo, the
release news or a whole section around them. Real index (SQLite, hash embedder).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import indexed
from ragstrata.app.facade import Ragstrata

CODE = {
    "relay/engine.go": """
        package relay

        // Engine dispatches requests to handlers.
        type Engine struct {
        \troutes map[string]string
        }

        // New makes an Engine.
        func New() *Engine { return &Engine{} }
        """,
    "relay/group.go": """
        package relay

        // Group shares a prefix.
        type Group struct {
        \tengine *Engine
        }

        func (g *Group) add() { g.engine = New() }
        """,
    "go.mod": "module example.com/relay\n\ngo 1.22\n",
}

NEWS_README = """
    # Relay

    [![Build](https://ci.example/badge.svg)](https://ci.example)

    ## Relay 2.0 is out!

    We're excited to announce the release of Relay 2.0 with faster routing.

    ---

    Relay is a small HTTP router for Go that matches requests to handlers.

    ## Install

    go get example.com/relay
    """

FEATURES_README = """
    # Relay

    Relay routes requests.

    ## Features

    * Routes with variables in the path.
    * Groups of routes under one prefix.

    ## Install

    go get example.com/relay
    """


def _repo(root: Path, readme: str) -> Ragstrata:
    return indexed(root, {**CODE, "README.md": readme})


def _line_of(root: Path, needle: str) -> int:
    lines = (root / "README.md").read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if needle in line)


@pytest.mark.parametrize(
    "question",
    ["What are the main parts of relay and what does each do?", "Из каких частей состоит relay?"],
)
def test_overview_cites_the_paragraph_that_says_what_the_project_is(
    tmp_path: Path, question: str
) -> None:
    with _repo(tmp_path, NEWS_README) as repo:
        result = repo.ask(question)
    first = result.answer.citations[0]
    line = _line_of(tmp_path, "Relay is a small HTTP router")
    assert (first.path, first.start_line, first.end_line) == ("README.md", line, line)
    assert "Relay is a small HTTP router" in result.answer.lead
    assert "excited" not in result.answer.lead


def test_overview_cites_a_features_section_without_its_heading(tmp_path: Path) -> None:
    with _repo(tmp_path, FEATURES_README) as repo:
        result = repo.ask("What are the main parts of relay?")
    first = result.answer.citations[0]
    start = _line_of(tmp_path, "* Routes with variables")
    assert (first.path, first.start_line) == ("README.md", start)
    assert first.end_line == _line_of(tmp_path, "* Groups of routes")


HOWTO_README = """
    # Relay

    Relay is a small HTTP router for Go.

    ## Serving Single Page Applications

    Serve the static files of a single page application and its API from one place: the
    static handler serves files, static assets and the index page for every other path.

    ## Static Files

    Use a path prefix to serve files from a folder:

        r.PathPrefix("/static/").Handler(http.FileServer(dir))
    """


@pytest.mark.parametrize(
    "question",
    [
        "How do I serve static files from a folder with relay?",
        "Как мне отдавать статические файлы?",
    ],
)
def test_a_how_do_i_question_leads_with_the_section_headed_by_its_words(
    tmp_path: Path, question: str
) -> None:
    with _repo(tmp_path, HOWTO_README) as repo:
        result = repo.ask(question)
    first = result.answer.citations[0]
    assert (first.path, first.start_line) == ("README.md", _line_of(tmp_path, "## Static Files"))


_ROUTE_EXAMPLES = "\n".join(
    f"""
    Route {n} of the catalogue answers the shop's page number {n}:

    ```go
    r.HandleFunc("/shop/{n}", Page{n})
    ```
    """
    for n in range(1, 8)
)

ROUTES_README = f"""
    # Relay

    Relay is a small HTTP router for Go.

    ## Routes

    Routes are matched in the order they were added.
    {_ROUTE_EXAMPLES}
    Routes may include named parameters, read with `Vars`:

    ```go
    r.HandleFunc("/articles/{{id}}", Article)
    id := relay.Vars(req)["id"]
    ```

    Routes may also match a host.
    """


@pytest.mark.parametrize(
    "question",
    [
        "How do I write a route with a named parameter in relay?",
        # «как» + an infinitive is the Russian "how do I": the documentation answers it
        "Как в relay описать маршрут с именованным параметром?",
    ],
)
def test_a_long_section_is_quoted_by_its_paragraph_that_answers_with_its_example(
    tmp_path: Path, question: str
) -> None:
    with _repo(tmp_path, ROUTES_README) as repo:
        result = repo.ask(question)
    first = result.answer.citations[0]
    start = _line_of(tmp_path, "Routes may include named parameters")
    # the paragraph and its code block, not the README's title "Relay" (the project's name)
    # nor the whole "Routes" section from its heading
    assert (first.path, first.start_line) == ("README.md", start)
    assert first.end_line == start + 5  # the closing fence
    assert "Vars(req)" in result.answer.text


TAGLINE_README = """
    <!---
     Licensed under the Apache License, Version 2.0: you may not use this file except in
     compliance with the License, distributed on an "AS IS" basis.
    -->
    <div align="center"><img src="logo.svg" alt=""></div>

    # Relay

    ... so route this

    A small HTTP router for Go: requests are matched to handlers by path and method.

    ## Usage

    Here is a more complete program using groups of routes and their handlers.
    """


@pytest.mark.parametrize(
    "question", ["What are the main parts of relay?", "Из каких частей состоит relay?"]
)
def test_overview_cites_the_title_s_own_paragraph_not_a_license_comment_or_a_tagline(
    tmp_path: Path, question: str
) -> None:
    # not the license in an HTML comment, not the five-word tagline, not "Here is a more …"
    # that only looks like "X is a …"
    with _repo(tmp_path, TAGLINE_README) as repo:
        result = repo.ask(question)
    first = result.answer.citations[0]
    line = _line_of(tmp_path, "A small HTTP router for Go")
    assert (first.path, first.start_line) == ("README.md", line), result.answer.lead


def test_the_code_map_leaves_test_helpers_and_examples_out(tmp_path: Path) -> None:
    files = {
        **CODE,
        "README.md": TAGLINE_README,
        "test-helpers/context.go": "package helpers\n\n// Context fakes a request.\n"
        "func Context() {}\n",
        "internal/testutils/assert.go": "package testutils\n\n// Assert fails a test.\n"
        "func Assert() {}\n",
        "_examples/hello/main.go": "package main\n\nfunc main() {}\n",
    }
    with indexed(tmp_path, files) as repo:
        text = repo.ask("What are the main parts of relay?").answer.text
    code_map = text[text.index("**Code map**") :]
    assert "`relay`" in code_map
    for folder in ("test-helpers", "internal/testutils", "_examples"):
        assert f"`{folder}`" not in code_map, folder
