"""An index built by older extraction rules is told, then extracted again by the next index
run, which keeps the vectors of unchanged texts; no `--rebuild` is needed."""

from __future__ import annotations

import shutil
from dataclasses import replace
from importlib import resources
from pathlib import Path

import pytest

from ragstrata import Ragstrata, load_settings
from ragstrata.ingest import extractor
from ragstrata.ingest.extractor import EXTRACTOR_VERSION, extractor_fingerprint


def _open(repo: Path) -> Ragstrata:
    overrides = {"embedder": {"provider": "hash", "dimensions": 64}}
    return Ragstrata(repo, load_settings(repo, env={}, overrides=overrides))


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "shop"
    (repo / "shop").mkdir(parents=True)
    (repo / "shop" / "payments.py").write_text(
        "from shop.cards import validate\n\n\n"
        "def charge(amount: int) -> int:\n"
        '    """Charge the card and return the receipt number."""\n'
        "    return validate(amount)\n",
        encoding="utf-8",
    )
    (repo / "shop" / "cards.py").write_text(
        "def validate(amount: int) -> int:\n    return max(amount, 0)\n", encoding="utf-8"
    )
    return repo


def test_the_fingerprint_names_the_version_and_the_query_files() -> None:
    version, digest = extractor_fingerprint().split("-")
    assert version == str(EXTRACTOR_VERSION)
    assert len(digest) == 12 and int(digest, 16) >= 0


def test_the_fingerprint_changes_with_the_test_conventions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each row records whether its file is a test: a new convention (`*_tests.rs`) makes the
    # next index run extract every file again
    package = tmp_path / "ragstrata"
    shutil.copytree(resources.files("ragstrata.ingest").joinpath("queries"), package / "queries")
    table = resources.files("ragstrata").joinpath("data", "languages.toml").read_text("utf-8")
    (package / "data").mkdir()
    (package / "data" / "languages.toml").write_text(table, "utf-8")
    monkeypatch.setattr(extractor.resources, "files", lambda _: package)
    before = extractor.extractor_fingerprint.__wrapped__()
    changed = table.replace('"*_tests.rs", ', "")
    assert changed != table
    (package / "data" / "languages.toml").write_text(changed, "utf-8")
    assert extractor.extractor_fingerprint.__wrapped__() != before


def test_older_rules_are_told_then_re_extracted_with_vectors_kept(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    with _open(repo) as rs:
        first = rs.index()
        assert rs.store.read_manifest().extractor == extractor_fingerprint()
        assert rs.status().extraction_current and not first.notices
        rows = rs.status().rows
        # what an index written before the rules were recorded looks like
        rs.store.write_manifest(replace(rs.store.read_manifest(), extractor=""))
    with _open(repo) as rs:
        status = rs.status()
        assert not status.extraction_current
        assert status.to_dict()["extraction_current"] is False
        result = rs.ask("where is charge defined?")
        assert any("older extraction rules" in n and "ragstrata index" in n for n in result.notices)
        assert result.answer.citations[0].path == "shop/payments.py"  # still answers
        report = rs.index()
        (told,) = report.notices
        assert "extraction rules changed" in told and "unrecorded" in told
        assert report.changed == 2  # every file extracted again ...
        assert report.embeddings_done == 0  # ... and no text embedded again
        assert rs.status().rows == rows and rs.status().extraction_current
        assert rs.store.read_manifest().extractor == extractor_fingerprint()
        assert rs.ask("who calls validate?").notices == ()
        again = rs.index()
        assert not again.notices and again.added == again.changed == 0


def test_a_dry_run_counts_every_file_and_writes_nothing(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    with _open(repo) as rs:
        rs.index()
        rs.store.write_manifest(replace(rs.store.read_manifest(), extractor="0-old"))
        dry = rs.index(dry_run=True)
        assert dry.changed == 2
        assert rs.store.read_manifest().extractor == "0-old"


def test_an_interrupted_re_extraction_is_finished_by_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ragstrata.indexer.run as run

    repo = _repo(tmp_path)
    with _open(repo) as rs:
        rs.index()
        rows = rs.status().rows
        rs.store.write_manifest(replace(rs.store.read_manifest(), extractor=""))
    real, seen = run.extract_file, []

    def stopped_on_the_second(*args: object, **kwargs: object) -> object:
        seen.append(1)
        if len(seen) == 2:
            raise KeyboardInterrupt  # Ctrl-C while the second file is extracted
        return real(*args, **kwargs)

    monkeypatch.setattr(run, "extract_file", stopped_on_the_second)
    with _open(repo) as rs, pytest.raises(KeyboardInterrupt):
        rs.index()
    monkeypatch.setattr(run, "extract_file", real)
    with _open(repo) as rs:
        assert not rs.status().extraction_current  # the old rules are still on record
        assert rs.status().rows == rows  # no row was lost
        report = rs.index()
        assert report.changed == 2 and report.notices
        assert rs.status().extraction_current and rs.status().rows == rows


def test_an_evaluation_indexes_again_when_the_rules_changed(tmp_path: Path) -> None:
    # `ragstrata eval` and the answer benchmark open an index before asking: one built by
    # other rules is extracted again first, so they measure what the current rules build
    from ragstrata.cli.eval_cmd import ensure_index

    repo = _repo(tmp_path)
    with _open(repo) as rs:
        assert ensure_index(rs, quiet=True)  # no index yet
        assert not ensure_index(rs, quiet=True)  # a current one is kept as it is
        rs.store.write_manifest(replace(rs.store.read_manifest(), extractor="0-old"))
        assert ensure_index(rs, quiet=True)
        assert rs.status().extraction_current
        assert rs.store.read_manifest().extractor == extractor_fingerprint()
