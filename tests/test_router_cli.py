"""`ragstrata route` and `ragstrata schema` through the command's entry point (in-process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import CliResult, run_cli


def _cli(*args: str, cwd: Path) -> CliResult:
    return run_cli(*args, cwd=cwd)


def _one_error_line(proc: CliResult) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert proc.stdout == ""
    return lines[0]


def test_route_prints_the_plan(tmp_path: Path) -> None:
    proc = _cli("route", "где определён класс UserService в src/app/service.py?", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    assert plan["schema_version"] == "1.1"
    assert plan["intent"] == "CODE_QA"
    assert plan["graph_id"] == "CodeQAGraph"
    assert plan["conversation_mode"] == "NEW"
    assert "класс" in proc.stdout  # Cyrillic printed readably, not as \\u escapes
    values = {(a["type"], a["value"]) for a in plan["query_plan"]["anchors"]}
    assert ("SYMBOL", "UserService") in values
    assert ("FILE_PATH", "src/app/service.py") in values
    assert plan["retrieval_spec"]["filters"]["path_scope"] == ["src/app/service.py"]


def test_route_with_state_and_repo_context_files(tmp_path: Path) -> None:
    state = {
        "active_intent": "DOCS_QA",
        "active_anchors": [{"type": "DOC_REF", "value": "Configuration", "subtype": "section"}],
        "turn": 3,
        "some_unknown_key": True,
    }
    (tmp_path / "state.json").write_text(json.dumps(state), encoding="utf-8")
    proc = _cli(
        "route",
        "а где это описано подробнее?",
        "--state",
        "@state.json",
        "--repo-context",
        '{"layers": ["D1", "D2"]}',
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    assert plan["intent"] == "DOCS_QA"
    assert plan["conversation_mode"] == "CONTINUE"
    carried = [a for a in plan["query_plan"]["anchors"] if a["source"] == "conversation_state"]
    assert carried and carried[0]["value"] == "Configuration" and carried[0]["span"] is None
    assert [q["layer_id"] for q in plan["retrieval_spec"]["layer_queries"]] == ["D1", "D2"]


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_empty_query_is_one_line_exit_2(tmp_path: Path, query: str) -> None:
    line = _one_error_line(_cli("route", query, cwd=tmp_path))
    assert line.startswith("error: ") and "empty" in line


def test_malformed_state_json_is_one_line_exit_2(tmp_path: Path) -> None:
    line = _one_error_line(_cli("route", "где класс Foo?", "--state", "{bad", cwd=tmp_path))
    assert "--state is not valid JSON" in line


def test_state_of_wrong_shape_names_the_field(tmp_path: Path) -> None:
    proc = _cli("route", "где класс Foo?", "--state", '{"active_intent": "CHAT"}', cwd=tmp_path)
    line = _one_error_line(proc)
    assert "conversation_state.active_intent" in line and "CHAT" in line
    proc = _cli("route", "x", "--state", '{"active_anchors": [{"type": "X"}]}', cwd=tmp_path)
    assert "conversation_state.active_anchors.0.type" in _one_error_line(proc)
    proc = _cli("route", "x", "--state", "[1, 2]", cwd=tmp_path)
    assert "expected an object" in _one_error_line(proc)
    proc = _cli("route", "x", "--repo-context", '{"layers": ["Z9"]}', cwd=tmp_path)
    assert "repo_context.layers" in _one_error_line(proc)


def test_missing_state_file_is_one_line_exit_2(tmp_path: Path) -> None:
    line = _one_error_line(_cli("route", "x", "--state", "@nope.json", cwd=tmp_path))
    assert "nope.json" in line


def test_schema_router_plan(tmp_path: Path) -> None:
    proc = _cli("schema", "router-plan", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    schema = json.loads(proc.stdout)
    assert schema["title"] == "RouterPlan"
    required = set(schema["required"])
    assert {"intent", "graph_id", "conversation_mode", "query_plan"} <= required
    assert {"retrieval_spec", "evidence_policy"} <= required
    anchor = schema["$defs"]["Anchor"]
    assert {"type", "value", "confidence"} <= set(anchor["required"])


def test_unknown_schema_lists_valid_names(tmp_path: Path) -> None:
    line = _one_error_line(_cli("schema", "nope", cwd=tmp_path))
    assert "nope" in line and "router-plan" in line
