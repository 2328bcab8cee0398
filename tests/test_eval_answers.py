"""Answer-level evaluation: judging rules by hand, case loading, and `eval --answers` end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragstrata.answer.graphs.messages import messages
from ragstrata.app.evaluation import select_for_tree
from ragstrata.app.evaluation_answers import (
    AnswerCase,
    GoldSpan,
    check_gold,
    citation_counts,
    judge,
    load_answer_cases,
    opens_not_found,
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


def test_a_citation_that_merely_contains_the_gold_does_not_count() -> None:
    # longer than 3x the gold span (11 lines -> 33) and starting before it
    assert not citation_counts(("src/a.py", 5, 40), GOLD)
    assert citation_counts(("src/a.py", 5, 37), GOLD)  # 33 lines: still close enough
    assert citation_counts(("src/a.py", 12, 60), GOLD)  # starts inside the gold
    one_line = (GoldSpan("app.rb", 1976, 1976),)  # a setting line inside a 60-line block
    assert not citation_counts(("app.rb", 1936, 1996), one_line)
    assert citation_counts(("app.rb", 1970, 1979), one_line)  # short spans always count
    assert citation_counts(("app.rb", 1976, 2040), one_line)


def test_strict_citations_lie_within_the_gold_lines_give_or_take_two() -> None:
    detail = (GoldSpan("mux.go", 467, 470), GoldSpan("route.go", 55, 58))
    for inside in [("mux.go", 467, 470), ("mux.go", 465, 472), ("mux.go", 470, 470)]:
        assert citation_counts(inside, detail, strict=True), inside
        assert citation_counts(inside, detail)
    # the whole function around the answering lines is the definition card, not the detail
    assert not citation_counts(("mux.go", 465, 473), detail, strict=True)
    assert citation_counts(("mux.go", 465, 473), detail)
    assert not citation_counts(("mux.go", 460, 466), detail, strict=True)
    assert not citation_counts(("route.go", 47, 118), detail, strict=True)
    # lying between two gold spans of different files never counts
    assert not citation_counts(("other.go", 467, 470), detail, strict=True)


def test_opens_not_found_reads_the_first_sentence() -> None:
    for lang in ("en", "ru"):
        msgs = messages(lang)
        for key in ("not_found_def", "not_found_flow", "not_found_spec"):
            text = msgs.t(key, target="gin") + " " + msgs.t("did_you_mean", candidates="x")
            assert opens_not_found(text), text
        for key in ("not_found_def_any", "nothing_found"):
            assert opens_not_found(msgs.t(key)), msgs.t(key)
        # the lead of an answer that found the word but no definition of it opens with where
        # the word is: an answer, not a not-found
        term = msgs.t("lead_term", target="mux", cite="regexp.go:299")
        assert not opens_not_found(term), term
    for text in [
        "No definition named `typer` was found in this repository.",
        "## Не удалось найти определение `fd`.",
        "I could not find a function named RegisterHotReload.",
    ]:
        assert opens_not_found(text), text
    for text in [
        "`Router.Match` (mux.go:151) returns ErrNotFound when no route matches.",
        'It returns "no matching route was found".',
        "Returns 404 when the route is not found.",
        "Если маршрут не найден, вызывается `NotFoundHandler`.",
        "`Vars` returns the route variables. Nothing else is found there.",
        "",
    ]:
        assert not opens_not_found(text), text


def test_an_answer_that_opens_with_not_found_is_a_not_found() -> None:
    opening = "Definition of `gin` not found. It is handled by `handleHTTPRequest`."
    cites = [("src/a.py", 11, 12)]
    said_missing = judge(_case(), "answered", cites, opening=opening)
    assert not said_missing.passed and not said_missing.lead
    assert said_missing.not_found and said_missing.false_not_found
    assert said_missing.to_dict()["opening"] == opening
    assert judge(_case(), "answered", cites, opening="`f` does it.").lead
    invented = judge(_case("not_found"), "partial", [("src/a.py", 1, 2)], opening=opening)
    assert invented.passed and invented.lead


def test_strict_cases_are_judged_by_the_answering_lines() -> None:
    case = AnswerCase(id="d", question="q", gold=(GoldSpan("src/a.py", 14, 15),), strict=True)
    card = judge(case, "answered", [("src/a.py", 10, 30), ("src/a.py", 14, 16)])
    assert card.passed and not card.lead  # the card first, the lines second
    assert judge(case, "answered", [("src/a.py", 13, 16)]).lead


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
    assert report["by_category_lang"]["readme/ru"]["lead"] == 1.0
    assert report["by_category_lang"]["readme/en"]["false_not_found"] == 1
    assert report["by_flag"] == {}


def test_summary_groups_by_flag() -> None:
    plain = AnswerCase(id="p", question="q", gold=GOLD, plain=True, names_project=True)
    strict = AnswerCase(id="s", question="q", gold=GOLD, strict=True)
    report = summarize(
        [
            judge(plain, "answered", [("src/a.py", 10, 10)]),
            judge(strict, "answered", [("src/a.py", 1, 40)]),
        ]
    ).to_dict()
    assert {name: g["n"] for name, g in report["by_flag"].items()} == {
        "names_project": 1,
        "plain": 1,
        "strict": 1,
    }
    assert report["by_flag"]["plain"]["lead"] == 1.0
    assert report["by_flag"]["strict"]["lead"] == 0.0


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
    assert case.flags == ()
    path.write_text(json.dumps({**good, "strict": True, "names_project": True}), "utf-8")
    (flagged,) = load_answer_cases(path)
    assert flagged.strict and flagged.names_project and not flagged.plain
    assert flagged.flags == ("strict", "names_project")
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
        ({**good, "strict": "yes"}, r"c.jsonl:1: 'strict' must be true or false, got 'yes'"),
    ]:
        path.write_text(json.dumps(row), encoding="utf-8")
        with pytest.raises(UserError, match=message):
            load_answer_cases(path)
    (tmp_path / "a.go").write_text("x\n", encoding="utf-8")
    assert check_gold([case], tmp_path) == ["g-1: a.go has 1 lines, gold ends at 4"]


# a follow-up asked in a session after the question it follows
FOLLOW_UP = {
    "id": "d3",
    "lang": "en",
    "category": "follow-up",
    "question": "and who calls it?",
    "session": ["where is the method fetch_profile defined?"],
    "gold": [{"path": "src/billing/invoice.py", "start_line": 6, "end_line": 10}],
}


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
        FOLLOW_UP,
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


def test_a_run_never_touches_the_conversation_of_another_run_over_the_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs over one repository (two code versions compared side by side): each follow-up
    is asked in a conversation of its run's own, never reset or extended by the other."""
    repo = write_repo(tmp_path / "demo-shop")
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_PROVIDER", "hash")
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_DIMENSIONS", str(DIMS))
    data = tmp_path / "cases.jsonl"
    data.write_text(json.dumps(FOLLOW_UP), encoding="utf-8")
    main(["index", str(repo)])
    capsys.readouterr()
    # another run, half-way through the same case: its conversation is about something else
    sessions = repo / ".ragstrata" / "sessions"
    other = {"id": "d3", "turns": ["where is class UserService defined?"]}
    sessions.mkdir(parents=True, exist_ok=True)
    for name in ("answers-bench-d3", "answers-bench-d3-other"):
        (sessions / f"{name}.json").write_text(json.dumps(other), encoding="utf-8")
    before = sorted(p.name for p in sessions.iterdir())
    main(["eval", "--answers", str(data), "--tree", str(repo), "--json", "--per-query"])
    out = json.loads(capsys.readouterr().out)
    assert out["cases"][0]["passed"], out["cases"][0]
    # the other run's conversations are where it left them, and this run left none behind
    assert sorted(p.name for p in sessions.iterdir()) == before
    assert json.loads((sessions / "answers-bench-d3.json").read_text(encoding="utf-8")) == other


def test_eval_needs_exactly_one_dataset_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--tree", str(tmp_path)])
    assert exc.value.code == 2
    assert "exactly one of --dataset" in capsys.readouterr().err
