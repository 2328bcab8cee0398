"""The skeleton's contracts: error tree, settings precedence, CLI error mapping."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import CliResult, run_cli
from ragstrata.errors import (
    ConfigError,
    InvalidQueryError,
    RagstrataError,
    SystemFailure,
    UserError,
)
from ragstrata.settings import load_settings


def test_error_tree_shape() -> None:
    assert issubclass(InvalidQueryError, UserError)
    assert issubclass(InvalidQueryError, ValueError)
    assert issubclass(UserError, RagstrataError)
    assert issubclass(SystemFailure, RagstrataError)
    assert UserError.exit_code == 2
    assert SystemFailure.exit_code == 3


def test_settings_precedence(tmp_path: Path) -> None:
    user = tmp_path / "xdg" / "ragstrata" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text(
        '[index]\nmax_file_bytes = 2000\nchunk_overlap = 10\n[llm]\nmodel = "from-user"\n',
        encoding="utf-8",
    )
    (tmp_path / "ragstrata.toml").write_text(
        "[index]\nmax_file_bytes = 1000\nchunk_size = 500\n", encoding="utf-8"
    )
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "RAGSTRATA_INDEX_CHUNK_SIZE": "700"}
    s = load_settings(tmp_path, env=env)
    assert s.index.max_file_bytes == 1000  # repository file beats user file
    assert s.index.chunk_overlap == 10  # user file beats default
    assert s.index.chunk_size == 700  # env beats file
    assert s.llm.model == "from-user"
    env["RAGSTRATA_LLM_MODEL"] = "from-env"
    assert load_settings(tmp_path, env=env).llm.model == "from-env"  # env beats user file
    s = load_settings(tmp_path, env=env, overrides={"llm": {"model": "from-flag"}})
    assert s.llm.model == "from-flag"  # flag beats env


def test_settings_pyproject_section_and_api_key_env(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.ragstrata.index]\nchunk_size = 800\n", encoding="utf-8"
    )
    env = {"MY_KEY": "sk-secret", "RAGSTRATA_EMBEDDER_API_KEY_ENV": "MY_KEY"}
    s = load_settings(tmp_path, env={**env, "RAGSTRATA_EMBEDDER_BATCH_SIZE": "8"})
    assert s.index.chunk_size == 800
    assert s.embedder.batch_size == 8
    assert s.embedder.api_key is not None
    assert s.embedder.api_key.get_secret_value() == "sk-secret"
    assert "sk-secret" not in repr(s)


def test_bad_setting_names_the_field(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"index\.chunk_size"):
        load_settings(tmp_path, env={"RAGSTRATA_INDEX_CHUNK_SIZE": "-3"})


def test_broken_settings_file_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "ragstrata.toml").write_text("[index\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot read settings file"):
        load_settings(tmp_path)


def _cli(*args: str, cwd: Path | None = None) -> CliResult:
    return run_cli(*args, cwd=cwd)


def test_cli_config_error_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "ragstrata.toml").write_text("[index\n", encoding="utf-8")
    proc = _cli("route", "где класс UserService?", cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: cannot read settings file")


def test_cli_help_lists_commands() -> None:
    proc = _cli("--help")
    assert proc.returncode == 0
    assert "route" in proc.stdout


def test_cli_unknown_store_scheme_is_one_line_exit_2(tmp_path: Path) -> None:
    proc = _cli("--store", "mysql://host/db", "status", str(tmp_path))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "mysql" in lines[0] and "postgresql" in lines[0]


def test_importing_ragstrata_loads_no_heavy_dependency() -> None:
    """Cheap import: models, parsers, servers and databases load on first use only."""
    heavy = [
        "onnxruntime",
        "tokenizers",
        "tree_sitter",
        "pymorphy3",
        "numpy",
        "fastapi",
        "mcp",
        "psycopg",
        "httpx",
    ]
    code = (
        "import sys, ragstrata, ragstrata.app.facade, ragstrata.errors, ragstrata.settings\n"
        f"print(','.join(m for m in {heavy!r} if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_the_command_line_starts_without_heavy_modules() -> None:
    """``ragstrata --help`` and the parsing of every command import no model, parser, store,
    server or settings machinery: each command loads what it needs when it runs."""
    heavy = [
        "pydantic",
        "numpy",
        "onnxruntime",
        "tokenizers",
        "pymorphy3",
        "tree_sitter",
        "httpx",
        "fastapi",
        "mcp",
        "ragstrata.settings",
        "ragstrata.app.facade",
        "ragstrata.indexer.run",
        "ragstrata.query.router",
    ]
    code = (
        f"import sys, ragstrata.cli.app\nprint(','.join(m for m in {heavy!r} if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""
