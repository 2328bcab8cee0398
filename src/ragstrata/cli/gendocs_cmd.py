"""`ragstrata gendocs`: documentation pages from the index — a thin adapter over the facade.

- ``gendocs TARGET`` prints the Markdown page of a file, folder/package or symbol (``.`` is
  the repository's root folder), or writes it atomically to ``--out FILE``;
- ``gendocs --all --out DIR`` writes one page per package plus ``index.md``, cross-linked,
  with a progress bar on stderr;
- ``gendocs --check DIR`` reports pages whose sources changed since they were generated and
  doc sections that name symbols which no longer exist (exit 1 when it finds any);
- ``--dry-run`` prints the LLM calls, tokens and cost a run would spend (cached items cost
  nothing) and writes nothing; ``--no-llm`` skips the prose even when an LLM is configured.

Headings, labels and prose follow ``--lang`` (``en`` default, or ``ru``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragstrata.cli.ask_cmd import RepoOption, open_index
from ragstrata.cli.common import GlobalOptions, make_console
from ragstrata.errors import UserError
from ragstrata.text.visible import visible

if TYPE_CHECKING:
    from rich.progress import Progress

    from ragstrata.app import DocsGenerator, DriftReport
    from ragstrata.settings import Settings

__all__ = ["gendocs_command"]

_err = make_console(stderr=True, highlight=False, soft_wrap=True)


def gendocs_command(
    ctx: typer.Context,
    target: Annotated[
        str | None, typer.Argument(help="A file path, a folder/package (`.`: root) or a symbol.")
    ] = None,
    repo: RepoOption = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write the page to this file (with --all: this folder)."),
    ] = None,
    every: Annotated[
        bool, typer.Option("--all", help="One page per package plus index.md (needs --out).")
    ] = False,
    lang: Annotated[str, typer.Option("--lang", help="Language of the page: en or ru.")] = "en",
    check: Annotated[
        Path | None,
        typer.Option("--check", help="Report drift of the pages in this folder; write nothing."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print LLM calls, tokens and cost; write nothing.")
    ] = False,
    no_llm: Annotated[
        bool, typer.Option("--no-llm", help="No LLM prose even when an LLM is configured.")
    ] = False,
) -> None:
    """Generate Markdown documentation from the index (C0/C1/C2), or check generated pages."""
    from ragstrata.app import LANGUAGES, write_atomic

    if lang not in LANGUAGES:
        raise UserError(f"unknown --lang {lang!r}; valid: {', '.join(LANGUAGES)}")
    if check is not None:
        _check(check, repo, lang, ctx.obj)
        return
    if every and out is None and not dry_run:
        raise UserError("--all needs --out DIR (the folder for the pages)")
    if not every and (target is None or not target.strip()):
        raise UserError("empty gendocs target; give a file path, a folder or a symbol, or --all")
    with open_index(repo, ctx.obj) as rs:
        docs = rs.docs(lang, use_llm=not no_llm)
        if dry_run:
            _dry_run(docs, None if every else target, rs.settings)
            return
        if every:
            assert out is not None
            _site(docs, out)
            return
        assert target is not None
        markdown = docs.page(target, header=out is not None).markdown
    if out is None:
        typer.echo(visible(markdown), nl=False)
    else:
        write_atomic(out, markdown)


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


def _site(docs: DocsGenerator, out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise UserError(f"--out must be a folder with --all: {out}")
    with _progress() as bar:
        task = bar.add_task("gendocs", total=None)

        def on_page(done: int, total: int, label: str) -> None:
            bar.update(task, completed=done, total=total, description=f"gendocs {label}")

        report = docs.site(out, progress=on_page)
    s = docs.s
    line = s.t("site_written", pages=len(report.pages), folder=out)
    if report.llm_calls or report.llm_cached:
        line += s.t("site_llm", calls=report.llm_calls, cached=report.llm_cached)
    if report.removed:
        line += s.t("site_removed", count=len(set(report.removed)))
    _err.print(visible(line), markup=False)
    if report.failed:  # the site is written without them; say which, and exit 1
        _err.print(s.t("site_failed", count=len(report.failed)), markup=False)
        for failure in report.failed:
            _err.print(visible(f"  {failure}"), markup=False)
        raise typer.Exit(1)


def _dry_run(docs: DocsGenerator, target: str | None, settings: Settings) -> None:
    from ragstrata.app import PriceTable

    jobs = docs.plan(None if target is None else [target])
    est = docs.estimate(jobs)
    model = settings.llm.model or ""
    cost = "cost unknown (no model configured)"
    if model:
        price = PriceTable.load(getattr(settings.llm, "price_file", None)).get(model)
        cost = (
            f"≈ ${price.cost(est['input_tokens'], est['output_tokens']):.4f} ({model})"
            if price
            else f"price unknown for {model!r}"
        )
    typer.echo(
        f"gendocs dry run: {est['calls']} LLM calls ({est['cached']} cached), "
        f"≈ {est['input_tokens']} input + {est['output_tokens']} output tokens (chars/4), {cost}"
    )


def _check(folder: Path, repo: Path | None, lang: str, options: GlobalOptions | None) -> None:
    from ragstrata.app import strings

    if not folder.is_dir():
        raise UserError(f"--check needs a folder of generated pages: {folder}")
    with open_index(repo, options) as rs:
        report = rs.check_docs(folder)
    if report.pages == 0 and not report.stale:
        raise UserError(strings(lang).t("drift_no_pages", folder=folder))
    for line in drift_lines(report, lang):
        typer.echo(visible(line))
    if not report.clean:
        raise typer.Exit(1)


def drift_lines(report: DriftReport, lang: str) -> list[str]:
    """The drift report as lines in ``lang``."""
    from ragstrata.app import strings

    s = strings(lang)
    lines = [s.t("drift_changed", page=p, path=x) for p, x in report.changed]
    lines += [s.t("drift_removed", page=p, path=x) for p, x in report.removed]
    lines += [s.t("drift_stale_name", path=p, line=n, name=x) for p, n, x in report.stale]
    if not lines:
        lines.append(s.t("drift_clean", pages=report.pages, sections=report.sections))
    return lines
