"""Answer-level evaluation: judging rules by hand, case loading, and `eval --answers` end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragstrata.app.evaluation import select_for_tree
from ragstrata.app.evaluation_answers import (
    AnswerCase,
    GoldSpan,
    check_gold,
    citation_counts,
    judge,
    load_answer_cases,
    summarize,
)
from ragstrata.cli.app import main
from ragstrata.errors import UserError
from test_retrieve import DIMS, write_repo

GOLD = (GoldSpan("src/a.py", 10, 20),)


def _case(expect: str = "answer", **kw: str) -> AnswerCase:
    return AnswerCase(
        id="c", question="q", gold=GOLD if expect == "answer" else (), expect=expect, **kw
    )  # type: ignore[arg-type]


def test_citation_counts_overlap_and_long_citations() -> None:
    assert citation_counts(("src/a.py", 15, 15), GOLD)
    assert citation_counts(("src/a.py", 1, 10), GOLD)  # touches the first gold line
    assert not citation_counts(("src/a.py", 21, 30), GOLD)
    assert not citation_counts(("src/b.py", 10, 20), GOLD)
    # longer than 80 lines: only when it starts inside the gold span
    assert not citation_counts(("src/a.py", 1, 200), GOLD)
    assert citation_counts(("src/a.py", 12, 200), GOLD)


def test_judge_pass_lead_and_not_found() -> None:
    ok = judge(_case(), "answered", [("x.py", 1, 2), ("src/a.py", 11, 12)])
    assert ok.passed and not ok.lead and not ok.false_not_found
    late = judge(_case(), "partial", [("x.py", 1, 2)] * 3 + [("src/a.py", 11, 12)])
    assert not late.passed  # gold only in the 4th citation
    honest_miss = judge(_case(), "not_found", [("src/a.py", 11, 12)])
    assert not honest_miss.passed and not honest_miss.lead and honest_miss.false_not_found
    invented = judge(_case("not_found"), "not_found", [])
    assert invented.passed and not invented.false_not_found
    assert not judge(_case("not_found"), "partial", [("src/a.py", 1, 2)]).passed


def test_summary_groups_by_category_and_language() -> None:
    results = [
        judge(_case(category="readme", lang="ru"), "answered", [("src/a.py", 10, 10)]),
        judge(_case(category="readme", lang="en"), "not_found", []),
        judge(_case("not_found", category="invented", lang="en"), "not_found", []),
    ]
    report = summarize(results).to_dict()
    assert report["overall"] == {
        "n": 3,
        "pass": pytest.approx(2 / 3, abs=1e-4),
        "lead": 0.5,
        "false_not_found": 1,
        "invented_not_found": 1.0,
    }
    assert report["by_lang"]["ru"]["pass"] == 1.0
    assert report["by_lang"]["en"]["pass"] == 0.5
    assert report["by_category"]["readme"]["false_not_found"] == 1
    assert report["by_category"]["invented"]["lead"] is None


def test_load_answer_cases_names_the_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    good = {
        "id": "g-1",
        "repo": "o/gin",
        "question": "q",
        "session": ["earlier"],
        "gold": [{"path": "./a.go", "start_line": 3, "end_line": 4}],
    }
    path.write_text(json.dumps(good) + "\n\n", encoding="utf-8")
    (case,) = load_answer_cases(path)
    assert case.gold == (GoldSpan("a.go", 3, 4),) and case.session == ("earlier",)
    assert (
        select_for_tree(
            [case, AnswerCase("z", "q", GOLD, repo="o/zod")], tmp_path / "gin@dcaa4296"
        )[1]
        == "o/gin"
    )
    for row, message in [
        ({"question": "q"}, r"c.jsonl:1: a case that expects an answer needs 'gold'"),
        ({"question": "q", "expect": "maybe"}, r"'expect' is 'maybe'; valid: answer, not_found"),
        (
            {"question": "q", "gold": [{"path": "a", "start_line": 5, "end_line": 2}]},
            r"gold\[0\] ends \(2\) before it starts \(5\)",
        ),
        (
            {"question": "q", "gold": [{"path": "a", "start_line": 0, "end_line": 2}]},
            r"gold\[0\].start_line: expected a positive line number",
        ),
    ]:
        path.write_text(json.dumps(row), encoding="utf-8")
        with pytest.raises(UserError, match=message):
            load_answer_cases(path)
    (tmp_path / "a.go").write_text("x\n", encoding="utf-8")
    assert check_gold([case], tmp_path) == ["g-1: a.go has 1 lines, gold ends at 4"]


def test_eval_answers_cli_runs_cases_with_sessions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = write_repo(tmp_path / "demo-shop")
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_PROVIDER", "hash")  # the user's choice, not the repo's
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_DIMENSIONS", str(DIMS))
    service = {"path": "src/users/service.py", "start_line": 8, "end_line": 28}
    cases = [
        {
            "id": "d1",
            "lang": "en",
            "category": "where-defined",
            "question": "where is class UserService defined?",
            "gold": [service],
        },
        {
            "id": "d2",
            "lang": "ru",
            "category": "invented",
            "expect": "not_found",
            "question": "Где определён класс QuantumLedgerFactory?",
            "gold": [],
        },
        {
            "id": "d3",
            "lang": "en",
            "category": "follow-up",
            "question": "and who calls it?",
            "session": ["where is the method fetch_profile defined?"],
            "gold": [{"path": "src/billing/invoice.py", "start_line": 6, "end_line": 10}],
        },
    ]
    data = tmp_path / "cases.jsonl"
    data.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in cases), encoding="utf-8")
    main(["eval", "--answers", str(data), "--tree", str(repo), "--json", "--per-query"])
    out = json.loads(capsys.readouterr().out)
    by_id = {c["id"]: c for c in out["cases"]}
    assert out["n"] == 3
    assert by_id["d1"]["passed"] and by_id["d1"]["lead"]
    assert by_id["d2"]["status"] == "not_found" and by_id["d2"]["passed"]
    assert by_id["d3"]["passed"], by_id["d3"]
    assert out["by_category"]["invented"]["invented_not_found"] == 1.0
    # the follow-up's session was a scratch one: nothing is left behind
    assert not list((repo / ".ragstrata" / "sessions").glob("answers-bench-*"))


def test_eval_needs_exactly_one_dataset_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--tree", str(tmp_path)])
    assert exc.value.code == 2
    assert "exactly one of --dataset" in capsys.readouterr().err
