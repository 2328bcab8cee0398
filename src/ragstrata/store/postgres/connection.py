"""Connections of the PostgreSQL store: the pool, migrations once per database, the
repository's id (registered, with its partitions, on the first write), and the transaction
shapes (a read-only snapshot; a write holding the repository's writer lock, retried when
PostgreSQL picks it as a deadlock victim)."""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ragstrata.errors import ConfigError, IndexMissingError, StoreError
from ragstrata.store.analyzer import ANALYZER_VERSION
from ragstrata.store.postgres import schema

__all__ = [
    "CONNECT_TIMEOUT_S",
    "MAX_CONNECT_TIMEOUT_S",
    "RepoDatabase",
    "check_url",
    "connect_failure",
    "connect_timeout",
    "now",
    "server_name",
]

CONNECT_TIMEOUT_S = 5  # unless the URL says otherwise (?connect_timeout=N)
MAX_CONNECT_TIMEOUT_S = 120
"""How long one connection attempt may take before the store gives up (fail fast)."""

# the pool logs every failed attempt; ragstrata reports one line of its own instead
logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())
logging.getLogger("psycopg.pool").propagate = False

_RETRYABLE = ("40P01", "40001")  # deadlock_detected, serialization_failure
_migrated: set[str] = set()
_migrate_lock = threading.Lock()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0].strip() if text else type(exc).__name__


def check_url(url: str) -> None:
    """Refuse a URL psycopg cannot parse or that names no server (``ConfigError``)."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    if url.split(":", 1)[0].lower() in ("postgresql", "postgres"):
        parts = urlsplit(url)
        try:
            port = parts.port  # raises on a port that is not a number
        except ValueError:
            raise ConfigError(f"store url {_redacted(url)} has a bad port") from None
        if port is not None and not 0 < port < 65536:
            raise ConfigError(f"store url {_redacted(url)} has a bad port: {port}")
        if not parts.hostname and "host=" not in parts.query:
            raise ConfigError(
                f"store url {_redacted(url)} names no server: write "
                "postgresql://USER@HOST[:PORT]/DATABASE"
            )
    try:
        params = conninfo_to_dict(url)
    except psycopg.Error as exc:
        raise ConfigError(f"store url is not a valid PostgreSQL URL: {_first_line(exc)}") from None
    if not params.get("host") and not params.get("hostaddr"):
        raise ConfigError(
            f"store url {_redacted(url)} names no server: write "
            "postgresql://USER@HOST[:PORT]/DATABASE"
        )


def connect_timeout(url: str) -> int:
    """Seconds to wait for the server: the URL's own ``connect_timeout`` (1 to
    :data:`MAX_CONNECT_TIMEOUT_S`, as libpq reads it) else :data:`CONNECT_TIMEOUT_S`. A value
    that is no whole number is a ``ConfigError``."""
    from psycopg.conninfo import conninfo_to_dict

    raw = conninfo_to_dict(url).get("connect_timeout")
    if raw is None or str(raw).strip() == "":
        return CONNECT_TIMEOUT_S
    try:
        seconds = int(str(raw))
    except ValueError:
        raise ConfigError(
            f"store url {_redacted(url)}: connect_timeout must be whole seconds"
        ) from None
    return min(max(seconds, 1), MAX_CONNECT_TIMEOUT_S)


def _redacted(url: str) -> str:
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def connect_failure(url: str, exc: BaseException) -> StoreError | ConfigError:
    """One line for a failed connection: a bad option of the URL is the user's (exit 2), an
    unreachable or refusing server a system failure (exit 3)."""
    reason = _first_line(exc)
    if "invalid" in reason and "connection to server" not in reason:
        return ConfigError(f"store url {_redacted(url)} is invalid: {reason}")
    return StoreError(f"cannot connect to the PostgreSQL store at {server_name(url)}: {reason}")


def server_name(url: str) -> str:
    """``host:port/dbname`` of ``url`` (never the user or password), for messages."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(url)
    except Exception:
        return "?"
    host = params.get("host") or params.get("hostaddr") or "?"
    port = params.get("port") or "5432"
    return f"{host}:{port}/{params.get('dbname') or ''}"


def now() -> str:
    """ISO-8601 UTC with microseconds."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class RepoDatabase:
    """One repository (``repo_key``) in the database at ``url``: connections and transactions.

    ``on_analyzer_change(conn, repo_id)`` re-analyses the repository's rows when they were
    analyzed by another analyzer version (inside the writer lock).
    """

    def __init__(
        self,
        url: str,
        repo_key: str,
        *,
        create: bool,
        pool: Any | None,
        max_connections: int,
        on_analyzer_change: Callable[[Any, int], None],
    ) -> None:
        self.url = url
        self.repo_key = repo_key
        self.create = create
        self.max_connections = max_connections
        self.on_analyzer_change = on_analyzer_change
        self._pool = pool
        self._own_pool = pool is None
        self._repo_id: int | None = None
        self._lock = threading.RLock()

    @staticmethod
    def make_pool(url: str, max_size: int = 4) -> Any:
        """An open connection pool (autocommit connections) for ``url``.

        A malformed URL raises ``ConfigError``; a server that does not answer within
        :func:`connect_timeout` raises ``StoreError`` (one line, no password)."""
        import psycopg
        from psycopg_pool import ConnectionPool

        check_url(url)
        wait = connect_timeout(url)
        try:  # one probe first: the pool would retry in the background for its whole timeout
            psycopg.connect(url, connect_timeout=wait).close()
        except psycopg.Error as exc:
            raise connect_failure(url, exc) from None

        def configure(conn: Any) -> None:
            conn.autocommit = True
            conn.prepare_threshold = None  # see _conn

        pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            kwargs={"connect_timeout": wait},
            configure=configure,
            open=False,
            timeout=60,
        )
        try:
            pool.open(wait=True, timeout=4 * wait)
        except Exception as exc:
            pool.close()
            raise connect_failure(url, exc) from None
        return pool

    def get_pool(self) -> Any:
        with self._lock:
            if self._pool is None:
                self._pool = self.make_pool(self.url, self.max_connections)
                self._own_pool = True
            return self._pool

    @contextmanager
    def conn(self) -> Iterator[Any]:
        import psycopg

        pool = self.get_pool()
        try:
            with pool.connection() as conn:
                conn.autocommit = True
                # no server-side prepared statements: a generic plan of a partitioned table
                # locks EVERY partition (PostgreSQL <= 15), so writers of one repository
                # would block (and deadlock with) index builds of the others; custom plans
                # prune to the repository's partitions at plan time
                conn.prepare_threshold = None
                self._ensure_migrated(conn)
                yield conn
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL store {self.repo_key!r} failed: {exc}") from exc

    def _ensure_migrated(self, conn: Any) -> None:
        with _migrate_lock:
            if self.url not in _migrated:
                schema.migrate(conn)
                _migrated.add(self.url)

    def migrate(self) -> int:
        """Apply pending schema migrations now (idempotent); returns the schema version."""
        with self.conn() as conn:
            return schema.migrate(conn)

    @contextmanager
    def read(self) -> Iterator[tuple[Any, int | None]]:
        """A consistent read-only snapshot and the repository id (None: not created yet)."""
        with self.conn() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            schema.lock_parents(conn, "ACCESS SHARE")
            yield conn, self.lookup_repo(conn)

    def transact(self, body: Callable[[Any, int], Any]) -> Any:
        """Run ``body(conn, repo_id)`` in one write transaction (retried, see :meth:`_retry`)."""

        def once() -> Any:
            with self.write() as (conn, repo_id):
                return body(conn, repo_id)

        return self.retry(once)

    @staticmethod
    def retry(fn: Callable[[], Any]) -> Any:
        """``fn()``, again (up to 4 more times, short random backoff) when PostgreSQL chose
        its transaction as a deadlock victim or it failed to serialize: partition DDL of
        other repositories (created or dropped meanwhile) can cross its locks."""
        for attempt in range(5):
            try:
                return fn()
            except StoreError as exc:
                code = getattr(exc.__cause__, "sqlstate", None)
                if code not in _RETRYABLE or attempt == 4:
                    raise
                time.sleep(0.05 * 2**attempt * (1 + random.random()))
        raise AssertionError("unreachable")

    @contextmanager
    def write(self) -> Iterator[tuple[Any, int]]:
        """One write transaction holding the repository's writer lock."""
        with self.conn() as conn:
            repo_id = self.repo(conn)
            with conn.transaction():
                schema.lock_parents(conn, "ROW EXCLUSIVE")
                conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (0x5253, repo_id))
                yield conn, repo_id
                conn.execute(
                    "UPDATE rs_repos SET updated_at = %s WHERE repo_id = %s", (now(), repo_id)
                )

    def lookup_repo(self, conn: Any) -> int | None:
        if self._repo_id is not None:
            return self._repo_id
        found = conn.execute(
            "SELECT repo_id FROM rs_repos WHERE repo_key = %s", (self.repo_key,)
        ).fetchone()
        if found is None and not self.create:
            raise IndexMissingError(
                f"no index for repository {self.repo_key!r} in the PostgreSQL store; "
                "run `ragstrata index` first"
            )
        if found is not None:
            self._repo_id = int(found[0])
        return self._repo_id

    def repo(self, conn: Any) -> int:
        """The repository id, registering it (and creating its partitions) when new."""
        repo_id = self.lookup_repo(conn)
        if repo_id is None:
            with conn.transaction():
                row = conn.execute(
                    "INSERT INTO rs_repos (repo_key, analyzer) VALUES (%s, %s) "
                    "ON CONFLICT (repo_key) DO UPDATE SET repo_key = EXCLUDED.repo_key "
                    "RETURNING repo_id",
                    (self.repo_key, ANALYZER_VERSION),
                ).fetchone()
                repo_id = int(row[0])
                schema.create_partitions(conn, repo_id)
            self._repo_id = repo_id
        self._check_analyzer(conn, repo_id)
        return repo_id

    def _check_analyzer(self, conn: Any, repo_id: int) -> None:
        found = conn.execute(
            "SELECT analyzer FROM rs_repos WHERE repo_id = %s", (repo_id,)
        ).fetchone()
        if found is not None and found[0] != ANALYZER_VERSION:
            with conn.transaction():
                schema.lock_parents(conn, "ROW EXCLUSIVE")
                conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (0x5253, repo_id))
                self.on_analyzer_change(conn, repo_id)

    def close(self) -> None:
        """Close the pool this object opened (a shared ``pool`` is left open)."""
        with self._lock:
            if self._pool is not None and self._own_pool:
                self._pool.close()
                self._pool = None
            self._repo_id = None

    def drop(self) -> bool:
        """Delete this repository (its partitions and manifest); others are untouched."""

        def once() -> bool:
            with self.conn() as conn, conn.transaction():
                found = conn.execute(
                    "SELECT repo_id FROM rs_repos WHERE repo_key = %s FOR UPDATE",
                    (self.repo_key,),
                ).fetchone()
                if found is None:
                    return False
                schema.drop_partitions(conn, int(found[0]))
                conn.execute("DELETE FROM rs_repos WHERE repo_id = %s", (found[0],))
            return True

        dropped = bool(self.retry(once))
        self._repo_id = None
        return dropped

    @staticmethod
    def repositories(url: str) -> list[str]:
        """Repository keys stored in the database at ``url``."""
        import psycopg

        check_url(url)
        with psycopg.connect(url, connect_timeout=connect_timeout(url)) as conn:
            exists = conn.execute("SELECT to_regclass('rs_repos') IS NOT NULL").fetchone()
            if not exists or not exists[0]:
                return []
            return [r[0] for r in conn.execute("SELECT repo_key FROM rs_repos ORDER BY 1")]
