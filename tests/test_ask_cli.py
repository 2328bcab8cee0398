"""`ragstrata ask` and `ragstrata gendocs` end to end: an indexed fixture repository (hash
embedder), sessions that carry the topic, the JSON shape of the issue, bad input -> exit 2."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from answer_fixture import write_repo
from ragstrata.app.facade import Ragstrata
from ragstrata.cli.app import main
from ragstrata.cli.common import edge_settings

HIT_KEYS = {"layer", "path", "start_line", "end_line", "symbol", "score", "reasons", "text"}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGSTRATA_EMBEDDER_PROVIDER", "hash")
        root = write_repo(tmp_path_factory.mktemp("repo"))
        with Ragstrata(root, edge_settings(root)) as rs:
            rs.index()
        yield root


@pytest.fixture(autouse=True)
def _hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_PROVIDER", "hash")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def ask_json(capsys: pytest.CaptureFixture[str], repo: Path, *args: str) -> dict[str, Any]:
    code, out, err = run(capsys, "ask", *args, "--repo", str(repo), "--json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def test_json_shape_is_exactly_the_issue_contract(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    data = ask_json(capsys, repo, "where is the validate function called?")
    assert set(data) == {"plan", "hits", "evidence", "answer", "session"}
    assert data["session"] is None
    assert data["plan"]["schema_version"] == "1.1" and data["plan"]["intent"] == "CODE_QA"
    assert data["hits"] and all(set(h) == HIT_KEYS for h in data["hits"])
    evidence = data["evidence"]
    assert set(evidence) == {"satisfied", "missing", "requirements"}
    assert isinstance(evidence["satisfied"], bool) and isinstance(evidence["missing"], list)
    for requirement in evidence["requirements"].values():
        assert set(requirement) == {"required", "satisfied", "hits"}
    assert set(data["answer"]) == {"status", "lead", "text", "citations", "footer", "meta"}
    assert data["answer"]["status"] == "answered"
    assert data["answer"]["lead"] and data["answer"]["text"].startswith(data["answer"]["lead"])
    assert data["answer"]["meta"]["mode"] != "llm" and data["answer"]["meta"]["provider"] is None
    citations = data["answer"]["citations"]
    assert citations and all(set(c) == {"path", "start_line", "end_line"} for c in citations)
    assert evidence["satisfied"] is True and evidence["missing"] == []
    assert evidence["requirements"]["require_def"]["hits"] == ["src/payments/gateway.py:20-22"]
    assert "payments.gateway.validate" in data["answer"]["text"]
    assert {"path": "src/payments/gateway.py", "start_line": 20, "end_line": 22} in citations


def test_session_follow_up_continues_the_topic(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    first = ask_json(capsys, repo, "где определён класс Gateway?", "--session", "topic1")
    assert first["session"] == "topic1"
    assert first["plan"]["conversation_mode"] == "NEW"
    state = json.loads((repo / ".ragstrata" / "sessions" / "topic1.json").read_text("utf-8"))
    assert state["active_intent"] == "CODE_QA" and state["turn"] == 1
    follow = ask_json(capsys, repo, "а где он вызывается?", "--session", "topic1")
    plan = follow["plan"]
    assert plan["conversation_mode"] == "CONTINUE" and plan["intent"] == "CODE_QA"
    carried = [a for a in plan["query_plan"]["anchors"] if a["source"] == "conversation_state"]
    assert [(a["type"], a["value"]) for a in carried] == [("SYMBOL", "Gateway")]
    assert "Gateway" in plan["query_plan"]["keyword_hints"]
    assert has_cyrillic(follow["answer"]["text"])
    state = json.loads((repo / ".ragstrata" / "sessions" / "topic1.json").read_text("utf-8"))
    assert state["turn"] == 2


def has_cyrillic(text: str) -> bool:
    return any("\u0400" <= ch <= "\u04ff" for ch in text)


def test_without_a_session_the_follow_up_is_new(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    data = ask_json(capsys, repo, "а где он вызывается?")
    assert data["plan"]["conversation_mode"] == "NEW"
    assert not [a for a in data["plan"]["query_plan"]["anchors"] if a["type"] == "SYMBOL"]


def test_unknown_symbol_ends_in_not_found_with_candidates(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    data = ask_json(capsys, repo, "где определён класс Gatewy?")
    assert data["evidence"]["satisfied"] is False
    assert "require_def" in data["evidence"]["missing"]
    text = data["answer"]["text"]
    assert text.startswith("Определение `Gatewy` не найдено.")
    assert "```" not in text  # nothing quoted, nothing asserted
    footer = data["answer"]["footer"]
    assert "в репозитории нет определения `Gatewy`" in footer
    assert "require_def" not in footer


def test_human_footer_says_what_is_missing_in_words(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    code, out, _ = run(capsys, "ask", "where is class Gatewy defined?", "--repo", str(repo))
    assert code == 0
    assert "no definition named `Gatewy` in this repository" in " ".join(out.split())
    assert "require_def" not in out and "require_flow" not in out


def test_human_output_has_answer_citations_and_status(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    code, out, _ = run(capsys, "ask", "what is this project about?", "--repo", str(repo))
    assert code == 0
    assert "A tiny payments library." in out
    assert "citations:" in out and "README.md:3" in out
    assert "evidence: satisfied" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["ask", "   "], "empty question"),
        (["ask", "what?", "--session", "bad/name"], "invalid session name"),
        (["ask", "what?", "--repo", "/nonexistent/repo/path"], "not found"),
        (["gendocs", "paymnts"], "near candidates"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], repo: Path, args: list[str], needle: str
) -> None:
    if "--repo" not in args:
        args = [*args, "--repo", str(repo)]
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0]


def test_ask_without_an_index_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "ask", "what?", "--repo", str(tmp_path))
    assert code == 2 and "no index" in err and "ragstrata index" in err
    assert not (tmp_path / ".ragstrata").exists()


def test_gendocs_prints_and_writes_atomically(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path
) -> None:
    code, printed, _ = run(capsys, "gendocs", "payments", "--repo", str(repo))
    assert code == 0 and printed.startswith("# Package `src/payments`\n")
    out = tmp_path / "payments.md"
    out.write_text("old", encoding="utf-8")
    code, stdout, _ = run(capsys, "gendocs", "payments", "--repo", str(repo), "--out", str(out))
    assert code == 0 and stdout == ""
    written = out.read_text(encoding="utf-8")
    # a written page carries the source hashes the drift check reads, then the same Markdown
    head, body = written.split("\n", 1)
    assert head.startswith("<!-- ragstrata-gendocs ") and body == "\n" + printed
    assert [p.name for p in tmp_path.iterdir()] == ["payments.md"]  # no temp file left


def test_gendocs_out_into_missing_folder_is_a_user_error(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path
) -> None:
    target = tmp_path / "nope" / "x.md"
    code, _, err = run(capsys, "gendocs", "payments", "--repo", str(repo), "--out", str(target))
    assert code == 2 and "--out folder does not exist" in err
