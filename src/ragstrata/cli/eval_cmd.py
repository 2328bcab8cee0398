"""`ragstrata eval --dataset FILE.jsonl --tree DIR`: retrieval recall@k / hit@k / MRR.

The tree is indexed first when it has no index yet (with progress on stderr). A dataset that
mixes repositories (``repo`` field) is narrowed to the tree's repository, matched by folder
name (``requests-46e939b5`` -> ``psf/requests``) or named with ``--repo-name``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ragstrata.cli.app import app
from ragstrata.cli.common import edge_settings, print_json
from ragstrata.errors import RepositoryNotFoundError, UserError
from ragstrata.evaluation import KS, EvalReport, evaluate, load_dataset, select_for_tree
from ragstrata.facade import Ragstrata

if TYPE_CHECKING:
    from ragstrata.indexer import IndexEvent

__all__ = ["ensure_index", "eval_command"]

_err = Console(stderr=True, highlight=False)


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=_err,
        transient=True,
    )


def ensure_index(rs: Ragstrata, *, quiet: bool = False) -> bool:
    """Index ``rs.repo`` when it has no index yet (progress on stderr); True when it did."""
    if rs.has_index():
        return False
    with _progress() as bar:
        task = bar.add_task("indexing", total=None)

        def on_event(event: IndexEvent) -> None:
            if not quiet:
                bar.update(
                    task,
                    description=f"indexing: {event.phase}",
                    completed=event.done,
                    total=event.total or None,
                )

        rs.index(progress=on_event)
    return True


def _table(report: EvalReport, repo_name: str | None) -> None:
    console = Console(highlight=False)
    title = f"{report.dataset}" + (f" ({repo_name})" if repo_name else "") + f": {report.n} queries"
    table = Table(title=title)
    table.add_column("level")
    table.add_column("n", justify="right")
    for k in KS:
        table.add_column(f"recall@{k}", justify="right")
    for k in KS:
        table.add_column(f"hit@{k}", justify="right")
    table.add_column("MRR", justify="right")
    for name, level in (("file", report.file), ("symbol", report.symbol)):
        if level is None:
            table.add_row(name, "0", *(["n/a"] * (2 * len(KS) + 1)))
            continue
        table.add_row(
            name,
            str(level.n),
            *(f"{level.recall[k]:.3f}" for k in KS),
            *(f"{level.hit[k]:.3f}" for k in KS),
            f"{level.mrr:.3f}",
        )
    console.print(table)
    console.print(
        f"query latency: p50 {report.latency_ms_p50:.1f} ms, p95 {report.latency_ms_p95:.1f} ms"
    )


@app.command("eval")
def eval_command(
    dataset: Annotated[Path, typer.Option("--dataset", help="JSONL of {query, gold_files, ...}.")],
    tree: Annotated[Path, typer.Option("--tree", help="The repository's tree folder.")],
    top_k: Annotated[int, typer.Option("--top-k", min=1, help="Hits retrieved per query.")] = 50,
    repo_name: Annotated[
        str | None, typer.Option("--repo-name", help="Only rows whose 'repo' is this (owner/name).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the scores as JSON.")] = False,
    per_query: Annotated[
        bool, typer.Option("--per-query", help="With --json: each query's file ranks too.")
    ] = False,
) -> None:
    """Score retrieval on a dataset: file- and symbol-level recall@k, hit@k, MRR (k=1,5,10)."""
    if not tree.is_dir():
        raise RepositoryNotFoundError(f"tree folder not found: {tree}")
    items = load_dataset(dataset)
    if repo_name:
        chosen: str | None = repo_name
        items = [i for i in items if i.repo == repo_name]
    else:
        items, chosen = select_for_tree(items, tree)
    if not items:
        raise UserError(
            f"no dataset rows to evaluate in {dataset}" + (f" for {chosen}" if chosen else "")
        )
    with Ragstrata(tree, edge_settings(tree)) as rs:
        ensure_index(rs)
        with _progress() as bar:
            task = bar.add_task("searching", total=len(items))

            def on_query(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            report = evaluate(rs, items, top_k=top_k, dataset=dataset.name, progress=on_query)
    if as_json:
        out: dict[str, Any] = report.to_dict(per_query=per_query)
        out["repo"] = chosen
        print_json(out)
    else:
        _table(report, chosen)
