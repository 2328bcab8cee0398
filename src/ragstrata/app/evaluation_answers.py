"""Answer-level evaluation: does ``ask`` lead with the right code, and say "not found" honestly?

A case (one JSONL line, see ``bench/answers/README.md``) is ``{"id", "question", "gold":
[{"path", "start_line", "end_line"}], "expect": "answer" | "not_found", "session": [earlier
questions], "category", "lang", "language", "repo", "url", "commit"}``. The earlier questions
of a follow-up are asked first in a fresh session, then the question itself.

Judging one answer:

- ``expect == "not_found"`` (an invented symbol): passes when the answer's status is
  ``not_found``;
- otherwise it passes when the status is not ``not_found`` and one of the first
  :data:`TOP_CITATIONS` citations *counts*: it overlaps a gold span, and a citation longer than
  :data:`LONG_CITATION` lines counts only when it starts inside the gold span (citing a whole
  file or class is not leading with the answer);
- ``lead``: the first citation counts; ``false not-found``: a case that expects an answer got
  ``not_found``.

The report gives the pass rate, lead-correct rate and false not-found count overall, per
category, per question language (``ru`` / ``en``) and per programming language.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragstrata.app.evaluation import read_jsonl
from ragstrata.errors import UserError

if TYPE_CHECKING:
    from ragstrata.app.facade import Ragstrata
    from ragstrata.core.answer import Answer

__all__ = [
    "EXPECTS",
    "LONG_CITATION",
    "TOP_CITATIONS",
    "AnswerCase",
    "AnswerReport",
    "CaseResult",
    "GoldSpan",
    "answer_status",
    "check_gold",
    "citation_counts",
    "evaluate_answers",
    "judge",
    "load_answer_cases",
    "summarize",
]

TOP_CITATIONS = 3
LONG_CITATION = 80
EXPECTS = ("answer", "not_found")
_STATUSES = ("answered", "partial", "not_found")


@dataclass(frozen=True, slots=True)
class GoldSpan:
    """A span a correct answer leads with (1-based, inclusive)."""

    path: str
    start_line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class AnswerCase:
    """One benchmark question with its gold spans."""

    id: str
    question: str
    gold: tuple[GoldSpan, ...]
    expect: str = "answer"
    session: tuple[str, ...] = ()
    category: str = ""
    lang: str = ""
    language: str = ""
    repo: str = ""
    commit: str = ""


@dataclass(frozen=True, slots=True)
class CaseResult:
    """How one case was answered and judged."""

    case: AnswerCase
    status: str
    passed: bool
    lead: bool
    citations: tuple[tuple[str, int, int], ...]
    graph_id: str = ""
    intent: str = ""
    missing: tuple[str, ...] = ()

    @property
    def false_not_found(self) -> bool:
        return self.case.expect == "answer" and self.status == "not_found"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.case.id,
            "category": self.case.category,
            "lang": self.case.lang,
            "language": self.case.language,
            "question": self.case.question,
            "status": self.status,
            "passed": self.passed,
            "lead": self.lead,
            "false_not_found": self.false_not_found,
            "graph_id": self.graph_id,
            "intent": self.intent,
            "missing": list(self.missing),
            "citations": [f"{p}:{s}-{e}" for p, s, e in self.citations[:5]],
        }


@dataclass(frozen=True, slots=True)
class AnswerReport:
    """Scores of a run: overall, per category / question language / programming language."""

    n: int
    groups: dict[str, dict[str, dict[str, Any]]]
    overall: dict[str, Any]
    results: list[CaseResult] = field(default_factory=list)

    def to_dict(self, *, per_case: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n, "overall": self.overall, **self.groups}
        if per_case:
            out["cases"] = [r.to_dict() for r in self.results]
        return out


# ---------------------------------------------------------------------- loading
def _int(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise UserError(f"{where}: expected a positive line number, got {value!r}")
    return value


def _gold(value: Any, where: str) -> tuple[GoldSpan, ...]:
    if not isinstance(value, list):
        raise UserError(f"{where}: 'gold' must be a list of {{path, start_line, end_line}}")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            raise UserError(f"{where}: gold[{i}] needs a string 'path'")
        start = _int(item.get("start_line"), f"{where}: gold[{i}].start_line")
        end = _int(item.get("end_line"), f"{where}: gold[{i}].end_line")
        if end < start:
            raise UserError(f"{where}: gold[{i}] ends ({end}) before it starts ({start})")
        out.append(GoldSpan(item["path"].lstrip("./"), start, end))
    return tuple(out)


def load_answer_cases(path: Path) -> list[AnswerCase]:
    """The cases of a JSONL file; raises ``UserError`` naming the bad line and field."""
    cases: list[AnswerCase] = []
    for n, row in read_jsonl(path, "answer cases"):
        where = f"{path}:{n}"
        if not isinstance(row, dict) or not isinstance(row.get("question"), str):
            raise UserError(f"{where}: a case needs a string 'question'")
        expect = row.get("expect", "answer")
        if expect not in EXPECTS:
            raise UserError(f"{where}: 'expect' is {expect!r}; valid: {', '.join(EXPECTS)}")
        gold = _gold(row.get("gold", []), where)
        if expect == "answer" and not gold:
            raise UserError(f"{where}: a case that expects an answer needs 'gold' spans")
        session = row.get("session", [])
        if not isinstance(session, list) or not all(isinstance(q, str) for q in session):
            raise UserError(f"{where}: 'session' must be a list of earlier questions")
        cases.append(
            AnswerCase(
                id=str(row.get("id", f"a{n:03d}")),
                question=row["question"],
                gold=gold,
                expect=expect,
                session=tuple(session),
                category=str(row.get("category", "")),
                lang=str(row.get("lang", "")),
                language=str(row.get("language", "")),
                repo=str(row.get("repo", "")),
                commit=str(row.get("commit", "")),
            )
        )
    return cases


def check_gold(cases: Iterable[AnswerCase], tree: Path) -> list[str]:
    """Problems with the gold spans against a tree: missing files, spans past the end."""
    problems = []
    for case in cases:
        for span in case.gold:
            file = tree / span.path
            if not file.is_file():
                problems.append(f"{case.id}: no file {span.path}")
                continue
            count = len(file.read_text(encoding="utf-8", errors="replace").splitlines())
            if span.end_line > count:
                problems.append(
                    f"{case.id}: {span.path} has {count} lines, gold ends at {span.end_line}"
                )
    return problems


# ---------------------------------------------------------------------- judging
def citation_counts(citation: tuple[str, int, int], gold: Sequence[GoldSpan]) -> bool:
    """True when ``citation`` (path, start, end) overlaps a gold span; a citation longer than
    :data:`LONG_CITATION` lines must start inside that span."""
    path, start, end = citation
    long = end - start + 1 > LONG_CITATION
    for g in gold:
        if g.path != path or start > g.end_line or end < g.start_line:
            continue
        if not long or g.start_line <= start <= g.end_line:
            return True
    return False


def answer_status(answer: Answer) -> str:
    """``answered`` / ``partial`` / ``not_found`` of an answer."""
    status = getattr(answer, "status", None)
    if status in _STATUSES:
        return str(status)
    return "not_found" if answer.meta.get("mode") == "not_found" else "answered"


def judge(
    case: AnswerCase,
    status: str,
    citations: Sequence[tuple[str, int, int]],
    *,
    graph_id: str = "",
    intent: str = "",
    missing: Sequence[str] = (),
) -> CaseResult:
    """The verdict on one answer (see the module docstring)."""
    cites = tuple(citations)
    if case.expect == "not_found":
        passed = status == "not_found"
        lead = passed
    else:
        top = cites[:TOP_CITATIONS]
        passed = status != "not_found" and any(citation_counts(c, case.gold) for c in top)
        lead = status != "not_found" and bool(cites) and citation_counts(cites[0], case.gold)
    return CaseResult(
        case=case,
        status=status,
        passed=passed,
        lead=lead,
        citations=cites,
        graph_id=graph_id,
        intent=intent,
        missing=tuple(missing),
    )


def _scores(results: Sequence[CaseResult]) -> dict[str, Any]:
    n = len(results)
    answerable = [r for r in results if r.case.expect == "answer"]
    invented = [r for r in results if r.case.expect == "not_found"]
    return {
        "n": n,
        "pass": round(sum(r.passed for r in results) / n, 4) if n else None,
        "lead": round(sum(r.lead for r in answerable) / len(answerable), 4) if answerable else None,
        "false_not_found": sum(r.false_not_found for r in results),
        "invented_not_found": round(sum(r.passed for r in invented) / len(invented), 4)
        if invented
        else None,
    }


def summarize(results: Sequence[CaseResult]) -> AnswerReport:
    """The report of a run: overall scores and scores per category, lang and language."""
    groups: dict[str, dict[str, dict[str, Any]]] = {}
    for key in ("category", "lang", "language"):
        buckets: dict[str, list[CaseResult]] = defaultdict(list)
        for r in results:
            buckets[getattr(r.case, key) or "-"].append(r)
        groups[f"by_{key}"] = {name: _scores(rs) for name, rs in sorted(buckets.items())}
    return AnswerReport(
        n=len(results), groups=groups, overall=_scores(results), results=list(results)
    )


# ---------------------------------------------------------------------- running
def _ask(rs: Ragstrata, case: AnswerCase) -> CaseResult:
    from ragstrata.app.sessions import SessionStore

    session = None
    if case.session:
        session = f"answers-bench-{case.id}"[:64]
        SessionStore(rs.index_dir / "sessions").reset(session)
        for earlier in case.session:
            rs.ask(earlier, session=session)
    result = rs.ask(case.question, session=session)
    if session:
        SessionStore(rs.index_dir / "sessions").reset(session)
    answer = result.answer
    return judge(
        case,
        answer_status(answer),
        [(c.path, c.start_line, c.end_line) for c in answer.citations],
        graph_id=answer.graph_id,
        intent=str(result.plan.get("intent", "")),
        missing=result.evidence.missing,
    )


def evaluate_answers(
    rs: Ragstrata,
    cases: Sequence[AnswerCase],
    *,
    progress: Callable[[int, int], None] | None = None,
) -> AnswerReport:
    """Ask every case (its session's earlier questions first) and judge the answers."""
    results = []
    for i, case in enumerate(cases, start=1):
        results.append(_ask(rs, case))
        if progress is not None:
            progress(i, len(cases))
    return summarize(results)
