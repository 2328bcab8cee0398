"""The symbol resolver's precedence, forms, scope and thresholds, and the row reader, on a
small repository ingested into a real SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ragstrata.core.values import CatalogEntry, SearchFilters, SymbolMode
from ragstrata.relations.repository import ingest_repository
from ragstrata.retrieve.reader import IndexReader
from ragstrata.retrieve.resolve import SymbolResolver, parse_name
from ragstrata.retrieve.rows import file_row, file_text, outline, rows_by_path, sections
from ragstrata.settings import IndexSettings
from ragstrata.store.sqlite import SQLiteStore

README = "# Guide\n\n" + "".join(
    f"## Part {i}\n\n" + ("" if i < 55 else f"Body of part {i}.\n\n") for i in range(60)
)
PYPROJECT = (
    '[project]\nname = "demo"\nversion = "1.2.3"\ndescription = "A demo"\n\n'
    + "".join(f'[tool.section{i}]\nkey{i} = "{"x" * 60}"\n\n' for i in range(80))
    + '[project.scripts]\ndemo = "app.cli:main"\n'
)
FILES = {
    "app/parse.py": '''"""Parsing."""


class Parser:
    """Parses text."""

    def run(self, text):
        return helper(text)


def parser(text):
    """A function named like the class, in another case."""
    return Parser().run(text)


def helper(text):
    return text
''',
    "app/other.py": """def helper(text):
    return text.strip()


def http_client():
    return None
""",
    "tests/test_parse.py": """from app.parse import Parser, parser


def test_run():
    assert Parser().run("x") == "x"


def helper(x):
    return parser(x)
""",
    "README.md": README,
    "pyproject.toml": PYPROJECT,
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SQLiteStore]:
    root = tmp_path_factory.mktemp("repo")
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    result = ingest_repository(root, IndexSettings())
    s = SQLiteStore(Path(root) / ".ragstrata" / "index.sqlite")
    s.replace_files(
        [
            (CatalogEntry(f.file.path, f.file.mtime_ns, f.file.size, f.file.sha256), f.rows)
            for f in result.files
        ]
    )
    yield s
    s.close()


def _lead(store: SQLiteStore, name: str, **kw: object) -> tuple[str | None, str | None]:
    match = SymbolResolver(store).resolve(name, **kw)  # type: ignore[arg-type]
    best = match.best
    return (match.mode.value if match.mode else None), (best.symbol if best else None)


@pytest.mark.parametrize(
    ("name", "mode", "symbol"),
    [
        ("Parser", "exact", "app.parse.Parser"),  # exact case first ...
        ("parser", "exact", "app.parse.parser"),  # ... among case-insensitive equals
        ("PARSER", "exact", "app.parse.Parser"),  # neither: non-module, then path and line
        ("app.parse.Parser.run", "qualified", "app.parse.Parser.run"),
        ("Parser.run", "suffix", "app.parse.Parser.run"),
        ("Parser::run", "suffix", "app.parse.Parser.run"),
        ("Parser#run", "suffix", "app.parse.Parser.run"),
        ("`Parser.run()`", "suffix", "app.parse.Parser.run"),
        ("app/other.py:helper", "exact", "app.other.helper"),
        ("app/parse.py::helper", "exact", "app.parse.helper"),
        ("HttpClient", "fuzzy", "app.other.http_client"),  # same letters: found
    ],
)
def test_precedence_and_forms(store: SQLiteStore, name: str, mode: str, symbol: str) -> None:
    assert _lead(store, name) == (mode, symbol)


def test_exact_wins_over_suffix_and_non_test_over_test(store: SQLiteStore) -> None:
    match = SymbolResolver(store).resolve("helper")
    assert match.mode is SymbolMode.EXACT
    symbols = [h.symbol for h in match.hits]
    # app code first (by path), the test helper last
    assert symbols == ["app.other.helper", "app.parse.helper", "tests.test_parse.helper"]


def test_parse_name() -> None:
    assert parse_name("a/b.py:func").path == "a/b.py"
    assert parse_name("a/b.py:func").name == "func"
    assert parse_name("main.go:Run").path == "main.go"
    assert parse_name("Class::method").path is None
    assert parse_name("Class::method").name == "Class::method"
    assert parse_name("pkg.mod:thing").path is None  # "mod" is no source-file extension
    assert parse_name(" `charge()` ").name == "charge"


def test_scope_widen_and_is_test(store: SQLiteStore) -> None:
    r = SymbolResolver(store)
    inside = r.resolve("helper", SearchFilters(path_prefixes=("tests",)))
    assert [h.symbol for h in inside.hits] == ["tests.test_parse.helper"]
    # nothing named so under docs/: widened to the whole repository
    assert r.resolve("Parser", SearchFilters(path_prefixes=("docs",))).best is not None
    narrow = r.resolve("Parser", SearchFilters(path_prefixes=("docs",)), widen=False)
    assert not narrow.found
    no_tests = r.resolve("helper", SearchFilters(is_test=False))
    assert all(not h.row.is_test for h in no_tests.hits) and len(no_tests.hits) == 2
    # a file named with the name is never widened
    assert not r.resolve("app/other.py:Parser").found


def test_fuzzy_threshold_and_accept(store: SQLiteStore) -> None:
    typo = SymbolResolver(store).resolve("Parsre")
    assert typo.mode is SymbolMode.FUZZY and not typo.found and typo.definitions == ()
    assert "parser" in {h.row.name.lower() for h in typo.candidates}  # type: ignore[union-attr]
    assert typo.best is None
    lenient = SymbolResolver(store, accept=0.7).resolve("Parsre")
    assert lenient.found and lenient.best is not None
    strict = SymbolResolver(store, threshold=0.99).resolve("Parsre")
    assert strict.mode is None and not strict.hits
    with pytest.raises(ValueError, match="threshold"):
        SymbolResolver(store, threshold=2.0)


def test_references(store: SQLiteStore) -> None:
    refs = SymbolResolver(store).references("Parser.run")
    assert refs.symbol == "app.parse.Parser.run"
    callers = {h.row.from_symbol for h in refs.callers}  # type: ignore[union-attr]
    assert {"app.parse.parser", "tests.test_parse.test_run"} <= callers
    assert {h.row.path for h in refs.tests} == {"tests/test_parse.py"}
    callees = {h.row.to_symbol for h in refs.callees}  # type: ignore[union-attr]
    assert callees == {"app.parse.helper"}
    unknown = SymbolResolver(store).references("no_such_name_at_all")
    assert unknown.symbol == "no_such_name_at_all" and not unknown.callers


def test_row_reader_reads_whole_files(store: SQLiteStore) -> None:
    # every section, not the top 50 of a search: the bodies start at part 55
    found = sections(store, "README.md")
    assert len(found) == 61  # "# Guide" and 60 parts
    assert [s.start_line for s in found] == sorted(s.start_line for s in found)
    assert "Body of part 59." in found[-1].text
    # a manifest read whole, as the file it is (many chunks, none of them skipped)
    assert file_text(store, "pyproject.toml") == PYPROJECT.rstrip("\n")
    defs = outline(store, "app/parse.py")
    assert [d.symbol for d in defs] == [
        "app.parse",
        "app.parse.Parser",
        "app.parse.Parser.run",
        "app.parse.parser",
        "app.parse.helper",
    ]
    row = file_row(store, "app/parse.py")
    assert row is not None and "Parser" in row.symbols
    by_path = rows_by_path(store, ["C1"], ["app/other.py", "app/parse.py"])
    assert list(by_path) == ["app/other.py", "app/parse.py"]
    assert file_text(store, "nope.py") is None and outline(store, "nope.py") == []


def test_project_overview_reads_every_section_and_whole_manifests(store: SQLiteStore) -> None:
    from ragstrata.answer.graphs.messages import messages
    from ragstrata.answer.graphs.project_misc import ProjectMiscGraph
    from ragstrata.core.evidence import Evidence
    from ragstrata.query.router import Router

    plan = Router().plan("what is this project?", None, None)
    answer = ProjectMiscGraph(reader=IndexReader(store)).extractive(
        plan, Evidence(hits=(), requirements={}), messages("en")
    )
    # the first section with a body is the 56th: a top-50 listing never saw it
    assert "Body of part 55." in answer.text
    # name and version come from a manifest of ~80 tables, read as the whole file
    assert "demo" in answer.text and "1.2.3" in answer.text
    assert "app.cli:main" in answer.text
