"""`ragstrata gendocs` end to end: --lang, --all with cross-links, --check drift, --dry-run,
and LLM prose from a loopback fake of OpenAI's chat API — cited, identifiers checked, cached
by content hash (a second run makes no call; a small change calls only for what changed)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from answer_fixture import write_repo
from ragstrata.app.facade import Ragstrata
from ragstrata.cli.app import main
from ragstrata.cli.common import edge_settings
from ragstrata.testing.openai_fake import FakeOpenAI


@pytest.fixture(autouse=True)
def _hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_PROVIDER", "hash")


def indexed(root: Path) -> Path:
    with Ragstrata(root, edge_settings(root)) as rs:
        rs.index()
    return root


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_PROVIDER", "hash")
    return indexed(write_repo(tmp_path / "repo"))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_lang_ru_and_bad_input(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    code, out, _ = run(
        capsys, "gendocs", "src/payments/gateway.py", "--repo", str(repo), "--lang", "ru"
    )
    assert code == 0 and out.startswith("# Модуль `src/payments/gateway.py`")
    assert "## Публичный API" in out and "### Класс `Gateway`" in out
    code, _, err = run(capsys, "gendocs", "x", "--repo", str(repo), "--lang", "de")
    assert code == 2 and "unknown --lang 'de'; valid: en, ru" in err and "Traceback" not in err
    code, _, err = run(capsys, "gendocs", "--all", "--repo", str(repo))
    assert code == 2 and "--all needs --out DIR" in err
    code, _, err = run(capsys, "gendocs", "--repo", str(repo))
    assert code == 2 and "empty gendocs target" in err


def test_all_writes_cross_linked_pages_and_an_index(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    code, stdout, err = run(capsys, "gendocs", "--all", "--out", str(out), "--repo", str(repo))
    assert code == 0 and stdout == "" and "wrote 1 pages and index.md" in err
    assert sorted(p.name for p in out.iterdir()) == ["index.md", "src__payments.md"]
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "- [`src/payments`](src__payments.md) — Payments: charge customers" in index
    page = (out / "src__payments.md").read_text(encoding="utf-8")
    assert page.startswith("<!-- ragstrata-gendocs ")
    # relations link to the anchor of the item's heading on the page that documents it
    assert "[`payments.gateway.validate`](src__payments.md#function-validate)" in page
    assert "#### Function `validate`" in page


def test_check_reports_changed_sources_and_stale_doc_names(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    assert run(capsys, "gendocs", "--all", "--out", str(out), "--repo", str(repo))[0] == 0
    code, stdout, _ = run(capsys, "gendocs", "--check", str(out), "--repo", str(repo))
    assert code == 0 and stdout.startswith("No drift: 1 pages up to date")
    gateway = repo / "src/payments/gateway.py"
    gateway.write_text(gateway.read_text().replace("return amount > 0", "return amount >= 1"))
    readme = repo / "README.md"
    readme.write_text(
        readme.read_text() + "\n## API\n\nCall `Gateway.refund()` or "
        "`Gateway.send()`; `os.path` is not ours.\n"
    )
    indexed(repo)
    code, stdout, _ = run(capsys, "gendocs", "--check", str(out), "--repo", str(repo))
    assert code == 1
    lines = stdout.strip().split("\n")
    assert "src__payments.md: src/payments/gateway.py changed since the page was generated" in (
        lines
    )
    stale = [x for x in lines if "no longer exists" in x]
    assert len(stale) == 1 and re.match(r"README\.md:\d+: names `Gateway\.refund\(\)`", stale[0])
    line = int(stale[0].split(":")[1])
    assert "Gateway.refund()" in readme.read_text().split("\n")[line - 1]
    code, stdout, _ = run(
        capsys, "gendocs", "--check", str(out), "--repo", str(repo), "--lang", "ru"
    )
    assert code == 1 and "изменился после генерации страницы" in stdout


def _reply(messages: list[dict[str, Any]]) -> str:
    """Cites the first evidence line, and names one identifier that exists nowhere."""
    user = str(messages[-1]["content"])
    found = re.findall(r"\[([\w./-]+):(\d+)(?:-\d+)?\] (\w+) ([\w.]+)", user)
    if not found:
        return "Nothing to say."
    path, line, kind, symbol = found[0]
    return (
        f"The {kind} `{symbol}` is defined here `{path}:{line}`. "
        f"It caches through `turbo_cache_layer` `{path}:{line}`. "
        "This sentence has no citation."
    )


def _llm_user_side(monkeypatch: pytest.MonkeyPatch, base_url: str) -> None:
    # The LLM is the user's choice (environment); a repository file may not choose it.
    for key, value in {
        "PROVIDER": "openai",
        "BASE_URL": base_url,
        "MODEL": "gpt-4o-mini",
        "API_KEY": "test-key",
        "MAX_RETRIES": "0",
    }.items():
        monkeypatch.setenv(f"RAGSTRATA_LLM_{key}", value)


def test_llm_prose_checked_cited_and_cached(
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeOpenAI(_reply) as fake:
        _llm_user_side(monkeypatch, fake.base_url)
        code, out, _ = run(
            capsys, "gendocs", "src/payments/gateway.py", "--repo", str(repo), "--dry-run"
        )
        assert code == 0 and fake.calls == 0
        assert re.match(
            r"gendocs dry run: 5 LLM calls \(0 cached\), ≈ \d+ input \+ 730 output "
            r"tokens \(chars/4\), ≈ \$\d+\.\d{4} \(gpt-4o-mini\)",
            out,
        )
        code, md, _ = run(capsys, "gendocs", "src/payments/gateway.py", "--repo", str(repo))
        assert code == 0 and fake.calls == 5  # overview + RETRIES, Gateway, validate, charge
        assert (
            "The class `payments.gateway.Gateway` is defined here "
            "`src/payments/gateway.py:6`." in md
        )
        assert "turbo_cache_layer" not in md.split("> Removed")[0]
        assert (
            "> Removed from the generated text because they do not resolve in the index: "
            "`turbo_cache_layer`." in md
        )
        assert "no citation" not in md
        # the same run again: every reply comes from the cache
        code, again, _ = run(capsys, "gendocs", "src/payments/gateway.py", "--repo", str(repo))
        assert code == 0 and fake.calls == 5 and again == md
        code, out, _ = run(
            capsys, "gendocs", "src/payments/gateway.py", "--repo", str(repo), "--dry-run"
        )
        assert "0 LLM calls (5 cached)" in out
        # a small change: only the changed item and the overview that lists it are asked again
        gateway = repo / "src/payments/gateway.py"
        gateway.write_text(
            gateway.read_text().replace(
                '"""Check that an amount is positive."""', '"""Check that an amount is above 0."""'
            )
        )
        indexed(repo)
        code, _, _ = run(capsys, "gendocs", "src/payments/gateway.py", "--repo", str(repo))
        assert code == 0 and fake.calls == 5 + 2
        # --no-llm: the reference alone
        code, plain, _ = run(
            capsys, "gendocs", "src/payments/gateway.py", "--repo", str(repo), "--no-llm"
        )
        assert code == 0 and fake.calls == 7 and "is defined here" not in plain


@pytest.mark.slow
def test_fresh_interpreter_imports() -> None:
    """No import cycle: the gendocs modules import alone in a fresh interpreter."""
    import subprocess
    import sys

    for module in (
        "ragstrata.answer.docs.targets",
        "ragstrata.answer.docs.site",
        "ragstrata.answer.graphs.generate_docs",
        "ragstrata.cli.gendocs_cmd",
    ):
        done = subprocess.run(
            [sys.executable, "-c", f"import {module}"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
