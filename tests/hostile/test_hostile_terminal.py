"""Issue 14 item 8: terminal escapes and bidi overrides from the repository are shown, not obeyed.

A file named ``evil<ESC>[31mred<U+202E>gnp.py`` whose content holds an OSC title sequence, a
clear-screen and a right-to-left override in a symbol name is indexed; every CLI renderer
(search, ask, inspect, index --dry-run, gendocs, errors, JSON) must print those characters as
escapes, on a colour terminal too (FORCE_COLOR makes rich behave as on a TTY).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hostile.hostile_util import clean_env, run_cli, run_proc, write_tree
from ragstrata.text.visible import visible, visible_json

NAME = "evil\x1b[31mred\u202egnp.py"
CONTENT = (
    'def f\u202eoo():\n    """Doc \x1b]0;pwned\x07 here \u2066x\u2069."""\n    return "\x1b[2J"\n'
)
RAW = ("\x1b[31m", "\x1b]0;", "\x1b[2J", "\u202e", "\u2066", "\x07")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("tty") / "r", {NAME: CONTENT, "ok.py": "x = 1\n"})
    proc = run_proc("index", str(root), env=clean_env())
    assert proc.returncode == 0, proc.stderr
    return root


def _clean(text: str) -> None:
    for raw in RAW:
        assert raw not in text, repr(raw)


COMMANDS = {
    "search": lambda r: ["search", "foo", "--repo", str(r)],
    "search-json": lambda r: ["search", "foo", "--repo", str(r), "--json"],
    "ask": lambda r: ["ask", "what does foo return?", "--repo", str(r)],
    "ask-json": lambda r: ["ask", "what does foo return?", "--repo", str(r), "--json"],
    "inspect": lambda r: ["inspect", str(r)],
    "inspect-json": lambda r: ["inspect", str(r), "--json"],
    "gendocs": lambda r: ["gendocs", NAME, "--repo", str(r)],
    "status": lambda r: ["status", str(r)],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_renderers_escape_untrusted_text_on_a_colour_terminal(repo: Path, name: str) -> None:
    proc = run_proc(*COMMANDS[name](repo), env=clean_env(FORCE_COLOR="1", COLUMNS="200"))
    assert proc.returncode == 0, proc.stderr
    _clean(proc.stdout + proc.stderr)
    if name.endswith("json"):
        decoded = json.dumps(
            json.loads(proc.stdout.splitlines()[0] if "inspect" in name else proc.stdout),
            ensure_ascii=False,
        )
        assert "\u202e" in decoded  # the value is intact, only its printing is escaped
    if name in {"search", "inspect", "gendocs"}:
        assert "\\x1b[31m" in proc.stdout or "\\u202e" in proc.stdout


def test_dry_run_paths_and_errors_are_escaped(repo: Path) -> None:
    (repo / ("new\x1b[32m\u202e.py")).write_text("y = 2\n", encoding="utf-8")
    code, out, err = run_cli("index", str(repo), "--dry-run")
    assert code == 0, err
    _clean(out + err)
    assert "\\x1b[32m" in out
    code, out, err = run_cli("status", str(repo / "missing\x1b[31m\u202e"))
    assert code == 2 and "\\x1b[31m" in err
    _clean(out + err)


def test_visible_helpers() -> None:
    assert visible("a\x1b[31mb\u202ec\n\td") == "a\\x1b[31mb\\u202ec\n\td"
    assert visible("a\nb\tc", multiline=False) == "a\\x0ab\\x09c"
    assert visible("кириллица") == "кириллица"
    text = visible_json(json.dumps({"p": "x\u202ey\x85"}, ensure_ascii=False))
    assert "\u202e" not in text and json.loads(text) == {"p": "x\u202ey\x85"}
