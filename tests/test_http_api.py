"""The HTTP API over a real uvicorn server on a free loopback port, talked to with httpx.

Two servers: an open one serving two repositories (``pay``, indexed; ``fresh``, indexed through
the API during the tests), and one serving a single repository with a token and a small body
limit. A third run starts ``ragstrata serve`` itself as a subprocess.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from answer_fixture import write_repo
from ragstrata.app.facade import Ragstrata
from ragstrata.cli.app import main
from ragstrata.cli.serve_cmd import is_loopback, parse_repo_arg
from ragstrata.embed.base import ProgressCallback
from ragstrata.http import create_app
from ragstrata.settings import EmbedderSettings, Settings
from ragstrata.testing import HashEmbedder

DIMS = 64
SETTINGS = Settings(embedder=EmbedderSettings(provider="hash", dimensions=DIMS))
HIT_KEYS = {"layer", "path", "start_line", "end_line", "symbol", "score", "reasons", "text"}
TOKEN = "s3cret-token-for-tests"
OUTSIDE_SECRET = "TOP-SECRET-OUTSIDE-THE-REPO"


class LiveServer:
    """A uvicorn server in a thread on a free 127.0.0.1 port."""

    def __init__(self, app: Any) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


def indexed_repo(root: Path) -> Ragstrata:
    """The answer fixture repository under ``root``, indexed with the hash embedder."""
    rs = Ragstrata(write_repo(root), SETTINGS)
    rs.index()
    return rs


class GatedEmbedder:
    """The hash embedder, but document embedding waits for ``gate``: it holds an index job in
    its embedding phase so the test can look at it while it runs."""

    def __init__(self, gate: threading.Event) -> None:
        self.inner = HashEmbedder(dimensions=DIMS)
        self.gate = gate
        self.dimensions = self.inner.dimensions
        self.fingerprint = self.inner.fingerprint
        self.batch_size = self.inner.batch_size

    def embed_documents(
        self, texts: Sequence[str], progress: ProgressCallback | None = None
    ) -> list[list[float]]:
        assert self.gate.wait(timeout=20), "test never opened the gate"
        return self.inner.embed_documents(texts, progress)

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return self.inner.embed_queries(texts)


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    secret = tmp_path_factory.mktemp("outside") / "secret.py"
    secret.write_text(f'KEY = "{OUTSIDE_SECRET}"\n', encoding="utf-8")
    return secret


@pytest.fixture(scope="module")
def pay(tmp_path_factory: pytest.TempPathFactory, outside: Path) -> Ragstrata:
    root = write_repo(tmp_path_factory.mktemp("pay"))
    # A symlink inside the repository that points outside it: never served.
    (root / "src" / "payments" / "leak.py").symlink_to(outside)
    (root / ".env").write_text(f"PASSWORD={OUTSIDE_SECRET}\n", encoding="utf-8")
    rs = Ragstrata(root, SETTINGS)
    rs.index()
    return rs


@pytest.fixture(scope="module")
def gate() -> threading.Event:
    return threading.Event()


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory, gate: threading.Event) -> Ragstrata:
    root = write_repo(tmp_path_factory.mktemp("fresh"))
    return Ragstrata(root, SETTINGS, embedder=GatedEmbedder(gate))


@pytest.fixture(scope="module")
def server(pay: Ragstrata, fresh: Ragstrata) -> Iterator[httpx.Client]:
    app = create_app({"pay": pay, "fresh": fresh})
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=20) as client:
        yield client


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    rs = indexed_repo(tmp_path_factory.mktemp("guarded"))
    app = create_app([rs], token=TOKEN, max_body_bytes=2048)
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=20) as client:
        yield client


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    message = body["error"]["message"]
    assert isinstance(message, str) and message and "\n" not in message
    return message


# ---------------------------------------------------------------------- health and status


def test_healthz_lists_repos(server: httpx.Client) -> None:
    response = server.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "version": "0.1.0",
        "repos": ["fresh", "pay"],
        "watchers": {},
    }


def test_status_all_and_one(server: httpx.Client, pay: Ragstrata) -> None:
    repos = {r["name"]: r for r in server.get("/v1/status").json()["repos"]}
    assert repos["pay"]["indexed"] is True and repos["pay"]["path"] == str(pay.repo)
    assert repos["pay"]["status"] == pay.status().to_dict()
    one = server.get("/v1/status", params={"repo": "pay"}).json()["repos"]
    assert [r["name"] for r in one] == ["pay"]
    msg = _error(server.get("/v1/status", params={"repo": "nope"}), 404, "unknown_repo")
    assert "'nope'" in msg and "pay, fresh" in msg


# ---------------------------------------------------------------------- route, search, ask


def test_route_returns_the_plan(server: httpx.Client) -> None:
    response = server.post("/v1/route", json={"query": "где определён класс Gateway?"})
    assert response.status_code == 200
    plan = response.json()
    assert plan["schema_version"] == "1.1" and plan["intent"] == "CODE_QA"
    assert plan["language"] == "ru" and plan["conversation_mode"] == "NEW"
    assert {"type": "SYMBOL", "value": "Gateway"}.items() <= plan["query_plan"]["anchors"][
        -1
    ].items()
    state = {"active_intent": "CODE_QA", "active_anchors": [], "turn": 1}
    follow = server.post(
        "/v1/route", json={"query": "and who calls it?", "conversation_state": state}
    )
    assert follow.json()["conversation_mode"] == "CONTINUE"
    bad = server.post(
        "/v1/route", json={"query": "x", "conversation_state": {"active_anchors": "oops"}}
    )
    assert "active_anchors" in _error(bad, 422, "invalid_state")


def test_search_mirrors_the_cli(server: httpx.Client, pay: Ragstrata) -> None:
    query = "где определён класс Gateway?"
    body = {"query": query, "repo": "pay", "top_k": 3, "layers": ["c1"]}
    response = server.post("/v1/search", json=body)
    assert response.status_code == 200
    data = response.json()
    assert set(data) == {"plan", "hits"}
    assert data == pay.search(query, layers=["C1"], top_k=3).to_dict()
    assert 1 <= len(data["hits"]) <= 3 and {h["layer"] for h in data["hits"]} == {"C1"}
    assert all(set(h) == HIT_KEYS for h in data["hits"])
    assert data["hits"][0]["symbol"] == "payments.gateway.Gateway"


def test_search_render_adds_highlighted_html(server: httpx.Client) -> None:
    body = {"query": "def charge", "repo": "pay", "layers": ["C1"], "render": True}
    hits = server.post("/v1/search", json=body).json()["hits"]
    charge = next(h for h in hits if h["symbol"] == "payments.gateway.charge")
    html = charge["html"]
    assert '<span class="linenos">25</span>' in html  # numbered from the hit's first line
    assert '<span class="k">def</span>' in html and '<span class="nf">charge</span>' in html


def test_ask_mirrors_ask_json_and_continues_a_session(server: httpx.Client, pay: Ragstrata) -> None:
    question = "who calls charge?"
    response = server.post("/v1/ask", json={"query": question, "repo": "pay"})
    assert response.status_code == 200
    data = response.json()
    assert data == pay.ask(question).to_dict()
    assert set(data) == {"plan", "hits", "evidence", "answer", "session"}
    # the answer contract: status and the lead sentence that opens the text
    assert data["answer"]["status"] == "answered"
    assert data["answer"]["lead"].startswith("`payments.gateway.charge` is called from")
    assert data["answer"]["text"].startswith(data["answer"]["lead"])
    cited = {c["path"] for c in data["answer"]["citations"]}
    assert {"src/payments/gateway.py", "tests/test_gateway.py"} <= cited
    first = server.post("/v1/ask", json={"query": question, "repo": "pay", "session": "t-1"})
    assert first.json()["session"] == "t-1"
    assert first.json()["plan"]["conversation_mode"] == "NEW"
    follow = server.post(
        "/v1/ask",
        json={"query": "and what does it use?", "repo": "pay", "session": "t-1", "render": True},
    ).json()
    assert follow["plan"]["conversation_mode"] == "CONTINUE"
    assert follow["answer"]["html"].startswith("<") and all("html" in h for h in follow["hits"])


def test_ask_russian_rendered_safely(server: httpx.Client) -> None:
    body = {"query": "как установить проект?", "repo": "pay", "render": True}
    data = server.post("/v1/ask", json=body).json()
    assert data["plan"]["language"] == "ru"
    assert "README.md" in {c["path"] for c in data["answer"]["citations"]}
    html = data["answer"]["html"]
    # The README's "<<<END EVIDENCE" line is quoted as text, never as markup; the quoted
    # "N | " source lines become real line numbers.
    assert "<<<" not in data["answer"]["text"] or "&lt;&lt;&lt;END EVIDENCE" in html
    assert "<<<END" not in html
    assert '<span class="linenos">7</span>' in html


# ---------------------------------------------------------------------- repository addressing


def test_repo_addressing(server: httpx.Client, guarded: httpx.Client) -> None:
    msg = _error(server.post("/v1/search", json={"query": "charge"}), 400, "repo_required")
    assert "pay, fresh" in msg
    _error(server.post("/v1/ask", json={"query": "charge", "repo": "zzz"}), 404, "unknown_repo")
    _error(server.post("/v1/index", json={"repo": "zzz"}), 404, "unknown_repo")
    # One repository served: the name may be omitted.
    auth = {"Authorization": f"Bearer {TOKEN}"}
    one = guarded.post("/v1/search", json={"query": "charge"}, headers=auth)
    assert one.status_code == 200 and one.json()["hits"]


# ---------------------------------------------------------------------- index jobs


def test_index_job_progress_busy_and_completion(
    server: httpx.Client, fresh: Ragstrata, gate: threading.Event
) -> None:
    _error(
        server.post("/v1/search", json={"query": "charge", "repo": "fresh"}), 409, "index_missing"
    )
    started = server.post("/v1/index", json={"repo": "fresh"})
    assert started.status_code == 202, started.text
    job_id = started.json()["job_id"]
    assert started.json()["repo"] == "fresh" and started.json()["state"] == "running"
    try:
        busy = server.post("/v1/index", json={"repo": "fresh", "rebuild": True})
        assert job_id in _error(busy, 409, "index_busy")
        deadline = time.monotonic() + 10
        job = server.get(f"/v1/jobs/{job_id}").json()
        while job["phase"] != "embed" and time.monotonic() < deadline:
            time.sleep(0.02)
            job = server.get(f"/v1/jobs/{job_id}").json()
        assert job["state"] == "running" and job["phase"] == "embed"
        assert job["files"] == {"done": 5, "total": 5} and job["rows"] > 0
        status = server.get("/v1/status", params={"repo": "fresh"}).json()["repos"][0]
        assert status["job_id"] == job_id
    finally:
        gate.set()
    deadline = time.monotonic() + 20
    while job["state"] == "running" and time.monotonic() < deadline:
        time.sleep(0.02)
        job = server.get(f"/v1/jobs/{job_id}").json()
    assert job["state"] == "done" and job["error"] is None, job
    assert job["report"]["files"]["added"] == 5
    assert job["embeddings"]["total"] > 0
    assert job["embeddings"]["done"] == job["embeddings"]["total"]
    assert job["report"]["embeddings"] == {"done": job["embeddings"]["total"], "pending": 0}
    assert job["events"] >= 7 and job["finished_at"]
    status = server.get("/v1/status", params={"repo": "fresh"}).json()["repos"][0]
    assert status["indexed"] and status["job_id"] is None and status["status"]["rows"]["C1"] > 0
    hits = server.post("/v1/search", json={"query": "charge", "repo": "fresh"}).json()["hits"]
    assert hits
    _error(server.get("/v1/jobs/0123456789abcdef"), 404, "unknown_job")


# ---------------------------------------------------------------------- source and paths


def test_source_serves_indexed_lines(server: httpx.Client) -> None:
    params: dict[str, str | int] = {
        "repo": "pay",
        "path": "src/payments/gateway.py",
        "start": 25,
        "end": 27,
    }
    data = server.get("/v1/source", params=params).json()
    assert data["text"].startswith("def charge(gateway, amount):")
    assert (data["start_line"], data["end_line"], data["language"]) == (25, 27, "Python")
    assert '<span class="linenos">27</span>' in data["html"]


@pytest.mark.parametrize(
    "path",
    [
        "../outside/secret.py",
        "src/../../secret.py",
        "/etc/passwd",
        "src/payments/leak.py",  # a symlink that resolves outside the repository
        ".env",  # inside, but not an indexed file
        ".ragstrata/index.sqlite",
        "src\\..\\..\\secret.py",
    ],
)
def test_source_never_reads_outside_the_index(server: httpx.Client, path: str) -> None:
    response = server.get("/v1/source", params={"repo": "pay", "path": path})
    assert response.status_code in (400, 404), response.text
    assert response.json()["error"]["code"] in ("path_outside_repo", "path_not_indexed")
    assert OUTSIDE_SECRET not in response.text


# ---------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "x", "top_k": 0}, "top_k"),
        ({"query": "x", "layers": ["C9"]}, "layers"),
        ({"query": "x", "bogus": 1}, "bogus"),
        ({"top_k": 3}, "query"),
        ({"query": ""}, "query"),
        ({"query": "x", "repo": "../etc"}, "repo"),
    ],
)
def test_bad_bodies_are_422_with_one_readable_message(
    server: httpx.Client, body: dict[str, Any], field: str
) -> None:
    message = _error(server.post("/v1/search", json=body), 422, "invalid_request")
    assert message.startswith(field)


def test_other_errors(server: httpx.Client) -> None:
    blank = server.post("/v1/ask", json={"query": "   ", "repo": "pay"})
    _error(blank, 422, "invalid_query")
    bad_session = server.post("/v1/ask", json={"query": "x", "repo": "pay", "session": "../x"})
    _error(bad_session, 422, "invalid_request")
    malformed = server.post(
        "/v1/search", content=b'{"query": ', headers={"content-type": "application/json"}
    )
    _error(malformed, 400, "bad_request")
    _error(server.get("/v1/nothing"), 404, "not_found")
    _error(server.get("/v1/search"), 405, "method_not_allowed")


def test_auth_and_body_limit(guarded: httpx.Client) -> None:
    assert guarded.get("/healthz").status_code == 200  # liveness needs no token
    missing = guarded.get("/v1/status")
    _error(missing, 401, "unauthorized")
    assert missing.headers["www-authenticate"] == "Bearer"
    _error(
        guarded.get("/v1/status", headers={"Authorization": "Bearer wrong"}), 401, "unauthorized"
    )
    _error(guarded.get("/v1/status", headers={"Authorization": TOKEN}), 401, "unauthorized")
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert guarded.get("/v1/status", headers=auth).status_code == 200
    big = {"query": "x" * 3000}
    _error(guarded.post("/v1/ask", json=big, headers=auth), 413, "body_too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams
        yield b'{"query": "'
        for _ in range(10):
            yield b"y" * 500
        yield b'"}'

    streamed = guarded.post(
        "/v1/ask", content=chunks(), headers={**auth, "content-type": "application/json"}
    )
    _error(streamed, 413, "body_too_large")
    small = guarded.post("/v1/ask", json={"query": "what does charge do?"}, headers=auth)
    assert small.status_code == 200 and small.json()["answer"]["citations"]


def test_page_and_assets(server: httpx.Client) -> None:
    page = server.get("/")
    assert page.status_code == 200 and "<title>ragstrata</title>" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for name, kind in (("app.js", "javascript"), ("style.css", "css"), ("pygments.css", "css")):
        asset = server.get(f"/static/{name}")
        assert asset.status_code == 200 and kind in asset.headers["content-type"]
    assert ".hl .k" in server.get("/static/pygments.css").text
    _error(server.get("/static/..%2Fapp.py"), 404, "not_found")
    assert "http://" not in page.text and "https://" not in page.text


# ---------------------------------------------------------------------- the serve command


def test_serve_refuses_public_host_without_token(
    pay: Ragstrata, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAGSTRATA_API_TOKEN", raising=False)
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--repo", str(pay.repo), "--host", "0.0.0.0"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "0.0.0.0" in err and "RAGSTRATA_API_TOKEN" in err


def test_serve_helpers(tmp_path: Path) -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    assert parse_repo_arg(f"docs={tmp_path}") == ("docs", tmp_path)
    assert parse_repo_arg(str(tmp_path)) == (tmp_path.name, tmp_path)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_command_subprocess(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "shop")
    Ragstrata(root, SETTINGS).index()
    port = _free_port()
    env: Mapping[str, str] = {
        **os.environ,
        "MY_TOKEN": TOKEN,
        "RAGSTRATA_EMBEDDER_PROVIDER": "hash",
        "RAGSTRATA_EMBEDDER_DIMENSIONS": str(DIMS),
    }
    cmd = [sys.executable, "-m", "ragstrata", "serve", "--repo", f"shop={root}"]
    cmd += ["--port", str(port), "--token-env", "MY_TOKEN"]
    proc = subprocess.Popen(cmd, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
            time.sleep(0.1)
        assert httpx.get(url + "/v1/status").status_code == 401
        # Bound to loopback: a foreign Host header (DNS rebinding) is refused.
        rebound = httpx.get(url + "/healthz", headers={"Host": f"evil.example:{port}"})
        _error(rebound, 400, "bad_host")
        auth = {"Authorization": f"Bearer {TOKEN}"}
        data = httpx.post(url + "/v1/ask", json={"query": "what does charge do?"}, headers=auth)
        assert data.status_code == 200 and data.json()["answer"]["citations"]
        assert TOKEN not in " ".join(cmd)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    shutil.rmtree(root / ".ragstrata", ignore_errors=True)


def test_answer_markdown_is_rendered_without_raw_html() -> None:
    from ragstrata.http.render import markdown_html

    html = markdown_html(
        "**Definition** <script>alert(1)</script> [x](javascript:alert(1))\n\n"
        "```python\n3 | def f():\n4 |     return '<b>'\n```\n"
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html and "<a " not in html
    assert "<strong>Definition</strong>" in html
    assert '<span class="linenos">3</span>' in html and '<span class="linenos">4</span>' in html
    assert "&lt;b&gt;" in html and "3 |" not in html
