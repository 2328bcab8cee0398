"""Router speed: microseconds per plan (median, p95) over a few thousand varied questions.

Questions come from Russian and English templates x identifiers x paths (no eval data), so
the run is deterministic. Run: ``python bench/router.py [--n 3000] [--seed 7]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from rich.console import Console
from rich.table import Table

from ragstrata.query.router import Router

TEMPLATES = [
    "где определён класс {sym}?",
    "где определен метод {sym} и как он используется",
    "как работает {sym} в {path}?",
    "что делает функция {sym}?",
    "кто вызывает {sym}?",
    "покажи тесты для {sym}",
    "какие тесты проверяют {sym} в {path}",
    "сгенерируй документацию для модуля {mod}",
    "напиши docstring для {sym}",
    "что написано в разделе «{section}» в README.md?",
    "как установить проект?",
    "почему {sym} падает с исключением в {path}:{line}",
    "на Go как реализован {sym}",
    "а где он вызывается?",
    "другой вопрос: как настроить логирование по документации?",
    "where is {sym} defined?",
    "how does the retry logic in {path} work?",
    "what does `{sym}` return when the config is missing?",
    "generate docs for the {mod} module",
    "what does the {section} section of the docs say about {sym}?",
    "which tests cover {sym}?",
    "how do I install this project?",
    "explain {path}:{line}",
    "in the Python code, who calls {sym} and why",
    "is there a license file?",
]
SYMBOLS = [
    "UserService",
    "parse_query",
    "HttpClient.send",
    "retry_with_backoff",
    "Session",
    "os.path.join",
    "RouterPlan",
    "build_index",
    "TokenBucket",
    "get_user_by_id",
    "PaymentGateway.charge",
    "load_settings",
    "CacheManager",
    "validate_email",
    "handle_request",
]
PATHS = [
    "src/http/client.py",
    "payments/gateway.py",
    "src/ingest",
    "pkg/server/handler.go",
    "lib/utils/strings.ts",
    "tests/test_router.py",
    "app/models/user.rb",
    "docs/guide.md",
    "crates/core/src/lib.rs",
    "internal/auth/jwt.go",
]
MODULES = ["payments", "auth", "ingest", "billing", "search", "storage"]
SECTIONS = ["Configuration", "Installation", "Usage", "Quick start", "API"]


def questions(n: int, seed: int) -> list[str]:
    """``n`` varied questions (deterministic for a seed)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        t = rng.choice(TEMPLATES)
        out.append(
            t.format(
                sym=rng.choice(SYMBOLS),
                path=rng.choice(PATHS),
                mod=rng.choice(MODULES),
                section=rng.choice(SECTIONS),
                line=rng.randint(1, 900),
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    t0 = time.perf_counter()
    router = Router()
    build_ms = (time.perf_counter() - t0) * 1000
    qs = questions(args.n, args.seed)
    t0 = time.perf_counter()
    for q in qs[:200]:  # warm-up: first-use morphology of each word, regex caches
        router.plan(q)
    warm_ms = (time.perf_counter() - t0) * 1000
    states = [
        None,
        {"active_intent": "CODE_QA", "active_anchors": [{"type": "SYMBOL", "value": "X"}]},
    ]
    times: list[float] = []
    cpu: list[float] = []
    for i, q in enumerate(qs):
        state = states[i % 2]
        c = time.thread_time_ns()
        t = time.perf_counter_ns()
        router.plan(q, state)
        times.append((time.perf_counter_ns() - t) / 1000)
        cpu.append((time.thread_time_ns() - c) / 1000)
    times.sort()
    cpu.sort()
    table = Table(title=f"Router: {len(qs)} plans ({len(TEMPLATES)} RU/EN templates)")
    for col in ("clock", "median µs", "p95 µs", "p99 µs", "max µs"):
        table.add_column(col, justify="right")
    for name, xs in (("wall", times), ("thread CPU", cpu)):
        table.add_row(
            name,
            f"{statistics.median(xs):.0f}",
            f"{xs[int(len(xs) * 0.95)]:.0f}",
            f"{xs[int(len(xs) * 0.99)]:.0f}",
            f"{xs[-1]:.0f}",
        )
    console = Console()
    console.print(f"router build {build_ms:.0f} ms; warm-up of 200 plans {warm_ms:.0f} ms")
    console.print(table)
    console.print("(wall includes time the OS gave to other processes; thread CPU does not)")


if __name__ == "__main__":
    main()
