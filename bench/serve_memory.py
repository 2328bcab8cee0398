"""Resident memory of a long-running `ragstrata serve` while it answers many questions.

Starts ``ragstrata serve --repo REPO`` (REPO must be indexed; the packaged model answers the
query side), sends ``--questions`` requests over loopback (alternating /v1/search and /v1/ask,
questions varied so caches see new keys) and samples the server's VmRSS (/proc) as it goes.

    .venv/bin/python bench/serve_memory.py --repo PATH [--questions 1000] [--json]

Never gates CI; the goal of issue 15 is <= 300 MB after 1,000 questions.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

TEMPLATES = (
    "where is {w} defined?",
    "who calls {w}?",
    "how does {w} work?",
    "где определён {w}?",
    "что делает {w}?",
)
WORDS = (
    "index",
    "store",
    "search",
    "embedder",
    "router",
    "plan",
    "retrieve",
    "answer",
    "walker",
    "settings",
    "relations",
    "manifest",
    "session",
    "fusion",
    "policy",
    "catalog",
    "vectors",
    "tokens",
    "doctor",
    "splitter",
)


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        line = next(x for x in status if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "ragstrata", "serve", "--repo", str(args.repo), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    samples: dict[int, float] = {}
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=120) as client:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                try:
                    if client.get("/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.2)
            samples[0] = _rss_mb(server.pid)
            started = time.perf_counter()
            for i in range(1, args.questions + 1):
                word = WORDS[i % len(WORDS)] + ("" if i < 100 else f"_{i % 97}")
                query = TEMPLATES[i % len(TEMPLATES)].format(w=word)
                route = "/v1/ask" if i % 2 else "/v1/search"
                reply = client.post(route, json={"query": query, "top_k": 5})
                reply.raise_for_status()
                if i in (1, 10, 100, 250, 500, 750, 1000) or i == args.questions:
                    samples[i] = _rss_mb(server.pid)
            seconds = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(timeout=30)
    result = {
        "questions": args.questions,
        "seconds": round(seconds, 1),
        "rss_mb": {k: round(v) for k, v in samples.items()},
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{args.questions} questions in {result['seconds']} s; RSS MB by question: ")
        print(", ".join(f"{k}: {v}" for k, v in result["rss_mb"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
