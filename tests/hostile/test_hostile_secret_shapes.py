"""Issue 26 cause 7: five secret shapes that used to reach the index and every output.

A base64-encoded PEM in a Kubernetes Secret, a private key with no END line, a multi-line
``API_TOKEN = (⏎"…"⏎)`` assignment, secret-named query parameters in text, and a token in a file
*name*. Each is checked absent from the raw bytes of the index folder (SQLite file and side
files), CLI ``index``/``search``/``ask``, HTTP ``/v1/search`` ``/v1/ask`` ``/v1/source`` and MCP,
while the ordinary text around it stays searchable. Every value is made up and assembled at run
time, so this file holds no complete secret.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from hostile.hostile_util import clean_env, mcp_calls, run_proc, write_tree
from ragstrata.app.facade import Ragstrata
from ragstrata.http import create_app
from ragstrata.settings import load_settings
from test_http_api import LiveServer

pytestmark = pytest.mark.slow  # end-to-end runs: processes, servers, whole indexes

_rng = random.Random(26)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _pick(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _b64_lines(count: int) -> list[str]:
    return [
        base64.b64encode(bytes(_rng.randrange(256) for _ in range(48))).decode()
        for _ in range(count)
    ]


_PEM_BODY = _b64_lines(8)
_PEM = "-----BEGIN RSA PRIV" + "ATE KEY-----\n" + "\n".join(_PEM_BODY) + "\n-----END RSA PRIV"
_PEM += "ATE KEY-----\n"
K8S_VALUE = base64.b64encode(_PEM.encode()).decode()
OPEN_KEY_BODY = _b64_lines(6)
TOKEN_PIECES = ("tk_" + _pick(14), _pick(18))
QUERY_VALUES = (_pick(24), _pick(20), "Pw-" + _pick(15))
NAME_TOKEN = "gh" + "p_" + _pick(36)

SECRETS = {
    "k8s-base64-pem": [K8S_VALUE, K8S_VALUE[40:80], *_PEM_BODY],
    "private-key-without-end": OPEN_KEY_BODY,
    "parenthesised-assignment": [*TOKEN_PIECES, "".join(TOKEN_PIECES)],
    "query-parameters": list(QUERY_VALUES),
    "token-in-a-file-name": [NAME_TOKEN],
}
ALL = sorted({piece for pieces in SECRETS.values() for piece in pieces})
PLAIN = {
    "deploy/tls-secret.yaml": "ingress-gateway",
    "notes/old_key.txt": "rotated",
    "settings.py": "configure_billing",
    "docs/api.md": "Listing invoices",
}


def write_shapes_repo(root: Path) -> Path:
    return write_tree(
        root,
        {
            "deploy/tls-secret.yaml": (
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: ingress-gateway-tls\n"
                f"type: kubernetes.io/tls\ndata:\n  tls.key: {K8S_VALUE}\n"
            ),
            "notes/old_key.txt": (
                "The rotated key, kept for the old workers:\n"
                "-----BEGIN PRIV" + "ATE KEY-----\n" + "\n".join(OPEN_KEY_BODY) + "\n\n"
                "(the END line was lost when this was pasted)\n"
            ),
            "settings.py": (
                '"""Billing settings."""\n\n'
                f'API_TOKEN = (\n    "{TOKEN_PIECES[0]}"\n    "{TOKEN_PIECES[1]}"\n)\n\n\n'
                "def configure_billing(app):\n"
                '    """Attach the billing client."""\n'
                "    app.config['TOKEN'] = API_TOKEN\n"
                "    return app\n"
            ),
            "docs/api.md": (
                "# Listing invoices\n\nListing invoices takes one call:\n\n"
                f"    curl 'https://billing.example.com/v1/invoices?api_key={QUERY_VALUES[0]}'\n\n"
                f"Webhooks post to `https://hooks.example.com/in?id=7&token={QUERY_VALUES[1]}`; "
                f"the admin form sends `user=root&password={QUERY_VALUES[2]}`.\n"
            ),
            f"keys/{NAME_TOKEN}.txt": "quokka deployment token file\n",
            "README.md": "# Billing\n\nA billing service; see docs/api.md.\n",
        },
    )


def _leaks(text: str) -> list[str]:
    forms = (text, text.replace("\\/", "/"))
    return [p[:10] for p in ALL if any(p in f for f in forms)]


def _evidence(data: dict[str, object]) -> str:
    """What came from the index (not the plan or hit reasons, which echo the query)."""
    kept = {k: v for k, v in data.items() if k != "plan"}
    hits = kept.get("hits")
    if isinstance(hits, list):
        kept["hits"] = [{k: v for k, v in h.items() if k != "reasons"} for h in hits]
    return json.dumps(kept, ensure_ascii=False)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_shapes_repo(tmp_path_factory.mktemp("shapes") / "billing")
    done = run_proc("index", str(root), "--json")
    assert done.returncode == 0, done.stderr
    assert not _leaks(done.stdout + done.stderr)
    report = json.loads(done.stdout)
    assert report["secrets"]["redacted"] >= 6
    return root


def test_every_shape_is_in_the_fixture(tmp_path: Path) -> None:
    root = write_shapes_repo(tmp_path / "billing")
    on_disk = "".join(p.name + p.read_text("utf-8") for p in root.rglob("*") if p.is_file())
    for kind, pieces in SECRETS.items():
        # The PEM body is on disk only as base64, the token only in its two pieces.
        shown = {"k8s-base64-pem": pieces[:2], "parenthesised-assignment": TOKEN_PIECES}
        assert all(p in on_disk for p in shown.get(kind, pieces)), kind


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_no_shape_is_in_the_index_files(repo: Path, kind: str) -> None:
    raw = b"".join(p.read_bytes() for p in (repo / ".ragstrata").rglob("*") if p.is_file())
    for piece in SECRETS[kind]:
        assert piece.encode() not in raw, (kind, piece[:10])


def _batch_search(repo: Path, tmp_path: Path, queries: list[str]) -> list[dict[str, Any]]:
    """``ragstrata search --batch`` over ``queries`` in one fresh interpreter: a row per query,
    in order (what ``search --json`` finds for it)."""
    batch = tmp_path / "queries.jsonl"
    lines = [json.dumps({"qid": str(n), "query": q}) for n, q in enumerate(queries)]
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_proc("search", "--batch", str(batch), "--repo", str(repo))
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["qid"] for r in rows] == [str(n) for n in range(len(queries))], done.stdout[:300]
    assert all("hits" in r for r in rows), done.stdout[:300]
    return rows


def test_cli_search_and_ask_show_no_shape(repo: Path, tmp_path: Path) -> None:
    queries = [pieces[0] for pieces in SECRETS.values()]
    queries += ["tls.key private key", "API_TOKEN", "api_key invoices", "password admin form"]
    one = run_proc("search", queries[0], "--repo", str(repo), "--json")
    assert one.returncode == 0, one.stderr
    assert not _leaks(_evidence(json.loads(one.stdout))), queries[0]
    # the rest in one interpreter: `search --batch` prints what `search --json` finds
    for n, row in enumerate(_batch_search(repo, tmp_path, queries)):
        assert not _leaks(_evidence(row)), queries[n]
    for question in ("what is the API token?", "какой ключ у ingress-gateway?"):
        done = run_proc("ask", question, "--repo", str(repo))
        assert done.returncode == 0, done.stderr
        assert not _leaks(done.stdout + done.stderr), question


def test_the_rest_stays_searchable_and_the_named_file_is_skipped(
    repo: Path, tmp_path: Path
) -> None:
    queries = [*PLAIN.values(), "quokka deployment"]
    hits = [[h["path"] for h in row["hits"]] for row in _batch_search(repo, tmp_path, queries)]
    for n, (path, word) in enumerate(PLAIN.items()):
        assert path in hits[n], word
    assert not any(p.startswith("keys/") for p in hits[len(PLAIN)])


def test_http_and_mcp_show_no_shape(repo: Path) -> None:
    rs = Ragstrata(repo, load_settings(repo, env=clean_env()))
    with LiveServer(create_app({"billing": rs})) as server, httpx.Client(timeout=60) as client:
        for query in ("tls.key", "API_TOKEN", "api_key", "quokka deployment token"):
            for route in ("/v1/search", "/v1/ask"):
                reply = client.post(server.url + route, json={"query": query})
                assert reply.status_code == 200, reply.text
                assert not _leaks(_evidence(reply.json())), (route, query)
        for path in list(PLAIN):
            reply = client.get(server.url + "/v1/source", params={"path": path, "end": 400})
            assert reply.status_code == 200, reply.text
            assert not _leaks(reply.text) and "[REDACTED:" in reply.json()["text"], path
        status = client.get(server.url + "/v1/status")
        assert not _leaks(status.text)
    rs.close()
    calls: list[tuple[str, dict[str, object]]] = [
        ("search_code", {"query": "tls.key private key"}),
        ("ask", {"query": "what is the API token?"}),
        ("get_definition", {"symbol": "configure_billing"}),
        ("index_status", {}),
    ]
    for (tool, _), result in zip(calls, mcp_calls(repo, calls), strict=True):
        assert not result.get("isError"), (tool, result)
        structured = result.get("structuredContent")
        assert isinstance(structured, dict) and not _leaks(_evidence(structured)), tool
