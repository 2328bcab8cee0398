"""Configuration questions lead with the setting a user changes, in English and Russian.

A small repository in four languages: an options struct whose documented field is the answer
beside a function that shares the question's words, a Sinatra-style ``set :port``, an
environment variable read over two lines, and a config interface member documented by the
words of the question. The answers come from a real index (SQLite, hash embedder).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from answer_fixture import indexed
from ragstrata.answer.graphs.settings import settings_in
from ragstrata.app.facade import Ragstrata

FILES = {
    "go.mod": "module example.com/relay\n\ngo 1.22\n",
    "engine.go": """
        package relay

        // Engine dispatches requests to handlers.
        type Engine struct {
        \t// RejectUnknownMethods if enabled, a request whose path is known but whose method
        \t// is not is answered with 405 Method Not Allowed instead of 404.
        \tRejectUnknownMethods bool

        \t// MaxBodyMemory is the memory limit used when parsing a multipart form body.
        \tMaxBodyMemory int64

        \troutes map[string]string
        }

        // allowedMethods lists the methods a path answers to.
        func (engine *Engine) allowedMethods(path string) []string {
        \treturn nil
        }
        """,
    "lib/relay/base.rb": """
        module Relay
          class Base
            set :port, Integer(ENV['PORT'] || 4567)
            set :show_errors, true
            set :logging, false
          end
        end
        """,
    "relay_py/hooks.py": '''
        import os


        def install_hook():
            """Install the exception hook."""
            plain = os.getenv(
                "RELAY_STANDARD_TRACEBACK", ""
            )
            return plain
        ''',
    "README.md": """
        # Relay

        Relay serves requests.

        ## Configuration

        The server listens on 4567 unless told otherwise:

        ```ruby
        set :port, 8080
        ```
        """,
    "web/config.ts": """
        export interface RelayConfig {
          /** Skip the compiled validators; for environments that forbid eval. */
          interpreted?: boolean;
          retries?: number;
        }
        """,
}


@pytest.fixture(scope="module")
def rs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ragstrata]:
    with indexed(tmp_path_factory.mktemp("relay"), FILES) as repo:
        yield repo


def _line_of(rs: Ragstrata, path: str, needle: str) -> int:
    text = (rs.repo / path).read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(text, 1) if needle in line)


def _lead(rs: Ragstrata, question: str) -> tuple[str, int, int, str]:
    result = rs.ask(question)
    first = result.answer.citations[0]
    return first.path, first.start_line, first.end_line, result.answer.lead


@pytest.mark.parametrize(
    ("question", "path", "needle", "name"),
    [
        (
            "How do I make the engine answer 405 Method Not Allowed when only the method is wrong?",
            "engine.go",
            "RejectUnknownMethods bool",
            "RejectUnknownMethods",
        ),
        (
            "Как ограничить память при разборе multipart-формы?",
            "engine.go",
            "MaxBodyMemory int64",
            "MaxBodyMemory",
        ),
        ("How do I change the port the server listens on?", "lib/relay/base.rb", ":port", "port"),
        (
            "Как отключить показ ошибок в браузере?",
            "lib/relay/base.rb",
            ":show_errors",
            "show_errors",
        ),
        (
            "Как включить стандартный трейсбек вместо красивого?",
            "relay_py/hooks.py",
            '"RELAY_STANDARD_TRACEBACK"',
            "RELAY_STANDARD_TRACEBACK",
        ),
        (
            "How do I disable compiled validators where the environment forbids eval?",
            "web/config.ts",
            "interpreted?: boolean",
            "interpreted",
        ),
    ],
)
def test_configuration_question_leads_with_the_setting(
    rs: Ragstrata, question: str, path: str, needle: str, name: str
) -> None:
    cited_path, start, end, lead = _lead(rs, question)
    line = _line_of(rs, path, needle)
    assert cited_path == path
    assert start <= line <= end and end - start <= 3  # the declaration and its doc comment
    assert f"`{name}`" in lead


def test_setting_lead_speaks_the_question_language(rs: Ragstrata) -> None:
    assert _lead(rs, "Как изменить порт сервера?")[3].startswith("Это настройка `port`")
    assert _lead(rs, "How do I change the server port?")[3].startswith("The setting is `port`")


def test_a_how_question_is_not_answered_by_a_setting(rs: Ragstrata) -> None:
    """Only a question about changing a behaviour is answered by a setting."""
    lead = _lead(rs, "How does the engine decide which methods a path allows?")[3]
    assert "setting" not in lead.lower()


def test_an_undocumented_field_is_not_a_setting() -> None:
    text = "type Engine struct {\n\troutes map[string]string\n\tPort int\n}\n"
    concepts = [frozenset({"port"})]
    assert settings_in("engine.go", text, 1, concepts) == []
    documented = "type Engine struct {\n\t// Port to listen on.\n\tPort int\n}\n"
    (found,) = settings_in("engine.go", documented, 10, concepts)
    assert (found.name, found.start_line, found.end_line) == ("Port", 11, 12)


def test_a_word_group_counts_once() -> None:
    """«исключение» -> exception, error, raise is one word of the question: a setting named
    by two of its synonyms does not beat one named by two different words."""
    text = "set :raise_errors, true\nset :show_exceptions, true\n"
    concepts = [frozenset({"exception", "error", "raise"}), frozenset({"show", "display"})]
    best = max(settings_in("base.rb", text, 1, concepts), key=lambda s: s.score)
    assert best.name == "show_exceptions"


def test_a_documented_attribute_is_a_setting_and_its_default_comes_after_it() -> None:
    text = (
        "class Session:\n"
        "    def __init__(self):\n"
        "        #: Maximum number of redirects allowed; over this limit an error is raised.\n"
        "        self.max_redirects = DEFAULT_REDIRECT_LIMIT\n"
        "        #: Trust environment settings for proxy configuration.\n"
        "        self.trust_env = True\n"
        "        self.cookies = {}\n"
        "DEFAULT_REDIRECT_LIMIT = 30\n"
    )
    limit = [frozenset({"limit", "restrict"}), frozenset({"number"}), frozenset({"redirect"})]
    found = sorted(settings_in("sessions.py", text, 1, limit), key=lambda s: -s.score)
    assert [s.name for s in found[:2]] == ["max_redirects", "DEFAULT_REDIRECT_LIMIT"]
    assert (found[0].start_line, found[0].end_line) == (3, 4)
    # "env" in a name is the question's "environment"; an undocumented attribute is no setting
    env = [frozenset({"environment"}), frozenset({"proxy"}), frozenset({"settings"})]
    (trust,) = [s for s in settings_in("sessions.py", text, 1, env) if s.name == "trust_env"]
    assert trust.score >= 4
    assert not [s for s in settings_in("sessions.py", text, 1, [frozenset({"cookies"})])]


def test_an_express_style_default_is_a_setting_and_a_map_write_is_not() -> None:
    text = (
        "app.defaultConfiguration = function () {\n"
        "  this.enable('x-powered-by');\n"
        "  this.set('etag', 'weak');\n"
        "  this.set('trust proxy', false);\n"
        "  cache.set('trust proxy', 1);\n"
        "};\n"
    )
    concepts = [frozenset({"trust"}), frozenset({"proxy"}), frozenset({"forwarded"})]
    found = sorted(settings_in("lib/application.js", text, 1, concepts), key=lambda s: -s.score)
    assert (found[0].name, found[0].start_line) == ("trust proxy", 4)
    assert [s.start_line for s in found if s.name == "trust proxy"] == [4]


def test_a_documented_rust_builder_method_is_a_setting() -> None:
    text = (
        "impl WalkDir {\n"
        "    /// Follow symbolic links. By default, this is disabled.\n"
        "    pub fn follow_links(mut self, yes: bool) -> Self {\n"
        "        self.opts.follow_links = yes;\n"
        "        self\n"
        "    }\n"
        "    pub fn helper(&self, yes: bool) -> bool {\n"
        "        yes\n"
        "    }\n"
        "}\n"
    )
    concepts = [frozenset({"follow"}), frozenset({"symbolic", "link", "symlink"})]
    (found,) = settings_in("src/lib.rs", text, 1, concepts)
    assert (found.name, found.start_line, found.end_line) == ("follow_links", 2, 3)


def test_a_command_line_option_is_a_setting_named_by_its_longest_flag() -> None:
    text = (
        "def pytest_addoption(parser):\n"
        "    group.addoption(\n"
        '        "--lf",\n'
        '        "--last-failed",\n'
        '        action="store_true",\n'
        '        help="Rerun only the tests that failed at the last run",\n'
        "    )\n"
        "    group.addoption(\n"
        '        "--ff",\n'
        '        "--failed-first",\n'
        '        action="store_true",\n'
        '        help="Run all tests, but run the last failures first",\n'
        "    )\n"
        '    parser.addini("cache_dir", default=".cache", help="Cache directory path")\n'
        "    self._cache = {}\n"
    )
    first = [frozenset({"failed"}), frozenset({"last"}), frozenset({"first"}), frozenset({"run"})]
    best = max(settings_in("cache.py", text, 1, first), key=lambda s: s.score)
    assert (best.name, best.start_line, best.end_line) == ("failed-first", 8, 13)
    folder = [frozenset({"directory", "folder"}), frozenset({"cache"})]
    best = max(settings_in("cache.py", text, 1, folder), key=lambda s: s.score)
    assert (best.name, best.start_line) == ("cache_dir", 14)
    assert not [s for s in settings_in("cache.py", text, 1, folder) if s.name == "_cache"]


def test_the_setting_s_documentation_is_quoted_from_its_code_block(rs: Ragstrata) -> None:
    result = rs.ask("How do I change the port the server listens on?")
    docs = [c for c in result.answer.citations if c.path == "README.md"]
    assert docs and docs[0].start_line == _line_of(rs, "README.md", "```ruby")


RETRY_CLIENT = {
    "go.mod": "module example.com/fetcher\n\ngo 1.22\n",
    "client.go": """
        package fetcher

        const (
            defaultRetryWaitMin = 1
            defaultRetryWaitMax = 30
            defaultRetryMax     = 4
        )

        // Client retries failed requests.
        type Client struct {
            RetryMax int
        }

        // Do sends the request, again after a failure while attempts remain.
        func (c *Client) Do(send func() error) error {
            var err error
            for i := 0; i <= c.RetryMax; i++ {
                if err = send(); err == nil {
                    return nil
                }
            }
            return err
        }
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        "How many times does it retry a request by default?",
        "Сколько раз он повторяет запрос по умолчанию?",
    ],
)
def test_a_default_a_module_declares_answers_what_it_is_by_default(
    tmp_path: Path, question: str
) -> None:
    with indexed(tmp_path, RETRY_CLIENT) as repo:
        cited = repo.ask(question).answer.citations[0]
    assert (cited.path, cited.start_line) == ("client.go", 6)
