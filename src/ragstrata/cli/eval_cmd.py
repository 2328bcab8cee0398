"""`ragstrata eval --dataset FILE.jsonl --tree DIR`: retrieval recall@k / hit@k / MRR;
`ragstrata eval --answers FILE.jsonl --tree DIR`: answer-level pass rate, lead-correct and false
"not found" (:mod:`ragstrata.app.evaluation_answers`).

The tree is indexed first when it has no index yet (with progress on stderr). A dataset that
mixes repositories (``repo`` field) is narrowed to the tree's repository, matched by folder
name (``requests-46e939b5`` -> ``psf/requests``) or named with ``--repo-name``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragstrata.cli.common import MAX_TOP_K, GlobalOptions, edge_settings, make_console, print_json
from ragstrata.errors import RepositoryNotFoundError, UserError

if TYPE_CHECKING:
    from rich.progress import Progress

    from ragstrata.app.evaluation import EvalReport
    from ragstrata.app.facade import Ragstrata
    from ragstrata.core.events import IndexEvent

__all__ = ["ensure_index", "eval_command"]

_err = make_console(stderr=True, highlight=False)


def _progress() -> Progress:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=_err,
        transient=True,
    )


def ensure_index(rs: Ragstrata, *, quiet: bool = False) -> bool:
    """Index ``rs.repo`` when it has no index yet, or one its extraction rules no longer
    build (an upgrade: the unchanged files' vectors are kept); progress on stderr. True when
    it indexed."""
    rs.wait_for_indexing()  # a run in another process finishes before this one decides
    if rs.has_index() and rs.status().extraction_current:
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
    from rich.table import Table

    from ragstrata.app.evaluation import KS

    console = make_console(highlight=False)
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


def eval_command(
    ctx: typer.Context,
    tree: Annotated[Path, typer.Option("--tree", help="The repository's tree folder.")],
    dataset: Annotated[
        Path | None, typer.Option("--dataset", help="JSONL of {query, gold_files, ...}.")
    ] = None,
    answers: Annotated[
        Path | None,
        typer.Option("--answers", help="JSONL of answer cases {question, gold, expect, ...}."),
    ] = None,
    top_k: Annotated[
        int, typer.Option("--top-k", min=1, max=MAX_TOP_K, help="Hits retrieved per query.")
    ] = 50,
    repo_name: Annotated[
        str | None, typer.Option("--repo-name", help="Only rows whose 'repo' is this (owner/name).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the scores as JSON.")] = False,
    per_query: Annotated[
        bool, typer.Option("--per-query", help="With --json: each query's (case's) details too.")
    ] = False,
) -> None:
    """Score retrieval (--dataset: recall@k, hit@k, MRR) or answers (--answers: pass rate,
    lead-correct, false not-found per category and language) on one repository tree."""
    from ragstrata.app.evaluation import evaluate, load_dataset, select_for_tree
    from ragstrata.app.facade import Ragstrata

    if (dataset is None) == (answers is None):
        raise UserError("give exactly one of --dataset (retrieval) or --answers (answers)")
    if not tree.is_dir():
        raise RepositoryNotFoundError(f"tree folder not found: {tree}")
    if answers is not None:
        _eval_answers(answers, tree, repo_name, ctx.obj, as_json=as_json, per_case=per_query)
        return
    assert dataset is not None
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
    with Ragstrata(tree, edge_settings(tree, options=ctx.obj)) as rs:
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


def _eval_answers(
    path: Path,
    tree: Path,
    repo_name: str | None,
    options: GlobalOptions | None,
    *,
    as_json: bool,
    per_case: bool,
) -> None:
    from rich.table import Table

    from ragstrata.app.evaluation import select_for_tree
    from ragstrata.app.evaluation_answers import evaluate_answers, load_answer_cases
    from ragstrata.app.facade import Ragstrata

    cases = load_answer_cases(path)
    if repo_name:
        chosen: str | None = repo_name
        cases = [c for c in cases if c.repo == repo_name]
    else:
        cases, chosen = select_for_tree(cases, tree)
    if not cases:
        raise UserError(f"no answer cases in {path}" + (f" for {chosen}" if chosen else ""))
    with Ragstrata(tree, edge_settings(tree, options=options)) as rs:
        ensure_index(rs)
        with _progress() as bar:
            task = bar.add_task("asking", total=len(cases))

            def on_case(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            report = evaluate_answers(rs, cases, progress=on_case)
    if as_json:
        out: dict[str, Any] = report.to_dict(per_case=per_case)
        out["repo"] = chosen
        print_json(out)
        return
    console = make_console(highlight=False)
    title = f"{path.name}" + (f" ({chosen})" if chosen else "") + f": {report.n} cases"
    table = Table(title=title)
    table.add_column("group", no_wrap=True)
    for column in ("n", "pass", "lead", "false NF", "invented NF"):
        table.add_column(column, justify="right", no_wrap=True)
    rows = [("all", report.overall)] + [
        (f"{key[3:]}: {name}", scores)
        for key, group in report.groups.items()
        for name, scores in group.items()
    ]
    for name, scores in rows:
        table.add_row(
            name,
            str(scores["n"]),
            _pct(scores["pass"]),
            _pct(scores["lead"]),
            str(scores["false_not_found"]),
            _pct(scores["invented_not_found"]),
        )
    console.print(table)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"
