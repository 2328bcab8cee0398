"""Issue 14 item 5: every command-line parse error exits 2 with one line, never "internal error";
the global ``--store`` works before and after the subcommand."""

from __future__ import annotations

from pathlib import Path

import pytest

from hostile.hostile_util import clean_env, run_cli, run_proc, write_tree
from ragstrata.cli.app import hoist_global_options

BAD = [
    (["search", "x", "--top-k", "abc"], "--top-k"),
    (["search", "x", "--top-k", "0"], "--top-k"),
    (["ask"], "question"),
    (["search", "--bogus"], "--bogus"),
    (["frobnicate"], "frobnicate"),
    (["serve", "--port", "70000"], "--port"),
    (["mcp", "--transport", "carrier-pigeon"], "--transport"),
    (["index", ".", "--store"], "--store"),
    (["ask", "q", "--session"], "--session"),
    (["watch", ".", "--debounce-ms", "60001"], "--debounce-ms"),  # issue 26 cause 13
    (["watch", ".", "--debounce-ms", "99999999999999999999"], "--debounce-ms"),
]


@pytest.mark.parametrize(("args", "named"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_parse_error_exits_2_with_one_line(args: list[str], named: str) -> None:
    code, out, err = run_cli(*args)
    assert code == 2, err
    line = err.strip()
    assert "\n" not in line and line.startswith("error:"), err
    assert named in line and "internal error" not in line and "Traceback" not in line
    assert out == ""


def test_parse_error_in_a_real_process_exits_2() -> None:
    proc = run_proc("search", "x", "--top-k", "abc")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "--top-k" in proc.stderr


def test_hoist_moves_only_global_options() -> None:
    assert hoist_global_options(["index", ".", "--store", "u"]) == ["--store", "u", "index", "."]
    assert hoist_global_options(["index", "--store=u", "."]) == ["--store=u", "index", "."]
    assert hoist_global_options(["--store", "u", "index"]) == ["--store", "u", "index"]
    assert hoist_global_options(["ask", "q", "--debug"]) == ["--debug", "ask", "q"]
    # after "--" everything is an argument
    assert hoist_global_options(["ask", "--", "--store", "u"]) == ["ask", "--", "--store", "u"]


@pytest.mark.parametrize("where", ["before", "after"])
def test_global_store_before_and_after_the_subcommand(tmp_path: Path, where: str) -> None:
    root = write_tree(tmp_path / "r", {"a.py": "def f():\n    return 1\n"})
    store = ["--store", "mysql://nobody@localhost/x"]
    args = [*store, "status", str(root)] if where == "before" else ["status", str(root), *store]
    code, _, err = run_cli(*args)
    # The store URL was seen (and refused by its scheme), wherever the flag stood.
    assert code == 2 and "mysql" in err and "No such option" not in err


def test_unknown_environment_key_is_refused(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "r", {"a.py": "x = 1\n"})
    proc = run_proc("status", str(root), env=clean_env(RAGSTRATA_LLM_MODLE="gpt"))
    assert proc.returncode == 2
    assert "RAGSTRATA_LLM_MODLE" in proc.stderr and proc.stderr.strip().count("\n") == 0
