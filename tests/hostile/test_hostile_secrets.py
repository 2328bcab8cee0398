"""Issue 14 item 2: secrets are recognised by content and never searchable.

The fixture (``secret_fixture``) hides 27 kinds of fake secrets in files whose names say
nothing (``deploy_key``, a service-account JSON, ``settings_prod.py``, a PEM block in Markdown,
a ``.env``). After ``ragstrata index``: no stored row holds any of them; CLI ``search`` /
``ask``, HTTP ``/v1/search`` ``/v1/ask`` ``/v1/source`` and MCP return none of them even when
asked for the secret itself; the rest of each file stays searchable; the index report and
``status`` count the redactions (and never print a secret).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hostile.hostile_util import clean_env, mcp_calls, run_cli
from hostile.secret_fixture import PLAIN_WORDS, SECRETS, write_secret_repo
from ragstrata.app.facade import Ragstrata
from ragstrata.http import create_app
from ragstrata.ingest.secrets import redact_text
from ragstrata.settings import load_settings
from ragstrata.store.scan import rows_by_path
from test_http_api import LiveServer

pytestmark = pytest.mark.slow  # end-to-end runs: processes, servers, whole indexes

SECRET_FILES = (
    "deploy_key",
    "keys/backup.txt",
    "config/shop-prod-sa.json",
    "settings_prod.py",
    "docs/setup.md",
    ".env.production",
)


def _pieces(secret: str) -> list[str]:
    """The secret and each of its lines (a PEM body line alone is still the key)."""
    lines = [ln for ln in secret.split("\n") if len(ln) >= 12 and "-----" not in ln]
    return [secret, *lines]


ALL_PIECES = sorted({p for s in SECRETS.values() for p in _pieces(s)})


def _evidence(data: dict[str, object]) -> str:
    """What came from the index: hits and answer, without the plan and the hits' ranking
    reasons, which only echo the caller's own query."""
    kept = {k: v for k, v in data.items() if k != "plan"}
    hits = kept.get("hits")
    if isinstance(hits, list):
        kept["hits"] = [{k: v for k, v in h.items() if k != "reasons"} for h in hits]
    return json.dumps(kept, ensure_ascii=False)


def _leaks(text: str) -> list[str]:
    # JSON output escapes "/" and "\n" differently; compare on both forms.
    forms = (text, text.replace("\\/", "/"), json.dumps(text))
    return [p for p in ALL_PIECES if any(p in f for f in forms)]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = write_secret_repo(tmp_path_factory.mktemp("secrets") / "shop")
    yield root


@pytest.fixture(scope="module")
def indexed(repo: Path) -> dict[str, object]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGSTRATA_EMBEDDER_PROVIDER", "hash")
        from hostile.hostile_util import run_proc

        proc = run_proc("index", str(repo), "--json")
    assert proc.returncode == 0, proc.stderr
    assert not _leaks(proc.stdout + proc.stderr)
    report: dict[str, object] = json.loads(proc.stdout)
    return report


def test_fixture_has_at_least_20_kinds_in_the_files(repo: Path) -> None:
    assert len(SECRETS) >= 20
    on_disk = "".join((repo / f).read_text(encoding="utf-8") for f in SECRET_FILES)
    for kind, secret in SECRETS.items():
        assert any(p in on_disk or json.dumps(p)[1:-1] in on_disk for p in _pieces(secret)), kind


def test_no_stored_row_holds_a_secret(repo: Path, indexed: dict[str, object]) -> None:
    rs = Ragstrata(repo, load_settings(repo, env=clean_env()))
    rows = rows_by_path(rs.store)
    assert set(SECRET_FILES) - {".env.production"} <= set(rows)  # the walker skips .env files
    texts = [getattr(r, "text", "") or "" for rs_ in rows.values() for r in rs_]
    texts += [str(getattr(r, "docstring", "") or "") for rs_ in rows.values() for r in rs_]
    texts += [str(getattr(r, "signature", "") or "") for rs_ in rows.values() for r in rs_]
    leaked = {p[:12] for t in texts for p in _leaks(t)}
    assert leaked == set()
    rs.close()


def test_report_and_status_count_redactions(repo: Path, indexed: dict[str, object]) -> None:
    secrets = indexed["secrets"]
    assert isinstance(secrets, dict) and secrets["redacted"] >= len(SECRETS)
    assert "private-key" in secrets["by_kind"] and "aws-access-key" in secrets["by_kind"]
    code, out, err = run_cli("status", str(repo), "--json")
    assert code == 0, err
    assert json.loads(out)["secrets"] == secrets
    code, out, _ = run_cli("status", str(repo))
    assert "secrets redacted" in out and not _leaks(out)


def test_cli_search_and_ask_return_no_secret(
    repo: Path, indexed: dict[str, object], tmp_path: Path
) -> None:
    queries = [s.split("\n")[1] if "\n" in s else s for s in SECRETS.values()]
    queries += ["private key", "AWS secret access key", "stripe secret", "password"]
    code, out, err = run_cli("search", queries[0], "--repo", str(repo), "--json")
    assert code == 0, err
    assert not _leaks(_evidence(json.loads(out))), queries[0]
    # the rest through one `search --batch` (the index and the model load once)
    batch = tmp_path / "queries.jsonl"
    batch.write_text(
        "".join(json.dumps({"qid": str(i), "query": q}) + "\n" for i, q in enumerate(queries)),
        encoding="utf-8",
    )
    code, out, err = run_cli("search", "--batch", str(batch), "--repo", str(repo))
    assert code == 0, err
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a["qid"] for a in answers] == [str(i) for i in range(len(queries))]
    for answer, query in zip(answers, queries, strict=True):
        assert "error" not in answer and not _leaks(_evidence(answer)), query
    for question in ("what is the AWS secret key?", "какой пароль у базы данных?"):
        code, out, err = run_cli("ask", question, "--repo", str(repo), "--json")
        assert code == 0, err
        assert not _leaks(out + err), question


def test_the_rest_of_each_file_stays_searchable(repo: Path, indexed: dict[str, object]) -> None:
    for path, word in PLAIN_WORDS.items():
        code, out, err = run_cli("search", word, "--repo", str(repo), "--json")
        assert code == 0, err
        assert path in [h["path"] for h in json.loads(out)["hits"]], word


def test_http_search_ask_source_return_no_secret(repo: Path, indexed: dict[str, object]) -> None:
    rs = Ragstrata(repo, load_settings(repo, env=clean_env()))
    with LiveServer(create_app({"shop": rs})) as server, httpx.Client(timeout=60) as client:
        for query in ("private key", SECRETS["aws_access_key_id"], SECRETS["jwt"], "password"):
            for route in ("/v1/search", "/v1/ask"):
                reply = client.post(server.url + route, json={"query": query})
                assert reply.status_code == 200, reply.text
                assert not _leaks(_evidence(reply.json())), (route, query)
        for path in SECRET_FILES[:-1]:  # .env.production is not indexed, so not served
            reply = client.get(
                server.url + "/v1/source", params={"path": path, "start": 1, "end": 400}
            )
            assert reply.status_code == 200, reply.text
            body = reply.json()
            assert not _leaks(reply.text), path
            assert "[REDACTED:" in body["text"]
            on_disk = (repo / path).read_text(encoding="utf-8")
            assert body["end_line"] == on_disk.count("\n")  # lines kept: citations still match
    rs.close()


def test_mcp_returns_no_secret(repo: Path, indexed: dict[str, object]) -> None:
    calls: list[tuple[str, dict[str, object]]] = [
        ("search_code", {"query": SECRETS["github_pat_classic"]}),
        ("search_code", {"query": "private key"}),
        ("ask", {"query": "what is the stripe secret?"}),
        ("get_definition", {"symbol": "configure_payments"}),
    ]
    results = mcp_calls(repo, calls)
    for (tool, _), result in zip(calls, results, strict=True):
        assert not result.get("isError"), (tool, result)
        structured = result.get("structuredContent")
        assert isinstance(structured, dict)
        assert not _leaks(_evidence(structured)), tool
        if tool != "search_code":  # its text repeats the plan, which echoes the query
            assert not _leaks(json.dumps(result.get("content"))), tool


def test_redaction_keeps_lines_and_is_idempotent() -> None:
    text = f'A = "{SECRETS["stripe_live_secret"]}"\n\n{SECRETS["rsa_private_key"]}\nB = 1\n'
    once, found = redact_text(text, "x.py")
    assert once.count("\n") == text.count("\n") and found.count == 2
    assert redact_text(once, "x.py")[1].count == 0
    assert once.endswith("B = 1\n")
