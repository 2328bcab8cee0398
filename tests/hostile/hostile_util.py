"""Helpers of the hostile suite: run the CLI in-process or as a subprocess, write tiny repos.

Every fixture here is built by the test that uses it (nothing is read from outside tests/).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from ragstrata.cli.app import main


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``ragstrata ARGS`` in-process -> (exit code, stdout, stderr)."""
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def clean_env(**extra: str) -> dict[str, str]:
    """The process environment without RAGSTRATA_* (plus the hash embedder and ``extra``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGSTRATA_")}
    return {**env, "RAGSTRATA_EMBEDDER_PROVIDER": "hash", **extra}


def run_proc(
    *args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m ragstrata ARGS`` in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "ragstrata", *args],
        capture_output=True,
        text=True,
        env=dict(env if env is not None else clean_env()),
        cwd=cwd,
        timeout=180,
    )


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``files`` (relative path -> text or bytes) under ``root``; returns ``root``."""
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body, encoding="utf-8")
    return root
