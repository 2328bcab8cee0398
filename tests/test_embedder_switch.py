"""Switching the embedding model never mixes vectors: until the next index run, answers are
lexical and say why; that run re-embeds every text, keeps the rows and says so once."""

from __future__ import annotations

from pathlib import Path

from ragstrata import Ragstrata, load_settings
from ragstrata.cli.ask_cmd import answer_warnings
from ragstrata.mcp.render import render_answer


def _open(repo: Path, dimensions: int) -> Ragstrata:
    overrides = {"embedder": {"provider": "hash", "dimensions": dimensions}}
    return Ragstrata(repo, load_settings(repo, env={}, overrides=overrides))


def test_a_new_model_is_told_then_refilled_with_the_rows_kept(tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    (repo / "shop").mkdir(parents=True)
    (repo / "shop" / "payments.py").write_text(
        "def charge(amount: int) -> int:\n"
        '    """Charge the card and return the receipt number."""\n'
        "    return amount\n",
        encoding="utf-8",
    )
    with _open(repo, 64) as rs:
        first = rs.index()
        assert first.embeddings_pending == 0 and not first.notices
        rows = rs.status().rows
        quiet = rs.ask("where is charge defined?")
        assert quiet.notices == () and "notices" not in quiet.to_dict()  # the contract as is
    with _open(repo, 32) as rs:
        old, new = "hash/feature-hash-v1/64", rs.embedder.fingerprint
        for question in ("where is charge defined?", "где определена функция charge?"):
            result = rs.ask(question)
            (notice,) = result.notices
            assert old in notice and new in notice and "ragstrata index" in notice
            assert result.answer.citations[0].path == "shop/payments.py"  # lexical still answers
            assert result.to_dict()["notices"] == [notice]
            warning = answer_warnings(result)[0]
            assert warning.startswith("note: ") and "\n" not in warning
            assert render_answer(result.to_dict()).endswith(warning)  # what an agent reads
        report = rs.index()
        (told,) = report.notices
        assert "embedding model changed" in told and "rows are kept" in told
        assert report.to_dict()["notices"] == [told]
        assert report.embeddings_done > 0 and report.embeddings_pending == 0
        assert report.added == report.changed == 0  # no file was extracted again
        assert rs.status().rows == rows
        assert rs.ask("where is charge defined?").notices == ()
        again = rs.index()
        assert not again.notices and "notices" not in again.to_dict()
