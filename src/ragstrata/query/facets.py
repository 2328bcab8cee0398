"""The question facets: what a question asks for besides its intent (``core.question``).

This module and the router are the only readers of a question's words. Cue words are data
(``data/router/questions.toml``), matched with the router's lexicon (Russian by lemma, English
as written or by ``word*`` prefix, phrase words in order with small gaps). The same table says
which section headings answer a documentation topic (:func:`heading_topic_score`).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from importlib import resources
from itertools import pairwise
from typing import Any

from ragstrata.core.question import QuestionFacets
from ragstrata.query.call_cues import (
    asks_no_callers,
    callers_named_first,
    infinitive_asked,
    object_noun,
    relative_clause,
)
from ragstrata.query.characters import named_characters
from ragstrata.query.en_phrases import paraphrase_hits
from ragstrata.query.in_conversation import behaviour_without_topic, detail_unmarked, yes_or_no
from ragstrata.query.kinds import _lexicon as kinds_lexicon
from ragstrata.query.kinds import question_kinds
from ragstrata.query.lexicon import (
    Lexicon,
    QTok,
    code_spans,
    first_verb,
    query_tokens,
    question_data,
    without_globs,
)
from ragstrata.query.models import RouterPlan, TestPolicy
from ragstrata.query.platforms import asked_platforms
from ragstrata.query.terms import default_expander
from ragstrata.text.morph import dictionary_pos, fold, lemmatize
from ragstrata.text.stopwords import is_stopword
from ragstrata.text.tokens import (
    Token,
    has_cyrillic,
    identifier_parts,
    latin_halves,
    tokenize,
)

__all__ = [
    "ASKS",
    "DETAILS",
    "TOPICS",
    "concepts_of",
    "content_terms",
    "facets_of",
    "heading_topic_score",
    "how_clause",
    "read_facets",
    "topic_commands",
    "verb_concepts",
]

ASKS = ("callers", "callees", "tests", "how", "where", "configure", "howto")
# "модуль X", "для пакета X", "module X", "the file X": a file or a package is meant
_MODULE_WORDS = re.compile(
    r"(?i)(?<!\w)(?:модул[ьяюеи]\w*|пакет\w*|файл\w*|крейт\w*|module|package|file|crate)"
    r"(?!\w)"
)
_TEST_WORDS = re.compile(r"(?i)(?<!\w)(?:тест\w*|test\w*|spec\w*|fixture\w*)")
# the code beside the project's own a question may ask about: an example, a demo, a benchmark,
# the docs site, a vendored copy («в примере», "the benchmark's old copy"); "for example"
# gives data, «например» is no word of these
_ASIDE_WORDS = re.compile(
    r"(?i)(?<!\w)(?<!for )(?:exampl\w*|demos?\b|samples\b|bench\w*|vendor\w*|"
    r"fuzz(?:ing|ers?)?\b|docs?\b|пример\w*|демо\b|бенчмарк\w*|документаци\w*)"
)
# the configure cues that only name a default: a how-question about the default behaviour
_DEFAULT_CUES = frozenset({"по умолчание", "by default", "the default", "default value"})
# "how many times …?", «как долго …?» ask for an amount, not how the code works
_AMOUNT_AFTER_HOW = frozenset(
    {"many", "much", "long", "often", "far", "big", "large", "soon", "долго", "часто", "много"}
)
# values the question excludes: "not 32, 36, 38 or 45", «не 10 и не 12», «ни 1, ни 2»
_NOT_THESE = re.compile(
    r"(?i)(?<!\w)(?:not|neither|не|ни)\s+\d+(?:\s*(?:,|\bor\b|\bnor\b|\bи\b|\bили\b|\bни\b|"
    r"\bне\b)\s*)+\d+(?!\w)"
)
DETAILS = (
    "returns", "condition", "error", "otherwise", "missing", "amount", "excess", "repeat",
    "negative", "equal", "wrongtype",
)  # fmt: skip
TOPICS = ("install", "build", "usage", "overview", "parts")


_data = question_data


def _lexicon(section: str, names: Sequence[str], key: str | None = None) -> Lexicon:
    table = _data()[section]
    entries = []
    for n, name in enumerate(names):
        block = table[name]
        words = [*block.get(key, [])] if key else [*block.get("ru", []), *block.get("en", [])]
        entries += [(w, n) for w in words]
    return Lexicon(entries, 3)


@lru_cache(maxsize=1)
def _asks() -> Lexicon:
    return _lexicon("ask", ASKS)


@lru_cache(maxsize=1)
def _leading_how() -> frozenset[str]:
    return frozenset(str(w) for w in _data()["ask"]["how"].get("leading", []))


@lru_cache(maxsize=1)
def _details() -> Lexicon:
    return _lexicon("detail", DETAILS)


@lru_cache(maxsize=1)
def _topics() -> Lexicon:
    return _lexicon("topic", TOPICS)


@lru_cache(maxsize=1)
def _headings() -> Lexicon:
    return _lexicon("topic", TOPICS, "heading")


@lru_cache(maxsize=1)
def _minor_headings() -> Lexicon:
    return _lexicon("topic", TOPICS, "minor")


LEXICONS = (_asks, _details, _topics, _headings, _minor_headings, kinds_lexicon)
"""Every lexicon this module builds (their words are in the precomputed morphology seed)."""


_STRUCTURE = re.compile(r"(?i)устро|structur|organi[sz]")
OPENING_CONJUNCTIONS = frozenset({"а", "и", "но", "and", "but", "so"})
"""The words a follow-up may open with: «а как сравниваются …», "and how is …"."""


@lru_cache(maxsize=512)
def read_facets(question: str, tests_only: bool = False) -> QuestionFacets:
    """The facets of ``question`` (``tests_only``: the plan keeps only tests)."""
    toks = query_tokens(question)
    prose = query_tokens(question, code_spans(question))  # a `test` in code asks for no tests
    # a follow-up may open with a conjunction: «а как сравниваются …», "and how is …"; a
    # question may open with a clause: "When a peer asks for a value, how is it handled?"
    opening = toks[1:] if len(toks) > 1 and toks[0].text.lower() in OPENING_CONJUNCTIONS else toks
    clause = _clause_after(question, toks)
    opening = clause or opening
    opens_how = bool(opening) and opening[0].text.lower() in _leading_how()
    marked = _asks().find(prose)
    found = [
        p
        for p, first, last in marked
        if not relative_clause(question, prose, first)
        and not object_noun(prose, p.words, first)
        # "handed back to the caller, rather than one of …" is no "caller of"
        and "," not in question[prose[first].start : prose[last].start]
        # «Как определяется, где лежат папки?» asks how it is found out, not where it is
        and not (
            ASKS[p.label] == "where"
            and opens_how
            and _after_comma(question, prose, first)
            and not infinitive_asked(opening)  # «Как узнать, где определена …?» asks where
        )
        # «Как сделано так, что …» asks how it is done, «как сделать» how to do it
        and not (ASKS[p.label] == "howto" and _done(prose[last].text))
        and not (
            ASKS[p.label] == "callers"
            and asks_no_callers(question, prose, (p.text, first, last), opening, opens_how)
        )
    ]
    asks = {ASKS[p.label] for p in found}
    if "callees" in asks and any(
        ASKS[p.label] == "callees" and callers_named_first(prose, first, last)
        for p, first, last in marked
    ):
        asks = (asks - {"callees"}) | {"callers"}  # «Какие функции вызывают parse?»
    if tests_only:
        asks.add("tests")
    said = _without_asides(toks)  # "for example" gives an example, it asks for none
    defaults = [p for p in found if ASKS[p.label] == "configure"]
    asks_amount = len(opening) > 1 and fold(opening[1].text) in _AMOUNT_AFTER_HOW
    if (
        defaults
        and all(p.text in _DEFAULT_CUES for p in defaults)
        and opens_how
        and not asks_amount
    ):
        # «Как по умолчанию определяется, подходит ли тип …?», "How does it pick the default
        # level?" ask how the default behaviour works, not which setting changes it
        asks.discard("configure")
    # "When I build a query, how is it evaluated?": the first clause sets the scene, the topic
    # of a question opening with it is in the how-clause
    topical = _topics().find(_without_asides(clause) if clause else said)
    if not asks and opens_how and (not topical or first_verb(opening[1:]) == "VERB"):
        # a topic word after a finite verb («Как log не даёт установить логгер?») is no topic
        # «Как в sinatra описать маршрут …?» asks how to do it (an infinitive), «Как fd
        # разбирает …» how it works, as "How are errors turned into …" does
        asks.add("howto" if infinitive_asked(opening) else "how")
    counts: dict[str, int] = {}
    for phrase, _, _ in _topics().find(said):
        counts[TOPICS[phrase.label]] = counts.get(TOPICS[phrase.label], 0) + 1
    if opens_how and "parts" in counts and not _STRUCTURE.search(question):
        # «Как собирается идентификатор: какие части и в каком порядке …» asks the parts of
        # what the code builds; «Как устроен проект, из каких частей?» the project's
        del counts["parts"]
    topics = tuple(sorted(counts, key=lambda t: (-counts[t], TOPICS.index(t))))
    marks = _details().find(toks)
    details = frozenset(DETAILS[p.label] for p, a, b in marks if _own_cue(p, a, b, marks, toks))
    if _NOT_THESE.search(question):
        details |= {"otherwise"}  # "not 32, 36 or 45 characters long": the branch for the rest
    latin = [t.text.lower() for t in toks if t.text.isascii() and t.text.isalpha()]
    phrases = tuple(dict.fromkeys(pairwise(latin)))
    return QuestionFacets(
        frozenset(asks),
        topics,
        question_kinds(question),
        details,
        words=frozenset(t.text for t in toks if len(t.text) >= 3),
        values=_values(question, toks),
        characters=named_characters(toks),
        names_module=bool(_MODULE_WORDS.search(question)),
        mentions_tests=bool(_TEST_WORDS.search(question)),
        mentions_aside=bool(_ASIDE_WORDS.search(question)),
        platforms=asked_platforms(question),
        phrases=phrases,
    )


@lru_cache(maxsize=1)
def _asides() -> tuple[tuple[str, ...], ...]:
    """The phrases that introduce an example the question gives, not a request for one: the
    router's multi-word example cues ("for example", «к примеру»)."""
    ref = resources.files("ragstrata").joinpath("data", "router", "signals.toml")
    cues = tomllib.loads(ref.read_text(encoding="utf-8"))["anchors"]["example_cues"]
    return tuple(tuple(fold(w) for w in cue.split()) for cue in cues if " " in cue)


def _without_asides(toks: list[QTok]) -> list[QTok]:
    """``toks`` without the phrases that introduce an example ("for example", «к примеру»)."""
    skip: set[int] = set()
    words = [t.text for t in toks]
    for phrase in _asides():
        for n in range(len(words) - len(phrase) + 1):
            if tuple(words[n : n + len(phrase)]) == phrase:
                skip.update(range(n, n + len(phrase)))
    return [t for n, t in enumerate(toks) if n not in skip]


# question words a how-word may join at the opening: «Где и как хранится …», "Where and how …"
_JOINED_WH = frozenset(
    {"где", "когда", "зачем", "почему", "откуда", "where", "when", "why", "what"}
)


def _own_cue(cue: Any, a: int, b: int, marks: Sequence[Any], toks: Sequence[QTok]) -> bool:
    """False for a detail's cue inside a longer one without a gap ("none of those" asks for
    the rest, not a missing value), for a type's with one («не получить … массив»), and for
    «по умолчанию» after a noun («значение по умолчанию» names the value, as "the default
    value" does; «используется по умолчанию», as "by default", asks what is used without one)."""
    if DETAILS[cue.label] == "wrongtype" and b - a + 1 > len(cue.words):
        return False
    if cue.text == "по умолчание" and a > 0 and dictionary_pos(toks[a - 1].surface) == "NOUN":
        return False
    return not any(c <= a and b <= d < c + len(q.words) and d - c > b - a for q, c, d in marks)


def _after_comma(question: str, toks: list[QTok], first: int) -> bool:
    """True when the token ``first`` opens a clause after a comma (an indirect question)."""
    return first > 0 and question[toks[first - 1].end : toks[first].start].strip() == ","


def _done(word: str) -> bool:
    """True for a Russian participle or finite verb («сделано», «сделали»): what was done."""
    return has_cyrillic(word) and dictionary_pos(fold(word)) in ("PRTS", "PRTF", "VERB")


def how_clause(question: str) -> list[QTok]:
    """The tokens of ``question``'s how-clause when a clause opens it ("When I build a query,
    how is it evaluated?" -> how is it evaluated), or none."""
    return _clause_after(question, query_tokens(question))


def _clause_after(question: str, toks: list[QTok]) -> list[QTok]:
    """The tokens from a how-word that opens the question's second clause ("When X, how is
    Y handled?", «Если X, как Y?», "Which X … and how is Y …?"), or joins the opening question
    word («Где и как …»), when the first clause opens with no how-word; or a how joined by
    "and" to a first one («Как получить X и как это вычисляется?»)."""
    if not toks:
        return []
    if toks[0].text.lower() in _leading_how():
        # «Как получить X и как это вычисляется?»: a second how joined to the first asks how
        # the code works, whatever the first asks
        for n, tok in enumerate(toks[3:], 3):
            if tok.text.lower() in _leading_how() and toks[n - 1].text.lower() in ("и", "and"):
                return toks[n:]
        return []
    if (
        len(toks) > 2
        and toks[0].text.lower() in _JOINED_WH
        and toks[1].text.lower() in ("и", "and")
        and toks[2].text.lower() in _leading_how()
    ):
        return toks[2:]
    for n, tok in enumerate(toks[1:], 1):
        if tok.text.lower() in _leading_how() and (
            # «… не годится. Как ptyprocess сам создаёт …?»: a sentence before it sets the scene
            question[: tok.start].rstrip().endswith((",", ".", ";", "!", "?"))
            # "Which values are accepted and how is each one turned into an ID?"
            or (n > 2 and toks[n - 1].text.lower() in ("и", "and"))
        ):
            return toks[n:]
    return []


def facets_of(plan: RouterPlan) -> QuestionFacets:
    """The facets of ``plan``'s question, with its content words (:func:`content_terms`)."""
    tests_only = plan.retrieval_spec.filters.test_policy is TestPolicy.ONLY
    facets = read_facets(plan.query_plan.raw, tests_only)
    expansions = tuple(plan.query_plan.expansions)
    said = without_globs(plan.query_plan.raw)  # `src/{lib,test}/*.js`: an example's words
    terms = content_terms(said, expansions)
    if behaviour_without_topic(plan, facets):
        # "What happens when a directory cannot be read?" opens a conversation and names no
        # definition: there is no topic to read a detail of; it asks how the code behaves
        facets = replace(facets, asks=facets.asks | {"how"})
    if yes_or_no(plan, facets) or detail_unmarked(plan, facets, terms):
        # "Are unused imports inside a class body reported as well?" (yes or no, as «… ли …»)
        # «Куда ставится курсор после очистки экрана?» after an answer: a detail of its topic
        facets = replace(facets, details=frozenset({"unmarked"}))
    return replace(
        facets,
        terms=terms,
        concepts=concepts_of(said, expansions),
        verbs=verb_concepts(said, expansions),
    )


_QUOTED = re.compile(r"""["'`«“]([^"'`«»“”\n]{1,40})["'`»”]""")


_WRITTEN_VALUE = re.compile(
    r"(?<![\w.-])(?:\d+|\$?[A-Z][A-Z0-9]+)(?![\w.-])"
)  # `$HOME` with its sigil


def _values(question: str, toks: Sequence[QTok]) -> frozenset[str]:
    """The values ``question`` writes, folded: its numbers, its upper-case Latin words of two
    letters or more (``AM``, ``HEAD``; read from the text, where no stopword list drops
    "AM"), its quoted text and its number words."""
    found = {m.group(0).lower() for m in _WRITTEN_VALUE.finditer(question)}
    found |= {m.group(1).strip().lower() for m in _QUOTED.finditer(question)}
    numbers = _number_words()
    found |= {numbers[w] for t in toks if (w := lemmatize(t.text.lower())) in numbers}
    return frozenset(v for v in found if v)


@lru_cache(maxsize=1)
def _number_words() -> dict[str, str]:
    """The number words of questions.toml's ``[values.numbers]``, each to its digits."""
    table: dict[str, list[str]] = _data()["values"]["numbers"]
    return {word: digits for digits, words in table.items() for word in words}


@lru_cache(maxsize=512)
def concepts_of(question: str, expansions: tuple[str, ...] = ()) -> tuple[frozenset[str], ...]:
    """The question's content words grouped by the word of the question they come from: each
    Latin content word alone (with its identifier parts), each Russian term with the English
    words of its expansions the plan kept (``expansions``; stopwords kept: «показ» -> show)."""
    kept = {w for term in expansions for w in term.lower().split()}
    groups: list[frozenset[str]] = []
    # "tried again" is a `retry`, "re-raise" `reraise`: the code words of an English phrase
    # join its first content word
    toks = tokenize(question)
    first = {t.start: n for n, t in enumerate(toks)}
    final = {t.end: n for n, t in enumerate(toks)}
    said: dict[int, tuple[int, set[str]]] = {}
    for hit in paraphrase_hits(question, toks):
        if hit.start not in first:  # an operator (`==`): its method's names are one group
            groups.append(frozenset(hit.expansions))
            continue
        end, words = said.get(first[hit.start], (0, set()))
        words = words | {w for term in hit.expansions for w in term.split()}
        said[first[hit.start]] = (max(end, final[hit.end]), words)
    extra: set[str] = set()
    last = -1
    for n, tok in enumerate(toks):
        if extra and n > last:  # a phrase of stopwords only ("the same"): its words alone
            groups.append(frozenset(extra))
            extra = set()
        if n in said:
            last, extra = max(last, said[n][0]), extra | (said[n][1] & kept)
        for word in _latin_halves_of(tok):
            parts = {p.lower() for p in (word, *identifier_parts(word))}
            group = frozenset(p for p in parts if len(p) >= 3 and not is_stopword(p))
            if group:
                groups.append(group | extra)
                extra = set()
    if extra:
        groups.append(frozenset(extra))
    for hit in default_expander().find(question):
        words = {w for term in hit.expansions for w in term.lower().split()} & kept
        group = frozenset(w for w in words if len(w) >= 3)
        if group:
            groups.append(group)
    return tuple(dict.fromkeys(groups))


def verb_concepts(question: str, expansions: tuple[str, ...] = ()) -> tuple[frozenset[str], ...]:
    """The groups of :func:`concepts_of` that come from a Russian verb of the question
    («укорачивает» -> truncate, shorten): the action a how-question asks about, where its
    nouns («длины», «фильтром») only say what the action works on."""
    kept = {w for term in expansions for w in term.lower().split()}
    groups = []
    for hit in default_expander().find(question):
        if " " in hit.surface.strip() or dictionary_pos(hit.surface) not in ("VERB", "INFN"):
            continue
        words = {w for term in hit.expansions for w in term.lower().split()} & kept
        if group := frozenset(w for w in words if len(w) >= 3):
            groups.append(group)
    return tuple(dict.fromkeys(groups))


def _latin_words(question: str) -> list[str]:
    """The words of ``question`` written in Latin letters, the Latin half of a Russian
    compound (``HEAD-запрос``) among them."""
    return [word for tok in tokenize(question) for word in _latin_halves_of(tok)]


def _latin_halves_of(tok: Token) -> list[str]:
    if tok.text.isascii() and any(ch.isalpha() for ch in tok.text):
        return [tok.text]
    return latin_halves(tok.text)


@lru_cache(maxsize=512)
def content_terms(question: str, expansions: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The question's content words in lower case: its Latin words and their identifier parts
    (``HandleMethodNotAllowed`` -> ``handle``, ``method``, ...), stopwords and words under three
    letters left out, then the router's English terms for its Russian words."""
    out: list[str] = []
    for word in _latin_words(question):
        for part in (word, *identifier_parts(word)):
            low = part.lower()
            if len(low) >= 3 and not is_stopword(low):
                out.append(low)
    for term in expansions:
        out += [w for w in term.lower().split() if len(w) >= 3 and not is_stopword(w)]
    return tuple(dict.fromkeys(out))


def topic_commands(topic: str) -> tuple[str, ...]:
    """Commands whose presence shows a section body answers ``topic`` (``pip install``)."""
    return tuple(str(c) for c in _data()["topic"].get(topic, {}).get("commands", []))


def _heading_topics(text: str, lexicon: Lexicon | None = None) -> set[str]:
    found = (lexicon or _headings()).find(query_tokens(text))
    return {TOPICS[p.label] for p, _, _ in found}


def heading_topic_score(heading: str, topics: Sequence[str], body: str = "") -> int:
    """How well a section answers ``topics``, from its heading path (``Getting Started >
    Installation``) and body: 4 when its own heading names the first topic, 3 when a parent
    heading does, 2 when its body holds the topic's command (``gem install``), 1 for a heading
    that borders on it (``Requirements``) or names another topic, 0 otherwise."""
    if not topics:
        return 0
    first = topics[0]
    own = _heading_topics(heading.rsplit(">", 1)[-1]) if heading else set()
    if first in own:
        return 4
    found = own | (_heading_topics(heading) if heading else set())
    if first in found:
        return 3
    low = body.lower()
    if body and any(c in low for c in topic_commands(first)):
        return 2
    minor = _heading_topics(heading.rsplit(">", 1)[-1], _minor_headings()) if heading else set()
    return 1 if found.intersection(topics) or first in minor else 0
