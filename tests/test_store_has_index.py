"""One place decides whether an index exists: ``Ragstrata.has_index()`` -> ``Store.has_index()``.

The CLI (search, ask, eval), HTTP and MCP ask the facade; none looks for ``index.sqlite``
itself, so a PostgreSQL store (global ``--store``) is judged by what it holds.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from pg_server import pg_url  # noqa: F401  (session fixture)
from ragstrata.app.facade import Ragstrata
from ragstrata.cli.app import main
from ragstrata.errors import IndexMissingError
from ragstrata.http import create_app
from ragstrata.mcp.repos import RepoSet
from ragstrata.settings import EmbedderSettings, Settings, StoreSettings
from test_http_api import LiveServer
from test_retrieve import DIMS, write_repo

HASH = Settings(embedder=EmbedderSettings(provider="hash", dimensions=DIMS))


@pytest.fixture(autouse=True)
def _hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    # The embedder is the user's choice (environment), never the repository's file.
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_PROVIDER", "hash")
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_DIMENSIONS", str(DIMS))


def test_facade_has_index_creates_nothing(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "shop")
    with Ragstrata(repo, HASH) as rs:
        assert rs.has_index() is False
        assert not rs.index_dir.exists()  # asking created no file
        rs.index()
        assert rs.has_index() is True
    with Ragstrata(repo, HASH) as again:
        assert again.has_index() is True


def test_postgres_store_is_judged_by_its_contents(
    pg_url: str,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo = write_repo(tmp_path / "shop")
    url = f"{pg_url}?repo=has-index-{tmp_path.name}"
    settings = Settings(
        embedder=EmbedderSettings(provider="hash", dimensions=DIMS), store=StoreSettings(url=url)
    )
    rs = Ragstrata(repo, settings)
    try:
        # not indexed yet: HTTP, MCP and the CLI all say so (a store URL alone is no index)
        assert rs.has_index() is False
        app = create_app({"shop": rs})
        with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=20) as client:
            response = client.post("/v1/search", json={"query": "charge"})
            assert response.status_code == 409
            assert response.json()["error"]["code"] == "index_missing"
        repos = RepoSet({"shop": rs})
        with pytest.raises(IndexMissingError), repos.reading("shop"):
            pass
        with pytest.raises(SystemExit) as exc:
            main(["--store", url, "search", "charge", "--repo", str(repo)])
        assert exc.value.code == 2 and "ragstrata index" in capsys.readouterr().err

        # eval honours --store: it indexes into PostgreSQL, never creates index.sqlite
        data = tmp_path / "set.jsonl"
        row = {
            "query": "where is class UserService defined?",
            "gold_files": ["src/users/service.py"],
        }
        data.write_text(json.dumps(row), encoding="utf-8")
        args = ["--store", url, "eval", "--dataset", str(data), "--tree", str(repo), "--json"]
        main(args)
        assert json.loads(capsys.readouterr().out)["file"]["hit@1"] == 1.0
        assert not (repo / ".ragstrata" / "index.sqlite").exists()
        assert rs.has_index() is True
        indexed = rs.store.catalog()["src/users/service.py"].sha256

        # ... and a second eval sees that index: it does not index again
        (repo / "src" / "users" / "service.py").write_text("# changed\n", encoding="utf-8")
        main(args)
        capsys.readouterr()
        assert rs.store.catalog()["src/users/service.py"].sha256 == indexed
        main(["--store", url, "search", "UserService", "--repo", str(repo), "--json"])
        assert json.loads(capsys.readouterr().out)["hits"]  # search sees it too
    finally:
        rs.store.drop()  # type: ignore[attr-defined]
        rs.close()
