"""CodeQAGraph: a code question answered from definitions, call sites and quoted lines.

Extractive answer, in order: the lines that answer a detail, the parts of an overview or a
usage section when asked; each definition found (qualified name, kind, signature, docstring,
``path:start-end``; the working function of a how-question, with its matching lines), where it
is called from and what it calls (C2, ``path:line``), then the most relevant code lines and doc
sections quoted with line numbers. Every span shown is cited. Which definitions come first is
:mod:`~ragstrata.answer.graphs.ranking`'s.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ragstrata.answer.graphs.base import (
    CitationList,
    blockquote,
    cite,
    disjoint_hits,
    hit_from_scored,
    overlaps,
    project_words,
    quote_block,
    quote_hits,
)
from ragstrata.answer.graphs.central import overview_parts
from ragstrata.answer.graphs.common import EvidenceGraph
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.answer.graphs.doing import TYPE_KINDS
from ragstrata.answer.graphs.focus import literal_hits, question_names, term_hits, typed_names
from ragstrata.answer.graphs.follow_up import (
    asks_a_detail,
    best_detail,
    follow_up_order,
    how_inside_topic,
    lines_lead,
    names_any,
)
from ragstrata.answer.graphs.messages import Messages
from ragstrata.answer.graphs.missing import nothing_found_answer
from ragstrata.answer.graphs.ranking import (
    MAX_DEFINITIONS,
    definition_hits,
    doing_rank,
    word_named_type,
)
from ragstrata.answer.graphs.relations import (
    MAX_RELATED,
    call_sites,
    hit_items,
    is_possible,
    lead_items,
    relation_items,
    test_uses,
)
from ragstrata.answer.graphs.sections import (
    has_body,
    heading_section,
    quoted_section,
    topic_sections,
)
from ragstrata.answer.graphs.settings import settings_part
from ragstrata.answer.graphs.words import stem_groups
from ragstrata.answer.graphs.worker import detail_sources, worker_first
from ragstrata.core.answer import Answer
from ragstrata.core.evidence import Evidence, Hit
from ragstrata.core.languages import is_inline_test
from ragstrata.core.names import last_segment
from ragstrata.core.paths import peripheral_path
from ragstrata.core.question import QuestionFacets
from ragstrata.core.rows import DefinitionRow, RelationRow
from ragstrata.core.values import Direction, SearchFilters
from ragstrata.query.facets import facets_of
from ragstrata.query.models import AnchorType, RouterPlan
from ragstrata.query.plan_fields import ANSWER_TOPIC
from ragstrata.retrieve.fusion import merge_same_symbol

__all__ = ["MAX_DEFINITIONS", "MAX_RELATED", "MAX_SNIPPETS", "CodeQAGraph", "overlaps"]


MAX_SNIPPETS = 3
_QUOTED_LAYERS = ("C1", "C3", "D1", "D2")
_HOW_LINES_SCORE = 4.0  # a how-answer quotes the lines of the body that match two question words
# A type is used, not called: its constructions and the declarations naming it count too
_USE_RELATIONS = ("calls", "constructs", "references")
_CALL_KEYS = {
    "callers": "callers",
    "no_callers": "no_callers",
    "lead_callers": "lead_callers",
    "lead_no_callers": "lead_no_callers",
    "lead_called_count": "lead_called_count",
}
_USE_KEYS = {
    "callers": "uses_of",
    "no_callers": "no_uses",
    "lead_callers": "lead_uses",
    "lead_no_callers": "lead_no_uses",
    "lead_called_count": "lead_used_count",
}
_NON_TEST = SearchFilters(is_test=False)


class CodeQAGraph(EvidenceGraph):
    """Answers CODE_QA plans."""

    graph_id = "CodeQAGraph"

    def extractive(self, plan: RouterPlan, evidence: Evidence, msgs: Messages) -> Answer:
        if not evidence.hits:
            return nothing_found_answer(plan, self.graph_id)
        focus = facets_of(plan)
        citations = CitationList()
        parts: list[str] = []
        shown: list[tuple[str, int, int]] = []
        lead = ""
        names = question_names(plan, how=focus.how)
        defs = definition_hits(
            plan,
            evidence,
            focus,
            reader=self.reader,
            # a question of a conversation reads its topic first (see below)
            own_first=not (focus.tests or focus.mentions_tests or focus.mentions_aside)
            and not _answered_topic(plan, typed=False),
        )
        if focus.how and defs:
            groups = stem_groups(focus.concepts, project_words(plan))
            defs = worker_first(defs, self.reader, groups, stem_groups(focus.verbs, set()))
        if focus.tests and names:
            tests_part, lead = test_uses(
                self.resolver, names[0], defs, evidence, msgs, citations, MAX_SNIPPETS
            )
            if tests_part:
                parts.append(tests_part)
        topic = _answered_topic(plan)
        if topic:  # the previous answer's guess leads only where its lines answer best
            names = [n for n in names if n != topic]
        typed = [n for n in typed_names(plan) if n != topic]
        carried = _answered_topic(plan, typed=False)
        # a name the question writes that nothing defines (looked up only when it matters)
        undefined = bool(carried and typed and (focus.details or focus.how)) and not any(
            self._defined(n, exact=True) for n in typed
        )
        if how_inside_topic(plan, focus, defs, topic or (carried if undefined else "")):
            focus = replace(focus, details=frozenset({"unmarked"}))
        if carried and focus.details and undefined:
            # «а что с HEAD-запросом, если метода head в классе нет?»: a name defined nowhere
            # is a word of the detail asked about the topic, not a new subject (nor does it
            # name `__enter__` for "Enter")
            loose = {last_segment(n).lower() for n in typed}
            defs = [
                h for h in defs if last_segment(h.symbol or "").strip("_").lower() not in loose
            ] or self._resolved([carried])
            names, typed, topic = [], [], carried
        if names and not any(names_any(h, names) for h in defs):
            # retrieval ranked no definition of the name asked about (a topic carried from the
            # session, a lookup scoped to tests): the one resolver's definitions lead
            resolved = self._resolved(names, focus.kinds, how=focus.how)
            if focus.how:
                resolved = [h for h in resolved if not word_named_type(h, names)]
            defs = resolved or defs
        if focus.callers and len(defs) > 1:
            defs = self._called_first(defs)
        if "parts" in focus.topics and not names:
            found = overview_parts(self.reader, msgs, citations)
            if found is not None:
                parts += found[0]
                lead = found[1]
                defs = []
        if "usage" in focus.topics and not names and not focus.how:
            usage = self._usage_part(focus, msgs, citations)
            if usage is not None:
                parts.append(usage[0])
                lead = usage[1]
        setting = None
        # «а если значение по умолчанию не передано?» after an answer asks a detail of its topic
        if focus.configure and not names and not lead and not (topic and focus.details):
            setting = settings_part(self.reader, plan, evidence, focus, msgs, citations)
            if setting is not None:
                parts.append(setting[0])
                lead = setting[1]
        if "howto" in focus.asks and not (focus.how or focus.configure or names or lead):
            # "How do I serve static files?": the documentation section headed so leads
            howto = self._heading_part(plan, focus, msgs, citations)
            if howto is not None:
                parts.append(howto[0])
                lead = howto[1]
        if setting is None and asks_a_detail(plan, focus, defs, typed):
            if topic:  # a test or an example found for the follow-up answers nothing of it
                ordered = follow_up_order(
                    self._topic(topic), defs, evidence, focus, self.definition, MAX_DEFINITIONS + 1
                )
                defs = ordered or defs
            # the lines may be in a function it calls or a method of the type it is
            sources = detail_sources(self.reader, defs[0])
            better = best_detail([defs[0], *sources], focus, self.definition, keep=True)
            defs = [better[0], *(h for h in defs if h is not better[0])]
            mark = len(citations.items())
            detail = self._detail_part(defs[0], focus, msgs, citations, chosen=True)
            if detail is not None:
                part, lead = detail
                # the lines the lead names open the answer, before a usage text quoted so far
                parts.insert(0, part)
                citations.promote(mark)
        # how-questions: a word naming no definition (`BigInteger`) is a search term, no answer
        unnamed_term = "" if focus.how else self._unmet_term(plan, evidence, names)
        if unnamed_term:
            term = self._term_part(unnamed_term, evidence, msgs, citations)
            if term is not None:
                parts.append(term[0])
                lead = lead or term[1]
            defs = []
        for n, hit in enumerate(defs):
            doing = None
            # «а как …» about the topic of the conversation: its lines lead, not its card again
            if n == 0 and focus.how and not focus.details and lines_lead(plan, carried, hit):
                doing = self._detail_part(hit, focus, msgs, citations, least=_HOW_LINES_SCORE)
                if doing is not None:
                    parts.append(doing[0])
                    lead = lead or doing[1]
            part, def_lead = self._definition_part(hit, msgs, citations, focus, first=n == 0)
            parts.append(part)
            lead = lead or def_lead
            shown.append((hit.path, hit.start_line, hit.end_line))
            if n == 0 and focus.how and not focus.details and doing is None:
                # the lines of its body that match the question's words, cited tightly
                doing = self._detail_part(hit, focus, msgs, citations, least=_HOW_LINES_SCORE)
                if doing is not None:
                    parts.append(doing[0])
        flow = evidence.requirements.get("require_flow")
        extra_flow = [h for h in (flow.hits if flow else ()) if h.layer == "C2"]
        if not shown and extra_flow:
            parts.append(hit_items(msgs.t("callers"), extra_flow, msgs, citations))
        snippets = quote_hits(
            evidence.hits,
            citations,
            list(shown) if focus.how else [],
            lambda h: (
                h.layer in _QUOTED_LAYERS
                and (h.layer not in ("D1", "D2") or has_body(h.text, h.heading_path or ""))
            ),
            MAX_SNIPPETS,
        )
        if snippets:
            parts.append(msgs.t("relevant_code") + "\n\n" + "\n\n".join(snippets))
        if not parts:  # only file-level or relation rows that answer nothing by themselves
            return nothing_found_answer(plan, self.graph_id)
        if not lead and citations.items():
            c = citations.items()[0]
            lead = msgs.t("lead_relevant", cite=cite(c.path, c.start_line, c.end_line))
        answer = self.extractive_answer(parts, citations, msgs, lead=lead)
        if defs and defs[0].symbol and setting is None:
            answer.meta["topic"] = defs[0].symbol  # what a follow-up may ask about
            # a name the question wrote that nothing defines is no topic of the conversation
            answer.meta["undefined"] = [n for n in typed_names(plan) if not self._defined(n)]
        return answer

    # ------------------------------------------------------------------ parts
    def _usage_part(
        self, focus: QuestionFacets, msgs: Messages, citations: CitationList
    ) -> tuple[str, str] | None:
        """ "How do I search for files with an extension?": the usage section of the docs
        answers how to use the program (the code behind it follows); and the lead."""
        for section in topic_sections(self.reader, self.reader.paths(), ["usage"], focus.words, 1):
            part, lead, _ = quoted_section(section, msgs, citations, "code:usage")
            return part, lead
        return None

    def _heading_part(
        self, plan: RouterPlan, focus: QuestionFacets, msgs: Messages, citations: CitationList
    ) -> tuple[str, str] | None:
        """The documentation section whose heading is made of the question's words, quoted,
        and the lead."""
        section = heading_section(
            self.reader, self.reader.paths(), focus.concepts, project_words(plan)
        )
        if section is None:
            return None
        groups = stem_groups(focus.concepts, project_words(plan))
        part, lead, _ = quoted_section(section, msgs, citations, "code:heading", groups)
        return part, lead

    def _term_part(
        self, term: str, evidence: Evidence, msgs: Messages, citations: CitationList
    ) -> tuple[str, str] | None:
        """No definition carries the name: the lines that write it (an option, an environment
        variable, a header), and the lead saying where it appears."""
        found = term_hits(self.reader, term) + literal_hits(evidence.hits, [term])
        quotes = quote_hits(found, citations, [], lambda h: True, MAX_SNIPPETS)
        if not quotes:
            return None
        lead = msgs.t("lead_term", target=term, cite=found[0].citation)
        return msgs.t("relevant_code") + "\n\n" + "\n\n".join(quotes), lead

    def _detail_part(
        self,
        hit: Hit,
        focus: QuestionFacets,
        msgs: Messages,
        citations: CitationList,
        *,
        least: float = 0.0,
        chosen: bool = False,
    ) -> tuple[str, str] | None:
        """The lines of the definition that answer a detail question, cited first, and the
        lead sentence; None when no line of it matches the question (the card answers) or
        the best match scores under ``least``. ``chosen``: the definition a detail follow-up
        is answered from (the lines saying its own name answer before its card again)."""
        row = self.definition(hit)
        span = answering_lines(row, focus, shown=chosen) if row is not None else None
        if row is None or span is None or span.score < least:
            return None
        cited = citations.add(row.path, span.start_line, span.end_line)
        offset = span.start_line - row.start_line
        lines = row.text.splitlines()[offset : offset + span.end_line - span.start_line + 1]
        part = (
            msgs.t("detail", symbol=row.symbol, cite=cited)
            + "\n"
            + quote_block(row.path, "\n".join(lines), span.start_line)
        )
        return part, msgs.t("lead_detail", symbol=row.symbol, cite=cited)

    def _called_first(self, defs: list[Hit]) -> list[Hit]:
        """ "Who calls X?" with several definitions named alike (``Base#compile!`` and a
        plugin's ``compile!``): the one the code resolves calls to leads."""
        last = {last_segment(h.symbol or "") for h in defs}
        if len(last) != 1:
            return defs
        called = [
            bool(
                [
                    r
                    for r in self._relations(h.symbol or "", Direction.CALLERS)
                    if not is_possible(r)
                ]
            )
            for h in defs
        ]
        order = sorted(range(len(defs)), key=lambda n: not called[n])
        return [defs[n] for n in order]

    def _resolved(
        self, names: list[str], kinds: tuple[str, ...] = (), *, how: bool = False
    ) -> list[Hit]:
        """Definitions the one resolver finds for the question's names when retrieval's own
        lookup (scoped by the plan) found none; of the kind the question names first (for a
        how-question, only the project's own code)."""
        out: list[Hit] = []
        for name in names:
            match = self.resolver.resolve(name, _NON_TEST, limit=5)
            out += [hit_from_scored(r, "resolver") for r in match.definitions]
        if how:  # the project's own code, and no module declaration ("in the race module, …")
            out = [h for h in out if not doing_rank(h)[0] and h.kind != "module"]
        out = merge_same_symbol(out)  # `@overload` stubs: the implementation, the longest
        out.sort(key=lambda h: (peripheral_path(h.path), bool(kinds) and h.kind not in kinds))
        return disjoint_hits(out)[:MAX_DEFINITIONS]

    def _topic(self, topic: str) -> list[Hit]:
        """The definitions of the conversation's topic: the one of that very name when there
        is one (``Bucket.take``'s follow-up is not about ``Bucket.Take``)."""
        found = self._resolved([topic])
        return [h for h in found if h.symbol == topic] or found

    def _defined(self, name: str, *, exact: bool = False) -> bool:
        """True when the project's own code (tests aside) defines ``name`` (``exact``: by that
        very name, any case: "Enter" is no ``__enter__``)."""
        match = self.resolver.resolve(name, _NON_TEST, limit=5)
        # a Rust unit test beside the code (`tests::bufread`) defines nothing a user names
        # (`BufRead`), as a test file does not
        found = [d for d in match.definitions if not is_inline_test(d.symbol or "", d.row.language)]
        if not exact:
            return bool(found)
        want = last_segment(name).lower()
        return any(last_segment(d.symbol or "").lower() == want for d in found)

    def _unmet_term(self, plan: RouterPlan, evidence: Evidence, names: list[str]) -> str:
        """The name the question uses when no definition carries it (a key term: an option,
        an environment variable, a header) — answered from the lines that contain it."""
        if "require_def" not in evidence.missing or not names:
            return ""
        # a name defined only in tests (a fixture constant) is a key term of the code
        unmet = [n for n in names if not self._defined(n)]
        if not unmet:
            return ""
        # the most identifier-like name: GIN_MODE over a plain word such as the project name
        best = max(reversed(unmet), key=_identifier_likeness)
        return last_segment(best) if "." in best else best

    def _definition_part(
        self,
        hit: Hit,
        msgs: Messages,
        citations: CitationList,
        focus: QuestionFacets,
        *,
        first: bool,
    ) -> tuple[str, str]:
        """The definition with its signature (its body for a how-question), docstring,
        callers and callees; and, for the first one, the lead sentence."""
        row = self.definition(hit)
        symbol = row.symbol if row else (hit.symbol or hit.path)
        kind = row.kind if row else (hit.kind or "definition")
        typed = kind in TYPE_KINDS
        keys = _USE_KEYS if typed else _CALL_KEYS
        uses = _USE_RELATIONS if typed else ("calls",)
        callers = self._relations(symbol, Direction.CALLERS, uses) if kind != "module" else []
        lead = ""
        callers_part = ""
        if callers and focus.callers:  # cited first: the call sites answer the question
            callers_part = relation_items(msgs.t(keys["callers"]), callers, msgs, citations, True)
        if first and focus.callers:
            lead = self._callers_lead(symbol, callers, row, hit, msgs, keys)
        span = (row.path, row.start_line, row.end_line) if row else None
        cited = citations.add(*span) if span else citations.add_hit(hit)
        head = msgs.t("definition", symbol=symbol, kind=msgs.kind(kind).lower(), cite=cited)
        lines = [callers_part, head] if focus.callers and callers_part else [head]
        signature = row.signature if row else (hit.text.splitlines() or [""])[0]
        start = row.start_line if row else hit.start_line
        if focus.how and first:
            lines.append(quote_block(hit.path, hit.text, hit.start_line))
        else:
            sig_lines = signature.count("\n") + 1
            lines.append(quote_block(hit.path, signature, start, max(sig_lines, 1)))
        docstring = row.docstring if row else None
        if docstring:
            lines.append(msgs.t("docstring") + "\n" + blockquote(docstring))
        elif not focus.callers:
            lines.append(msgs.t("no_docstring"))
        if first and not lead:
            key = "lead_how" if focus.how else "lead_defined"
            lead = msgs.t(key, symbol=symbol, kind=msgs.kind(kind).lower(), cite=cited)
            sure = [r for r in callers if not is_possible(r)]
            if sure and not focus.how:
                lead += " " + msgs.t(keys["lead_called_count"], count=len(call_sites(sure)))
        if kind == "module":  # a module is imported, not called: its "callers" would be noise
            return "\n\n".join(lines), lead
        if callers and not callers_part:
            callers_part = relation_items(msgs.t(keys["callers"]), callers, msgs, citations, True)
            lines.append(callers_part)
        elif not callers:
            lines.append(msgs.t(keys["no_callers"], symbol=symbol))
        callees = self._relations(symbol, Direction.CALLEES)
        if callees:
            lines.append(relation_items(msgs.t("callees"), callees, msgs, citations, False))
        return "\n\n".join(lines), lead

    def _callers_lead(
        self,
        symbol: str,
        callers: list[RelationRow],
        row: DefinitionRow | None,
        hit: Hit,
        msgs: Messages,
        keys: dict[str, str] = _CALL_KEYS,
    ) -> str:
        where = cite(row.path, row.start_line, row.end_line) if row else hit.citation
        sure = [r for r in callers if not is_possible(r)]
        if not sure:
            if callers:
                count = len(call_sites(callers))
                return msgs.t("lead_possible_callers", symbol=symbol, count=count, cite=where)
            return msgs.t(keys["lead_no_callers"], symbol=symbol, cite=where)
        sites = call_sites(sure)
        items, more = lead_items(sites, msgs)
        return msgs.t(keys["lead_callers"], symbol=symbol, count=len(sites), items=items) + more

    def _relations(
        self, symbol: str, direction: Direction, kinds: tuple[str, ...] = ("calls",)
    ) -> list[RelationRow]:
        # non-test first, resolved targets (this repository's own code) before builtins and
        # library calls
        found = self.resolver.relations(symbol, direction, kinds, limit=50)
        rows = [s.row for s in found if isinstance(s.row, RelationRow)]
        # a Rust unit test beside the code (`mod tests`) is a test use, listed after the code's
        return sorted(rows, key=lambda r: r.is_test or is_inline_test(r.from_symbol, r.language))


def _identifier_likeness(name: str) -> int:
    """2 for ``SNAKE_CASE`` / ``snake_case`` / ``camelCase`` / ``a.b``, 1 for ``ALLCAPS`` or
    a name with digits, 0 for a plain word."""
    if "_" in name or "." in name or re.search(r"[a-z][A-Z]", name):
        return 2
    if (name.isupper() and len(name) > 2) or re.search(r"\d", name):
        return 1
    return 0


def _answered_topic(plan: RouterPlan, *, typed: bool = True) -> str:
    """The conversation's topic when it is the definition the previous answer led with (the
    user named none before, nor here unless ``typed`` is False), else ``""``."""
    symbols = [
        a
        for a in plan.query_plan.anchors
        if a.type is AnchorType.SYMBOL and (typed or a.source != "query")
    ]
    if any(a.source == "query" or a.subtype != ANSWER_TOPIC for a in symbols):
        return ""
    return symbols[0].value if symbols else ""
