"""Raw JSON-RPC over a real ``ragstrata mcp`` process's stdio, for the wire tests."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

HASH_ENV = {"RAGSTRATA_EMBEDDER_PROVIDER": "hash"}


def exchange(repo: Path, messages: list[dict[str, Any]], last_id: int) -> list[dict[str, Any]]:
    """Send ``messages`` to ``ragstrata mcp --repo REPO`` in one write, read replies until the
    one with id ``last_id``, close stdin, and return every message written to stdout (the
    process must exit 0)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragstrata", "mcp", "--repo", str(repo)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **HASH_ENV},
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[bytes] = queue.Queue()

    def pump(stdout: IO[bytes]) -> None:
        for line in stdout:
            lines.put(line)

    threading.Thread(target=pump, args=(proc.stdout,), daemon=True).start()
    seen: list[dict[str, Any]] = []
    try:
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        proc.stdin.flush()
        while not any(m.get("id") == last_id for m in seen):
            seen.append(json.loads(lines.get(timeout=60)))
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()
    while not lines.empty():
        seen.append(json.loads(lines.get()))
    return seen
