"""One registry of served repositories: name rules, NAME=PATH, the default repository, "is there
an index", and the locking between index runs and readers — and HTTP and MCP, which both ask
it, give the same names, codes and messages (the MCP SDK's in-process client, FastAPI's
TestClient; real SQLite indexes built with the hash embedder)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from answer_fixture import write_repo
from ragstrata.app.facade import Ragstrata
from ragstrata.app.registry import Registry, open_facades, parse_repo_spec
from ragstrata.errors import (
    ConfigError,
    IndexBusyError,
    IndexMissingError,
    RepositoryRequiredError,
    UnknownRepositoryError,
    UserError,
)
from ragstrata.http import create_app
from ragstrata.mcp.repos import RepoSet
from ragstrata.mcp.server import build_server
from ragstrata.settings import EmbedderSettings, Settings
from ragstrata.testing.memory_store import InMemoryStore

SETTINGS = Settings(embedder=EmbedderSettings(provider="hash", dimensions=64))


@pytest.fixture(scope="module")
def pay(tmp_path_factory: pytest.TempPathFactory) -> Ragstrata:
    rs = Ragstrata(write_repo(tmp_path_factory.mktemp("pay")), SETTINGS)
    rs.index()
    return rs


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Ragstrata:
    return Ragstrata(write_repo(tmp_path_factory.mktemp("bare")), SETTINGS)


# ---------------------------------------------------------------------- names


@pytest.mark.parametrize("name", ["pay", "a", "my.repo_2-x", "R" * 64])
def test_valid_names(pay: Ragstrata, name: str) -> None:
    assert Registry({name: pay}).names == (name,)


@pytest.mark.parametrize("name", ["", "-pay", ".hidden", "a b", "a/b", "R" * 65, "платёж"])
def test_invalid_names_are_refused_alike_by_http_and_mcp(pay: Ragstrata, name: str) -> None:
    messages = set()
    for build in (Registry, RepoSet, create_app):
        with pytest.raises(ConfigError) as info:
            build({name: pay})
        messages.add(str(info.value))
    assert len(messages) == 1
    message = messages.pop()
    assert repr(name) in message and "1-64 letters" in message


def test_empty_registry_is_refused() -> None:
    with pytest.raises(ConfigError, match="at least one repository"):
        Registry({})


def test_parse_repo_spec(tmp_path: Path) -> None:
    (tmp_path / "shop").mkdir()
    assert parse_repo_spec(f"pay={tmp_path / 'shop'}") == ("pay", tmp_path / "shop")
    assert parse_repo_spec(str(tmp_path / "shop")) == ("shop", tmp_path / "shop")
    odd = tmp_path / "a=b"  # an existing folder "a=b" is that PATH, never NAME "a" at "b"
    odd.mkdir()
    with pytest.raises(UserError, match="cannot name repository"):
        parse_repo_spec(str(odd))
    assert parse_repo_spec(f"shop={odd}") == ("shop", odd)
    with pytest.raises(ConfigError, match="empty --repo"):
        parse_repo_spec("  ")


def test_unnameable_folder_needs_name_equals_path(tmp_path: Path) -> None:
    folder = tmp_path / "мой репо"
    folder.mkdir()
    with pytest.raises(UserError, match="NAME=PATH"):
        parse_repo_spec(str(folder))
    assert parse_repo_spec(f"mine={folder}") == ("mine", folder)


def test_open_facades_in_order_and_refuses_a_name_twice(tmp_path: Path) -> None:
    a, b = tmp_path / "a" / "repo", tmp_path / "b" / "repo"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    seen: list[Path | None] = []

    def settings_for(folder: Path | None) -> Settings:
        seen.append(folder)
        return SETTINGS

    facades = open_facades([f"zeta={a}", str(b)], settings_for)
    assert list(facades) == ["zeta", "repo"] and seen == [a, b]
    with pytest.raises(ConfigError, match="two repositories are named 'repo'"):
        open_facades([str(a), str(b)], settings_for)


# ---------------------------------------------------------------------- which repository


def test_resolve_default_unknown_and_required(pay: Ragstrata, bare: Ragstrata) -> None:
    one = Registry({"pay": pay})
    assert one.resolve(None) == one.resolve("  ") == one.resolve("pay") == "pay"
    two = Registry({"pay": pay, "bare": bare})
    assert two.names == ("pay", "bare")
    with pytest.raises(RepositoryRequiredError, match="one of: pay, bare"):
        two.resolve(None)
    assert two.resolve(None, first_when_omitted=True) == "pay"
    with pytest.raises(UnknownRepositoryError, match="unknown repository 'zzz'; served: pay, bare"):
        two.resolve("zzz")
    assert two.get("bare") is bare


def test_iterable_is_named_by_folder(pay: Ragstrata) -> None:
    assert Registry([pay]).names == (pay.repo.name,)


def test_has_index_and_the_hint(pay: Ragstrata, bare: Ragstrata) -> None:
    registry = Registry({"pay": pay, "bare": bare}, index_hint="do X first")
    assert registry.has_index("pay") and not registry.has_index("bare")
    with registry.reading("pay") as (name, rs):
        assert (name, rs) == ("pay", pay)
    with (
        pytest.raises(IndexMissingError, match="'bare' has no index yet; do X first"),
        registry.reading("bare"),
    ):
        pass
    with registry.reading("bare", indexed=False) as (name, _):
        assert name == "bare"
    assert not (bare.index_dir / "index.sqlite").exists()  # asking created nothing


# ---------------------------------------------------------------------- locking


def test_one_index_run_at_a_time(pay: Ragstrata) -> None:
    registry = Registry({"pay": pay})
    claim = registry.claim_index("pay", owner="job 1")
    assert registry.indexer("pay") == "job 1"
    with pytest.raises(IndexBusyError, match=r"already being indexed \(job 1\)") as info:
        registry.claim_index(None, owner="job 2")
    assert info.value.code == "index_busy"
    with registry.reading("pay") as (name, _):  # an incremental run does not stop readers
        assert name == "pay"
    done = threading.Thread(target=claim.release)  # a job thread releases what a route claimed
    done.start()
    done.join()
    claim.release()  # twice is harmless
    assert registry.indexer("pay") is None
    with registry.claim_index("pay", owner="job 3") as again:
        assert registry.indexer("pay") == again.owner == "job 3"
    assert registry.indexer("pay") is None


class _InPlace(InMemoryStore):
    """A store that rebuilds in place (as PostgreSQL does): not ``Rebuildable``."""

    beside = None  # type: ignore[assignment]


def test_reads_wait_out_a_rebuild_in_place_but_status_may_watch(pay: Ragstrata) -> None:
    rs = Ragstrata(pay.repo, SETTINGS, store=_InPlace())
    rs.index()
    registry = Registry({"pay": rs})
    with registry.claim_index("pay", owner="a reindex call", rebuild=True):
        with (
            pytest.raises(IndexBusyError, match=r"'pay' is being rebuilt \(a reindex call\)"),
            registry.reading("pay"),
        ):
            pass
        with registry.reading("pay", during_rebuild=True) as (name, _):
            assert name == "pay"
        with registry.reading("pay", indexed=False) as (name, _):
            assert name == "pay"
    with registry.reading("pay"):
        pass


def test_reads_go_on_during_a_rebuild_beside_the_index(pay: Ragstrata) -> None:
    """The SQLite file is rebuilt beside itself: readers keep answering from the old index."""
    registry = Registry({"pay": pay})
    with (
        registry.claim_index("pay", owner="job 9", rebuild=True),
        registry.reading("pay") as (name, facade),
    ):
        assert name == "pay" and facade.search("charge").hits


def test_first_readers_share_one_store_and_run_together(pay: Ragstrata) -> None:
    # A fresh facade over the indexed repository: nothing opened yet.
    rs = Ragstrata(pay.repo, SETTINGS)
    registry = Registry({"pay": rs})
    together = threading.Barrier(8, timeout=10)
    seen: list[tuple[int, int]] = []

    def reader() -> None:
        with registry.reading("pay") as (_, facade):
            together.wait()  # all eight are inside at once: reads are never serialized
            seen.append((id(facade.store), id(facade.embedder)))

    threads = [threading.Thread(target=reader) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert not together.broken and len(seen) == 8
    assert len(set(seen)) == 1  # one store and one embedder, opened once
    rs.close()


def test_an_index_run_opens_the_facade_too(pay: Ragstrata) -> None:
    rs = Ragstrata(pay.repo, SETTINGS)
    registry = Registry({"pay": rs})
    with registry.claim_index("pay", owner="job 9"):
        store = rs.store
    with registry.reading("pay") as (_, facade):
        assert facade.store is store
    rs.close()


# ---------------------------------------------------------------------- HTTP and MCP agree


def _mcp(repos: dict[str, Ragstrata], tool: str, args: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}

    async def main() -> None:
        async with Client(build_server(RepoSet(repos))) as client:
            result = await client.call_tool(tool, args)
            out.update(result.structured_content or {})

    anyio.run(main)
    return out


def test_http_and_mcp_give_the_same_repository_errors(pay: Ragstrata, bare: Ragstrata) -> None:
    repos = {"pay": pay, "bare": bare}
    http = TestClient(create_app(repos))
    cases = [  # (HTTP request, MCP call, status, code)
        (("/v1/definition", {"name": "charge"}), ("get_definition", {"symbol": "charge"}), 400),
        (
            ("/v1/definition", {"name": "charge", "repo": "zzz"}),
            ("get_definition", {"symbol": "charge", "repo": "zzz"}),
            404,
        ),
        (
            ("/v1/search", {"query": "charge", "repo": "bare"}),
            ("search_code", {"query": "charge", "repo": "bare"}),
            409,
        ),
    ]
    for (path, body), (tool, args), status in cases:
        response = http.post(path, json=body)
        assert response.status_code == status, response.text
        over_http = response.json()["error"]
        over_mcp = _mcp(repos, tool, args)["error"]
        assert over_http["code"] == over_mcp["code"]
        # the same sentence up to the hint that names each interface's way to build an index
        assert over_http["message"].split(";")[0] == over_mcp["message"].split(";")[0]
    assert [
        http.post("/v1/search", json={"query": "x", **extra}).json()["error"]["code"]
        for extra in ({}, {"repo": "zzz"})
    ] == ["repo_required", "unknown_repo"]
    # Both list the served names in the order given.
    assert "pay, bare" in http.post("/v1/search", json={"query": "x"}).json()["error"]["message"]
    assert "pay, bare" in _mcp(repos, "search_code", {"query": "x"})["error"]["message"]
    # Both name a lone repository by default, and agree on the definition.
    lone = {"pay": pay}
    via_http = TestClient(create_app(lone)).post("/v1/definition", json={"name": "charge"})
    via_mcp = _mcp(lone, "get_definition", {"symbol": "charge"})
    assert via_http.json()["repo"] == via_mcp["repo"] == "pay"
    first = via_http.json()["definitions"][0]
    assert (first["path"], first["start_line"]) == (
        via_mcp["definitions"][0]["path"],
        via_mcp["definitions"][0]["start_line"],
    )


@pytest.mark.slow
def test_a_second_reindex_over_mcp_waits_its_turn(pay: Ragstrata) -> None:
    repos = RepoSet({"pay": pay})
    claim = repos.claim_index("pay", owner="job 7")  # an index run is under way
    out: dict[str, Any] = {}

    def call() -> None:
        async def main() -> None:
            async with Client(build_server(repos)) as client:
                result = await client.call_tool("reindex", {})
                out.update(result.structured_content or {})

        anyio.run(main)

    waiting = threading.Thread(target=call)
    waiting.start()
    waiting.join(1.0)
    assert waiting.is_alive() and not out  # the tool call waits for job 7
    claim.release()
    waiting.join(30)
    assert out.get("repo") == "pay" and "error" not in out, out
    assert repos.indexer("pay") is None


def test_claim_with_wait_blocks_until_release(pay: Ragstrata) -> None:
    registry = Registry({"pay": pay})
    first = registry.claim_index("pay", owner="job 1")
    got: list[str] = []
    waiter = threading.Thread(
        target=lambda: got.append(registry.claim_index("pay", owner="job 2", wait=True).owner)
    )
    waiter.start()
    waiter.join(0.3)
    assert got == [] and registry.indexer("pay") == "job 1"
    first.release()
    waiter.join(10)
    assert got == ["job 2"] and registry.indexer("pay") == "job 2"


@pytest.mark.slow
def test_server_watchers_index_only_when_the_registry_lets_them(tmp_path: Path) -> None:
    from ragstrata.app.watchers import start_watchers

    root = write_repo(tmp_path / "shop")
    rs = Ragstrata(root, SETTINGS)
    registry = Registry({"shop": rs})
    claim = registry.claim_index("shop", owner="job 5")  # an HTTP job holds the repository
    stop = start_watchers({"shop": rs}, registry)
    try:
        threading.Event().wait(1.5)  # the watcher's first run is due at once: it must wait
        assert not rs.has_index()
        claim.release()
        for _ in range(300):
            if rs.has_index() and registry.indexer("shop") is None:
                break
            threading.Event().wait(0.1)
        assert rs.has_index()
    finally:
        stop()
        rs.close()
