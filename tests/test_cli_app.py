"""The CLI's shape: commands are plain functions registered by name in ``cli.app`` (no command
module imports the app back), and the global options travel on the click context, not in a
module-level dict (in-process runs with ``run_cli``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ragstrata.cli
from cli_runner import run_cli
from ragstrata.cli.app import COMMANDS, app
from ragstrata.cli.common import GlobalOptions, edge_settings
from ragstrata.errors import ConfigError

CLI = Path(ragstrata.cli.__file__).parent


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth (lazy imports included)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    return out


def test_no_command_module_imports_the_app() -> None:
    modules = sorted(CLI.glob("*_cmd.py"))
    assert len(modules) >= 10
    for path in modules:
        assert "ragstrata.cli.app" not in _imports(path), path.name


def test_every_command_is_registered_once_by_name() -> None:
    names = [c.name for c in app.registered_commands]
    assert names == [name for name, _ in COMMANDS]
    assert len(set(names)) == len(names)
    assert {c.callback for c in app.registered_commands} == {fn for _, fn in COMMANDS}


def test_global_store_reaches_the_command_and_leaves_no_state(tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    repo.mkdir()
    out = run_cli("--store", "mysql://db/x", "status", repo, clean_env=True)
    assert out.returncode == 2, out.stderr
    assert "store url scheme 'mysql' is not supported" in out.stderr
    assert out.stderr.count("\n") == 1
    # The flag lived on that run's context only: nothing is left for the next caller.
    assert edge_settings(repo).store.url is None
    again = run_cli("status", repo, "--json", clean_env=True)
    assert "mysql" not in again.stdout + again.stderr


def test_global_options_layer_over_settings(tmp_path: Path) -> None:
    options = GlobalOptions(store="postgresql://u@h/db")
    assert edge_settings(tmp_path, options=options).store.url == "postgresql://u@h/db"
    assert edge_settings(tmp_path).store.url is None
    assert GlobalOptions().overrides() == {}


def test_trust_repo_config_travels_in_the_options(tmp_path: Path) -> None:
    (tmp_path / "ragstrata.toml").write_text(
        '[store]\nurl = "postgresql://u@h/db"\n', encoding="utf-8"
    )
    with pytest.raises(ConfigError, match="store"):
        edge_settings(tmp_path)  # a repository file may not choose the store
    trusted = edge_settings(tmp_path, options=GlobalOptions(trust_repo_config=True))
    assert trusted.store.url == "postgresql://u@h/db"
    refused = run_cli("status", tmp_path, clean_env=True)
    assert refused.returncode == 2 and "--trust-repo-config" in refused.stderr
    # --trust-repo-config on one run leaves nothing behind
    run_cli("--trust-repo-config", "--store", "mysql://x/y", "status", tmp_path, clean_env=True)
    with pytest.raises(ConfigError):
        edge_settings(tmp_path)
