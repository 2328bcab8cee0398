"""The small corpus the store conformance suite loads, and helpers to load and embed it.

:func:`sample_batch` covers every layer, Python and JavaScript code, a test file, and English
and Russian docs; vectors come from ``HashEmbedder`` (:data:`FP` is its fingerprint).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragstrata.core.rows import (
    ChunkRow,
    DefinitionRow,
    DocFileRow,
    FileRow,
    Layer,
    RelationRow,
    Row,
    SectionRow,
    content_hash,
    row_id,
)
from ragstrata.core.values import CatalogEntry
from ragstrata.store.protocols import Store
from ragstrata.testing.fakes import HashEmbedder

__all__ = [
    "FP",
    "PARSE_SOURCE",
    "chunk_row",
    "embed_all",
    "entry",
    "hit_paths",
    "hit_symbols",
    "http_rows",
    "sample_batch",
]

FP = HashEmbedder(dimensions=64).fingerprint

_HTTP_CLASS = '''class HttpClient:
    """Sends HTTP requests with retries and a connection pool."""

    def get(self, url):
        return self._send("GET", parse_query(url))
'''
PARSE_SOURCE = '''def parse_query(text):
    """Split a query string into key/value pairs."""
    return dict(p.split("=") for p in text.split("&"))
'''
_MAIN = """def main(url):
    http_client = HttpClient()
    return http_client.get(url)
"""
_TEST = """def test_parse_query():
    assert parse_query("a=1&b=2") == {"a": "1", "b": "2"}
"""
_JS = """function fetchData(url) {
  return fetch(url).then((r) => r.json());
}
"""
_RU = "Чтобы настроить клиента, отредактируйте файлы конфигурации и перезапустите сервис."
_EN = "Use the HTTP client to send requests; retries are automatic. Ünïcödé ✓ 🚀"


def entry(path: str, version: str = "1") -> CatalogEntry:
    """A catalog entry whose hash changes with ``version``."""
    return CatalogEntry(
        path, mtime_ns=1_700_000_000_000_000_000, size=100, sha256=content_hash(path + version)
    )


def _base(
    layer: Layer, path: str, start: int, end: int, key: str, lang: str, test: bool
) -> dict[str, Any]:
    return {
        "id": row_id(layer, path, start, end, key),
        "path": path,
        "language": lang,
        "is_test": test,
        "start_line": start,
        "end_line": end,
        "content_hash": content_hash(key),
    }


def _definition(
    path: str,
    lang: str,
    symbol: str,
    text: str,
    start: int,
    test: bool = False,
    doc: str | None = None,
    kind: str = "function",
    parent: str | None = None,
) -> DefinitionRow:
    lines = text.splitlines()
    end = start + len(lines) - 1
    name = symbol.rsplit(".", 1)[-1]
    return DefinitionRow(
        **_base(Layer.C1, path, start, end, symbol + text, lang, test),
        kind=kind, name=name, symbol=symbol, signature=lines[0], docstring=doc, parent=parent, text=text,
    )  # fmt: skip


def _call(
    path: str,
    lang: str,
    src: str,
    to_name: str,
    to_symbol: str | None,
    line: int,
    test: bool = False,
    relation: str = "calls",
) -> RelationRow:
    key = f"{src}>{relation}>{to_name}"
    return RelationRow(
        **_base(Layer.C2, path, line, line, key, lang, test),
        relation=relation, from_symbol=src, to_name=to_name, to_symbol=to_symbol, line=line,
    )  # fmt: skip


def chunk_row(
    path: str,
    lang: str,
    text: str,
    start: int,
    layer: Layer = Layer.C3,
    test: bool = False,
    symbol: str | None = None,
    heading: str | None = None,
) -> ChunkRow:
    end = start + text.count("\n")
    return ChunkRow(
        **_base(layer, path, start, end, text, lang, test),
        layer=layer, end_offset=len(text), text=text, symbol=symbol, heading_path=heading,
    )  # fmt: skip


def http_rows(
    with_parse: bool = True, doc: str = "Sends HTTP requests with retries and a connection pool."
) -> list[Row]:
    p, lang = "src/app/http.py", "python"
    cls_text = _HTTP_CLASS.replace("Sends HTTP requests with retries and a connection pool.", doc)
    rows: list[Row] = [
        FileRow(**_base(Layer.C0, p, 1, 12, p, lang, False), size=300, symbols=("HttpClient", "parse_query")),
        _definition(p, lang, "app.http.HttpClient", cls_text, 1, doc=doc, kind="class"),
        _definition(p, lang, "app.http.HttpClient.get", cls_text.split("\n\n", 1)[1].strip("\n"), 4, kind="method", parent="app.http.HttpClient"),
        _call(p, lang, "app.http.HttpClient.get", "parse_query", "app.http.parse_query" if with_parse else None, 5),
        chunk_row(p, lang, cls_text, 1, symbol="app.http.HttpClient"),
    ]  # fmt: skip
    if with_parse:
        rows += [_definition(p, lang, "app.http.parse_query", PARSE_SOURCE, 8, doc="Split a query string into key/value pairs."),
                 chunk_row(p, lang, PARSE_SOURCE, 8, symbol="app.http.parse_query")]  # fmt: skip
    return rows


def sample_batch() -> list[tuple[CatalogEntry, list[Row]]]:
    """Five files: Python code, a Python test, JavaScript, and a Russian + English doc."""
    cli, test, js, doc = "src/app/cli.py", "tests/test_http.py", "web/app.js", "docs/guide.md"
    return [
        (entry("src/app/http.py"), http_rows()),
        (entry(cli), [
            FileRow(**_base(Layer.C0, cli, 1, 3, cli, "python", False), size=80, symbols=("main",), imports=("app.http",)),
            _definition(cli, "python", "app.cli.main", _MAIN, 1),
            _call(cli, "python", "app.cli.main", "HttpClient", "app.http.HttpClient", 2),
            _call(cli, "python", "app.cli.main", "http_client.get", None, 3),
            _call(cli, "python", "app.cli", "app.http", "app.http", 1, relation="imports"),
            chunk_row(cli, "python", _MAIN, 1, symbol="app.cli.main"),
        ]),
        (entry(test), [
            _definition(test, "python", "tests.test_http.test_parse_query", _TEST, 1, test=True),
            _call(test, "python", "tests.test_http.test_parse_query", "parse_query", "app.http.parse_query", 2, test=True),
            chunk_row(test, "python", _TEST, 1, test=True, symbol="tests.test_http.test_parse_query"),
        ]),
        (entry(js), [
            _definition(js, "javascript", "web.app.fetchData", _JS, 1),
            chunk_row(js, "javascript", _JS, 1, symbol="web.app.fetchData"),
        ]),
        (entry(doc), [
            DocFileRow(**_base(Layer.D0, doc, 1, 9, doc, "markdown", False), title="Руководство", outline=("Руководство > Установка", "Руководство > Usage")),
            SectionRow(**_base(Layer.D1, doc, 3, 5, _RU, "markdown", False), heading_path="Руководство > Установка", title="Установка", slug="установка", level=2, text=_RU),
            SectionRow(**_base(Layer.D1, doc, 7, 9, _EN, "markdown", False), heading_path="Руководство > Usage", title="Usage", slug="usage", level=2, text=_EN),
            chunk_row(doc, "markdown", _EN, 7, layer=Layer.D2, heading="Руководство > Usage"),
        ]),
    ]  # fmt: skip


def embed_all(store: Store, embedder: HashEmbedder | None = None, batch: int = 3) -> int:
    """Fill every pending vector of ``embedder`` (default 64-dim HashEmbedder); returns count."""
    embedder = embedder or HashEmbedder(dimensions=64)
    done = 0
    while pending := store.pending_vectors(embedder.fingerprint, limit=batch):
        vectors = embedder.embed_documents([p.text for p in pending])
        done += store.put_vectors(
            embedder.fingerprint, [(p.text_hash, v) for p, v in zip(pending, vectors, strict=True)]
        )
    return done


def hit_paths(hits: Sequence[Any]) -> list[str]:
    return [h.path for h in hits]


def hit_symbols(hits: Sequence[Any]) -> list[str | None]:
    return [h.symbol for h in hits]
