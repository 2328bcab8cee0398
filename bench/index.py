"""Index a real tree three ways in one run: ragstrata, LlamaIndex (same model), static + BM25.

Every side indexes the SAME subset of a real tree (``--root``: default this Python's standard
library; ``*.py`` plus docs, test folders left out), copied to a temporary folder, in its OWN
subprocess (so peak RSS and CPU time are per side, from ``wait4``):

- **ragstrata**: ``Indexer.run()`` (walk, tree-sitter C0-C3 / D0-D2 rows, SQLite, then vectors
  of the packaged MiniLM int8 for definitions and doc sections). *First usable search* is when
  the rows are committed (lexical, symbol and relation search answer; vectors follow). Then a
  no-op re-run and a one-definition edit (incremental, with its vectors).
- **LlamaIndex** (llama-index-core): an ``IngestionPipeline`` with a docstore whose splitter
  step sends code to ``CodeSplitter`` (tree-sitter) and docs to ``SentenceSplitter``, then the
  embedding step (ragstrata's MiniLM wrapped as a ``BaseEmbedding``: the same model), then
  ``VectorStoreIndex``. Nothing is searchable before the embedding step ends.
- **static + BM25** (the Semble-style peer): files cut into 60-line windows, bm25s over words
  and identifier parts, plus static vectors from a token table distilled from the packaged
  MiniLM the Model2Vec way (each vocabulary token through the model once, mean-pooled,
  Zipf-weighted; derived locally into ``--cache`` on first use, never downloaded).

    .venv/bin/python bench/index.py [--root DIR] [--max-files 300] [--sides ragstrata,llama,static]
        [--no-embed] [--json]

Ratios are peer / ragstrata (> 1: ragstrata is faster or smaller). On a shared machine, CPU
seconds are steadier than wall seconds; both are reported. Never gates CI.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragstrata.embed.local import MINILM_MODEL, OnnxMiniLMEmbedder
from ragstrata.indexer import Indexer, IndexEvent
from ragstrata.ingest.walker import Walker
from ragstrata.settings import Settings
from ragstrata.store.sqlite import SQLiteStore

SIDES = ("ragstrata", "llama", "static")


def pick_subset(root: Path, max_files: int, settings: Settings) -> list[str]:
    """Paths the walker accepts (code: Python only; docs), tests excluded, evenly spread."""
    walker = Walker(root, settings.index)
    paths = [
        f.path
        for f in walker.files()
        if (f.language == "python" or f.is_doc)
        and not f.is_test
        and "/test" not in "/" + f.path
        and "idlelib" not in f.path
    ]
    step = max(1, len(paths) // max_files) if max_files else 1
    return paths[::step][:max_files] if max_files else paths


def copy_subset(root: Path, paths: Sequence[str], dest: Path) -> None:
    for rel in paths:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target)


def _paths(repo: Path) -> list[str]:
    return sorted(
        str(p.relative_to(repo))
        for p in repo.rglob("*")
        if p.is_file() and ".ragstrata" not in p.parts
    )


# --------------------------------------------------------------------------- ragstrata


def run_ragstrata(repo: Path, embed: bool) -> dict[str, Any]:
    settings = Settings()
    embedder = OnnxMiniLMEmbedder(MINILM_MODEL)
    marks = {"start": time.perf_counter()}

    def progress(event: IndexEvent) -> None:
        if event.phase == "embed" and "rows_ready" not in marks:
            marks["rows_ready"] = time.perf_counter()

    store = SQLiteStore.for_repo(repo)
    try:
        full = Indexer(repo, store, embedder, settings).run(progress=progress, embed=embed)
        end = time.perf_counter()
        first = marks.get("rows_ready", end) - marks["start"]
        t0 = time.perf_counter()
        noop = Indexer(repo, store, embedder, settings).run(embed=embed)
        noop_s = time.perf_counter() - t0
        target = next(repo / p for p in _paths(repo) if p.endswith(".py"))
        target.write_text(
            target.read_text(encoding="utf-8") + "\n\ndef bench_added(x):\n    return x\n",
            encoding="utf-8",
        )
        t1 = time.perf_counter()
        edit = Indexer(repo, store, embedder, settings).run(embed=embed)
        edit_s = time.perf_counter() - t1
    finally:
        store.close()
    data = full.to_dict()
    return {
        "first_search_s": round(first, 2),
        "full_s": round(full.seconds, 2),
        "noop_s": round(noop_s, 3),
        "edit_s": round(edit_s, 3),
        "files": data["files"]["added"],
        "rows": sum(data["rows"].values()),
        "embedded_texts": data["embeddings"]["done"],
        "noop_changed": noop.added + noop.changed + noop.removed,
        "edit_changed": edit.changed,
    }


# --------------------------------------------------------------------------- LlamaIndex


def run_llama(repo: Path, embed: bool) -> dict[str, Any]:
    import tree_sitter_python
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.node_parser import CodeSplitter, SentenceSplitter
    from llama_index.core.schema import BaseNode, TransformComponent
    from llama_index.core.storage.docstore import SimpleDocumentStore
    from pydantic import PrivateAttr
    from tree_sitter import Language, Parser

    inner = OnnxMiniLMEmbedder(MINILM_MODEL)

    class MiniLMEmbedding(BaseEmbedding):
        """ragstrata's OnnxMiniLMEmbedder as a LlamaIndex embedding model."""

        _inner: Any = PrivateAttr()

        def __init__(self, inner: OnnxMiniLMEmbedder) -> None:
            super().__init__(model_name=MINILM_MODEL, embed_batch_size=inner.batch_size)
            self._inner = inner

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._inner.embed_queries([query])[0]

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._inner.embed_documents([text])[0]

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._inner.embed_documents(texts)

    def words(text: str) -> list[str]:
        return text.split()

    code = CodeSplitter(
        language="python",
        parser=Parser(Language(tree_sitter_python.language())),
        max_chars=1200,
        tokenizer=words,
    )
    prose = SentenceSplitter(chunk_size=300, chunk_overlap=30, tokenizer=words)

    class BySuffix(TransformComponent):
        """CodeSplitter for Python files, SentenceSplitter for docs."""

        def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> list[BaseNode]:
            py = [n for n in nodes if str(n.metadata.get("file_path", "")).endswith(".py")]
            other = [n for n in nodes if n not in py]
            return [*code(py, **kwargs), *prose(other, **kwargs)]

    embed_model = MiniLMEmbedding(inner)
    paths = _paths(repo)

    def load() -> list[Any]:
        docs = []
        for rel in paths:
            text = (repo / rel).read_text(encoding="utf-8", errors="replace")
            docs.append(Document(text=text, id_=rel, metadata={"file_path": rel}))
        return docs

    steps: list[Any] = [BySuffix(), embed_model] if embed else [BySuffix()]
    pipeline = IngestionPipeline(transformations=steps, docstore=SimpleDocumentStore())
    t0 = time.perf_counter()
    nodes = pipeline.run(documents=load())
    if embed:
        VectorStoreIndex(nodes, embed_model=embed_model)
    full_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    again = pipeline.run(documents=load())
    noop_s = time.perf_counter() - t1
    return {
        "first_search_s": round(full_s, 2),  # nothing answers before the pipeline ends
        "full_s": round(full_s, 2),
        "noop_s": round(noop_s, 3),
        "files": len(paths),
        "nodes": len(nodes),
        "embedded_texts": len(nodes) if embed else 0,
        "noop_nodes": len(again),
    }


# --------------------------------------------------------------------------- static + BM25

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def static_table(cache: Path) -> Any:
    """The packaged MiniLM distilled to a static token table (Model2Vec's method: every
    vocabulary token through the model once, mean-pooled; Zipf weights by vocabulary rank).
    Built once into ``cache`` (a derived file, never committed, never downloaded)."""
    import numpy as np

    target = cache / "minilm-static.npy"
    if target.exists():
        return np.load(target)
    embedder = OnnxMiniLMEmbedder(MINILM_MODEL, batch_size=256)
    tokenizer = embedder.tokenizer()
    vocab = tokenizer.get_vocab()
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    vectors = embedder.embed_array(tokens)  # [CLS] token [SEP], mean-pooled, unit length
    weights = np.log1p(np.arange(len(tokens), dtype=np.float32) + 1.0)[:, None]
    table = (vectors * weights).astype(np.float32)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(target, table)
    return table


def run_static(repo: Path, cache: Path) -> dict[str, Any]:
    import bm25s
    import numpy as np
    from tokenizers import Tokenizer

    t_table = time.perf_counter()
    table = static_table(cache)
    table_s = time.perf_counter() - t_table
    tokenizer: Tokenizer = OnnxMiniLMEmbedder(MINILM_MODEL).tokenizer()
    t0 = time.perf_counter()
    chunks: list[str] = []
    for rel in _paths(repo):
        lines = (repo / rel).read_text(encoding="utf-8", errors="replace").splitlines()
        for start in range(0, max(len(lines), 1), 60):
            chunks.append(rel + "\n" + "\n".join(lines[start : start + 60]))
    corpus = [
        [w.lower() for word in _WORD.findall(c) for w in {word, *_PART.findall(word)}]
        for c in chunks
    ]
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    encodings = tokenizer.encode_batch(chunks)
    vectors = np.stack([table[e.ids].mean(axis=0) for e in encodings])
    vectors /= np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
    full_s = time.perf_counter() - t0
    return {
        "first_search_s": round(full_s, 2),
        "full_s": round(full_s, 2),
        "distill_s": round(table_s, 1),  # once per machine; not part of indexing
        "files": len(_paths(repo)),
        "chunks": len(chunks),
        "embedded_texts": len(chunks),
    }


# --------------------------------------------------------------------------- orchestration


def _peak_mb() -> int:
    """This process's peak resident memory (VmHWM: its own address space only; ``wait4``'s
    ru_maxrss would also count the parent it was forked from)."""
    with open("/proc/self/status", encoding="ascii") as status:
        line = next(x for x in status if x.startswith("VmHWM:"))
    return round(int(line.split()[1]) / 1024)


def run_side(side: str, repo: Path, embed: bool, cache: Path) -> dict[str, Any]:
    """Run one side in a subprocess: its JSON (with its peak RSS) plus CPU seconds."""
    copy = repo.parent / f"{side}-tree"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(repo, copy)
    cmd = [sys.executable, __file__, "--side", side, "--repo", str(copy), "--cache", str(cache)]
    if not embed:
        cmd.append("--no-embed")
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return {"error": f"exit {os.waitstatus_to_exitcode(status)}"}
    data: dict[str, Any] = json.loads(out)
    data["process_s"] = round(time.perf_counter() - started, 2)
    data["cpu_s"] = round(usage.ru_utime + usage.ru_stime, 1)
    shutil.rmtree(copy, ignore_errors=True)
    return data


def _ratios(result: dict[str, Any]) -> dict[str, dict[str, float]]:
    rs = result["ragstrata"]
    out: dict[str, dict[str, float]] = {}
    for side in SIDES[1:]:
        peer = result.get(side)
        if not peer or "error" in peer or "error" in rs:
            continue
        out[side] = {
            key: round(peer[key] / max(rs[key], 1e-9), 2)
            for key in ("first_search_s", "full_s", "cpu_s", "peak_rss_mb")
            if key in peer and key in rs
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--root", type=Path, action="append", help="repeatable: several trees side by side"
    )
    parser.add_argument("--max-files", type=int, default=300)
    parser.add_argument("--sides", default=",".join(SIDES))
    parser.add_argument("--no-embed", action="store_true", help="rows / nodes only")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "ragstrata-bench"
    )
    parser.add_argument("--side", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--repo", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.side:  # inside one side's subprocess
        embed = not args.no_embed
        if args.side == "ragstrata":
            data = run_ragstrata(args.repo, embed)
        elif args.side == "llama":
            data = run_llama(args.repo, embed)
        else:
            data = run_static(args.repo, args.cache)
        data["peak_rss_mb"] = _peak_mb()
        print(json.dumps(data))
        return 0

    settings = Settings()
    roots: list[Path] = args.root or [Path(sysconfig.get_paths()["stdlib"])]
    per_root = max(1, args.max_files // len(roots)) if args.max_files else 0
    picked = [(root, pick_subset(root, per_root, settings)) for root in roots]
    sides = [s for s in args.sides.split(",") if s in SIDES]
    if "static" in sides:
        static_table(args.cache)  # distil once, outside the timed runs
    with tempfile.TemporaryDirectory(prefix="ragstrata-bench-") as tmp:
        repo = Path(tmp) / "tree"
        for i, (root, paths) in enumerate(picked):
            copy_subset(root, paths, repo / f"t{i}" if len(roots) > 1 else repo)
        files = _paths(repo)
        result: dict[str, Any] = {
            "root": ", ".join(r.name for r in roots),
            "files": len(files),
            "bytes": sum((repo / p).stat().st_size for p in files),
            "embed": not args.no_embed,
        }
        for side in sides:
            result[side] = run_side(side, repo, not args.no_embed, args.cache)
    if "ragstrata" in result:
        result["ratios"] = _ratios(result)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"tree: {result['root']} subset, {result['files']} files, {result['bytes']} bytes")
    for side in sides:
        d = result[side]
        print(
            f"{side:10s}: first search {d.get('first_search_s')} s, full {d.get('full_s')} s, "
            f"cpu {d.get('cpu_s')} s, peak {d.get('peak_rss_mb')} MB, "
            f"texts {d.get('embedded_texts')}, no-op {d.get('noop_s', '-')} s, "
            f"edit {d.get('edit_s', '-')} s"
        )
    for side, r in result.get("ratios", {}).items():
        print(f"{side} / ragstrata: " + ", ".join(f"{k} {v}x" for k, v in r.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
