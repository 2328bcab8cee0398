"""Issue 26, "wrong but safe": strict request booleans, one schema check for every command,
config edits under ``watch``, bounded settings, honest terminal output and refusals.

Each test drives the real CLI, HTTP server or MCP stdio server on a fixture it writes itself.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

import cli_runner
from answer_fixture import write_repo
from hostile.hostile_util import clean_env, mcp_call, run_proc, write_tree
from ragstrata.app.facade import Ragstrata
from ragstrata.http import create_app
from ragstrata.settings import load_settings
from ragstrata.testing import HashEmbedder
from test_http_api import LiveServer
from test_llm_providers import KEY, ProviderServer, Reply, openai_app, openai_chat

pytestmark = pytest.mark.slow  # end-to-end runs: processes, servers, whole indexes

SRC = Path(__file__).resolve().parents[2] / "src"


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


def test_router_classifier_llm_without_an_llm_is_one_line(repo: Path) -> None:
    """Cause 15: ``RAGSTRATA_ROUTER_CLASSIFIER=llm`` with no LLM says how to configure one from
    the CLI (never "pass Router(classifier=...)"), exit 2; ``route`` reads the same rule."""
    env = clean_env(RAGSTRATA_ROUTER_CLASSIFIER="llm")
    for args in (("route", "hmm"), ("search", "hmm", "--repo", str(repo))):
        done = run_proc(*args, env=env)
        assert done.returncode == 2, done.stderr
        line = done.stderr.strip()
        assert "\n" not in line and "RAGSTRATA_LLM_PROVIDER" in line, line
        assert "Router(" not in line


def test_router_classifier_llm_works_from_the_cli(repo: Path) -> None:
    """Cause 15, the other half: with an LLM configured, ``route`` asks it for the intent of a
    question the rules are unsure of, and the plan says the classifier decided."""
    verdict = json.dumps({"intent": "DOCS_QA", "confidence": 0.93})
    server = ProviderServer(openai_app({"gpt-4o-mini": 0}))
    server.script("/v1/chat/completions", Reply(200, openai_chat(verdict, "gpt-4o-mini", 9, 9, 0)))
    try:
        env = clean_env(
            RAGSTRATA_ROUTER_CLASSIFIER="llm",
            RAGSTRATA_LLM_PROVIDER="openai",
            RAGSTRATA_LLM_BASE_URL=server.root + "/v1",
            RAGSTRATA_LLM_MODEL="gpt-4o-mini",
            RAGSTRATA_LLM_API_KEY=KEY,
            RAGSTRATA_LLM_MAX_RETRIES="0",
        )
        done = run_proc("route", "hmm", env=env)
        assert done.returncode == 0, done.stderr
        assert [r.path for r in server.requests] == ["/v1/chat/completions"]
        assert json.loads(done.stdout)["intent"] == "DOCS_QA"
    finally:
        server.close()


BELL_NAME = "b:x:\x07ll.py"
BELL_CONTENT = 'def bell():\n    """Ring\x07 the :x: bell [bold]loud[/bold] now."""\n    return 1\n'


@pytest.fixture(scope="module")
def bell_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("bell") / "r", {BELL_NAME: BELL_CONTENT})
    done = run_proc("index", str(root))
    assert done.returncode == 0, done.stderr
    return root


BELL_COMMANDS = {
    "search": ("search", "bell"),
    "ask": ("ask", "what does bell ring?"),
    "inspect": ("inspect", "."),
    "error": ("gendocs", "nope\x07:x:"),
}


@pytest.mark.parametrize("name", sorted(BELL_COMMANDS))
def test_bel_is_escaped_and_emoji_codes_stay_text(bell_repo: Path, name: str) -> None:
    """Cause 14: BEL from the repository (a file name, a docstring, a path in an error) shows
    as ``\\x07`` on a colour terminal, never dropped or rung; ``:x:`` stays ``:x:`` (no ❌) and
    ``[bold]`` stays literal."""
    args = BELL_COMMANDS[name]
    env = clean_env(FORCE_COLOR="1", COLUMNS="200", PYTHONPATH=str(SRC))
    done = subprocess.run(
        [sys.executable, "-m", "ragstrata", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=bell_repo,
        timeout=120,
    )
    shown = done.stdout + done.stderr
    assert done.returncode == (2 if name == "error" else 0), done.stderr
    assert "\x07" not in shown and "\\x07" in shown
    assert "\u274c" not in shown and ":x:" in shown
    if name in ("search", "inspect"):
        assert "b:x:\\x07ll" in shown
    if name == "ask":
        assert "[bold]loud[/bold]" in shown


def _other_schema(root: Path) -> None:
    """Write a manifest claiming another schema version (an index of another release)."""
    db = sqlite3.connect(root / ".ragstrata" / "index.sqlite")
    try:
        (text,) = db.execute("SELECT value FROM meta WHERE key = 'manifest'").fetchone()
        manifest = json.loads(text)
        manifest["schema_version"] += 7
        db.execute("UPDATE meta SET value = ? WHERE key = 'manifest'", (json.dumps(manifest),))
        db.commit()
    finally:
        db.close()


def test_every_command_refuses_another_schema_version(tmp_path: Path) -> None:
    """Cause 11: search, status, ask, index, gendocs (CLI), HTTP and MCP all refuse an index of
    another ``schema_version`` with the rebuild hint (exit 2); ``index --rebuild`` fixes it."""
    root = write_repo(tmp_path / "shop")
    assert run_proc("index", str(root)).returncode == 0
    _other_schema(root)
    for args in (
        ("search", "charge", "--repo", str(root)),
        ("status", str(root)),
        ("status", str(root), "--json"),
        ("ask", "what does charge do?", "--repo", str(root)),
        ("index", str(root)),
        ("gendocs", "pay", "--repo", str(root)),
    ):
        # in this process (the same main(), exit code and stderr; the fresh interpreters
        # around this loop cover start-up): six more interpreters cost seconds, not coverage
        done = cli_runner.run_cli(*args, env=clean_env(), clean_env=True)
        line = done.stderr.strip()
        assert done.returncode == 2, (args, done.stderr)
        assert "\n" not in line and "index --rebuild" in line, (args, line)
    rs = Ragstrata(root, load_settings(root, env=clean_env()))
    with LiveServer(create_app({"shop": rs})) as server:
        reply = httpx.post(server.url + "/v1/search", json={"query": "charge"}, timeout=30)
        assert reply.status_code == 409 and reply.json()["error"]["code"] == "index_mismatch"
        status = httpx.get(server.url + "/v1/status", timeout=30).json()["repos"][0]
        assert status["error"]["code"] == "index_mismatch" and status["status"] is None
    rs.close()
    result = mcp_call(root, "search_code", {"query": "charge"})
    assert result.get("isError") is True and "index --rebuild" in json.dumps(result)
    assert run_proc("index", str(root), "--rebuild").returncode == 0
    done = run_proc("search", "charge", "--repo", str(root))
    assert done.returncode == 0, done.stderr


class HeldDocuments(HashEmbedder):
    """The hash embedder whose document embedding waits for ``gate``: it holds a rebuild job
    in its embedding phase, after the old index would have been emptied."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__()
        self.gate = gate
        self.held = threading.Event()

    def embed_documents(self, texts: Sequence[str], progress: Any = None) -> list[list[float]]:
        self.held.set()
        assert self.gate.wait(timeout=120), "the test never released the rebuild"
        return super().embed_documents(texts, progress)


def test_http_rebuild_job_keeps_readers_answering(tmp_path: Path) -> None:
    """Cause 9: while an HTTP rebuild job runs, search and ask of that repository answer from
    the old index (200, not 409); a CLI rebuild started meanwhile waits its turn and finishes
    (cause 4 across a process and a server)."""
    root = write_repo(tmp_path / "shop")
    assert run_proc("index", str(root)).returncode == 0
    gate = threading.Event()
    embedder = HeldDocuments(gate)
    rs = Ragstrata(root, load_settings(root, env=clean_env()), embedder=embedder)
    cli: subprocess.Popen[str] | None = None
    with LiveServer(create_app({"shop": rs})) as server, httpx.Client(timeout=60) as client:
        try:
            started = client.post(server.url + "/v1/index", json={"rebuild": True})
            assert started.status_code == 202, started.text
            assert embedder.held.wait(timeout=60)
            for route in ("/v1/search", "/v1/ask"):
                reply = client.post(server.url + route, json={"query": "charge"})
                assert reply.status_code == 200, (route, reply.text)
                assert "charge" in reply.text
            cli = subprocess.Popen(
                [sys.executable, "-m", "ragstrata", "index", str(root), "--rebuild"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                env=clean_env(),
            )
        finally:
            gate.set()
        job_url = server.url + "/v1/jobs/" + started.json()["job_id"]
        for _ in range(1200):
            job = client.get(job_url).json()
            if job["state"] != "running":
                break
            gate.wait(0.05)
        assert job["state"] == "done", job
        assert cli is not None
        _, err = cli.communicate(timeout=120)
        assert cli.returncode == 0, err
        reply = client.post(server.url + "/v1/search", json={"query": "charge"})
        assert reply.status_code == 200 and reply.json()["hits"]
    rs.close()
