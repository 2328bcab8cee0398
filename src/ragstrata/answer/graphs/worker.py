"""The function a how-answer leads with when the definition ranked first only hands the work
on: a short wrapper gives the lead to the callee doing the work (a longer one, one with a loop,
the one whose body says most of the question's words), past a wrapper of a wrapper; a public
method gives it to the same-named method of another object it returns the call of
(``IndexMap::swap_remove_full`` -> ``self.core.swap_remove_full``). The calls are the index's
resolved ``calls`` relations (:func:`resolved_callees`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace

from ragstrata.answer.graphs.base import hit_from_scored
from ragstrata.answer.graphs.doing import (
    CREATING,
    ERROR_NAME,
    FAILING,
    TYPE_KINDS,
    body_text,
    code_span,
    constructs,
    doing_rank,
    last_name,
    loops,
    reports_failure,
)
from ragstrata.answer.graphs.worded import own_name, verb_named
from ragstrata.answer.graphs.words import words_in
from ragstrata.core.evidence import Hit
from ragstrata.core.languages import detect_language, is_test
from ragstrata.core.rows import DefinitionRow, RelationRow
from ragstrata.core.values import Direction, ScoredRow, SymbolMode, scored_row
from ragstrata.retrieve.reader import IndexReader

__all__ = ["called_worker", "detail_sources", "resolved_callees", "worker_first"]

_THIN_LINES = 8  # a wrapper: at most this many lines and no loop
_WORKER_WORDS = 2  # a wrapper's callee takes the lead with this many of the question's words
_WORKER_HOPS = 2  # how far a how-answer follows a thin wrapper to the function doing the work


def worker_first(
    defs: list[Hit],
    reader: IndexReader,
    groups: list[set[str]],
    verbs: Sequence[AbstractSet[str]] = (),
) -> list[Hit]:
    """A how-answer leads with the function that does the work: a short wrapper (no loop)
    whose resolved calls into the project's own code reach a longer function hands the lead
    to that callee — its only one, or the one whose body carries the most words of the
    question (``groups``, :func:`stem_groups`; at least :data:`_WORKER_WORDS`; ``Bind`` ->
    ``binding.Default``, the switch over JSON, XML and form content types) — at most
    :data:`_WORKER_HOPS` hops:
    ``Recovery`` -> ``RecoveryWithWriter`` -> the worker; the wrapper follows. A short leaf
    helper that calls nothing of the project (``_getMessage``) yields the lead to the next
    candidate with a body of its own (``prettifyError``, a loop over the issues), unless the
    question names it wholly by two words or more, a verb of it among them (``verbs``,
    :func:`verb_named`)."""
    lead = defs[0]
    hops = handed = 0
    creating = any(g & CREATING for g in groups)
    failing = any(g & FAILING for g in groups)
    while lead.kind in ("function", "method"):
        calls = reader.relations(lead.symbol or "", Direction.CALLEES, ("calls",))
        # a macro it expands (`some!(…)` unwrapping an option) is a helper, the error it
        # raises (`InvalidFrameError`) says what went wrong: neither does the work; nor does
        # the constructor a variant builds itself with (`new_case_insensitive` -> `new`),
        # unless the question asks how the thing is made
        callees = [
            row
            for row in resolved_callees(reader, lead.symbol or "", calls)
            if row.kind != "macro"
            and not _error_type(row)
            and (failing or not reports_failure(row.symbol))
            and (creating or not constructs(row.name, row.path, row.kind, row.text))
        ]
        delegate = _delegate(lead, callees, calls) if handed < _WORKER_HOPS else None
        if delegate is not None:  # handing the call on is no hop of the search
            lead, handed = delegate, handed + 1
            continue
        if hops == _WORKER_HOPS:
            break
        hops += 1
        # a one-statement body under a long docstring (`put` -> `self._update(...)`) is thin,
        # and hands on to a function (`parse` -> `Version(...)` builds the object: no worker)
        short = lead.end_line - lead.start_line <= _THIN_LINES
        if not short and code_span(lead.text) <= 1:
            short = True
            callees = [row for row in callees if row.kind in ("function", "method")]
        thin = short and not _loops_apart(lead.text, callees)
        if not thin:
            break  # a body with a loop, or a long one, does work of its own
        if (
            not callees
            and lead is defs[0]
            and len(defs) > 1
            and _works(defs[1])
            # a helper the question names wholly by two words or more, its verb among them
            # (`validateConcurrency` for «как проверяет значение параллельности»), is what
            # it asks about; a one-word name (`close`) is one step of the work asked
            and not (verb_named(lead, groups, verbs) and words_in(own_name(lead), groups) > 1)
            # nor does the method whose call the next one only hands on (`Core::swap_remove`
            # of `OrderedMap::swap_remove`): the next would hand the lead straight back
            and not _hands_to(defs[1], lead, reader)
        ):  # a leaf helper: the next candidate doing work leads
            lead = defs[1]
            break
        size = lead.end_line - lead.start_line
        # a longer callee, or one with a loop of its own (`runHandlers`: for each handler …)
        rows = [row for row in callees if _works_more(row, size)]
        if len(callees) != 1:
            rows = _best_worded(rows, groups)
        elif not rows and hops < _WORKER_HOPS:
            # a wrapper of a wrapper (`Time` -> `RelTime` -> `CustomRelTime`): no longer, but
            # the one it calls hands on to the worker
            rows = [r for r in resolved_callees(reader, callees[0].symbol) if _works_more(r, size)]
            hops += len(rows) == 1
        if len(rows) != 1:
            break
        lead = hit_from_scored(scored_row(rows[0], 0.0), "worker")
    inner = inner_function(lead, groups)
    if inner is not None:  # `gcd` inside `impl_integer_for_isize!`, not the macro's 400 lines
        return [inner, *(h for h in defs if h.symbol != lead.symbol)]
    if lead is defs[0]:
        return defs
    return [lead, *(h for h in defs if h.symbol != lead.symbol)]


_FN_LINE = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|unsafe|async|extern\s+\"\w+\")\s+)*fn\s+(\w+)"
)
_MACRO_BODY_LINES = 60  # a macro this long defines functions for many types in its body
_DOC_ABOVE = ("///", "//", "#[")


def inner_function(hit: Hit, groups: list[set[str]]) -> Hit | None:
    """The function inside a long macro body (``macro_rules!`` implementing a trait for every
    integer type) whose lines, with the doc comment above, say the most of the question: the
    definition the answer is about; None for anything else or when none says a word."""
    if hit.kind != "macro" or hit.end_line - hit.start_line < _MACRO_BODY_LINES or not groups:
        return None
    lines = hit.text.splitlines()
    best: tuple[int, int, int, str] | None = None
    for i, line in enumerate(lines):
        found = _FN_LINE.match(line)
        end = _block_end(lines, i) if found else None
        if found is None or end is None:
            continue
        top = i
        while top > 0 and lines[top - 1].strip().startswith(_DOC_ABOVE):
            top -= 1
        said = words_in("\n".join(lines[top : end + 1]), groups)
        if best is None or said > best[0]:
            best = (said, i, end, found.group(1))
    if best is None or best[0] == 0:
        return None
    _, first, last, name = best
    return replace(
        hit,
        start_line=hit.start_line + first,
        end_line=hit.start_line + last,
        symbol=f"{hit.symbol}::{name}",
        text="\n".join(lines[first : last + 1]),
        kind="function",
        row_id="",
        reasons=(*hit.reasons, "macro body"),
    )


def _block_end(lines: list[str], first: int) -> int | None:
    """The line closing the braced block that opens at ``first``; None for a declaration."""
    depth, opened = 0, False
    for n in range(first, len(lines)):
        for char in lines[n]:
            if char == "{":
                depth, opened = depth + 1, True
            elif char == "}":
                depth -= 1
        if opened and depth <= 0:
            return n
        if not opened and lines[n].rstrip().endswith(";"):
            return None
    return None


def _error_type(row: DefinitionRow) -> bool:
    """True for an error type (a class or struct named as one)."""
    return row.kind in TYPE_KINDS and bool(ERROR_NAME.search(last_name(row.symbol)))


def _loops_apart(text: str, callees: list[DefinitionRow]) -> bool:
    """:func:`loops` outside the lines calling one of ``callees``: the ``.map(…)`` of what a
    wrapper hands on (``find_ansi_code(&mut self.it).map(|(start, end)| Match {…})``) is no
    loop of its own."""
    calls = [re.compile(rf"\b{re.escape(last_name(r.symbol))}\s*\(") for r in callees]
    return loops("\n".join(ln for ln in text.splitlines() if not any(c.search(ln) for c in calls)))


def _hands_to(hit: Hit, target: Hit, reader: IndexReader) -> bool:
    """True when ``hit`` only hands its call on to ``target`` (:func:`_delegate`)."""
    if hit.kind not in ("function", "method") or not hit.symbol:
        return False
    calls = reader.relations(hit.symbol, Direction.CALLEES, ("calls",))
    handed = _delegate(hit, resolved_callees(reader, hit.symbol, calls), calls)
    return handed is not None and handed.symbol == target.symbol


def _delegate(lead: Hit, callees: list[DefinitionRow], calls: list[ScoredRow]) -> Hit | None:
    """The same-named method of another object that ``lead`` hands its call on to (a public
    ``IndexMap::swap_remove_full`` -> ``self.core.swap_remove_full``): that one does the work.
    Not a call of the parent's own version (``super().unsign(...)``): an override does work of
    its own; nor from a body with a loop, nor when the call's result is not what it returns."""
    name = last_name(lead.symbol or "")
    same = [row for row in callees if last_name(row.symbol) == name]
    at = _handed_at(lead.text, name)
    if len(same) != 1 or at is None:
        return None  # `cb.counts.onFailure()` counts; the `onFailure` around it decides
    lines = lead.text.splitlines()
    if loops("\n".join(lines[:at] + lines[at + 1 :])):
        return None  # a loop of its own (the `.map(…)` of what it hands on is none)
    sites = [
        s.row.to_name
        for s in calls
        if isinstance(s.row, RelationRow) and s.row.to_symbol == same[0].symbol
    ]
    if not sites or any(_PARENT_CALL.search(site) for site in sites):
        return None
    hit = hit_from_scored(scored_row(same[0], 0.0), "worker")
    # an abstract method (`raise NotImplementedError()`) or an accessor is no worker
    return hit if doing_rank(hit) == (False, 0) else None


def _handed_at(text: str, name: str) -> int | None:
    """The line of ``text`` whose call of ``.name(...)`` gives what it returns: ``return
    this.core.name(…)``, or the call is its last statement (``self.core.name(…)`` ending a Rust
    block, ``Ok(match self.inner.name(…)? { … })``), not one step among others; else None."""
    call = re.compile(rf"\.{re.escape(name)}\s*\(")
    lines = text.splitlines()
    for k, line in enumerate(lines):
        match = call.search(line)
        if match is None:
            continue
        before = line[: match.start()]
        if re.search(r"\breturn\b", before):
            return k
        if line.rstrip().endswith(";") or re.search(r"(?<![=!<>])=(?!=)", before):
            continue
        indent = len(line) - len(line.lstrip())
        rest = [ln for ln in lines[k + 1 :] if ln.strip()]
        if all(len(ln) - len(ln.lstrip()) > indent or ln.strip()[0] in "})]" for ln in rest):
            return k
    return None


_PARENT_CALL = re.compile(r"\bsuper\b|^base\.|^parent::|^Super\b")


def resolved_callees(
    reader: IndexReader, symbol: str, calls: list[ScoredRow] | None = None
) -> list[DefinitionRow]:
    """The project's own definitions ``symbol`` calls: its calls resolved exactly, each target
    once, by name. ``calls``: its call rows, when the caller read them already."""
    if calls is None:
        calls = reader.relations(symbol, Direction.CALLEES, ("calls",)) if symbol else []
    targets = {
        s.row.to_symbol
        for s in calls
        if isinstance(s.row, RelationRow) and s.row.to_symbol and s.row.resolution == "exact"
    }
    rows = []
    for target in sorted(targets):
        row = reader.resolver.resolve(target, limit=1, modes=(SymbolMode.QUALIFIED,)).best
        if row is not None and row.symbol != symbol:
            rows.append(row)
    return rows


_CALLED_WINDOW = 8  # the how-ranking's candidates whose calls say which one the others use
_CALLED_SCORE = 0.7  # ... the second's retrieval score at least this share of the lead's


def called_worker(head: list[Hit], reader: IndexReader, groups: list[set[str]]) -> list[Hit]:
    """``head`` with its second candidate first when more of the first
    :data:`_CALLED_WINDOW` candidates call it than call the lead (resolved ``calls``
    relations, :func:`resolved_callees`), its body carries as many of the question's words
    (``groups``) and retrieval scored it at least :data:`_CALLED_SCORE` of the lead's: the
    function the retrieved entry points share does the work they describe."""
    if len(head) < 2:
        return head
    lead, second = head[0], head[1]
    functions = ("function", "method")
    if (lead.kind in functions) != (second.kind in functions) or _holds(lead, second):
        return head  # a function holding the other is for `_nested_worker` to weigh
    window = head[:_CALLED_WINDOW]
    called: dict[str, int] = {}
    for hit in window:
        if hit.kind in functions and hit.symbol:
            for row in {r.symbol for r in resolved_callees(reader, hit.symbol)}:
                called[row] = called.get(row, 0) + 1
    if called.get(second.symbol or "", 0) <= called.get(lead.symbol or "", 0):
        return head
    if words_in(second.text, groups) < words_in(lead.text, groups):
        return head
    if second.score < _CALLED_SCORE * lead.score:
        return head  # retrieval found it much the weaker match: the calls only tip a close one
    return [second, lead, *head[2:]]


def _holds(one: Hit, other: Hit) -> bool:
    """True when one of the two definitions lies inside the other."""
    if one.path != other.path:
        return False
    return (one.start_line <= other.start_line and other.end_line <= one.end_line) or (
        other.start_line <= one.start_line and one.end_line <= other.end_line
    )


_DETAIL_CALLEES = 6  # a detail may be answered by this many of the topic's callees ...
_DETAIL_MEMBERS = 12  # ... or of a type's own methods
_MEMBER_KINDS = frozenset({"function", "method", "constructor", "property"})


def detail_sources(reader: IndexReader, topic: Hit) -> list[Hit]:
    """Where else the lines answering a detail of ``topic`` may be: the functions it calls
    ("what does it do for HEAD?" answered in the dispatch it hands the request to), and for a
    type its own methods ("what if the period of the cgroup is zero?" answered in
    ``Cgroup::cpu_quota``), the project's code only."""
    symbol = topic.symbol or ""
    rows = resolved_callees(reader, symbol)[:_DETAIL_CALLEES]
    if (topic.kind in TYPE_KINDS or topic.kind == "impl") and symbol:
        rows += [
            row
            for row in reader.outline(topic.path)
            if row.kind in _MEMBER_KINDS
            and (
                row.parent == symbol
                or _member(row.symbol, symbol)
                or _constructs(row.signature, last_name(symbol))
            )
        ][:_DETAIL_MEMBERS]
    return [
        hit_from_scored(scored_row(row, 0.0), "callee")
        for row in rows
        if not is_test(row.path, detect_language(row.path))
    ]


def _member(symbol: str, owner: str) -> bool:
    """True for ``owner``'s own member: ``crate::linux::Cgroup::cpu_quota`` of
    ``crate::linux::Cgroup``, ``queries.Query.matches`` of ``queries.Query``."""
    sep = _MEMBER_SEP.match(symbol, len(owner)) if symbol.startswith(owner) else None
    return sep is not None and not _MEMBER_SEP.search(symbol, sep.end())


_MEMBER_SEP = re.compile(r"::|[.#]")


def _constructs(signature: str, name: str) -> bool:
    """True for a function returning a value of type ``name`` its signature writes after the
    parameters: Go's ``func New(path string) *Flock``, ``(*Flock, error)``."""
    return bool(name) and re.search(rf"\)\s*\(?\*?{re.escape(name)}\b", signature) is not None


def _works_more(row: DefinitionRow, size: int) -> bool:
    """A callee longer than a wrapper of ``size`` lines, or with a loop of its own."""
    return row.end_line - row.start_line > size or loops(body_text(row.text))


def _works(hit: Hit) -> bool:
    """A function or method with a body of its own: longer than a wrapper, or a loop."""
    if hit.kind not in ("function", "method"):
        return False
    return hit.end_line - hit.start_line > _THIN_LINES or loops(hit.text)


def _best_worded(rows: list[DefinitionRow], groups: list[set[str]]) -> list[DefinitionRow]:
    """The one row whose text carries the most of the question's word groups (at least
    :data:`_WORKER_WORDS`), or none when two tie."""
    scored = [(words_in(row.text, groups), row) for row in rows]
    scored.sort(key=lambda pair: -pair[0])
    if not scored or scored[0][0] < _WORKER_WORDS:
        return []
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return []
    return [scored[0][1]]
