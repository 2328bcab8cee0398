"""Incremental re-index cost on a real tree: no-op, one function body, one function name.

Indexes ``ROOT`` rows-only (the ``ragstrata index --no-embed`` path, in process, into the
tree's own ``.ragstrata``; an index already there is reused unless ``--fresh``), then:

- **no-op**: a re-run with nothing changed;
- **body**: one statement appended to the body of the first top-level function of ``--file``
  (its projection is unchanged: the fast path);
- **rename**: that function renamed (a definition changed: scoped re-resolution);
- **restore**: the file put back (the rename undone).

Each step reports CPU seconds (``time.process_time``) and wall seconds; ``--profile STEP``
prints a cProfile breakdown (cumulative) of that step. The file is always restored.

    .venv/bin/python bench/edit.py ROOT [--file astropy/utils/misc.py] [--profile rename]
        [--fresh] [--json]

The peer is the clean full rows-only index of the same tree in the same run (``--fresh``):
steps are reported as a fraction of it. Never gates CI; CPU seconds are steadier than wall
seconds on a shared machine.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import re
import time
from pathlib import Path
from typing import Any

from ragstrata.app.facade import Ragstrata

STEPS = ("full", "noop", "body", "rename", "restore")


def _first_function(text: str) -> tuple[str, int]:
    """The name of the first top-level ``def`` and the index of its line."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"def (\w+)\(", line)
        if m:
            return m.group(1), i
    raise SystemExit("no top-level function in the file")


def _body_edit(text: str) -> str:
    _, at = _first_function(text)
    lines = text.splitlines(keepends=True)
    # after the def line(s): find the first line of the body (indented, after the colon)
    j = at
    while not lines[j].rstrip().endswith(":"):
        j += 1
    lines.insert(j + 1, "    _bench_edit = 1  # bench/edit.py\n")
    return "".join(lines)


def _rename_edit(text: str) -> str:
    name, at = _first_function(text)
    lines = text.splitlines(keepends=True)
    lines[at] = lines[at].replace(f"def {name}(", f"def {name}_bench_renamed(", 1)
    return "".join(lines)


def _step(app: Ragstrata, profile: bool) -> dict[str, Any]:
    prof = cProfile.Profile() if profile else None
    cpu, wall = time.process_time(), time.perf_counter()
    if prof:
        prof.enable()
    report = app.index(embed=False)
    if prof:
        prof.disable()
    out: dict[str, Any] = {
        "cpu_s": round(time.process_time() - cpu, 3),
        "wall_s": round(time.perf_counter() - wall, 3),
        "changed": report.changed + report.added + report.removed,
        "relations_rewritten": report.relations_rewritten,
    }
    if prof:
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(35)
        out["profile"] = buf.getvalue()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--file", default="astropy/utils/misc.py")
    ap.add_argument("--profile", choices=STEPS, action="append", default=[])
    ap.add_argument("--fresh", action="store_true", help="drop the index and build it first")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    root = args.root.resolve()
    target = root / args.file
    original = target.read_text(encoding="utf-8")
    results: dict[str, Any] = {"root": root.name, "file": args.file}
    with Ragstrata(root) as app:
        if args.fresh and app.index_dir.exists():
            import shutil

            app.close()
            shutil.rmtree(app.index_dir)
        results["full"] = _step(app, "full" in args.profile)
        results["rows"] = dict(app.status().rows) if hasattr(app.status(), "rows") else {}
        try:
            results["noop"] = _step(app, "noop" in args.profile)
            target.write_text(_body_edit(original), encoding="utf-8")
            results["body"] = _step(app, "body" in args.profile)
            target.write_text(_rename_edit(_body_edit(original)), encoding="utf-8")
            results["rename"] = _step(app, "rename" in args.profile)
        finally:
            target.write_text(original, encoding="utf-8")
        results["restore"] = _step(app, "restore" in args.profile)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{results['root']}: {results['rows']}")
    for step in STEPS:
        r = results[step]
        print(
            f"{step:8} cpu {r['cpu_s']:7.3f} s  wall {r['wall_s']:7.3f} s  "
            f"files {r['changed']:5}  rewritten {r['relations_rewritten']}"
        )
        if "profile" in r:
            print(r["profile"])


if __name__ == "__main__":
    main()
