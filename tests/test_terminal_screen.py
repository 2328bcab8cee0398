"""A screenshot check: `ragstrata ask` and `ragstrata search` run in a real 80-column terminal
(a pseudo-terminal, so rich sees a TTY with colours) and what they draw stays readable: no line
wider than the screen, no path, symbol or ``path:start-end`` split, code keeps its gutter, and
the default answer fits one screen."""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from answer_fixture import write_repo
from ragstrata.app.facade import Ragstrata
from ragstrata.cli.common import edge_settings

pytestmark = pytest.mark.slow  # fresh interpreters in a pseudo-terminal

COLUMNS = 80
LONG_PATH = "src/payments/providers/international/settlement_reconciliation.py"
LONG_NAME = "reconcile_batches"  # qualified: 76 characters, a whole line at 80
LONG_MODULE = f'''"""Settlement reconciliation with the international providers."""


def {LONG_NAME}(batches, ledger, exchange_rates, tolerance=0.01):
    """Match every settled batch against the ledger, converting currencies on the way."""
    unmatched = [batch for batch in batches if batch.reference not in ledger.references_by_id]
    totals = {{batch.reference: batch.amount * exchange_rates[batch.currency] for batch in batches}}
    return [ref for ref, total in totals.items() if abs(total - ledger.total(ref)) > tolerance], unmatched
'''
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
ENV = {"RAGSTRATA_EMBEDDER_PROVIDER": "hash"}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as mp:
        for key, value in ENV.items():
            mp.setenv(key, value)
        root = write_repo(tmp_path_factory.mktemp("repo"))
        (root / LONG_PATH).parent.mkdir(parents=True, exist_ok=True)
        (root / LONG_PATH).write_text(LONG_MODULE, encoding="utf-8")
        with Ragstrata(root, edge_settings(root)) as rs:
            rs.index()
        yield root


def screen(*args: str) -> list[str]:
    """What ``ragstrata ARGS`` shows in an 80-column pseudo-terminal, escapes stripped."""
    import fcntl
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, COLUMNS, 0, 0))
    env = {**os.environ, **ENV, "TERM": "xterm-256color"}
    for key in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR"):
        env.pop(key, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragstrata", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed its side
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert proc.wait(timeout=120) == 0, b"".join(chunks).decode(errors="replace")
    text = ANSI.sub("", b"".join(chunks).decode("utf-8", errors="replace"))
    assert "\x1b" not in text  # colours were drawn (a TTY) and every escape was stripped
    return text.replace("\r\n", "\n").rstrip("\n").split("\n")


def test_ask_at_80_columns_is_one_readable_screen(repo: Path) -> None:
    lines = screen("ask", f"where is {LONG_NAME} defined?", "--repo", str(repo))
    assert len(lines) <= 40, "\n".join(lines)
    assert all(len(line.rstrip()) <= COLUMNS for line in lines), "\n".join(lines)
    text = "\n".join(lines)
    assert LONG_NAME in text and f"{LONG_PATH}:4-8" in text, text
    code = [line for line in lines if "exchange_rates" in line or "unmatched" in line]
    assert code, text
    assert all(re.match(r"^\s*\d*\s*\| ", line) for line in code), "\n".join(code)
    assert "evidence: satisfied" in text


def test_search_at_80_columns_keeps_cells_whole(repo: Path) -> None:
    lines = screen("search", f"{LONG_NAME} exchange rates", "--repo", str(repo))
    assert all(len(line) <= COLUMNS for line in lines), "\n".join(lines)
    text = "\n".join(lines)
    assert f"{LONG_PATH}:4-8" in text, text
    assert re.search(rf"\b[\w.]*{LONG_NAME}\b", text), text
