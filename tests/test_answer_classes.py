"""Each failure class of the answer stage, on one small repository in Go, TypeScript, Java,
Rust and Python, asked in Russian and English through the facade (real SQLite, hash embedder).

1 key terms vs invented names · 2 setup questions and README sections · 3 overview · 4 how it
works · 6 follow-ups · 7 presentation (lead, 80 columns, citation list).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator

import pytest

from cli_runner import run_cli
from ragstrata.app.facade import Ragstrata
from ragstrata.query.models import Intent
from ragstrata.settings import EmbedderSettings, Settings

FILES = {
    "README.md": """
        # Widgets

        [![Build](https://ci.example/badge.svg)](https://ci.example)

        Widgets is a small toolkit that builds, checks and serves widget files.

        ## API

        ## Installation

        Install the command with Go:

            go install example.com/widgets/cmd/widgets@latest

        ## Usage

        Run `widgets check FILE` to validate a widget file before serving it.
        """,
    "tools/lint/README.md": """
        # Lint tool

        ## Installation

        Run make inside this folder to build the linter.
        """,
    ".github/ISSUE_TEMPLATE.md": "# Bug report\n\nDescribe the widgets bug and the steps.\n",
    "LICENSE": "MIT License\n\nPermission is hereby granted, free of charge, widgets.\n",
    "FUNDING.yml": "github: widgets-sponsor\n",
    "go.mod": "module example.com/widgets\n\ngo 1.22\n",
    "doc.go": "// Package widgets builds and validates widget files.\npackage widgets\n",
    "mode.go": """
        package widgets

        import "os"

        // EnvMode names the environment variable that selects the mode.
        const EnvMode = "WIDGETS_MODE"

        var mode = "debug"

        func init() {
        \tSetMode(os.Getenv(EnvMode))
        }

        // SetMode switches between debug and release.
        func SetMode(value string) {
        \tif value == "" {
        \t\tvalue = "debug"
        \t}
        \tmode = value
        }
        """,
    "engine.go": """
        package widgets

        // Engine routes widget requests.
        type Engine struct {
        \troutes map[string]string
        }

        // Group is a set of routes under one prefix.
        type Group struct {
        \tengine *Engine
        \tprefix string
        }

        func (engine *Engine) addRoute(path string, target string) {
        \tengine.routes[path] = target
        }

        func (group *Group) handle(path string, target string) {
        \tgroup.engine.addRoute(group.prefix+path, target)
        }
        """,
    "engine_test.go": """
        package widgets

        import "testing"

        func TestAddRoute(t *testing.T) {
        \tengine := &Engine{routes: map[string]string{}}
        \tengine.addRoute("/a", "x")
        }
        """,
    "web/retry.ts": """
        /** Options of the retry loop. */
        export interface RetryOptions {
          attempts: number;
        }

        /** Repeat a failed request until it succeeds or the attempts run out. */
        export function retryRequest(send: () => boolean, options: RetryOptions): boolean {
          for (let i = 0; i < options.attempts; i++) {
            if (send()) {
              return true;
            }
          }
          return false;
        }
        """,
    "src/main/java/org/ex/Strings.java": """
        package org.ex;

        public class Strings {
            public static String abbreviate(String s, int width) {
                return abbreviate(s, "...", width);
            }

            public static String abbreviate(String s, String marker, int width) {
                if (s == null || s.length() <= width) {
                    return s;
                }
                int keep = width - marker.length();
                if (keep < 1) {
                    throw new IllegalArgumentException("width too small");
                }
                return s.substring(0, keep) + marker;
            }
        }
        """,
    "checker/src/lib.rs": "//! Checks widget files against their schema.\n\npub fn check() {}\n",
    "checker/src/main.rs": """
        fn main() {
            run();
        }

        fn run() {
            let config = construct_config();
            println!("{}", config);
        }

        fn construct_config() -> String {
            String::from("default")
        }
        """,
    "serve/app.py": '''
        """Serve widget files over HTTP."""


        class App:
            """The widget server."""

            def full_dispatch(self, request):
                """Dispatch one request to its handler."""
                return request

            def wsgi(self, environ):
                return self.full_dispatch(environ)
        ''',
    "serve/relay.py": """
        def relay(server, request):
            return server.full_dispatch(request)
        """,
}


@pytest.fixture(scope="module")
def rs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ragstrata]:
    root = tmp_path_factory.mktemp("widgets")
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    repo = Ragstrata(root, Settings(embedder=EmbedderSettings(provider="hash", dimensions=64)))
    repo.index()
    yield repo
    repo.close()


def _cites(result) -> list[tuple[str, int, int]]:  # type: ignore[no-untyped-def]
    return [(c.path, c.start_line, c.end_line) for c in result.answer.citations]


def _line_of(rs: Ragstrata, path: str, needle: str) -> int:
    text = (rs.repo / path).read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(text, 1) if needle in line)


# ---------------------------------------------------------------------- 1 key terms
@pytest.mark.parametrize(
    "question",
    [
        "Как переключить режим через переменную окружения WIDGETS_MODE?",
        "Where is the WIDGETS_MODE environment variable defined?",
    ],
)
def test_key_term_is_answered_from_the_lines_that_write_it(rs: Ragstrata, question: str) -> None:
    result = rs.ask(question)
    assert result.answer.status in ("answered", "partial")
    path, start, end = _cites(result)[0]
    line = _line_of(rs, "mode.go", '"WIDGETS_MODE"')
    assert path == "mode.go" and start <= line <= end
    assert "WIDGETS_MODE" in result.answer.lead
    if result.evidence.missing:  # a requirement only partly met is named, not hidden
        assert result.answer.status == "partial"


@pytest.mark.parametrize(
    "question",
    [
        "Где определён класс QuantumLedgerFactory?",
        "Who calls the method Engine.reticulate_splines?",
        "How does deepFreezeWidgetTree work?",
    ],
)
def test_a_name_absent_from_the_index_is_not_found(rs: Ragstrata, question: str) -> None:
    result = rs.ask(question)
    assert result.answer.status == "not_found" and not result.answer.grounded
    assert result.answer.lead and result.answer.text.startswith(result.answer.lead)


# ---------------------------------------------------------------------- 2 setup questions
@pytest.mark.parametrize(
    ("question", "lead_word"),
    [
        ("Как установить widgets?", "Installation"),
        ("Что нужно сделать для установки по README?", "Installation"),
        ("What does the README say about installation?", "Installation"),
        ("How do I install widgets?", "Installation"),
    ],
)
def test_setup_question_leads_with_the_root_readme_section(
    rs: Ragstrata, question: str, lead_word: str
) -> None:
    result = rs.ask(question)
    assert result.plan["intent"] != Intent.GENERATE_DOCS_FROM_CODE.value
    path, start, end = _cites(result)[0]
    install = _line_of(rs, "README.md", "## Installation")
    assert (path, start) == ("README.md", install) and end > start  # the section with its body
    assert lead_word in result.answer.lead
    api = _line_of(rs, "README.md", "## API")
    assert all(not (p == "README.md" and s == api) for p, s, _ in _cites(result))  # no empty header
    assert "tools/lint/README.md" not in [p for p, _, _ in _cites(result)[:1]]


# ---------------------------------------------------------------------- 3 overview
@pytest.mark.parametrize(
    "question",
    ["What are the main components of this project?", "Из каких основных частей состоит проект?"],
)
def test_overview_is_readme_summary_and_code_map(rs: Ragstrata, question: str) -> None:
    result = rs.ask(question)
    cited = [p for p, _, _ in _cites(result)]
    assert cited[0] == "README.md"
    assert "Widgets is a small toolkit" in result.answer.lead
    assert not {".github/ISSUE_TEMPLATE.md", "LICENSE", "FUNDING.yml"} & set(cited)
    text = result.answer.text
    # the code map: packages with their own one-line docs (Go package comment, Rust crate doc)
    assert "builds and validates widget files" in text
    assert "Checks widget files against their schema" in text
    assert "doc.go" in cited and "checker/src/lib.rs" in cited


# ---------------------------------------------------------------------- 4 how it works
@pytest.mark.parametrize(
    "question", ["How does Strings.abbreviate work?", "Как работает метод Strings.abbreviate?"]
)
def test_how_leads_with_the_overload_that_does_it(rs: Ragstrata, question: str) -> None:
    result = rs.ask(question)
    path, start, _ = _cites(result)[0]
    body = _line_of(rs, "src/main/java/org/ex/Strings.java", "String marker, int width")
    assert (path, start) == ("src/main/java/org/ex/Strings.java", body)
    assert "substring(0, keep)" in result.answer.text  # the lines that do it are quoted


def test_how_leads_with_a_function_not_the_interface(rs: Ragstrata) -> None:
    result = rs.ask("How does the retry loop repeat a failed request?")
    first_definition = next((p, s) for p, s, _ in _cites(result) if p == "web/retry.ts")
    assert first_definition == ("web/retry.ts", _line_of(rs, "web/retry.ts", "export function"))


# ---------------------------------------------------------------------- 6 follow-ups
def test_follow_up_callers_first_en_go(rs: Ragstrata) -> None:
    rs.ask("Where is the method addRoute defined?", session="f-en")
    result = rs.ask("and who calls it?", session="f-en")
    assert result.plan["conversation_mode"] == "CONTINUE"
    call = _line_of(rs, "engine.go", "group.engine.addRoute(")
    assert _cites(result)[0][:2] == ("engine.go", call)
    assert "is called from" in result.answer.lead


def test_follow_up_callers_first_ru_rust(rs: Ragstrata) -> None:
    rs.ask("Где определена функция construct_config?", session="f-ru")
    result = rs.ask("а кто её вызывает?", session="f-ru")
    call = _line_of(rs, "checker/src/main.rs", "construct_config();")
    assert _cites(result)[0][:2] == ("checker/src/main.rs", call)
    assert "вызывается" in result.answer.lead


@pytest.mark.parametrize(
    ("first", "follow"),
    [
        ("Где определён метод addRoute?", "а где он используется в тестах?"),
        ("Where is the method addRoute defined?", "what about in the tests?"),
    ],
)
def test_follow_up_about_tests_lists_test_uses(rs: Ragstrata, first: str, follow: str) -> None:
    session = "t-" + str(abs(hash(follow)) % 10_000)
    rs.ask(first, session=session)
    result = rs.ask(follow, session=session)
    assert result.answer.status != "not_found"
    assert _cites(result)[0][0] == "engine_test.go"


# ---------------------------------------------------------------------- 5 (consumed) callers
@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("Who calls App.full_dispatch?", "**Possible callers**"),
        ("Кто вызывает метод App.full_dispatch?", "**Возможные вызовы**"),
    ],
)
def test_possible_callers_are_listed_apart(rs: Ragstrata, question: str, label: str) -> None:
    result = rs.ask(question)
    call = _line_of(rs, "serve/app.py", "return self.full_dispatch(")
    assert _cites(result)[0][:2] == ("serve/app.py", call)  # the resolved caller leads
    text = result.answer.text
    assert label in text
    assert text.index("serve.app.App.wsgi") < text.index(label) < text.index("relay")
    assert "relay" not in result.answer.lead


# ---------------------------------------------------------------------- 7 presentation
def test_lead_is_in_the_question_language(rs: Ragstrata) -> None:
    ru = rs.ask("Где определена функция SetMode?").answer
    en = rs.ask("Where is the function SetMode defined?").answer
    assert re.search("[а-я]", ru.lead) and not re.search("[а-я]", en.lead)
    assert "mode.go:" in ru.lead and "mode.go:" in en.lead
    assert ru.text.startswith(ru.lead) and en.text.startswith(en.lead)


def test_cli_at_80_columns_fits_one_screen_and_lists_five_citations(rs: Ragstrata) -> None:
    question = "What are the main components of this project?"
    env = {
        "COLUMNS": "80",
        "RAGSTRATA_EMBEDDER_PROVIDER": "hash",
        "RAGSTRATA_EMBEDDER_DIMENSIONS": "64",
    }
    result = run_cli("ask", "--repo", str(rs.repo), question, env=env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= 80 and len(lines) <= 40
    listed = lines[lines.index("citations:") + 1 :]
    cites = [ln for ln in listed if re.match(r"^  \S+:\d+(-\d+)?$", ln)]
    assert 1 <= len(cites) <= 5
    total = len(rs.ask(question).answer.citations)
    if total > 5:
        assert f"  … and {total - 5} more (--full lists them)" in listed
    assert sum(bool(re.match(r"^(partial answer; )?evidence:", ln)) for ln in lines) == 1
    every = _cites(rs.ask(question))
    for path, start, end in every[:5]:
        span = f"{start}" if start == end else f"{start}-{end}"
        assert f"  {path}:{span}" in lines  # never cropped
    full = run_cli("ask", "--repo", str(rs.repo), question, "--full", env=env)
    assert full.returncode == 0 and max(len(ln.rstrip()) for ln in full.stdout.splitlines()) <= 80
    for path, start, end in every:
        span = f"{start}" if start == end else f"{start}-{end}"
        assert f"  {path}:{span}" in full.stdout.splitlines()  # --full lists every citation
