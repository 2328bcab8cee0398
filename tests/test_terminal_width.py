"""Readable at any width >= 60: answers and `search` tables rendered at 60, 80 and 120 columns
keep every path, symbol and ``path:start-end`` whole, code keeps its ``NNN |`` gutter, and the
default answer fits one screen (40 lines); the demo's rules and commands are not cut."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from ragstrata.cli.answer_view import SCREEN_LINES, SHORT_CITATIONS, render_answer
from ragstrata.cli.demo import command_lines, section
from ragstrata.cli.search_cmd import hits_table
from ragstrata.core.answer import Answer, AskResult, Citation
from ragstrata.core.evidence import Evidence, Hit, SearchResult

WIDTHS = (60, 80, 120)
DEF = "src/payments/gateway/processing.py"
SYMBOL = "payments.gateway.processing.PaymentProcessor.charge_card"
CALLERS = [
    (f"tests/unit/test_processing_{i}.py", 100 + i, f"tests.unit.test_case_{i}") for i in range(12)
]
CODE_LINE = re.compile(r"^\s*\d*\s*\| ")


def _code(first: int, count: int) -> list[str]:
    long_tail = " + ".join(f"codeword_{k}_amount" for k in range(8))
    return [f"{n} |     total = {long_tail}" for n in range(first, first + count)]


def _answer_text() -> str:
    callers = "\n".join(f"- `{sym}` — `{path}:{line}`" for path, line, sym in CALLERS[:10])
    quote = "\n".join(f"> Docstring line {i} explains how a card is charged." for i in range(9))
    return "\n".join(
        [
            f"`{SYMBOL}` (method) is defined in `{DEF}:40-120`. It is called from 12 place(s).",
            "",
            f"**Definition:** `{SYMBOL}` (method) — `{DEF}:40-120`",
            "```python",
            "40 | def charge_card(self, card: Card, amount: Decimal) -> Receipt:",
            "```",
            "",
            "Docstring:",
            quote,
            "",
            "**Called from:**",
            callers,
            "",
            "… and 2 more.",
            "",
            "**Relevant lines:**",
            "",
            f"`{DEF}:40-120` — `{SYMBOL}`",
            "```python",
            *_code(40, 30),
            "```",
        ]
    )


def _result() -> AskResult:
    cites = (Citation(DEF, 40, 120), *(Citation(p, n, n) for p, n, _ in CALLERS))
    answer = Answer(text=_answer_text(), citations=cites, graph_id="code_qa", grounded=True)
    evidence = Evidence(hits=(), requirements={})
    return AskResult(plan={}, evidence=evidence, answer=answer)


def _render(width: int, **kwargs: bool) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, highlight=False)
    render_answer(_result(), console, **kwargs)
    return out.getvalue().splitlines()


def _whole(token: str, lines: list[str]) -> bool:
    return any(token in line for line in lines)


@pytest.mark.parametrize("width", WIDTHS)
def test_default_answer_fits_one_screen_and_keeps_tokens_whole(width: int) -> None:
    lines = _render(width)
    assert len(lines) <= SCREEN_LINES
    assert all(len(line.rstrip()) <= width for line in lines)
    assert lines[0].startswith(SYMBOL) or lines[0].startswith(f"{SYMBOL} (method)")
    for token in (SYMBOL, f"{DEF}:40-120", *(f"{p}:{n}" for p, n, _ in CALLERS[:3])):
        assert _whole(token, lines), token
    listed = [line for line in lines if re.match(r"^  \S+:\d+", line)]
    assert len(listed) == SHORT_CITATIONS
    assert "  … and 8 more (--full lists them)" in lines
    assert lines[-1] == "evidence: satisfied"
    assert "--full shows it all" in "\n".join(lines)
    for line in lines:
        if "codeword_" in line or "def charge_card" in line:
            assert CODE_LINE.match(line), line  # the gutter is kept, the line cropped with …


@pytest.mark.parametrize("width", WIDTHS)
def test_full_answer_wraps_code_under_the_gutter(width: int) -> None:
    lines = _render(width, full=True)
    assert len(lines) > SCREEN_LINES
    assert all(len(line.rstrip()) <= width for line in lines)
    for path, n, _ in CALLERS[:10]:
        assert _whole(f"{path}:{n}", lines), path
    code = [line for line in lines if "codeword_" in line]
    assert code and all(CODE_LINE.match(line) for line in code)
    numbered = {int(m.group(1)) for line in code if (m := re.match(r"^\s*(\d+) \| ", line))}
    assert numbered == set(range(40, 70))  # every code line is there, its number in the gutter
    assert all(f"codeword_{k}_amount" in "\n".join(code) for k in range(8))  # wrapped, not cut


def _search_result() -> SearchResult:
    hits = tuple(
        Hit(
            layer="C1",
            path=f"src/payments/gateway/sub_module_{i}/processing.py",
            start_line=1234 + i,
            end_line=1299 + i,
            symbol=f"payments.gateway.sub_module_{i}.PaymentProcessor.charge",
            score=0.5 - i / 100,
            reasons=("lexical:C1#1", "dense:C3#4", f"symbol:exact Processor{i}", "flow:callers"),
            text="",
        )
        for i in range(6)
    )
    return SearchResult(plan={}, hits=hits)


@pytest.mark.parametrize("width", WIDTHS)
def test_search_table_drops_or_folds_columns_instead_of_splitting_cells(width: int) -> None:
    result = _search_result()
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(hits_table(result, width))
    lines = out.getvalue().splitlines()
    assert all(len(line) <= width for line in lines)
    for hit in result.hits:
        assert _whole(hit.citation, lines), hit.citation
        assert hit.symbol is not None and _whole(hit.symbol, lines), hit.symbol
    header = lines[1]
    if "reasons" in header:
        reasons = header.split("┃")[-2]
        assert len(reasons) <= width // 4 + 2


def test_search_table_shows_reasons_when_there_is_room() -> None:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(hits_table(_search_result(), 200))
    assert "reasons" in out.getvalue().splitlines()[1]


def test_demo_rules_and_commands_are_not_cut_at_80_columns() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, color_system=None)
    title = (
        "2. Index this repository: rows first (search works now; vectors follow in the last step)"
    )
    section(console, title)
    text = out.getvalue()
    assert "2. Index this repository" in text and "vectors follow in the last step)" in text
    args = ["ask", "как устроен контекст запроса и где он очищается?", "--repo", "/a/" + "b" * 50]
    lines = command_lines(args, 80)
    assert all(len(line) <= 80 for line in lines)
    joined = "\n".join(lines)
    assert all((f'"{a}"' if " " in a else a) in joined for a in args)
    assert all(line.endswith(" \\") for line in lines[:-1])
