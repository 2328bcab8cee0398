"""Pre-flight checks and ``ragstrata doctor``: one test per check, HasBlocking semantics
(conformance ``preflight_has_blocking``), JSON output and exit codes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cli_runner import CliResult, run_cli
from conftest import CONFORMANCE
from ragstrata.app.doctor import (
    DEFAULT_DISK_LIMITS,
    PING,
    DiskLimits,
    DoctorFinding,
    blocking_error,
    blocking_message,
    finding_to_dict,
    run_checks,
)
from ragstrata.app.facade import Ragstrata
from ragstrata.errors import (
    ConfigError,
    IndexMismatchError,
    IndexMissingError,
    ProviderAuthError,
    ProviderError,
)
from ragstrata.llm.preflight import PreflightResult, Severity
from ragstrata.settings import (
    EmbedderSettings,
    IndexSettings,
    LLMSettings,
    Settings,
    StoreSettings,
)
from ragstrata.testing import HashEmbedder, ScriptedRunner

DATA: dict[str, Any] = json.loads(
    (CONFORMANCE / "llm_summary_preflight_embedder.json").read_text(encoding="utf-8")
)
PLENTY = lambda _path: (10**12, 0, 10**12)  # noqa: E731 - a disk_usage stand-in
HASH = Settings(embedder=EmbedderSettings(provider="hash"))
LLM = HASH.model_copy(
    update={
        "llm": LLMSettings(provider="openai", model="gpt-4o-mini", base_url="http://127.0.0.1:9")
    }
)


def make_repo(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text(
        'def greet(name):\n    """Say hello."""\n    return "hi " + name\n', encoding="utf-8"
    )
    (root / "README.md").write_text("# Demo\n\nGreets people.\n", encoding="utf-8")
    return root


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.fixture()
def indexed(repo: Path) -> Iterator[Path]:
    with Ragstrata(repo, HASH, embedder=HashEmbedder()) as rs:
        rs.index()
    yield repo


def check(
    repo: Path,
    settings: Settings = HASH,
    *,
    embedder: HashEmbedder | None = None,
    runner: ScriptedRunner | None = None,
    quick: bool = False,
    disk_limits: DiskLimits = DEFAULT_DISK_LIMITS,
    disk_usage: Any = PLENTY,
) -> PreflightResult:
    rs = Ragstrata(repo, settings, embedder=embedder or HashEmbedder(), runner=runner)
    with rs:
        return run_checks(rs, quick=quick, disk_limits=disk_limits, disk_usage=disk_usage)


def cats(result: PreflightResult) -> list[tuple[str, str]]:
    return [(f.severity.value, f.category) for f in result.findings]


# --------------------------------------------------------------------------- HasBlocking


@pytest.mark.parametrize("case", DATA["preflight_has_blocking (upstream)"])
def test_blocking_follows_has_blocking(case: dict[str, Any]) -> None:
    result = PreflightResult.of(
        DoctorFinding(Severity(s), "index", f"observation {i}", "fix it")
        for i, s in enumerate(case["severities"])
    )
    assert result.has_blocking() is case["expected"]
    assert (blocking_message(result) is not None) is case["expected"]
    assert (blocking_error(result) is not None) is case["expected"]


def test_blocking_message_names_the_first_high_finding_and_the_rest() -> None:
    result = PreflightResult.of(
        [
            DoctorFinding(Severity.LOW, "stale", "x"),
            DoctorFinding(
                Severity.HIGH, "index", "no index at /r/.ragstrata", "run `ragstrata index /r`"
            ),
            DoctorFinding(Severity.HIGH, "llm", "down"),
        ]
    )
    message = blocking_message(result)
    assert message == (
        "cannot answer: no index at /r/.ragstrata; fix: run `ragstrata index /r` "
        "(and 1 more; run `ragstrata doctor`)"
    )
    assert isinstance(blocking_error(result), IndexMissingError)
    assert str(blocking_error(result)) == message
    only_llm = blocking_error(result, action="summarize", categories={"llm", "disk"})
    assert isinstance(only_llm, ProviderError) and str(only_llm) == "cannot summarize: down"
    assert blocking_message(result, categories={"disk"}) is None


# --------------------------------------------------------------------------- each check


def test_healthy_index_has_no_findings(indexed: Path) -> None:
    assert check(indexed).findings == ()


def test_missing_index_is_one_high_finding(repo: Path) -> None:
    result = check(repo)
    assert cats(result) == [("high", "index")]  # no stale/embedding noise behind it
    assert "no index" in result.findings[0].observation
    assert "ragstrata index" in result.findings[0].fix
    assert not (repo / ".ragstrata" / "index.sqlite").exists()  # checking created nothing


def test_other_embedder_fingerprint_is_stale_with_the_fix(indexed: Path) -> None:
    result = check(indexed, embedder=HashEmbedder(dimensions=32))
    assert cats(result) == [("medium", "stale")]
    finding = result.findings[0]
    assert "hash/feature-hash-v1/64" in finding.observation
    assert "hash/feature-hash-v1/32" in finding.observation
    assert "`ragstrata index" in finding.fix and "--rebuild" in finding.fix
    assert not result.has_blocking()


def test_other_splitter_settings_need_a_rebuild(indexed: Path) -> None:
    settings = HASH.model_copy(update={"index": IndexSettings(chunk_size=500)})
    result = check(indexed, settings)
    assert cats(result) == [("high", "schema")]
    assert "chunk_size" in result.findings[0].observation
    assert isinstance(blocking_error(result), IndexMismatchError)


def test_newer_schema_is_high(indexed: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(indexed / ".ragstrata" / "index.sqlite")
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    result = check(indexed)
    assert cats(result) == [("high", "schema")] and "--rebuild" in result.findings[0].fix


def test_same_fingerprint_other_dimension_is_high(indexed: Path) -> None:
    with Ragstrata(indexed, HASH, embedder=HashEmbedder()) as rs:
        manifest = rs.store.read_manifest()
        assert manifest is not None
        rs.store.write_manifest(replace(manifest, dimensions=99))
    result = check(indexed)
    assert cats(result) == [("high", "dimensions")]
    assert "99" in result.findings[0].observation and "64" in result.findings[0].observation


def test_pending_embeddings(repo: Path) -> None:
    with Ragstrata(repo, HASH, embedder=HashEmbedder()) as rs:
        rs.index(embed=False)
    result = check(repo)
    assert cats(result) == [("medium", "embeddings")]
    assert "dense search is off" in result.findings[0].observation
    with Ragstrata(repo, HASH, embedder=HashEmbedder()) as rs:
        pending = rs.store.pending_vectors(HashEmbedder().fingerprint, limit=1)
        vec = HashEmbedder().embed_documents([pending[0].text])[0]
        rs.store.put_vectors(HashEmbedder().fingerprint, [(pending[0].text_hash, vec)])
    assert cats(check(repo)) == [("low", "embeddings")]


def test_files_changed_on_disk_are_low_and_skipped_when_quick(indexed: Path) -> None:
    (indexed / "pkg" / "b.py").write_text("def other():\n    return 1\n", encoding="utf-8")
    result = check(indexed)
    assert (
        cats(result) == [("low", "stale")] and "1 files changed" in result.findings[0].observation
    )
    assert check(indexed, quick=True).findings == ()


def test_reachable_llm_costs_one_tiny_request(indexed: Path) -> None:
    runner = ScriptedRunner("ok")
    assert check(indexed, LLM, runner=runner).findings == ()
    assert runner.requests == [PING]
    assert len(PING.combined()) < 80
    quick = ScriptedRunner("ok")
    check(indexed, LLM, runner=quick, quick=True)
    assert quick.requests == []  # quick mode (before each question) sends nothing


def test_unreachable_llm_is_high(indexed: Path) -> None:
    down = ScriptedRunner(ProviderError("openai: connection failed (ConnectError)"))
    result = check(indexed, LLM, runner=down)
    assert cats(result) == [("high", "llm")]
    assert "not reachable" in result.findings[0].observation
    assert "connection failed" in result.findings[0].observation
    assert "RAGSTRATA_LLM_BASE_URL" in result.findings[0].fix
    error = blocking_error(result)
    assert isinstance(error, ProviderError) and str(error).startswith("cannot answer: openai model")


def test_rejected_key_is_high_and_points_at_the_key(indexed: Path) -> None:
    result = check(indexed, LLM, runner=ScriptedRunner(ProviderAuthError("HTTP 401 bad key")))
    assert cats(result) == [("high", "llm")]
    assert "RAGSTRATA_LLM_API_KEY" in result.findings[0].fix


def test_empty_llm_reply_is_medium(indexed: Path) -> None:
    assert cats(check(indexed, LLM, runner=ScriptedRunner("  "))) == [("medium", "llm")]


def test_llm_settings_that_cannot_build_a_runner_are_high(indexed: Path) -> None:
    broken = HASH.model_copy(update={"llm": LLMSettings(provider="openai", model="gpt-4o-mini")})
    result = check(indexed, broken)  # no base_url: the factory refuses
    assert cats(result) == [("high", "settings")]
    assert "base_url" in result.findings[0].observation
    assert isinstance(blocking_error(result), ConfigError)


@pytest.mark.parametrize(
    ("free", "expected"),
    [(5, [("high", "disk")]), (15, [("medium", "disk")]), (10**12, [])],
)
def test_disk_space_thresholds_are_injectable(
    indexed: Path, free: int, expected: list[Any]
) -> None:
    limits = DiskLimits(high_bytes=10, medium_bytes=20)
    result = check(indexed, disk_limits=limits, disk_usage=lambda _p: (10**12, 0, free))
    assert cats(result) == expected


def test_free_space_below_twice_the_index_is_medium(indexed: Path) -> None:
    result = check(indexed, disk_limits=DiskLimits(1, 2), disk_usage=lambda _p: (10**9, 0, 1000))
    assert (
        cats(result) == [("medium", "disk")] and "twice the index" in result.findings[0].observation
    )


def test_findings_sort_high_first_and_serialize(repo: Path) -> None:
    result = check(repo, disk_limits=DiskLimits(10, 20), disk_usage=lambda _p: (0, 0, 15))
    assert cats(result) == [("high", "index"), ("medium", "disk")]
    data = finding_to_dict(result.findings[0])
    assert set(data) == {"severity", "category", "observation", "fix"}
    assert data["severity"] == "high"


def test_facade_doctor_runs_the_checks(indexed: Path) -> None:
    with Ragstrata(indexed, HASH, embedder=HashEmbedder()) as rs:
        result = rs.doctor()
    assert isinstance(result, PreflightResult)
    assert all(f.category == "disk" for f in result.findings)  # this machine's disk may be full


# --------------------------------------------------------------------------- CLI


def cli(*args: str, cwd: Path | None = None, **env: str) -> CliResult:
    return run_cli(
        *args, cwd=cwd, clean_env=True, env={"RAGSTRATA_EMBEDDER_PROVIDER": "hash", **env}
    )


def test_cli_json_and_exit_codes(repo: Path) -> None:
    missing = cli("doctor", str(repo), "--json")
    assert missing.returncode == 2, missing.stderr
    data = json.loads(missing.stdout)
    assert data["blocking"] is True and "index" in data["checks"]
    assert data["findings"][0]["category"] == "index" and data["findings"][0]["fix"]
    table = cli("doctor", str(repo))
    assert table.returncode == 2 and "no index" in table.stdout and "blocking" in table.stdout
    assert cli("index", str(repo), "--json").returncode == 0
    ok = cli("doctor", str(repo), "--json")
    data = json.loads(ok.stdout)
    disk_only = all(f["category"] == "disk" for f in data["findings"])
    assert disk_only and (ok.returncode == 0) is (not data["blocking"])
    if not data["findings"]:
        assert "no findings" in cli("doctor", str(repo)).stdout


def test_cli_bad_settings_file_is_a_settings_finding(repo: Path) -> None:
    (repo / "ragstrata.toml").write_text("[index]\nchunk_size = -1\n", encoding="utf-8")
    out = cli("doctor", str(repo), "--json")
    assert out.returncode == 2
    data = json.loads(out.stdout)
    assert [(f["severity"], f["category"]) for f in data["findings"]] == [("high", "settings")]
    assert "chunk_size" in data["findings"][0]["observation"]


def test_cli_never_prints_the_api_key(indexed: Path) -> None:
    out = cli(
        "doctor", str(indexed), "--json",
        RAGSTRATA_LLM_PROVIDER="openai", RAGSTRATA_LLM_MODEL="gpt-4o-mini",
        RAGSTRATA_LLM_BASE_URL="http://127.0.0.1:9/v1", RAGSTRATA_LLM_API_KEY="sk-secret-123",
        RAGSTRATA_LLM_MAX_RETRIES="0", RAGSTRATA_LLM_TIMEOUT_S="2",
    )  # fmt: skip
    assert out.returncode == 2
    data = json.loads(out.stdout)
    assert ("high", "llm") in [(f["severity"], f["category"]) for f in data["findings"]]
    assert "sk-secret-123" not in out.stdout + out.stderr


def test_unsupported_store_url_is_a_settings_finding(repo: Path) -> None:
    settings = HASH.model_copy(update={"store": StoreSettings(url="mysql://db/x")})
    result = check(repo, settings)
    assert cats(result) == [("high", "settings")]
    assert "mysql" in result.findings[0].observation
