"""`ragstrata search` (single query, --json, --batch) on the retrieval fixture repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragstrata.cli.app import main
from ragstrata.store.sqlite import SQLiteStore
from ragstrata.testing import HashEmbedder
from test_retrieve import DIMS, build_index, write_repo

HIT_KEYS = {"layer", "path", "start_line", "end_line", "symbol", "score", "reasons", "text"}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_repo(tmp_path_factory.mktemp("cli_repo"))
    store = SQLiteStore(root / ".ragstrata" / "index.sqlite", cache_min_rows=None)
    build_index(root, store, HashEmbedder(dimensions=DIMS))
    store.close()
    return root


@pytest.fixture(autouse=True)
def _hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    # The embedder is the user's choice (environment), never the repository's.
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_PROVIDER", "hash")
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_DIMENSIONS", str(DIMS))


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = 0
    try:
        main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_search_json_prints_plan_and_hits(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(
        capsys,
        "search",
        "где определён класс UserService?",
        "--repo",
        str(repo),
        "--json",
        "--top-k",
        "3",
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["plan"]["intent"] == "CODE_QA" and data["plan"]["language"] == "ru"
    assert 1 <= len(data["hits"]) <= 3
    assert all(set(h) == HIT_KEYS for h in data["hits"])
    top = data["hits"][0]
    assert (top["layer"], top["path"], top["symbol"]) == (
        "C1",
        "src/users/service.py",
        "users.service.UserService",
    )
    assert top["start_line"] == 8 and top["reasons"]
    assert any(r.startswith("dense") for h in data["hits"] for r in h["reasons"])


def test_search_layer_option(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(
        capsys, "search", "retries", "--repo", str(repo), "--json", "--layer", "d1"
    )
    assert code == 0, err
    hits = json.loads(out)["hits"]
    assert hits and {h["layer"] for h in hits} == {"D1"}


def test_search_human_table(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")  # wide enough for the reasons column
    code, out, err = _run(capsys, "search", "who calls retry_request?", "--repo", str(repo))
    assert code == 0, err
    assert "retry_request" in out and "flow:callers" in out
    assert "intent CODE_QA" in out
    monkeypatch.setenv("COLUMNS", "80")  # too narrow for reasons: they go, cells stay whole
    code, out, err = _run(capsys, "search", "who calls retry_request?", "--repo", str(repo))
    assert code == 0 and "retry_request" in out and "flow:callers" not in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_search_batch_one_line_per_query(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        "\n".join(
            [
                json.dumps({"qid": "en", "query": "where is class UserService defined?"}),
                json.dumps(
                    {"qid": "ru", "query": "как работает повтор запроса?"}, ensure_ascii=False
                ),
                "",
                json.dumps({"qid": "empty", "query": "   "}),
                "{broken",
            ]
        ),
        encoding="utf-8",
    )
    code, out, err = _run(
        capsys, "search", "--batch", str(queries), "--repo", str(repo), "--top-k", "4"
    )
    assert code == 0, err
    lines = [json.loads(x) for x in out.splitlines()]
    assert [x["qid"] for x in lines] == ["en", "ru", "empty", "line5"]
    assert lines[0]["hits"][0]["symbol"] == "users.service.UserService"
    assert lines[1]["hits"][0]["symbol"] == "http_client.retry.retry_request"
    assert all(set(h) == HIT_KEYS for x in lines[:2] for h in x["hits"])
    assert lines[2]["hits"] == [] and "empty" in lines[2]["error"]
    assert lines[3]["hits"] == [] and "invalid JSON" in lines[3]["error"]


def test_search_errors_are_one_line(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "search", "x", "--repo", str(repo), "--layer", "Z9")
    assert code == 2 and "unknown layer" in err and out == ""
    code, out, err = _run(capsys, "search", "x", "--repo", str(tmp_path))
    assert code == 2 and "no index" in err
    code, out, err = _run(capsys, "search", "--repo", str(repo))
    assert code == 2 and "QUERY or --batch" in err
