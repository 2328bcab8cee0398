"""PostgresStore: the store conformance suite unchanged, plus server-only behaviour (repository
isolation, concurrent writers while searching, idempotent migrations, same results as SQLite).

A throwaway server is started by ``tests/pg_server.py``; without PostgreSQL + pgvector these
tests skip locally and FAIL in CI (``CI=true``).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pg_server import pg_url  # noqa: F401  (session fixture)
from ragstrata.core.values import Manifest, SearchFilters
from ragstrata.testing.fakes import HashEmbedder
from ragstrata.testing.store_conformance import (
    FP,
    StoreConformance,
    embed_all,
    entry,
    sample_batch,
)

_counter = itertools.count()


def _store(url: str, key: str | None = None, **kw: object):  # type: ignore[no-untyped-def]
    from ragstrata.store.postgres import PostgresStore

    return PostgresStore(url, key or f"test-{next(_counter)}", max_connections=2, **kw)  # type: ignore[arg-type]


class TestPostgresConformance(StoreConformance):
    @pytest.fixture
    def store(self, pg_url: str) -> Iterator[object]:  # noqa: F811
        s = _store(pg_url)
        yield s
        s.drop()
        s.close()


# ----------------------------------------------------------------- server-only behaviour


def test_repositories_are_isolated_and_dropped_alone(pg_url: str) -> None:  # noqa: F811
    a, b = _store(pg_url), _store(pg_url)
    try:
        a.replace_files(sample_batch())
        b.replace_files(sample_batch()[:2])
        embed_all(a)
        embed_all(b)
        assert a.stats().files == 5 and b.stats().files == 2
        b.remove_files(["src/app/http.py"])
        assert a.lookup_symbol("parse_query") and not b.lookup_symbol("parse_query")
        assert a.drop() is True
        assert a.catalog() == {} and a.search_lexical("HttpClient") == []
        assert b.catalog().keys() == {"src/app/cli.py"}
        assert [h.symbol for h in b.lookup_symbol("main")] == ["app.cli.main"]
        assert b.stats(FP).vectors > 0
        assert a.repo_key not in a.repositories(pg_url) and b.repo_key in a.repositories(pg_url)
    finally:
        for s in (a, b):
            s.drop()
            s.close()


def test_missing_repository_without_create(pg_url: str) -> None:  # noqa: F811
    from ragstrata.errors import IndexMissingError

    s = _store(pg_url, create=False)
    try:
        with pytest.raises(IndexMissingError, match=s.repo_key):
            s.catalog()
    finally:
        s.close()


def test_concurrent_writers_on_two_repos_while_searching(pg_url: str) -> None:  # noqa: F811
    from ragstrata.store.postgres import PostgresStore

    pool = PostgresStore.make_pool(pg_url, max_size=8)
    stores = [PostgresStore(pg_url, f"conc-{next(_counter)}", pool=pool) for _ in range(2)]
    errors: list[BaseException] = []
    stop = threading.Event()
    rows_per_batch = sum(len(rows) for _, rows in sample_batch())
    for s in stores:
        s.replace_files(sample_batch())

    def write(s: PostgresStore) -> None:
        try:
            for version in range(8):
                batch = [(entry(e.path, str(version)), rows) for e, rows in sample_batch()]
                s.replace_files(batch)
                embed_all(s, batch=50)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def search() -> None:
        try:
            while not stop.is_set():
                for s in stores:
                    hits = s.search_lexical(
                        "parse_query", SearchFilters(layers=("C1",), is_test=False)
                    )
                    assert hits and hits[0].symbol == "app.http.parse_query"
                    assert sum(s.stats().rows.values()) == rows_per_batch  # whole batches only
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def churn() -> None:  # new repositories come and go (partition DDL) meanwhile
        try:
            while not stop.is_set():
                s = PostgresStore(pg_url, f"churn-{next(_counter)}", pool=pool)
                s.replace_files(sample_batch()[:1])
                s.drop()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    readers = [threading.Thread(target=search) for _ in range(2)] + [threading.Thread(target=churn)]
    writers = [threading.Thread(target=write, args=(s,)) for s in stores]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join(120)
    stop.set()
    for t in readers:
        t.join(60)
    try:
        assert not errors, errors
        for s in stores:
            assert {e.sha256 for e in s.catalog().values()} == {
                entry(e.path, "7").sha256 for e, _ in sample_batch()
            }
            assert s.stats(FP).pending_vectors == 0
    finally:
        for s in stores:
            s.drop()
        pool.close()


def test_migrations_are_numbered_idempotent_and_transactional(pg_url: str) -> None:  # noqa: F811
    import psycopg

    from ragstrata.errors import IndexMismatchError
    from ragstrata.store.postgres import schema

    admin = pg_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as c:
        c.execute("DROP DATABASE IF EXISTS rs_migrate_test")
        c.execute("CREATE DATABASE rs_migrate_test")
    url = pg_url.rsplit("/", 1)[0] + "/rs_migrate_test"
    try:
        # an old database at version 1 with one repository ...
        with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
            conn.execute("CREATE TABLE rs_migrations (version integer PRIMARY KEY, "
                         "applied_at timestamptz NOT NULL DEFAULT now())")  # fmt: skip
            for statement in schema.MIGRATIONS[0]:
                conn.execute(statement)
            conn.execute("INSERT INTO rs_migrations (version) VALUES (1)")
            conn.execute("INSERT INTO rs_repos (repo_key) VALUES ('old')")
            for table in schema.PARTITIONED[:-1]:
                conn.execute(f"CREATE TABLE {table}_r1 PARTITION OF {table} FOR VALUES IN (1)")
        # ... is upgraded by several processes at once: applied once, partitions added
        errors: list[BaseException] = []

        def run() -> None:
            try:
                with psycopg.connect(url, autocommit=True) as conn:
                    assert schema.migrate(conn) == schema.SCHEMA_VERSION
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=run) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not errors, errors
        with psycopg.connect(url, autocommit=True) as conn:
            versions = [v for (v,) in conn.execute("SELECT version FROM rs_migrations ORDER BY 1")]
            assert versions == list(range(1, schema.SCHEMA_VERSION + 1))
            assert conn.execute("SELECT to_regclass('rs_summaries_r1')").fetchone()[0]
            assert schema.migrate(conn) == schema.SCHEMA_VERSION  # again: nothing to do
            # a failing migration leaves nothing behind (DDL is transactional)
            conn.execute("INSERT INTO rs_migrations (version) VALUES (99)")
            with pytest.raises(IndexMismatchError, match="99"):
                schema.migrate(conn)
    finally:
        with psycopg.connect(admin, autocommit=True) as c:
            c.execute("DROP DATABASE IF EXISTS rs_migrate_test WITH (FORCE)")


def _ranked(hits: list) -> list[tuple[float, str, str]]:  # type: ignore[type-arg]
    # "same results up to ties": order by rounded score, then citation
    return sorted((-round(h.score, 4), h.layer, h.citation) for h in hits)


def test_same_search_and_ask_results_as_sqlite(pg_url: str, tmp_path: Path) -> None:  # noqa: F811
    import shutil

    from answer_fixture import write_repo
    from ragstrata.app.facade import Ragstrata
    from ragstrata.settings import Settings
    from ragstrata.store.sqlite import SQLiteStore

    repo = write_repo(tmp_path / "repo")
    store_src = Path(__file__).resolve().parents[1] / "src" / "ragstrata" / "store"
    shutil.copytree(store_src, repo / "src" / "store", ignore=shutil.ignore_patterns("__pycache__"))
    settings = Settings()
    pg = _store(pg_url)
    lite = SQLiteStore(tmp_path / "index.sqlite")
    try:
        engines = [Ragstrata(repo, settings, store=s, embedder=HashEmbedder()) for s in (lite, pg)]
        for rs in engines:
            rs.index()
        assert lite.stats().rows == pg.stats().rows
        assert lite.stats(FP).vectors == pg.stats(FP).vectors > 0
        queries = [
            "where is the Gateway class defined?",
            "how does charge send an amount",
            "BM25 postings term statistics",
            "как установить пакет",
            "validate amount positive",
            "who calls validate",
        ]
        for q in queries:
            a, b = (rs.search(q, top_k=8).hits for rs in engines)
            assert a, q
            assert _ranked(a) == _ranked(b), q
        for q in queries[:2]:
            a_ask, b_ask = (rs.ask(q) for rs in engines)
            assert a_ask.answer.text == b_ask.answer.text
    finally:
        lite.close()
        pg.drop()
        pg.close()


def test_analyzer_change_reanalyzes_the_repository(pg_url: str) -> None:  # noqa: F811
    s = _store(pg_url)
    try:
        s.replace_files(sample_batch())
        s.put_summaries("file", [("src/app/http.py", "h1", "Zeppelinous transport layer.")])
        before = [(h.row_id, round(h.score, 6)) for h in s.search_lexical("http client", top_k=5)]
        import psycopg

        with psycopg.connect(pg_url, autocommit=True) as conn:  # as if an older ragstrata
            conn.execute(  # had analyzed the rows
                "UPDATE rs_repos SET analyzer = 'old', sum_len = 0 WHERE repo_key = %s",
                (s.repo_key,),
            )
            conn.execute(
                "DELETE FROM rs_postings WHERE repo_id = "
                "(SELECT repo_id FROM rs_repos WHERE repo_key = %s)",
                (s.repo_key,),
            )
        again = _store(pg_url, s.repo_key)
        again.replace_files([])  # any write (or a new store opening for writing) re-analyzes
        again.write_manifest(Manifest(schema_version=1, package_version="0", embedder_fingerprint=FP, dimensions=64))  # fmt: skip
        after = [
            (h.row_id, round(h.score, 6)) for h in again.search_lexical("http client", top_k=5)
        ]
        assert after == before
        assert [h.layer for h in again.search_lexical("zeppelinous")] == ["C0"]
        again.close()
    finally:
        s.drop()
        s.close()


def test_frequent_terms_only_rescore_candidates(pg_url: str) -> None:  # noqa: F811
    # a budget of one posting: only the rarest term generates candidates, the others only
    # add their contribution to those; the top hits stay those of exact BM25
    exact, pruned = _store(pg_url), _store(pg_url, lexical_budget=1)
    try:
        for s in (exact, pruned):
            s.replace_files(sample_batch())
        query = "parse_query split query string pairs"
        full = exact.search_lexical(query, top_k=3)
        cut = pruned.search_lexical(query, top_k=3)
        assert [h.row_id for h in cut][:1] == [h.row_id for h in full][:1]
        assert {h.row_id for h in cut} <= {h.row_id for h in exact.search_lexical(query, top_k=50)}
        filtered = pruned.search_lexical(query, SearchFilters(layers=("C1",)), top_k=3)
        assert filtered and all(h.layer == "C1" for h in filtered)
        assert (
            filtered[0].row_id
            == exact.search_lexical(query, SearchFilters(layers=("C1",)))[0].row_id
        )
    finally:
        for s in (exact, pruned):
            s.drop()
            s.close()


def test_open_store_selects_postgres_by_url(pg_url: str, tmp_path: Path) -> None:  # noqa: F811
    from ragstrata.errors import ConfigError
    from ragstrata.settings import Settings, StoreSettings
    from ragstrata.store.open import open_store, repo_key_for
    from ragstrata.store.postgres import PostgresStore

    repo = tmp_path / "my repo"
    repo.mkdir()
    store = open_store(repo, Settings(store=StoreSettings(url=pg_url)))
    assert isinstance(store, PostgresStore) and store.repo_key == repo_key_for(repo)
    assert store.repo_key.startswith("my-repo-") and store.url == pg_url
    shared = open_store(repo, Settings(store=StoreSettings(url=pg_url + "?repo=acme-payments")))
    assert isinstance(shared, PostgresStore) and shared.repo_key == "acme-payments"
    assert shared.url == pg_url  # ragstrata's parameter is not passed to libpq
    shared.replace_files(sample_batch()[:1])
    assert "acme-payments" in PostgresStore.repositories(pg_url)
    shared.drop()
    for s in (store, shared):
        s.close()
    with pytest.raises(ConfigError, match="mysql"):
        open_store(repo, Settings(store=StoreSettings(url="mysql://x/y")))


def test_cli_store_flag_indexes_and_searches_in_postgres(pg_url: str, tmp_path: Path) -> None:  # noqa: F811
    """`ragstrata --store URL index/search` puts the index in PostgreSQL, not in REPO/.ragstrata."""
    import json
    import os
    import subprocess
    import sys

    from answer_fixture import write_repo

    repo = tmp_path / "pay"
    write_repo(repo)
    url = pg_url + "?repo=cli-flag-test"
    env = {**os.environ, "RAGSTRATA_EMBEDDER_PROVIDER": "hash"}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "ragstrata", "--store", url, *args]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)

    indexed = cli("index", str(repo), "--json")
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)["files"]["added"] >= 3
    assert not (repo / ".ragstrata" / "index.sqlite").exists()
    found = cli("search", "who calls validate?", "--repo", str(repo), "--json")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert any(h["path"] == "src/payments/gateway.py" for h in hits)
