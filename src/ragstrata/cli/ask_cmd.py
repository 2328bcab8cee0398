"""`ragstrata ask QUESTION`: a thin adapter over the facade (``gendocs`` is in
:mod:`ragstrata.cli.gendocs_cmd`).

``ask --json`` prints ``AskResult.to_dict()``: ``{"plan", "hits", "evidence": {"satisfied",
"missing", "requirements"}, "answer": {"status", "lead", "text", "citations"}, "session"}``
(``status``: answered | partial | not_found; ``lead``: the opening sentence(s)). Without ``--json``
the answer is rendered as Markdown, followed by its citations and the evidence status: one
screen by default (the lead, the first evidence, five citations), everything with ``--full``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from ragstrata.app import write_atomic
from ragstrata.cli.common import (
    MAX_TOP_K,
    GlobalOptions,
    edge_settings,
    err_console,
    make_console,
    print_json,
)
from ragstrata.errors import IndexMissingError, InvalidQueryError

if TYPE_CHECKING:
    from ragstrata.app.facade import Ragstrata
    from ragstrata.core.answer import AskResult

__all__ = [
    "RepoOption",
    "answer_warnings",
    "ask_command",
    "open_index",
    "render_ask",
    "write_atomic",
]

RepoOption = Annotated[
    Path | None,
    typer.Option("--repo", help="Repository folder (default: the current folder)."),
]


def open_index(repo: Path | None, options: GlobalOptions | None = None) -> Ragstrata:
    """The facade over ``repo`` (default: the current folder) with the global ``options``
    (``ctx.obj``); ``IndexMissingError`` without an index."""
    from ragstrata.app.facade import Ragstrata

    root = repo or Path.cwd()
    rs = Ragstrata(root, edge_settings(root if root.is_dir() else None, options=options))
    if not rs.has_index():
        raise IndexMissingError(f"no index at {rs.index_dir}; run `ragstrata index {rs.repo}`")
    return rs


def ask_command(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="The question, in Russian or English.")],
    repo: RepoOption = None,
    session: Annotated[
        str | None,
        typer.Option("--session", help="Conversation name; follow-ups continue its topic."),
    ] = None,
    top_k: Annotated[
        int, typer.Option("--top-k", min=1, max=MAX_TOP_K, help="Hits to retrieve.")
    ] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    full: Annotated[
        bool,
        typer.Option("--full", help="Show the whole answer and every citation (not one screen)."),
    ] = False,
) -> None:
    """Answer QUESTION from cited evidence in the repository's index."""
    if not question.strip():
        raise InvalidQueryError("empty question; ask something about the repository")
    with open_index(repo, ctx.obj) as rs:
        result = rs.ask(question, session=session, top_k=top_k)
    for line in answer_warnings(result):
        err_console.print(line, markup=False, highlight=False)
    if as_json:
        print_json(result.to_dict())
    else:
        render_ask(result, make_console(highlight=False), full=full)


def answer_warnings(result: AskResult) -> list[str]:
    """One-line warnings for stderr: the index's notices (vectors of another embedding model),
    the LLM failed (extractive fallback), or cited nothing."""
    answer = result.answer
    meta = answer.public_meta()
    who = " ".join(str(v) for v in (meta["provider"], meta["model"]) if v) or "LLM"
    out = [f"note: {notice}" for notice in result.notices]
    if answer.fallback_reason:
        out.append(
            f"warning: the LLM ({who}) failed, showing the extractive answer: "
            f"{answer.fallback_reason}"
        )
    elif answer.uncited_llm_reply:
        out.append(f"warning: the LLM ({who}) reply cites no evidence block; it is unverified")
    return [" ".join(line.split()) for line in out]


def render_ask(result: AskResult, console: Console, *, full: bool = False) -> None:
    """The human view: the answer, then citations and the evidence status; one screen unless
    ``full`` (see :mod:`ragstrata.cli.answer_view`)."""
    from ragstrata.cli.answer_view import render_answer

    render_answer(result, console, full=full)
