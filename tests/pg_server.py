"""A throwaway PostgreSQL server for tests: initdb into a temp folder, start on a free
127.0.0.1 port, ``CREATE EXTENSION vector``, stop and delete at the end.

Used as a session fixture (``pg_url``). When the binaries or pgvector are missing the tests
are skipped with the reason locally, but FAIL when ``CI == "true"``: CI installs them with
``scripts/ci/postgres.sh`` and must never skip the server store silently.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["find_pg_bin", "pg_server", "pg_url"]

_CANDIDATES = (
    "/usr/lib/postgresql/17/bin",
    "/usr/lib/postgresql/16/bin",
    "/usr/lib/postgresql/15/bin",
)


def find_pg_bin() -> Path | None:
    """The folder holding ``initdb``/``pg_ctl``/``postgres``, or None."""
    for folder in _CANDIDATES:
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    found = shutil.which("pg_ctl")
    return Path(found).resolve().parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL test server unavailable in CI: {reason}", pytrace=False)
    pytest.skip(f"PostgreSQL test server unavailable: {reason}")


def _run_as(user: str | None) -> dict[str, object]:
    """initdb/postgres refuse to run as root: drop to ``user`` (default ``postgres``)."""
    if os.geteuid() != 0:
        return {}
    entry = pwd.getpwnam(user or "postgres")
    return {"user": entry.pw_uid, "group": entry.pw_gid}


@contextlib.contextmanager
def pg_server() -> Iterator[str]:
    """Start a server; yields its connection URL (database ``ragstrata``)."""
    bin_dir = find_pg_bin()
    if bin_dir is None:
        _unavailable("no initdb/pg_ctl found (run scripts/ci/postgres.sh)")
        raise AssertionError  # unreachable: skip/fail raise
    try:
        ids = _run_as(None)
    except KeyError:
        _unavailable("running as root and there is no 'postgres' user to run the server as")
        raise AssertionError from None
    root = Path(tempfile.mkdtemp(prefix="ragstrata-pg-"))
    data = root / "data"
    if ids:
        os.chown(root, ids["user"], ids["group"])  # type: ignore[arg-type]
    port = _free_port()
    log = root / "server.log"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            **ids,  # type: ignore[arg-type]
        )

    try:
        done = run(str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
                   "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")  # fmt: skip
        if done.returncode != 0:
            _unavailable(f"initdb failed: {done.stderr.strip()[-500:]}")
        opts = (f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={root} "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                "-c max_connections=60 -c shared_buffers=128MB")  # fmt: skip
        done = run(
            str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", opts, "-w", "start"
        )
        if done.returncode != 0:
            text = log.read_text(errors="replace") if log.exists() else done.stderr
            _unavailable(f"pg_ctl start failed: {text.strip()[-500:]}")
        url = f"postgresql://postgres@127.0.0.1:{port}/ragstrata"
        import psycopg

        with psycopg.connect(
            f"postgresql://postgres@127.0.0.1:{port}/postgres", autocommit=True
        ) as c:
            c.execute("CREATE DATABASE ragstrata")
        try:
            with psycopg.connect(url, autocommit=True) as c:
                c.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.Error as exc:
            _unavailable(f"pgvector is not installed for this server: {exc}")
        yield url
    finally:
        if (data / "postmaster.pid").exists():
            run(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """Session fixture: the URL of a throwaway server with pgvector."""
    with pg_server() as url:
        yield url
