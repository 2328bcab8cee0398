"""Issue 14 "also" items: /healthz answers while 200 requests are in flight; MCP ``reindex``
takes a strict boolean; a session name with a newline or path characters is refused."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import httpx
import pytest

from answer_fixture import write_repo
from hostile.hostile_util import clean_env, mcp_calls, run_cli
from ragstrata.app.facade import Ragstrata
from ragstrata.app.sessions import SessionStore
from ragstrata.errors import InvalidStateError
from ragstrata.http import create_app
from ragstrata.settings import load_settings
from ragstrata.testing import HashEmbedder
from test_http_api import LiveServer

IN_FLIGHT = 200


class HeldQueries(HashEmbedder):
    """The hash embedder whose query embedding waits for ``gate``: it holds searches in flight."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__()
        self.gate = gate
        self.waiting = 0
        self._lock = threading.Lock()

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        with self._lock:
            self.waiting += 1
        assert self.gate.wait(timeout=60), "the test never released the searches"
        return super().embed_queries(texts)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_repo(tmp_path_factory.mktemp("load") / "shop")
    Ragstrata(root, load_settings(root, env=clean_env())).index()
    return root


def test_healthz_answers_while_200_requests_are_in_flight(repo: Path) -> None:
    gate = threading.Event()
    embedder = HeldQueries(gate)
    rs = Ragstrata(repo, load_settings(repo, env=clean_env()), embedder=embedder)
    codes: list[int] = []
    with LiveServer(create_app({"shop": rs})) as server:
        limits = httpx.Limits(max_connections=IN_FLIGHT + 10)
        with httpx.Client(base_url=server.url, timeout=90, limits=limits) as client:

            def search(n: int) -> None:
                reply = client.post("/v1/search", json={"query": f"charge amount {n}"})
                codes.append(reply.status_code)

            threads = [threading.Thread(target=search, args=(n,)) for n in range(IN_FLIGHT)]
            for t in threads:
                t.start()
            try:
                # Wait until the worker threads are all taken by held searches.
                for _ in range(600):
                    if embedder.waiting >= 30:
                        break
                    gate.wait(0.05)
                assert embedder.waiting >= 30
                # Every search is still held: a /healthz that queued behind them would time out.
                health = httpx.get(server.url + "/healthz", timeout=5)
                assert health.status_code == 200 and health.json()["status"] == "ok"
                assert codes == []
            finally:
                gate.set()
                for t in threads:
                    t.join(timeout=90)
    assert len(codes) == IN_FLIGHT and set(codes) == {200}


def test_mcp_reindex_takes_a_strict_boolean(repo: Path) -> None:
    bad: list[object] = ["false", "true", "yes", 1, 0, None]
    calls = [("reindex", {"rebuild": value}) for value in bad]
    calls += [("reindex", {"rebuild": False}), ("reindex", {})]
    results = mcp_calls(repo, calls)
    for value, result in zip(bad, results, strict=False):
        assert result.get("isError") and "rebuild" in str(result), (value, result)
    assert all(not r.get("isError") for r in results[len(bad) :]), results


@pytest.mark.parametrize(
    "name", ["ok\n", "a\nb", "../x", "a/b", "a\\b", "", " ", "x" * 65, ".hidden", "x\u202e", "\x1b"]
)
def test_bad_session_names_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(InvalidStateError, match="invalid session name"):
        SessionStore(tmp_path).load(name)
    assert list(tmp_path.iterdir()) == []


def test_bad_session_name_from_the_cli_is_one_line(repo: Path) -> None:
    code, _, err = run_cli("ask", "what is charge?", "--repo", str(repo), "--session", "x\n")
    assert (
        code == 2
        and err.strip().startswith("error: invalid session name")
        and "\n" not in err.strip()
    )
    assert not any(p.name.startswith("x") for p in (repo / ".ragstrata" / "sessions").glob("*"))
