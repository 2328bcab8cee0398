"""Connections of the SQLite store: one per thread, WAL mode, migrated once, and the two
transaction shapes every method uses (``BEGIN IMMEDIATE`` writes, ``BEGIN`` reads)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ragstrata.errors import IndexMissingError, StoreError

__all__ = ["Connections"]


class Connections:
    """Per-thread connections to the database at ``path``.

    ``create=False`` raises ``IndexMissingError`` instead of creating a missing file.
    ``on_first_open(conn)`` runs once per process-wide open (migrations).
    """

    def __init__(
        self,
        path: Path,
        *,
        create: bool,
        busy_timeout_s: float,
        on_first_open: Callable[[sqlite3.Connection], None],
    ) -> None:
        self.path = path
        self.create = create
        self.busy_timeout_s = busy_timeout_s
        self.on_first_open = on_first_open
        self.lock = threading.RLock()
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._opened = False

    def get(self) -> sqlite3.Connection:
        """This thread's connection (opened, and on first use migrated)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        if not self.path.exists():
            if not self.create:
                raise IndexMissingError(f"no index at {self.path}; run `ragstrata index` first")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.path.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("*\n", encoding="utf-8")
        try:
            conn = sqlite3.connect(
                self.path,
                timeout=self.busy_timeout_s,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open index {self.path}: {exc}") from exc
        with self.lock:
            try:
                if not self._opened:
                    self.on_first_open(conn)
                    self._opened = True
            except BaseException:
                conn.close()
                raise
            self._all.append(conn)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        """Close every connection opened so far; the next use opens again."""
        with self.lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
            self._local = threading.local()
            self._opened = False

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: committed, or rolled back on any error."""
        conn = self.get()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot start a write on {self.path}: {exc}") from exc
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"write to {self.path} failed: {exc}") from exc
            raise

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: a consistent snapshot while it lasts."""
        conn = self.get()
        conn.execute("BEGIN")
        try:
            yield conn
        except sqlite3.Error as exc:
            raise StoreError(f"read from {self.path} failed: {exc}") from exc
        finally:
            conn.execute("COMMIT")
