"""Against real code: installed packages' source, checked against Python's own ``ast``."""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

import pytest

from ragstrata.core.rows import DefinitionRow, RelationRow, Row, SourceFile
from ragstrata.ingest.code import extract_code
from ragstrata.relations.resolve import resolve_relations

STDLIB = Path(json.__file__).resolve().parent.parent


def _site_packages(module: str) -> Path:
    mod = pytest.importorskip(module)
    assert mod.__file__ is not None
    return Path(mod.__file__).resolve().parent.parent


def _package_rows(root: Path, package: str) -> tuple[dict[str, str], list[Row]]:
    texts: dict[str, str] = {}
    rows: list[Row] = []
    for path in sorted((root / package).rglob("*.py")):
        raw = path.read_bytes()
        text = raw.decode("utf-8")
        rel = path.relative_to(root).as_posix()
        texts[rel] = text
        file = SourceFile(
            path=rel,
            language="python",
            is_test=False,
            is_doc=False,
            size=len(raw),
            mtime_ns=0,
            sha256=hashlib.sha256(raw).hexdigest(),
            text=text,
        )
        rows.extend(extract_code(file))
    assert texts, f"no Python files under {root / package}"
    return texts, rows


def _ast_definitions(text: str, module: str) -> set[tuple[str, str, int]]:
    """(qualified name, name, lineno) of every def/class, as ``ast`` sees them."""
    found: set[tuple[str, str, int]] = set()

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                qualified = f"{prefix}.{child.name}"
                found.add((qualified, child.name, child.lineno))
                visit(child, qualified)
            else:
                visit(child, prefix)

    visit(ast.parse(text), module)
    return found


def _module_name(rel: str) -> str:
    parts = rel.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


CASES = [
    ("stdlib", "json"),
    ("stdlib", "email"),
    ("stdlib", "http"),
    ("pathspec", "pathspec"),
    ("markdown_it", "markdown_it"),
]


def _root(kind: str) -> Path:
    return STDLIB if kind == "stdlib" else _site_packages(kind)


@pytest.fixture(scope="module")
def ingested() -> dict[str, tuple[dict[str, str], list[Row]]]:
    out = {}
    for kind, package in CASES:
        texts, rows = _package_rows(_root(kind), package)
        defs = [r for r in rows if isinstance(r, DefinitionRow)]
        rels = [r for r in rows if isinstance(r, RelationRow)]
        resolved = resolve_relations(defs, rels)
        out[package] = (texts, [*defs, *resolved])
    return out


@pytest.mark.slow
@pytest.mark.parametrize("package", [p for _, p in CASES])
def test_every_ast_definition_is_a_c1_row(ingested, package):
    texts, rows = ingested[package]
    defs = [r for r in rows if isinstance(r, DefinitionRow)]
    for rel, text in texts.items():
        want = _ast_definitions(text, _module_name(rel))
        mine = [d for d in defs if d.path == rel and d.kind in {"class", "function", "method"}]
        got = {(d.symbol, d.name, d.start_line) for d in mine}
        assert want <= got, f"{rel}: missing {sorted(want - got)[:5]}"
        assert len(mine) == len(want), f"{rel}: extra {sorted(got - want)[:5]}"


@pytest.mark.parametrize("package", [p for _, p in CASES])
def test_definition_rows_are_faithful_to_the_source(ingested, package):
    texts, rows = ingested[package]
    for d in rows:
        if not isinstance(d, DefinitionRow) or d.kind == "module":
            continue
        lines = texts[d.path].splitlines()
        assert d.text.splitlines()[0] == lines[d.start_line - 1]
        assert d.text.rstrip().splitlines()[-1] == lines[d.end_line - 1].rstrip()
        if d.kind in {"function", "method"}:
            assert d.signature.startswith(("def ", "async def ")), d.signature


def _relation(rows, relation, source, to_name) -> RelationRow:
    for r in rows:
        if (
            isinstance(r, RelationRow)
            and r.relation == relation
            and r.from_symbol == source
            and r.to_name == to_name
        ):
            return r
    raise AssertionError(f"no {relation} {source} -> {to_name}")


def _line_of(text: str, anchor: str, needle: str) -> int:
    start = text.index(anchor)
    return text[: text.index(needle, start)].count("\n") + 1


KNOWN = [
    # (package, relation, from_symbol, to_name, to_symbol, (file, anchor, text on that line)):
    # the line is the first one holding the text after the anchor (both read from the source)
    ("json", "imports", "json", ".decoder.JSONDecoder", "json.decoder.JSONDecoder",
     ("json/__init__.py", "", "from .decoder import JSONDecoder")),
    ("json", "calls", "json.load", "loads", "json.loads",
     ("json/__init__.py", "def load(", "return loads(")),
    ("json", "calls", "json.decoder.JSONDecoder.decode", "self.raw_decode",
     "json.decoder.JSONDecoder.raw_decode", ("json/decoder.py", "def decode(", "self.raw_decode(")),
    ("json", "inherits", "json.decoder.JSONDecodeError", "ValueError", None,
     ("json/decoder.py", "", "class JSONDecodeError(ValueError):")),
    ("json", "imports", "json.decoder", "json.scanner", "json.scanner",
     ("json/decoder.py", "", "from json import scanner")),
    ("http", "calls", "http.client.HTTPConnection.request", "self._send_request",
     "http.client.HTTPConnection._send_request",
     ("http/client.py", "    def request(", "self._send_request(")),
    ("email", "imports", "email.message_from_string", "email.parser.Parser",
     "email.parser.Parser", ("email/__init__.py", "def message_from_string(", "from email.parser import Parser")),
    ("pathspec", "calls", "pathspec.pathspec.PathSpec.match_file", "normalize_file",
     "pathspec.util.normalize_file",
     ("pathspec/pathspec.py", "def match_file(", "normalize_file(")),
    ("markdown_it", "calls", "markdown_it.main.MarkdownIt.render", "self.parse",
     "markdown_it.main.MarkdownIt.parse",
     ("markdown_it/main.py", "def render(", "self.parse(")),
    ("markdown_it", "imports", "markdown_it.main", ".token.Token", "markdown_it.token.Token",
     ("markdown_it/main.py", "", "from .token import Token")),
]  # fmt: skip


@pytest.mark.parametrize(("package", "relation", "source", "to_name", "to_symbol", "site"), KNOWN)
def test_known_relations_are_found_and_resolved(
    ingested, package, relation, source, to_name, to_symbol, site
):
    texts, rows = ingested[package]
    path, anchor, needle = site
    found = _relation(rows, relation, source, to_name)
    assert found.to_symbol == to_symbol
    assert found.path == path
    assert found.line == _line_of(texts[path], anchor, needle)


def test_module_docstrings_become_module_rows(ingested):
    texts, rows = ingested["json"]
    module = next(r for r in rows if isinstance(r, DefinitionRow) and r.symbol == "json")
    assert module.kind == "module"
    assert module.docstring == ast.get_docstring(ast.parse(texts["json/__init__.py"]))


def test_docstrings_match_ast(ingested):
    texts, rows = ingested["json"]
    tree = ast.parse(texts["json/decoder.py"])
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "JSONDecoder")
    row = next(
        r for r in rows if isinstance(r, DefinitionRow) and r.symbol == "json.decoder.JSONDecoder"
    )
    assert row.docstring == ast.get_docstring(cls)
