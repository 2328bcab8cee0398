"""The lines of a definition that answer a question about one detail of it.

"And what does it return if the parameter is missing?", «а что будет, если метода head нет?»:
the answer is a few lines inside the definition the conversation is about (the early ``return``
of an empty value, the branch for HEAD, the error raised when nothing matched), not the whole
definition again. :func:`answering_lines` scores each line of the definition by the question's
content words (its facets' ``terms``: identifier parts compared by stem, each word of the
question counted once however many of its terms a line writes: ``words.Asked``), by the
values it writes (``12``, ``"AM"``) and the characters it names ("a newline": ``"\\n"``),
and by what kind of detail is asked (a returned value, a condition, an error), then widens the best line to the smallest block that reads on its own:
a condition with its body, or a ``return`` with the condition that guards it. At most
:data:`MAX_LINES` lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ragstrata.answer.graphs.words import Asked, line_stems, phrases_in, values_in
from ragstrata.core.question import QuestionFacets
from ragstrata.core.rows import DefinitionRow
from ragstrata.text.stopwords import is_stopword

__all__ = ["MAX_LINES", "DetailSpan", "answering_lines"]

MAX_LINES = 8
_CONDITION = re.compile(
    r"^\s*(?:\}\s*)?(?:if|elif|else\s+if|else|unless|when|case|switch|match|guard|except|catch|"
    r"rescue|elsif)\b|^\s*default\s*:|\?\s*[^:]+:|=>"
)
# the languages whose `=>` writes a function or a pair, never a branch
_ARROW_LANGUAGES = frozenset({"javascript", "typescript", "tsx", "vue", "svelte", "ruby", "php"})
_RETURN = re.compile(r"\b(?:return|yield|Ok\(|Some\(|None\b|nil\b|null\b)")
# a condition that returns on its own line (`if not x: return None`) is no block; one testing
# for `null` (`if (str == null || …) {`) is
_RETURNS_HERE = re.compile(r"\b(?:return|yield)\b|\bOk\(|\bSome\(")
_ERROR = re.compile(
    r"\b(?:raise|throw|panic!?|Err\(|abort|halt|error|Error|Exception|fail|bail!?)\b|"
    r"^\s*(?:\}\s*)?(?:catch|except|rescue)\b"  # the branch an error takes
)
# a condition testing for an absent value: `meth is None`, `x == nil`, `!= null`, `.is_none()`,
# `rm === UNDEFINED` (a constant standing for it)
_ABSENT_TEST = re.compile(
    r"\bis\s+(?:not\s+)?None\b|[!=]==?\s*(?:None|nil|null|undefined|NULL|UNDEFINED|void\s+0)\b|"
    r"[!=]==?\s*['\"]undefined['\"]|"  # `url === void 0`, `typeof x === 'undefined'`
    r"\.(?:is_none|is_empty|isEmpty)\(\)|\bnot\s+\w+\s*(?::|$)|\bnot\s+in\b|"
    # a negated value alone: `if (!resolved) {`, `if !found {`; not a predicate (`!isNative`)
    # nor Go's `!ok` (no such key: a name unknown, not a value missing)
    r"\bif\s*\(\s*!\s*(?!ok\b|(?:is|has|should|can|did|was|allow|enable)[A-Z_])[\w.]+\s*\)|"
    r"\bif\s+!\s*(?!ok\b|(?:is|has|should|can|did|was|allow|enable)[A-Z_])[\w.]+\s*\{|"
    r"!\s*[\w.]+\.(?:has|contains|includes|Contains\w*|Has\w*)\(|"
    # equal to an empty string (Enter pressed alone) or a Go zero value (`statusCode == 0`:
    # none was given, the default follows); `!= ""` tests for a value
    r"(?<![!=<>])===?\s*(?:\"\"|''|``|0\b)|\blen\(\w+\)\s*==\s*0\b"
)
# a test whether something is there already: what "what if it appears twice?" is answered by
_PRESENCE_TEST = re.compile(
    _ABSENT_TEST.pattern + r"|\bin\s+(?:self\.)?\w+|\.(?:has|contains|includes|exists)\w*\(|, ok\b"
)
# a bound or a count ("how many edits apart?"): a number past 0 and 1 assigned or compared
# with (not `slice(2)`), or a `max…` / `limit` name
_AMOUNT = re.compile(
    r"(?:[=<>:*]|\breturn)\s*(?:[2-9]|\d{2,}|\d*\.\d+)(?![\w.])|"
    r"(?<![\w.])(?:[2-9]|\d{2,}|\d*\.\d+)\s*[<>]|"
    r"\b(?:max|min|limit|threshold|MAX|MIN|LIMIT)(?:[A-Z_]\w*)?\b|\b[a-z]+(?:Max|Min|Limit)\w*|"
    # a size compared with its bound: `size > maxsize`, `cs > len(v.segments)`
    r"[<>]=?\s*(?:self\.)?_*(?:max|min)[a-z]+\b|[<>]=?\s*len\(|\blen\([^)]*\)\s*[<>]|"
    # the same with a method or property: `size <= str.length()`, `s.len() > n`
    r"[<>]=?\s*[\w.]+\.(?:length|size|len|count)\b|\.(?:length|size|len|count)\b(?:\(\))?\s*[<>]"
)
# a comparison with zero from below: what "what if the count is negative?" is answered by
_NEGATIVE = re.compile(
    r"<=?\s*0(?:\.0)?(?![\w.])|<\s*-\d|(?<![\w.])0\s*>(?!=)|\.(?:is_negative|signum)\(|"
    # ... or its opposite, the test that a value is not negative (`value >= 0`, `0 <= timeout`,
    # `isPosInt(size)`)
    r">=\s*0(?:\.0)?(?![\w.])|(?<![\w.])0(?:\.0)?\s*<=|\bis_?(?:Pos|NonNeg|positive|non_?negative)\w*\("
)
# a value given its default when it is missing (`data = data || STATUS_CODES[code]`,
# `x = x or {}`, `opts ??= {}`)
_DEFAULTED = re.compile(r"\b([\w.]+)\s*=\s*\1\s*(?:\|\||\?\?|\bor\b)|(?:\|\||\?\?)=")
# an error named for a missing value: what "what if it is not given?" is answered by
_MISSING_ERROR = re.compile(
    r"\b\w*(?:Missing|Required|NotFound|NoSuch|Empty)\w*(?:Error|Exception)\b"
)
# two names compared for equality (`oldname == newname`, `a.equals(b)`), not a name with a
# literal or an absent value
_EQUAL = re.compile(
    r"\b(?!(?:None|nil|null|undefined|true|false|True|False)\b)[A-Za-z_][\w.]*(?:\(\))?\s*"
    r"(?:===?|\bis\b(?!\s+not\b))\s*(?!(?:None|nil|null|undefined|true|false|True|False)\b)"
    r"[A-Za-z_][\w.]*(?!\s*\()|\.(?:equals|Equal|eq)\(|\bEqual\("
)
# a test of a value's type, or the error for a wrong one
_TYPE_TEST = re.compile(
    r"\bisinstance\(|\btypeof\b|\binstanceof\b|\bTypeError\b|\.Kind\(\)|"
    r"\bis_?(?:[A-Z]\w*)?(?:Object|String|Str|Number|Num|Array|Map|Dict|List|Int|Integer|"
    r"Function|Func|Bool)\s*\(|\bis_(?:string|str|number|object|array|dict|list|int)\("
)
_OTHERWISE = re.compile(r"^\s*(?:\}\s*)?(?:else\b(?!\s*if)|default\s*:|_\s*=>|otherwise\b)")
_GUARD = re.compile(r"\b(?:return|raise|throw|halt|abort)\b.*\b(?:if|unless)\b|\b(?:unless)\b")
_DOC_QUOTE = r"[rRuUbB]{0,2}(?:\"\"\"|''')"  # a docstring's opening quotes
_COMMENT = re.compile(rf"^\s*(?:#|//|/\*|\*|--|{_DOC_QUOTE})")
_DOCSTRING_LINE = re.compile(rf"^\s*{_DOC_QUOTE}")
_SHAPE_ALONE = 3.0  # a line of the asked shape (`else`, a guard) counts with no word matched
# a character the question names, written as a literal (`== '\\n'` for "a newline"): half a
# word, as any line handling the character writes it
_CHARACTER = 1.0
# a signature spans at most this many lines (Rust's parameters one a line, then `where`)
_SIGNATURE_LINES = 14


@dataclass(frozen=True, slots=True)
class DetailSpan:
    """The answering lines (1-based, inclusive) of a definition, and how well they match."""

    start_line: int
    end_line: int
    score: float


# a parameter stored under its own name (`self.default = default`): it says no more than the
# parameter list, and what the code does with the value is elsewhere
_STORES_ITSELF = re.compile(r"^\s*(?:self|this)\.(\w+)\s*=\s*(\w+)\s*;?\s*$")


def _line_score(
    line: str, asked: Asked, facets: QuestionFacets, phrases: frozenset[tuple[str, str]]
) -> float:
    stored = _STORES_ITSELF.match(line)
    if not line.strip() or _COMMENT.match(line) or (stored and stored[1] == stored[2]):
        return 0.0
    matched = asked.said(line_stems(line)) + phrases_in(line, phrases)
    shape = _shape_score(line, facets)
    if not matched and shape < _SHAPE_ALONE:
        return 0.0
    return 2.0 * matched + shape


def _falls_through(lines: list[str], k: int) -> bool:
    """True for the last statement of a body returning an error after the branches before it
    (Go's ``return 0, fmt.Errorf("unhandled size name")``): what none of them handled."""
    rest = [ln for ln in lines[k + 1 :] if ln.strip()]
    # the statement may go on (its arguments indented deeper) before the closing lines
    if any(
        _indent(ln) <= _indent(lines[k]) and not ln.strip().startswith(("}", ")", "]", "end"))
        for ln in rest
    ):
        return False
    line = lines[k]
    return bool(re.search(r"\b(?:return|raise|throw)\b", line) and _FAILURE.search(line))


# an error made or raised (`fmt.Errorf`, `errors.New`, `Err(`, `ValueError(`, `errInvalid`), not
# a result passed on (`return v, err`)
_FAILURE = re.compile(
    r"Errorf|errors\.New|\bErr\(|\b(?:raise|throw)\b|(?:Error|Exception)\(|\b[eE]rr[A-Z]\w*"
)


def _shape_score(line: str, facets: QuestionFacets) -> float:
    """What kind of line the detail asks for: the branch for "none of them", the guard for a
    missing value, a condition, a return, an error."""
    score = 0.0
    if "otherwise" in facets.details and _OTHERWISE.search(line):
        score += 3.0
    elif "otherwise" in facets.details and _CONDITION.search(line) and _ABSENT_TEST.search(line):
        score += 1.5  # "not found": the branch for a lookup that found nothing
    elif "excess" in facets.details and _OTHERWISE.search(line):
        score += 1.5  # past the listed ones, unless a line names what there is too much of
    if "missing" in facets.details and (_GUARD.search(line) or _DEFAULTED.search(line)):
        score += 3.0
    elif "missing" in facets.details and _CONDITION.search(line) and _ABSENT_TEST.search(line):
        score += 3.0  # the branch for an absent value answers as a guard does
    if "condition" in facets.details and _CONDITION.search(line):
        score += 1.5
    if "returns" in facets.details and _RETURN.search(line):
        score += 1.5
    if "error" in facets.details and _ERROR.search(line):
        score += 1.5
    if "repeat" in facets.details and _CONDITION.search(line) and _PRESENCE_TEST.search(line):
        score += 3.0  # `if (obj[key] === undefined)`: only the first one is kept
    if "amount" in facets.details and _AMOUNT.search(line):
        score += 3.0
    if "negative" in facets.details and _NEGATIVE.search(line):
        score += 3.0
    if "equal" in facets.details and _CONDITION.search(line) and _EQUAL.search(line):
        score += 3.0
    if "wrongtype" in facets.details and _TYPE_TEST.search(line):
        score += 3.0
    return score


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _block(lines: list[str], best: int) -> tuple[int, int]:
    """``best`` widened to a block that reads on its own (indices into ``lines``)."""
    line = lines[best]
    if _CONDITION.search(line) and not _RETURNS_HERE.search(line):
        # the condition and its body: the lines indented deeper, and a closing brace
        end = best
        for k in range(best + 1, min(len(lines), best + MAX_LINES)):
            nxt = lines[k]
            if not nxt.strip():
                continue
            if _indent(nxt) > _indent(line):
                end = k
                continue
            if nxt.strip().startswith(("}", "end")) and _indent(nxt) == _indent(line):
                end = k
            break
        return best, end
    # a return / raise / assignment: with the condition that guards it, when it is close above
    start = best
    for k in range(best - 1, max(-1, best - 4), -1):
        if _indent(lines[k]) < _indent(line) and _CONDITION.search(lines[k]):
            start = k
            break
        if _indent(lines[k]) < _indent(line):
            break
    return start, best


def answering_lines(
    row: DefinitionRow, facets: QuestionFacets, *, shown: bool = False
) -> DetailSpan | None:
    """The lines of ``row`` that answer the detail ``facets`` ask about, or None when no line
    of its body matches the question's words. A condition is scored with its body (the words
    of the branch count, each once), any other line by itself.

    Its own name says nothing of the detail ("what does parse return…" of `parse`). For the
    definition an answer ``shown`` (chosen already), when no other word of the question is
    said, the lines saying the name answer rather than its card again ("which errors are
    still passed on?" of a handler named `error`: `forwardError`); the name does not weigh
    in choosing which definition answers."""
    span = _answering_lines(row, facets, Asked.of(facets, line_stems(row.name)))
    if span is None and shown and _says_its_name(row, facets):
        span = _answering_lines(row, facets, Asked.of(facets))
    return span


def _says_its_name(row: DefinitionRow, facets: QuestionFacets) -> bool:
    """True when a word the question writes (not a name carried from the conversation: "and
    in the tests?" after a question about `make_response`) is the definition's own name."""
    written = replace(facets, terms=tuple(w for group in facets.concepts for w in group))
    return bool(line_stems(row.name) & Asked.of(written).stems)


def _answering_lines(row: DefinitionRow, facets: QuestionFacets, asked: Asked) -> DetailSpan | None:
    phrases = frozenset(p for p in facets.phrases if not all(is_stopword(w) for w in p))
    lines = row.text.splitlines()
    if row.language in _ARROW_LANGUAGES:
        # `) => {` opens a callback in JavaScript (`:a => 1` is a pair in Ruby): no branch, as
        # a Rust or Scala match arm is
        lines = [line.replace("=>", "->") for line in lines]
    values, chars = facets.values, facets.characters
    if len(lines) < 3 or not (asked.stems or values or chars):
        return None
    doc = {d.strip() for d in (row.docstring or "").splitlines() if d.strip()}
    body = _body_start(lines)
    if "condition" in facets.details and _unlisted_value(facets, row.text):
        # "and if HTTP/2.0 comes?" of code listing HTTP/1.0 and 1.1: the branch for the rest
        facets = replace(facets, details=facets.details | {"otherwise"})
    best: tuple[float, int, int, int, int] | None = None  # score, -length, -start, start, end
    said_by: dict[tuple[int, int], frozenset[str]] = {}  # each branch's words of the question
    for k in range(body, len(lines)):
        line = lines[k]
        if not line.strip() or line.strip() in doc or _COMMENT.match(line):
            continue
        start, end = _block(lines, k)
        cut = _goes_on(lines, start, end)
        end = min(end, start + MAX_LINES - 1)
        while end > start and (not lines[end].strip() or _COMMENT.match(lines[end])):
            end -= 1  # a cut block ends on code, not on the comment of what follows
        # the comment right above a line says what it does ("// date is in the past")
        said_above = _comment_above(lines, start, body)
        if _CONDITION.search(line) and not _RETURNS_HERE.search(line):
            words: set[str] = set()
            said = 0
            written: set[str] = set()  # the question's values the branch writes, each once
            for j in range(k, end + 1):
                if not _COMMENT.match(lines[j]):
                    words |= line_stems(lines[j])
                    said = max(said, phrases_in(lines[j], phrases))
                    written |= values_in(lines[j], values, chars)
                elif all(_COMMENT.match(lines[i]) for i in range(k + 1, j)):
                    # the comment right under the condition says what its branch does
                    said_above |= line_stems(lines[j])
            matched = asked.said(words) + said + len(written - chars)
            # the call above whose result the branch tests weighs as a comment above does
            said_above |= _assigned_above(lines, k, body)
            said_by[(start, end)] = (
                said_by.get((start, end), frozenset()) | (words & asked.stems) | written
            )
            shape = _shape_score(line, facets) + _COMMENT_WORD * asked.said(said_above - words)
            if "missing" in facets.details and any(
                _MISSING_ERROR.search(lines[j]) for j in range(k, end + 1)
            ):
                shape += 1.5  # the branch raising `ValueRequiredError`, `MissingClaimError`
            shape += _CHARACTER * len(written & chars)
            score = 2.0 * matched + shape if matched or shape >= _SHAPE_ALONE else 0.0
        else:
            score = _line_score(line, asked, facets, phrases)
            if found := values_in(line, values, chars):
                score = (score or _shape_score(line, facets)) + 2.0 * len(found - chars)
                score += _CHARACTER * len(found & chars)
            if "otherwise" in facets.details and _falls_through(lines, k):
                score += _SHAPE_ALONE  # the error at the end: what no branch above handled
            extra = asked.said(said_above - line_stems(line))
            if extra:
                score = (score or _shape_score(line, facets)) + _COMMENT_WORD * extra
        # equal scores: the tighter block (an inner branch, not the one around it), then the first
        if score > 0 and (best is None or (score, start - end, -start) > best[:3]):
            best = (score, start - end, -start, *_matched_part(lines, start, end, asked.stems, cut))
    if best is None:
        return None
    score, length, first, start, end = best
    header = frozenset(line_stems(lines[-first]) & asked.stems)
    block = (-first, -first - length)
    # the rest of a chain whose branch the question lists (`case []byte:` for "some other
    # length of byte slice"), not of one only around the lines answering (`if signed:`)
    listed = header or values_in(lines[block[0]], values, chars)
    rest = _rest_branch(lines, block) if "otherwise" in facets.details and listed else None
    start, end = rest or _inner_block(said_by, block, (start, end), header)
    return DetailSpan(row.start_line + start, row.start_line + end, score)


# a branch going on the chain of the one before it (`elif`, `} else if`, another `case`)
_CHAIN = re.compile(r"^\s*(?:\}\s*)?(?:elif|else\s+if|elsif|case|when)\b|=>")


def _rest_branch(lines: list[str], block: tuple[int, int]) -> tuple[int, int] | None:
    """The branch for the rest (`else`, `default:`, `_ =>`) of the chain whose branch
    ``block`` is: what "some other length?", "not 10 or 12 digits?" ask, though the listed
    branch says more of the question's words. The one ending the block's own chain, else the
    outermost one inside the block (`default:` of a `switch` under `case []byte:`); None when
    the block is itself a test for an absent value ("not found") or the rest."""
    head = lines[block[0]]
    if not _CONDITION.search(head) or _OTHERWISE.search(head) or _ABSENT_TEST.search(head):
        return None
    k = block[0] + 1  # the block's lines, past where it was cut to be shown
    while k < len(lines) and (not lines[k].strip() or _indent(lines[k]) > _indent(head)):
        k += 1
    inside = [j for j in range(block[0] + 1, k) if _opens_rest(lines[j])]
    while k < len(lines):
        line = lines[k]
        if not line.strip() or _COMMENT.match(line) or _indent(line) > _indent(head):
            k += 1
        elif _indent(line) < _indent(head):
            break
        elif _opens_rest(line):
            return _block(lines, k)
        elif _CHAIN.search(line) or line.strip() == "}":
            k += 1
        else:
            break
    if inside:
        return _block(lines, min(inside, key=lambda j: (_indent(lines[j]), -j)))
    return None


def _opens_rest(line: str) -> bool:
    """True for the head of a branch for the rest, not the `else` of a conditional
    expression (`if n > 9 else n == d[-1]`)."""
    code = line.strip()
    return bool(_OTHERWISE.search(line)) and (code.endswith((":", "{", "else")) or "=>" in code)


_INNER_WORDS = 2  # an inner branch saying this many of the outer's words may miss one of them


def _inner_block(
    said_by: dict[tuple[int, int], frozenset[str]],
    block: tuple[int, int],
    shown: tuple[int, int],
    header: frozenset[str] = frozenset(),
) -> tuple[int, int]:
    """The tightest branch inside ``block`` saying every word of the question it says (for
    "codes 128 to 159": `if 0x80 <= code <= 0x9F:` inside `if code is not None:`), else
    ``shown``: the branch around it only adds lines. The words only its condition line
    (``header``) says restate the question's premise ("a fallback that is a string with
    non-ASCII characters": `if (typeof fallback === 'string')`); the branch inside answers."""
    said = said_by.get(block)
    if said and said - header:
        said = said - header  # the words of its condition restate the question's premise
    if not said:
        return shown
    inner = [
        span
        for span, words in said_by.items()
        if block[0] < span[0] <= block[1]  # a cut block's inner one may go on
        and (words >= said or (len(words & said) >= _INNER_WORDS and len(said - words) == 1))
    ]
    tight = min(inner, key=lambda s: (s[1] - s[0], s[0])) if inner else shown
    return tight if tight[1] - tight[0] < shown[1] - shown[0] else shown


def _matched_part(
    lines: list[str], start: int, end: int, stems: frozenset[str], cut: bool
) -> tuple[int, int]:
    """A block too long to show whole (``cut``) narrowed to the fewest lines that carry all
    its words of the question: the outer condition around a loop is no part of what the inner
    lines answer (unless it says a word they do not)."""
    if not cut:
        return start, end
    # a comment says what the code does; the narrowed lines are the code saying it
    found = {
        j: set() if _COMMENT.match(lines[j]) else line_stems(lines[j]) & stems
        for j in range(start, end + 1)
    }
    every = set().union(*found.values())
    best = (start, end)
    for a in range(start, end + 1):
        seen: set[str] = set()
        for b in range(a, end + 1):
            seen |= found[b]
            if seen == every:
                if b - a < best[1] - best[0]:
                    best = (a, b)
                break
    return best if best[0] > start else (start, end)  # the head says it: the block reads on


def _goes_on(lines: list[str], start: int, end: int) -> bool:
    """True when the block of the condition at ``start`` goes on past ``end`` (its next
    line of code is indented deeper): :func:`_block` cut it."""
    if not _CONDITION.search(lines[start]):
        return False
    for line in lines[end + 1 :]:
        if line.strip():
            return _indent(line) > _indent(lines[start])
    return False


_VALUE = re.compile(r"\d")


def _unlisted_value(facets: QuestionFacets, text: str) -> bool:
    """True when the question names a value with digits (``HTTP/2.0``, ``501``) that the
    definition's code never writes: what it does with values it does not list is asked."""
    values = [w for w in facets.words if _VALUE.search(w)]
    return bool(values) and not any(v in text for v in values)


def _comment_above(lines: list[str], k: int, body: int) -> set[str]:
    """The words of the comment lines right above line ``k`` (at most three, inside the
    body; a docstring says what the whole definition does, not the line under it)."""
    words: set[str] = set()
    j = k - 1
    while (
        j >= body
        and k - j <= _COMMENT_ABOVE
        and _COMMENT.match(lines[j])
        and not _DOCSTRING_LINE.match(lines[j])
    ):
        words |= line_stems(lines[j])
        j -= 1
    return words


_COMMENT_ABOVE = 3
_COMMENT_WORD = 1.0  # a word the comment above says: half of what a word of the code counts


_ASSIGNS = re.compile(
    r"^\s*(?:(?:let|const|var|mut)\s+)*([\w$]+(?:\s*,\s*[\w$]+)*)\s*(?::=|=(?!=))"
)


def _assigned_above(lines: list[str], k: int, body: int) -> set[str]:
    """The words of the line right above the condition ``k`` when it assigns a name the
    condition tests (`file, err := os.OpenFile(…)` above `if err != nil {`): the branch
    handles what that call returned."""
    found = _ASSIGNS.match(lines[k - 1]) if k > body else None
    if found is None:
        return set()
    names = {n.strip() for n in found.group(1).split(",")} - {"_"}
    return line_stems(lines[k - 1]) if names & set(re.findall(r"[\w$]+", lines[k])) else set()


def _body_start(lines: list[str]) -> int:
    """The first line after the signature (which may span lines up to its ``:`` or ``{``)."""
    for k, line in enumerate(lines[:_SIGNATURE_LINES]):
        if line.rstrip().endswith((":", "{", "=>", " do", "->")) or line.rstrip().endswith(")"):
            if (
                line.rstrip().endswith(")")
                and k + 1 < len(lines)
                and lines[k + 1].strip().startswith("->")
            ):
                continue
            return k + 1
    return 1
