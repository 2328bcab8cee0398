"""LLM runners and the shared HTTP transport against loopback servers that speak the wire
protocols of OpenAI (``/v1/chat/completions``) and Ollama (``/api/chat``).

``ProviderServer`` (also used by test_embed_providers.py) is a stdlib ``ThreadingHTTPServer`` on
127.0.0.1 with a free port. A provider "app" answers like the real service (auth, unknown
model, wrong path); scripted replies queued per path come first, for the failure cases: 429
with Retry-After, 5xx, slow replies, malformed JSON, dropped connections.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from conftest import CONFORMANCE
from ragstrata.core.transport import HttpTransport, RateLimiter, RetryPolicy, parse_retry_after
from ragstrata.errors import ConfigError, ProviderAuthError, ProviderError
from ragstrata.llm.base import Request, Runner
from ragstrata.llm.factory import make_runner
from ragstrata.llm.ollama import OllamaChatRunner
from ragstrata.llm.openai import OpenAIChatRunner
from ragstrata.llm.pricing import PricedMetadata, PriceTable
from ragstrata.settings import LLMSettings, load_settings

KEY = "sk-test-SECRET-0123456789abcdef"

# -- the loopback server ---------------------------------------------------------------------


@dataclass
class Reply:
    """One HTTP reply: JSON (dict/list) or raw text body; ``delay`` before answering;
    ``drop`` sends the headers and part of the body, then closes the socket."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False


@dataclass
class Seen:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: Any


App = Callable[[str, dict[str, str], Any], Reply]


class ProviderServer:
    """A loopback HTTP server: scripted replies per path first, then ``app``."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.requests: list[Seen] = []
        self.scripted: dict[str, list[Reply]] = {}
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                headers = {k.lower(): v for k, v in self.headers.items()}
                reply = outer._next(self.path, headers, body)
                if reply.delay:
                    time.sleep(reply.delay)
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                if isinstance(reply.body, (dict, list)):
                    data = json.dumps(reply.body).encode()
                    ctype = "application/json"
                else:
                    data = str(reply.body or "").encode()
                    ctype = "text/plain; charset=utf-8"
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(data) + (100 if reply.drop else 0)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2] if reply.drop else data)
                    self.wfile.flush()
                    if reply.drop:
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:  # the client gave up (timeout) and closed the socket
                    self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self.port = self._server.server_address[1]
        self.root = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def script(self, path: str, *replies: Reply) -> None:
        """Queue replies for ``path``, used (in order) before the app answers."""
        with self._lock:
            self.scripted.setdefault(path, []).extend(replies)

    def _next(self, path: str, headers: dict[str, str], body: Any) -> Reply:
        with self._lock:
            self.requests.append(Seen(path, headers, body))
            queue = self.scripted.get(path)
            if queue:
                return queue.pop(0)
        return self.app(path, headers, body)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def openai_error(status: int, message: str, code: str) -> Reply:
    """An error the way the OpenAI API shapes it."""
    err = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    return Reply(status, {"error": err})


def openai_app(models: dict[str, int], key: str | None = KEY) -> App:
    """A fake OpenAI API under /v1: chat (echo) and embeddings; ``models`` maps name -> dims."""

    def app(path: str, headers: dict[str, str], body: Any) -> Reply:
        if path not in ("/v1/chat/completions", "/v1/embeddings"):
            return Reply(404, "404 page not found")
        if key is not None and headers.get("authorization") != f"Bearer {key}":
            sent = headers.get("authorization", "").removeprefix("Bearer ")
            return openai_error(
                401, f"Incorrect API key provided: {sent}. Find your key at ...", "invalid_api_key"
            )
        model = body.get("model")
        if model not in models:
            return openai_error(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                "model_not_found",
            )
        if path == "/v1/embeddings":
            return openai_embeddings(body, body.get("dimensions") or models[model])
        last = body["messages"][-1]["content"]
        return Reply(body=openai_chat(f"echo: {last}", f"{model}-2024-07-18", 1200, 40, 1024))

    return app


def openai_chat(text: str, model: str, prompt: int, completion: int, cached: int) -> dict:
    """A chat.completion object as OpenAI documents it."""
    return {
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        "object": "chat.completion",
        "created": 1741569952,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0},
        },
        "service_tier": "default",
        "system_fingerprint": "fp_06737a9306",
    }


def vector(text: str, dims: int) -> list[float]:
    """A deterministic vector for ``text``."""
    return [float((sum(map(ord, text)) * (i + 1)) % 97) / 97 for i in range(dims)]


def openai_embeddings(body: dict, dims: int) -> Reply:
    """An embeddings list; items in reverse order (clients must sort by ``index``)."""
    data = [
        {"object": "embedding", "index": i, "embedding": vector(t, dims)}
        for i, t in enumerate(body["input"])
    ]
    tokens = sum(len(t.split()) for t in body["input"])
    return Reply(
        body={
            "object": "list",
            "data": data[::-1],
            "model": body["model"],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
    )


def ollama_app(models: dict[str, int]) -> App:
    """A fake Ollama server: /api/chat (echo) and /api/embed; ``models`` maps name -> dims."""

    def app(path: str, headers: dict[str, str], body: Any) -> Reply:
        if path not in ("/api/chat", "/api/embed"):
            return Reply(404, "404 page not found")
        model = body.get("model")
        if model not in models:
            return Reply(404, {"error": f'model "{model}" not found, try pulling it first'})
        if path == "/api/embed":
            return Reply(
                body={
                    "model": model,
                    "embeddings": [vector(t, models[model]) for t in body["input"]],
                    "total_duration": 14143917,
                    "load_duration": 1019500,
                    "prompt_eval_count": sum(len(t.split()) for t in body["input"]),
                }
            )
        last = body["messages"][-1]["content"]
        return Reply(
            body={
                "model": model,
                "created_at": "2023-12-12T14:13:43.416799Z",
                "message": {"role": "assistant", "content": f"echo: {last}"},
                "done": True,
                "done_reason": "stop",
                "total_duration": 5191566416,
                "load_duration": 2154458,
                "prompt_eval_count": 26,
                "prompt_eval_duration": 383809000,
                "eval_count": 298,
                "eval_duration": 4799921000,
            }
        )

    return app


@pytest.fixture
def openai_server() -> Iterator[ProviderServer]:
    server = ProviderServer(
        openai_app({"gpt-4o-mini": 0, "text-embedding-3-small": 8, "test-model": 4})
    )
    yield server
    server.close()


@pytest.fixture
def ollama_server() -> Iterator[ProviderServer]:
    server = ProviderServer(ollama_app({"llama3.2": 0, "nomic-embed-text": 2, "all-minilm": 6}))
    yield server
    server.close()


class Sleeps(list[float]):
    """An injected ``sleep`` that records instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def transport(
    server: ProviderServer,
    provider: str = "openai",
    model: str = "gpt-4o-mini",
    *,
    path: str = "/v1",
    key: str | None = KEY,
    sleeps: Sleeps | None = None,
    **kwargs: Any,
) -> HttpTransport:
    """A transport to ``server`` whose backoff is recorded, not slept (jitter fixed at 0.5)."""
    kwargs.setdefault("retry", RetryPolicy(max_retries=3, base_delay_s=0.5))
    return HttpTransport(
        provider,
        server.root + path,
        model,
        api_key=key,
        api_key_env="RAGSTRATA_LLM_API_KEY",
        sleep=sleeps if sleeps is not None else Sleeps(),
        rand=lambda: 0.5,
        **kwargs,
    )


def openai_runner(server: ProviderServer, **kwargs: Any) -> OpenAIChatRunner:
    return OpenAIChatRunner(transport(server, **kwargs))


# -- OpenAI chat: the wire format -------------------------------------------------------------


def test_openai_request_and_reply(openai_server: ProviderServer) -> None:
    runner = openai_runner(openai_server)
    assert isinstance(runner, Runner)
    result = runner.run(Request("You answer from evidence.", "What is X?"))
    assert result.text == "echo: What is X?"
    (seen,) = openai_server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.headers["content-type"] == "application/json"
    assert seen.body == {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "You answer from evidence."},
            {"role": "user", "content": "What is X?"},
        ],
        "temperature": 0.0,
    }
    meta = result.meta
    assert isinstance(meta, PricedMetadata)
    # prompt 1200 of which 1024 cached; gpt-4o-mini: 0.15 / 0.60 / cached 0.075 USD per 1M
    assert (meta.input_tokens, meta.cache_read_tokens, meta.output_tokens) == (176, 1024, 40)
    expected_cost = (176 * 0.15 + 1024 * 0.075 + 40 * 0.60) / 1e6
    assert meta.total_cost_usd == pytest.approx(expected_cost)
    assert meta.num_turns == 1
    assert list(meta.models) == ["gpt-4o-mini-2024-07-18"]  # the model the server reported
    assert meta.models["gpt-4o-mini-2024-07-18"].cost_usd == pytest.approx(expected_cost)
    assert meta.notes == ()
    assert 0 < meta.duration_api_s <= meta.duration_s


def _combined_cases() -> list[dict[str, str]]:
    data = json.loads((CONFORMANCE / "llm_summary_preflight_embedder.json").read_text("utf-8"))
    (key,) = [k for k in data if k.startswith("request_combined")]
    return [c for c in data[key] if c["expected"]]


@pytest.mark.parametrize("case", _combined_cases())
def test_combined_prompt_option(openai_server: ProviderServer, case: dict[str, str]) -> None:
    runner = OpenAIChatRunner(transport(openai_server), combine_prompts=True)
    result = runner.run(Request(case["system"], case["user"]))
    assert openai_server.requests[0].body["messages"] == [
        {"role": "user", "content": case["expected"]}
    ]
    assert result.text == "echo: " + case["expected"]


def test_unknown_price_costs_zero_and_says_so(openai_server: ProviderServer) -> None:
    openai_server.script(
        "/v1/chat/completions", Reply(body=openai_chat("hi", "my-finetune", 10, 5, 0))
    )
    meta = openai_runner(openai_server, model="my-finetune").run(Request("", "q")).meta
    assert isinstance(meta, PricedMetadata)
    assert meta.total_cost_usd == 0.0
    assert meta.input_tokens == 10 and meta.output_tokens == 5
    assert meta.notes == ("price unknown for model 'my-finetune'",)


def test_user_price_file_extends_the_table(openai_server: ProviderServer, tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text('[models."my-finetune"]\ninput = 2.0\noutput = 4.0\n', encoding="utf-8")
    openai_server.script(
        "/v1/chat/completions", Reply(body=openai_chat("hi", "my-finetune", 1000, 500, 200))
    )
    runner = OpenAIChatRunner(transport(openai_server), prices=PriceTable.load(prices))
    meta = runner.run(Request("", "q")).meta
    assert meta is not None
    # no cached price given: cached tokens cost the input price
    assert meta.total_cost_usd == pytest.approx((800 * 2.0 + 200 * 2.0 + 500 * 4.0) / 1e6)
    assert PriceTable.load(prices).get("gpt-4o-mini") is not None  # packaged entries kept


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[models.m]\ninput = 1.0\n", "needs 'output'"),
        ("[models.m]\ninput = -1\noutput = 1\n", "must be a number >= 0"),
        ("[models.m]\ninput = 1\noutput = 1\nspeed = 3\n", "valid: input, output, cached_input"),
        ("[models\n", "not valid TOML"),
    ],
)
def test_bad_price_file(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "p.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=match):
        PriceTable.load(path)
    with pytest.raises(ConfigError, match="cannot read price file"):
        PriceTable.load(tmp_path / "missing.toml")


def test_reply_without_text_is_an_error(openai_server: ProviderServer) -> None:
    refusal = openai_chat("x", "gpt-4o-mini", 1, 1, 0)
    refusal["choices"][0]["message"].update(content=None, refusal="I can't help with that.")
    openai_server.script("/v1/chat/completions", Reply(body=refusal), Reply(body={"choices": []}))
    runner = openai_runner(openai_server)
    with pytest.raises(ProviderError, match=r"'gpt-4o-mini' returned no text.*can't help"):
        runner.run(Request("", "q"))
    with pytest.raises(ProviderError, match=r"openai: reply for model 'gpt-4o-mini' has no"):
        runner.run(Request("", "q"))


# -- Ollama chat ------------------------------------------------------------------------------


def test_ollama_request_and_reply(ollama_server: ProviderServer) -> None:
    runner = OllamaChatRunner(transport(ollama_server, "ollama", "llama3.2", path="", key=None))
    assert isinstance(runner, Runner)
    result = runner.run(Request("sys", "Привет?"))
    assert result.text == "echo: Привет?"
    (seen,) = ollama_server.requests
    assert seen.path == "/api/chat"
    assert "authorization" not in seen.headers
    assert seen.body == {
        "model": "llama3.2",
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "Привет?"},
        ],
        "stream": False,
        "options": {"temperature": 0.0},
    }
    meta = result.meta
    assert isinstance(meta, PricedMetadata)
    assert (meta.input_tokens, meta.output_tokens, meta.cache_read_tokens) == (26, 298, 0)
    assert meta.duration_api_s == pytest.approx(5.191566416)  # total_duration, ns
    assert meta.total_cost_usd == 0.0 and "price unknown" in meta.notes[0]
    assert meta.models["llama3.2"].output_tokens == 298


def test_ollama_combined_prompt(ollama_server: ProviderServer) -> None:
    runner = OllamaChatRunner(
        transport(ollama_server, "ollama", "llama3.2", path="", key=None),
        combine_prompts=True,
        options={"num_ctx": 8192},
    )
    runner.run(Request("sys", "user"))
    body = ollama_server.requests[0].body
    assert body["messages"] == [{"role": "user", "content": "sys\n\nuser"}]
    assert body["options"] == {"temperature": 0.0, "num_ctx": 8192}


def test_ollama_unknown_model(ollama_server: ProviderServer) -> None:
    runner = OllamaChatRunner(transport(ollama_server, "ollama", "llama9", path="", key=None))
    with pytest.raises(ProviderAuthError) as info:
        runner.run(Request("", "q"))
    assert str(info.value) == (
        f"ollama: unknown model 'llama9' at {ollama_server.root} (404): "
        'model "llama9" not found, try pulling it first'
    )
    assert len(ollama_server.requests) == 1  # not retried


def test_ollama_reply_without_message(ollama_server: ProviderServer) -> None:
    ollama_server.script("/api/chat", Reply(body={"model": "llama3.2", "done": True}))
    runner = OllamaChatRunner(transport(ollama_server, "ollama", "llama3.2", path="", key=None))
    with pytest.raises(ProviderError, match=r"ollama: reply for model 'llama3.2' has no message"):
        runner.run(Request("", "q"))


# -- failures and retries (shared transport) ---------------------------------------------------


def test_429_retry_after_seconds_is_honoured(openai_server: ProviderServer) -> None:
    sleeps = Sleeps()
    openai_server.script(
        "/v1/chat/completions",
        Reply(429, {"error": {"message": "Rate limit reached"}}, {"Retry-After": "7"}),
    )
    result = openai_runner(openai_server, sleeps=sleeps).run(Request("", "q"))
    assert result.text == "echo: q"
    assert sleeps == [7.0]
    assert len(openai_server.requests) == 2


@pytest.mark.slow
def test_429_real_retry_after_waits(openai_server: ProviderServer) -> None:
    openai_server.script("/v1/chat/completions", Reply(429, "slow down", {"Retry-After": "1"}))
    runner = OpenAIChatRunner(
        HttpTransport("openai", openai_server.root + "/v1", "gpt-4o-mini", api_key=KEY)
    )
    started = time.monotonic()
    assert runner.run(Request("", "q")).text == "echo: q"
    assert time.monotonic() - started >= 0.95


def test_retry_after_http_date_and_cap(openai_server: ProviderServer) -> None:
    now = 1_700_000_000.0
    assert parse_retry_after(formatdate(now + 12, usegmt=True), now, 60) == pytest.approx(12)
    assert parse_retry_after(formatdate(now - 5, usegmt=True), now, 60) == 0.0
    assert parse_retry_after("3600", now, 60) == 60
    assert parse_retry_after("soon", now, 60) is None
    assert parse_retry_after(None, now, 60) is None
    sleeps = Sleeps()
    openai_server.script(
        "/v1/chat/completions",
        Reply(503, "busy", {"Retry-After": formatdate(now + 4, usegmt=True)}),
        Reply(429, "busy", {"Retry-After": "86400"}),
        Reply(429, "busy", {"retry-after-ms": "250"}),
    )
    t = transport(openai_server, sleeps=sleeps, wall_clock=lambda: now)
    OpenAIChatRunner(t).run(Request("", "q"))
    assert sleeps == [pytest.approx(4.0), 60.0, 0.25]  # 86400 s capped at max_retry_after_s


def test_500_then_success_backs_off_exponentially(openai_server: ProviderServer) -> None:
    sleeps = Sleeps()
    openai_server.script(
        "/v1/chat/completions",
        Reply(500, {"error": {"message": "The server had an error"}}),
        Reply(502, "Bad gateway"),
        Reply(503, "overloaded"),
    )
    result = openai_runner(openai_server, sleeps=sleeps).run(Request("", "q"))
    assert result.text == "echo: q"
    # full jitter with rand()=0.5: 0.5 * base * 2**attempt
    assert sleeps == [0.25, 0.5, 1.0]


def test_backoff_is_capped_and_jittered() -> None:
    policy = RetryPolicy(max_retries=10, base_delay_s=1.0, max_delay_s=8.0)
    assert [policy.backoff(a, lambda: 1.0) for a in range(6)] == [1, 2, 4, 8, 8, 8]
    assert policy.backoff(3, lambda: 0.0) == 0.0


def test_gives_up_after_retries_with_last_status(openai_server: ProviderServer) -> None:
    sleeps = Sleeps()
    openai_server.script(
        "/v1/chat/completions", *[Reply(503, {"error": {"message": "overloaded"}})] * 4
    )
    with pytest.raises(ProviderError) as info:
        openai_runner(openai_server, sleeps=sleeps).run(Request("", "q"))
    assert not isinstance(info.value, ProviderAuthError)
    assert str(info.value) == (
        f"openai: POST {openai_server.root}/v1/chat/completions for model 'gpt-4o-mini' "
        "failed after 4 attempt(s): last status 503: overloaded"
    )
    assert len(sleeps) == 3 and len(openai_server.requests) == 4


def test_slow_response_times_out_then_retries(openai_server: ProviderServer) -> None:
    openai_server.script("/v1/chat/completions", Reply(delay=1.0, body={"late": True}))
    sleeps = Sleeps()
    runner = openai_runner(openai_server, sleeps=sleeps, timeout_s=0.2)
    started = time.monotonic()
    assert runner.run(Request("", "q")).text == "echo: q"
    assert time.monotonic() - started < 0.9
    assert len(sleeps) == 1


def test_slow_response_every_time_fails_naming_the_timeout(openai_server: ProviderServer) -> None:
    openai_server.script("/v1/chat/completions", *[Reply(delay=0.5, body={})] * 2)
    runner = openai_runner(openai_server, timeout_s=0.15, retry=RetryPolicy(max_retries=1))
    with pytest.raises(ProviderError, match=r"failed after 2 attempt\(s\): timed out after 0.15s"):
        runner.run(Request("", "q"))


def test_dropped_connection_is_retried(openai_server: ProviderServer) -> None:
    openai_server.script(
        "/v1/chat/completions",
        Reply(body=openai_chat("partial", "gpt-4o-mini", 1, 1, 0), drop=True),
    )
    sleeps = Sleeps()
    assert openai_runner(openai_server, sleeps=sleeps).run(Request("", "q")).text == "echo: q"
    assert len(sleeps) == 1


def test_dropped_connection_every_time(openai_server: ProviderServer) -> None:
    openai_server.script("/v1/chat/completions", *[Reply(body={"x": 1}, drop=True)] * 2)
    runner = openai_runner(openai_server, retry=RetryPolicy(max_retries=1))
    with pytest.raises(ProviderError, match=r"failed after 2 attempt\(s\): connection failed"):
        runner.run(Request("", "q"))


def test_connection_refused_is_retried_then_reported() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sleeps = Sleeps()
    t = HttpTransport(
        "ollama", f"http://127.0.0.1:{port}", "llama3.2", sleep=sleeps, rand=lambda: 1.0
    )
    with pytest.raises(ProviderError, match=r"ollama: .*'llama3.2' failed after 5 attempt\(s\)"):
        OllamaChatRunner(t).run(Request("", "q"))
    assert sleeps == [0.5, 1.0, 2.0, 4.0]


def test_malformed_json_names_provider_and_model(openai_server: ProviderServer) -> None:
    openai_server.script("/v1/chat/completions", Reply(200, '{"choices": [ {"mess'))
    with pytest.raises(ProviderError, match=r"openai: malformed JSON from .* model 'gpt-4o-mini'"):
        openai_runner(openai_server).run(Request("", "q"))
    assert len(openai_server.requests) == 1


def test_other_4xx_is_not_retried(openai_server: ProviderServer) -> None:
    openai_server.script(
        "/v1/chat/completions",
        openai_error(400, "'messages' must contain the word 'json'", "invalid_request"),
    )
    with pytest.raises(ProviderError, match="refused with status 400: 'messages' must contain"):
        openai_runner(openai_server).run(Request("", "q"))
    assert len(openai_server.requests) == 1


# -- auth, unknown model, key masking ----------------------------------------------------------


def test_401_names_provider_model_and_url_and_masks_the_key(
    openai_server: ProviderServer, caplog: pytest.LogCaptureFixture
) -> None:
    wrong = "sk-wrong-key-ABCDEFGHIJKLMNOP"
    caplog.set_level(logging.DEBUG)
    runner = openai_runner(openai_server, key=wrong)
    with pytest.raises(ProviderAuthError) as info:
        runner.run(Request("", "q"))
    message = str(info.value)
    assert message.startswith(
        f"openai: the API key was rejected (401) for model 'gpt-4o-mini' at "
        f"{openai_server.root}/v1: Incorrect API key provided: ***"
    )
    # the server echoed the key back; it must not leak anywhere
    chain: list[BaseException] = []
    exc: BaseException | None = info.value
    while exc is not None:
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    for text in [*map(str, chain), *map(repr, chain), repr(runner), repr(runner.transport)]:
        assert wrong not in text and "ABCDEFGHIJ" not in text
    assert wrong not in caplog.text
    assert "api_key='***'" in repr(runner.transport)
    assert len(openai_server.requests) == 1


def test_key_masked_in_retry_logs_and_final_error(
    openai_server: ProviderServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    openai_server.script(
        "/v1/chat/completions", *[Reply(500, f"upstream failed for key {KEY}")] * 2
    )
    runner = openai_runner(openai_server, retry=RetryPolicy(max_retries=1))
    with pytest.raises(ProviderError) as info:
        runner.run(Request("", "q"))
    assert "last status 500: upstream failed for key ***" in str(info.value)
    assert KEY not in str(info.value)
    assert "retry 1/1" in caplog.text and KEY not in caplog.text


def test_401_without_a_key_says_which_variable_to_set(openai_server: ProviderServer) -> None:
    with pytest.raises(ProviderAuthError, match=r"no API key was sent .*set RAGSTRATA_LLM_API_KEY"):
        openai_runner(openai_server, key=None).run(Request("", "q"))


def test_403_is_an_auth_error(openai_server: ProviderServer) -> None:
    openai_server.script(
        "/v1/chat/completions", openai_error(403, "Project does not have access", "forbidden")
    )
    with pytest.raises(ProviderAuthError, match=r"API key was not allowed \(403\).*'gpt-4o-mini'"):
        openai_runner(openai_server).run(Request("", "q"))


def test_404_unknown_model(openai_server: ProviderServer) -> None:
    with pytest.raises(ProviderAuthError) as info:
        openai_runner(openai_server, model="gpt-9").run(Request("", "q"))
    assert str(info.value).startswith(
        f"openai: unknown model 'gpt-9' at {openai_server.root}/v1 (404): The model `gpt-9`"
    )


def test_404_wrong_path_points_at_base_url(openai_server: ProviderServer) -> None:
    with pytest.raises(ProviderAuthError) as info:
        openai_runner(openai_server, path="").run(Request("", "q"))  # base_url without /v1
    assert str(info.value) == (
        f"openai: POST {openai_server.root}/chat/completions returned 404 (unknown model "
        "'gpt-4o-mini' or wrong path: check base_url): 404 page not found"
    )


# -- rate limiting -----------------------------------------------------------------------------


class FakeClock:
    """Time that moves only when someone sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_token_bucket_spaces_requests() -> None:
    clock = FakeClock()
    limiter = RateLimiter(2.0, clock=clock, sleep=clock.sleep)
    waits = [limiter.acquire() for _ in range(5)]
    assert waits == [0.0, 0.5, 0.5, 0.5, 0.5]
    clock.now += 10  # idle time refills at most `burst` tokens
    assert [limiter.acquire() for _ in range(2)] == [0.0, 0.5]
    burst = RateLimiter(1.0, burst=3, clock=clock, sleep=clock.sleep)
    assert [burst.acquire() for _ in range(4)] == [0.0, 0.0, 0.0, 1.0]
    with pytest.raises(ConfigError, match="requests_per_s must be > 0"):
        RateLimiter(0)


def test_rate_limit_applies_to_real_requests(openai_server: ProviderServer) -> None:
    runner = OpenAIChatRunner(
        HttpTransport(
            "openai", openai_server.root + "/v1", "gpt-4o-mini", api_key=KEY, requests_per_s=20
        )
    )
    started = time.monotonic()
    for _ in range(5):
        runner.run(Request("", "q"))
    assert time.monotonic() - started >= 0.19  # 4 gaps of 1/20 s


def test_concurrent_runs_share_one_client(openai_server: ProviderServer) -> None:
    runner = openai_runner(openai_server)
    results: list[str] = []
    threads = [
        threading.Thread(target=lambda i=i: results.append(runner.run(Request("", f"q{i}")).text))
        for i in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [f"echo: q{i}" for i in range(6)]
    runner.close()
    assert runner.run(Request("", "again")).text == "echo: again"  # reopens on demand
    runner.close()


# -- factory and settings ----------------------------------------------------------------------


def test_provider_none_gives_no_runner() -> None:
    assert make_runner(LLMSettings()) is None


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_missing_base_url_or_model_names_setting_and_env(provider: str) -> None:
    with pytest.raises(ConfigError, match=r"llm\.base_url .*RAGSTRATA_LLM_BASE_URL, e\.g\. http"):
        make_runner(LLMSettings(provider=provider, model="m"))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"llm\.model is not set .*RAGSTRATA_LLM_MODEL"):
        make_runner(LLMSettings(provider=provider, base_url="http://x"))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="must start with http"):
        make_runner(LLMSettings(provider=provider, base_url="localhost:1", model="m"))  # type: ignore[arg-type]


def test_settings_from_env_reach_the_server(openai_server: ProviderServer) -> None:
    settings = load_settings(
        env={
            "RAGSTRATA_LLM_PROVIDER": "openai",
            "RAGSTRATA_LLM_BASE_URL": openai_server.root + "/v1",
            "RAGSTRATA_LLM_MODEL": "gpt-4o-mini",
            "RAGSTRATA_LLM_API_KEY": KEY,
            "RAGSTRATA_LLM_TIMEOUT_S": "5",
            "RAGSTRATA_LLM_MAX_RETRIES": "0",
        }
    ).llm
    runner = make_runner(settings)
    assert isinstance(runner, OpenAIChatRunner)
    assert KEY not in repr(runner) and KEY not in repr(settings)
    assert runner.run(Request("s", "u")).text == "echo: u"
    openai_server.script("/v1/chat/completions", Reply(500, "boom"))
    with pytest.raises(ProviderError, match=r"after 1 attempt\(s\)"):  # max_retries=0
        runner.run(Request("s", "u"))


def test_named_key_variable_and_ollama_from_toml(
    ollama_server: ProviderServer, openai_server: ProviderServer, tmp_path: Path
) -> None:
    # Providers and URLs come from the user's config file (a repository may not set them).
    user = tmp_path / "xdg" / "ragstrata" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text(
        f'[llm]\nprovider = "ollama"\nbase_url = "{ollama_server.root}"\nmodel = "llama3.2"\n',
        encoding="utf-8",
    )
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    runner = make_runner(load_settings(tmp_path, env=env).llm)
    assert isinstance(runner, OllamaChatRunner)
    assert runner.run(Request("", "hi")).text == "echo: hi"
    settings = load_settings(
        env={
            "RAGSTRATA_LLM_PROVIDER": "openai",
            "RAGSTRATA_LLM_BASE_URL": openai_server.root + "/v1",
            "RAGSTRATA_LLM_MODEL": "gpt-4o-mini",
            "RAGSTRATA_LLM_API_KEY_ENV": "MY_OPENAI_KEY",
            "MY_OPENAI_KEY": KEY,
        }
    ).llm
    openai = make_runner(settings, combine_prompts=True)
    assert isinstance(openai, OpenAIChatRunner) and openai.combine_prompts
    assert openai.run(Request("s", "u")).text == "echo: s\n\nu"


def test_factory_price_file(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('[models."local-llm"]\ninput = 1\noutput = 1\n', encoding="utf-8")
    settings = LLMSettings(provider="ollama", base_url="http://127.0.0.1:9", model="local-llm")
    runner = make_runner(settings, price_file=path)
    assert isinstance(runner, OllamaChatRunner)
    with pytest.raises(ConfigError, match="cannot read price file"):
        make_runner(settings, price_file=tmp_path / "nope.toml")
