"""Scale checks that used to be timed tests: each figure side by side with a named peer in the
same run, reported as a ratio (benchmarks never gate CI).

- **no-op re-index** of 2,000 small Python files (rows only) vs ``git status --porcelain`` on
  the same committed tree (both stat every file and compare it with what they recorded);
- **peak memory** of ``ragstrata index`` (hash embedder) at 200 and 2,000 files, for small
  modules with cross-file calls and for modules with long docstrings, vs ``python -c pass``:
  the growth from 200 to 2,000 files is what matters (rows stream through in batches, texts are
  parked on disk until relations are resolved);
- **RU→EN term look-up** (``query.terms`` expander) on a 21-word Russian question, median of 50
  warm calls, vs splitting the same text with ``re.findall``.

    .venv/bin/python bench/scale.py [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "RAGSTRATA_EMBEDDER_PROVIDER": "hash", "PYTHONPATH": str(ROOT / "src")}
sys.path.insert(0, str(ROOT / "src"))

from ragstrata.query.terms import default_expander  # noqa: E402

_PEAK_WRAPPER = """
import atexit, runpy, sys
def peak():
    with open("/proc/self/status") as f:
        hwm = next(line for line in f if line.startswith("VmHWM:"))
    sys.stderr.write("PEAK_KB " + hwm.split()[1] + "\\n")
atexit.register(peak)
sys.argv = ["ragstrata", *sys.argv[1:]]
if sys.argv[1:]:
    runpy.run_module("ragstrata", run_name="__main__")
"""


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def small_module(i: int) -> str:
    """Four functions calling into a neighbour module, and a class (cross-file relations)."""
    lines = [f'"""Module {i}."""', f"from pkg.m{(i + 1) % 7:04d} import func_{(i + 1) % 7}_0", ""]
    for j in range(4):
        lines += [f"def func_{i}_{j}(x):", f'    """Function {j}."""', f"    return x + {j}", ""]
    return "\n".join([*lines, f"class Thing{i}:", "    def run(self):", "        return 1", ""])


def wordy_module(i: int) -> str:
    """Four functions with long docstrings: ~8 kB of text, few relations."""
    lines = [f'"""Module {i}."""', ""]
    for j in range(4):
        lines += [f"def f{i}_{j}(value):", f'    """Step {j} of module {i}.', ""]
        lines += [f"    Line {k} of the notes: the value is scaled and logged." for k in range(25)]
        lines += ['    """', f"    return value + {j}", ""]
    return "\n".join(lines)


def peak_mb(args: list[str]) -> float:
    out = subprocess.run(
        [sys.executable, "-c", _PEAK_WRAPPER, *args], capture_output=True, text=True, env=ENV
    )
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    line = next(x for x in out.stderr.splitlines() if x.startswith("PEAK_KB "))
    return int(line.split()[1]) / 1024


def timed(argv: list[str], cwd: Path | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=ENV, check=True, capture_output=True)
    return time.perf_counter() - started


def run_json(argv: list[str]) -> str:
    """Standard output of ``argv`` (a ``--json`` command)."""
    return subprocess.run(argv, env=ENV, check=True, capture_output=True, text=True).stdout


def noop(tmp: Path) -> dict[str, Any]:
    repo = tmp / "noop"
    write(repo, {f"d{i // 100}/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(2000)})
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "x"]):
        subprocess.run(cmd, cwd=repo, check=True, capture_output=True)
    index = [sys.executable, "-m", "ragstrata", "index", str(repo), "--no-embed", "--json"]
    timed(index)
    ours = min(timed(index) for _ in range(3))
    files = json.loads(run_json(index))["files"]
    if (files["unchanged"], files["added"], files["changed"]) != (2000, 0, 0):
        raise SystemExit(f"the timed re-index was not a no-op: {files}")
    git = min(timed(["git", "status", "--porcelain"], repo) for _ in range(3))
    return {"ragstrata_s": round(ours, 3), "git_status_s": round(git, 3), "ratio": ours / git}


def memory(tmp: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"python_c_pass_mb": round(peak_mb([]), 1)}
    for kind, make in (("small", small_module), ("wordy", wordy_module)):
        peaks = {}
        for n in (200, 2000):
            repo = tmp / f"{kind}{n}"
            write(repo, {f"pkg/m{i:04d}.py": make(i) for i in range(n)})
            peaks[n] = round(peak_mb(["index", str(repo), "--json"]), 1)
        out[kind] = {"peak_200_mb": peaks[200], "peak_2000_mb": peaks[2000],
                     "growth_mb": round(peaks[2000] - peaks[200], 1)}  # fmt: skip
    return out


def terms() -> dict[str, Any]:
    text = (
        "Где в классе HttpClient определён метод, который возвращает заголовки ответа "
        "и как настраиваются ретраи и таймаут при редиректе в юнит-тестах модуля?"
    )
    expander = default_expander()
    expander.find(text)

    def median(fn: Any) -> float:
        runs = []
        for _ in range(50):
            t0 = time.perf_counter()
            fn(text)
            runs.append(time.perf_counter() - t0)
        return statistics.median(runs)

    ours, peer = median(expander.find), median(lambda t: re.findall(r"\w+", t))
    return {"find_us": round(ours * 1e6, 1), "re_findall_us": round(peer * 1e6, 1),
            "ratio": ours / peer}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = {"noop": noop(Path(tmp)), "memory": memory(Path(tmp)), "terms": terms()}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    n, m, t = results["noop"], results["memory"], results["terms"]
    print(f"no-op re-index, 2,000 files: {n['ragstrata_s']} s; git status {n['git_status_s']} s "
          f"({n['ratio']:.1f}x)")  # fmt: skip
    for kind in ("small", "wordy"):
        k = m[kind]
        print(f"peak RSS, {kind} modules: 200 files {k['peak_200_mb']} MB, 2,000 files "
              f"{k['peak_2000_mb']} MB (+{k['growth_mb']} MB; python -c pass "
              f"{m['python_c_pass_mb']} MB)")  # fmt: skip
    print(f"RU->EN term look-up: {t['find_us']} µs; re.findall {t['re_findall_us']} µs "
          f"({t['ratio']:.1f}x)")  # fmt: skip


if __name__ == "__main__":
    main()
