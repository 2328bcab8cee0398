"""Issue 26, "wrong but safe": strict request booleans, one schema check for every command,
config edits under ``watch``, bounded settings, honest terminal output and refusals.

Each test drives the real CLI, HTTP server or MCP stdio server on a fixture it writes itself.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from answer_fixture import write_repo
from hostile.hostile_util import clean_env
from ragstrata.facade import Ragstrata
from ragstrata.http import create_app
from ragstrata.settings import load_settings
from test_http_api import LiveServer


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_repo(tmp_path_factory.mktemp("stale") / "shop")
    Ragstrata(root, load_settings(root, env=clean_env())).index()
    return root


@pytest.mark.parametrize("value", ["yes", "true", "false", 1, 0, "1", None])
def test_http_index_takes_a_strict_boolean(repo: Path, value: object) -> None:
    """Cause 10: ``"rebuild": "yes"`` is a 422 naming the field, never a started job."""
    rs = Ragstrata(repo, load_settings(repo, env=clean_env()))
    with LiveServer(create_app({"shop": rs})) as server:
        reply = httpx.post(server.url + "/v1/index", json={"rebuild": value}, timeout=30)
        assert reply.status_code == 422, reply.text
        assert "rebuild" in reply.text
        search = httpx.post(
            server.url + "/v1/search", json={"query": "charge", "render": "yes"}, timeout=30
        )
        assert search.status_code == 422 and "render" in search.text
        status = httpx.get(server.url + "/v1/status", timeout=30).json()
        assert status["repos"][0]["job_id"] is None  # nothing was started
    rs.close()
