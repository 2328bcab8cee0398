"""The settings a configuration question asks for: the one line a user changes.

"How do I make the router answer 405 instead of 404?", «как отключить показ страницы с
трассировкой исключения?», "How do I change the port?": the answer is a setting — an exported
field of an options struct with its doc comment, a documented member of a config interface or
attribute of a session object (``self.verify = True``), a ``set :port, …`` line, an
environment variable the code reads, a key of a defaults table, a module constant — not the
function that happens to share a word. :func:`find_settings` reads
the code rows retrieval and the lexical index found for the question's words, finds the lines
that declare a setting (:data:`_DECLARATIONS`), and scores each by the question's content words
(compared by stem) in the setting's own name (twice) and in its doc comment and line (once). A
setting whose name is made only of the question's words counts as well as two more words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from ragstrata.answer.graphs.base import CitationList, hit_from_scored, project_words, quote_block
from ragstrata.answer.graphs.focus import not_overview_path
from ragstrata.answer.graphs.messages import Messages
from ragstrata.answer.graphs.words import stem, stem_groups, word_stems
from ragstrata.core.evidence import Evidence, Hit
from ragstrata.core.languages import detect_language, is_test
from ragstrata.core.paths import peripheral_path
from ragstrata.core.question import QuestionFacets
from ragstrata.query.models import RouterPlan
from ragstrata.retrieve.reader import IndexReader, mentions

__all__ = ["MIN_SCORE", "Setting", "find_settings", "settings_part"]

MIN_SCORE = 4.0
"""What a setting must score to lead the answer (two words of the question in its name, or
one name made of the question's words, or four words of its doc comment)."""

_MAX_COMMENT = 12  # doc comment lines read above a declaration
_POOL = 60  # code rows read for settings
_TERM_QUERIES = 8  # the question's first words, each also looked up alone
_SHOWN = 2  # settings quoted
_DOC_POOL = 10  # documentation sections looked at for the best setting's name
_DOC_LINES = 12  # lines of that section quoted
# words a switch's name adds to what it switches (stems): USE_RICH, HAS_RICH, ENABLE_X, NO_X
_DEFAULT = "defa"  # the stem of "default": DEFAULT_X is the default of a setting X
_BOUNDS = frozenset({"max", "min"})
_SWITCH_WORDS = frozenset({"use", "has", "is", "enab", "disa", "allo", "no", "with", "can"})
_ENV = (
    r"(?:getenv|environ\.get|environ\[|ENV\[|ENV\.fetch\(|process\.env\.|env::var\(|"
    r"System\.getenv\(|System\.getProperty\(|os\.LookupEnv\()"
)
# (pattern, a field that needs a doc comment): a declaration line and the setting it declares;
# the others declare a setting as such (`set :port`, an environment variable, a defaults key)
_DECLARATIONS: tuple[tuple[re.Pattern[str], bool], ...] = (
    # Ruby / Sinatra-style: set :port, 4567
    (re.compile(r"^\s*set\s+:(?P<name>\w+)\s*,"), False),
    # Express-style defaults: this.set('trust proxy', false), app.enable('view cache')
    (re.compile(r"^\s*(?:this|app|self)\.(?:set|enable|disable)\(\s*[\"'](?P<name>[A-Za-z][\w .-]{1,40})[\"']"), False),
    # an environment variable or a system property the code reads
    (re.compile(_ENV + r"\s*\(?\s*[\"']?(?P<name>[A-Za-z][A-Za-z0-9_.]{2,})"), False),
    # a key of a defaults table: "SESSION_COOKIE_SECURE": False
    (re.compile(r"^\s*[\"'](?P<name>[A-Z][A-Z0-9_]{2,})[\"']\s*[:=]"), False),
    # a default a module declares: `defaultRetryMax = 4` in a Go `const (…)` block, `let defaultPort = 80`
    (re.compile(r"^\s*(?:const\s+|var\s+|let\s+)?(?P<name>default[A-Z]\w*)\s*(?::[^=]+)?=\s*\S"), False),
    # a module constant: HAS_RICH = ..., MAX_SIZE: int = ...
    (re.compile(r"^(?:export\s+)?(?:const\s+|var\s+)?(?P<name>[A-Z][A-Z0-9_]{2,})\s*(?::[^=]+)?=\s*\S"), False),
    # a documented builder method of a Rust API: `pub fn max_depth(mut self, depth: usize) -> Self`
    (re.compile(r"^\s*pub fn (?P<name>[a-z_]\w*)\s*(?:<[^>]*>)?\(\s*(?:mut\s+)?self\b[^)]*\)\s*->\s*Self\b"), True),
    # a Java/Kotlin constant
    (re.compile(r"\bstatic\s+final\s+[\w<>\[\], ]+?\s+(?P<name>[A-Z][A-Z0-9_]+)\s*="), True),
    # a documented attribute an object starts with: `self.verify = True` (`#:` comment above),
    # `this.timeout = 0`, `@port = 4567`
    (re.compile(r"^\s+(?:self\.|this\.|@)(?P<name>[A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)\s*\S"), True),
    # an exported Go struct field: HandleMethodNotAllowed bool
    (re.compile(r"^\s+(?P<name>[A-Z]\w*)\s+(?:\*|\[\]|map\[\w+\])*[\w.]+\s*(?:`[^`]*`)?\s*(?://.*)?$"), True),
    # a documented field or member: `pub threads: usize`, `jitless?: boolean`, `debug: bool =`
    (
        re.compile(
            r"^\s+(?:pub(?:\([\w:]+\))?\s+|readonly\s+|public\s+)?(?P<name>[A-Za-z_]\w*)\??\s*:\s*[\w&<\[(\"'|]"
        ),
        True,
    ),
)  # fmt: skip
_OPTION_CALL = re.compile(
    r"\b(?:add_argument|addoption|addini|add_option|(?:click|typer)\.option|\.flag)\(\s*"
)
_LITERAL = re.compile(r"[\"']([^\"'\n]{1,80})[\"']")
_HISTORY = re.compile(r"(?i)(?:^|/)(?:changelog|changes|history|news|release[-_ ]?notes)[^/]*$")
_OPTION_LINES = 15  # an option declaration with its help text is read this far at most
_COMMENT = re.compile(r"^\s*(?://|#|/\*|\*|--|@|\"\"\"|''')")


@dataclass(frozen=True, slots=True)
class Setting:
    """One declared setting: where it is (its doc comment and the declaration line), its name,
    and how well it matches the question."""

    path: str
    start_line: int
    end_line: int
    name: str
    text: str
    score: float

    @property
    def span(self) -> tuple[str, int, int]:
        return (self.path, self.start_line, self.end_line)


def _comment_above(lines: list[str], k: int) -> int:
    """The index of the first line of the comment block (and attributes) right above line
    ``k`` (``k`` itself when there is none)."""
    start = k
    for j in range(k - 1, max(-1, k - 1 - _MAX_COMMENT), -1):
        if not lines[j].strip() or not _COMMENT.match(lines[j]):
            break
        start = j
    return start


def _option_call(lines: list[str], k: int) -> tuple[str, int] | None:
    """A command-line option or ini key declared by a call that starts on line ``k``
    (``add_argument``, ``addoption``, ``addini``, ``add_option``, ``click.option``): its longest
    flag (``--failed-first``) or key, and the index of the line that closes the call (its help
    text is what it is scored by)."""
    if not _OPTION_CALL.search(lines[k]):
        return None
    depth, end, text = 0, k, []
    for j in range(k, min(len(lines), k + _OPTION_LINES)):
        text.append(lines[j])
        depth += lines[j].count("(") - lines[j].count(")")
        end = j
        if depth <= 0:
            break
    call = " ".join(text)
    opened = _OPTION_CALL.search(call)
    if opened is None:
        return None
    call = call[opened.end() :]
    names: list[str] = []
    for m in _LITERAL.finditer(call):
        if call[: m.start()].strip(" ,") and not names:
            break  # the first argument is no string: not a declaration by name
        if names and not m.group(1).startswith("-"):
            break
        names.append(m.group(1))
        rest = call[m.end() :].lstrip()
        if not rest.startswith(","):
            break
        call = call[: m.end()] + rest
    if not names:
        return None
    return max(names, key=len).lstrip("-"), end


def _declared(line: str) -> tuple[str, bool] | None:
    for pattern, documented in _DECLARATIONS:
        found = pattern.search(line)
        if found:
            return found.group("name"), documented
    return None


def _meets(group: AbstractSet[str], stems: AbstractSet[str]) -> bool:
    """True when a word of ``group`` and one of ``stems`` agree: the same stem, or one the
    start of the other (``env`` and ``environment``)."""
    return any(a.startswith(b) or b.startswith(a) for a in group for b in stems)


def _score(
    name: str,
    words: set[str],
    concepts: Sequence[AbstractSet[str]],
    ignore: set[str],
    explicit: bool,
) -> float:
    """Twice each word of the question in the setting's name, once each other one in its doc
    comment and line; a name made of the question's words (besides the project's prefix and a
    switch word: `TYPER_USE_RICH`, `HAS_RICH`) counts two more when it is declared as a setting
    (`set :port`, an environment variable) or has two such words (`show_exceptions`). A
    default (`DEFAULT_REDIRECT_LIMIT`) comes after the setting it is the default of."""
    own = word_stems(name) - _BOUNDS  # MAX_ / MIN_ prefix half of all limits: they tell none apart
    named = [c for c in concepts if _meets(c, own)]
    other = [c for c in concepts if c not in named and _meets(c, words)]
    score = 2.0 * len(named) + len(other)
    core = {w for w in own - ignore - _SWITCH_WORDS if not any(_meets(c, {w}) for c in named)}
    if named and not core and (explicit or len(own - ignore - _SWITCH_WORDS) >= 2):
        score += 2.0
    if _DEFAULT in own:
        score -= 1.0
    return score


def settings_in(
    path: str,
    text: str,
    first_line: int,
    concepts: Sequence[frozenset[str]],
    ignore: Iterable[str] = (),
) -> list[Setting]:
    """The settings declared in ``text`` (lines from ``first_line``), scored by ``concepts``
    (the question's word groups; ``ignore``: the project's names, which prefix everything)."""
    ignored = {stem(w) for w in ignore}
    groups = stem_groups(concepts, ignore)
    if not groups:
        return []
    lines = text.splitlines()
    out: list[Setting] = []
    for k, line in enumerate(lines):
        if _COMMENT.match(line):
            continue
        end = k
        option = _option_call(lines, k)
        if option is not None:  # parser.addoption("--failed-first", ..., help="…")
            name, end = option
            documented = False
        else:
            if line.rstrip().endswith("(") and k + 1 < len(lines):  # os.getenv(\n "NAME", ...)
                line, end = line.rstrip() + lines[k + 1].strip(), k + 1
            found = _declared(line)
            if found is None or found[0].startswith("_"):
                continue  # `self._cache = …`: private state, no setting
            name, documented = found
        start = _comment_above(lines, k)
        if documented and start == k:
            continue  # a bare field or parameter says nothing about what it sets
        words = set().union(*(word_stems(x) for x in lines[start : end + 1]))
        score = _score(name, words, groups, ignored, not documented)
        if score > 0:
            block = "\n".join(lines[start : end + 1])
            out.append(Setting(path, first_line + start, first_line + end, name, block, score))
    return out


def find_settings(
    hits: Iterable[Hit], concepts: Sequence[frozenset[str]], ignore: Iterable[str] = ()
) -> list[Setting]:
    """The settings declared in ``hits`` (code rows; tests, examples and repository pages left
    out) that match ``concepts`` (the question's word groups, :attr:`QuestionFacets.concepts`;
    ``ignore``: words such as the project's name that match everything), best first, each span
    once."""
    ignore = list(ignore)
    found: dict[tuple[str, int], Setting] = {}
    ranks: dict[tuple[str, int], tuple[float, bool]] = {}
    for hit in hits:
        if is_test(hit.path, detect_language(hit.path)) or peripheral_path(hit.path):
            continue
        if not_overview_path(hit.path):
            continue
        for setting in settings_in(hit.path, hit.text, hit.start_line, concepts, ignore):
            key = (setting.path, setting.end_line)
            # on a tie, a copy that does not start on its row's first line: a chunk's text may
            # begin without that line's indentation
            rank = (setting.score, setting.start_line != hit.start_line)
            if key not in found or ranks[key] < rank:
                found[key], ranks[key] = setting, rank
    return sorted(found.values(), key=lambda s: (-s.score, s.path, s.start_line))


def settings_part(
    reader: IndexReader,
    plan: RouterPlan,
    evidence: Evidence,
    focus: QuestionFacets,
    msgs: Messages,
    citations: CitationList,
) -> tuple[str, str, list[tuple[str, int, int]]] | None:
    """A configuration question's answer part: the best settings (doc comment and declaration
    quoted, cited first), the lead naming the best one, and the spans quoted; None when no
    setting scores :data:`MIN_SCORE` (the answer stays with the code retrieval found)."""
    ignore = project_words(plan)
    terms = [
        t for t in dict.fromkeys(w for c in focus.concepts for w in sorted(c)) if t not in ignore
    ]
    code = [h for h in evidence.hits if h.layer in ("C1", "C3")]
    layers = ("C1", "C3")
    found = list(reader.rows_writing(terms, layers, _POOL, is_test=False)) if terms else []
    for term in terms[:_TERM_QUERIES]:  # each word's rows, which the whole query may bury
        found += reader.rows_writing([term], layers, _POOL, is_test=False)
    rows = code + [hit_from_scored(s, "settings") for s in found]
    found_settings = find_settings(rows, focus.concepts, ignore)
    best = [s for s in found_settings if s.score >= MIN_SCORE][:_SHOWN]
    if not best:
        return None
    parts = []
    cites = []
    for setting in best:
        cited = citations.add(*setting.span)
        cites.append(cited)
        parts.append(
            msgs.t("setting", name=setting.name, cite=cited)
            + "\n"
            + quote_block(setting.path, setting.text, setting.start_line)
        )
    docs = _documented(reader, best[0].name)
    if docs is not None:
        path, start, text = docs
        cited = citations.add(path, start, start + text.count("\n"))
        parts.append(
            msgs.t("setting_docs", name=best[0].name, cite=cited)
            + "\n"
            + quote_block(path, text, start)
        )
    lead = msgs.t("lead_setting", name=best[0].name, cite=cites[0])
    return "\n\n".join(parts), lead, [s.span for s in best]


def _documented(reader: IndexReader, name: str) -> tuple[str, int, str] | None:
    """Where the documentation writes the setting's name: the section's lines from the first
    mention (path, first line, text), of the best section that mentions it."""
    for scored in reader.rows_writing([name], ("D2",), _DOC_POOL):
        if not mentions(scored.text, name) or not_overview_path(scored.path):
            continue
        if _HISTORY.search(scored.path):
            continue  # a changelog names a setting when it changed, not what it does
        lines = scored.text.splitlines()
        first = next((k for k, line in enumerate(lines) if mentions(line, name)), 0)
        fences = [k for k in range(first) if lines[k].lstrip().startswith(("```", "~~~"))]
        if len(fences) % 2:  # inside a code block: from its opening fence
            first = fences[-1]
        while first > 0 and lines[first - 1].strip():  # from the paragraph's first line
            first -= 1
        text = "\n".join(lines[first : first + _DOC_LINES]).rstrip()
        return scored.path, scored.start_line + first, text
    return None
