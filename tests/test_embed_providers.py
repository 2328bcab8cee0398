"""Remote embedders (OpenAI-compatible ``/v1/embeddings``, Ollama ``/api/embed``) against the
loopback provider servers of test_llm_providers.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import CONFORMANCE
from ragstrata.core.transport import HttpTransport
from ragstrata.embed.base import Embedder
from ragstrata.embed.factory import make_embedder
from ragstrata.embed.ollama import OllamaEmbedder
from ragstrata.embed.openai import OpenAIEmbedder
from ragstrata.errors import ConfigError, ProviderAuthError, ProviderError
from ragstrata.settings import EmbedderSettings, load_settings
from test_llm_providers import (
    KEY,
    ProviderServer,
    Reply,
    Sleeps,
    ollama_server,
    openai_server,
    transport,
    vector,
)

__all__ = ["ollama_server", "openai_server"]  # fixtures, re-exported for pytest

_DATA: dict[str, Any] = json.loads(
    (CONFORMANCE / "llm_summary_preflight_embedder.json").read_text(encoding="utf-8")
)
FINGERPRINTS: list[dict[str, Any]] = _DATA["embedder_fingerprint"]


def openai_embedder(
    server: ProviderServer, model: str = "test-model", **kwargs: Any
) -> OpenAIEmbedder:
    sleeps = kwargs.pop("sleeps", None)
    return OpenAIEmbedder(transport(server, model=model, sleeps=sleeps), **kwargs)


def ollama_embedder(
    server: ProviderServer, model: str = "all-minilm", **kwargs: Any
) -> OllamaEmbedder:
    return OllamaEmbedder(transport(server, "ollama", model, path="", key=None), **kwargs)


# -- wire format, batching, progress, templates ------------------------------------------------


def test_openai_batches_templates_and_progress(openai_server: ProviderServer) -> None:
    embedder = openai_embedder(
        openai_server,
        dimensions=4,
        batch_size=2,
        document_template="passage: {text}",
        query_template="query: {text}",
    )
    assert isinstance(embedder, Embedder)
    assert embedder.dimensions == 4 and embedder.batch_size == 2
    texts = ["alpha", "beta", "gamma", "delta", "epsilon"]
    progress: list[tuple[int, int]] = []
    vectors = embedder.embed_documents(texts, lambda done, total: progress.append((done, total)))
    assert progress == [(2, 5), (4, 5), (5, 5)]  # one call per HTTP request
    bodies = [r.body for r in openai_server.requests]
    assert [r.path for r in openai_server.requests] == ["/v1/embeddings"] * 3
    assert bodies[0] == {
        "model": "test-model",
        "input": ["passage: alpha", "passage: beta"],
        "encoding_format": "float",
        "dimensions": 4,
    }
    assert [b["input"] for b in bodies[1:]] == [
        ["passage: gamma", "passage: delta"],
        ["passage: epsilon"],
    ]
    assert openai_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    # the server returns data items in reverse order: the client sorts by index
    assert vectors == [vector(f"passage: {t}", 4) for t in texts]
    assert embedder.tokens_used == 10

    assert embedder.embed_queries(["where is X?"]) == [vector("query: where is X?", 4)]
    assert openai_server.requests[-1].body["input"] == ["query: where is X?"]
    assert embedder.embed_documents([]) == []
    assert len(openai_server.requests) == 4


def test_openai_without_dimensions_learns_them(openai_server: ProviderServer) -> None:
    embedder = openai_embedder(openai_server, model="text-embedding-3-small")
    assert isinstance(embedder, Embedder)  # the protocol check makes no request
    assert (embedder.dimensions, embedder.discovered_dimensions) == (0, 0)
    assert openai_server.requests == []
    assert embedder.probe_dimensions() == 8  # one probe request
    (probe,) = openai_server.requests
    assert "dimensions" not in probe.body
    assert len(embedder.embed_documents(["a", "b"])[0]) == 8
    assert embedder.probe_dimensions() == 8 and len(openai_server.requests) == 2
    # configured values only: neither changes once the length is known
    assert (embedder.dimensions, embedder.discovered_dimensions) == (0, 8)
    assert embedder.fingerprint == "openai/text-embedding-3-small"


def test_ollama_wire_format(ollama_server: ProviderServer) -> None:
    embedder = ollama_embedder(
        ollama_server, batch_size=3, document_template="search_document: {text}"
    )
    progress: list[tuple[int, int]] = []
    vectors = embedder.embed_documents(["a", "b", "c", "d"], lambda d, t: progress.append((d, t)))
    assert progress == [(3, 4), (4, 4)]
    first = ollama_server.requests[0]
    assert first.path == "/api/embed"
    assert first.body == {
        "model": "all-minilm",
        "input": ["search_document: a", "search_document: b", "search_document: c"],
    }
    assert vectors[3] == vector("search_document: d", 6)
    assert embedder.discovered_dimensions == 6 and embedder.tokens_used == 8
    embedder.embed_queries(["q"])
    assert ollama_server.requests[-1].body["input"] == ["q"]  # no query template set


# -- fingerprints (seed 003 conformance) ---------------------------------------------------------


@pytest.mark.parametrize(
    "case", [c for c in FINGERPRINTS if "expected" in c], ids=lambda c: str(c["id"])
)
def test_openai_embedder_fingerprint(openai_server: ProviderServer, case: dict[str, Any]) -> None:
    embedder = openai_embedder(
        openai_server,
        model=case["model"],
        dimensions=case["dimensions"],
        document_template=case["document_template"],
        query_template=case.get("query_template", ""),
    )
    assert embedder.fingerprint == case["expected"]


def test_ollama_fingerprint_uses_configured_dims_only(ollama_server: ProviderServer) -> None:
    """fp-07: the value must not drift after the first call learns the vector length."""
    (case,) = [c for c in FINGERPRINTS if c["id"] == "fp-07"]
    embedder = ollama_embedder(
        ollama_server, model=case["model"], dimensions=case["dimensions_config"]
    )
    assert embedder.fingerprint == case["before_first_call"]
    assert len(embedder.embed_documents(["x"])[0]) == 2  # the server returns 2 dims
    assert (embedder.dimensions, embedder.discovered_dimensions) == (0, 2)
    assert embedder.fingerprint == case["before_first_call"]
    assert embedder.fingerprint != case["after_first_call_returning_2_dims"]
    configured = ollama_embedder(ollama_server, model=case["model"], dimensions=2)
    assert configured.fingerprint == "ollama/nomic-embed-text/2"
    assert ollama_server.requests and "dimensions" not in ollama_server.requests[0].body
    configured.embed_documents(["x"])
    assert ollama_server.requests[-1].body["dimensions"] == 2


# -- validation and failures ---------------------------------------------------------------------


def test_dimension_mismatch_is_an_error(
    openai_server: ProviderServer, ollama_server: ProviderServer
) -> None:
    openai_server.script(
        "/v1/embeddings", Reply(body={"data": [{"index": 0, "embedding": [0.1, 0.2, 0.3]}]})
    )
    with pytest.raises(ProviderError) as info:
        openai_embedder(openai_server, dimensions=4).embed_documents(["a"])
    assert str(info.value) == (
        "openai: model 'test-model' returned a 3-dimensional vector, expected 4 "
        "(embedder.dimensions)"
    )
    # Ollama ignores `dimensions` on old servers: the full-length vectors are caught
    with pytest.raises(ProviderError, match="returned a 6-dimensional vector, expected 3"):
        ollama_embedder(ollama_server, dimensions=3).embed_queries(["q"])
    ollama_server.script("/api/embed", Reply(body={"embeddings": [[1.0, 2.0], [1.0]]}))
    with pytest.raises(ProviderError, match=r"1-dimensional vector, expected 2 .earlier replies"):
        ollama_embedder(ollama_server).embed_documents(["a", "b"])


def test_wrong_count_and_malformed_vectors(openai_server: ProviderServer) -> None:
    embedder = openai_embedder(openai_server, dimensions=4)
    openai_server.script(
        "/v1/embeddings",
        Reply(body={"data": [{"index": 0, "embedding": [1, 2, 3, 4]}]}),
        Reply(body={"data": [{"index": 0, "embedding": ["a", 2, 3, 4]}]}),
        Reply(body={"object": "list"}),
        Reply(200, "<html>gateway</html>"),
    )
    with pytest.raises(ProviderError, match="returned 1 vectors for 2 texts"):
        embedder.embed_documents(["a", "b"])
    with pytest.raises(ProviderError, match=r"malformed embeddings reply .*non-number"):
        embedder.embed_documents(["a"])
    with pytest.raises(ProviderError, match="no 'data' list"):
        embedder.embed_documents(["a"])
    with pytest.raises(ProviderError, match=r"openai: malformed JSON .*'test-model'"):
        embedder.embed_documents(["a"])


def test_failed_batch_returns_nothing_partial(openai_server: ProviderServer) -> None:
    """A batch that fails after retries raises; earlier batches were reported, none half-done."""
    sleeps = Sleeps()
    embedder = openai_embedder(openai_server, dimensions=4, batch_size=2, sleeps=sleeps)
    ok = openai_server.app(
        "/v1/embeddings",
        {"authorization": f"Bearer {KEY}"},
        {"model": "test-model", "input": ["a", "b"], "dimensions": 4},
    )
    openai_server.script("/v1/embeddings", ok, *[Reply(503, "overloaded")] * 4)
    progress: list[tuple[int, int]] = []
    with pytest.raises(ProviderError, match=r"failed after 4 attempt\(s\): last status 503"):
        embedder.embed_documents(["a", "b", "c"], lambda d, t: progress.append((d, t)))
    assert progress == [(2, 3)]
    assert len(sleeps) == 3


def test_embedding_retries_429_and_drop(openai_server: ProviderServer) -> None:
    sleeps = Sleeps()
    openai_server.script(
        "/v1/embeddings",
        Reply(429, {"error": {"message": "Rate limit"}}, {"Retry-After": "2"}),
        Reply(body={"data": []}, drop=True),
    )
    vectors = openai_embedder(openai_server, dimensions=4, sleeps=sleeps).embed_documents(["a"])
    assert vectors == [vector("a", 4)]
    assert sleeps == [2.0, 0.5]


def test_embedding_auth_and_unknown_model(
    openai_server: ProviderServer, ollama_server: ProviderServer
) -> None:
    bad = OpenAIEmbedder(transport(openai_server, model="test-model", key="sk-nope-1234567890"))
    with pytest.raises(
        ProviderAuthError, match=r"openai: the API key was rejected \(401\) for model 'test-model'"
    ) as info:
        bad.embed_documents(["a"])
    assert "sk-nope-1234567890" not in str(info.value)
    with pytest.raises(ProviderAuthError, match="openai: unknown model 'text-embedding-9'"):
        openai_embedder(openai_server, model="text-embedding-9").embed_queries(["a"])
    with pytest.raises(ProviderAuthError, match=r"ollama: unknown model 'mxbai' .*try pulling it"):
        ollama_embedder(ollama_server, model="mxbai").embed_documents(["a"])


def test_bad_construction() -> None:
    base = HttpTransport("openai", "http://127.0.0.1:9/v1", "m")
    with pytest.raises(ConfigError, match="document_template must contain"):
        OpenAIEmbedder(base, document_template="passage:")
    with pytest.raises(ConfigError, match="batch_size must be > 0"):
        OpenAIEmbedder(base, batch_size=0)
    with pytest.raises(ConfigError, match="dimensions must be >= 0"):
        OllamaEmbedder(base, dimensions=-1)


# -- factory and settings -------------------------------------------------------------------------


def test_factory_builds_remote_embedders(
    openai_server: ProviderServer, ollama_server: ProviderServer
) -> None:
    settings = load_settings(
        env={
            "RAGSTRATA_EMBEDDER_PROVIDER": "openai",
            "RAGSTRATA_EMBEDDER_BASE_URL": openai_server.root + "/v1",
            "RAGSTRATA_EMBEDDER_MODEL": "text-embedding-3-small",
            "RAGSTRATA_EMBEDDER_DIMENSIONS": "8",
            "RAGSTRATA_EMBEDDER_BATCH_SIZE": "16",
            "RAGSTRATA_EMBEDDER_API_KEY": KEY,
        }
    ).embedder
    embedder = make_embedder(settings)
    assert isinstance(embedder, OpenAIEmbedder)
    assert (embedder.fingerprint, embedder.batch_size) == ("openai/text-embedding-3-small/8", 16)
    assert KEY not in repr(embedder)
    assert embedder.embed_documents(["a"]) == [vector("a", 8)]
    ollama = make_embedder(
        EmbedderSettings(provider="ollama", base_url=ollama_server.root, model="nomic-embed-text")
    )
    assert isinstance(ollama, OllamaEmbedder)
    assert ollama.fingerprint == "ollama/nomic-embed-text"
    assert ollama.embed_queries(["q"]) == [vector("q", 2)]


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_factory_errors_name_setting_and_env(provider: str) -> None:
    with pytest.raises(ConfigError, match=r"embedder\.base_url .*RAGSTRATA_EMBEDDER_BASE_URL"):
        make_embedder(EmbedderSettings(provider=provider, model="m"))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"is a local model; .*RAGSTRATA_EMBEDDER_MODEL"):
        make_embedder(EmbedderSettings(provider=provider, base_url="http://x"))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"embedder\.model is not set"):
        make_embedder(EmbedderSettings(provider=provider, base_url="http://x", model=""))  # type: ignore[arg-type]
