"""Baseline (b): LlamaIndex hybrid retrieval over the same embedding model as ragstrata.

- Corpus: the files ragstrata's walker accepts (same as every system in ``bench/compare.py``).
- Chunks: LlamaIndex's ``CodeSplitter`` (tree-sitter, its defaults: 40 lines, 1500 chars) for
  Python files, ``SentenceSplitter`` (its defaults) for everything else (and for a Python file
  the code splitter cannot parse). Each chunk keeps ``file_path`` metadata, as LlamaIndex's
  readers do.
- Dense: ``VectorStoreIndex`` with ragstrata's configured embedder (the packaged MiniLM by
  default) wrapped as a LlamaIndex ``BaseEmbedding``; persisted under
  ``--cache DIR/<content key>`` so a second run only loads it.
- Lexical: ``llama-index-retrievers-bm25`` (its defaults: English stemmer and stop words).
- Fusion: ``QueryFusionRetriever`` in ``reciprocal_rerank`` mode, one query (no LLM rewriting).
- Hits: each chunk becomes ``{path, start_line, end_line, symbol, score}``; ``symbol`` is the
  ragstrata C1 definition whose line span is most like the chunk's (highest overlap / union,
  the smaller definition on ties), so symbol-level metrics compare like for like.

    .venv/bin/python bench/baselines/llamaindex_hybrid.py --dataset F --tree DIR [--repo R] [--json]
"""

from __future__ import annotations

import bisect
import hashlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.baselines.common import Hits, corpus_files, main_for

__all__ = ["CHUNKS_PER_RETRIEVER", "DEFAULT_CACHE", "HybridIndex", "search"]

DEFAULT_CACHE = Path("/work/evalcache/llamaindex")
CHUNKS_PER_RETRIEVER = 40
"""Chunks each retriever returns before fusion (enough to fill ten distinct files)."""


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int
    symbol: str


def _embed_model() -> Any:
    """ragstrata's configured embedder as a LlamaIndex ``BaseEmbedding``."""
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from pydantic import PrivateAttr

    from ragstrata.embed.factory import make_embedder
    from ragstrata.settings import Settings

    class RagstrataEmbedding(BaseEmbedding):
        _inner: Any = PrivateAttr()

        def __init__(self, inner: Any) -> None:
            super().__init__(model_name=inner.fingerprint, embed_batch_size=inner.batch_size)
            self._inner = inner

        def _get_query_embedding(self, query: str) -> list[float]:
            return list(self._inner.embed_queries([query])[0])

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return list(self._inner.embed_documents([text])[0])

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return [list(v) for v in self._inner.embed_documents(texts)]

    return RagstrataEmbedding(make_embedder(Settings().embedder))


def _nodes(files: list[tuple[str, str]]) -> list[Any]:
    import tree_sitter
    import tree_sitter_python
    from llama_index.core import Document
    from llama_index.core.node_parser import CodeSplitter, SentenceSplitter

    code = CodeSplitter(
        language="python",
        parser=tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language())),
    )
    prose = SentenceSplitter()
    nodes: list[Any] = []
    for path, text in files:
        if not text.strip():
            continue
        doc = Document(text=text, metadata={"file_path": path}, id_=path)
        parts: list[Any] = []
        if path.endswith((".py", ".pyi")):
            try:
                parts = code.get_nodes_from_documents([doc])
            except ValueError:  # unparsable: fall back to the prose splitter
                parts = []
        nodes.extend(parts or prose.get_nodes_from_documents([doc]))
    return nodes


def _cache_key(files: list[tuple[str, str]], fingerprint: str) -> str:
    h = hashlib.sha256(f"v1|{fingerprint}|{CHUNKS_PER_RETRIEVER}".encode())
    for path, text in files:
        h.update(path.encode("utf-8", "surrogatepass") + b"\0")
        h.update(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest())
    return h.hexdigest()[:20]


def _c1_spans(files: list[tuple[str, str]]) -> dict[str, list[_Span]]:
    """ragstrata's C1 definitions (not module rows) per path, from its own extractor."""
    from ragstrata.core.languages import detect_language
    from ragstrata.core.rows import DefinitionRow, SourceFile
    from ragstrata.ingest.code.extract import extract_code
    from ragstrata.ingest.code.parsers import supported_languages

    spans: dict[str, list[_Span]] = {}
    for path, text in files:
        language = detect_language(path)
        if language not in supported_languages():
            continue
        file = SourceFile(
            path=path, language=language, is_test=False, is_doc=False, size=len(text),
            mtime_ns=0, sha256="", text=text,
        )  # fmt: skip
        try:
            rows = extract_code(file)
        except Exception:  # a baseline must not die on one odd file
            continue
        spans[path] = [
            _Span(r.start_line, r.end_line, r.symbol)
            for r in rows
            if isinstance(r, DefinitionRow) and r.kind != "module"
        ]
    return spans


class HybridIndex:
    """The LlamaIndex vector + BM25 retrievers over one tree, fused by reciprocal rank."""

    def __init__(self, tree: Path, cache: Path = DEFAULT_CACHE) -> None:
        from llama_index.core import StorageContext, VectorStoreIndex, load_index_from_storage

        self.files = corpus_files(tree)
        self._texts = dict(self.files)
        self._line_starts: dict[str, list[int]] = {}
        embed = _embed_model()
        persist = cache / _cache_key(self.files, embed.model_name)
        if (persist / "docstore.json").is_file():
            storage = StorageContext.from_defaults(persist_dir=str(persist))
            self.index = load_index_from_storage(storage, embed_model=embed)
        else:
            nodes = _nodes(self.files)
            self.index = VectorStoreIndex(nodes, embed_model=embed, show_progress=False)
            persist.mkdir(parents=True, exist_ok=True)
            self.index.storage_context.persist(persist_dir=str(persist))
        self.spans = _c1_spans(self.files)
        self._retriever = self._fusion(CHUNKS_PER_RETRIEVER)

    def _fusion(self, top_k: int) -> Any:
        from llama_index.core.llms import MockLLM
        from llama_index.core.retrievers import QueryFusionRetriever
        from llama_index.retrievers.bm25 import BM25Retriever

        nodes = list(self.index.docstore.docs.values())
        bm25 = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=top_k)
        vector = self.index.as_retriever(similarity_top_k=top_k)
        return QueryFusionRetriever(
            [vector, bm25],
            llm=MockLLM(),
            mode="reciprocal_rerank",  # type: ignore[arg-type]
            similarity_top_k=top_k,
            num_queries=1,
            use_async=False,
        )

    def _lines(self, path: str, start: int | None, end: int | None, text: str) -> tuple[int, int]:
        full = self._texts.get(path, "")
        if start is None or end is None:
            start = max(full.find(text), 0)
            end = start + len(text)
        starts = self._line_starts.get(path)
        if starts is None:
            starts = [0] + [i + 1 for i, ch in enumerate(full) if ch == "\n"]
            self._line_starts[path] = starts
        first = bisect.bisect_right(starts, start)
        last = bisect.bisect_right(starts, max(start, end - 1))
        return first, last

    def _symbol(self, path: str, start: int, end: int) -> str | None:
        best: tuple[float, int, str] | None = None
        for s in self.spans.get(path, ()):
            overlap = min(end, s.end) - max(start, s.start) + 1
            if overlap <= 0:
                continue
            union = (end - start + 1) + (s.end - s.start + 1) - overlap
            key = (-overlap / union, s.end - s.start, s.symbol)
            if best is None or key < best:
                best = key
        return best[2] if best else None

    def search(self, query: str) -> list[dict[str, Any]]:
        """Fused chunk hits for ``query``, best first."""
        hits = []
        for scored in self._retriever.retrieve(query):
            node = scored.node
            path = node.metadata.get("file_path", "")
            start, end = self._lines(
                path, node.start_char_idx, node.end_char_idx, node.get_content()
            )
            hits.append(
                {
                    "path": path,
                    "start_line": start,
                    "end_line": end,
                    "symbol": self._symbol(path, start, end),
                    "score": float(scored.score or 0.0),
                }
            )
        return hits


def search(rows: list[dict[str, Any]], tree: Path, top_k: int = 10) -> Hits:
    """Fused hits per row (all the chunks fusion returns; metrics cut them at k)."""
    index = HybridIndex(tree)
    return {str(row["qid"]): index.search(str(row["query"])) for row in rows}


def main(argv: Sequence[str] | None = None) -> int:
    return main_for("LlamaIndex hybrid baseline (vector + BM25, reciprocal rerank).", search, argv)


if __name__ == "__main__":
    raise SystemExit(main())
