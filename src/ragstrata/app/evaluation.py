"""Retrieval evaluation: file- and symbol-level recall@k, hit@k and MRR on a JSONL dataset.

A dataset row is ``{"query", "gold_files", "gold_symbols"?}`` (``qid`` and ``repo`` optional,
the format of ``shared/eval/sweqa-dev.jsonl``). For each query the retriever's hits are reduced
to a ranked list of distinct files (each file ranked by its best hit) and of distinct symbols
(a hit's symbol counts as a gold symbol when it equals it or ends with its dotted segments:
gold ``Store.search`` matches ``pkg.store.Store.search``). Against the gold set G:

- ``recall@k`` = |G ∩ top k| / |G|;  ``hit@k`` = 1 when G ∩ top k is non-empty;
- ``mrr`` = 1 / rank of the first gold item within the first ten (0 when none),

each averaged over the queries that have gold at that level (symbol level: ``None`` when no
query has ``gold_symbols``).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ragstrata.core.evidence import Hit
from ragstrata.core.names import suffix_match
from ragstrata.errors import UserError
from ragstrata.retrieve.fusion import file_ranking

if TYPE_CHECKING:
    from ragstrata.app.facade import Ragstrata

__all__ = [
    "KS",
    "MRR_DEPTH",
    "EvalItem",
    "EvalReport",
    "LevelMetrics",
    "evaluate",
    "level_metrics",
    "load_dataset",
    "ranked_files",
    "ranked_symbols",
    "select_for_tree",
]

KS: tuple[int, ...] = (1, 5, 10)
MRR_DEPTH = 10


@dataclass(frozen=True, slots=True)
class EvalItem:
    """One dataset question with its gold files (and symbols)."""

    qid: str
    query: str
    gold_files: tuple[str, ...]
    gold_symbols: tuple[str, ...] = ()
    repo: str | None = None


@dataclass(frozen=True, slots=True)
class LevelMetrics:
    """Averages of one level (files or symbols) over ``n`` queries."""

    n: int
    recall: dict[int, float]
    hit: dict[int, float]
    mrr: float

    def to_dict(self) -> dict[str, float | int]:
        """``{"n", "recall@1", ..., "hit@10", "mrr"}`` rounded to 4 places."""
        out: dict[str, float | int] = {"n": self.n}
        out.update({f"recall@{k}": round(v, 4) for k, v in self.recall.items()})
        out.update({f"hit@{k}": round(v, 4) for k, v in self.hit.items()})
        out["mrr"] = round(self.mrr, 4)
        return out


@dataclass(frozen=True, slots=True)
class EvalReport:
    """The scores of one dataset run, with per-query ranks for inspection."""

    dataset: str
    n: int
    file: LevelMetrics | None
    symbol: LevelMetrics | None
    latency_ms_p50: float
    latency_ms_p95: float
    per_query: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self, *, per_query: bool = False) -> dict[str, Any]:
        """JSON-ready form (per-query details only when asked)."""
        out: dict[str, Any] = {
            "dataset": self.dataset,
            "n": self.n,
            "file": self.file.to_dict() if self.file else None,
            "symbol": self.symbol.to_dict() if self.symbol else None,
            "latency_ms": {
                "p50": round(self.latency_ms_p50, 1),
                "p95": round(self.latency_ms_p95, 1),
            },
        }
        if per_query:
            out["queries"] = self.per_query
        return out


def _strings(value: Any, where: str, *, paths: bool = False) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UserError(f"{where}: expected a list of strings, got {value!r}")
    return tuple(_norm_path(v) if paths else v for v in value)


def _norm_path(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


def read_jsonl(path: Path, what: str) -> Iterator[tuple[int, Any]]:
    """``(line number, parsed value)`` of every non-blank line of a JSONL file; raises
    ``UserError`` naming the file (``what`` it holds) or the bad line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror}") from None
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserError(f"{path}:{n}: invalid JSON: {exc.msg}") from None


def load_dataset(path: Path) -> list[EvalItem]:
    """The rows of a JSONL dataset; raises ``UserError`` naming the bad line."""
    items: list[EvalItem] = []
    for n, row in read_jsonl(path, "dataset"):
        if not isinstance(row, dict) or not isinstance(row.get("query"), str):
            raise UserError(f"{path}:{n}: a row needs a string 'query' and 'gold_files'")
        if "gold_files" not in row:
            raise UserError(f"{path}:{n}: a row needs 'gold_files'")
        items.append(
            EvalItem(
                qid=str(row.get("qid", f"q{n:04d}")),
                query=row["query"],
                gold_files=_strings(row["gold_files"], f"{path}:{n}: gold_files", paths=True),
                gold_symbols=_strings(row.get("gold_symbols"), f"{path}:{n}: gold_symbols"),
                repo=row.get("repo") if isinstance(row.get("repo"), str) else None,
            )
        )
    return items


class _HasRepo(Protocol):
    @property
    def repo(self) -> str | None: ...


_Item = TypeVar("_Item", bound=_HasRepo)


def select_for_tree(items: Sequence[_Item], tree: Path) -> tuple[list[_Item], str | None]:
    """The items about the repository in ``tree`` when the dataset mixes repositories.

    A row's ``repo`` (``owner/name``) matches when the tree folder's name is ``name`` or starts
    with ``name-`` or ``name@`` (``requests-46e939b5``, ``gin@dcaa4296...``). Returns the items
    and the repo chosen (``None`` when the dataset names one repository or none)."""
    repos = {i.repo for i in items if i.repo}
    if len(repos) <= 1:
        return list(items), None
    folder = tree.resolve().name.lower()
    names = {r: r.rsplit("/", 1)[-1].lower() for r in repos}
    chosen = [
        r
        for r, name in names.items()
        if folder == name or folder.startswith((name + "-", name + "@"))
    ]
    if len(chosen) != 1:
        raise UserError(
            f"the dataset mixes repositories {sorted(repos)} and the tree folder {tree.name!r} "
            "names none of them: pass --repo-name"
        )
    return [i for i in items if i.repo == chosen[0]], chosen[0]


def ranked_files(hits: Sequence[Hit]) -> list[str]:
    """Distinct files, each ranked by its best hit."""
    return [path for path, _ in file_ranking(hits)]


def ranked_symbols(hits: Sequence[Hit], gold: Sequence[str] = ()) -> list[str]:
    """Distinct symbols in hit order; a symbol that matches a gold symbol (see module
    docstring) is reported as that gold symbol."""
    out: dict[str, None] = {}
    for h in hits:
        if not h.symbol:
            continue
        name = next((g for g in gold if h.symbol == g or suffix_match(h.symbol, g)), h.symbol)
        out.setdefault(name, None)
    return list(out)


def level_metrics(
    ranked: Sequence[Sequence[str]], gold: Sequence[Sequence[str]], ks: Sequence[int] = KS
) -> LevelMetrics | None:
    """Average recall@k, hit@k and MRR@10 over the queries with a non-empty gold set."""
    if len(ranked) != len(gold):
        raise ValueError(f"{len(ranked)} ranked lists for {len(gold)} gold sets")
    recall = dict.fromkeys(ks, 0.0)
    hit = dict.fromkeys(ks, 0.0)
    mrr = 0.0
    n = 0
    for items, gold_items in zip(ranked, gold, strict=True):
        g = set(gold_items)
        if not g:
            continue
        n += 1
        for k in ks:
            found = len(g.intersection(items[:k]))
            recall[k] += found / len(g)
            hit[k] += 1.0 if found else 0.0
        for rank, item in enumerate(items[:MRR_DEPTH], start=1):
            if item in g:
                mrr += 1.0 / rank
                break
    if n == 0:
        return None
    return LevelMetrics(
        n=n,
        recall={k: v / n for k, v in recall.items()},
        hit={k: v / n for k, v in hit.items()},
        mrr=mrr / n,
    )


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def evaluate(
    rs: Ragstrata,
    items: Sequence[EvalItem],
    *,
    top_k: int = 50,
    dataset: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> EvalReport:
    """Run every question through ``rs.search`` (``top_k`` hits each) and score the ranks."""
    files, gold_files, symbols, gold_symbols = [], [], [], []
    latencies: list[float] = []
    per_query: list[dict[str, Any]] = []
    for i, item in enumerate(items, start=1):
        start = time.perf_counter()
        hits = rs.search(item.query, top_k=top_k).hits
        latencies.append((time.perf_counter() - start) * 1000)
        f = ranked_files(hits)
        s = ranked_symbols(hits, item.gold_symbols)
        files.append(f)
        gold_files.append(item.gold_files)
        symbols.append(s)
        gold_symbols.append(item.gold_symbols)
        first = next((r for r, p in enumerate(f, 1) if p in set(item.gold_files)), None)
        per_query.append({"qid": item.qid, "first_gold_file_rank": first, "files": f[:10]})
        if progress is not None:
            progress(i, len(items))
    return EvalReport(
        dataset=dataset,
        n=len(items),
        file=level_metrics(files, gold_files),
        symbol=level_metrics(symbols, gold_symbols),
        latency_ms_p50=_percentile(latencies, 50),
        latency_ms_p95=_percentile(latencies, 95),
        per_query=per_query,
    )
