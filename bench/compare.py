"""ragstrata vs simple baselines, in one run, on the same trees and queries.

Suites (each query is searched by every system against the same tree):

- ``sweqa``     — ``shared/eval/sweqa-dev.jsonl`` (144 questions, 3 repositories), one tree per
  repository at the pinned commit: ``TREES/<name>-<commit[:8]>`` (see the eval README).
- ``docstring`` — the sets ``bench/make_docstring_set.py`` builds: ``DOCSTRING/<corpus>.jsonl``
  against ``DOCSTRING/<corpus>/`` (docstrings removed from the corpus).
- ``en30`` / ``ru30`` — ``bench/data/sweqa-{en,ru}30.jsonl``: the same 30 SWE-QA questions in
  English and in Russian (hand translation), on the SWE-QA trees.
- ``swebench`` — ``SWEBENCH`` (SWE-bench Lite subset: issue text -> the non-test files the gold
  patch edits), one tree per instance (``bench/swebench.py`` extracts them). Before ragstrata
  indexes a tree, the index of the previous tree of the same repository is copied in, so the
  index is refreshed incrementally. File Acc@k (all gold files in the first k) is reported too.

Everything fetched or built lives in a cache folder outside the repository: ``--cache`` (default
``$RSTRATA_BENCH_CACHE`` or ``~/.cache/ragstrata-bench``) holds ``trees/``, ``docstring/``,
``sweqa-dev-symbols.jsonl`` (or ``sweqa-dev.jsonl``) and ``swebench-lite-dev.jsonl``; each has
its own flag too.

Systems: ``ragstrata`` (``ragstrata index TREE --json`` then ``ragstrata search --batch Q.jsonl
--repo TREE --json``, or the library facade with ``--ragstrata-via facade``), and the baselines
of ``bench/baselines/``: ``bm25_files`` (whole files), ``bm25_defs`` / ``dense_defs`` /
``rrf_defs`` (one document per definition: BM25, MiniLM over the whole definition, their RRF)
and ``llamaindex_hybrid``. A system that is missing or fails is reported with its error; the
others still run.

Prints a text table, then Markdown tables (file level and symbol level) for the README, and
writes everything (per suite, per tree, timings, errors) to ``bench/results/compare.json``.

    .venv/bin/python bench/compare.py [--suites sweqa docstring en30 ru30 swebench]
        [--systems ragstrata bm25_files bm25_defs dense_defs rrf_defs] [--cache DIR]
        [--limit N]   # at most N queries per tree (deterministic), for quick iterations
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.baselines.common import Hits, bench_cache  # noqa: E402
from bench.metrics import evaluate, load_dataset  # noqa: E402
from bench.report import headline, markdown, per_job_table, text_table  # noqa: E402
from bench.swebench import file_accuracy, seed_index  # noqa: E402

SYSTEMS = ("ragstrata", "bm25_files", "bm25_defs", "dense_defs", "rrf_defs", "llamaindex_hybrid")
DEFAULT_SYSTEMS = ("ragstrata", "bm25_files", "bm25_defs", "dense_defs", "rrf_defs")
SUITES = ("sweqa", "docstring", "en30", "ru30", "swebench")
RAGSTRATA_TOP_K = 50
"""Hits asked of ragstrata per query (the default of `ragstrata eval`): several may share a file."""


class SystemUnavailable(RuntimeError):
    """A system cannot run here (not implemented yet, or its command failed)."""


@dataclass
class Job:
    """One (tree, rows) pair of a suite."""

    suite: str
    name: str
    tree: Path
    rows: list[dict[str, Any]]
    seed: Path | None = None  # a tree of the same repository whose index may be copied in


@dataclass
class Outcome:
    """What one system produced on one job."""

    hits: Hits = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None


# --------------------------------------------------------------------------- jobs
def _tree_for(trees: Path, repo: str, commit: str) -> Path:
    return trees / f"{repo.split('/')[-1]}-{commit[:8]}"


def _split_by_tree(suite: str, rows: list[dict[str, Any]], trees: Path) -> list[Job]:
    groups: dict[Path, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(_tree_for(trees, row["repo"], row["commit"]), []).append(row)
    return [Job(suite, tree.name, tree, group) for tree, group in sorted(groups.items())]


def build_jobs(args: argparse.Namespace) -> tuple[list[Job], list[str]]:
    """The jobs of the requested suites, and notes about anything missing."""
    jobs: list[Job] = []
    notes: list[str] = []
    sources = {
        "sweqa": args.sweqa,
        "en30": ROOT / "bench" / "data" / "sweqa-en30.jsonl",
        "ru30": ROOT / "bench" / "data" / "sweqa-ru30.jsonl",
        "swebench": args.swebench,
    }
    for suite in args.suites:
        if suite == "docstring":
            sets = sorted(args.docstring.glob("*.jsonl")) if args.docstring.is_dir() else []
            if not sets:
                notes.append(f"docstring: no sets in {args.docstring} (run make_docstring_set.py)")
            for path in sets:
                tree = args.docstring / path.stem
                jobs.append(Job(suite, path.stem, tree, load_dataset(path)))
            continue
        source = sources[suite]
        if not source.is_file():
            notes.append(f"{suite}: dataset not found: {source}")
            continue
        rows = load_dataset(source)
        if suite == "swebench":
            jobs.extend(_swebench_jobs(rows, args.trees, notes))
            continue
        if suite != "sweqa" and args.sweqa.is_file():  # same questions: borrow their symbols
            symbols = {r["qid"]: r.get("gold_symbols") for r in load_dataset(args.sweqa)}
            for row in rows:
                if symbols.get(row["qid"]) and not row.get("gold_symbols"):
                    row["gold_symbols"] = symbols[row["qid"]]
        jobs.extend(_split_by_tree(suite, rows, args.trees))
    kept = []
    for job in jobs:
        if job.tree.is_dir():
            if args.limit:
                job.rows = sorted(job.rows, key=lambda r: _stable(str(r["qid"])))[: args.limit]
            kept.append(job)
        else:
            notes.append(f"{job.suite}/{job.name}: tree missing ({job.tree}); skipped")
    return kept, notes


def _stable(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


def _swebench_jobs(rows: list[dict[str, Any]], trees: Path, notes: list[str]) -> list[Job]:
    """One job per instance, in dataset order; each names the previous tree of its repository
    as the index seed."""
    jobs: list[Job] = []
    last: dict[str, Path] = {}
    missing: dict[str, int] = {}
    for row in rows:
        row["qid"] = str(row.get("instance_id") or row["qid"])
        tree = _tree_for(trees, row["repo"], row["commit"])
        if not tree.is_dir():
            missing[row["repo"]] = missing.get(row["repo"], 0) + 1
            continue
        jobs.append(Job("swebench", row["qid"], tree, [row], seed=last.get(row["repo"])))
        last[row["repo"]] = tree
    for repo, n in sorted(missing.items()):
        notes.append(f"swebench: {n} instance(s) of {repo} left out (no tree)")
    return jobs


# --------------------------------------------------------------------------- systems
def _ragstrata_ready() -> None:
    src = ROOT / "src" / "ragstrata"
    missing = [
        p
        for p in (src / "retrieve" / "retriever.py", src / "indexer")
        if not (p.exists() or p.with_suffix(".py").exists())
    ]
    if missing:
        raise SystemUnavailable(
            "ragstrata retriever/indexer not implemented yet: missing "
            + ", ".join(str(p.relative_to(ROOT)) for p in missing)
        )


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("ragstrata")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "ragstrata"]


def _run(cmd: list[str], timeout: float) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise SystemUnavailable(f"{' '.join(cmd[:3])}… exit {proc.returncode}: {' | '.join(tail)}")
    return proc.stdout


def ragstrata_cli(
    rows: list[dict[str, Any]], tree: Path, top_k: int, *, index: bool = True, embed: bool = True
) -> Hits:
    """``ragstrata index`` (unless ``index`` is false; ``--no-embed`` unless ``embed``) +
    ``ragstrata search --batch``."""
    _ragstrata_ready()
    if index:
        extra = [] if embed else ["--no-embed"]
        _run([*_cli(), "index", str(tree), "--json", *extra], timeout=3600)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps({"qid": str(row["qid"]), "query": row["query"]}) + "\n")
        queries = fh.name
    try:
        out = _run(
            [
                *_cli(),
                "search",
                "--batch",
                queries,
                "--repo",
                str(tree),
                "--top-k",
                str(top_k),
                "--json",
            ],
            timeout=3600,
        )
    finally:
        os.unlink(queries)
    hits: Hits = {}
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("{"):
            obj = json.loads(line)
            if "qid" in obj:
                hits[str(obj["qid"])] = list(obj.get("hits") or [])
    if not hits:
        raise SystemUnavailable("ragstrata search --batch printed no {qid, hits} lines")
    return hits


def _hit_dict(hit: Any) -> dict[str, Any]:
    if isinstance(hit, dict):
        return hit
    return {k: getattr(hit, k, None) for k in ("path", "start_line", "end_line", "symbol", "score")}


def ragstrata_facade(rows: list[dict[str, Any]], tree: Path, top_k: int) -> Hits:
    """The library facade in this process: ``Ragstrata(tree).index()`` then ``.search()``."""
    _ragstrata_ready()
    from ragstrata.app.facade import Ragstrata

    with Ragstrata(tree) as rs:
        rs.index()
        return {
            str(row["qid"]): [_hit_dict(h) for h in rs.search(str(row["query"]), top_k=top_k).hits]
            for row in rows
        }


def _baseline(
    module: str, func: str = "search"
) -> Callable[[list[dict[str, Any]], Path, int], Hits]:
    def run(rows: list[dict[str, Any]], tree: Path, top_k: int) -> Hits:
        import importlib

        search = getattr(importlib.import_module(f"bench.baselines.{module}"), func)
        hits: Hits = search(rows, tree, top_k)
        return hits

    return run


def runners(
    via: str, *, index: bool = True, embed: bool = True
) -> dict[str, Callable[[list[dict[str, Any]], Path, int], Hits]]:
    """System name -> ``search(rows, tree, top_k)``."""

    def cli(rows: list[dict[str, Any]], tree: Path, top_k: int) -> Hits:
        return ragstrata_cli(rows, tree, top_k, index=index, embed=embed)

    return {
        "ragstrata": ragstrata_facade if via == "facade" else cli,
        "bm25_files": _baseline("bm25_files"),
        "bm25_defs": _baseline("defs", "search_bm25"),
        "dense_defs": _baseline("defs", "search_dense"),
        "rrf_defs": _baseline("defs", "search_rrf"),
        "llamaindex_hybrid": _baseline("llamaindex_hybrid"),
    }


def save_hits(path: Path, job: Job, outcome: Outcome) -> None:
    """One ``{"qid", "hits"}`` line per query of ``job`` (for looking at failures)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for row in job.rows:
            qid = str(row["qid"])
            fh.write(json.dumps({"qid": qid, "hits": outcome.hits.get(qid, [])}) + "\n")


def pool(
    jobs: Sequence[Job],
    outcomes: dict[tuple[str, str, str], Outcome],
    suites: Sequence[str],
    systems: Sequence[str],
) -> dict[str, dict[str, Any]]:
    """Scores per (suite, system) over the jobs EVERY system completed, so all systems are
    scored on the same queries; the jobs left out are listed in ``excluded``."""
    summary: dict[str, dict[str, Any]] = {}
    for suite in suites:
        suite_jobs = [j for j in jobs if j.suite == suite]
        if not suite_jobs:
            continue
        common = [
            j for j in suite_jobs if all(not outcomes[(suite, j.name, s)].error for s in systems)
        ]
        excluded = sorted({j.name for j in suite_jobs} - {j.name for j in common})
        rows = [r for j in common for r in j.rows]
        for system in systems:
            mine = [outcomes[(suite, j.name, system)] for j in suite_jobs]
            hits: Hits = {}
            for j in common:
                hits.update(outcomes[(suite, j.name, system)].hits)
            errors = [
                f"{j.name}: {o.error}" for j, o in zip(suite_jobs, mine, strict=True) if o.error
            ]
            scores = evaluate(rows, hits) if rows else None
            if scores is not None and suite == "swebench":
                scores["file_acc"] = file_accuracy(rows, hits)
            summary.setdefault(suite, {})[system] = {
                "scores": scores,
                "error": "; ".join(errors) or None,
                "excluded": excluded,
                "seconds": round(sum(o.seconds for o in mine), 1),
            }
    return summary


# --------------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="ragstrata vs baselines on the same trees and queries")
    ap.add_argument("--suites", nargs="*", default=list(SUITES), choices=SUITES)
    ap.add_argument("--systems", nargs="*", default=list(DEFAULT_SYSTEMS), choices=SYSTEMS)
    ap.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="bench cache folder (default: $RSTRATA_BENCH_CACHE or ~/.cache/ragstrata-bench)",
    )
    ap.add_argument(
        "--sweqa",
        type=Path,
        default=None,
        help="SWE-QA dev JSONL (default: CACHE/sweqa-dev-symbols.jsonl, else CACHE/sweqa-dev.jsonl)",
    )
    ap.add_argument(
        "--swebench", type=Path, default=None, help="default CACHE/swebench-lite-dev.jsonl"
    )
    ap.add_argument("--trees", type=Path, default=None, help="default CACHE/trees")
    ap.add_argument("--docstring", type=Path, default=None, help="default CACHE/docstring")
    ap.add_argument("--limit", type=int, default=0, help="at most N queries per tree (0: all)")
    ap.add_argument("--ragstrata-via", choices=("cli", "facade"), default="cli")
    ap.add_argument("--ragstrata-top-k", type=int, default=RAGSTRATA_TOP_K)
    ap.add_argument(
        "--no-index",
        action="store_true",
        help="do not run `ragstrata index` first (the trees are indexed already)",
    )
    ap.add_argument(
        "--no-embed",
        action="store_true",
        help="index with `ragstrata index --no-embed` (lexical only; a cheap iteration mode)",
    )
    ap.add_argument("--hits-dir", type=Path, default=None, help="save every system's hits here")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "compare.json")
    args = ap.parse_args(argv)
    cache = args.cache or bench_cache()
    if args.sweqa is None:
        silver = cache / "sweqa-dev-symbols.jsonl"
        args.sweqa = silver if silver.is_file() else cache / "sweqa-dev.jsonl"
    args.swebench = args.swebench or cache / "swebench-lite-dev.jsonl"
    args.trees = args.trees or cache / "trees"
    args.docstring = args.docstring or cache / "docstring"

    jobs, notes = build_jobs(args)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    run_for = runners(args.ragstrata_via, index=not args.no_index, embed=not args.no_embed)
    per_job: list[dict[str, Any]] = []
    outcomes: dict[tuple[str, str, str], Outcome] = {}  # (suite, job, system)
    unavailable: dict[str, str] = {}
    for job in jobs:
        for system in args.systems:
            top_k = args.ragstrata_top_k if system == "ragstrata" else 10
            outcome = Outcome()
            if system in unavailable:
                outcome.error = unavailable[system]
            else:
                start = time.perf_counter()
                if system == "ragstrata" and not args.no_index:
                    seed_index(job.tree, job.seed)
                try:
                    outcome.hits = run_for[system](job.rows, job.tree.resolve(), top_k)
                except SystemUnavailable as exc:
                    outcome.error = str(exc)
                    if "not implemented yet" in outcome.error:
                        unavailable[system] = outcome.error
                except Exception as exc:  # one failing system must not stop the others
                    outcome.error = f"{type(exc).__name__}: {exc}"
                outcome.seconds = time.perf_counter() - start
            print(
                f"[{job.suite}/{job.name}] {system}: "
                + (f"ERROR {outcome.error}" if outcome.error else f"{outcome.seconds:.1f}s"),
                file=sys.stderr,
            )
            outcomes[(job.suite, job.name, system)] = outcome
            if args.hits_dir and not outcome.error:
                save_hits(args.hits_dir / f"{job.suite}-{job.name}-{system}.jsonl", job, outcome)
            per_job.append(
                {
                    "suite": job.suite,
                    "job": job.name,
                    "tree": str(job.tree),
                    "system": system,
                    "seconds": round(outcome.seconds, 2),
                    "error": outcome.error,
                    "scores": None if outcome.error else evaluate(job.rows, outcome.hits),
                }
            )
    summary = pool(jobs, outcomes, args.suites, args.systems)
    print(per_job_table(per_job))
    print(text_table(summary))
    print("\n### File level\n\n" + markdown(summary, "file"))
    print("\n### Symbol level\n\n" + markdown(summary, "symbol"))
    print("\n### Headline\n\n" + headline(summary))
    for suite, per_system in summary.items():
        for system, result in per_system.items():
            if result["error"]:
                print(f"\nnote: {suite}/{system} failed on {result['error'][:300]}")
        excluded = next(iter(per_system.values()))["excluded"]
        if excluded:
            print(
                f"note: {suite}: pooled over the trees every system completed; left out: {excluded}"
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps({"summary": summary, "jobs": per_job, "notes": notes}, indent=1),
        encoding="utf-8",
    )
    print(f"\nwrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
