"""`make demo` asks this repository five questions (`ragstrata.cli.demo.DEMO_QUESTIONS`) from
its rows, before vectors are filled: each must lead with the right code (issue 23)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ragstrata import Ragstrata, load_settings
from ragstrata.cli.demo import DEMO_QUESTIONS

ROOT = Path(__file__).resolve().parents[1]
_SKIP = shutil.ignore_patterns(
    ".git", ".venv", ".ragstrata", "__pycache__", "*.egg-info", ".*_cache"
)


def _section_start(readme: Path, heading: str) -> int:
    lines = readme.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.strip() == f"## {heading}")


@pytest.mark.slow
def test_the_demo_questions_lead_with_the_right_code(tmp_path: Path) -> None:
    repo = tmp_path / "ragstrata"
    shutil.copytree(ROOT, repo, ignore=_SKIP)
    settings = load_settings(repo, env={}, overrides={"embedder": {"provider": "hash"}})
    with Ragstrata(repo, settings) as rs:
        rs.index(embed=False)  # the demo asks before the vectors are filled
        answers = [rs.ask(q, session=s).answer for q, s in DEMO_QUESTIONS]
    how, defined, callers, config, invented = answers
    assert how.citations[0].path == "src/ragstrata/indexer/plan.py", how.lead
    assert defined.citations[0].path == "src/ragstrata/retrieve/retriever.py", defined.lead
    first = callers.citations[0]
    assert first.path.startswith("src/ragstrata/") and "Retriever" in callers.lead, callers.lead
    start = _section_start(repo / "README.md", "Configuration")
    assert (config.citations[0].path, config.citations[0].start_line) == ("README.md", start)
    assert invented.status != "answered" and "UserService" in invented.lead, invented.lead
