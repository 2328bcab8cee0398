"""Issue localization on a SWE-bench Lite subset: the issue text as query, the non-test files
the gold patch edits as gold, a tree at each instance's ``base_commit``.

The dataset (``swebench-lite-dev.jsonl``: ``instance_id, repo, commit, query, gold_files``) is
kept outside the repository; ``bench/compare.py --suites swebench`` runs it beside the other
suites. This module holds what is special to it:

- :func:`extract_trees` writes ``TREES/<name>-<commit[:8]>/`` from bare git mirrors
  (``MIRRORS/<owner>+<name>/repo``), skipping blobs a partial mirror lacks (large data files);
  repositories without a mirror are reported and left out (scikit-learn here: its snapshot is
  over the fetch size limit).
- :func:`seed_index` copies the index folder of the previous tree of the same repository into
  the next one before ``ragstrata index`` runs, so the index is refreshed incrementally (only
  changed files re-extracted and re-embedded) — the realistic path, and much cheaper.
- :func:`file_accuracy`: Acc@k as in the localization papers (SweRank, LocAgent): a query
  counts when ALL its gold files are among the first k distinct files.

    .venv/bin/python bench/swebench.py --dataset F [--mirrors DIR] [--trees DIR]   # extract
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.baselines.common import bench_cache
from bench.metrics import distinct, load_dataset

__all__ = ["ACC_KS", "extract_tree", "extract_trees", "file_accuracy", "seed_index", "tree_name"]

ACC_KS = (1, 5, 10)
INDEX_DIR = ".ragstrata"


def tree_name(repo: str, commit: str) -> str:
    """``astropy/astropy`` @ ``d16bfe05…`` -> ``astropy-d16bfe05``."""
    return f"{repo.split('/')[-1]}-{commit[:8]}"


def extract_tree(git_dir: Path, commit: str, dest: Path) -> int:
    """Write the files of ``commit`` under ``dest``; returns how many blobs were missing."""
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit],
        capture_output=True,
        check=True,
    ).stdout
    entries = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode != b"120000":  # no symlinks
            entries.append((sha, path.decode("utf-8", "surrogateescape")))
    missing = 0
    with subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for sha, path in entries:
            proc.stdin.write(sha + b"\n")
            proc.stdin.flush()
            head = proc.stdout.readline().split()
            if len(head) < 3 or head[1] == b"missing":
                missing += 1
                continue
            data = proc.stdout.read(int(head[2]))
            proc.stdout.read(1)
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        proc.stdin.close()
    return missing


def extract_trees(rows: Sequence[Mapping[str, Any]], mirrors: Path, trees: Path) -> list[str]:
    """Extract every row's tree that is not there yet; notes about what could not be."""
    notes: list[str] = []
    done: set[str] = set()
    for row in rows:
        name = tree_name(str(row["repo"]), str(row["commit"]))
        dest = trees / name
        if name in done or dest.is_dir():
            continue
        done.add(name)
        git_dir = mirrors / str(row["repo"]).replace("/", "+") / "repo"
        if not git_dir.is_dir():
            notes.append(f"{row['repo']}: no mirror at {git_dir}; its instances are left out")
            continue
        tmp = dest.with_name(dest.name + ".part")
        shutil.rmtree(tmp, ignore_errors=True)
        missing = extract_tree(git_dir, str(row["commit"]), tmp)
        os.replace(tmp, dest)
        if missing:
            notes.append(f"{name}: {missing} blob(s) absent from the mirror (skipped)")
    return notes


def seed_index(tree: Path, previous: Path | None) -> bool:
    """Copy ``previous``'s index folder into ``tree`` when ``tree`` has none yet."""
    if previous is None or (tree / INDEX_DIR).exists() or not (previous / INDEX_DIR).is_dir():
        return False
    shutil.copytree(previous / INDEX_DIR, tree / INDEX_DIR)
    return True


def file_accuracy(
    rows: Sequence[Mapping[str, Any]],
    hits_by_qid: Mapping[str, Sequence[Mapping[str, Any]]],
    ks: Sequence[int] = ACC_KS,
) -> dict[str, float | int]:
    """``{"n", "acc@k"…}``: share of queries whose gold files ALL rank in the first k files."""
    wins = dict.fromkeys(ks, 0)
    n = 0
    for row in rows:
        gold = set(row.get("gold_files") or ())
        if not gold:
            continue
        n += 1
        ranked = distinct(h.get("path") for h in hits_by_qid.get(str(row["qid"]), ()))
        for k in ks:
            wins[k] += gold <= set(ranked[:k])
    return {"n": n, **{f"acc@{k}": round(wins[k] / n, 4) if n else 0.0 for k in ks}}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Extract the SWE-bench Lite dev trees.")
    ap.add_argument("--dataset", type=Path, default=bench_cache() / "swebench-lite-dev.jsonl")
    ap.add_argument("--mirrors", type=Path, required=True, help="folder of <owner>+<name>/repo")
    ap.add_argument("--trees", type=Path, default=bench_cache() / "trees")
    args = ap.parse_args(argv)
    if not args.dataset.is_file():
        print(f"error: dataset not found: {args.dataset}", file=sys.stderr)
        return 2
    rows = [{**r, "qid": r.get("instance_id", r["qid"])} for r in load_dataset(args.dataset)]
    args.trees.mkdir(parents=True, exist_ok=True)
    for note in extract_trees(rows, args.mirrors, args.trees):
        print(f"note: {note}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
