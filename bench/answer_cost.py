"""What an LLM-written answer costs, in prompt tokens, on the SWE-QA dev questions.

For each question of ``shared/eval/sweqa-dev.jsonl`` the script asks ``Ragstrata.ask`` against
an index of that repository's tree (``/work/evalcache/trees/<name>-<commit8>/``, indexed with
the default MiniLM embedder) with a *recording* runner: the answer graphs build their prompt
exactly as they would for a real model (``answer.graphs.llm.build_request`` over the graph's
evidence blocks) and the runner keeps it instead of sending it. Questions whose evidence does not
satisfy the plan get the extractive "not found" answer and cost no call; they are counted.

Token counts per prompt (system + user):

- ``chars/4``: the estimate used by ``ragstrata summarize --dry-run`` (BPE vocabularies of
  current chat models average 3.5-4.5 characters per token on English and code);
- ``minilm``: the packaged MiniLM WordPiece tokenizer, as a cross-check (it splits code and
  Cyrillic more finely than a chat model's BPE, so it reads high).

Cost = input tokens at the listed price + an assumed reply of ``--output-tokens`` tokens
(prices: ``ragstrata/data/llm/prices.toml``). The index is copied (SQLite backup API) to a
temporary folder first, so a tree being indexed by another process is never written to.

Run: ``python bench/answer_cost.py [--n 60] [--output-tokens 400] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from importlib import resources
from pathlib import Path
from typing import Any

from ragstrata.app.facade import Ragstrata
from ragstrata.indexer.summaries import estimate_tokens
from ragstrata.llm.base import Request, RunResult
from ragstrata.llm.pricing import PriceTable
from ragstrata.settings import Settings
from ragstrata.store.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval" / "sweqa-dev.jsonl"
TREES = Path("/work/evalcache/trees")
MODELS = ("gpt-4.1-nano", "gpt-4o-mini", "gpt-4.1-mini", "gpt-4o")


class RecordingRunner:
    """Keeps every request; replies with a one-citation answer so the graph completes."""

    def __init__(self) -> None:
        self.requests: list[Request] = []

    def run(self, request: Request) -> RunResult:
        self.requests.append(request)
        return RunResult(text="See [1].")


def _minilm() -> Any:
    from tokenizers import Tokenizer

    path = resources.files("ragstrata").joinpath(
        "data", "embed", "all-MiniLM-L6-v2", "tokenizer.json"
    )
    tok = Tokenizer.from_str(path.read_text(encoding="utf-8"))
    tok.no_truncation()
    return tok


def _tree(record: dict[str, Any]) -> Path | None:
    name = record["repo"].split("/")[-1]
    tree = TREES / f"{name}-{record['commit'][:8]}"
    return tree if (tree / ".ragstrata" / "index.sqlite").exists() else None


def _copy_index(tree: Path, into: Path) -> Path:
    target = into / tree.name / "index.sqlite"
    target.parent.mkdir(parents=True)
    src = sqlite3.connect(f"file:{tree / '.ragstrata' / 'index.sqlite'}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    src.backup(dst)
    src.close()
    dst.close()
    return target


def _pct(values: list[int], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def measure(n: int, output_tokens: int) -> dict[str, Any]:
    """Ask up to ``n`` dev questions (spread over the repositories) and count prompt tokens."""
    records = [json.loads(line) for line in EVAL.read_text(encoding="utf-8").splitlines() if line]
    by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_repo[r["repo"]].append(r)
    chosen: list[dict[str, Any]] = []
    while len(chosen) < min(n, len(records)) and any(by_repo.values()):
        for queue in by_repo.values():
            if queue and len(chosen) < n:
                chosen.append(queue.pop(0))
    tokenizer = _minilm()
    rows: list[dict[str, Any]] = []
    skipped_trees: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="ragstrata-cost-") as tmp:
        opened: dict[Path, tuple[Ragstrata, RecordingRunner]] = {}
        try:
            for record in chosen:
                tree = _tree(record)
                if tree is None:
                    skipped_trees.add(record["repo"])
                    continue
                if tree not in opened:
                    runner = RecordingRunner()
                    store = SQLiteStore(_copy_index(tree, Path(tmp)))
                    opened[tree] = (Ragstrata(tree, Settings(), store=store, runner=runner), runner)
                rs, runner = opened[tree]
                before = len(runner.requests)
                t0 = time.perf_counter()
                result = rs.ask(record["query"])
                seconds = time.perf_counter() - t0
                sent = runner.requests[before:]
                text = "\n\n".join(r.combined() for r in sent)
                rows.append(
                    {
                        "qid": record["qid"],
                        "graph": result.answer.graph_id,
                        "calls": len(sent),
                        "chars": len(text),
                        "tokens_chars4": sum(estimate_tokens(r.combined()) for r in sent),
                        "tokens_minilm": sum(len(tokenizer.encode(r.combined()).ids) for r in sent),
                        "blocks": len(result.answer.meta.get("blocks", [])),
                        "seconds": round(seconds, 3),
                    }
                )
        finally:
            for rs, _ in opened.values():
                rs.close()
    return summarize_rows(rows, output_tokens, sorted(skipped_trees))


def summarize_rows(
    rows: list[dict[str, Any]], output_tokens: int, skipped: list[str]
) -> dict[str, Any]:
    """p50/p95 of prompt tokens over the questions that made a call, and cost per answer."""
    called = [r for r in rows if r["calls"]]
    c4 = [r["tokens_chars4"] for r in called]
    ml = [r["tokens_minilm"] for r in called]
    prices = PriceTable.load()
    cost = {}
    for model in MODELS:
        price = prices.get(model)
        if price is None:
            continue
        cost[model] = {
            "p50_usd": round(price.cost(int(_pct(c4, 0.5)), output_tokens), 6),
            "p95_usd": round(price.cost(int(_pct(c4, 0.95)), output_tokens), 6),
            "per_1000_answers_usd": round(
                1000 * statistics.fmean(price.cost(t, output_tokens) for t in c4), 2
            )
            if c4
            else 0.0,
            "price_per_1m": {"input": price.input, "output": price.output},
        }
    graphs: dict[str, int] = defaultdict(int)
    for r in called:
        graphs[r["graph"]] += 1
    return {
        "questions": len(rows),
        "llm_calls": sum(r["calls"] for r in rows),
        "no_call_not_grounded": len(rows) - len(called),
        "graphs": dict(graphs),
        "blocks_mean": round(statistics.fmean(r["blocks"] for r in called), 1) if called else 0,
        "input_tokens_chars4": {
            "p50": _pct(c4, 0.5),
            "p95": _pct(c4, 0.95),
            "max": max(c4, default=0),
            "mean": round(statistics.fmean(c4), 1) if c4 else 0,
        },
        "input_tokens_minilm": {
            "p50": _pct(ml, 0.5),
            "p95": _pct(ml, 0.95),
            "max": max(ml, default=0),
        },
        "assumed_output_tokens": output_tokens,
        "cost": cost,
        "trees_missing": skipped,
        "ask_seconds_p50": _pct([int(r["seconds"] * 1000) for r in rows], 0.5) / 1000,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=60, help="questions (spread over repositories)")
    parser.add_argument("--output-tokens", type=int, default=400, help="assumed reply length")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    summary = measure(args.n, args.output_tokens)
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    c4, ml = summary["input_tokens_chars4"], summary["input_tokens_minilm"]
    console.print(
        f"{summary['questions']} questions, {summary['llm_calls']} LLM calls "
        f"({summary['no_call_not_grounded']} answered 'not found' without a call); "
        f"graphs {summary['graphs']}; {summary['blocks_mean']} evidence blocks per prompt"
    )
    console.print(
        f"input tokens per answer: chars/4 p50 {c4['p50']:.0f}, p95 {c4['p95']:.0f}, "
        f"max {c4['max']}; MiniLM WordPiece p50 {ml['p50']:.0f}, p95 {ml['p95']:.0f}"
    )
    table = Table(
        title=f"cost per answer (input + {summary['assumed_output_tokens']} output tokens)"
    )
    for col in ("model", "USD/1M in", "USD/1M out", "p50 USD", "p95 USD", "per 1000 answers"):
        table.add_column(col, justify="right")
    for model, c in summary["cost"].items():
        table.add_row(
            model,
            f"{c['price_per_1m']['input']:.2f}",
            f"{c['price_per_1m']['output']:.2f}",
            f"{c['p50_usd']:.5f}",
            f"{c['p95_usd']:.5f}",
            f"{c['per_1000_answers_usd']:.2f}",
        )
    console.print(table)
    if summary["trees_missing"]:
        console.print(f"no indexed tree for: {', '.join(summary['trees_missing'])}")


if __name__ == "__main__":
    main()
