"""Issue 14 item 6 (and the base_url credential): an LLM failure is said, never silent.

A loopback fake speaks the OpenAI wire protocol. A rejected key (401), malformed JSON, or a
reply that cites nothing must show as a one-line warning on stderr, and ``answer.meta``
(provider, model, fallback reason, tokens, cost, grounded) must reach ``ask --json``, HTTP
``/v1/ask`` and MCP ``ask``. A key inside ``base_url`` (``user:key@``) never appears.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from answer_fixture import write_repo
from hostile.hostile_util import clean_env, mcp_call, run_cli
from ragstrata.app.facade import Ragstrata
from ragstrata.core.transport import redact_url
from ragstrata.http import create_app
from ragstrata.settings import load_settings
from test_http_api import LiveServer
from test_llm_providers import ProviderServer, Reply, openai_app, openai_chat, openai_error

KEY = "sk-test-" + "k" * 24
QUESTION = "what does the validate function do?"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_repo(tmp_path_factory.mktemp("llm") / "shop")
    Ragstrata(root, load_settings(root, env=clean_env())).index()
    return root


@pytest.fixture
def llm() -> Iterator[ProviderServer]:
    server = ProviderServer(openai_app({"gpt-4o-mini": 0}, key=KEY))
    yield server
    server.close()


def _env(server: ProviderServer, base_url: str | None = None) -> dict[str, str]:
    return clean_env(
        RAGSTRATA_LLM_PROVIDER="openai",
        RAGSTRATA_LLM_BASE_URL=base_url or server.root + "/v1",
        RAGSTRATA_LLM_MODEL="gpt-4o-mini",
        RAGSTRATA_LLM_API_KEY=KEY,
        RAGSTRATA_LLM_MAX_RETRIES="0",
    )


def _ask(
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    repo: Path,
    *extra: str,
) -> tuple[int, str, str]:
    for key, value in env.items():
        if key.startswith("RAGSTRATA_"):
            monkeypatch.setenv(key, value)
    return run_cli("ask", QUESTION, "--repo", str(repo), *extra)


FAILURES = {
    "401": (openai_error(401, "Incorrect API key provided", "invalid_api_key"), "rejected"),
    "malformed": (Reply(200, "{not json"), "malformed JSON"),
    "not-an-object": (Reply(200, [1, 2]), "expected a JSON object"),
}


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_failure_warns_and_reports_the_fallback(
    monkeypatch: pytest.MonkeyPatch,
    repo: Path,
    llm: ProviderServer,
    kind: str,
) -> None:
    reply, said = FAILURES[kind]
    llm.script("/v1/chat/completions", reply)
    code, out, err = _ask(monkeypatch, _env(llm), repo, "--json")
    assert code == 0 and len(llm.requests) == 1
    warning = [line for line in err.splitlines() if line.strip()]
    assert len(warning) == 1 and warning[0].startswith("warning:") and said in warning[0], err
    meta = json.loads(out)["answer"]["meta"]
    assert meta["provider"] == "openai" and meta["model"] == "gpt-4o-mini"
    assert meta["fallback_reason"] and said in meta["fallback_reason"]
    assert meta["mode"] != "llm"
    assert KEY not in out + err


def test_uncited_reply_is_not_reported_as_satisfied(
    monkeypatch: pytest.MonkeyPatch,
    repo: Path,
    llm: ProviderServer,
) -> None:
    uncited = openai_chat("It checks things and then it returns a value.", "gpt-4o-mini", 9, 9, 0)
    llm.script("/v1/chat/completions", Reply(body=uncited), Reply(body=uncited))
    code, out, err = _ask(monkeypatch, _env(llm), repo, "--json")
    assert code == 0 and "cites no evidence" in err
    data = json.loads(out)
    meta = data["answer"]["meta"]
    assert meta["mode"] == "llm" and meta["grounded"] is False and meta["uncited_sentences"] >= 1
    assert meta["input_tokens"] == 9 and meta["output_tokens"] == 9
    code, out, err = _ask(monkeypatch, _env(llm), repo)
    assert code == 0 and "evidence: satisfied" not in out and "cites none" in out


def test_cited_reply_reports_tokens_and_cost_without_warning(
    monkeypatch: pytest.MonkeyPatch,
    repo: Path,
    llm: ProviderServer,
) -> None:
    cited = openai_chat(
        "validate checks that an amount is positive [1].", "gpt-4o-mini", 1200, 40, 0
    )
    llm.script("/v1/chat/completions", Reply(body=cited))
    code, out, err = _ask(monkeypatch, _env(llm), repo, "--json")
    assert code == 0 and err.strip() == ""
    meta = json.loads(out)["answer"]["meta"]
    assert meta["mode"] == "llm" and meta["grounded"] is True and meta["fallback_reason"] is None
    assert meta["input_tokens"] == 1200 and meta["output_tokens"] == 40
    assert meta["cost_usd"] is not None and meta["cost_usd"] > 0  # gpt-4o-mini has a price


def test_http_ask_carries_the_meta(repo: Path, llm: ProviderServer) -> None:
    llm.script("/v1/chat/completions", openai_error(401, "bad key", "invalid_api_key"))
    rs = Ragstrata(repo, load_settings(repo, env=_env(llm)))
    with LiveServer(create_app({"shop": rs})) as server:
        reply = httpx.post(server.url + "/v1/ask", json={"query": QUESTION}, timeout=60)
    assert reply.status_code == 200
    meta: dict[str, Any] = reply.json()["answer"]["meta"]
    assert meta["provider"] == "openai" and "rejected" in (meta["fallback_reason"] or "")


def test_mcp_ask_carries_the_meta(repo: Path, llm: ProviderServer) -> None:
    llm.script("/v1/chat/completions", Reply(200, "{not json"))
    result = mcp_call(repo, "ask", {"query": QUESTION}, env=_env(llm))
    assert not result.get("isError"), result
    structured = result["structuredContent"]
    assert isinstance(structured, dict)
    meta = structured["answer"]["meta"]
    assert meta["model"] == "gpt-4o-mini" and "malformed JSON" in meta["fallback_reason"]


def test_key_in_base_url_is_redacted_everywhere(
    monkeypatch: pytest.MonkeyPatch,
    repo: Path,
    llm: ProviderServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    secret = "hunter2-" + "s" * 20
    base = f"http://alice:{secret}@127.0.0.1:{llm.port}/v1"
    llm.script("/v1/chat/completions", openai_error(401, "no", "invalid_api_key"))
    code, out, err = _ask(monkeypatch, _env(llm, base_url=base), repo, "--json")
    assert code == 0 and "rejected" in err
    assert secret not in out + err + caplog.text
    assert "alice:***@" in err
    code, out, err = run_cli("doctor", str(repo), "--json")
    assert secret not in out + err


def test_redact_url_hides_userinfo_and_key_parameters() -> None:
    assert redact_url("http://u:k3y@h/v1") == "http://u:***@h/v1"
    assert redact_url("see https://tok3n@h:1/x ok") == "see https://***@h:1/x ok"
    assert redact_url("http://h/v1?api_key=abc&x=1") == "http://h/v1?api_key=***&x=1"
    assert (
        redact_url("postgresql://me:pw@db/x?password=pw") == "postgresql://me:***@db/x?password=***"
    )
