"""One typed settings object, built at the edge and passed down.

Precedence (lowest first): built-in defaults < ``ragstrata.toml`` (or ``[tool.ragstrata]`` in
``pyproject.toml``) in the repository or working folder < ``RAGSTRATA_*`` environment variables
< CLI flags. Library code never reads ``os.environ``: the CLI passes the environment in.

Environment variables map onto sections with one underscore after the section name, e.g.
``RAGSTRATA_LLM_MODEL`` -> ``llm.model``, ``RAGSTRATA_INDEX_MAX_FILE_BYTES`` ->
``index.max_file_bytes``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from ragstrata.errors import ConfigError

__all__ = [
    "EmbedderSettings",
    "IndexSettings",
    "LLMSettings",
    "RouterSettings",
    "Settings",
    "StoreSettings",
    "load_settings",
]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class IndexSettings(_Section):
    """What the walker reads and how files are cut into chunks."""

    max_file_bytes: int = Field(default=1_048_576, gt=0)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    chunk_size: int = Field(default=1200, gt=0)
    chunk_overlap: int = Field(default=150, ge=0)
    follow_symlinks: bool = True


class RouterSettings(_Section):
    """Extra data files users add to the router without code."""

    glossary_files: tuple[Path, ...] = ()
    cue_files: tuple[Path, ...] = ()
    classifier: Literal["none", "llm"] = "none"  # "llm": a model decides low-confidence cases
    decomposer: Literal["rule", "llm", "composite"] = "rule"
    paraphrasers: tuple[str, ...] = ("keywords", "identifiers", "ru_en_terms")


class LLMSettings(_Section):
    """A chat model; none by default (answers are extractive)."""

    provider: Literal["none", "openai", "ollama"] = "none"
    base_url: str | None = None
    model: str | None = None
    api_key_env: str = "RAGSTRATA_LLM_API_KEY"
    api_key: SecretStr | None = None
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=4, ge=0)
    requests_per_s: float | None = Field(default=None, gt=0)
    temperature: float = Field(default=0.0, ge=0, le=2)
    combine_prompts: bool = False  # for servers that cannot separate system and user prompts
    price_file: Path | None = None  # extra USD-per-1M-token prices (TOML)


class EmbedderSettings(_Section):
    """The embedding model; the packaged local model by default."""

    provider: Literal["local", "openai", "ollama", "hash"] = "local"
    model: str = "all-MiniLM-L6-v2-int8"
    base_url: str | None = None
    api_key_env: str = "RAGSTRATA_EMBEDDER_API_KEY"
    api_key: SecretStr | None = None
    dimensions: int = Field(default=0, ge=0)
    batch_size: int = Field(default=32, gt=0)
    document_template: str = ""
    query_template: str = ""
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=4, ge=0)
    requests_per_s: float | None = Field(default=None, gt=0)


class StoreSettings(_Section):
    """Where the index lives: SQLite under PATH/.ragstrata by default, or a server URL."""

    url: str | None = None
    index_dir_name: str = ".ragstrata"


class Settings(_Section):
    """Everything configurable, in one frozen object."""

    index: IndexSettings = IndexSettings()
    router: RouterSettings = RouterSettings()
    llm: LLMSettings = LLMSettings()
    embedder: EmbedderSettings = EmbedderSettings()
    store: StoreSettings = StoreSettings()


_SECTIONS = tuple(Settings.model_fields)


def _read_file_config(folder: Path) -> tuple[dict[str, Any], Path | None]:
    own = folder / "ragstrata.toml"
    if own.is_file():
        return _load_toml(own), own
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file():
        data = _load_toml(pyproject).get("tool", {}).get("ragstrata")
        if isinstance(data, dict):
            return data, pyproject
    return {}, None


def _load_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read settings file {path}: {exc}") from None


def _env_config(env: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for key, value in env.items():
        if not key.startswith("RAGSTRATA_"):
            continue
        rest = key[len("RAGSTRATA_") :].lower()
        for section in _SECTIONS:
            prefix = section + "_"
            if rest.startswith(prefix) and rest[len(prefix) :] in _fields(section):
                out.setdefault(section, {})[rest[len(prefix) :]] = value
    return out


def _fields(section: str) -> set[str]:
    annotation = Settings.model_fields[section].annotation
    assert isinstance(annotation, type) and issubclass(annotation, BaseModel)
    return set(annotation.model_fields)


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_settings(
    folder: Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build the settings from file, environment and overrides (see module docstring).

    API keys are read from the environment variable each section names (``api_key_env``) when
    ``api_key`` is not given, so a key never has to be written into a file.
    """
    env = env or {}
    data: dict[str, Any] = {}
    source = "defaults"
    if folder is not None:
        file_data, path = _read_file_config(folder)
        data = _merge(data, file_data)
        if path is not None:
            source = str(path)
    data = _merge(data, _env_config(env))
    if overrides:
        data = _merge(data, overrides)
    for section in ("llm", "embedder"):
        part = data.get(section, {})
        if isinstance(part, dict) and not part.get("api_key"):
            default_env = Settings.model_fields[section].default.api_key_env
            key = env.get(str(part.get("api_key_env", default_env)))
            if key:
                data = _merge(data, {section: {"api_key": key}})
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ConfigError(
            f"invalid setting {where!r} (from {source} or environment): {err['msg']}"
        ) from None
