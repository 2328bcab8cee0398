"""Run the answer-level benchmark over every repository tree and print the table.

    python bench/answers/run.py --trees TREES [--cases bench/answers/cases.jsonl]
        [--out results.json] [--baseline before.json] [--markdown] [--check]

``TREES`` holds one folder per repository named ``<name>@<commit>`` (``gin@dcaa4296...``; see
README.md for how to make them). Each tree is indexed first when it has no index. The same
code runs behind ``ragstrata eval --answers FILE --tree DIR`` (one tree at a time); this script
adds the run over all trees, the per-case JSON (``--out``) and the before -> after table
(``--baseline`` names an earlier ``--out``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from ragstrata.app.evaluation_answers import (
    AnswerCase,
    CaseResult,
    check_gold,
    evaluate_answers,
    judge,
    load_answer_cases,
    summarize,
)
from ragstrata.app.facade import Ragstrata
from ragstrata.cli.common import edge_settings
from ragstrata.cli.eval_cmd import ensure_index
from ragstrata.errors import RagstrataError

HERE = Path(__file__).resolve().parent


def tree_for(trees: Path, case: AnswerCase) -> Path:
    """The folder of a case's repository at its commit."""
    name = case.repo.rsplit("/", 1)[-1]
    exact = trees / f"{name}@{case.commit}"
    if exact.is_dir():
        return exact
    found = sorted(trees.glob(f"{name}@{case.commit[:8]}*"))
    if not found:
        raise SystemExit(f"no tree for {case.repo}@{case.commit[:12]} under {trees}")
    return found[0]


def run(trees: Path, cases: list[AnswerCase], only: str | None) -> list[CaseResult]:
    by_tree: dict[Path, list[AnswerCase]] = {}
    for case in cases:
        if only and only not in case.repo:
            continue
        by_tree.setdefault(tree_for(trees, case), []).append(case)
    results: list[CaseResult] = []
    for tree, group in by_tree.items():
        start = time.perf_counter()
        with Ragstrata(tree, edge_settings(tree)) as rs:
            ensure_index(rs, quiet=True)
            results += evaluate_answers(rs, group).results
        print(
            f"{tree.name}: {len(group)} cases, {time.perf_counter() - start:.0f} s", file=sys.stderr
        )
    return results


def merged(cases: list[AnswerCase], files: list[Path]) -> list[CaseResult]:
    """The per-case results of earlier runs (``--out`` files), joined in case order and judged
    again from the stored status, citations and opening with the current rules and gold."""
    by_id = {c.id: c for c in cases}
    results = {}
    for path in files:
        for row in json.loads(path.read_text("utf-8"))["cases"]:
            if row["id"] not in by_id:
                continue
            cites = []
            for text in row["citations"]:
                where, span = text.rsplit(":", 1)
                start, _, end = span.partition("-")
                cites.append((where, int(start), int(end or start)))
            results[row["id"]] = judge(
                by_id[row["id"]],
                row["status"],
                cites,
                graph_id=row.get("graph_id", ""),
                intent=row.get("intent", ""),
                missing=row.get("missing", ()),
                opening=row.get("opening", ""),
            )
    return [results[c.id] for c in cases if c.id in results]


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f} %"


def table(report: dict[str, Any], before: dict[str, Any] | None) -> str:
    """The Markdown table of a report (``before -> after`` cells with a baseline), then the
    lead-correct rate per category and question language."""
    head = "| group | n | lead-correct | pass | false not-found | invented → not found |"
    lines = [head, "|---|---:|---:|---:|---:|---:|"]
    rows = [("**all**", report["overall"], (before or {}).get("overall"))]
    for key in ("by_category", "by_lang", "by_language", "by_flag"):
        for name, scores in report.get(key, {}).items():
            old = (before or {}).get(key, {}).get(name)
            rows.append((f"{key[3:]}: {name}", scores, old))

    def cell(field: str, new: dict[str, Any], old: dict[str, Any] | None, pct: bool) -> str:
        show = _pct if pct else str
        value = show(new[field])
        return f"{show(old[field])} → {value}" if old is not None else value

    for name, new, old in rows:
        lines.append(
            f"| {name} | {new['n']} | {cell('lead', new, old, True)} | "
            f"{cell('pass', new, old, True)} | {cell('false_not_found', new, old, False)} | "
            f"{cell('invented_not_found', new, old, True)} |"
        )
    return "\n".join([*lines, "", *by_category_lang(report)])


def by_category_lang(report: dict[str, Any]) -> list[str]:
    """Lead-correct (pass) per category, English beside Russian."""
    cells = report.get("by_category_lang", {})
    if not cells:
        return []
    lines = ["| category | en: lead (pass) | ru: lead (pass) |", "|---|---:|---:|"]
    for category in report.get("by_category", {}):
        row = [f"| {category} "]
        for lang in ("en", "ru"):
            scores = cells.get(f"{category}/{lang}")
            if scores is None:
                row.append("| – ")
                continue
            lead = _pct(scores["lead"] if scores["lead"] is not None else scores["pass"])
            row.append(f"| {lead} ({_pct(scores['pass'])}, n={scores['n']}) ")
        lines.append("".join(row) + "|")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trees", type=Path, required=True, help="folder of <name>@<commit> trees")
    ap.add_argument("--cases", type=Path, default=HERE / "cases.jsonl")
    ap.add_argument("--out", type=Path, help="write the report with every case here (JSON)")
    ap.add_argument("--baseline", type=Path, help="an earlier --out: before -> after cells")
    ap.add_argument("--only", help="only repositories whose owner/name contains this")
    ap.add_argument("--check", action="store_true", help="only check gold spans vs the trees")
    ap.add_argument("--markdown", action="store_true", help="print the Markdown table")
    ap.add_argument(
        "--merge",
        type=Path,
        nargs="+",
        help="join earlier --out files (e.g. one per tree) and judge them again",
    )
    args = ap.parse_args(argv)
    try:
        cases = load_answer_cases(args.cases)
    except RagstrataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        problems = []
        for case in cases:
            problems += check_gold([case], tree_for(args.trees, case))
        print("\n".join(problems) or f"{len(cases)} cases: gold spans fit their trees")
        return 1 if problems else 0
    if args.merge:
        report = summarize(merged(cases, args.merge)).to_dict(per_case=True)
    else:
        report = summarize(run(args.trees, cases, args.only)).to_dict(per_case=True)
    if args.out:
        args.out.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", "utf-8")
    before = json.loads(args.baseline.read_text("utf-8")) if args.baseline else None
    if args.markdown:
        print(table(report, before))
    else:
        overall = report["overall"]
        print(json.dumps(overall))
        for case in report["cases"]:
            if not case["passed"]:
                print(
                    f"FAIL {case['id']} [{case['status']}] {case['question']} -> "
                    f"{', '.join(case['citations'][:3]) or '-'}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
