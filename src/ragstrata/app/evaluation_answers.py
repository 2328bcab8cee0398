"""Answer-level evaluation: does ``ask`` lead with the right code, and say "not found" honestly?

A case (one JSONL line, see ``bench/answers/README.md``) is ``{"id", "question", "gold":
[{"path", "start_line", "end_line"}], "expect": "answer" | "not_found", "session": [earlier
questions], "category", "lang", "language", "repo", "url", "commit"}``. The earlier questions
of a follow-up are asked first in a fresh session, then the question itself.

Optional case flags: ``strict`` (a detail follow-up: judged by the lines that answer),
``names_project`` (the question names the project) and ``plain`` (no identifier of the answer in
the question). Files without them load as before.

Judging one answer:

- the answer is a **not-found** when its status is ``not_found`` *or* its lead opens with a
  not-found sentence ("Definition of `gin` not found.", «… не найдено.»), whatever it cites;
- ``expect == "not_found"`` (an invented symbol): passes when the answer is a not-found;
- otherwise it passes when the answer is not a not-found and one of the first
  :data:`TOP_CITATIONS` citations *counts*:

  - for a ``strict`` case the citation must lie within a gold span widened by
    :data:`STRICT_SLACK` lines on each side (citing the whole definition around the answering
    lines is not answering the detail);
  - otherwise it must overlap a gold span, and a *long* citation (more than
    :data:`LONG_CITATION` lines, or more than :data:`SPAN_FACTOR` times the gold span and more
    than :data:`SPAN_FLOOR` lines) counts only when it starts inside that span: a citation that
    merely contains the answer inside a much larger span is not leading with it;
- ``lead`` (the primary score): the answer is not a not-found and its first citation counts;
  ``false not-found``: a case that expects an answer got a not-found.

The report gives the lead-correct rate, pass rate and false not-found count overall, per
category, per question language (``ru`` / ``en``), per programming language, per flag
(``strict``, ``plain``, ``names_project``) and per category and question language.
"""

from __future__ import annotations

import re
import uuid
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
    "FLAGS",
    "LONG_CITATION",
    "SPAN_FACTOR",
    "SPAN_FLOOR",
    "STRICT_SLACK",
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
    "opens_not_found",
    "summarize",
]

TOP_CITATIONS = 3
LONG_CITATION = 80
SPAN_FACTOR = 3
SPAN_FLOOR = 10
STRICT_SLACK = 2
OPENING_CHARS = 240
FLAGS = ("strict", "plain", "names_project")
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
    strict: bool = False
    names_project: bool = False
    plain: bool = False

    @property
    def flags(self) -> tuple[str, ...]:
        """The names of the flags this case has (see :data:`FLAGS`)."""
        return tuple(name for name in FLAGS if getattr(self, name))


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
    opening: str = ""

    @property
    def not_found(self) -> bool:
        """The status is ``not_found`` or the lead opens by saying so."""
        return self.status == "not_found" or opens_not_found(self.opening)

    @property
    def false_not_found(self) -> bool:
        return self.case.expect == "answer" and self.not_found

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.case.id,
            "category": self.case.category,
            "lang": self.case.lang,
            "language": self.case.language,
            "question": self.case.question,
            "status": self.status,
            "not_found": self.not_found,
            "opening": self.opening,
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


def _flag(row: dict[str, Any], name: str, where: str) -> bool:
    value = row.get(name, False)
    if not isinstance(value, bool):
        raise UserError(f"{where}: '{name}' must be true or false, got {value!r}")
    return value


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
                strict=_flag(row, "strict", where),
                names_project=_flag(row, "names_project", where),
                plain=_flag(row, "plain", where),
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
def _is_long(length: int, gold: GoldSpan) -> bool:
    span = gold.end_line - gold.start_line + 1
    return length > LONG_CITATION or length > max(SPAN_FACTOR * span, SPAN_FLOOR)


def citation_counts(
    citation: tuple[str, int, int], gold: Sequence[GoldSpan], *, strict: bool = False
) -> bool:
    """True when ``citation`` (path, start, end) leads with a gold span.

    Strict (a detail case): the citation lies within a gold span widened by
    :data:`STRICT_SLACK` lines. Otherwise it overlaps a gold span, and a long citation (see
    :func:`_is_long`) must start inside that span."""
    path, start, end = citation
    length = end - start + 1
    for g in gold:
        if g.path != path:
            continue
        if strict:
            if g.start_line - STRICT_SLACK <= start and end <= g.end_line + STRICT_SLACK:
                return True
            continue
        if start > g.end_line or end < g.start_line:
            continue
        if not _is_long(length, g) or g.start_line <= start <= g.end_line:
            return True
    return False


_CODE = re.compile(r'`[^`]*`|"[^"]*"|«[^»]*»|“[^”]*”')
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s|\n")
_NOT_FOUND = re.compile(
    r"(?:\bnot\s+found|\bdoes\s+not\s+exist|\bне\s+найден\w*|\bне\s+существует)\W*$"
    r"|^(?:no|nothing)\b.*\bfound\b"
    r"|^(?:i\s+)?(?:could\s+not|couldn't|cannot|can't|did\s+not|didn't)\s+find\b"
    r"|^(?:не\s+удалось\s+найти|ничего\s+не\s+найдено)",
    re.IGNORECASE,
)
_CONDITION = re.compile(r"\b(?:when|if|unless|если|когда)\b", re.IGNORECASE)


def opens_not_found(text: str) -> bool:
    """True when the first sentence (or clause up to ``;``) of ``text`` says that something was
    not found: it ends with
    "not found" («не найдено»), or opens with "No … found", "Could not find" («Не удалось
    найти»). Quoted text and code spans are dropped first, so a lead that quotes an error
    message (`ErrNotFound`, "no matching route was found") or describes a branch ("returns 404
    when the route is not found", «если маршрут не найден») is not taken for a not-found."""
    stripped = _CODE.sub(" ", text).lstrip(" #*>-\n\t")
    first = _SENTENCE_END.split(stripped, maxsplit=1)[0] if stripped else ""
    return bool(_NOT_FOUND.search(first)) and not _CONDITION.search(first)


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
    opening: str = "",
) -> CaseResult:
    """The verdict on one answer (see the module docstring); ``opening`` is the answer's lead
    (or the start of its text)."""
    cites = tuple(citations)
    opening = opening[:OPENING_CHARS]
    not_found = status == "not_found" or opens_not_found(opening)
    if case.expect == "not_found":
        passed = not_found
        lead = passed
    else:

        def counts(citation: tuple[str, int, int]) -> bool:
            return citation_counts(citation, case.gold, strict=case.strict)

        passed = not not_found and any(counts(c) for c in cites[:TOP_CITATIONS])
        lead = not not_found and bool(cites) and counts(cites[0])
    return CaseResult(
        case=case,
        status=status,
        passed=passed,
        lead=lead,
        citations=cites,
        graph_id=graph_id,
        intent=intent,
        missing=tuple(missing),
        opening=opening,
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
    """The report of a run: overall scores and scores per category, lang, language, flag and
    category x lang."""
    keys: dict[str, Callable[[AnswerCase], Iterable[str]]] = {
        "by_category": lambda c: [c.category or "-"],
        "by_lang": lambda c: [c.lang or "-"],
        "by_language": lambda c: [c.language or "-"],
        "by_flag": lambda c: c.flags,
        "by_category_lang": lambda c: [f"{c.category or '-'}/{c.lang or '-'}"],
    }
    groups: dict[str, dict[str, dict[str, Any]]] = {}
    for key, names in keys.items():
        buckets: dict[str, list[CaseResult]] = defaultdict(list)
        for r in results:
            for name in names(r.case):
                buckets[name].append(r)
        groups[key] = {name: _scores(rs) for name, rs in sorted(buckets.items())}
    return AnswerReport(
        n=len(results), groups=groups, overall=_scores(results), results=list(results)
    )


# ---------------------------------------------------------------------- running
def _ask(rs: Ragstrata, case: AnswerCase) -> CaseResult:
    from ragstrata.app.sessions import SessionStore

    session = None
    if case.session:
        # a name of this run's own: two runs over one repository (two code versions compared
        # side by side) never reset or extend each other's conversation
        session = f"answers-bench-{uuid.uuid4().hex[:12]}-{case.id}"[:64]
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
        opening=answer.lead or answer.text,
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
