"""Caller precision on a hand-labelled sample (issue 12, class 5 "False callers").

Indexes each evaluation tree (rows only: definitions and relations, as ``index --no-embed``
builds them, through the same ingest pipeline), lists the callers of every labelled target the
way ``store.relations()`` scores them (``relation_score``: 1.0/0.9 precise, 0.5 possible), and
compares the listed (path, line) sites with the labels in ``labels.jsonl`` (one line per
target and call site: repo, commit, language, target symbol, caller ``path:line``, label).

    python bench/callers/run.py --trees /path/to/trees            # the precision table
    python bench/callers/run.py --trees DIR --candidates TARGETS  # sites to label by hand

Two kinds of labels: per target (``sample`` "sampled" or "changed": every site either
resolver lists for the target is labelled) and single edges (``sample`` "edges": precise
edges of the new resolver drawn at random among ambiguous names, each checked by reading).
Precision = labelled-true sites among the listed precise callers; recall = listed precise
true sites among all sites labelled true. "All listed" counts possible callers too (what an
answer showed before callers were split). Sites a run lists that carry no label are counted
apart ("unlabelled") so a changed resolver cannot hide behind the sample.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from ragstrata.core.names import relation_score
from ragstrata.core.rows import RelationRow
from ragstrata.relations.repository import ingest_repository
from ragstrata.settings import IndexSettings

HERE = Path(__file__).parent
PRECISE = 0.9


def listed(rels: list[RelationRow], target: str) -> dict[str, float]:
    """``path:line`` -> score of every call site ``store.relations(target)`` would list."""
    out: dict[str, float] = {}
    for r in rels:
        score = relation_score(r.from_symbol, r.to_name, r.to_symbol, target, "callers")
        if score > 0:
            key = f"{r.path}:{r.line}"
            out[key] = max(out.get(key, 0.0), score)
    return out


def calls_of(tree: Path) -> list[RelationRow]:
    result = ingest_repository(tree, IndexSettings())
    return [
        r
        for fr in result.files
        for r in fr.rows
        if isinstance(r, RelationRow) and r.relation == "calls"
    ]


def find_tree(trees: Path, repo: str, commit: str) -> Path:
    path = trees / f"{repo}@{commit}"
    if not path.is_dir():
        raise SystemExit(f"tree not found: {path} (extract {repo} at {commit} there)")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trees", type=Path, required=True, help="folder of REPO@COMMIT trees")
    ap.add_argument("--labels", type=Path, default=HERE / "labels.jsonl")
    ap.add_argument("--candidates", type=Path, help="JSONL of {repo, commit, target}: print sites")
    ap.add_argument("--json", action="store_true", help="print the table as JSON")
    args = ap.parse_args(argv)
    if args.candidates:
        return _candidates(args.trees, args.candidates)
    labels: dict[tuple[str, str], dict[str, bool]] = defaultdict(dict)
    edges: dict[str, list[tuple[str, str, bool]]] = defaultdict(list)
    meta: dict[str, tuple[str, str]] = {}
    for line in args.labels.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            meta[item["repo"]] = (item["commit"], item["language"])
            if item.get("sample") == "edges":  # one labelled (caller, target) edge
                edges[item["repo"]].append((item["target"], item["caller"], bool(item["label"])))
            else:  # every site listed for the target is labelled
                labels[(item["repo"], item["target"])][item["caller"]] = bool(item["label"])
    table: dict[str, dict[str, float]] = {}
    for repo, (commit, language) in sorted(meta.items()):
        rels = calls_of(find_tree(args.trees, repo, commit))
        c = defaultdict(int)
        for (r, target), sites in labels.items():
            if r != repo:
                continue
            c["targets"] += 1
            got = listed(rels, target)
            truth = {s for s, ok in sites.items() if ok}
            c["true"] += len(truth)
            for site, score in got.items():
                kind = "precise" if score >= PRECISE else "possible"
                if site not in sites:
                    c[f"{kind}_unlabelled"] += 1
                    c["all_unlabelled"] += 1
                    continue
                c[f"{kind}_listed"] += 1
                c["all_listed"] += 1
                c[f"{kind}_true"] += sites[site]
                c["all_true"] += sites[site]
        for target, site, ok in edges.get(repo, ()):
            if listed(rels, target).get(site, 0.0) >= PRECISE:
                c["edges_listed"] += 1
                c["edges_true"] += ok
        table[f"{language} ({repo})"] = {
            "targets": c["targets"],
            "labelled_true": c["true"],
            "precise_listed": c["precise_listed"],
            "precise_precision": _ratio(c["precise_true"], c["precise_listed"]),
            "precise_recall": _ratio(c["precise_true"], c["true"]),
            "precise_unlabelled": c["precise_unlabelled"],
            "all_listed": c["all_listed"],
            "all_precision": _ratio(c["all_true"], c["all_listed"]),
            "possible_listed": c["possible_listed"],
            "edges_precision": _ratio(c["edges_true"], c["edges_listed"]),
            "edges_listed": c["edges_listed"],
        }
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    cols = list(next(iter(table.values())).keys()) if table else []
    print("| language | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for name, row in table.items():
        print(f"| {name} | " + " | ".join(str(row[k]) for k in cols) + " |")
    return 0


def _ratio(a: int, b: int) -> float | str:
    return round(a / b, 3) if b else "-"


def _candidates(trees: Path, spec: Path) -> int:
    """Every site listed for each target, with its source line, to label by reading."""
    wanted = [json.loads(x) for x in spec.read_text(encoding="utf-8").splitlines() if x.strip()]
    cache: dict[str, list[RelationRow]] = {}
    for item in wanted:
        tree = find_tree(trees, item["repo"], item["commit"])
        if item["repo"] not in cache:
            cache[item["repo"]] = calls_of(tree)
        for site, score in sorted(listed(cache[item["repo"]], item["target"]).items()):
            path, line = site.rsplit(":", 1)
            text = (tree / path).read_text(encoding="utf-8", errors="replace").splitlines()
            src = text[int(line) - 1].strip()[:120] if int(line) <= len(text) else ""
            print(json.dumps({**item, "caller": site, "score": score, "line": src}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
