"""Which definitions an answer presents first: the one the question names (of the kind it
names, the least nested), and for a how-question the one whose body does the work.

A how-question asks about the project's own code, so examples, benchmarks, docs sites and
tests come after it; a function with a body before a one-line accessor, before types and
declarations that only state the behaviour; a definition in a folder or file the question
names ("how does the indexer…" and ``indexer/plan.py``) first among equals.
"""

from __future__ import annotations

import re

from ragstrata.answer.graphs.base import (
    disjoint_hits,
    project_words,
    question_symbols,
)
from ragstrata.answer.graphs.builds import client_paths, platform_fits
from ragstrata.answer.graphs.copies import copied_paths, foreign_paths
from ragstrata.answer.graphs.doing import (
    COMMENT_LINE,
    CREATING,
    DOCSTRING,
    ERROR_NAME,
    FAILING,
    TYPE_KINDS,
    doing_rank,
    last_name,
    loops,
    reports_failure,
    setup_only,
)
from ragstrata.answer.graphs.focus import example_names
from ragstrata.answer.graphs.follow_up import names_any
from ragstrata.answer.graphs.worded import (
    NAMED_WINDOW,
    clear_winner,
    covering_worker,
    named_owner,
    named_worker,
    opposite_named,
    own_name,
    purer_name,
    sized_twin,
    worded_twin,
)
from ragstrata.answer.graphs.words import (
    ENDINGS,
    joined_name,
    names_project,
    stem,
    stem_groups,
    words_in,
)
from ragstrata.answer.graphs.worker import called_worker, resolved_callees
from ragstrata.core.evidence import Evidence, Hit
from ragstrata.core.paths import peripheral_path
from ragstrata.core.question import QuestionFacets
from ragstrata.core.rows import RelationRow
from ragstrata.core.values import Direction
from ragstrata.query.models import RouterPlan
from ragstrata.query.plan_fields import ANSWER_TOPIC
from ragstrata.retrieve.reader import IndexReader
from ragstrata.text.tokens import latin_halves, tokenize

__all__ = ["MAX_DEFINITIONS", "definition_hits", "doing_rank", "last_name", "word_named_type"]

MAX_DEFINITIONS = 2
_SEGMENT_SEP = re.compile(r"::|[.#\\]")
_NAME_PARTS = re.compile(r"[^a-z0-9]+")
_DECLARES = 3  # doing_rank's rank of types and declarations
_HELD = 1  # ... and of an accessor, a variable or a class that holds a value
_NO_FACETS = QuestionFacets()
_HOW_WINDOW = 12  # how many leading definitions may be reordered for a how-question
_PLATFORM_EXTRA = 3  # definitions for the platform asked the window takes from below its end
_STEM = 4  # a question word names a folder or file when their first letters agree


def definition_hits(
    plan: RouterPlan,
    evidence: Evidence,
    focus: QuestionFacets = _NO_FACETS,
    *,
    how: bool | None = None,
    reader: IndexReader | None = None,
    own_first: bool = False,
) -> list[Hit]:
    """The definitions to present: require_def's hits (else C1 hits), the named symbol first
    (of the kind the question names, then the least nested: ``gin.Engine`` before
    ``binding.StructValidator.Engine``); for a how-question with no symbol named, a function or
    method whose body does the work before the types and declarations that only mention it;
    for any other naming none, the project's own code first (``own_first``: no test asked).
    ``focus``: the question's facets (``how`` overrides whether it asks how something works)."""
    how = focus.how if how is None else how
    kinds = focus.kinds
    req = evidence.requirements.get("require_def")
    hits = [h for h in (req.hits if req else ()) if h.layer == "C1"]
    # the topic a previous answer led with is no name the user gave (see code_qa)
    answered = {a.value for a in plan.query_plan.anchors if a.subtype == ANSWER_TOPIC}
    # a how-question's example of data ("a string like "red.on_blue"") names nothing it asks
    # about: the code that reads such strings answers, not the method `on_blue`
    given = example_names(plan) if how else frozenset()
    symbols = [s for s in question_symbols(plan) if s not in answered and s not in given]
    if not hits or how or (own_first and all(doing_rank(h)[0] for h in hits)):
        # a how-question: every definition retrieval ranked may do the work; so may any of the
        # project's own when the evidence found only tests or examples for a question of none
        hits += [h for h in evidence.hits if h.layer == "C1" and h not in hits]
    named: list[Hit] = []
    if symbols:
        named = [h for h in hits if names_any(h, symbols)]
        # the definition named exactly as written (case included) first, modules last: a
        # module `retriever` also suffix-matches a question about the class `Retriever`
        wanted = {last_name(s) for s in symbols}
        named.sort(
            key=lambda h: (
                last_name(h.symbol or "") not in wanted,
                peripheral_path(h.path),
                bool(kinds) and h.kind not in kinds,
                h.kind == "module",
                len(_SEGMENT_SEP.split(h.symbol or "")) if kinds else 0,
            )
        )
        if how and named:
            # "how does it…" asks about the project's own code: a name matched only in an
            # example, a benchmark or a test is no answer to it, nor a module declaration;
            # a type named by a word of the question («куда смонтирована cgroup»: `Cgroup`)
            # is what the work is about, no function doing it
            named = [
                h
                for h in named
                if not doing_rank(h)[0] and h.kind != "module" and not word_named_type(h, symbols)
            ]
        if how and named:
            # overloads of one name: the body that does the work, not the ones delegating to it
            same = [
                h for h in named if last_name(h.symbol or "") == last_name(named[0].symbol or "")
            ]
            same.sort(key=lambda h: (peripheral_path(h.path), h.start_line - h.end_line))
            named = same + [h for h in named if h not in same]
        hits = named + [h for h in hits if h not in named]
    if how and not named:
        head, taken = how_head(plan, hits, focus, reader=reader)
        hits = head + [h for h in hits if id(h) not in taken]
    elif own_first and not named:
        # "What does comparing a pattern with == check?" names nothing and asks about no test:
        # the project's own code before its tests, examples and benchmarks
        hits.sort(key=lambda h: doing_rank(h)[0])
    return disjoint_hits(hits)[:MAX_DEFINITIONS]


def word_named_type(hit: Hit, names: list[str]) -> bool:
    """True for a type, a declaration or a variable a how-question names by a word of it, not
    as the name is written («куда смонтирована cgroup» and `Cgroup`, "where the PID is
    often the same" and `pid`): what the work is about, not the function doing it."""
    wanted = {last_name(n) for n in names}
    rank = doing_rank(hit)[1]
    held = rank == _DECLARES or (rank >= _HELD and hit.kind not in TYPE_KINDS)
    return held and last_name(hit.symbol or "") not in wanted


def how_head(
    plan: RouterPlan,
    hits: list[Hit],
    focus: QuestionFacets,
    *,
    reader: IndexReader | None,
) -> tuple[list[Hit], set[int]]:
    """A how-question naming no definition: the window of ``hits`` (the first candidates of
    the project's own code) in the order a how-answer presents them, the one doing the work
    first; and the ids of the hits the window took."""
    # lib/express.js is no part named by "express", session/ none by express-session's
    # "session": the project's name and its parts name the whole project, not a folder
    concepts = focus.concepts
    own = set(project_words(plan))
    own |= {p for w in own for p in _NAME_PARTS.split(w) if p}
    terms = tuple(t for t in focus.terms if not names_project(t, own))
    order = {id(h): n for n, h in enumerate(hits)}
    # «JSONP-запросы»: the Latin half of a Russian compound names `jsonp` exactly
    halves = {h.lower() for t in tokenize(plan.query_plan.raw) for h in latin_halves(t.text)}
    # the window holds the first candidates of the project's own code (type declarations,
    # vendored copies and examples retrieval ranked high take no place of theirs)
    # a command or demo using the library (Go's `cmd/x/main.go`) is no part of its own code
    clients = client_paths(hits[: 2 * _HOW_WINDOW], reader)
    own_code = [h for h in hits if not doing_rank(h)[0] and h.path not in clients]
    # "on Windows": the platform's own file may stand below the window's end
    fits = platform_fits(own_code, reader, focus.platforms)
    fitting = [h for h in own_code[_HOW_WINDOW:] if fits.get(h.path) == 0][:_PLATFORM_EXTRA]
    taken = {id(h) for h in (*own_code[:_HOW_WINDOW], *hits[:_HOW_WINDOW], *fitting)}
    window = [h for h in hits if id(h) in taken]
    # the project's name is no word of the question, nor a part of it (`body-parser`
    # says nothing of a parser), unless the question also writes that word by itself ("a
    # tokens-per-second rate" of `ratelimit`: the name's first letters are no name)
    said = {stem(t.text) for t in tokenize(plan.query_plan.raw) if not names_project(t.text, own)}
    groups = stem_groups(concepts, {w for w in own if stem(w) not in said})
    shown = _asks_output(concepts)
    # the copy kept for old toolchains, or built from the source beside it
    legacy = copied_paths(window, reader)
    foreign = foreign_paths(window, reader)
    parts = _naming_words(window, (*terms, *halves))
    # "how does it make sure …" asks how it ensures something, not how a thing is made
    making = CREATING - ({"make"} if _ENSURING.search(plan.query_plan.raw) else set())
    creating = any(g & making for g in groups)
    failing = any(g & FAILING for g in groups)
    head = sorted(
        window,
        key=lambda h: (
            doing_rank(h)[0] or h.path in clients,
            h.path in legacy,
            # a value's text for people ranks with the accessors unless that is asked
            doing_rank(h)[1] + (not shown and _presents(h)),
            # the code for the platform asked, before the code for every platform, before
            # another platform's
            fits.get(h.path, 1),
            # the constructor storing the options follows the code using them, unless the
            # question asks how the thing is made («при создании», "a new pool")
            not creating and setup_only(h),
            # the function reporting a failure does none of the work, unless that is asked
            not failing and reports_failure(h.symbol or ""),
            h.path in foreign,
            last_name(h.symbol or "").lower() not in halves,
            not _in_named_part(h.path, parts),
            order[id(h)],
        ),
    )
    head = _worded_first(head, groups)
    head = clear_winner(head, groups)
    lead = head[0] if head else None
    verbs = stem_groups(focus.verbs, set())
    head = covering_worker(head, groups, verbs)
    # the function doing the steps the question lists keeps the lead from a callee named by one
    covering = bool(head) and head[0] is not lead
    head = purer_name(named_worker(head, groups, verbs), groups)
    head = opposite_named(head, (*terms, *halves), plan.query_plan.raw)
    head = sized_twin(head, plan.query_plan.raw)
    head = worded_twin(head, groups, lambda h: fits.get(h.path, 1))
    head = named_owner(head, groups)
    head = _nested_worker(head, groups)
    if _WHETHER.search(plan.query_plan.raw):
        head = _predicate_first(head, groups)
    if reader is not None:
        head = _raiser_first(head, hits[:_ERROR_SEEDS], reader, groups)
        # "in what order does it check the sources?" asks the function doing the steps
        if not covering and not _ORDER.search(plan.query_plan.raw):
            head = _named_callee(head, reader, groups)
        # the function the retrieved entry points call does the work they describe
        head = called_worker(head, reader, groups)
    if not creating:  # no rule hands the lead to a constructor only storing its options
        head = _after_setup(head)
    return head, taken


def _after_setup(head: list[Hit]) -> list[Hit]:
    """``head`` with the first candidate of its lead's rank that does more than set its object
    up first, when the lead only does that (``fn new`` building the struct)."""
    if not head or not setup_only(head[0]):
        return head
    rank = doing_rank(head[0])
    for hit in head[1:]:
        if doing_rank(hit) == rank and not setup_only(hit):
            return [hit, *(h for h in head if h is not hit)]
    return head


def _worded_first(head: list[Hit], groups: list[set[str]]) -> list[Hit]:
    """``head`` with the first candidate saying a word of the question first when the lead
    says none (a command-line script's usage text matching only the project's name)."""
    if not head or not groups or words_in(head[0].text, groups):
        return head
    rank = doing_rank(head[0])
    for hit in head[1:]:
        if doing_rank(hit) == rank and words_in(hit.text, groups):
            return [hit, *(h for h in head if h is not hit)]
    return head


# a value's text for people (Go's `String()` / `Error()`, `__str__`, `toString`, Rust's
# `fmt`): how a value is shown, no answer to how it is made, unless the question asks that
_PRESENTING = frozenset(
    {"string", "error", "__str__", "__repr__", "__format__", "tostring", "fmt", "to_s",
     "description", "inspect"}
)  # fmt: skip
_OUTPUT_WORDS = frozenset(
    {"print", "printed", "format", "formatted", "formatting", "display", "displayed", "render",
     "rendered", "draw", "drawn", "show", "shown", "output", "repr", "representation"}
)  # fmt: skip


def _presents(hit: Hit) -> bool:
    return hit.kind == "method" and last_name(hit.symbol or "").lower() in _PRESENTING


def _asks_output(concepts: tuple[frozenset[str], ...]) -> bool:
    """True when the question asks how something is printed, formatted or drawn; not by a
    word meaning "give back" too («выдаваемое соединение»: emit, output, return)."""
    return any(c & _OUTPUT_WORDS and "return" not in c for c in concepts)


_ERROR_SEEDS = 3  # an error type among retrieval's first definitions points at its raiser


def _raiser_first(
    head: list[Hit], seeds: list[Hit], reader: IndexReader, groups: list[set[str]]
) -> list[Hit]:
    """ "How does it check that a token has not expired?": retrieval's best match is often the
    error type the check raises (``ExpiredSignatureError``); the function raising it, when it
    is a candidate doing work (``_validate_exp``), leads — not a like-named helper elsewhere.
    Only an error type whose name says what the question asks: a ``ParseError`` retrieval
    ranked first for "a variable the struct doesn't know" points at nothing."""
    raisers: set[str] = set()
    for seed in seeds:
        name = last_name(seed.symbol or "")
        if (
            seed.kind in ("class", "struct")
            and ERROR_NAME.search(name)
            and words_in(name, groups) > 0
        ):
            for scored in reader.relations(
                seed.symbol or "", Direction.CALLERS, ("calls", "constructs")
            ):
                row = scored.row
                if isinstance(row, RelationRow) and row.resolution == "exact" and not row.is_test:
                    raisers.add(row.from_symbol)
    if not raisers or not head:
        return head
    for hit in head:
        if hit.symbol in raisers and doing_rank(hit) == (False, 0):
            return [hit, *(h for h in head if h is not hit)]
    return head


_DOC_WORDS = 2  # an entry point whose documentation carries this many of the question's words
_ENTRY_CODE_LINES = 30  # ... and at most this many lines of code: longer, it does the work


def _doc_of(text: str) -> str:
    """The documentation a definition's text carries: its docstrings and comment lines."""
    docs = DOCSTRING.findall(text)
    comments = [line for line in text.splitlines() if COMMENT_LINE.match(line)]
    return "\n".join([*docs, *comments])


def _code_lines(text: str) -> int:
    """The lines of a definition's text that are code: not blank, no docstring or comment."""
    code = DOCSTRING.sub("", text).splitlines()
    return sum(1 for line in code if line.strip() and not COMMENT_LINE.match(line))


def _named_callee(head: list[Hit], reader: IndexReader, groups: list[set[str]]) -> list[Hit]:
    """An entry point whose docstring tells the whole story (``load_dotenv``) hands the lead
    to the candidate it calls whose own name says what the question asks, better than its
    own name does (``set_as_environment_variables`` for "what happens to a variable already
    set in the environment?", ``find_dotenv`` for «как ищет файл»): the one best such. A lead
    of more than :data:`_ENTRY_CODE_LINES` lines of code does the work itself (``readValue``
    keeps the lead from ``readContinuationLines``, one of the three things it handles)."""
    if len(head) < 2 or head[0].kind not in ("function", "method") or not groups:
        return head
    lead = head[0]
    if words_in(_doc_of(lead.text), groups) < _DOC_WORDS or loops(lead.text):
        return head  # its own code tells how (`static!`), or it loops over the work itself
    if _code_lines(lead.text) > _ENTRY_CODE_LINES:
        return head  # 75 lines reading a value (quotes, comments, continuations) are the work
    called = {row.symbol for row in resolved_callees(reader, lead.symbol or "")}
    least = words_in(own_name(lead), groups)
    # a callee whose body says under half of what the lead's says does a part of the work
    half = words_in(lead.text, groups) / 2
    found = sorted(
        (
            (words_in(own_name(hit), groups), -n, n)
            for n, hit in enumerate(head[1:_HOW_WINDOW], 1)
            if hit.symbol in called
            and doing_rank(hit) == (False, 0)
            and words_in(hit.text, groups) >= half
        ),
        reverse=True,
    )
    if not found or found[0][0] <= least or (len(found) > 1 and found[1][0] == found[0][0]):
        return head
    best = head[found[0][2]]
    return [best, *(h for h in head if h is not best)]


_ORDER = re.compile(
    r"(?i)\bin (?:what|which) order\b|\border of\b|\bsequence of\b|"
    r"в как(?:ом|ой) (?:порядке|последовательности)|\bпорядок\b"
)
# the stems of the words asking how a thing is made (create, new, init, build, make, set up)
_ENSURING = re.compile(r"(?i)\bmak(?:e|es|ing)\s+(?:sure|certain)\b")
_WHETHER = re.compile(r"(?i)\bwhether\b|\bли\b")
# `is_valid`, `isColored`, and Go's exported `IsPattern`
_PREDICATE = re.compile(r"^(?:[Ii]s|[Ss]hould|[Hh]as|[Cc]an|[Nn]eeds?|[Mm]ust|[Mm]ay)(?:_|[A-Z])")


def _predicate_first(head: list[Hit], groups: list[set[str]]) -> list[Hit]:
    """ "How does it decide whether …?" is answered by a predicate (``isColored``,
    ``should_strip_auth``) whose own name carries a word of the question, when one of the
    lead's rank is among the candidates; the first such leads."""
    if not head:
        return head
    rank = doing_rank(head[0])
    for hit in head[:NAMED_WINDOW]:
        name = last_name(hit.symbol or "")
        if doing_rank(hit) == rank and _PREDICATE.match(name) and words_in(name, groups):
            return [hit, *(h for h in head if h is not hit)]
    return head


# the data a question writes about ("a string like …", "after a number"): a word naming the kind
# of value the code works on names no part of the project (yup's `string.ts`, `number.go`)
_DATA_WORDS = frozenset(
    {"string", "strings", "number", "numbers", "text", "texts", "value", "values", "array",
     "arrays", "object", "objects", "integer", "integers", "float", "floats", "boolean",
     "booleans", "bytes", "char", "chars", "data"}
)  # fmt: skip


def _naming_words(window: list[Hit], words: tuple[str, ...]) -> tuple[str, ...]:
    """The ``words`` that may name a folder or file of the answer: not a word for the kind of
    data the code works on (:data:`_DATA_WORDS`), nor one that half or more
    of the ``window``'s names carry ("file" of a temporary-file library, whose `tempfile`,
    `into_file` and `NamedTempFile` all say it, names no `file/` folder; "entry" of a map's
    `remove_entry`, `first_entry`, … no `entry.rs`)."""
    names = [joined_name(last_name(h.symbol or "")) for h in window]
    return tuple(
        w
        for w in words
        if 2 * sum(joined_name(w) in n for n in names) < len(names) and w.lower() not in _DATA_WORDS
    )


def _in_named_part(path: str, terms: tuple[str, ...]) -> bool:
    """True when a folder or the file of ``path`` is named by a word of the question ("how
    does the indexer decide…" and ``indexer/plan.py``; "Authorization" names no ``auth.py``)."""
    parts = [joined_name(p.rsplit(".", 1)[0]) for p in path.split("/")]
    words = [joined_name(t) for t in terms]  # "URL-safe" names url_safe.py
    return any(_names_part(t, p, words) for p in parts if len(p) >= 4 for t in words if len(t) >= 4)


def _names_part(word: str, part: str, words: list[str]) -> bool:
    """True when ``word`` names the folder or file name ``part``: the same word but for an
    ending ("walking" and walk.rs, "indexing" and indexer/), or with another word of the
    question after it ("sorted list" and sortedlist.py); not a word made of it ("string" is no
    stringify.js, "sorted" no sortedset.py, "typed" no types.py)."""
    common = 0
    while common < min(len(word), len(part)) and word[common] == part[common]:
        common += 1
    if common < _STEM:
        return False
    rest_word, rest_part = word[common:], part[common:]
    if not rest_word:  # the part goes on: walker/ of "walk", client_ip.go of "client IP"
        return rest_part in ENDINGS or rest_part in words
    if not rest_part:  # walk.rs of "walking"
        return rest_word in ENDINGS
    # both go on: the same word when five letters agree ("indexing" and indexer/; "typed" is
    # no types.py)
    return common > _STEM and rest_word in ENDINGS and rest_part in ENDINGS


def _nested_worker(head: list[Hit], groups: list[set[str]]) -> list[Hit]:
    """``head`` with a function nested in its lead first (``setKey`` inside the module's one
    exported 250-line function, the stream handler inside the middleware factory) when that
    function, of the same rank among the first :data:`NAMED_WINDOW`, carries more of the
    question's words than the lead's own lines outside every such function: those words were
    the nested function's, the container only holds it."""
    if not head or not groups:
        return head
    lead = head[0]
    nested = [
        h
        for h in head[1:]
        if h.path == lead.path
        and lead.start_line <= h.start_line <= h.end_line <= lead.end_line
        and (h.start_line, h.end_line) != (lead.start_line, lead.end_line)
        and doing_rank(h) == doing_rank(lead)
    ]
    if not nested:
        return head
    inner = {n for h in nested for n in range(h.start_line, h.end_line + 1)}
    own = "\n".join(
        line for n, line in enumerate(lead.text.splitlines(), lead.start_line) if n not in inner
    )
    best = max(nested, key=lambda h: (words_in(h.text, groups), -head.index(h)))
    if words_in(best.text, groups) <= words_in(own, groups):
        return head
    return [best, *(h for h in head if h is not best)]
