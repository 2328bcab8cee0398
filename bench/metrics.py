"""Retrieval metrics shared by ``bench/compare.py`` and the baselines: recall@k, hit@k, MRR.

A system returns, per query, a ranked list of hits; each hit names a ``path`` and optionally a
``symbol`` (qualified name). For file-level metrics the list is reduced to distinct paths in
first-seen order (so ten chunks of one file count as one ranked file); for symbol-level metrics
to distinct non-null symbols the same way, a hit symbol counting as a gold symbol when it equals
it or ends with its dotted segments (``ragstrata.core.names.suffix_match``, the rule of
``ragstrata eval``). Against a query's gold set G and that ranked list R:

- ``recall@k`` = |G ∩ R[:k]| / |G|
- ``hit@k``    = 1 if G ∩ R[:k] is non-empty else 0
- ``mrr``      = 1 / (rank of the first gold item in R[:MRR_DEPTH]), 0 when none (MRR@10)

and each is averaged over the queries that have a non-empty gold set at that level. Symbol
level is ``None`` ("n/a") when no query has ``gold_symbols`` or when the system gives no symbols
at all (whole-file BM25).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ragstrata.app.evaluation import MRR_DEPTH, LevelMetrics, level_metrics

__all__ = [
    "KS",
    "MRR_DEPTH",
    "LevelScores",
    "distinct",
    "evaluate",
    "gold_symbols_in",
    "load_dataset",
    "score_level",
]

KS = (1, 5, 10)
"""The cut-offs reported everywhere."""


class LevelScores(LevelMetrics):
    """Averages of one level (file or symbol): ``ragstrata.app.evaluation.LevelMetrics``, one rule."""

    def as_dict(self) -> dict[str, float | int]:
        """``{"n", "recall@1", …, "hit@10", "mrr"}`` rounded to 4 places."""
        return self.to_dict()


def distinct(items: Iterable[str | None]) -> list[str]:
    """Non-empty items in first-seen order, each once."""
    seen: dict[str, None] = {}
    for item in items:
        if item and item not in seen:
            seen[item] = None
    return list(seen)


def gold_symbols_in(hit_symbols: Iterable[str | None], gold: Sequence[str]) -> list[str]:
    """Distinct symbols in hit order, a symbol matching a gold one reported as that gold one."""
    from ragstrata.core.names import suffix_match

    out: dict[str, None] = {}
    for symbol in hit_symbols:
        if not symbol:
            continue
        name = next((g for g in gold if symbol == g or suffix_match(symbol, g)), symbol)
        out.setdefault(name, None)
    return list(out)


def score_level(
    ranked: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]
) -> LevelScores | None:
    """Average recall@k / hit@k / MRR of ranked lists against gold sets (queries with gold only).

    ``ranked[i]`` must already be distinct (see :func:`distinct`). ``None`` when no query has gold.
    The arithmetic is ``ragstrata eval``'s own (:func:`ragstrata.app.evaluation.level_metrics`), so the
    baselines and ragstrata are scored by one implementation.
    """
    scores = level_metrics(ranked, gold, KS)
    if scores is None:
        return None
    return LevelScores(n=scores.n, recall=scores.recall, hit=scores.hit, mrr=scores.mrr)


def evaluate(
    rows: Sequence[Mapping[str, Any]], hits_by_qid: Mapping[str, Sequence[Mapping[str, Any]]]
) -> dict[str, Any]:
    """File- and symbol-level scores of ``hits_by_qid`` (qid -> ranked hits) on dataset ``rows``.

    Returns ``{"n", "file": {...}, "symbol": {...} | None}``; a query with no entry in
    ``hits_by_qid`` counts as an empty result (all zeros), never as skipped.
    """
    file_ranked, file_gold, sym_ranked, sym_gold = [], [], [], []
    any_symbol = False
    for row in rows:
        hits = hits_by_qid.get(str(row["qid"]), ())
        file_ranked.append(distinct(h.get("path") for h in hits))
        file_gold.append(list(row.get("gold_files") or ()))
        gold_symbols = list(row.get("gold_symbols") or ())
        symbols = gold_symbols_in((h.get("symbol") for h in hits), gold_symbols)
        any_symbol = any_symbol or bool(symbols)
        sym_ranked.append(symbols)
        sym_gold.append(gold_symbols)
    files = score_level(file_ranked, file_gold)
    symbols_scores = score_level(sym_ranked, sym_gold) if any_symbol else None
    return {
        "n": len(rows),
        "file": files.as_dict() if files else None,
        "symbol": symbols_scores.as_dict() if symbols_scores else None,
    }


def load_dataset(path: Path | str) -> list[dict[str, Any]]:
    """The rows of a JSONL dataset (``qid``, ``query``, ``gold_files``, optional ``gold_symbols``)."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            row = json.loads(line)
            if "query" not in row or "gold_files" not in row:
                raise ValueError(f"{path}:{n}: a row needs 'query' and 'gold_files'")
            row.setdefault("qid", f"q{n:04d}")
            rows.append(row)
    return rows
