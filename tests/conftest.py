"""Shared test configuration: where the project's own contract data lives.

The seed-component conformance cases are kept in the repository under
``tests/conformance/`` (a copy of ``shared/conformance/``, refreshed by
``scripts/sync_conformance.sh``), so a plain clone tests itself. Test modules import
``CONFORMANCE`` from here; nothing under ``tests/`` reads a sibling folder.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

CONFORMANCE = Path(__file__).resolve().parent / "conformance"
"""Folder of the seed-component conformance cases (JSON)."""

# Tests that start something heavy — a real process tree killed with -9, headless Chromium, a
# PostgreSQL server, the packaged embedding model, fuzzing against the OpenAPI document — are
# marked ``slow``: ``make test-fast`` leaves them out, ``make test`` runs everything.
SLOW_MODULES = frozenset(
    {
        "test_index_kill.py",
        "test_web_e2e.py",
        "test_store_postgres.py",
        "test_http_schemathesis.py",
        "test_embed_local.py",
        "test_cli_fresh.py",
        "test_corruption.py",
        "test_store_urls.py",
    }
)
SLOW_FIXTURES = frozenset({"pg_url", "minilm", "browser"})  # PostgreSQL, real model, Chromium
# Single tests that start a real server or CLI process, or load the machine on purpose.
SLOW_TESTS = frozenset(
    {
        "test_tools_listed_and_called_over_stdio",
        "test_stdio_mode_writes_nothing_but_protocol_to_stdout",
        "test_streamable_http_serves_several_repositories",
        "test_serve_command_subprocess",
        "test_ctrl_c_exits_130_with_one_line_and_keeps_batches",
        "test_healthz_answers_while_200_requests_are_in_flight",
        # a real ``ragstrata mcp`` stdio process (the SDK alone takes ~1 s to import)
        "test_errors_are_one_line_tool_errors_and_the_server_survives",
        "test_status_and_reindex_pick_up_an_edit",
        "test_mcp_reindex_takes_a_strict_boolean",
        "test_mcp_ask_carries_the_meta",
        "test_mcp_returns_no_secret",
        # real CLI processes on a pipe or a colour terminal
        "test_parse_error_in_a_real_process_exits_2",
        "test_unknown_environment_key_is_refused",
        "test_renderers_escape_untrusted_text_on_a_colour_terminal",
        "test_index_without_a_terminal_prints_progress_lines_and_one_json",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        name = getattr(item, "originalname", item.name)
        if item.path.name in SLOW_MODULES or fixtures & SLOW_FIXTURES or name in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


def pytest_configure(config: pytest.Config) -> None:
    """Child interpreters (CLI, server and MCP subprocesses) keep their bytecode: a shell that
    sets ``PYTHONDONTWRITEBYTECODE`` would otherwise make each of them compile every module
    again (~1 s of CPU). The bytecode goes to a folder under the temporary directory, never
    into the source tree."""
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
        folder = Path(tempfile.gettempdir()) / f"ragstrata-test-pycache-{os.getuid()}"
        os.environ.setdefault("PYTHONPYCACHEPREFIX", str(folder))
