"""Start-up and answer latency of the ``ragstrata`` command, side by side with the interpreter.

Each figure is the wall time of a fresh process (``python -c pass``, ``ragstrata --help``,
``ragstrata ask``), and for the long-running servers the latency of ``ask`` once warm (p50/p95
over ``--asks`` questions) and the MCP ``initialize`` round trip from process start. Two code
trees can be compared in one run (``--before SRC --after SRC``: each is put first on
``PYTHONPATH``); runs are interleaved so both sides see the same machine load, and every
figure is also given as a multiple of ``python -c pass`` measured in the same run.

    python bench/cli.py --repo path/to/indexed/repo [--before old/src] [--after src]

The repository must be indexed with vectors (``ragstrata index PATH``). Child processes get
bytecode caching (in a temporary ``PYTHONPYCACHEPREFIX``, nothing is written into the trees,
and one untimed run first fills it), as an installed package has, even when the calling shell
sets ``PYTHONDONTWRITEBYTECODE``.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

QUESTIONS = (
    "where is make_response defined?",
    "как обрабатываются ошибки?",
    "who calls dispatch_request?",
    "how do I run the tests?",
    "что делает функция url_for?",
)


_PYCACHE = tempfile.mkdtemp(prefix="ragstrata-bench-pycache-")


def _env(src: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": src, "COLUMNS": "80", "PYTHONPYCACHEPREFIX": _PYCACHE}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _wall(args: list[str], src: str) -> float:
    start = time.perf_counter()
    subprocess.run(args, env=_env(src), stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_asks(src: str, repo: Path, questions: list[str]) -> list[float]:
    """Seconds per ``POST /v1/ask`` against a warm ``ragstrata serve`` (after one warm-up)."""
    port = _free_port()
    cmd = [sys.executable, "-m", "ragstrata", "serve", "--repo", f"r={repo}", "--port", str(port)]
    proc = subprocess.Popen(cmd, env=_env(src), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)

        def ask(question: str) -> None:
            body = json.dumps({"query": question, "repo": "r"}).encode()
            req = urllib.request.Request(
                f"{base}/v1/ask", body, {"Content-Type": "application/json"}
            )
            urllib.request.urlopen(req, timeout=120).read()

        return _timed(ask, questions)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _timed(call: Callable[[str], None], questions: list[str]) -> list[float]:
    call(questions[0])  # warm-up: model and structures load once per server
    out = []
    for q in questions:
        start = time.perf_counter()
        call(q)
        out.append(time.perf_counter() - start)
    return out


def mcp_session(src: str, repo: Path, questions: list[str]) -> tuple[float, list[float]]:
    """(seconds from process start to the ``initialize`` reply, seconds per ``ask`` call)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragstrata", "mcp", "--repo", f"r={repo}"],
        env=_env(src),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    ids = iter(range(1, 10_000))

    def rpc(method: str, params: dict[str, object]) -> None:
        n = next(ids)
        proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params})
        )
        proc.stdin.write("\n")
        proc.stdin.flush()
        while json.loads(proc.stdout.readline()).get("id") != n:
            pass

    try:
        rpc(
            "initialize",
            {
                "protocolVersion": "2025-03-26",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        )
        init = time.perf_counter() - start
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        proc.stdin.write("\n")
        proc.stdin.flush()
        asks = _timed(
            lambda q: rpc("tools/call", {"name": "ask", "arguments": {"query": q}}), questions
        )
        return init, asks
    finally:
        proc.stdin.close()
        proc.terminate()
        proc.wait(timeout=30)


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def measure(args: argparse.Namespace) -> dict[str, dict[str, list[float]]]:
    """Every figure per side, runs interleaved (before, after, before, ...)."""
    sides = {"before": args.before, "after": args.after} if args.before else {"after": args.after}
    figures: dict[str, dict[str, list[float]]] = {side: {} for side in sides}
    py = sys.executable
    question = QUESTIONS[0]
    for src in sides.values():  # untimed: fills the bytecode cache, warms the page cache
        _wall([py, "-m", "ragstrata", "ask", question, "--repo", str(args.repo)], src)
    for _ in range(args.runs):
        for side, src in sides.items():
            got = figures[side]
            got.setdefault("python -c pass", []).append(_wall([py, "-c", "pass"], src))
            help_cmd = [py, "-m", "ragstrata", "--help"]
            got.setdefault("ragstrata --help", []).append(_wall(help_cmd, src))
            ask_cmd = [py, "-m", "ragstrata", "ask", question, "--repo", str(args.repo)]
            got.setdefault("ragstrata ask (fresh process)", []).append(_wall(ask_cmd, src))
    questions = [QUESTIONS[i % len(QUESTIONS)] for i in range(args.asks)]
    for side, src in sides.items():
        if not args.no_servers:
            figures[side]["serve: ask p50"] = serve_asks(src, args.repo, questions)
            init, asks = mcp_session(src, args.repo, questions)
            figures[side]["mcp: initialize"] = [init]
            figures[side]["mcp: ask p50"] = asks
    return figures


def report(figures: dict[str, dict[str, list[float]]], console: Console) -> None:
    sides = list(figures)
    table = Table(
        title="ragstrata start-up and ask latency (seconds; x = multiple of python -c pass)"
    )
    table.add_column("figure")
    for side in sides:
        table.add_column(side, justify="right")
        table.add_column("x", justify="right")
    rows = list(figures[sides[0]])
    for name in rows:
        cells: list[str] = []
        for side in sides:
            values = figures[side][name]
            pass_s = statistics.median(figures[side]["python -c pass"])
            value = statistics.median(values)
            cells += [f"{value:.3f}", f"{value / pass_s:.1f}"]
        table.add_row(name, *cells)
        if name.endswith("p50"):
            p95 = [_p95(figures[side][name]) for side in sides]
            label = name.replace("p50", "p95")
            table.add_row(
                label,
                *[
                    c
                    for side, v in zip(sides, p95, strict=True)
                    for c in (
                        f"{v:.3f}",
                        f"{v / statistics.median(figures[side]['python -c pass']):.1f}",
                    )
                ],
            )
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, required=True, help="An indexed repository.")
    parser.add_argument("--after", default=str(Path(__file__).resolve().parents[1] / "src"))
    parser.add_argument("--before", default=None, help="Another tree's src/ to compare with.")
    parser.add_argument("--runs", type=int, default=5, help="Fresh-process runs per figure.")
    parser.add_argument("--asks", type=int, default=20, help="Warm asks per server.")
    parser.add_argument("--no-servers", action="store_true", help="Skip serve and mcp.")
    parser.add_argument("--json", action="store_true", help="Print the raw figures as JSON.")
    args = parser.parse_args()
    figures = measure(args)
    if args.json:
        print(json.dumps(figures, indent=1))
    report(figures, Console())


if __name__ == "__main__":
    main()
