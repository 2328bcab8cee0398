"""`python -m ragstrata.demo` (what `make demo` runs until retrieval exists).

Routes a short conversation of Russian and English questions and prints each Router plan
readably: intent and mode, anchors, expansions, layers, filters and evidence policy. The
conversation state of each turn is built from the previous plan (active intent + anchors), so
the follow-up and the topic switch show how §3 of the spec behaves.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from ragstrata.query.models import RouterPlan
from ragstrata.query.router import Router

__all__ = ["DEMO_TURNS", "main", "render_plan"]

# (question, keep the conversation going from the previous turn?)
DEMO_TURNS: tuple[tuple[str, bool], ...] = (
    ("где определён класс UserService?", False),
    ("а где он вызывается?", True),
    ("how does the retry logic in src/http/client.py work?", False),
    ("сгенерируй документацию для модуля payments", False),
    ("что написано в разделе «Configuration» в README.md?", False),
    ("какие тесты проверяют parse_query в tests/test_query.py?", False),
    ("на Go как реализован retry в pkg/http/client.go:42", False),
    ("а что об этом сказано в документации?", True),
    ("другой вопрос: как установить проект?", True),
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


def main() -> None:
    """Route the demo conversation and print every plan."""
    console = Console()
    router = Router()
    console.print("[bold]ragstrata — Intent Router demo[/] (no index or model needed)\n")
    previous: RouterPlan | None = None
    for n, (question, follow_up) in enumerate(DEMO_TURNS, 1):
        state = _state_from(previous) if follow_up and previous is not None else None
        plan = router.plan(question, state)
        render_plan(console, n, plan)
        previous = plan


if __name__ == "__main__":
    main()
