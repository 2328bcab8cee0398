"""schemathesis against the app's OpenAPI document, over a real uvicorn server: no 500s.

Bounded: a few dozen generated requests per operation (valid and invalid bodies, odd unicode,
huge numbers, unknown fields), against two repositories, one indexed and one not.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragstrata.app.facade import Ragstrata
from ragstrata.http import create_app
from test_http_api import SETTINGS, LiveServer, indexed_repo

if os.environ.get("CI") == "true":
    import schemathesis  # CI installs the dev extra: a missing package is a failure
else:
    schemathesis = pytest.importorskip("schemathesis", reason="pip install schemathesis")
from schemathesis.checks import not_a_server_error

EXAMPLES = 20


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    pay = indexed_repo(tmp_path_factory.mktemp("st_pay"))
    empty: Path = tmp_path_factory.mktemp("st_empty")
    (empty / "notes.md").write_text("# Notes\n\nNothing here yet.\n", encoding="utf-8")
    app = create_app({"pay": pay, "empty": Ragstrata(empty, SETTINGS)}, max_body_bytes=8192)
    with LiveServer(app) as server:
        yield server


OPERATIONS = [
    "GET /healthz",
    "GET /v1/jobs/{job_id}",
    "GET /v1/outline",
    "GET /v1/source",
    "GET /v1/status",
    "POST /v1/ask",
    "POST /v1/definition",
    "POST /v1/index",
    "POST /v1/references",
    "POST /v1/route",
    "POST /v1/search",
]


@pytest.fixture(scope="module")
def api_schema(live: LiveServer) -> Any:
    return schemathesis.openapi.from_url(live.url + "/openapi.json")


def test_operation_list_is_complete(api_schema: Any) -> None:
    found = sorted(result.ok().label for result in api_schema.get_all_operations())
    assert found == OPERATIONS


CASES = [
    pytest.param(label, mode, id=f"{label}-{mode.value}")
    for label in OPERATIONS
    for mode in schemathesis.GenerationMode
    if not (label == "GET /healthz" and mode == schemathesis.GenerationMode.NEGATIVE)
]


def _served_repo(case: Any, repo: str | None) -> Any:
    """Point a generated case at a served repository, so valid bodies reach the facade
    instead of stopping at 404 unknown_repo."""
    if repo is None:
        return case
    if isinstance(case.body, dict):
        case.body["repo"] = repo
    if case.operation.label in ("GET /v1/outline", "GET /v1/source", "GET /v1/status"):
        case.query = {**(case.query or {}), "repo": repo}
    return case


@pytest.mark.parametrize(("label", "mode"), CASES)
def test_no_server_errors(api_schema: Any, label: str, mode: Any) -> None:
    operation = api_schema.find_operation_by_label(label)
    assert operation is not None, label
    repos = st.sampled_from([None, "pay", "empty"])

    @given(case=operation.as_strategy(generation_mode=mode), repo=repos)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def run(case: Any, repo: str | None) -> None:
        if mode == schemathesis.GenerationMode.POSITIVE:
            case = _served_repo(case, repo)
        case.call_and_validate(checks=[not_a_server_error], timeout=20)

    run()
