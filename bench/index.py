"""Full index and no-op re-index of a real tree: ragstrata vs LlamaIndex ingestion, one run.

Both sides index the SAME subset of a real tree (default: this Python's standard library,
``*.py`` plus docs, test folders left out), copied to a temporary folder, with the SAME
embedding model: ragstrata's packaged MiniLM int8 (``OnnxMiniLMEmbedder``), wrapped as a
LlamaIndex ``BaseEmbedding`` for the LlamaIndex side.

- ragstrata: ``Indexer.run()`` (walk, tree-sitter C0-C3 / D0-D2 rows, SQLite, vectors for
  definitions and doc sections/chunks), then a second run on the unchanged tree.
- LlamaIndex (llama-index-core): an ``IngestionPipeline`` with a docstore (its incremental
  mechanism: document hashes) whose splitter step sends code to ``CodeSplitter`` (tree-sitter,
  given the installed ``tree_sitter_python`` parser; ``max_chars`` = our chunk size) and docs to
  ``SentenceSplitter``, then the embedding step, then ``VectorStoreIndex`` over the nodes. The
  re-index reads the files again and runs the pipeline, which skips unchanged documents.
  Whitespace tokenizers are passed to both splitters so nothing is downloaded (tiktoken).

    .venv/bin/python bench/index.py [--root DIR] [--max-files 400] [--json] [--skip-llama]

The subset: files sorted by path, every k-th kept so ``--max-files`` spread over the tree.
Never gates CI; numbers go into the README.
"""

from __future__ import annotations

import argparse
import json
import shutil
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

_DOC_LANGS = {"markdown", "restructuredtext", "text", "rst"}


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


# --------------------------------------------------------------------------- ragstrata


def run_ragstrata(repo: Path, embedder: OnnxMiniLMEmbedder, settings: Settings) -> dict[str, Any]:
    phases: dict[str, float] = {}
    marks = {"start": time.perf_counter()}

    def progress(event: IndexEvent) -> None:
        if event.phase == "embed" and "embed_start" not in marks:
            marks["embed_start"] = time.perf_counter()

    store = SQLiteStore.for_repo(repo)
    try:
        full = Indexer(repo, store, embedder, settings).run(progress=progress)
        end = time.perf_counter()
        phases["rows_s"] = marks.get("embed_start", end) - marks["start"]
        phases["embed_s"] = end - marks.get("embed_start", end)
        t0 = time.perf_counter()
        noop = Indexer(repo, store, embedder, settings).run()
        noop_s = time.perf_counter() - t0
    finally:
        store.close()
    data = full.to_dict()
    return {
        "full_s": round(full.seconds, 2),
        **{k: round(v, 2) for k, v in phases.items()},
        "noop_s": round(noop_s, 3),
        "files": data["files"]["added"],
        "rows": data["rows"],
        "embedded_texts": data["embeddings"]["done"],
        "noop_changed": noop.added + noop.changed + noop.removed,
    }


# --------------------------------------------------------------------------- LlamaIndex


def run_llama(repo: Path, paths: Sequence[str], embedder: OnnxMiniLMEmbedder) -> dict[str, Any]:
    import tree_sitter_python
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.node_parser import CodeSplitter, SentenceSplitter
    from llama_index.core.schema import BaseNode, TransformComponent
    from llama_index.core.storage.docstore import SimpleDocumentStore
    from pydantic import PrivateAttr
    from tree_sitter import Language, Parser

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

    embed_model = MiniLMEmbedding(embedder)

    def load() -> list[Any]:
        docs = []
        for rel in paths:
            text = (repo / rel).read_text(encoding="utf-8", errors="replace")
            docs.append(Document(text=text, id_=rel, metadata={"file_path": rel}))
        return docs

    pipeline = IngestionPipeline(
        transformations=[BySuffix(), embed_model], docstore=SimpleDocumentStore()
    )
    t0 = time.perf_counter()
    nodes = pipeline.run(documents=load())
    VectorStoreIndex(nodes, embed_model=embed_model)
    full_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    again = pipeline.run(documents=load())
    noop_s = time.perf_counter() - t1
    return {
        "full_s": round(full_s, 2),
        "noop_s": round(noop_s, 3),
        "nodes": len(nodes),
        "embedded_texts": len(nodes),
        "noop_nodes": len(again),
        "splitter": "CodeSplitter (tree-sitter) + SentenceSplitter",
    }


# --------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--max-files", type=int, default=400)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--skip-llama", action="store_true")
    args = parser.parse_args(argv)

    settings = Settings()
    paths = pick_subset(args.root, args.max_files, settings)
    embedder = OnnxMiniLMEmbedder(MINILM_MODEL)
    embedder.embed_documents(["warm up"])  # both sides get a loaded model
    with tempfile.TemporaryDirectory(prefix="ragstrata-bench-") as tmp:
        repo = Path(tmp) / "tree"
        copy_subset(args.root, paths, repo)
        size = sum((repo / p).stat().st_size for p in paths)
        result: dict[str, Any] = {
            "root": str(args.root),
            "files": len(paths),
            "bytes": size,
            "ragstrata": run_ragstrata(repo, embedder, settings),
        }
        if not args.skip_llama:
            result["llamaindex"] = run_llama(repo, paths, embedder)
            rs, li = result["ragstrata"], result["llamaindex"]
            result["ratio_full"] = round(li["full_s"] / max(rs["full_s"], 1e-9), 2)
            result["ratio_noop"] = round(li["noop_s"] / max(rs["noop_s"], 1e-9), 1)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        rs = result["ragstrata"]
        print(f"tree: {result['root']} subset, {result['files']} files, {result['bytes']} bytes")
        print(
            f"ragstrata : full {rs['full_s']} s (rows {rs['rows_s']} s + embed {rs['embed_s']} s, "
            f"{rs['embedded_texts']} texts), no-op {rs['noop_s']} s"
        )
        if "llamaindex" in result:
            li = result["llamaindex"]
            print(
                f"llamaindex: full {li['full_s']} s ({li['embedded_texts']} nodes embedded), "
                f"no-op {li['noop_s']} s"
            )
            print(f"ratio full {result['ratio_full']}x, no-op {result['ratio_noop']}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
