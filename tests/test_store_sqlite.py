"""The store conformance suite on SQLiteStore and InMemoryStore, plus SQLite-only behaviour."""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragstrata.core.rows import ChunkRow, Layer, RelationRow
from ragstrata.core.values import Manifest, SearchFilters
from ragstrata.errors import IndexMismatchError, IndexMissingError
from ragstrata.store.analyzer import analyze
from ragstrata.store.sqlite import SCHEMA_VERSION, SQLiteStore
from ragstrata.testing.memory_store import InMemoryStore
from ragstrata.testing.store_conformance import (
    FP,
    StoreConformance,
    embed_all,
    entry,
    sample_batch,
)


class TestSQLiteConformance(StoreConformance):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[SQLiteStore]:
        s = SQLiteStore(tmp_path / ".ragstrata" / "index.sqlite")
        yield s
        s.close()


class TestInMemoryConformance(StoreConformance):
    @pytest.fixture
    def store(self) -> InMemoryStore:
        return InMemoryStore()


def _chunks(path: str, n: int, word: str) -> list[ChunkRow]:
    from ragstrata.core.rows import content_hash, row_id

    out = []
    for i in range(n):
        text = f"def {word}_{i}(x):\n    return {word}_helper(x) + {i}\n"
        out.append(
            ChunkRow(
                id=row_id(Layer.C3, path, 2 * i + 1, 2 * i + 2, text),
                path=path, language="python", is_test=False, start_line=2 * i + 1,
                end_line=2 * i + 2, content_hash=content_hash(text), text=text,
            )
        )  # fmt: skip
    return out


# ----------------------------------------------------------------------------- analyzer


def test_analyzer_identifiers_words_and_russian() -> None:
    assert analyze("HttpClient") == ["httpclient", "http", "client"]
    assert analyze("self.parse_query") == [
        "self.parse_query",
        "self",
        "parse_query",
        "parse",
        "query",
    ]
    assert analyze("Reads files and classes") == ["read", "file", "class"]
    assert analyze("файлов конфигурации") == analyze("файл конфигурация")
    assert analyze("port 8080 x 1") == ["port", "8080"]


# ----------------------------------------------------------------------------- SQLite only


def test_for_repo_layout_and_reopen_persists(tmp_path: Path) -> None:
    store = SQLiteStore.for_repo(tmp_path)
    store.replace_files(sample_batch())
    store.write_manifest(Manifest(schema_version=SCHEMA_VERSION, package_version="0", embedder_fingerprint=FP, dimensions=64))  # fmt: skip
    embed_all(store)
    before = store.stats()
    store.close()
    assert (tmp_path / ".ragstrata" / "index.sqlite").exists()
    assert (tmp_path / ".ragstrata" / ".gitignore").read_text() == "*\n"
    again = SQLiteStore.for_repo(tmp_path, create=False)
    assert again.stats() == before
    assert again.lookup_symbol("parse_query")[0].path == "src/app/http.py"
    assert again.read_manifest() is not None
    again.close()


def test_missing_index_without_create(tmp_path: Path) -> None:
    with pytest.raises(IndexMissingError, match="index"):
        SQLiteStore(tmp_path / "nope" / "index.sqlite", create=False).stats()


def test_migration_from_empty_and_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    sqlite3.connect(path).close()  # an empty database file, user_version 0
    store = SQLiteStore(path)
    assert store.stats().files == 0
    store.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(IndexMismatchError, match="--rebuild"):
        SQLiteStore(path).stats()


def test_migration_3_fills_the_light_keys_of_an_older_index(tmp_path: Path) -> None:
    """An index written before the ``definitions`` table and ``relations.receiver_type``
    (schema 2) gets them from its stored rows in place: no rebuild."""
    path = tmp_path / "index.sqlite"
    store = SQLiteStore(path)
    batch = sample_batch()
    typed = [
        dataclasses.replace(r, receiver_type="Session") if isinstance(r, RelationRow) else r
        for r in batch[1][1]
    ]
    store.replace_files([batch[0], (batch[1][0], typed), *batch[2:]])
    want = (list(store.scan_relation_keys()), list(store.scan_definition_keys()))
    store.close()
    conn = sqlite3.connect(path)  # back to schema 2: migration 3 undone
    conn.execute("DROP TABLE definitions")
    conn.execute("ALTER TABLE relations DROP COLUMN receiver_type")
    conn.execute("DROP INDEX rows_layer")
    conn.execute("CREATE INDEX rows_layer ON rows(layer)")
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    reopened = SQLiteStore(path)
    assert (list(reopened.scan_relation_keys()), list(reopened.scan_definition_keys())) == want
    assert any(k.receiver_type == "Session" for k in want[0]) and len(want[1]) == 6
    reopened.close()


def test_analyzer_change_reanalyzes_rows(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    store = SQLiteStore(path)
    store.replace_files(sample_batch())
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE rows SET n_terms = 0, term_ids = x'', term_tfs = x''")
    conn.execute("UPDATE meta SET value = 'old' WHERE key = 'analyzer'")
    conn.commit()
    conn.close()
    reopened = SQLiteStore(path)
    assert reopened.search_lexical("fetchData")[0].path == "web/app.js"
    reopened.close()


def test_exception_inside_transaction_keeps_previous_state(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "index.sqlite")
    store.replace_files(sample_batch())
    before = (store.catalog(), store.stats().rows)
    good = (entry("src/new.py"), _chunks("src/new.py", 3, "fresh"))
    broken = (entry("src/broken.py"), _chunks("src/broken.py", 2, "broken"))
    bad_row = ChunkRow(**{**_fields(broken[1][0]), "id": "x", "start_line": 99, "end_line": 99})
    object.__setattr__(bad_row, "symbol", object())  # not JSON-serialisable: fails mid-write
    with pytest.raises(TypeError):
        store.replace_files([good, (broken[0], [*broken[1], bad_row])])
    assert (store.catalog(), store.stats().rows) == before
    assert store.search_lexical("fresh") == []
    store.close()


def _fields(row: ChunkRow) -> dict[str, object]:
    return {name: getattr(row, name) for name in row.__dataclass_fields__}


def test_readers_keep_working_while_a_writer_writes(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    writer = SQLiteStore(path)
    writer.replace_files(sample_batch())
    reader = SQLiteStore(path)
    assert reader.search_lexical("parse_query")
    errors: list[BaseException] = []
    seen_counts: set[int] = set()
    stop = threading.Event()

    def read_loop() -> None:
        try:
            while not stop.is_set():
                hits = reader.search_lexical("parse_query", top_k=50)
                assert hits
                seen_counts.add(reader.stats().rows["C3"])
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    thread = threading.Thread(target=read_loop)
    thread.start()
    conn = sqlite3.connect(path, isolation_level=None)  # another writer, as another process
    conn.execute("BEGIN IMMEDIATE")  # hold the write lock: reads must not block on it
    conn.execute("INSERT INTO meta VALUES ('probe', '1')")
    try:
        count = len(reader.search_lexical("parse_query", top_k=50))
        assert count > 0
    finally:
        conn.execute("ROLLBACK")
        conn.close()
    for i in range(20):
        writer.replace_files([(entry(f"gen/f{i}.py"), _chunks(f"gen/f{i}.py", 25, "parse_query"))])
    stop.set()
    thread.join(timeout=30)
    assert not errors, errors
    assert len(seen_counts) >= 1
    assert reader.stats().rows["C3"] == writer.stats().rows["C3"]
    in_gen = reader.search_lexical("parse_query", SearchFilters(path_prefixes=("gen",)), top_k=5)
    assert len(in_gen) == 5
    reader.close()
    writer.close()


def test_cache_follows_writes_from_another_connection(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    a, b = SQLiteStore(path), SQLiteStore(path)
    a.replace_files(sample_batch())
    assert b.search_lexical("fetchData")[0].path == "web/app.js"
    embed_all(a)
    query = [1.0] * 64
    assert b.search_dense(query, FP, top_k=100)
    a.remove_files(["web/app.js"])
    assert b.search_lexical("fetchData") == []
    assert all(h.path != "web/app.js" for h in b.search_dense(query, FP, top_k=100))
    a.close()
    b.close()


def test_bm25_agrees_with_the_reference_store(tmp_path: Path) -> None:
    sqlite_store, memory = SQLiteStore(tmp_path / "index.sqlite"), InMemoryStore()
    for store in (sqlite_store, memory):
        store.replace_files(sample_batch())
    for query in ("parse_query", "HttpClient get url", "файлы конфигурации", "fetch json"):
        a = [(h.row_id, round(h.score, 4)) for h in sqlite_store.search_lexical(query, top_k=20)]
        b = [(h.row_id, round(h.score, 4)) for h in memory.search_lexical(query, top_k=20)]
        assert a == b, query
    sqlite_store.close()


_WRITER = """
import sys
from ragstrata.store.sqlite import SQLiteStore
from ragstrata.testing.store_conformance import entry
sys.path.insert(0, {tests!r})
from test_store_sqlite import _chunks
store = SQLiteStore({db!r})
i = 0
while True:
    batch = [(entry(f"f{{i}}_{{j}}.py"), _chunks(f"f{{i}}_{{j}}.py", 20, "word")) for j in range(10)]
    store.replace_files(batch)
    store.remove_files([f"f{{i - 3}}_{{j}}.py" for j in range(10)])
    print(i, flush=True)
    i += 1
"""


def test_kill_during_writes_leaves_whole_batches(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    db = tmp_path / "index.sqlite"
    code = _WRITER.format(tests=str(Path(__file__).parent), db=str(db))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for _ in range(6):  # let it commit a few batches, then kill it mid-flight
        assert proc.stdout.readline()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    per_file = dict(conn.execute("SELECT path, COUNT(*) FROM rows GROUP BY path"))
    catalog = {p for (p,) in conn.execute("SELECT path FROM files")}
    conn.close()
    assert catalog and set(per_file) == catalog
    assert set(per_file.values()) == {20}  # every file whole
    generations = {p.split("_")[0] for p in catalog}
    assert all(sum(p.startswith(g + "_") for p in catalog) == 10 for g in generations)
    store = SQLiteStore(db)
    assert store.stats().rows["C3"] == 20 * len(catalog)
    assert len(store.search_lexical("word_helper", top_k=1000)) == 20 * len(catalog)
    store.close()


def test_disk_cache_of_derived_arrays(tmp_path: Path) -> None:
    db = tmp_path / "index.sqlite"
    writer = SQLiteStore(db, cache_min_rows=0)
    writer.replace_files(sample_batch())
    embed_all(writer)
    query = [0.5] * 64
    expected = (writer.search_lexical("parse_query"), writer.search_dense(query, FP))
    cache = tmp_path / "index.cache"
    kinds = sorted(p.name.split("-")[0] for p in cache.iterdir())
    assert kinds == ["dense", "lex", "meta"]
    reader = SQLiteStore(db, cache_min_rows=0)  # a new process would load these files
    assert (reader.search_lexical("parse_query"), reader.search_dense(query, FP)) == expected
    for npy in cache.glob("lex-*/*.npy"):
        npy.write_bytes(b"garbage")  # a damaged cache is rebuilt from SQLite, never trusted
    third = SQLiteStore(db, cache_min_rows=0)
    assert third.search_lexical("parse_query") == expected[0]
    writer.remove_files(["src/app/http.py"])
    assert all(h.path != "src/app/http.py" for h in reader.search_lexical("parse_query"))
    assert len(list(cache.glob("lex-*"))) == 1  # the stale generation was dropped
    for s in (writer, reader, third):
        s.close()


@pytest.mark.parametrize(
    ("prefix", "path", "expected"),
    [
        ("src", "src/a.py", True),
        ("src", "srcx/a.py", False),
        ("src/", "src", False),
        ("./.github", ".github/ci.yml", True),
        ("/src", "src/a.py", True),
        ("", "anything.md", True),
        ("src/a.py", "src/a.py", True),
    ],
)
def test_path_prefixes_are_folder_aware(prefix: str, path: str, expected: bool) -> None:
    assert SearchFilters(path_prefixes=(prefix,)).matches_path(path) is expected


def test_one_bm25_encoding_caps_term_frequency() -> None:
    from ragstrata.store.bm25 import TF_MAX, encode_terms, term_hash

    assert TF_MAX == 2**15 - 1  # what PostgreSQL's smallint and SQLite's 16-bit blob both hold
    n_terms, tfs = encode_terms("zebracorn " * (TF_MAX + 10) + "okapi okapi")
    assert n_terms == TF_MAX + 12  # the length counts every term; only frequencies are capped
    assert tfs == {term_hash("zebracorn"): TF_MAX, term_hash("okapi"): 2}
