"""Store scale benchmark: >= 1M real rows in SQLite AND PostgreSQL + pgvector, one run.

The rows are real: this Python's standard library (``*.py`` and docs, test folders left out)
is ingested once (~138k rows: files, definitions, relations, code chunks, doc sections) and
loaded ``--copies`` times, each copy as its own repository key (default 8 copies: ~1.1M rows).
Vectors come from ``HashEmbedder(384)`` (the packaged MiniLM embeds ~5 texts/s on this busy
2-core machine, far too slow for 170k texts); they are only the load for the ANN index.

Reported per backend: load rate (rows/s, through the public ``replace_files``/``put_vectors``),
search latency p50/p95 for lexical and dense search, without and with metadata filters
(layers + a folder prefix), each query against a random repository; and for PostgreSQL the
recall@10 of HNSW against exact search (unfiltered and filtered), plus the top-10 agreement
of PostgreSQL's lexical BM25 with SQLite's.

    .venv/bin/python bench/store.py [--copies 8] [--queries 100] [--pg-url URL] [--json]

Without ``--pg-url`` a throwaway server is started (``tests/pg_server.py``; needs PostgreSQL and
pgvector, see ``scripts/ci/postgres.sh``). Never gates CI; numbers go into docs/deploy.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ragstrata.core.rows import Layer, Row
from ragstrata.core.texts import embedding_text
from ragstrata.core.values import CatalogEntry, SearchFilters
from ragstrata.relations.repository import ingest_repository
from ragstrata.settings import IndexSettings
from ragstrata.store.postgres import PostgresStore
from ragstrata.store.records import embedding_hash
from ragstrata.store.sqlite import SQLiteStore
from ragstrata.testing.fakes import HashEmbedder

EXCLUDE = ("test/**", "idlelib/**", "site-packages/**", "lib2to3/tests/**", "tkinter/test/**")
Batch = list[tuple[CatalogEntry, list[Row]]]


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000.0, out


def ingest(root: Path) -> Batch:
    """The rows of ``root`` as ``replace_files`` batches."""
    result = ingest_repository(root, IndexSettings(exclude=EXCLUDE))
    return [
        (CatalogEntry(f.file.path, f.file.mtime_ns, f.file.size, f.file.sha256), list(f.rows))
        for f in result.files
    ]


def vectors_for(batch: Batch, embedder: HashEmbedder) -> list[tuple[str, list[float]]]:
    """``(text_hash, vector)`` of every distinct embedding text."""
    texts = {}
    for _, rows in batch:
        for row in rows:
            text = embedding_text(row)
            if text is not None:
                texts[embedding_hash(text)] = text
    hashes = list(texts)
    vecs = embedder.embed_documents([texts[h] for h in hashes])
    return list(zip(hashes, vecs, strict=True))


def make_queries(batch: Batch, n: int, seed: int = 7) -> list[tuple[str, SearchFilters]]:
    """Questions from real definitions: name + first docstring words; each with a filter on
    its layer family and top folder (selective: a few % of the rows)."""
    rng = random.Random(seed)
    defs = [
        r
        for _, rows in batch
        for r in rows
        if r.layer == Layer.C1 and getattr(r, "docstring", None) and "/" in r.path
    ]
    out = []
    for row in rng.sample(defs, n):
        words = " ".join(str(getattr(row, "docstring", "")).split()[:5])
        query = f"{getattr(row, 'name', '')} {words}"
        folder = row.path.split("/", 1)[0] + "/"
        out.append((query, SearchFilters(layers=("C1", "C3"), path_prefixes=(folder,))))
    return out


@contextlib.contextmanager
def pg_url(arg: str | None) -> Iterator[str]:
    if arg:
        yield arg
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from pg_server import pg_server  # type: ignore[import-not-found]

    with pg_server() as url:
        yield url


def load(
    name: str,
    stores: Sequence[Any],
    batch: Batch,
    vectors: list[tuple[str, list[float]]],
    fingerprint: str,
    workers: int,
) -> dict[str, float]:
    """Load every store (one worker thread per repository, ``workers`` at a time)."""
    rows = sum(len(r) for _, r in batch)
    todo = list(stores)
    lock = threading.Lock()
    errors: list[BaseException] = []

    def work() -> None:
        while True:
            with lock:
                if not todo:
                    return
                store = todo.pop(0)
            try:
                for i in range(0, len(batch), 40):
                    store.replace_files(batch[i : i + 40])
                for i in range(0, len(vectors), 2000):
                    store.put_vectors(fingerprint, vectors[i : i + 2000])
            except BaseException as exc:
                errors.append(exc)
                return
            _log(f"{name}: loaded {store!r}")

    start = time.perf_counter()
    threads = [threading.Thread(target=work) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    load_s = time.perf_counter() - start
    index_s = 0.0
    if name == "postgres":
        start = time.perf_counter()
        todo2 = list(stores)

        def build() -> None:
            while True:
                with lock:
                    if not todo2:
                        return
                    store = todo2.pop(0)
                store.build_indexes()

        threads = [threading.Thread(target=build) for _ in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        index_s = time.perf_counter() - start
    total_rows = rows * len(stores)
    return {
        "rows": total_rows,
        "vectors": len(vectors) * len(stores),
        "load_s": round(load_s, 1),
        "hnsw_build_s": round(index_s, 1),
        "rows_per_s": round(total_rows / load_s),
    }


def latency(
    stores: Sequence[Any],
    queries: list[tuple[str, SearchFilters]],
    embedder: HashEmbedder,
    seed: int = 11,
) -> dict[str, Any]:
    rng = random.Random(seed)
    picks = [rng.randrange(len(stores)) for _ in queries]
    qvecs = embedder.embed_queries([q for q, _ in queries])
    fp = embedder.fingerprint
    for s in stores:  # warm up: SQLite builds (or maps) its in-memory structures per index
        s.search_lexical("warm up query")
        s.search_dense(qvecs[0], fp)
    out: dict[str, Any] = {}
    cases = {
        "lexical": lambda s, q, v, f: s.search_lexical(q, None, 10),
        "lexical_filtered": lambda s, q, v, f: s.search_lexical(q, f, 10),
        "dense": lambda s, q, v, f: s.search_dense(v, fp, None, 10),
        "dense_filtered": lambda s, q, v, f: s.search_dense(v, fp, f, 10),
    }
    for case, fn in cases.items():
        times = []
        for (q, f), v, i in zip(queries, qvecs, picks, strict=True):
            ms, _ = _timed(lambda fn=fn, i=i, q=q, v=v, f=f: fn(stores[i], q, v, f))
            times.append(ms)
        out[case] = {"p50_ms": round(_pct(times, 0.5), 1), "p95_ms": round(_pct(times, 0.95), 1)}
    return out


def recall(
    pg: Sequence[PostgresStore],
    queries: list[tuple[str, SearchFilters]],
    embedder: HashEmbedder,
) -> dict[str, float]:
    qvecs = embedder.embed_queries([q for q, _ in queries])
    fp = embedder.fingerprint
    out = {}
    for case, use_filter in (("recall@10", False), ("recall@10_filtered", True)):
        got = []
        for i, ((_, f), v) in enumerate(zip(queries, qvecs, strict=True)):
            store = pg[i % len(pg)]
            flt = f if use_filter else None
            exact = {h.row_id for h in store.search_dense(v, fp, flt, 10, exact=True)}
            if not exact:
                continue
            ann = {h.row_id for h in store.search_dense(v, fp, flt, 10)}
            got.append(len(ann & exact) / len(exact))
        out[case] = round(statistics.mean(got), 4) if got else float("nan")
    return out


def agreement(
    lite: Sequence[SQLiteStore], pg: Sequence[PostgresStore], queries: list[tuple[str, Any]]
) -> float:
    """Mean overlap of the top-10 lexical hits (by row id) of the two backends."""
    got = []
    for i, (q, _) in enumerate(queries):
        a = {h.row_id for h in lite[i % len(lite)].search_lexical(q, None, 10)}
        b = {h.row_id for h in pg[i % len(pg)].search_lexical(q, None, 10)}
        if a:
            got.append(len(a & b) / len(a))
    return round(statistics.mean(got), 4)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--pg-url")
    parser.add_argument("--skip-sqlite", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    report: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "load_avg": os.getloadavg()}}
    start = time.perf_counter()
    batch = ingest(args.root)
    n_rows = sum(len(r) for _, r in batch)
    report["corpus"] = {"files": len(batch), "rows": n_rows, "copies": args.copies,
                        "ingest_s": round(time.perf_counter() - start, 1)}  # fmt: skip
    _log(f"ingested {n_rows} rows from {len(batch)} files")
    embedder = HashEmbedder(dimensions=args.dims)
    vectors = vectors_for(batch, embedder)
    queries = make_queries(batch, args.queries)
    fp = embedder.fingerprint

    with tempfile.TemporaryDirectory(prefix="rs-bench-store-") as tmp, pg_url(args.pg_url) as url:
        pool = PostgresStore.make_pool(url, max_size=args.workers + 2)
        pg = [
            PostgresStore(url, f"bench-stdlib-{i}", pool=pool, hnsw_on_write=False)
            for i in range(args.copies)
        ]
        for s in pg:
            s.drop()  # a previous run's leftovers
        report["postgres"] = {"load": load("postgres", pg, batch, vectors, fp, args.workers)}
        _log(f"postgres load: {report['postgres']['load']}")
        report["postgres"]["search"] = latency(pg, queries, embedder)
        _log(f"postgres search: {report['postgres']['search']}")
        report["postgres"]["dense_recall"] = recall(pg, queries, embedder)
        _log(f"postgres recall: {report['postgres']['dense_recall']}")
        lite: list[SQLiteStore] = []
        if not args.skip_sqlite:
            lite = [SQLiteStore(Path(tmp) / f"r{i}" / "index.sqlite") for i in range(args.copies)]
            report["sqlite"] = {"load": load("sqlite", lite, batch, vectors, fp, args.workers)}
            _log(f"sqlite load: {report['sqlite']['load']}")
            report["sqlite"]["search"] = latency(lite, queries, embedder)
            _log(f"sqlite search: {report['sqlite']['search']}")
            report["lexical_top10_agreement"] = agreement(lite, pg, queries)
        for s in lite:
            s.close()
        for s in pg:
            s.drop()
        pool.close()
    report["total_s"] = round(time.perf_counter() - start, 1)
    print(json.dumps(report, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
