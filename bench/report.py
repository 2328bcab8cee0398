"""The tables ``bench/compare.py`` prints: per job, per level (text and Markdown), headline."""

from __future__ import annotations

from typing import Any

from bench.metrics import KS

__all__ = ["SUITE_TITLES", "headline", "markdown", "per_job_table", "text_table"]

SUITE_TITLES = {
    "sweqa": "SWE-QA dev",
    "docstring": "docstring→def",
    "en30": "SWE-QA EN30",
    "ru30": "SWE-QA RU30",
    "swebench": "SWE-bench Lite dev",
}


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _cells(scores: dict[str, Any] | None) -> list[str]:
    if not scores:
        return ["n/a"] * (2 * len(KS) + 1)
    return (
        [_fmt(scores[f"recall@{k}"]) for k in KS]
        + [_fmt(scores[f"hit@{k}"]) for k in KS]
        + [_fmt(scores["mrr"])]
    )


def markdown(summary: dict[str, dict[str, Any]], level: str) -> str:
    """One Markdown table of a level: a row per (suite, system)."""
    head = ["suite", "system", "n"] + [f"R@{k}" for k in KS] + [f"H@{k}" for k in KS] + ["MRR"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for suite, per_system in summary.items():
        for system, result in per_system.items():
            if result.get("error") and not result.get("scores"):
                cells = ["—"] + ["error"] + [""] * (2 * len(KS))
            else:
                scores = (result.get("scores") or {}).get(level)
                cells = [str(scores["n"]) if scores else "—", *_cells(scores)]
            lines.append(
                f"| {SUITE_TITLES.get(suite, suite)} | {system} | " + " | ".join(cells) + " |"
            )
    return "\n".join(lines)


def text_table(summary: dict[str, dict[str, Any]]) -> str:
    out = []
    for level in ("file", "symbol"):
        out.append(f"== {level} level ==")
        out.append(
            f"{'suite':<16}{'system':<19}{'n':>5} "
            + " ".join(f"{c:>6}" for c in [*(f"R@{k}" for k in KS), *(f"H@{k}" for k in KS), "MRR"])
        )
        for suite, per_system in summary.items():
            for system, result in per_system.items():
                scores = (result.get("scores") or {}).get(level)
                if result.get("error") and not result.get("scores"):
                    out.append(f"{suite:<16}{system:<19}  ERROR: {result['error'][:90]}")
                    continue
                n = str(scores["n"]) if scores else "-"
                out.append(
                    f"{suite:<16}{system:<19}{n:>5} " + " ".join(f"{c:>6}" for c in _cells(scores))
                )
    return "\n".join(out)


def per_job_table(per_job: list[dict[str, Any]]) -> str:
    """One line per (tree, system): file R@5/H@5/MRR and symbol H@5/MRR."""
    out = [
        f"{'suite/tree':<34}{'system':<19}{'fR@5':>6}{'fH@5':>6}{'fMRR':>6}{'sH@5':>6}{'sMRR':>6}"
    ]
    for j in per_job:
        name = f"{j['suite']}/{j['job']}"
        if j["error"]:
            out.append(f"{name:<34}{j['system']:<19}  ERROR")
            continue
        f, s = j["scores"].get("file"), j["scores"].get("symbol")
        cells = [
            f and f["recall@5"],
            f and f["hit@5"],
            f and f["mrr"],
            s and s["hit@5"],
            s and s["mrr"],
        ]
        out.append(f"{name:<34}{j['system']:<19}" + "".join(f"{_fmt(c):>6}" for c in cells))
    return "\n".join(out)


def headline(summary: dict[str, dict[str, Any]]) -> str:
    """The table the README reports: file and function hit@1/@5/MRR per (suite, system), and
    file Acc@1/@5 (all gold files in the first k) for the issue-localization suite."""
    head = ["suite", "system", "n", "file H@1", "file H@5", "file MRR"]
    head += ["def H@1", "def H@5", "def MRR", "Acc@1", "Acc@5"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for suite, per_system in summary.items():
        for system, result in per_system.items():
            scores = result.get("scores") or {}
            f, d, a = scores.get("file"), scores.get("symbol"), scores.get("file_acc")
            cells = [str(scores.get("n", "—"))]
            cells += [_fmt(f and f[k]) for k in ("hit@1", "hit@5", "mrr")]
            cells += [_fmt(d and d[k]) for k in ("hit@1", "hit@5", "mrr")]
            cells += [_fmt(a and a[k]) for k in ("acc@1", "acc@5")]
            if result.get("error") and not scores:
                cells = ["—", "error"] + [""] * 7
            lines.append(
                f"| {SUITE_TITLES.get(suite, suite)} | {system} | " + " | ".join(cells) + " |"
            )
    return "\n".join(lines)
