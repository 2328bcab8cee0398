"""Retrieval metrics (hand-computed), dataset loading, and `ragstrata eval` JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragstrata.app.evaluation import (
    EvalItem,
    level_metrics,
    load_dataset,
    ranked_files,
    ranked_symbols,
    select_for_tree,
)
from ragstrata.cli.app import main
from ragstrata.core.evidence import Hit
from ragstrata.errors import UserError
from test_retrieve import DIMS, write_repo


def _hit(path: str, score: float, symbol: str | None = None) -> Hit:
    return Hit(
        layer="C1",
        path=path,
        start_line=1,
        end_line=2,
        symbol=symbol,
        score=score,
        reasons=("x",),
        text="",
    )


def test_metrics_by_hand() -> None:
    ranked = [["a", "b", "c"], ["x", "y", "z", "w", "v", "g1"], ["q"], ["a"]]
    gold = [["b", "c"], ["g1", "g2"], ["nope"], []]  # the last has no gold: not counted
    m = level_metrics(ranked, gold)
    assert m is not None and m.n == 3
    # q1: gold at ranks 2 and 3; q2: one of two gold at rank 6; q3: none
    assert m.recall[1] == pytest.approx(0.0)
    assert m.recall[5] == pytest.approx((1.0 + 0.0 + 0.0) / 3)
    assert m.recall[10] == pytest.approx((1.0 + 0.5 + 0.0) / 3)
    assert m.hit[1] == 0.0
    assert m.hit[5] == pytest.approx(1 / 3)
    assert m.hit[10] == pytest.approx(2 / 3)
    assert m.mrr == pytest.approx((1 / 2 + 1 / 6 + 0) / 3)
    assert level_metrics([[]], [[]]) is None
    with pytest.raises(ValueError, match="ranked lists"):
        level_metrics([["a"]], [])


def test_files_ranked_by_best_hit_and_symbols_matched_by_suffix() -> None:
    hits = [
        _hit("b.py", 0.9, "pkg.b.Store.search"),
        _hit("a.py", 0.5, "pkg.a.f"),
        _hit("b.py", 0.95, "pkg.b.Store"),
        _hit("c.py", 0.7),
    ]
    assert ranked_files(hits) == ["b.py", "c.py", "a.py"]
    assert ranked_symbols(hits, ["Store.search"]) == ["Store.search", "pkg.a.f", "pkg.b.Store"]
    assert ranked_symbols(hits) == ["pkg.b.Store.search", "pkg.a.f", "pkg.b.Store"]


def test_load_dataset_and_select_for_tree(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    rows = [
        {"qid": "r1", "repo": "psf/requests", "query": "q1", "gold_files": ["./src/a.py"]},
        {
            "qid": "f1",
            "repo": "pallets/flask",
            "query": "q2",
            "gold_files": ["b.py"],
            "gold_symbols": ["flask.app.Flask"],
        },
    ]
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    items = load_dataset(data)
    assert items[0] == EvalItem("r1", "q1", ("src/a.py",), (), "psf/requests")
    assert items[1].gold_symbols == ("flask.app.Flask",)
    chosen, repo = select_for_tree(items, tmp_path / "requests-46e939b5")
    assert repo == "psf/requests" and [i.qid for i in chosen] == ["r1"]
    with pytest.raises(UserError, match="names none of them"):
        select_for_tree(items, tmp_path / "django")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "q"}\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"bad.jsonl:1: a row needs 'gold_files'"):
        load_dataset(bad)


def test_eval_cli_indexes_then_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = write_repo(tmp_path / "demo-shop")
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_PROVIDER", "hash")
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_DIMENSIONS", str(DIMS))
    data = tmp_path / "set.jsonl"
    rows = [
        {
            "query": "where is class UserService defined?",
            "gold_files": ["src/users/service.py"],
            "gold_symbols": ["users.service.UserService"],
        },
        {
            "query": "как работает повтор запроса?",
            "gold_files": ["src/http_client/retry.py"],
            "gold_symbols": ["retry.retry_request"],
        },
        {"query": "what does the README say about retries?", "gold_files": ["README.md"]},
    ]
    data.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    try:
        main(["eval", "--dataset", str(data), "--tree", str(repo), "--json", "--per-query"])
    except SystemExit as exc:  # pragma: no cover - shows the error
        raise AssertionError(capsys.readouterr().err) from exc
    out = json.loads(capsys.readouterr().out)
    assert (repo / ".ragstrata" / "index.sqlite").is_file()
    assert out["n"] == 3 and out["file"]["n"] == 3 and out["symbol"]["n"] == 2
    assert out["file"]["hit@1"] == 1.0 and out["file"]["mrr"] == 1.0
    assert out["symbol"]["hit@1"] == 1.0
    assert [q["first_gold_file_rank"] for q in out["queries"]] == [1, 1, 1]
    assert out["latency_ms"]["p50"] > 0
