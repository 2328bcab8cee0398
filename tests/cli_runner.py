"""Run the ``ragstrata`` command in-process: ``main(argv)`` with captured output.

It behaves like ``subprocess.run([sys.executable, "-m", "ragstrata", ...])`` for what tests
assert — exit code, stdout, stderr — at a fraction of the cost of a fresh interpreter. The
few behaviours that need a real process (signals, import order, stdout purity of the MCP stdio
server) keep their subprocess tests (``test_cli_fresh.py``, ``test_index_cli.py``'s Ctrl-C).
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ragstrata.cli import main


@dataclass(frozen=True)
class CliResult:
    """What a finished command left: the fields of ``subprocess.CompletedProcess`` tests use."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


class _Text(io.StringIO):
    """A text stream that is not a terminal (like a pipe) and has an encoding."""

    encoding = "utf-8"

    def isatty(self) -> bool:
        return False


def run_cli(
    *args: str | Path,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    clean_env: bool = False,
    stdin: str = "",
) -> CliResult:
    """``ragstrata ARGS`` in this process. ``env`` is laid over the current environment (over
    an environment without ``RAGSTRATA_*`` keys when ``clean_env``); everything is restored."""
    argv = tuple(str(a) for a in args)
    saved_env = dict(os.environ)
    saved_cwd = Path.cwd()
    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = _Text(), _Text()
    code = 0
    try:
        if clean_env:
            for key in [k for k in os.environ if k.startswith("RAGSTRATA_")]:
                del os.environ[key]
        os.environ.update(env or {})
        if cwd is not None:
            os.chdir(cwd)
        sys.stdin, sys.stdout, sys.stderr = _Text(stdin), out, err
        try:
            main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return CliResult(argv, code, out.getvalue(), err.getvalue())
