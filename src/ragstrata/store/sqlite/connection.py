"""Connections of the SQLite store: one per thread, WAL mode, checked and migrated on first
open, the two transaction shapes every method uses, and the atomic swap of a rebuilt file.

A damaged file is reported as :class:`~ragstrata.errors.IndexCorruptError` (one line naming
the file and the fix), never as a bare ``sqlite3.DatabaseError``: the first open runs
``PRAGMA quick_check`` when the file is small enough for it to be cheap and checks that the
tables exist; any corruption error later is mapped the same way.

Rebuilds are built beside the index and swapped in by :func:`swap_in`: a rename under an
exclusive lock on ``<file>.lock`` that openers hold shared while they open, so no connection
ever pairs the new file with the old file's WAL. Connections opened before the swap keep
reading the old file (their descriptors stay valid) until their next transaction notices the
new inode and reopens.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ragstrata.errors import IndexCorruptError, IndexMissingError, StoreError
from ragstrata.store.locks import advisory_lock

__all__ = ["QUICK_CHECK_MAX_BYTES", "Connections", "finish_file", "swap_in"]

QUICK_CHECK_MAX_BYTES = 64 << 20
"""``PRAGMA quick_check`` runs on first open up to this file size (~0.1 s per 20 MB);
larger indexes are checked by the errors their reads meet."""
_TABLES = ("meta", "files", "rows", "relations", "vectors")
_SIDE_FILES = ("-wal", "-shm", "-journal")


def _is_corruption(exc: sqlite3.Error) -> bool:
    name = str(getattr(exc, "sqlite_errorname", ""))
    text = str(exc).lower()
    return (
        name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))
        or "malformed" in text
        or "not a database" in text
        or "no such table" in text
        or "no such column" in text
    )


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


class Connections:
    """Per-thread connections to the database at ``path``.

    ``create=False`` raises ``IndexMissingError`` instead of creating a missing file.
    ``on_first_open(conn)`` runs on the first open of each file (migrations). ``repo``, when
    known, is named in the fix of corruption messages.
    """

    def __init__(
        self,
        path: Path,
        *,
        create: bool,
        busy_timeout_s: float,
        on_first_open: Callable[[sqlite3.Connection], None],
        repo: Path | None = None,
    ) -> None:
        self.path = path
        self.create = create
        self.busy_timeout_s = busy_timeout_s
        self.on_first_open = on_first_open
        self.repo = repo
        self.lock = threading.RLock()
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._checked: int | None = None  # inode of the file checked and migrated

    def corrupt(self, reason: str) -> IndexCorruptError:
        """The one-line error for a damaged index, naming the file and the fix."""
        where = f" {self.repo}" if self.repo is not None else ""
        return IndexCorruptError(
            f"the index {self.path} is damaged ({reason}); rebuild it with "
            f"`ragstrata index --rebuild{where}`"
        )

    def _inode(self) -> int | None:
        try:
            return os.stat(self.path).st_ino
        except OSError:
            return None

    def get(self) -> sqlite3.Connection:
        """This thread's connection to the current file (reopened after a swap)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            if getattr(self._local, "inode", None) == self._inode():
                return conn
            self._drop(conn)  # the file was swapped for a rebuilt one: read the new one
        if self.path.exists() and not self.path.is_file():
            raise self.corrupt("it is not a file")
        if not self.path.exists():
            if not self.create:
                raise IndexMissingError(f"no index at {self.path}; run `ragstrata index` first")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.path.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("*\n", encoding="utf-8")
        with advisory_lock(_lock_path(self.path), exclusive=False):
            conn = self._open()
            inode = self._inode()
        self._local.conn, self._local.inode = conn, inode
        return conn

    def _open(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path,
                timeout=self.busy_timeout_s,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open index {self.path}: {exc}") from exc
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            with self.lock:
                inode = self._inode()
                if self._checked != inode:
                    self._check(conn)
                    self.on_first_open(conn)
                    self._checked = inode
                self._all.append(conn)
        except BaseException as exc:
            conn.close()
            if isinstance(exc, sqlite3.Error):
                if _is_corruption(exc):
                    raise self.corrupt(str(exc)) from exc
                raise StoreError(f"cannot open index {self.path}: {exc}") from exc
            raise
        return conn

    def _check(self, conn: sqlite3.Connection) -> None:
        """Integrity (when cheap) and the tables a migrated index must have."""
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version == 0:
            return  # a new, empty file: migrations create everything
        if self.path.stat().st_size <= QUICK_CHECK_MAX_BYTES:
            found = [str(r[0]) for r in conn.execute("PRAGMA quick_check(5)")]
            if found != ["ok"]:
                raise self.corrupt("; ".join(found)[:200])
        names = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master")}
        missing = [t for t in _TABLES if t not in names]
        if missing:
            raise self.corrupt(f"tables missing: {', '.join(missing)}")

    def _drop(self, conn: sqlite3.Connection) -> None:
        with self.lock:
            if conn in self._all:
                self._all.remove(conn)
        conn.close()
        for name in ("conn", "inode"):  # this thread's only: others notice on their own
            if hasattr(self._local, name):
                delattr(self._local, name)

    def close(self) -> None:
        """Close every connection opened so far; the next use opens again."""
        with self.lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
            self._local = threading.local()
            self._checked = None

    def _failed(self, exc: sqlite3.Error, what: str) -> StoreError:
        if _is_corruption(exc):
            return self.corrupt(str(exc))
        return StoreError(f"{what} {self.path} failed: {exc}")

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: committed, or rolled back on any error."""
        conn = self.get()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._failed(exc, "starting a write on") from exc
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise self._failed(exc, "write to") from exc
            if isinstance(exc, IndexCorruptError) and str(self.path) not in str(exc):
                raise self.corrupt(str(exc)) from exc
            raise

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: a consistent snapshot while it lasts."""
        conn = self.get()
        try:
            conn.execute("BEGIN")
        except sqlite3.Error as exc:
            raise self._failed(exc, "read from") from exc
        try:
            yield conn
        except sqlite3.Error as exc:
            raise self._failed(exc, "read from") from exc
        except IndexCorruptError as exc:
            if str(self.path) in str(exc):
                raise
            raise self.corrupt(str(exc)) from exc
        finally:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("COMMIT")


def finish_file(path: Path) -> None:
    """Make the database at ``path`` one self-contained file (no WAL left beside it)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode=DELETE")
    finally:
        conn.close()


def swap_in(built: Path, target: Path) -> None:
    """Replace the database ``target`` by the finished database ``built`` atomically.

    Under the exclusive open lock: whatever is at ``target`` (a damaged file, even a folder)
    is renamed away with its WAL and shared-memory files, and ``built`` renamed into place;
    then the old ones are deleted. Readers already connected to the old file keep their open
    descriptors; new openers wait for the lock and see only the new file.
    """
    finish_file(built)
    old = target.with_name(target.name + ".old")
    with advisory_lock(_lock_path(target), exclusive=True):
        for suffix in ("", *_SIDE_FILES):
            stale = Path(str(old) + suffix)
            if stale.is_dir():
                shutil.rmtree(stale, ignore_errors=True)
            else:
                stale.unlink(missing_ok=True)
        if target.exists() or target.is_symlink():
            os.replace(target, old)
        for suffix in _SIDE_FILES:
            side = Path(str(target) + suffix)
            if side.exists():
                os.replace(side, Path(str(old) + suffix))
        os.replace(built, target)
    for suffix in ("", *_SIDE_FILES):
        stale = Path(str(old) + suffix)
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)
