"""`python -m ragstrata.cli.demo` — what `make demo` runs: the main job on the embedded defaults.

1. routes a short Russian/English conversation and prints the Router plans;
2. indexes this repository itself — rows first (lexical, symbol and relation search work in
   seconds), vectors left pending — and shows status;
3. asks it questions in English and Russian — a how-question in plain words, a follow-up in
   the same session, a README section, and a class defined nowhere (this repository only
   mentions ``UserService`` in its docs: the answer says there is no definition) — from what is
   indexed so far (``tests/test_demo_answers.py`` holds their leads);
4. fills the vectors with the packaged model (incremental: a second demo run is near-instant).

Every step after the first is a real `ragstrata` CLI call, so what you see is what you get.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from ragstrata.app import Router, RouterPlan

__all__ = ["DEMO_QUESTIONS", "DEMO_TURNS", "main", "render_plan"]

# (question, keep the conversation going from the previous turn?)
DEMO_TURNS: tuple[tuple[str, bool], ...] = (
    ("где определён класс UserService?", False),
    ("а где он вызывается?", True),
    ("how does the retry logic in src/http/client.py work?", False),
    ("сгенерируй документацию для модуля payments", False),
    ("что написано в разделе «Configuration» в README.md?", False),
)

# (question, session or None) asked of this repository after indexing it.
DEMO_QUESTIONS: tuple[tuple[str, str | None], ...] = (
    ("how does the indexer decide which files changed?", None),
    ("где определён класс Retriever?", "demo"),
    ("а где он вызывается?", "demo"),
    ("что написано в README в разделе Configuration?", None),
    ("где определён класс UserService?", None),
)


def _state_from(plan: RouterPlan) -> dict[str, Any]:
    anchors = [
        a.model_dump(mode="json", include={"type", "value", "subtype", "confidence"})
        for a in plan.query_plan.anchors
        if a.type.value in ("FILE_PATH", "SYMBOL", "DOC_REF")
    ]
    return {"active_intent": plan.intent.value, "active_anchors": anchors}


def render_plan(console: Console, n: int, plan: RouterPlan) -> None:
    """Print one plan as a compact table."""
    qp, spec = plan.query_plan, plan.retrieval_spec
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    table.add_row(
        "intent",
        f"[bold]{plan.intent.value}[/] → {plan.graph_id}   mode [bold]"
        f"{plan.conversation_mode.value}[/]   decided by {plan.decided_by} "
        f"({plan.confidence:.2f})   language {plan.language}",
    )
    table.add_row("normalized", qp.normalized)
    for a in qp.anchors:
        where = f"[{a.span.start}:{a.span.end}]" if a.span else f"({a.source})"
        sub = f" {a.subtype}" if a.subtype else ""
        table.add_row("anchor", f"{a.type.value}{sub} [green]{a.value!r}[/] {where} {a.confidence}")
    if qp.expansions:
        table.add_row("expansions", ", ".join(qp.expansions))
    if qp.keyword_hints:
        table.add_row("keyword hints", ", ".join(qp.keyword_hints))
    if qp.sub_queries:
        table.add_row("sub-queries", " | ".join(qp.sub_queries))
    layers = ", ".join(f"{q.layer_id}×{q.top_k}" for q in spec.layer_queries)
    table.add_row("layers", f"{'+'.join(d.value for d in spec.domains)}: {layers}")
    f = spec.filters
    table.add_row(
        "filters",
        f"tests {f.test_policy.value}; paths {f.path_scope or '-'}; languages {f.language or '-'}"
        f"; rerank {spec.rerank_profile}",
    )
    ev = plan.evidence_policy
    flags = [k for k, v in ev.model_dump().items() if v]
    table.add_row("evidence", ", ".join(flags))
    console.print(Panel(table, title=f"{n}. {qp.raw}", title_align="left", expand=False))


def _cli(console: Console, title: str, *args: str) -> None:
    """Run one real `ragstrata` command, showing it first; stop the demo if it fails."""
    section(console, title)
    for line in command_lines(args, console.width):
        console.print(Text(line, style="dim"))
    proc = subprocess.run([sys.executable, "-m", "ragstrata", *args], check=False)
    if proc.returncode != 0:
        console.print(f"[red]ragstrata {args[0]} exited {proc.returncode}[/]")
        raise SystemExit(proc.returncode)


def section(console: Console, title: str) -> None:
    """A section rule; a title too long for the rule goes on the rule up to its first ``: ``
    and below it in full, wrapped at spaces (never cut)."""
    head, sep, rest = title.partition(": ")
    if len(title) + 6 <= console.width or not sep:
        console.print(Rule(title))
        return
    console.print(Rule(head))
    console.print(Text(rest, style="dim"))


def command_lines(args: Sequence[str], width: int) -> list[str]:
    """``$ ragstrata ARGS`` as shell lines of at most ``width`` columns, broken between
    arguments with a trailing ``\\`` (an argument is never cut)."""
    lines: list[str] = []
    current = "$ ragstrata"
    for word in (_quote(a) for a in args):
        if len(current) + 1 + len(word) + 2 > width:
            lines.append(current + " \\")
            current = "    " + word
        else:
            current += " " + word
    return [*lines, current]


def _quote(arg: str) -> str:
    return f'"{arg}"' if " " in arg or not arg else arg


def main() -> None:
    """Route a conversation, index this repository, ask it questions (RU and EN)."""
    console = Console()
    repo = Path.cwd()
    section(console, "1. The Intent Router: questions -> retrieval plans (no index needed)")
    router = Router()
    previous: RouterPlan | None = None
    for n, (question, follow_up) in enumerate(DEMO_TURNS, 1):
        state = _state_from(previous) if follow_up and previous is not None else None
        plan = router.plan(question, state)
        render_plan(console, n, plan)
        previous = plan
    _cli(
        console,
        "2. Index this repository: rows first (search works now; vectors follow in the last step)",
        "index",
        str(repo),
        "--no-embed",
    )
    _cli(console, "3. Index status", "status", str(repo))
    _cli(
        console,
        "4. Search",
        "search",
        "who calls check_policy?",
        "--repo",
        str(repo),
        "--top-k",
        "5",
    )
    for n, (question, session) in enumerate(DEMO_QUESTIONS, 5):
        args = ["ask", question, "--repo", str(repo)]
        if session:
            args += ["--session", session]
        _cli(console, f"{n}. Ask", *args)
    _cli(
        console,
        f"{len(DEMO_QUESTIONS) + 5}. Fill the vectors (packaged MiniLM; incremental, resumable)",
        "index",
        str(repo),
    )
    # Reset the demo's session so the next `make demo` starts the conversation afresh.
    (repo / ".ragstrata" / "sessions" / "demo.json").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
