"""A PostgreSQL store URL that is malformed fails at once with exit 2, one that points at no
working server fails within the connect timeout with exit 3; one line each, no pool noise, no
password in the message (issue 14, item 10)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragstrata.store.postgres.connection import CONNECT_TIMEOUT_S, connect_timeout

SRC = Path(__file__).resolve().parents[2] / "src"


def _run(repo: Path, url: str) -> tuple[int, str, str]:
    """``ragstrata --store URL search`` in a fresh interpreter (pool threads, real stderr)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGSTRATA_")}
    env |= {"PYTHONPATH": str(SRC), "RAGSTRATA_EMBEDDER_PROVIDER": "hash"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragstrata",
            "--store",
            url,
            "search",
            "charge",
            "--repo",
            str(repo),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "pay.py").write_text("def charge():\n    return 1\n", encoding="utf-8")
    return tmp_path / "shop"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never answers (a hung or firewalled server)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(srv.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield int(srv.getsockname()[1])
    srv.close()
    for conn in held:
        conn.close()


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # no pool warnings, no traceback
    assert "internal error" not in err and "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("postgresql://", "names no server"),
        ("postgres://alice:s3cret@/db", "names no server"),
        ("postgresql://alice:s3cret@127.0.0.1:notaport/db", "bad port"),
        ("postgresql://alice:s3cret@127.0.0.1:70000/db", "bad port"),
        ("postgresql://127.0.0.1/db?sslmode=sometimes", "sslmode"),
        ("postgresql://127.0.0.1/db?no_such_option=1", "no_such_option"),
        ("postgres://u:s3cret@[::1/db", "is invalid"),  # issue 26 cause 6: unclosed "["
        ("postgresql://alice:s3cret@[::1/db?repo=x", "is invalid"),
    ],
)
def test_malformed_url_exits_2(repo: Path, url: str, says: str) -> None:
    code, out, err = _run(repo, url)
    line = _one_line(err)
    assert code == 2, err
    assert says in line and "s3cret" not in line and out == ""


def test_unreachable_server_exits_3_in_one_line(repo: Path) -> None:
    port = _closed_port()
    code, _, err = _run(repo, f"postgresql://alice:s3cret@127.0.0.1:{port}/db")
    line = _one_line(err)
    assert code == 3, err
    assert f"127.0.0.1:{port}" in line and "refused" in line.lower() and "s3cret" not in line


def test_silent_server_times_out(repo: Path, silent_server: int) -> None:
    # the URL's own connect_timeout is honoured (libpq's parameter): one second, not five
    start = time.monotonic()
    code, _, err = _run(repo, f"postgresql://127.0.0.1:{silent_server}/db?connect_timeout=1")
    line = _one_line(err)
    assert code == 3, err
    assert "timeout" in line.lower() and f"127.0.0.1:{silent_server}" in line
    assert time.monotonic() - start < 4.5


@pytest.mark.parametrize(
    ("url", "seconds"),
    [
        ("postgresql://h/db", CONNECT_TIMEOUT_S),
        ("postgresql://h/db?connect_timeout=2", 2),
        ("postgresql://h/db?connect_timeout=0", 1),  # libpq's "wait forever" is not taken
        ("postgresql://h/db?connect_timeout=100000", 120),
        ("host=h dbname=db connect_timeout=7", 7),
    ],
)
def test_connect_timeout_comes_from_the_url(url: str, seconds: int) -> None:
    assert connect_timeout(url) == seconds


def test_a_connect_timeout_that_is_no_number_exits_2(repo: Path) -> None:
    code, out, err = _run(repo, "postgresql://alice:s3cret@127.0.0.1:5/db?connect_timeout=soon")
    line = _one_line(err)
    assert code == 2, err
    assert "connect_timeout" in line and "s3cret" not in line and out == ""
