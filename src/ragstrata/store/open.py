"""Open the configured store for a repository.

``store.url`` empty: the embedded SQLite index under ``REPO/<index_dir_name>/``.
``store.url = "postgresql://user@host:5432/db"``: the repository in a shared PostgreSQL
database, keyed by :func:`repo_key_for` — the folder name plus a short hash of its resolved
path — unless the URL names the key itself with a ``repo`` query parameter
(``postgresql://host/db?repo=acme-backend``), which is how a team shares one index of a
repository checked out at different paths.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ragstrata.errors import ConfigError
from ragstrata.settings import Settings
from ragstrata.store.protocols import Store

__all__ = ["POSTGRES_SCHEMES", "open_store", "repo_key_for", "split_store_url"]

POSTGRES_SCHEMES = ("postgresql", "postgres")


def repo_key_for(repo: Path) -> str:
    """``<folder name>-<10 hex of the resolved path>``: stable for one checkout."""
    resolved = Path(repo).expanduser().resolve()
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", resolved.name or "root")[:80]
    digest = hashlib.sha256(str(resolved).encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{name}-{digest}"


def split_store_url(url: str) -> tuple[str, str | None]:
    """The connection URL without ragstrata's ``repo`` parameter, and that parameter.

    A URL that cannot be parsed at all (``postgres://u@[::1/db``) is a ``ConfigError``."""
    try:
        parts = urlsplit(url)  # an unclosed "[" raises here
    except ValueError as exc:
        from ragstrata.core.transport import redact_url

        raise ConfigError(f"store url {redact_url(url)!r} is invalid: {exc}") from None
    query = parse_qsl(parts.query, keep_blank_values=True)
    keys = [v for k, v in query if k == "repo"]
    rest = [(k, v) for k, v in query if k != "repo"]
    if keys and not keys[-1]:
        raise ConfigError(f"store url {url!r}: the repo parameter is empty")
    rebuilt = urlunsplit(parts._replace(query=urlencode(rest)))
    if url.split(":", 1)[1].startswith("//") and not rebuilt.split(":", 1)[1].startswith("//"):
        rebuilt = rebuilt.replace(":", "://", 1)  # postgresql:///db (a local socket) keeps "//"
    return rebuilt, (keys[-1] if keys else None)


def open_store(repo: Path, settings: Settings, *, create: bool = True) -> Store:
    """The embedded SQLite store unless ``store.url`` is set (see the module docstring)."""
    url = settings.store.url
    if url:
        scheme = url.split(":", 1)[0].lower()
        if scheme not in POSTGRES_SCHEMES:
            raise ConfigError(
                f"store url scheme {scheme!r} is not supported; valid: "
                f"{list(POSTGRES_SCHEMES)} (or leave store.url empty for the embedded index)"
            )
        from ragstrata.store.postgres import PostgresStore

        conninfo, key = split_store_url(url)
        return PostgresStore(conninfo, key or repo_key_for(repo), create=create)
    from ragstrata.store.sqlite import SQLiteStore

    return SQLiteStore.for_repo(repo, settings.store.index_dir_name, create=create)
