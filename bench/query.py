"""Query latency without an LLM: p50/p95 of ``Ragstrata.search`` on an index of thousands of files.

The corpus is this interpreter's standard library (``Lib/`` without ``site-packages``, about
2,400 files), copied once into ``--root`` and indexed there with the configured embedder (the
packaged MiniLM by default); later runs reuse the copy and the index. Questions are Russian and
English (symbol, flow, free-text and docs questions) about the stdlib; each is asked
``--repeat`` times in a fresh order after one warm-up pass, so the numbers include routing,
the query embedding (cached per text after the first call, as in a real session the first ask
of a question pays ~7 ms more: the ``cold`` row measures that) and the store searches.

Embedding ~75k stdlib definitions with MiniLM takes hours on two CPU cores, so by default the
rows are indexed for real and the vectors are synthetic (``--vectors synthetic``: random unit
vectors of the model's dimension under its fingerprint): dense search costs the same, only
ranking quality is not meaningful here (quality is measured by ``ragstrata eval``).

Run: ``python bench/query.py [--root /tmp/ragstrata-bench-stdlib] [--repeat 3] [--json]
[--vectors real|synthetic]``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import sysconfig
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ragstrata.app.facade import Ragstrata
from ragstrata.settings import Settings

QUESTIONS_EN = [
    "where is class ThreadPoolExecutor defined?",
    "who calls urlsplit?",
    "how does json.dumps handle indentation?",
    "where is the function parse_qsl?",
    "how does the logging module rotate files?",
    "what does shutil.copytree do with symlinks?",
    "how are HTTP redirects handled in urllib?",
    "which function decodes base64 strings?",
    "where is OrderedDict implemented?",
    "how does asyncio create a task?",
    "who calls _get_default_scheduler?",
    "how does the email parser read headers?",
    "where is class ArgumentParser defined and how does it parse arguments?",
    "how does tarfile extract members safely?",
    "what does the sqlite3 row factory do?",
]
QUESTIONS_RU = [
    "где определён класс ThreadPoolExecutor?",
    "кто вызывает urlsplit?",
    "как json.dumps обрабатывает отступы?",
    "где находится функция parse_qsl?",
    "как модуль logging делает ротацию файлов?",
    "что делает shutil.copytree с символическими ссылками?",
    "как обрабатываются редиректы HTTP в urllib?",
    "какая функция декодирует строки base64?",
    "где реализован OrderedDict?",
    "как asyncio создаёт задачу?",
    "как работает повтор запроса при ошибке соединения?",
    "как парсер email читает заголовки?",
    "где определён класс ArgumentParser и как он разбирает аргументы?",
    "как tarfile безопасно извлекает файлы?",
    "что делает row factory в sqlite3?",
]


def _copy_stdlib(root: Path) -> Path:
    tree = root / "stdlib"
    if tree.is_dir():
        return tree
    src = Path(sysconfig.get_paths()["stdlib"])
    ignore = shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc", "config-*")
    tmp = root / "stdlib.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp, ignore=ignore, symlinks=True)
    tmp.rename(tree)
    return tree


def _synthetic_vectors(rs: Ragstrata) -> int:
    """Give every pending text a deterministic random unit vector under the real embedder's
    fingerprint: dense search then costs exactly what it costs with real vectors (same count,
    same dimensions) without hours of CPU embedding. Quality is not measured here."""
    import numpy as np

    fp, dims = rs.embedder.fingerprint, rs.embedder.dimensions
    done = 0
    while pending := rs.store.pending_vectors(fp, limit=4096):
        rng = np.random.default_rng(done)
        vecs = rng.standard_normal((len(pending), dims)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        done += rs.store.put_vectors(
            fp, [(p.text_hash, v) for p, v in zip(pending, vecs, strict=True)]
        )
    return done


def _pct(values: list[float], q: int) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[q - 1]
        if len(values) > 1
        else values[0]
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("/tmp/ragstrata-bench-stdlib"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--top-k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--vectors",
        choices=("real", "synthetic"),
        default="synthetic",
        help="real: embed every text with the configured model (hours on 2 CPU cores for the "
        "stdlib); synthetic: random unit vectors of the same dimension (latency only)",
    )
    args = ap.parse_args(argv)
    args.root.mkdir(parents=True, exist_ok=True)
    tree = _copy_stdlib(args.root)
    err = Console(stderr=True)
    with Ragstrata(tree, Settings()) as rs:
        if not (rs.index_dir / "index.sqlite").is_file():
            err.print(f"indexing {tree} (once; reused by later runs) ...")
            start = time.perf_counter()
            rs.index(embed=args.vectors == "real")
            err.print(f"indexed in {time.perf_counter() - start:.0f} s")
        if args.vectors == "synthetic":
            filled = _synthetic_vectors(rs)
            if filled:
                err.print(f"stored {filled} synthetic vectors")
        stats = rs.store.stats(rs.embedder.fingerprint)
        # cold: the first ask of each question (router, query embedding, store caches warm)
        rs.search("warm up the store caches", top_k=args.top_k)
        cold: dict[str, list[float]] = {"en": [], "ru": []}
        for lang, qs in (("en", QUESTIONS_EN), ("ru", QUESTIONS_RU)):
            for q in qs:
                t = time.perf_counter()
                rs.search(q, top_k=args.top_k)
                cold[lang].append((time.perf_counter() - t) * 1000)
        warm: dict[str, list[float]] = {"en": [], "ru": []}
        rng = random.Random(args.seed)
        batch = [("en", q) for q in QUESTIONS_EN] + [("ru", q) for q in QUESTIONS_RU]
        for _ in range(args.repeat):
            rng.shuffle(batch)
            for lang, q in batch:
                t = time.perf_counter()
                rs.search(q, top_k=args.top_k)
                warm[lang].append((time.perf_counter() - t) * 1000)
    rows = []
    for name, data in (("cold", cold), ("warm", warm)):
        for lang in ("en", "ru"):
            v = data[lang]
            rows.append(
                {
                    "run": name,
                    "lang": lang,
                    "n": len(v),
                    "p50_ms": round(_pct(v, 50), 1),
                    "p95_ms": round(_pct(v, 95), 1),
                }
            )
        both = data["en"] + data["ru"]
        rows.append(
            {
                "run": name,
                "lang": "all",
                "n": len(both),
                "p50_ms": round(_pct(both, 50), 1),
                "p95_ms": round(_pct(both, 95), 1),
            }
        )
    info = {
        "files": stats.files,
        "rows": dict(stats.rows),
        "vectors": stats.vectors,
        "vector_kind": args.vectors,
    }
    if args.json:
        json.dump({"index": info, "latency": rows}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    console = Console()
    console.print(
        f"index: {info['files']} files, {sum(info['rows'].values())} rows, "
        f"{info['vectors']} vectors"
    )
    table = Table(title="ragstrata search latency (no LLM)")
    for col in ("run", "lang", "n", "p50 ms", "p95 ms"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["run"], r["lang"], str(r["n"]), f"{r['p50_ms']:.1f}", f"{r['p95_ms']:.1f}")
    console.print(table)


if __name__ == "__main__":
    main()
