"""Issue 26 cause 8: credentials a provider echoes back never reach any output.

A loopback fake speaks the OpenAI wire protocol and echoes what it was sent: the Basic
``Authorization`` header that ``user:key@`` in ``base_url`` produces (as base64, and decoded),
and the Bearer key, inside an error message or inside a completion. The CLI (stdout, stderr,
``--json``), HTTP ``/v1/ask`` and MCP ``ask`` must show none of them, including
``answer.meta.fallback_reason``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import cli_runner
from answer_fixture import write_repo
from hostile.hostile_util import clean_env, mcp_call, run_proc
from ragstrata.app.facade import Ragstrata
from ragstrata.core.transport import credential_forms, scrub
from ragstrata.http import create_app
from ragstrata.settings import load_settings
from test_http_api import LiveServer
from test_llm_providers import ProviderServer, Reply, openai_chat, openai_error

pytestmark = pytest.mark.slow  # end-to-end runs: processes, servers, whole indexes

KEY = "sk-proj-" + "Q7x" * 12
USER = "alice"
PASSWORD = "hunter2-" + "p" * 16
QUESTION = "what does the validate function do?"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


FORBIDDEN = (
    KEY,
    PASSWORD,
    f"{USER}:{PASSWORD}",
    _b64(f"{USER}:{PASSWORD}"),
    _b64(f"{USER}:{PASSWORD}").rstrip("="),
    _b64(f"{USER}:{KEY}"),
    _b64(f"{USER}:{KEY}").rstrip("="),
    _b64(KEY),
)


def _leaks(text: str) -> list[str]:
    return [f for f in FORBIDDEN if f in text or f in text.replace("\\/", "/")]


def echo_app(status: int) -> Any:
    """An OpenAI fake that quotes the credentials it received: in a ``status`` error, or (200)
    inside the completion text."""

    def app(path: str, headers: dict[str, str], body: Any) -> Reply:
        sent = headers.get("authorization", "")
        scheme, _, value = sent.partition(" ")
        decoded = base64.b64decode(value).decode() if scheme == "Basic" else value
        echo = f"you sent {sent!s} (that is {decoded}); encoded {_b64(decoded)}"
        if status != 200:
            return openai_error(status, f"Invalid credentials: {echo}", "invalid_api_key")
        return Reply(body=openai_chat(f"validate checks input. {echo}", "gpt-4o-mini", 9, 9, 0))

    return app


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_repo(tmp_path_factory.mktemp("echo") / "shop")
    Ragstrata(root, load_settings(root, env=clean_env())).index()
    return root


CASES = {
    "basic-userinfo-in-an-error": (401, PASSWORD),
    "key-as-userinfo-in-an-error": (401, KEY),
    "basic-userinfo-in-a-completion": (200, PASSWORD),
    "bearer-key-in-a-completion": (200, None),
    "bearer-key-in-an-error": (401, None),
}


@pytest.fixture(params=sorted(CASES))
def case(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    """The environment of one echo: the provider's status (401: the echo is in the error
    message; 200: in the completion) and the password of ``user:password@`` in base_url."""
    status, password = CASES[request.param]
    server = ProviderServer(echo_app(status))
    netloc = server.root[7:] if password is None else f"{USER}:{password}@127.0.0.1:{server.port}"
    yield clean_env(
        RAGSTRATA_LLM_PROVIDER="openai",
        RAGSTRATA_LLM_BASE_URL=f"http://{netloc}/v1",
        RAGSTRATA_LLM_MODEL="gpt-4o-mini",
        RAGSTRATA_LLM_API_KEY=KEY,
        RAGSTRATA_LLM_MAX_RETRIES="0",
    )
    server.close()


def test_cli_ask_shows_no_echoed_credential(repo: Path, case: dict[str, str]) -> None:
    # --json in a fresh interpreter (its real stderr), the terminal answer through the same
    # main() in this process
    done = run_proc("ask", QUESTION, "--repo", str(repo), "--json", env=case)
    assert done.returncode == 0, done.stderr
    assert not _leaks(done.stdout + done.stderr)
    answer = json.loads(done.stdout)["answer"]
    assert "***" in (answer["meta"]["fallback_reason"] or answer["text"])
    human = cli_runner.run_cli("ask", QUESTION, "--repo", str(repo), env=case, clean_env=True)
    assert human.returncode == 0, human.stderr
    assert not _leaks(human.stdout + human.stderr)
    assert "***" in human.stdout + human.stderr


def test_http_and_mcp_ask_show_no_echoed_credential(repo: Path, case: dict[str, str]) -> None:
    rs = Ragstrata(repo, load_settings(repo, env=case))
    with LiveServer(create_app({"shop": rs})) as server:
        reply = httpx.post(server.url + "/v1/ask", json={"query": QUESTION}, timeout=60)
        assert reply.status_code == 200, reply.text
        assert not _leaks(reply.text)
    rs.close()
    result = mcp_call(repo, "ask", {"query": QUESTION}, env=case)
    assert not result.get("isError"), result
    assert not _leaks(json.dumps(result, ensure_ascii=False))


def test_scrub_covers_every_form() -> None:
    forms = credential_forms(KEY, f"https://{USER}:{PASSWORD}@llm.example/v1")
    text = " ".join(FORBIDDEN) + f" Bearer {KEY} and Basic {_b64(USER + ':' + PASSWORD)}"
    assert not _leaks(scrub(text, forms))
    assert scrub("nothing secret here", forms) == "nothing secret here"
