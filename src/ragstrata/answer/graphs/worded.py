"""Which candidate of a how-question's window the question's words hand the lead to: one
carrying many of them where the lead carries almost none (:func:`clear_winner`), the function
doing the steps the question lists (:func:`covering_worker`), one whose own name says what is
asked (:func:`named_worker`), and of two so named the one named by nothing else
(:func:`purer_name`); one named by what the question asks, not its opposite
(:func:`opposite_named`). The words are the question's word groups (:func:`stem_groups`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet

from ragstrata.answer.graphs.doing import doing_rank, last_name, setup_only
from ragstrata.answer.graphs.words import ENDINGS, word_stems, words_in
from ragstrata.core.evidence import Hit

__all__ = [
    "NAMED_WINDOW",
    "clear_winner",
    "covering_worker",
    "extra_words",
    "named_worker",
    "opposite_named",
    "own_name",
    "purer_name",
]


_FEW_WORDS = 1  # a how-answer's lead carrying at most this many of the question's words ...
_MANY_WORDS = 3  # ... gives way to a candidate of its rank carrying this many, alone


def clear_winner(head: list[Hit], groups: list[set[str]]) -> list[Hit]:
    """``head`` with its lead replaced when the lead carries almost none of the question's words
    (``request.is`` for "how does it decide the Content-Type when I send a plain string?") and
    one candidate of the same rank carries many of them, alone (``res.send``)."""
    lead_words = words_in(head[0].text, groups) if head and groups else 0
    if not head or not groups or lead_words > _FEW_WORDS:
        return head
    rank = doing_rank(head[0])
    scored = sorted(
        ((words_in(h.text, groups), n) for n, h in enumerate(head[1:], 1) if doing_rank(h) == rank),
        reverse=True,
    )
    if (
        not scored
        or scored[0][0] < _MANY_WORDS - (lead_words == 0)  # a lead saying none of them: two
        or (len(scored) > 1 and scored[1][0] == scored[0][0])
    ):
        return head
    best = head[scored[0][1]]
    if best.end_line - best.start_line >= _COVER_LINES and len(scored) > 1:
        # a long body carries any words: a short one saying one word fewer says it better
        runner = head[scored[1][1]]
        if (
            scored[1][0] == scored[0][0] - 1
            and scored[1][0] >= _MANY_WORDS
            and runner.end_line - runner.start_line < _COVER_LINES
        ):
            best = runner
    return [best, *(h for h in head if h is not best)]


_COVER_MARGIN = 3  # a candidate carrying this many more of the question's word groups than the lead
_COVER_LINES = 60  # ... in a body of at most this many lines (a long one carries any words)


def covering_worker(
    head: list[Hit], groups: list[set[str]], verbs: Sequence[AbstractSet[str]] = ()
) -> list[Hit]:
    """``head`` with its lead replaced by the candidate of its rank, among the first
    :data:`NAMED_WINDOW`, whose body carries :data:`_COVER_MARGIN` more of the question's word
    groups than the lead's: the function doing the steps a question lists ("check the length,
    the signature, the age and then decrypt" -> ``Decode``) before a setter of one of them
    (``MinAge``); the one best such, none on a tie. A lead the question's verb names wholly
    (:func:`verb_named`: `truncate` for «укорачивает») keeps its place."""
    if len(head) < 2 or not groups or verb_named(head[0], groups, verbs):
        return head
    rank = doing_rank(head[0])
    least = words_in(head[0].text, groups)
    found = sorted(
        (
            (words_in(h.text, groups), -n, n)
            for n, h in enumerate(head[1:NAMED_WINDOW], 1)
            if doing_rank(h) == rank
            and h.end_line - h.start_line < _COVER_LINES
            and not setup_only(h)  # a constructor's docstring lists steps its code does not do
        ),
        reverse=True,
    )
    if not found or found[0][0] < least + _COVER_MARGIN:
        return head
    if len(found) > 1 and found[1][0] == found[0][0]:
        return head
    best = head[found[0][2]]
    return [best, *(h for h in head if h is not best)]


NAMED_WINDOW = 6  # a definition named by the question's words may take the lead from this far
_NAMED_WORDS = 2  # ... when its own name carries this many of the question's word groups


def named_worker(
    head: list[Hit], groups: list[set[str]], verbs: Sequence[AbstractSet[str]] = ()
) -> list[Hit]:
    """``head`` with its lead replaced by a candidate of the same rank, among the first
    :data:`NAMED_WINDOW`, whose own name says what the question asks (``parse_range`` for
    "how does it parse a line range", ``cleanPath`` for «канонический путь» -> clean path: at
    least :data:`_NAMED_WORDS` of its word groups) and whose body carries more of the
    question's words than the lead's, and whose name says more of them than the lead's; the
    one best such, none on a tie."""
    if not head or not groups:
        return head
    rank = doing_rank(head[0])
    least = words_in(head[0].text, groups)
    # a lead its own name says as much of the question of (`filter_by_level` for filtering
    # by level) keeps its place
    said = max(_NAMED_WORDS, words_in(own_name(head[0]), groups) + 1)
    # a lead named wholly by the question, its verb among the words (`truncate` for «как
    # укорачивает текст до заданной длины»), gives way only to a name saying its words and
    # more (`parse_body` to no `parse_frame_header`), not to one of the nouns (`lengthFilter`)
    lead = word_stems(own_name(head[0]))
    held = verb_named(head[0], groups, verbs)
    found = []
    for n, hit in enumerate(head[1:NAMED_WINDOW], 1):
        named = words_in(own_name(hit), groups)
        body = words_in(hit.text, groups)
        if held and not lead <= word_stems(own_name(hit)):
            continue
        if doing_rank(hit) == rank and named >= said and body > least:
            found.append((body, named, n))
    found.sort(reverse=True)
    if not found or (len(found) > 1 and found[1][:2] == found[0][:2]):
        return head
    best = head[found[0][2]]
    return [best, *(h for h in head if h is not best)]


def verb_named(hit: Hit, groups: list[set[str]], verbs: Sequence[AbstractSet[str]]) -> bool:
    """True when the question names ``hit`` wholly, a verb of it among the words (``truncate``
    for «как укорачивает текст …»): the action asked about is its name."""
    name = own_name(hit)
    return not extra_words(name, groups) and any(word_stems(name) & v for v in verbs)


def purer_name(head: list[Hit], groups: list[set[str]]) -> list[Hit]:
    """A lead named by the question's words and more (``MarkShorthandDeprecated`` for "how is a
    flag marked as deprecated?") gives way to a candidate of its rank among the next two named
    by as many of them and nothing else (``MarkDeprecated``), whose body carries as many."""
    if len(head) < 2:
        return head
    lead = head[0]
    named = words_in(own_name(lead), groups)
    if named < _NAMED_WORDS or not extra_words(own_name(lead), groups):
        return head
    for hit in head[1:3]:
        name = own_name(hit)
        if (
            doing_rank(hit) == doing_rank(lead)
            and words_in(name, groups) == named
            and not extra_words(name, groups)
            and words_in(hit.text, groups) >= words_in(lead.text, groups)
        ):
            return [hit, *(h for h in head if h is not hit)]
    return head


def extra_words(name: str, groups: list[set[str]]) -> set[str]:
    """The stems of ``name`` no word group of the question holds."""
    return {w for w in word_stems(name) if not any(w in g for g in groups)}


_ACCESSOR = re.compile(r"^\s*(?:static\s+)?(get|set)\s+\w")


def own_name(hit: Hit) -> str:
    """The definition's own name, with the ``get`` / ``set`` of a JavaScript accessor (``set
    body (val)`` is named "set body")."""
    name = last_name(hit.symbol or "")
    accessor = _ACCESSOR.match(hit.text)
    return f"{accessor.group(1)} {name}" if accessor else name


# the names of opposite operations: a question asking how data is decoded is not answered by
# the encoder, however many other words they share
_OPPOSITES = (
    ("encode", "decode"), ("encoder", "decoder"), ("serialize", "deserialize"),
    ("marshal", "unmarshal"), ("encrypt", "decrypt"), ("compress", "decompress"),
    ("pack", "unpack"), ("escape", "unescape"), ("quote", "unquote"), ("zip", "unzip"),
    ("dump", "load"), ("dumps", "loads"), ("read", "write"),
)  # fmt: skip
_NAME_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])")


# text read into values or values written out as text: which way a question asks ("how is the
# string with a level's name turned into a level?" asks the parser, not the formatter)
_FROM_TEXT = re.compile(
    r"(?i)\b(?:pars(?:e[sd]?|ing)|decod(?:e[sd]?|ing)|read(?:s|ing)?|load(?:s|ed|ing)?"
    r"|deserializ\w*|unmarshal\w*|(?:string|text) into"
    r"|(?:from|out of) (?:an? |the |its )?(?:[\w-]+ ){0,2}(?:string|text|json|bytes)"
    r"|(?:turn|convert|transform)\w* (?:an? |the )?(?:(?!(?:in)?to\b|as\b)[\w-]+ ){0,2}"
    r"(?:string|text))\b"
    r"|разб[иоа]р|парс|чтени|чита[ею]т|декодир|десериализ|из (?:строки|текста|json|байт)"
    r"|(?:превраща|преобразу|перевод)\w* (?:(?!во?\b)\w+ )?(?:строк|текст)"
)
_INTO_TEXT = re.compile(
    r"(?i)\b(?:format(?:s|ted|ting)?|encod(?:e[sd]?|ing)|serializ\w*|marshal\w*|stringif\w*"
    r"|print(?:s|ed|ing)?|writ(?:e[sd]?|ing|ten)|dump\w*|render\w*"
    r"|(?:into|to|as) (?:an? |the )?(?:[\w-]+ ){0,2}(?:string|text|json)"
    # "when generating XML": values written out in a text format
    r"|generat\w* (?:an? |the )?(?:[\w-]+ )?(?:xml|json|yaml|toml|html|csv|markup))\b"
    r"|форматир|(?<!де)(?:за)?кодиру|(?<!де)кодирован|(?<!де)сериализ|сохранени|сохраня|печат"
    r"|вывод"
    r"|(?:в|во) (?:\w+(?:ую|юю) )?(?:текст|строку|json|(?:xml|yaml|toml|html|csv)\b)"
    r"|генер\w* (?:\w+ )?(?:xml|json|yaml|toml|html|csv)"
)
_FROM_NAMES = frozenset(
    {"parse", "decode", "unmarshal", "deserialize", "load", "loads", "read", "scan"}
)
_INTO_NAMES = frozenset(
    {
        "format",
        "fmt",
        "encode",
        "stringify",
        "dump",
        "dumps",
        "unparse",
        "serialize",
        "marshal",
        "write",
        "render",
    }
)
_TEXTS = frozenset({"string", "str", "text", "json"})


def _way(words: set[str]) -> str:
    """Which way a definition named by ``words`` converts: "from" text, "into" text, or ""."""
    # Go's `String()`, Python's `__str__`: the value written out as its text
    into = bool(words & _INTO_NAMES) or ("to" in words and bool(words & _TEXTS))
    into = into or words in ({"string"}, {"str"})
    read = bool(words & _FROM_NAMES) or ("from" in words and bool(words & _TEXTS))
    return "" if into == read else "into" if into else "from"


def opposite_named(head: list[Hit], terms: Sequence[str], question: str = "") -> list[Hit]:
    """``head`` with its lead replaced by the first candidate of its rank, among the first
    :data:`NAMED_WINDOW`, named by the operation the question asks (one of its ``terms``,
    inflected: "decoded") when the lead is named by its opposite (``encode`` for «как
    декодируется строка» gives way to ``decode``), or by the way the ``question`` asks a
    conversion to go, text into values or values into text, when the lead goes the other."""
    if len(head) < 2:
        return head
    words = {w.lower() for w in _NAME_WORD.findall(own_name(head[0]))}
    for one, other in (*_OPPOSITES, *((b, a) for a, b in _OPPOSITES)):
        if one not in words or other in words or not _asks(terms, other) or _asks(terms, one):
            continue
        for hit in head[1:NAMED_WINDOW]:
            named = {w.lower() for w in _NAME_WORD.findall(own_name(hit))}
            if doing_rank(hit) == doing_rank(head[0]) and other in named and one not in named:
                return [hit, *(h for h in head if h is not hit)]
    # the question asks one way, text into values or values into text, and the lead is named
    # for the other (`formatLevel` for "how is a level's name turned into a level?")
    asked = ("from" if _FROM_TEXT.search(question) else "") + (
        "into" if _INTO_TEXT.search(question) else ""
    )
    if asked in ("from", "into") and _way(words) not in ("", asked):
        for hit in head[1:NAMED_WINDOW]:
            named = {w.lower() for w in _NAME_WORD.findall(own_name(hit))}
            if doing_rank(hit) == doing_rank(head[0]) and _way(named) == asked:
                return [hit, *(h for h in head if h is not hit)]
    return head


def _asks(terms: Sequence[str], word: str) -> bool:
    """True when one of the question's ``terms`` is ``word``, inflected ("decodes", "decoded";
    not "package" for `pack`)."""
    return any(t.startswith(word) and t[len(word) :] in ENDINGS for t in terms)


# a width the question writes: "64-bit", «64-битное», "128 bits"
_WIDTH = re.compile(r"(?i)\b(8|16|32|64|128)[- ]?(?:bits?\b|бит)")
_NAME_WIDTH = re.compile(r"(?<![0-9])(8|16|32|64|128)(?![0-9])")


def sized_twin(head: list[Hit], question: str) -> list[Hit]:
    """``head`` with its lead replaced by its twin for the width the ``question`` writes: the
    candidate among the first :data:`NAMED_WINDOW` named as the lead but for the number
    (``integer_decode_f64`` for «64-битное число» when ``integer_decode_f32`` leads)."""
    widths = set(_WIDTH.findall(question))
    if len(head) < 2 or len(widths) != 1:
        return head
    (width,) = widths
    name = own_name(head[0])
    if not _NAME_WIDTH.search(name) or width in _NAME_WIDTH.findall(name):
        return head
    for hit in head[1:NAMED_WINDOW]:
        if doing_rank(hit) == doing_rank(head[0]) and own_name(hit) == _NAME_WIDTH.sub(width, name):
            return [hit, *(h for h in head if h is not hit)]
    return head


def worded_twin(
    head: list[Hit], groups: list[set[str]], standing: Callable[[Hit], object]
) -> list[Hit]:
    """``head`` with its lead replaced by a namesake among the first :data:`NAMED_WINDOW` (the
    same name, kind, rank and ``standing``, another definition) whose body carries more of
    the question's words: the builds of one function (`dequal` of `lite.js` and of
    `index.js`) are told apart by what each handles ("Maps whose keys are objects"). A lead
    of a better ``standing`` (the code for the platform asked) keeps its place."""
    if len(head) < 2 or not groups:
        return head
    lead = head[0]
    name, rank = own_name(lead), doing_rank(lead)
    twins = [
        h
        for h in head[1:NAMED_WINDOW]
        if own_name(h) == name
        and h.kind == lead.kind
        and doing_rank(h) == rank
        and standing(h) == standing(lead)
    ]
    if not twins:
        return head
    best = max(twins, key=lambda h: (words_in(h.text, groups), -head.index(h)))
    if words_in(best.text, groups) <= words_in(lead.text, groups):
        return head
    return [best, *(h for h in head if h is not best)]


def named_owner(head: list[Hit], groups: list[set[str]]) -> list[Hit]:
    """``head`` with its lead, a method, replaced by the method of the same name of another
    type among the first :data:`NAMED_WINDOW` whose type's name carries more of the question's
    words (for "the round-robin queue", ``RoundRobinQueue.pop`` rather than
    ``SQLiteQueue.pop``): the types implementing one interface are told apart by their names.
    The best such, none when two types tie."""
    if len(head) < 2 or not groups or head[0].kind != "method":
        return head
    rank = doing_rank(head[0])
    name = own_name(head[0])
    said = set().union(*groups)
    least = len(word_stems(_owner(head[0])) & said)
    found = sorted(
        (
            (len(word_stems(_owner(hit)) & said), -n, n)
            for n, hit in enumerate(head[1:NAMED_WINDOW], 1)
            if hit.kind == "method" and doing_rank(hit) == rank and own_name(hit) == name
        ),
        reverse=True,
    )
    # a type named by two words or more of the question: one word ("field" of `Field`, the
    # base of every field type; "string" of `StringRule`) is a word of the question, no name
    if not found or found[0][0] < max(_OWNER_WORDS, least + 1):
        return head
    if len(found) > 1 and found[1][0] == found[0][0]:
        return head
    best = head[found[0][2]]
    return [best, *(h for h in head if h is not best)]


def _owner(hit: Hit) -> str:
    """The name of the type a method belongs to (``FifoDiskQueue`` of
    ``queuelib.queue.FifoDiskQueue.pop``)."""
    symbol = hit.symbol or ""
    return last_name(symbol[: len(symbol) - len(last_name(symbol))].rstrip(".:#\\"))


_OWNER_WORDS = 2
