"""When a cue the question's words match is not what it asks: the context around the cue.

«из того, где лежат популярные ключи» opens a relative clause, «превращаются в вызовы API»
names a noun the sentence is about, «когда вызывается обработчик» in a how-question asks when
the code calls it, «Как библиотека определяет, из какого модуля был сделан вызов?» asks how
the code finds its caller out: none of them asks for callers. Read by ``query.facets``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragstrata.query.lexicon import QTok
from ragstrata.text.morph import dictionary_pos, fold, lemmatize
from ragstrata.text.tokens import has_cyrillic

__all__ = [
    "asks_no_callers",
    "callers_named_first",
    "infinitive_asked",
    "object_noun",
    "relative_clause",
]


def asks_no_callers(
    question: str,
    toks: Sequence[QTok],
    cue: tuple[str, int, int],
    opening: Sequence[QTok],
    opens_how: bool,
) -> bool:
    """True when the callers cue ``cue`` (its text, first and last token) asks for none: it
    follows «когда» in a how-question, sits in the clause a how-question asks about, says
    which one is used, lends its "by" to "by default", or is what the code does without
    ("without an explicit call to flush", «без явного вызова flush»)."""
    text, first, last = cue
    return (
        _without(toks, first)
        or _a_call_described(question, toks, (first, last), opening, opens_how)
        or (opens_how and _timed(toks, first))
        or (opens_how and _embedded(question, toks, first, opening))
        or _which_is(toks, text, first)
        or _by_default(toks, last)
    )


_WITHOUT = frozenset({"без", "without"})
_WITHOUT_WITHIN = 3  # tokens before the cue: «без явного вызова», "without an explicit call"


def _without(toks: Sequence[QTok], first: int) -> bool:
    return any(t.text.lower() in _WITHOUT for t in toks[max(0, first - _WITHOUT_WITHIN) : first])


_IF = frozenset({"если", "когда"})
_NAMED_WITHIN = 30  # characters after «вызов» a name of the function called may follow in


def _a_call_described(
    question: str,
    toks: Sequence[QTok],
    cue: tuple[int, int],
    opening: Sequence[QTok],
    opens_how: bool,
) -> bool:
    """True for the noun «вызов» naming no function in a how-question, a condition or after an
    adjective: «Как устроен повторный вызов функции?», «… если вызов функции падает?» and
    «перестаёт пробовать новый вызов» describe a call,
    they ask for no callers («покажи вызовы parse», «удаление вызовов `merge_cookies`» do, as
    «Как найти вызовы parse?»)."""
    first, last = cue
    if first != last or not toks[first].text.lower().startswith("вызов"):
        return False
    after = question[toks[last].start + len(toks[last].text) :][:_NAMED_WITHIN]
    if re.search(r"[A-Za-z_`]", after):
        return False
    if opens_how and not infinitive_asked(opening):
        return True
    if first > 0 and _qualifies(toks[first - 1].text):
        return True  # «перестаёт пробовать новый вызов»: a kind of call, not calls of one
    return any(t.text.lower() in _IF for t in toks[:first])


# determiners pick calls out («этот вызов», «каждый вызов»): they still may ask for callers
_DETERMINERS = frozenset({"этот", "тот", "каждый", "любой", "весь", "такой", "какой", "мой"})


def _qualifies(word: str) -> bool:
    """True for an adjective that says what kind of call it is («новый», «системный»,
    «повторный»), not a determiner."""
    return dictionary_pos(word) == "ADJF" and lemmatize(word) not in _DETERMINERS


_WHICH_KINDS = frozenset({"какие", "какая", "какой", "какое"})
_PLURAL_VERB = ("ют", "ят", "ут", "ат")


def callers_named_first(toks: Sequence[QTok], first: int, last: int) -> bool:
    """True when a «какие функции вызывают …» cue (tokens ``first``..``last``) has its verb in
    the plural: the functions asked about do the calling, so it asks for callers («Какие
    функции вызывают parse?»); in the singular the name after it calls them («Какие функции
    вызывает parse?»)."""
    if toks[first].text.lower() not in _WHICH_KINDS or last - first < 2:
        return False
    return toks[last].text.lower().endswith(_PLURAL_VERB) and has_cyrillic(toks[last].text)


# «из того, где лежат …», «там, где …»: a relative clause, not a question
_DEMONSTRATIVES = frozenset(
    {"тот", "того", "тому", "том", "тем", "та", "той", "ту", "то", "те", "тех", "там", "туда",
     "оттуда", "место", "места", "месте"}
)  # fmt: skip


def relative_clause(question: str, toks: Sequence[QTok], n: int) -> bool:
    """True when the cue at token ``n`` opens a relative clause: a comma, and a demonstrative
    before it («из того, где лежат популярные ключи» asks nothing about where)."""
    return (
        n > 0
        and question[: toks[n].start].rstrip().endswith(",")
        and toks[n - 1].text.lower() in _DEMONSTRATIVES
    )


def object_noun(toks: Sequence[QTok], words: Sequence[object], n: int) -> bool:
    """True when a one-word Russian cue at token ``n`` follows a preposition: a noun the
    sentence is about, not what it asks («превращаются в вызовы API» asks no callers;
    «покажи вызовы parse» does)."""
    return (
        len(words) == 1
        and n > 0
        and has_cyrillic(toks[n].text)
        and toks[n - 1].text.lower() in _PREPOSITIONS
    )


_WHEN = frozenset({"когда", "when"})


def _timed(toks: Sequence[QTok], n: int) -> bool:
    """True when the cue at token ``n`` follows «когда» / "when": in a how-question, «когда
    вызывается обработчик» asks when the code calls it, not who does."""
    return n > 0 and toks[n - 1].text.lower() in _WHEN


_EMBEDDED_WH = frozenset({"какой", "какого", "какая", "какую", "каком", "кто", "кем", "откуда",
                          "где", "which", "who", "where", "whether"})  # fmt: skip


def _embedded(question: str, toks: Sequence[QTok], n: int, opening: Sequence[QTok]) -> bool:
    """True when the cue at token ``n`` is in a clause after a comma that a question word
    opens: «Как библиотека определяет, из какого модуля был сделан вызов?» asks how it finds
    the caller out, not for callers («Как найти, кто вызывает parse?» does: an infinitive)."""
    if infinitive_asked(opening):
        return False
    k = n
    while k > 0 and not question[: toks[k].start].rstrip().endswith(","):
        k -= 1
    if k == 0:
        return False
    word = toks[k + 1 if toks[k].text.lower() in _PREPOSITIONS and k + 1 < n else k].text
    return word.lower() in _EMBEDDED_WH


_PASSIVE_USE = frozenset({"вызываться", "использоваться"})
_WHICH = frozenset({"какой", "какая", "какое", "какие", "какую", "каким", "какими", "каких"})


def _which_is(toks: Sequence[QTok], cue: str, n: int) -> bool:
    """True for «какой X используется / вызывается» (the cue at token ``n``): which one is
    used is asked, not where it is («какой предел используется по умолчанию?»)."""
    return cue in _PASSIVE_USE and any(t.text.lower() in _WHICH for t in toks[:n])


def _by_default(toks: Sequence[QTok], last: int) -> bool:
    """True when the cue ending at token ``last`` ("used by") lends its "by" to "by default"
    ("Which limit is used by default?" asks no uses)."""
    return (
        last + 1 < len(toks)
        and toks[last].text.lower() == "by"
        and (toks[last + 1].text.lower() == "default")
    )


_BEFORE_VERB = frozenset({"мне", "нам", "можно", "же", "бы", "лучше", "правильно", "теперь"})
_PREPOSITIONS = frozenset({"в", "во", "на", "с", "со", "из", "для", "при"})


def infinitive_asked(toks: Sequence[QTok]) -> bool:
    """True when the verb after an opening «как» is an infinitive («как описать»), past a
    place («в sinatra», «на gin») and particles («мне», «можно»): the Russian "how do I"."""
    n = 1
    while n < len(toks):
        word = fold(toks[n].text)
        if word in _PREPOSITIONS and n + 1 < len(toks):
            n += 2  # «в sinatra», «в проекте»
        elif word in _BEFORE_VERB:
            n += 1
        else:
            return has_cyrillic(word) and dictionary_pos(word) == "INFN"
    return False
