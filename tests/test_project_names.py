"""The repository's own names and its dependencies are key terms, never a required symbol.

Manifests are parsed (``ingest/project.py``), the router turns the names into KEY_TERM anchors
of subtype ``project`` / ``package`` (schema 1.1 stays valid), and a question that names the
project is answered from the code, not with "No definition named <project>" — asked through
the facade on a small Rust crate (real SQLite, hash embedder).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from ragstrata.app.facade import Ragstrata
from ragstrata.ingest.project import parse_names, project_names
from ragstrata.query.models import router_plan_json_schema
from ragstrata.query.router import Router
from ragstrata.settings import Settings


# ---------------------------------------------------------------------- manifests
@pytest.mark.parametrize(
    ("path", "text", "names", "deps"),
    [
        (
            "go.mod",
            "module github.com/acme/router/v2\n\ngo 1.22\n\nrequire (\n"
            "\tgithub.com/json-iterator/go v1.1.12\n\tgolang.org/x/net v0.25.0 // indirect\n)\n"
            "require github.com/stretchr/testify v1.9.0\n",
            ["github.com/acme/router/v2"],
            ["github.com/json-iterator/go", "golang.org/x/net", "github.com/stretchr/testify"],
        ),
        (
            "package.json",
            json.dumps(
                {
                    "name": "@acme/kit",
                    "dependencies": {"chalk": "^5"},
                    "devDependencies": {"x": "1"},
                }
            ),
            ["@acme/kit"],
            ["chalk", "x"],
        ),
        (
            "pyproject.toml",
            '[project]\nname = "tiny-kit"\ndependencies = ["click>=8", "Jinja2 ; python_version>\'3\'"]\n'
            '[project.optional-dependencies]\ndotenv = ["python-dotenv"]\n',
            ["tiny-kit"],
            ["click", "Jinja2", "python-dotenv"],
        ),
        (
            "Cargo.toml",
            '[package]\nname = "fd-find"\n[lib]\nname = "fd_lib"\n[[bin]]\nname = "fd"\n'
            '[dependencies]\nregex-syntax = "0.8"\n[dev-dependencies]\ntempfile = "3"\n',
            ["fd-find", "fd_lib", "fd"],
            ["regex-syntax", "tempfile"],
        ),
        (
            "setup.cfg",
            "[metadata]\nname = oldkit\n[options]\ninstall_requires =\n    requests>=2\n    six\n",
            ["oldkit"],
            ["requests", "six"],
        ),
        (
            "setup.py",
            'from setuptools import setup\nsetup(name="pykit", install_requires=["attrs>=20"])\n',
            ["pykit"],
            ["attrs"],
        ),
        (
            "rack-kit.gemspec",
            'Gem::Specification.new do |s|\n  s.name = "rack-kit"\n'
            '  s.add_dependency "rack", "~> 3"\n  s.add_development_dependency("rspec")\nend\n',
            ["rack-kit"],
            ["rack", "rspec"],
        ),
        (
            "pom.xml",
            "<project><parent><artifactId>commons-parent</artifactId></parent>"
            "<artifactId>commons-lang3</artifactId><dependencies><dependency>"
            "<groupId>org.junit</groupId><artifactId>junit-jupiter</artifactId>"
            "</dependency></dependencies></project>",
            ["commons-lang3"],
            ["junit-jupiter"],
        ),
        ("package.json", "{not json", [], []),
        # where the repository is hosted: people name a project "owner/name"
        (
            "package.json",
            json.dumps({"name": "lru-kit", "repository": "git://github.com/acme/node-lru-kit.git"}),
            ["lru-kit", "acme/node-lru-kit"],
            [],
        ),
        (
            "package.json",
            json.dumps({"name": "kit", "repository": {"url": "https://gitlab.com/acme/kit-js"}}),
            ["kit", "acme/kit-js"],
            [],
        ),
        (
            "Cargo.toml",
            '[package]\nname = "flagset"\nrepository = "https://github.com/acme/flagset"\n',
            ["flagset", "acme/flagset"],
            [],
        ),
        (
            "pyproject.toml",
            '[project]\nname = "isokit"\n[project.urls]\nSource = "https://github.com/acme/isokit/"\n'
            'Docs = "https://isokit.example.org/"\n',
            ["isokit", "acme/isokit"],
            [],
        ),
    ],
)
def test_manifest_names_and_dependencies(
    path: str, text: str, names: list[str], deps: list[str]
) -> None:
    assert parse_names(path, text) == (names, deps)


def test_project_names_read_root_and_packages_not_tests_examples_or_private(
    tmp_path: Path,
) -> None:
    root = tmp_path / "kit@3f2a9c"
    files = {
        "package.json": '{"name": "kit-monorepo", "private": true}',
        "packages/kit/package.json": '{"name": "@kit/core", "dependencies": {"lodash": "4"}}',
        "packages/docs/package.json": '{"name": "@kit/docs-site", "private": true}',
        "examples/demo/package.json": '{"name": "demo-app"}',
        "tests/fixture/Cargo.toml": '[package]\nname = "fixture-crate"\n',
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    found = project_names(root, files)
    assert set(found.names) == {"kit-monorepo", "kit_monorepo", "@kit/core", "kit"}
    assert "lodash" in found.dependencies
    for name in ("demo-app", "fixture-crate", "@kit/docs-site", "docs-site", "core"):
        assert name not in found.names


def test_a_python_package_names_the_project_when_setup_py_reads_its_name_from_a_variable(
    tmp_path: Path,
) -> None:
    root = tmp_path / "checkout-46e939b5"
    files = {
        "setup.py": 'setup(name=about["__title__"], packages=["httpkit"])\n',
        "src/httpkit/__init__.py": "",
        "src/httpkit/sessions.py": "",
        "tests/__init__.py": "",
        "docs/conf.py": "",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    names = project_names(root, files).names
    assert "httpkit" in names and "tests" not in names
    many = {f"pkg{n}/__init__.py": "" for n in range(3)}  # a folder of packages names none
    assert not {"pkg0", "pkg1", "pkg2"} & set(project_names(root, many).names)


def test_a_go_module_path_names_the_project_as_owner_slash_name(tmp_path: Path) -> None:
    root = tmp_path / "checkout"
    root.mkdir()
    (root / "go.mod").write_text("module github.com/acme/color\n\ngo 1.22\n", encoding="utf-8")
    names = project_names(root, ["go.mod"]).names
    assert {"github.com/acme/color", "acme/color", "color"} <= set(names)
    for question in ("Как acme/color обрамляет текст?", "How does acme/color wrap text?"):
        plan = Router().route(question, None, project_names(root, ["go.mod"]).to_context())
        anchors = [(a["type"], a["value"], a["subtype"]) for a in plan["query_plan"]["anchors"]]
        assert anchors == [("KEY_TERM", "acme/color", "project")]


# ---------------------------------------------------------------------- router
CONTEXT = {"project_names": ["tiny-wrap", "tiny_wrap", "gin"], "dependencies": ["unicode-width"]}


@pytest.mark.parametrize(
    ("question", "term", "subtype"),
    [
        ("как tiny_wrap решает, где разбить длинную строку?", "tiny_wrap", "project"),
        ("How does tiny-wrap protect against deeply nested input?", "tiny-wrap", "project"),
        ("как gin выбирает обработчик для пути?", "gin", "project"),
        ("How does Gin match a route?", "Gin", "project"),
        ("Does the crate use unicode-width for wide characters?", "unicode-width", "package"),
    ],
)
def test_project_and_dependency_names_are_key_terms_not_symbols(
    question: str, term: str, subtype: str
) -> None:
    plan = Router().route(question, None, CONTEXT)
    jsonschema.validate(plan, router_plan_json_schema())
    anchors = plan["query_plan"]["anchors"]
    assert not [a for a in anchors if a["type"] == "SYMBOL"]
    [found] = [a for a in anchors if a["subtype"] in ("project", "package")]
    assert (found["type"], found["value"], found["subtype"]) == ("KEY_TERM", term, subtype)
    span = found["span"]
    assert question[span["start"] : span["end"]] == term


@pytest.mark.parametrize(
    ("question", "symbol"),
    [
        ("where is the `gin` function defined?", "gin"),
        ("what does gin() return?", "gin"),
        ("где определена функция gin?", "gin"),
        ("what does gin.Default do?", "gin.Default"),
    ],
)
def test_a_project_name_written_as_code_stays_a_symbol(question: str, symbol: str) -> None:
    plan = Router().route(question, None, CONTEXT)
    symbols = [a["value"] for a in plan["query_plan"]["anchors"] if a["type"] == "SYMBOL"]
    assert symbol in [s.strip("`()") for s in symbols]
    assert not [a for a in plan["query_plan"]["anchors"] if a["subtype"] == "project"]


@pytest.mark.parametrize(
    ("question", "symbols"),
    [
        # an English phrase inside Russian text names a notion, not a definition
        ("Как class-based view выбирает метод-обработчик?", []),
        ("Как работает dependency injection в проекте?", []),
        # a Latin word alone among Russian ones may still be a name
        ("Как работает dispatch в проекте?", ["dispatch"]),
        ("Что делает view, когда метода нет?", ["view"]),
    ],
)
def test_a_latin_word_of_an_english_phrase_in_russian_text_is_no_symbol(
    question: str, symbols: list[str]
) -> None:
    plan = Router().route(question)
    anchors = plan["query_plan"]["anchors"]
    assert [a["value"] for a in anchors if a["type"] == "SYMBOL"] == symbols


def test_without_repo_context_nothing_changes() -> None:
    plan = Router().route("how does tiny_wrap split lines?")
    assert [a["value"] for a in plan["query_plan"]["anchors"] if a["type"] == "SYMBOL"] == [
        "tiny_wrap"
    ]


# ---------------------------------------------------------------------- end to end
CRATE = {
    "Cargo.toml": """
        [package]
        name = "tiny-wrap"
        version = "0.1.0"

        [lib]
        name = "tiny_wrap"
        path = "src/lib.rs"

        [dependencies]
        unicode-width = "0.1"
        """,
    "README.md": """
        # tiny-wrap

        tiny-wrap wraps long lines of text at word boundaries. Add `tiny_wrap` to your
        Cargo.toml and call `wrap_line`.
        """,
    "src/lib.rs": """
        //! Wraps long lines of text at word boundaries.
        pub mod nesting;

        /// Splits a long line into lines no wider than `width`, breaking each at a space.
        pub fn wrap_line(line: &str, width: usize) -> Vec<String> {
            let mut out = Vec::new();
            let mut rest = line;
            while rest.len() > width {
                let at = find_break(rest, width);
                out.push(rest[..at].to_string());
                rest = rest[at..].trim_start();
            }
            out.push(rest.to_string());
            out
        }

        /// Where a long line is broken: the last space before `width`, else at `width`.
        fn find_break(line: &str, width: usize) -> usize {
            line[..width].rfind(' ').unwrap_or(width)
        }
        """,
    "src/nesting.rs": """
        /// The deepest bracket nesting accepted before parsing stops.
        pub const MAX_DEPTH: usize = 64;

        /// Rejects deeply nested input: counts open brackets and fails past MAX_DEPTH.
        pub fn check_nesting(input: &str) -> Result<usize, String> {
            let mut depth = 0;
            for c in input.chars() {
                if c == '[' {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err(format!("nested deeper than {}", MAX_DEPTH));
                    }
                } else if c == ']' {
                    depth -= 1;
                }
            }
            Ok(depth)
        }
        """,
}


@pytest.fixture(scope="module")
def crate(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ragstrata]:
    root = tmp_path_factory.mktemp("crate")
    for rel, text in CRATE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    rs = Ragstrata(root, Settings())  # the packaged model: which code leads is its business
    rs.index()
    yield rs
    rs.close()


def test_repo_context_comes_from_the_index(crate: Ragstrata) -> None:
    context = crate.repo_context()
    assert {"tiny-wrap", "tiny_wrap"} <= set(context["project_names"])
    assert "unicode-width" in context["dependencies"]
    plan = crate.route("how does tiny_wrap break lines?")
    assert [a["subtype"] for a in plan["query_plan"]["anchors"] if a["value"] == "tiny_wrap"] == [
        "project"
    ]


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("как tiny_wrap решает, где разбить длинную строку?", "src/lib.rs"),
        ("How does tiny_wrap decide where to break a long line?", "src/lib.rs"),
        ("How does tiny-wrap protect against deeply nested input?", "src/nesting.rs"),
        # which code leads a plain-words question is retrieval's business; here: no "not found"
        ("как tiny_wrap защищается от глубоко вложенного ввода?", None),
        # a Latin word in a Russian question that names no definition is looked up, not
        # declared missing: the code that writes it answers
        ("как в tiny_wrap работает depth?", "src/nesting.rs"),
        ("где в коде проверяется depth?", "src/nesting.rs"),
    ],
)
def test_naming_the_project_is_never_a_missing_definition(
    crate: Ragstrata, question: str, path: str | None
) -> None:
    result = crate.ask(question)
    answer = result.answer
    assert answer.status == "answered", answer.text
    assert "require_def" not in result.evidence.missing
    for phrase in ("not found", "не найден", "No definition", "нет определения"):
        assert phrase not in answer.lead
        assert phrase not in answer.footer
    assert answer.citations and path in (None, answer.citations[0].path)


def test_a_name_that_exists_nowhere_is_still_not_found(crate: Ragstrata) -> None:
    result = crate.ask("Where is QuantumLedgerFactory defined in tiny_wrap?")
    assert result.answer.status == "not_found"
    assert "QuantumLedgerFactory" in result.answer.lead
    assert "no definition named `QuantumLedgerFactory`" in result.answer.footer
