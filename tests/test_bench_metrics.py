"""bench/metrics.py against a hand-computed example."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.metrics import distinct, evaluate, gold_symbols_in, score_level


def test_distinct_keeps_first_occurrence_and_drops_empty() -> None:
    assert distinct(["a", None, "b", "a", "", "c", "b"]) == ["a", "b", "c"]


def test_hand_computed_example() -> None:
    # q1: gold {a, b}; ranked files a, x, a(dup), b  -> distinct [a, x, b]
    #   recall@1 = 1/2, recall@5 = 2/2, hit@1 = 1, rr = 1
    # q2: gold {c}; ranked x, y, c -> recall@1 = 0, recall@5 = 1, hit@1 = 0, rr = 1/3
    # q3: gold {d}; no hits -> all zero
    rows = [
        {"qid": "q1", "query": "?", "gold_files": ["a", "b"], "gold_symbols": ["m.f"]},
        {"qid": "q2", "query": "?", "gold_files": ["c"]},
        {"qid": "q3", "query": "?", "gold_files": ["d"]},
    ]
    hits: dict[str, list[dict[str, Any]]] = {
        "q1": [
            {"path": "a", "symbol": "m.g"},
            {"path": "x", "symbol": None},
            {"path": "a", "symbol": "m.f"},
            {"path": "b", "symbol": "m.g"},
        ],
        "q2": [{"path": "x"}, {"path": "y"}, {"path": "c"}],
    }
    out = evaluate(rows, hits)
    f = out["file"]
    assert out["n"] == 3 and f["n"] == 3
    assert f["recall@1"] == pytest.approx(round((0.5 + 0 + 0) / 3, 4))
    assert f["recall@5"] == pytest.approx(round((1 + 1 + 0) / 3, 4))
    assert f["hit@1"] == pytest.approx(round(1 / 3, 4))
    assert f["hit@10"] == pytest.approx(round(2 / 3, 4))
    assert f["mrr"] == pytest.approx(round((1 + 1 / 3) / 3, 4))
    # symbol level: only q1 has gold; distinct symbols [m.g, m.f] -> rank 2
    s = out["symbol"]
    assert s["n"] == 1
    assert s["hit@1"] == 0.0 and s["hit@5"] == 1.0 and s["mrr"] == 0.5


def test_symbol_suffix_counts_as_gold() -> None:
    # gold "Store.search" is matched by the qualified "pkg.store.Store.search", not by "search"
    assert gold_symbols_in(["pkg.Other.search", "pkg.store.Store.search"], ["Store.search"]) == [
        "pkg.Other.search",
        "Store.search",
    ]


def test_symbol_level_is_none_without_symbols() -> None:
    rows = [{"qid": "q", "query": "?", "gold_files": ["a"], "gold_symbols": ["m.f"]}]
    assert evaluate(rows, {"q": [{"path": "a", "symbol": None}]})["symbol"] is None


def test_mrr_only_counts_the_first_ten() -> None:
    ranked = [[f"f{i}" for i in range(20)]]
    assert score_level(ranked, [["f10"]]).mrr == 0.0  # type: ignore[union-attr]
    assert score_level(ranked, [["f9"]]).mrr == pytest.approx(0.1)  # type: ignore[union-attr]


def test_strip_docstrings_keeps_lines_and_code() -> None:
    from bench.make_docstring_set import first_sentence, strip_docstrings

    source = (
        '"""Module doc."""\n'
        "import os\n"
        "\n"
        "class A:\n"
        '    """Class doc\n'
        '    on two lines."""\n'
        "\n"
        "    def f(self):\n"
        '        """Only a docstring."""\n'
        "\n"
        '    def g(self): "inline doc"; return os.sep\n'
    )
    out = strip_docstrings(source)
    assert out.count("\n") == source.count("\n")
    assert "doc" not in out
    lines = out.splitlines()
    assert lines[1] == "import os" and lines[8] == "        pass"
    assert lines[10].strip().startswith("def g(self):") and "return os.sep" in lines[10]
    assert first_sentence("Return the thing. More text here.\n\nDetails.") == "Return the thing."
