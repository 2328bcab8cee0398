"""Baseline (a): whole-file BM25 (bm25s) over path + file text, identifiers split.

One document per file the walker accepts: its path followed by its text, tokenized by
:func:`bench.baselines.common.code_tokens` (words, snake_case/camelCase parts, no stop words).
Hits are whole files (``start_line`` 1 .. last line, ``symbol`` None), so symbol level is n/a.

    .venv/bin/python bench/baselines/bm25_files.py --dataset F --tree DIR [--repo R] [--json]
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.baselines.common import Hits, code_tokens, corpus_files, main_for

__all__ = ["search"]


def search(rows: list[dict[str, Any]], tree: Path, top_k: int = 10) -> Hits:
    """Ranked whole-file hits for every row's ``query``."""
    import bm25s
    import numpy as np

    files = corpus_files(tree)
    docs = [code_tokens(path + "\n" + text) for path, text in files]
    # bm25s needs every document non-empty to keep ids aligned.
    docs = [d or ["\x00empty"] for d in docs]
    retriever = bm25s.BM25()
    retriever.index(docs, show_progress=False)
    lines = [max(1, text.count("\n") + (0 if text.endswith("\n") else 1)) for _, text in files]
    out: Hits = {}
    for row in rows:
        tokens = code_tokens(str(row["query"]))
        scores = retriever.get_scores(tokens) if tokens else np.zeros(len(files))
        order = np.argsort(-scores, kind="stable")[:top_k]
        out[str(row["qid"])] = [
            {
                "path": files[i][0],
                "start_line": 1,
                "end_line": lines[i],
                "symbol": None,
                "score": float(scores[i]),
            }
            for i in order
            if scores[i] > 0
        ]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    return main_for("Whole-file BM25 baseline (bm25s, identifier splitting).", search, argv)


if __name__ == "__main__":
    raise SystemExit(main())
