"""`ragstrata inspect` through the console entry point (in-process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import CliResult, run_cli

CORE = '''\
"""Core module."""
import os


class Greeter:
    """Says hello."""

    def greet(self, name):
        return helper(name)


def helper(name):
    return os.path.join("hi", name)
'''

README = """\
# Demo

Intro.

## Install

### From source

Run `pip install .`

## Установка

Текст.
"""

COMMON = {"layer", "path", "language", "is_test", "start_line", "end_line"}
PER_LAYER = {
    "C1": {"kind", "name", "symbol", "signature", "parent"},
    "C2": {"relation", "from_symbol", "to_name", "to_symbol", "line"},
    "D1": {"heading_path"},
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "core.py").write_text(CORE, encoding="utf-8")
    (root / "README.md").write_text(README, encoding="utf-8")
    (root / ".env").write_text("TOKEN=secret\n", encoding="utf-8")
    return root


def _run(*args: str | Path) -> CliResult:
    return run_cli("inspect", *args)


def _json_lines(stdout: str) -> tuple[list[dict], dict]:
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert lines and set(lines[-1]) == {"report"}, "the last line is the report"
    rows = lines[:-1]
    assert all("report" not in row for row in rows)
    return rows, lines[-1]["report"]


def test_json_rows_carry_the_required_fields_per_layer(repo: Path) -> None:
    proc = _run(repo, "--json")
    assert proc.returncode == 0, proc.stderr
    rows, report = _json_lines(proc.stdout)
    layers = {row["layer"] for row in rows}
    assert {"C0", "C1", "C2", "C3", "D0", "D1", "D2"} <= layers
    for row in rows:
        assert set(row) >= COMMON, row
        assert PER_LAYER.get(row["layer"], set()) <= set(row), row
        assert 1 <= row["start_line"] <= row["end_line"]
    defs = {(r["symbol"], r["kind"], r["start_line"]) for r in rows if r["layer"] == "C1"}
    assert any(
        sym.endswith("Greeter") and kind == "class" and line == 5 for sym, kind, line in defs
    )
    assert any(sym.endswith("helper") and line == 12 for sym, _kind, line in defs)
    calls = [r for r in rows if r["layer"] == "C2" and r["relation"] == "calls"]
    assert any(r["to_name"] == "helper" and r["line"] == 9 for r in calls), calls
    sections = {
        r["heading_path"]: (r["start_line"], r["end_line"]) for r in rows if r["layer"] == "D1"
    }
    assert sections["README.md > Demo > Install > From source"] == (7, 9)
    assert sections["README.md > Demo > Установка"] == (11, 13)
    assert not any(r["path"] == ".env" for r in rows)
    assert report["files"] == 3
    assert report["rows"]["D1"] == len([r for r in rows if r["layer"] == "D1"])


def test_layer_filter_is_repeatable_and_case_insensitive(repo: Path) -> None:
    proc = _run(repo, "--json", "--layer", "C1", "-l", "d1")
    assert proc.returncode == 0, proc.stderr
    rows, _ = _json_lines(proc.stdout)
    assert rows and {row["layer"] for row in rows} == {"C1", "D1"}


def test_single_file_path_shows_only_that_file(repo: Path) -> None:
    proc = _run(repo / "README.md", "--json")
    assert proc.returncode == 0, proc.stderr
    rows, _ = _json_lines(proc.stdout)
    assert rows and {row["path"] for row in rows} == {"README.md"}


def test_human_output_is_a_tree_with_the_report_on_stderr(repo: Path) -> None:
    proc = _run(repo, "--layer", "D1", "--layer", "C1")
    assert proc.returncode == 0, proc.stderr
    assert "README.md > Demo > Install > From source" in proc.stdout
    assert "pkg/core.py" in proc.stdout and "Greeter" in proc.stdout
    assert "files: 3" in proc.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [(("--layer", "X9"), "C0, C1, C2, C3, D0, D1, D2"), ((), "no such file or folder")],
)
def test_bad_layer_and_missing_path_exit_2_with_one_line(
    repo: Path, args: tuple[str, ...], needle: str
) -> None:
    target = repo if args else repo / "does-not-exist"
    proc = _run(target, *args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert needle in proc.stderr and "Traceback" not in proc.stderr
