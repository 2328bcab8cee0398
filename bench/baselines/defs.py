"""Baselines (c)-(e): one document per definition, the strongest simple retrievers.

- Corpus: ragstrata's own C1 definitions (``ragstrata.ingest.pipeline.extract_file`` over the
  files the walker accepts; modules left out, they are whole files), so a hit names the same
  symbol and span ragstrata would.
- ``bm25_defs``: BM25 (bm25s) over each definition's qualified name, signature and full text,
  tokenized by :func:`bench.baselines.common.code_tokens` (identifiers split).
- ``dense_defs``: cosine over the same local model as ragstrata (``RAGSTRATA_EMBEDDER_MODEL``,
  default the packaged MiniLM; no query map), each definition embedded whole (qualified name,
  then its text) up to the model's 256 tokens. Vectors are cached by model and text hash in
  ``CACHE/defvectors.sqlite`` (trees of one repository share most).
- ``rrf_defs``: reciprocal-rank fusion (k = 60) of the two lists, 100 deep each.

Hits are definitions (``symbol`` = qualified name); a query's file ranking is the order in which
files first appear among them.

    .venv/bin/python bench/baselines/defs.py --system bm25_defs --dataset F --tree DIR [--json]
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.baselines.common import Hits, bench_cache, code_tokens, embed_model, main_for

__all__ = [
    "DEPTH",
    "RRF_K",
    "Definition",
    "definitions",
    "search_bm25",
    "search_dense",
    "search_rrf",
]

RRF_K = 60.0
DEPTH = 100
"""Hits each list keeps (fusion depth; enough to cover ten distinct files)."""


@dataclass(frozen=True, slots=True)
class Definition:
    path: str
    start_line: int
    end_line: int
    symbol: str
    text: str  # qualified name, signature, source lines


@cache
def definitions(tree: Path) -> tuple[Definition, ...]:
    """ragstrata's C1 definitions of ``tree`` (modules excluded), in path order."""
    from ragstrata.core.rows import DefinitionRow
    from ragstrata.ingest.pipeline import extract_file
    from ragstrata.ingest.walker import walk
    from ragstrata.settings import IndexSettings

    settings = IndexSettings()
    files, _ = walk(tree)
    out = []
    for file in sorted(files, key=lambda f: f.path):
        if file.is_doc:
            continue
        for row in extract_file(file, settings).rows:
            if isinstance(row, DefinitionRow) and row.kind != "module":
                text = "\n".join(p for p in (row.symbol, row.signature, row.text) if p)
                out.append(Definition(row.path, row.start_line, row.end_line, row.symbol, text))
    return tuple(out)


def _hit(d: Definition, score: float) -> dict[str, Any]:
    return {
        "path": d.path,
        "start_line": d.start_line,
        "end_line": d.end_line,
        "symbol": d.symbol,
        "score": score,
    }


def _bm25_ranks(rows: list[dict[str, Any]], tree: Path) -> dict[str, list[tuple[int, float]]]:
    import bm25s
    import numpy as np

    defs = definitions(tree)
    docs = [code_tokens(d.text) or ["\x00empty"] for d in defs]
    retriever = bm25s.BM25()
    retriever.index(docs, show_progress=False)
    out = {}
    for row in rows:
        tokens = code_tokens(str(row["query"]))
        scores = retriever.get_scores(tokens) if tokens else np.zeros(len(defs))
        order = np.argsort(-scores, kind="stable")[:DEPTH]
        out[str(row["qid"])] = [(int(i), float(scores[i])) for i in order if scores[i] > 0]
    return out


def _vectors(texts: Sequence[str]) -> Any:
    """Unit vectors of ``texts`` (MiniLM, 256 tokens), cached by text hash."""
    import numpy as np

    from ragstrata.embed.local import MINILM_MODEL, OnnxMiniLMEmbedder

    cache_dir = bench_cache()
    cache_dir.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(cache_dir / "defvectors.sqlite")
    db.execute("CREATE TABLE IF NOT EXISTS v (h TEXT PRIMARY KEY, vec BLOB)")
    model = embed_model()
    salt = "" if model == MINILM_MODEL else f"{model}\n"  # the base model's cache stays valid
    keys = [hashlib.sha256((salt + t).encode()).hexdigest()[:32] for t in texts]
    known: dict[str, Any] = {}
    for i in range(0, len(keys), 500):
        chunk = keys[i : i + 500]
        q = f"SELECT h, vec FROM v WHERE h IN ({','.join('?' * len(chunk))})"
        for h, blob in db.execute(q, chunk):
            known[h] = np.frombuffer(blob, dtype=np.float32)
    todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in known}.items())
    if todo:
        embedder = OnnxMiniLMEmbedder(model, max_tokens=256, query_adapter=False)
        vecs = embedder.embed_array([t for _, t in todo])
        db.executemany(
            "INSERT OR REPLACE INTO v VALUES (?, ?)",
            [(k, v.astype(np.float32).tobytes()) for (k, _), v in zip(todo, vecs, strict=True)],
        )
        db.commit()
        known.update({k: v for (k, _), v in zip(todo, vecs, strict=True)})
    db.close()
    if not keys:
        return np.zeros((0, 384), dtype=np.float32)
    return np.stack([known[k] for k in keys])


def _dense_ranks(rows: list[dict[str, Any]], tree: Path) -> dict[str, list[tuple[int, float]]]:
    import numpy as np

    from ragstrata.embed.local import OnnxMiniLMEmbedder

    defs = definitions(tree)
    matrix = _vectors([d.text for d in defs])
    embedder = OnnxMiniLMEmbedder(embed_model(), max_tokens=256, query_adapter=False)
    queries = embedder.embed_array([str(r["query"]) for r in rows])
    out = {}
    for row, q in zip(rows, queries, strict=True):
        scores = matrix @ q if len(defs) else np.zeros(0)
        order = np.argsort(-scores, kind="stable")[:DEPTH]
        out[str(row["qid"])] = [(int(i), float(scores[i])) for i in order]
    return out


def _as_hits(tree: Path, ranks: dict[str, list[tuple[int, float]]], top_k: int) -> Hits:
    defs = definitions(tree)
    return {
        qid: [_hit(defs[i], s) for i, s in ranked[: max(top_k, DEPTH)]]
        for qid, ranked in ranks.items()
    }


def search_bm25(rows: list[dict[str, Any]], tree: Path, top_k: int = 10) -> Hits:
    """BM25 over definitions."""
    return _as_hits(tree, _bm25_ranks(rows, tree), top_k)


def search_dense(rows: list[dict[str, Any]], tree: Path, top_k: int = 10) -> Hits:
    """Dense over whole definitions."""
    return _as_hits(tree, _dense_ranks(rows, tree), top_k)


def search_rrf(rows: list[dict[str, Any]], tree: Path, top_k: int = 10) -> Hits:
    """RRF of BM25 and dense over definitions."""
    lexical, dense = _bm25_ranks(rows, tree), _dense_ranks(rows, tree)
    fused: dict[str, list[tuple[int, float]]] = {}
    for qid in lexical:
        score: dict[int, float] = {}
        for ranked in (lexical[qid], dense.get(qid, [])):
            for rank, (i, _) in enumerate(ranked, 1):
                score[i] = score.get(i, 0.0) + 1.0 / (RRF_K + rank)
        fused[qid] = sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))
    return _as_hits(tree, fused, top_k)


SYSTEMS = {"bm25_defs": search_bm25, "dense_defs": search_dense, "rrf_defs": search_rrf}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    system = "rrf_defs"
    if "--system" in args:
        i = args.index("--system")
        system = args[i + 1]
        del args[i : i + 2]
    if system not in SYSTEMS:
        print(f"error: unknown --system {system!r}; valid: {', '.join(SYSTEMS)}", file=sys.stderr)
        return 2
    return main_for(f"Definition-level baseline {system}.", SYSTEMS[system], args)


if __name__ == "__main__":
    raise SystemExit(main())
