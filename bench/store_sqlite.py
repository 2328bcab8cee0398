"""SQLiteStore at scale: load rate, lexical and dense search latency, vs FTS5 bm25().

Rows are synthesised from real code -- this interpreter's standard library, parsed with ``ast``
into C0 files, C1 definitions, C2 calls and C3 ~40-line chunks, replicated under ``copyN/``
until ``--rows`` is reached. Vectors are random unit float32 (their values do not change the
cost of exact search). Never gates CI.

    python bench/store_sqlite.py [--rows 100000] [--dims 384] [--json]
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import random
import re
import sqlite3
import statistics
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ragstrata.core.rows import (
    ChunkRow,
    DefinitionRow,
    FileRow,
    Layer,
    RelationRow,
    Row,
    content_hash,
    row_id,
)
from ragstrata.core.texts import lexical_text
from ragstrata.core.values import CatalogEntry, SearchFilters
from ragstrata.store.analyzer import analyze
from ragstrata.store.sqlite import SQLiteStore

QUERIES = [
    "parse_query",
    "HttpClient",
    "self",
    "return value",
    "open file and read lines",
    "urlopen timeout",
    "json decode error",
    "thread lock acquire release",
    "socket connect",
    "os.path.join",
    "TemporaryDirectory cleanup",
    "get",
    "raise ValueError invalid",
    "datetime strftime format",
    "subprocess Popen communicate",
    "функция чтения файлов",
]
FILTERS: dict[str, SearchFilters | None] = {
    "none": None,
    "layer=C1": SearchFilters(layers=(Layer.C1,)),
    "path=copy0/email": SearchFilters(path_prefixes=("copy0/email",)),
    "is_test=False,C3": SearchFilters(is_test=False, layers=(Layer.C3,)),
}


def _base(layer: Layer, path: str, start: int, end: int, key: str, test: bool) -> dict[str, Any]:
    return {
        "id": row_id(layer, path, start, end, key),
        "path": path,
        "language": "python",
        "is_test": test,
        "start_line": start,
        "end_line": end,
        "content_hash": content_hash(key),
    }


def file_rows(path: str, text: str, mix: str = "code") -> list[Row]:
    """C0 + C1 + C2 (calls) + C3 (40-line chunks) for one Python file.

    ``mix="text"``: no relations and 12-line chunks, so nearly every row has text to search
    and embed (the worst case for lexical and dense search at a given row count).
    """
    chunk_lines = 12 if mix == "text" else 40
    test = "/test" in path or path.startswith("test")
    lines = text.splitlines()
    rows: list[Row] = []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    module = path.removesuffix(".py").replace("/", ".")
    top = [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    rows.append(
        FileRow(**_base(Layer.C0, path, 1, max(1, len(lines)), path, test), symbols=tuple(top))
    )
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        symbol = f"{module}.{node.name}"
        end = node.end_lineno or node.lineno
        body = "\n".join(lines[node.lineno - 1 : end])
        rows.append(
            DefinitionRow(
                **_base(Layer.C1, path, node.lineno, end, symbol + body, test),
                kind="class" if isinstance(node, ast.ClassDef) else "function",
                name=node.name, symbol=symbol, signature=lines[node.lineno - 1].strip(),
                docstring=ast.get_docstring(node), text=body,
            )
        )  # fmt: skip
        if mix == "text":
            continue
        called: set[str] = set()  # one relation per (definition, callee), like a call graph
        for call in ast.walk(node):
            if isinstance(call, ast.Call):
                name = ast.unparse(call.func)[:80]
                if name in called:
                    continue
                called.add(name)
                rows.append(
                    RelationRow(
                        **_base(Layer.C2, path, call.lineno, call.lineno, f"{symbol}>{name}@{call.col_offset}", test),
                        relation="calls", from_symbol=symbol, to_name=name, line=call.lineno,
                    )
                )  # fmt: skip
    for start in range(0, len(lines), chunk_lines):
        chunk = "\n".join(lines[start : start + chunk_lines])
        if chunk.strip():
            end = min(start + chunk_lines, len(lines))
            rows.append(ChunkRow(**_base(Layer.C3, path, start + 1, end, chunk, test), text=chunk))
    return rows


def corpus(target_rows: int, mix: str = "code") -> Iterator[tuple[CatalogEntry, list[Row]]]:
    """Files of the stdlib, replicated under copyN/ until ``target_rows`` rows were produced."""
    root = Path(sysconfig.get_paths()["stdlib"])
    sources = sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts)
    produced, copy = 0, 0
    while True:
        for src in sources:
            try:
                text = src.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            path = f"copy{copy}/{src.relative_to(root).as_posix()}"
            rows = file_rows(path, text, mix)
            if not rows:
                continue
            rows = rows[: target_rows - produced]
            produced += len(rows)
            yield CatalogEntry(path, 0, len(text), content_hash(text)), rows
            if produced >= target_rows:
                return
        copy += 1


def _latency(fn: Callable[[], object], repeat: int = 1) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def _summary(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    return {
        "p50_ms": round(statistics.median(ms), 2),
        "p95_ms": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 2),
    }


def fts5_baseline(db: Path, queries: list[str]) -> dict[str, Any]:
    """FTS5 bm25() over the same analyzed terms, for the record."""
    conn = sqlite3.connect(db)
    t = time.perf_counter()
    conn.execute(
        "CREATE VIRTUAL TABLE fts USING fts5(terms, tokenize=\"unicode61 tokenchars '_.:-'\")"
    )
    from ragstrata.store.records import row_from_payload

    conn.executemany(
        "INSERT INTO fts(rowid, terms) VALUES (?, ?)",
        (
            (seq, " ".join(analyze(lexical_text(row_from_payload(p)))))
            for seq, p in conn.execute("SELECT seq, payload FROM rows")
        ),
    )
    conn.commit()
    build = time.perf_counter() - t
    ms = []
    for q in queries:
        terms = " OR ".join(f'"{x}"' for x in dict.fromkeys(analyze(q)))
        if terms:
            sql = "SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 10"
            ms += _latency(lambda s=sql, t=terms: conn.execute(s, (t,)).fetchall(), 3)
    conn.close()
    return {"build_s": round(build, 1), **_summary(ms)}


def run(rows: int, dims: int, batch_files: int, mix: str, keep: Path | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db = keep or Path(tmp) / "index.sqlite"
        store = SQLiteStore(db, embed_layers=(Layer.C1, Layer.C3))
        result: dict[str, Any] = {"rows_target": rows, "dims": dims, "mix": mix}
        t = time.perf_counter()
        batch: list[tuple[CatalogEntry, list[Row]]] = []
        n_rows = n_files = 0
        for item in corpus(rows, mix):
            batch.append(item)
            n_rows += len(item[1])
            n_files += 1
            if len(batch) >= batch_files:
                store.replace_files(batch)
                batch = []
        if batch:
            store.replace_files(batch)
        load = time.perf_counter() - t
        result["load"] = {
            "rows": n_rows,
            "files": n_files,
            "seconds": round(load, 1),
            "rows_per_s": round(n_rows / load),
            "db_mb": round(db.stat().st_size / 1e6, 1),
        }
        result["stats_rows"] = dict(store.stats().rows)

        rng = np.random.default_rng(0)
        t = time.perf_counter()
        fp = f"bench/random/{dims}"
        while pending := store.pending_vectors(fp, limit=2000):
            vecs = rng.standard_normal((len(pending), dims)).astype(np.float32)
            store.put_vectors(fp, [(p.text_hash, v) for p, v in zip(pending, vecs, strict=True)])
        result["vectors"] = {
            "count": store.stats(fp).vectors,
            "put_seconds": round(time.perf_counter() - t, 1),
        }

        cold = SQLiteStore(db)  # a fresh process-like reader: measures lazy builds
        result["cold_first_lexical_ms"] = round(_latency(lambda: cold.search_lexical("socket"))[0])
        q = rng.standard_normal(dims).astype(np.float32)
        result["cold_first_dense_ms"] = round(_latency(lambda: cold.search_dense(q, fp))[0])
        cold.close()
        cached = SQLiteStore(db)  # another fresh reader: loads the arrays the first one cached
        result["cached_first_lexical_ms"] = round(
            _latency(lambda: cached.search_lexical("socket"))[0]
        )
        result["cached_first_dense_ms"] = round(_latency(lambda: cached.search_dense(q, fp))[0])
        cold = cached
        lexical: dict[str, Any] = {}
        dense: dict[str, Any] = {}
        for name, filters in FILTERS.items():
            ms: list[float] = []
            for query in QUERIES:
                ms += _latency(lambda q=query, f=filters: cold.search_lexical(q, f, 10), 3)
            lexical[name] = _summary(ms)
            qs = rng.standard_normal((20, dims)).astype(np.float32)
            dense[name] = _summary(
                [
                    x
                    for v in qs
                    for x in _latency(lambda v=v, f=filters: cold.search_dense(v, fp, f, 10))
                ]
            )
        result["lexical"] = lexical
        result["dense"] = dense
        sym: list[float] = []
        for mode, name in [("exact", "get"), ("suffix", "Thread.start"), ("fuzzy", "urlopn")]:
            sym += _latency(lambda m=mode, n=name: cold.lookup_symbol(n, m), 3)
        result["symbol_lookup"] = _summary(sym)
        result["relations"] = _summary(
            [
                x
                for s in ("join", "urlopen", "acquire")
                for x in _latency(lambda s=s: cold.relations(s), 3)
            ]
        )
        cold.close()
        store.close()
        result["fts5_bm25"] = fts5_baseline(db, QUERIES)
    return result


def _unquote(line: str) -> str:
    """A source line without surrounding string quotes (to spot docstring lines)."""
    return re.sub(r"^[rRbBuU]*(\"\"\"|'''|\"|')|(\"\"\"|'''|\"|')$", "", line.strip()).strip()


def stem_eval(limit: int = 4000) -> dict[str, Any]:
    """MRR of docstring -> definition retrieval with and without the light English stemmer.

    Definitions of the stdlib are indexed WITHOUT their docstrings; each docstring's first
    line is the query and its own definition the answer. The analyzer is patched for the
    "off" run (and its caches cleared), so indexing and querying agree in both runs.
    """
    import ragstrata.store.analyzer as analyzer_module
    from ragstrata.store import bm25 as bm25_module

    defs: list[tuple[CatalogEntry, list[Row]]] = []
    queries: list[tuple[str, str]] = []
    for entry, rows in corpus(10**9):
        kept: list[Row] = []
        for row in rows:
            if isinstance(row, DefinitionRow) and row.docstring and len(queries) < limit:
                first = row.docstring.strip().splitlines()[0]
                doc_lines = {x.strip() for x in row.docstring.splitlines() if x.strip()}
                body = "\n".join(x for x in row.text.splitlines() if _unquote(x) not in doc_lines)
                kept.append(dataclasses.replace(row, docstring=None, text=body))
                if len(first.split()) >= 3:
                    queries.append((first, row.id))
        defs.append((entry, kept))
        if len(queries) >= limit:
            break
    out: dict[str, Any] = {"queries": len(queries)}
    original = analyzer_module.light_stem
    for label, stem in (("stem_on", original), ("stem_off", lambda w: w)):
        analyzer_module.light_stem = stem  # type: ignore[assignment]
        analyzer_module._token_terms.cache_clear()
        bm25_module.term_hash.cache_clear()
        with tempfile.TemporaryDirectory() as tmp:
            store = SQLiteStore(Path(tmp) / "i.sqlite", cache_min_rows=None)
            store.replace_files(defs)
            rr = []
            for query, target in queries:
                hits = store.search_lexical(query, SearchFilters(layers=(Layer.C1,)), 10)
                ids = [h.row_id for h in hits]
                rr.append(1 / (ids.index(target) + 1) if target in ids else 0.0)
            store.close()
        out[label] = {"mrr@10": round(sum(rr) / len(rr), 4)}
    analyzer_module.light_stem = original
    analyzer_module._token_terms.cache_clear()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--batch-files", type=int, default=100)
    parser.add_argument("--mix", choices=("code", "text"), default="code")
    parser.add_argument("--keep", type=Path, help="write the index here (must not exist)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--stem-eval", action="store_true", help="only the stemming MRR check")
    args = parser.parse_args()
    if args.stem_eval:
        print(json.dumps(stem_eval(), indent=2))
        return
    result = run(args.rows, args.dims, args.batch_files, args.mix, args.keep)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return
    for key, value in result.items():
        print(f"{key:>22}: {value}")


if __name__ == "__main__":
    random.seed(0)
    main()
