"""Ingestion throughput on a large real tree (default: this interpreter's standard library).

Reports files/s and MB/s for each stage separately -- walking (ignore rules, sniffing,
decoding), code extraction (tree-sitter C0-C2 + C3 chunks), docs extraction (D0-D2),
repository-wide relation resolution -- and for the whole pipeline. Never gates CI.

    python bench/ingest.py [--root PATH] [--limit N] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import sysconfig
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ragstrata.core.rows import FileRows, SourceFile
from ragstrata.ingest.pipeline import extract_file
from ragstrata.ingest.walker import Walker
from ragstrata.relations.repository import resolve_repository
from ragstrata.settings import IndexSettings


def _stage(name: str, seconds: float, files: int, nbytes: int) -> dict[str, Any]:
    return {
        "stage": name,
        "seconds": round(seconds, 3),
        "files": files,
        "mb": round(nbytes / 1e6, 2),
        "files_per_s": round(files / seconds, 1) if seconds else None,
        "mb_per_s": round(nbytes / 1e6 / seconds, 2) if seconds else None,
    }


def run(root: Path, limit: int | None, exclude: tuple[str, ...] = ()) -> dict[str, Any]:
    """Time every stage over ``root`` (the first ``limit`` files when given)."""
    settings = IndexSettings.model_validate({"exclude": list(exclude)})
    started = time.perf_counter()
    walker = Walker(root, settings)
    files: list[SourceFile] = []
    for file in walker.files():
        files.append(file)
        if limit is not None and len(files) >= limit:
            break
    walk_s = time.perf_counter() - started
    code = [f for f in files if not f.is_doc]
    docs = [f for f in files if f.is_doc]
    extracted: list[FileRows] = []
    timings: dict[str, float] = {}
    for name, group in (("code extraction", code), ("docs extraction", docs)):
        t0 = time.perf_counter()
        extracted.extend(extract_file(f, settings) for f in group)
        timings[name] = time.perf_counter() - t0
    t0 = time.perf_counter()
    resolved, _ = resolve_repository(extracted)
    timings["relation resolution"] = time.perf_counter() - t0
    total_s = time.perf_counter() - started

    def size(group: list[SourceFile]) -> int:
        return sum(len(f.text.encode("utf-8", "surrogatepass")) for f in group)

    rows = Counter(str(r.layer) for fr in resolved for r in fr.rows)
    warnings = sum(len(fr.warnings) for fr in resolved)
    return {
        "root": str(root),
        "exclude": list(exclude),
        "python": sys.version.split()[0],
        "stages": [
            _stage("walk", walk_s, len(files), size(files)),
            _stage("code extraction", timings["code extraction"], len(code), size(code)),
            _stage("docs extraction", timings["docs extraction"], len(docs), size(docs)),
            _stage("relation resolution", timings["relation resolution"], len(files), size(files)),
            _stage("total", total_s, len(files), size(files)),
        ],
        "rows": dict(sorted(rows.items())),
        "warnings": warnings,
        "skipped": walker.report.to_dict() if limit is None else "n/a (--limit)",
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--limit", type=int, default=None, help="stop after N files")
    parser.add_argument(
        "--exclude",
        action="append",
        default=None,
        help="gitignore-style pattern to leave out (default: site-packages/, the installed "
        "third-party packages that live inside the stdlib folder)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    exclude = tuple(args.exclude) if args.exclude is not None else ("site-packages/",)
    result = run(args.root, args.limit, exclude)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"root: {result['root']} (Python {result['python']}), exclude: {result['exclude']}")
    print(f"{'stage':<20} {'seconds':>9} {'files':>7} {'MB':>8} {'files/s':>9} {'MB/s':>7}")
    for s in result["stages"]:
        print(
            f"{s['stage']:<20} {s['seconds']:>9.2f} {s['files']:>7} {s['mb']:>8.2f} "
            f"{s['files_per_s'] or 0:>9.1f} {s['mb_per_s'] or 0:>7.2f}"
        )
    print("rows:", ", ".join(f"{k} {v}" for k, v in result["rows"].items()))
    print("warnings:", result["warnings"])
    print("skipped:", json.dumps(result["skipped"]))


if __name__ == "__main__":
    main()
