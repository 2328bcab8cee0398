"""What every baseline shares: the corpus (the files ragstrata's walker accepts), the
identifier-splitting tokenizer, the command line and the report.

Every baseline script takes ``--dataset F --tree DIR [--json] [--repo OWNER/NAME]`` and prints
the same metrics as ``ragstrata eval`` (see ``bench/metrics.py``): a JSON object with ``--json``,
else a short table. ``--repo`` keeps only dataset rows whose ``repo`` field matches (the SWE-QA
dev file holds three repositories).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.metrics import KS, evaluate, load_dataset  # noqa: E402

__all__ = [
    "Hits",
    "bench_cache",
    "code_tokens",
    "corpus_files",
    "embed_model",
    "format_scores",
    "main_for",
    "parse_args",
    "select_rows",
]

Hits = dict[str, list[dict[str, Any]]]
"""qid -> ranked hits (``path``, ``start_line``, ``end_line``, ``symbol``, ``score``)."""

_SPLIT = re.compile(r"[./\\:\-]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
        "what",
        "which",
        "who",
        "whom",
        "why",
        "how",
        "when",
        "where",
        "does",
        "do",
        "did",
        "can",
        "could",
        "should",
        "would",
        "has",
        "have",
        "had",
        "i",
        "you",
        "we",
        "our",
        "your",
        "its",
        "from",
    ]
)


def bench_cache() -> Path:
    """Where bench trees, sets and caches live: ``$RSTRATA_BENCH_CACHE``, else
    ``~/.cache/ragstrata-bench`` — never inside the repository. (Not ``RAGSTRATA_*``: that
    prefix is the settings namespace, and ragstrata rejects names it does not know.)"""
    env = os.environ.get("RSTRATA_BENCH_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "ragstrata-bench"


def embed_model() -> str:
    """The local model the dense baselines use: ragstrata's own choice for this run
    (``RAGSTRATA_EMBEDDER_MODEL``, as ragstrata reads it), else the packaged MiniLM, so both
    sides of a comparison embed with the same model."""
    from ragstrata.embed.local import MINILM_MODEL

    return os.environ.get("RAGSTRATA_EMBEDDER_MODEL") or MINILM_MODEL


def code_tokens(text: str) -> list[str]:
    """Lower-cased words plus identifier parts: ``get_environ_proxies`` -> itself, get,
    environ, proxies; ``HTTPAdapter.send`` -> httpadapter, http, adapter, send. English stop
    words dropped. Used for both documents and queries.
    """
    from ragstrata.text.tokens import identifier_parts, word_tokens

    out: list[str] = []
    for token in word_tokens(text):
        for piece in _SPLIT.split(token):
            if not piece:
                continue
            low = piece.lower()
            if low not in _STOP:
                out.append(low)
            parts = identifier_parts(piece)
            if len(parts) > 1:
                out.extend(p.lower() for p in parts if p.lower() not in _STOP)
    return out


def corpus_files(tree: Path) -> list[tuple[str, str]]:
    """(path, text) of every file ragstrata's walker accepts under ``tree``, sorted by path."""
    from ragstrata.ingest.walker import walk

    files, _ = walk(tree)
    return sorted((f.path, f.text) for f in files)


def select_rows(rows: Sequence[dict[str, Any]], repo: str | None) -> list[dict[str, Any]]:
    """Rows whose ``repo`` equals ``repo`` (all rows when ``repo`` is None)."""
    return [r for r in rows if repo is None or r.get("repo") == repo]


def parse_args(description: str, argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The shared command line."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--dataset", type=Path, required=True, help="JSONL of {qid, query, gold_files}")
    ap.add_argument("--tree", type=Path, required=True, help="the repository tree to search")
    ap.add_argument("--repo", default=None, help="only rows whose 'repo' field equals this")
    ap.add_argument("--top-k", type=int, default=10)
    ap.add_argument("--json", action="store_true", help="print the metrics as one JSON object")
    ap.add_argument("--hits-out", type=Path, default=None, help="write qid->hits JSONL here")
    return ap.parse_args(argv)


def format_scores(scores: Mapping[str, Any]) -> str:
    """A few aligned lines: file and symbol level, @1/@5/@10 and MRR."""
    lines = [f"queries: {scores['n']}"]
    for level in ("file", "symbol"):
        s = scores.get(level)
        if not s:
            lines.append(f"{level:>6}: n/a")
            continue
        cells = [f"R@{k} {s[f'recall@{k}']:.3f}" for k in KS]
        cells += [f"H@{k} {s[f'hit@{k}']:.3f}" for k in KS]
        lines.append(f"{level:>6}: " + "  ".join(cells) + f"  MRR {s['mrr']:.3f}  (n={s['n']})")
    return "\n".join(lines)


def main_for(
    description: str,
    search: Callable[[list[dict[str, Any]], Path, int], Hits],
    argv: Sequence[str] | None = None,
) -> int:
    """Run ``search(rows, tree, top_k)`` and print the metrics; the body of every baseline."""
    args = parse_args(description, argv)
    if not args.tree.is_dir():
        print(f"error: tree not found: {args.tree}", file=sys.stderr)
        return 2
    rows = select_rows(load_dataset(args.dataset), args.repo)
    if not rows:
        print(f"error: no rows in {args.dataset} for repo {args.repo!r}", file=sys.stderr)
        return 2
    hits = search(rows, args.tree.resolve(), args.top_k)
    if args.hits_out:
        with open(args.hits_out, "w", encoding="utf-8") as fh:
            for row in rows:
                qid = str(row["qid"])
                fh.write(json.dumps({"qid": qid, "hits": hits.get(qid, [])}) + "\n")
    scores = evaluate(rows, hits)
    print(json.dumps(scores) if args.json else format_scores(scores))
    return 0
