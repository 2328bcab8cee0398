"""One typed settings object, built at the edge and passed down.

Precedence (lowest first): built-in defaults < the user's config file
(``$XDG_CONFIG_HOME/ragstrata/config.toml``, else ``~/.config/ragstrata/config.toml``) < the
repository's ``ragstrata.toml`` (or ``[tool.ragstrata]`` in ``pyproject.toml``) <
``RAGSTRATA_*`` environment variables < CLI flags. Library code never reads ``os.environ``: the
CLI passes the environment in.

The repository is untrusted input. Its file may set only what is about the repository
(:data:`REPOSITORY_KEYS`: include/exclude globs, chunking, file size limit, symlinks, glossary
and cue files inside it); a key that decides where data goes or which credential is used
(providers, ``base_url``, ``api_key_env``, the store URL, the index folder, ...) is refused with
a one-line error naming the key and the file, unless the user passes ``trust_repo_config``
(``--trust-repo-config``). Unknown keys, in a file or as ``RAGSTRATA_*`` variables, are errors.

Environment variables map onto sections with one underscore after the section name, e.g.
``RAGSTRATA_LLM_MODEL`` -> ``llm.model``, ``RAGSTRATA_INDEX_MAX_FILE_BYTES`` ->
``index.max_file_bytes``. Every numeric setting has bounds, checked wherever it comes from.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from ragstrata.errors import ConfigError
from ragstrata.text.regular_file import read_regular_text

__all__ = [
    "REPOSITORY_KEYS",
    "EmbedderSettings",
    "IndexSettings",
    "LLMSettings",
    "RouterSettings",
    "Settings",
    "StoreSettings",
    "load_settings",
    "user_config_path",
]


_ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]{0,127}$"
_FOLDER_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


MAX_FILE_BYTES = 64 * 1024 * 1024
"""Upper bound of ``index.max_file_bytes`` (the walker reads a whole file into memory)."""


class IndexSettings(_Section):
    """What the walker reads and how files are cut into chunks."""

    max_file_bytes: int = Field(default=1_048_576, gt=0, le=MAX_FILE_BYTES)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    chunk_size: int = Field(default=1200, ge=16, le=100_000)
    chunk_overlap: int = Field(default=150, ge=0)
    follow_symlinks: bool = True

    @model_validator(mode="after")
    def _overlap_is_bounded(self) -> IndexSettings:
        # An overlap near the chunk size makes every step tiny: a 110 KB file became 18,000
        # chunks. At most half a chunk keeps the amplification under 2x.
        if self.chunk_overlap > self.chunk_size // 2:
            raise ValueError(
                f"chunk_overlap ({self.chunk_overlap}) must be at most half of chunk_size "
                f"({self.chunk_size}), i.e. <= {self.chunk_size // 2}"
            )
        return self


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
    api_key_env: str = Field(default="RAGSTRATA_LLM_API_KEY", pattern=_ENV_NAME)
    api_key: SecretStr | None = None
    timeout_s: float = Field(default=60.0, gt=0, le=3600)
    max_retries: int = Field(default=4, ge=0, le=20)
    requests_per_s: float | None = Field(default=None, gt=0, le=10_000)
    temperature: float = Field(default=0.0, ge=0, le=2)
    combine_prompts: bool = False  # for servers that cannot separate system and user prompts
    price_file: Path | None = None  # extra USD-per-1M-token prices (TOML)


class EmbedderSettings(_Section):
    """The embedding model; the packaged local model by default."""

    provider: Literal["local", "openai", "ollama", "hash"] = "local"
    model: str = "all-MiniLM-L6-v2-int8"
    base_url: str | None = None
    api_key_env: str = Field(default="RAGSTRATA_EMBEDDER_API_KEY", pattern=_ENV_NAME)
    api_key: SecretStr | None = None
    dimensions: int = Field(default=0, ge=0, le=65_536)
    batch_size: int = Field(default=32, gt=0, le=4096)
    document_template: str = Field(default="", max_length=1000)
    query_template: str = Field(default="", max_length=1000)
    timeout_s: float = Field(default=60.0, gt=0, le=3600)
    max_retries: int = Field(default=4, ge=0, le=20)
    requests_per_s: float | None = Field(default=None, gt=0, le=10_000)
    integer_kernels: bool = True  # local model: run its int8 weights on integer kernels
    # where the local model's rewritten graph is cached (default: $XDG_CACHE_HOME/ragstrata/models,
    # else ~/.cache/ragstrata/models; set from the environment at the edge, never by a repository)
    cache_dir: Path | None = None
    query_adapter: bool = True  # packaged MiniLM: map query vectors toward code (embed/adapter.py)


class StoreSettings(_Section):
    """Where the index lives: SQLite under PATH/.ragstrata by default, or a server URL."""

    url: str | None = None
    index_dir_name: str = ".ragstrata"

    @field_validator("index_dir_name")
    @classmethod
    def _one_folder_name(cls, value: str) -> str:
        # The index folder lives directly inside the repository: "../x" or "/tmp/x" would
        # write outside it.
        if not _FOLDER_NAME.fullmatch(value) or value in {".", ".."}:
            raise ValueError(
                f"{value!r} is not a single folder name (letters, digits, '.', '_', '-'; "
                "no '/', no '..')"
            )
        return value


class Settings(_Section):
    """Everything configurable, in one frozen object."""

    index: IndexSettings = IndexSettings()
    router: RouterSettings = RouterSettings()
    llm: LLMSettings = LLMSettings()
    embedder: EmbedderSettings = EmbedderSettings()
    store: StoreSettings = StoreSettings()


_SECTIONS = tuple(Settings.model_fields)

REPOSITORY_KEYS: Mapping[str, frozenset[str]] = {
    "index": frozenset(
        {"include", "exclude", "chunk_size", "chunk_overlap", "max_file_bytes", "follow_symlinks"}
    ),
    "router": frozenset({"glossary_files", "cue_files"}),
}
"""What a repository's own settings file may set: keys about that repository only."""

_PATH_KEYS = {"router": ("glossary_files", "cue_files")}
_OTHER_ENV_NAMES = frozenset({"RAGSTRATA_API_TOKEN"})  # `serve --token-env` default


def model_cache_dir(env: Mapping[str, str]) -> Path:
    """``$XDG_CACHE_HOME/ragstrata/models`` (an absolute value only), else
    ``~/.cache/ragstrata/models`` (under ``$HOME`` when given)."""
    base = env.get("XDG_CACHE_HOME", "")
    if base and Path(base).is_absolute():
        return Path(base) / "ragstrata" / "models"
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    return home / ".cache" / "ragstrata" / "models"


def user_config_path(env: Mapping[str, str]) -> Path | None:
    """The user's config file: ``$XDG_CONFIG_HOME/ragstrata/config.toml``, else under ``$HOME``."""
    base = env.get("XDG_CONFIG_HOME", "")
    if base and Path(base).is_absolute():  # XDG: a relative value is ignored
        return Path(base) / "ragstrata" / "config.toml"
    home = env.get("HOME")
    return Path(home) / ".config" / "ragstrata" / "config.toml" if home else None


def _read_repo_config(folder: Path) -> tuple[dict[str, Any], Path | None]:
    own = folder / "ragstrata.toml"
    if own.exists():  # a pipe or folder here is an error, never silently skipped
        return _load_toml(own), own
    pyproject = folder / "pyproject.toml"
    if pyproject.exists():
        data = _load_toml(pyproject).get("tool", {}).get("ragstrata")
        if isinstance(data, dict):
            return data, pyproject
    return {}, None


def _load_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(read_regular_text(path, "settings file"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"cannot read settings file {path}: {exc}") from None


def _fields(section: str) -> set[str]:
    annotation = Settings.model_fields[section].annotation
    assert isinstance(annotation, type) and issubclass(annotation, BaseModel)
    return set(annotation.model_fields)


def _suggest(word: str, valid: Iterable[str]) -> str:
    near = difflib.get_close_matches(word, sorted(valid), n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def _check_known(data: Mapping[str, Any], path: Path) -> None:
    """Unknown sections and keys in a settings file are errors naming the file."""
    for section, part in data.items():
        if section not in _SECTIONS:
            raise ConfigError(
                f"{path}: unknown section [{section}]{_suggest(section, _SECTIONS)}; "
                f"valid: {', '.join(_SECTIONS)}"
            )
        if not isinstance(part, dict):
            raise ConfigError(f"{path}: [{section}] must be a table of settings")
        for key in part:
            if key not in _fields(section):
                raise ConfigError(
                    f"{path}: unknown setting {section}.{key}{_suggest(key, _fields(section))}"
                )


def _paths_from(part: dict[str, Any], section: str, base: Path) -> dict[str, Any]:
    """Relative file paths in a settings file are relative to the file's own folder."""
    out = dict(part)
    for key in _PATH_KEYS.get(section, ()):
        if isinstance(out.get(key), list | tuple):
            out[key] = [str(base / Path(str(p)).expanduser()) for p in out[key]]
    return out


def _repo_data(
    data: dict[str, Any], path: Path, folder: Path, trusted: bool, env: Mapping[str, str]
) -> dict[str, Any]:
    """The repository file's settings, refused or confined unless the user trusts it."""
    _check_known(data, path)
    refused = [
        f"{section}.{key}"
        for section, part in data.items()
        for key in part
        if key not in REPOSITORY_KEYS.get(section, frozenset())
    ]
    if refused and not trusted:
        where = user_config_path(env) or "~/.config/ragstrata/config.toml"
        raise ConfigError(
            f"{path} sets {', '.join(refused)}, which a repository may not choose (only "
            f"{', '.join(f'{s}.{k}' for s in REPOSITORY_KEYS for k in sorted(REPOSITORY_KEYS[s]))});"
            f" set it in {where}, a RAGSTRATA_* variable or a flag, "
            "or pass --trust-repo-config"
        )
    out = {s: _paths_from(part, s, folder) for s, part in data.items()}
    if not trusted:
        inside = folder.resolve()
        for section, keys in _PATH_KEYS.items():
            for key in keys:
                for entry in out.get(section, {}).get(key, ()):
                    if not Path(entry).resolve().is_relative_to(inside):
                        raise ConfigError(
                            f"{path}: {section}.{key} entry {entry!r} is outside the repository"
                        )
    return out


def _env_config(env: Mapping[str, str]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    out: dict[str, dict[str, Any]] = {}
    unknown: list[str] = []
    for key, value in env.items():
        if not key.startswith("RAGSTRATA_"):
            continue
        rest = key[len("RAGSTRATA_") :].lower()
        section, _, name = rest.partition("_")
        if section in _SECTIONS and name in _fields(section):
            out.setdefault(section, {})[name] = value
        else:
            unknown.append(key)
    return out, unknown


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _env_names() -> list[str]:
    return [f"RAGSTRATA_{s.upper()}_{k.upper()}" for s in _SECTIONS for k in sorted(_fields(s))]


def load_settings(
    folder: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    trust_repo_config: bool = False,
) -> Settings:
    """Build the settings from files, environment and overrides (see module docstring).

    ``folder`` is the repository (or working folder) whose ``ragstrata.toml`` /
    ``[tool.ragstrata]`` is read under the repository rules; the user's config file is found
    through ``env`` (``XDG_CONFIG_HOME`` / ``HOME``). API keys are read from the environment
    variable each section names (``api_key_env``) when ``api_key`` is not given, so a key never
    has to be written into a file.
    """
    env = env or {}
    folder = Path(folder) if folder is not None else None
    data: dict[str, Any] = {}
    sources: list[str] = []
    user_file = user_config_path(env)
    if user_file is not None and user_file.is_file():
        user_data = _load_toml(user_file)
        _check_known(user_data, user_file)
        data = {s: _paths_from(part, s, user_file.parent) for s, part in user_data.items()}
        sources.append(str(user_file))
    if folder is not None:
        file_data, path = _read_repo_config(folder)
        if path is not None:
            data = _merge(data, _repo_data(file_data, path, folder, trust_repo_config, env))
            sources.append(str(path))
    env_data, unknown_env = _env_config(env)
    data = _merge(data, env_data)
    if overrides:
        data = _merge(data, overrides)
    for section in ("llm", "embedder"):
        part = data.get(section, {})
        if isinstance(part, dict) and not part.get("api_key"):
            default_env = Settings.model_fields[section].default.api_key_env
            key = env.get(str(part.get("api_key_env", default_env)))
            if key:
                data = _merge(data, {section: {"api_key": key}})
    key_envs = {
        str(data.get(s, {}).get("api_key_env", Settings.model_fields[s].default.api_key_env))
        for s in ("llm", "embedder")
    }
    for name in unknown_env:
        if name not in key_envs and name not in _OTHER_ENV_NAMES:
            raise ConfigError(
                f"unknown environment variable {name}{_suggest(name, _env_names())}; "
                "RAGSTRATA_<SECTION>_<KEY> must name a setting"
            )
    embedder = data.get("embedder", {})
    if isinstance(embedder, dict) and not embedder.get("cache_dir"):
        data = _merge(data, {"embedder": {"cache_dir": model_cache_dir(env)}})
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        origin = ", ".join([*sources, "environment or flags"])
        raise ConfigError(f"invalid setting {where!r} (from {origin}): {err['msg']}") from None
