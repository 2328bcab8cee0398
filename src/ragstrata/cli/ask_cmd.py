"""`ragstrata ask QUESTION`: a thin adapter over the facade (``gendocs`` is in
:mod:`ragstrata.cli.gendocs_cmd`).

``ask --json`` prints ``AskResult.to_dict()``: ``{"plan", "hits", "evidence": {"satisfied",
"missing", "requirements"}, "answer": {"status", "lead", "text", "citations", "footer"},
"session"}``
(``status``: answered | partial | not_found; ``lead``: the opening sentence(s)). Without ``--json``
the answer is rendered as Markdown, followed by its citations and the evidence status in plain words (``footer``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

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
from ragstrata.text.visible import visible

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
        render_ask(result, make_console(highlight=False))


MAX_LISTED_CITATIONS = 10
"""Citations listed under an answer; the rest are counted ("… and 4 more")."""


def answer_warnings(result: AskResult) -> list[str]:
    """One-line warnings for stderr: the LLM failed (extractive fallback), or cited nothing."""
    answer = result.answer
    meta = answer.public_meta()
    who = " ".join(str(v) for v in (meta["provider"], meta["model"]) if v) or "LLM"
    out = []
    if answer.fallback_reason:
        out.append(
            f"warning: the LLM ({who}) failed, showing the extractive answer: "
            f"{answer.fallback_reason}"
        )
    elif answer.uncited_llm_reply:
        out.append(f"warning: the LLM ({who}) reply cites no evidence block; it is unverified")
    return [" ".join(line.split()) for line in out]


def render_ask(result: AskResult, console: Console) -> None:
    """The human view: the answer as Markdown, then citations and the evidence status.

    Text and code wrap at the console's width (``COLUMNS``), so no line number, path or
    symbol name is cut off."""
    console.print(Markdown(visible(result.answer.text)))
    cites = result.answer.citations
    if cites:
        console.print()
        console.print(Text("citations:", style="bold"))
        for c in cites[:MAX_LISTED_CITATIONS]:
            span = (
                f"{c.start_line}" if c.start_line == c.end_line else f"{c.start_line}-{c.end_line}"
            )
            console.print(Text(f"  {visible(c.path, multiline=False)}:{span}"))
        if len(cites) > MAX_LISTED_CITATIONS:
            console.print(Text(f"  … and {len(cites) - MAX_LISTED_CITATIONS} more"))
    console.print()
    answer = result.answer
    footer = answer.footer or (
        "evidence: satisfied" if result.evidence.satisfied else "evidence: incomplete"
    )
    plain = result.evidence.satisfied and not answer.uncited_llm_reply
    status = Text(footer, style="green" if plain else "yellow")
    if result.session:
        status.append(f"  (session {result.session})", style="dim")
    console.print(status)
