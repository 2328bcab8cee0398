"""Generated pages over real indexes: members defined in other files (Go receivers, reopened
Ruby classes), module docs per language read from the files, doc comments converted, Russian
pages, precise vs possible relations, deprecations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from answer_fixture import load_store, write_repo
from docgen_fixture import write_polyglot
from ragstrata.answer.docs.targets import build_docs
from ragstrata.retrieve.reader import IndexReader
from ragstrata.store.sqlite import SQLiteStore


@pytest.fixture(scope="module")
def poly(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SQLiteStore, Path]]:
    root = write_polyglot(tmp_path_factory.mktemp("poly"))
    store = load_store(root)
    yield store, root
    store.close()


@pytest.fixture(scope="module")
def payments(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SQLiteStore]:
    store = load_store(write_repo(tmp_path_factory.mktemp("pay")))
    yield store
    store.close()


def page(poly: tuple[SQLiteStore, Path], target: str, language: str = "en") -> str:
    store, root = poly
    return build_docs(
        target, reader=IndexReader(store), language=language, read=lambda p: (root / p).read_text()
    ).markdown


def test_go_file_of_methods_of_a_type_declared_elsewhere(poly: tuple[SQLiteStore, Path]) -> None:
    md = page(poly, "server/handlers.go")
    assert "No public definitions" not in md
    assert "### Methods of `server.Server` (the type is declared in `server/types.go:5`)" in md
    assert "#### Method `Serve`" in md and "#### Method `Run`" in md
    assert "listen" not in md.split("## Relations")[0]  # private method left out


def test_go_type_lists_its_methods_from_other_files(poly: tuple[SQLiteStore, Path]) -> None:
    md = page(poly, "server/types.go")
    section = md.split("### Struct `Server`")[1].split("## Relations")[0]
    assert "- `func (s *Server) Run() error` — Run runs it. (`server/handlers.go:15-17`)" in (
        section
    )
    assert "`func (s *Server) Serve() error` *(deprecated)*" in section


def test_ruby_class_reopened_in_another_file(poly: tuple[SQLiteStore, Path]) -> None:
    extra = page(poly, "lib/app/extra.rb")
    assert "No public definitions" not in extra
    assert "- `def helper; end` — An extra helper. (`lib/app/extra.rb:4`)" in extra
    assert "run" not in extra.split("## Relations")[0]  # base.rb's method stays on its page
    base = page(poly, "lib/app/base.rb")
    assert "#### Class `Base`" in base and "Parameters:\n\n- `port` — (Integer) the port" in base


@pytest.mark.parametrize(
    ("target", "overview", "cite"),
    [
        ("server", "Package server serves things.", "server/types.go:1"),
        ("src", "Finds entries in a tree.", "src/lib.rs:1"),
        ("ts/util.ts", "Small numeric utilities.", "ts/util.ts:1"),
        ("java/com/x", "Text utilities, see `com.x.Text`.", "java/com/x/package-info.java:1-3"),
    ],
    ids=["go-package-comment", "rust-crate-doc", "jsdoc-fileoverview", "java-package-info"],
)
def test_module_docs_per_language(
    poly: tuple[SQLiteStore, Path], target: str, overview: str, cite: str
) -> None:
    md = page(poly, target)
    body = md.split("## Overview\n\n", 1)[1]
    assert body.startswith(overview + "\n\n*`" + cite + "`*")


def test_one_modules_header_is_not_its_packages_overview(poly: tuple[SQLiteStore, Path]) -> None:
    # ts/util.ts documents itself; the folder `ts` has no index.ts and no README
    md = page(poly, "ts")
    assert md.split("## Overview\n\n", 1)[1].startswith(
        "The module has no documentation comment of its own."
    )
    assert "- `ts/util.ts` — Small numeric utilities." in md  # the file's own line keeps it


def test_doc_comments_converted_in_pages(poly: tuple[SQLiteStore, Path]) -> None:
    java = page(poly, "java/com/x")
    for raw in ("<p>", "<pre>", "{@link", "{@code"):
        assert raw not in java
    assert "Text helpers." in java
    assert '```\nText.isEmpty("") = true\n```' in java
    assert "- `s` — the text, may be `null`" in java and "Returns: `true` when empty" in java
    ts = page(poly, "ts/util.ts")
    assert "- `a` — (number) the first" in ts and "Returns: the sum" in ts
    assert "```\n// one plus two\nadd(1, 2);\n```" in ts  # comment inside @example kept


def test_deprecation_shown(poly: tuple[SQLiteStore, Path]) -> None:
    md = page(poly, "server.Server.Serve")
    assert md.startswith("# Method `server.Server.Serve`")
    assert "**Deprecated.** use Run." in md
    listed = page(poly, "server/handlers.go").split("## Deprecated\n\n", 1)[1]
    assert listed.startswith("- `server.Server.Serve` (`server/handlers.go:6-8`) — use Run.\n")


def test_a_test_that_uses_it_is_never_denied(poly: tuple[SQLiteStore, Path]) -> None:
    md = page(poly, "server.Server.Serve")
    examples = md.split("## Examples from tests", 1)[1]
    assert "No test calls it" not in examples
    # `s := &Server{}; s.Serve()`: the receiver's type is known, so the test is quoted
    assert "`server/server_test.go:5-8` — `server.TestServe`" in examples
    assert "7 | \ts.Serve()" in examples


def test_precise_and_possible_relations_apart(payments: SQLiteStore) -> None:
    md = build_docs("payments.gateway.Gateway.send", reader=IndexReader(payments)).markdown
    relations = md.split("## Relations", 1)[1].split("## Examples", 1)[0]
    assert "Used by:" not in relations  # `gateway.send(amount)`: the receiver is not typed
    assert "Possibly used by" in relations and "`payments.gateway.charge`" in relations
    validate = build_docs("payments.gateway.validate", reader=IndexReader(payments)).markdown
    used = validate.split("Used by:", 1)[1].split("##", 1)[0]
    assert "- `payments.gateway.Gateway.send` (`src/payments/gateway.py:14`)" in used


def test_russian_page_translates_labels_not_identifiers(payments: SQLiteStore) -> None:
    md = build_docs("src/payments/gateway.py", reader=IndexReader(payments), language="ru").markdown
    assert md.startswith("# Модуль `src/payments/gateway.py`\n\n## Обзор\n\nTalks to the")
    for heading in (
        "## Публичный API",
        "### Класс `Gateway`",
        "### Функция `charge`",
        "## Диаграмма",
        "## Связи",
        "## Примеры из тестов",
        "Методы:",
    ):
        assert heading in md
    for english in ("Public API", "Relations", "Examples from tests", "Methods:", "Overview"):
        assert english not in md
    assert "def charge(gateway, amount):" in md  # code unchanged


def test_diagram_draws_only_resolved_calls(payments: SQLiteStore) -> None:
    md = build_docs("src/payments/gateway.py", reader=IndexReader(payments)).markdown
    mermaid = md.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert 'n0["Gateway"]' in mermaid and 'n1("validate")' in mermaid
    assert "n0 --> n1" in mermaid  # Gateway.send -> validate, resolved
    assert "charge" not in mermaid  # charge -> gateway.send is a name-only match
