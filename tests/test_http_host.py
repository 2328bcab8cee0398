"""The ``Host`` check (Starlette's ``TrustedHostMiddleware``, refusing with the API's JSON error)
and the security headers, in-process over the real app."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from answer_fixture import write_repo
from ragstrata.app.facade import Ragstrata
from ragstrata.cli.serve_cmd import LOOPBACK_HOSTS
from ragstrata.http import create_app
from ragstrata.settings import EmbedderSettings, Settings

SETTINGS = Settings(embedder=EmbedderSettings(provider="hash", dimensions=64))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    rs = Ragstrata(write_repo(tmp_path_factory.mktemp("shop")), SETTINGS)
    return TestClient(create_app({"shop": rs}, allowed_hosts=LOOPBACK_HOSTS))


@pytest.mark.parametrize(
    "host", ["127.0.0.1:8765", "localhost", "LOCALHOST:1", "[::1]:8765", "[::1]"]
)
def test_loopback_hosts_pass(client: TestClient, host: str) -> None:
    response = client.get("/healthz", headers={"Host": host})
    assert response.status_code == 200, response.text
    assert "default-src 'self'" in response.headers["content-security-policy"]


@pytest.mark.parametrize(
    "host", ["evil.example:8765", "127.0.0.1.evil.example", "[::2]:8765", "[zz]:1", ""]
)
def test_other_hosts_get_bad_host_json(client: TestClient, host: str) -> None:
    response = client.get("/v1/status", headers={"Host": host})
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert error["code"] == "bad_host" and repr(host) in error["message"]
    assert response.headers["x-frame-options"] == "DENY"


def test_app_errors_pass_the_host_check_untouched(client: TestClient) -> None:
    response = client.get("/v1/jobs/nope", headers={"Host": "localhost"})
    assert response.status_code == 404 and response.json()["error"]["code"] == "unknown_job"
