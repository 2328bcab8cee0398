"""The public API: ``from ragstrata import Ragstrata, Settings, load_settings, route`` is what
the README's library example uses, and importing ``ragstrata`` loads no stage."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ragstrata
from ragstrata import Ragstrata, Settings, UserError, load_settings, route


def test_the_readme_example_answers_with_a_citation(tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    (repo / "shop").mkdir(parents=True)
    (repo / "shop" / "users.py").write_text(
        "class UserService:\n"
        '    """Creates and finds users."""\n\n'
        "    def create(self, name: str) -> str:\n"
        "        return name\n",
        encoding="utf-8",
    )
    settings = load_settings(repo, env={}, overrides={"embedder": {"provider": "hash"}})
    assert isinstance(settings, Settings)
    rs = Ragstrata(repo, settings)
    try:
        rs.index()
        for question in ("где определён класс UserService?", "where is UserService defined?"):
            result = rs.ask(question)
            assert result.answer.status != "not_found"
            lead = result.answer.citations[0]
            assert (lead.path, lead.start_line) == ("shop/users.py", 1)
    finally:
        rs.close()


def test_route_is_the_router_contract() -> None:
    plan = route("кто вызывает charge?")
    assert plan["schema_version"].startswith("1.") and plan["intent"] == "CODE_QA"


def test_the_error_tree_is_public(tmp_path: Path) -> None:
    with pytest.raises(UserError):
        Ragstrata(tmp_path / "missing")


def test_unknown_names_fail_like_a_module() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        ragstrata.Nothing  # noqa: B018


def test_importing_ragstrata_loads_no_stage() -> None:
    code = (
        "import sys, ragstrata; "
        "print(sorted(m for m in sys.modules if m.startswith('ragstrata.') "
        "and m.split('.')[1] not in ('core', 'errors')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow
def test_the_readme_library_example_runs_as_written(tmp_path: Path) -> None:
    """The README's "As a library" block, run with its repository path pointed at a fixture
    (and the hash embedder, so no model loads)."""
    import re

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    code = re.search(r"## As a library\n\n```python\n(.*?)```", readme, re.S)
    assert code is not None
    repo = tmp_path / "repo"
    (repo / "svc").mkdir(parents=True)
    (repo / "svc" / "users.py").write_text("class UserService:\n    pass\n", encoding="utf-8")
    source = code.group(1).replace('"path/to/repo"', repr(str(repo)))
    source = source.replace(
        "load_settings(repo)",
        "load_settings(repo, env={}, overrides={'embedder': {'provider': 'hash'}})",
    )
    out = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "svc/users.py" in out.stdout and "CODE_QA" in out.stdout
