"""Anchor extraction (seed §4.3, §6): FILE_PATH, SYMBOL and DOC_REF found in the raw question.

Spans are code-point offsets into ``raw`` (end exclusive) and ``raw[start:end] == value`` for
every anchor found here. KEY_TERM anchors come from the RU->EN term hits (``router.py``).

Order of passes (a later pass skips text an earlier one claimed):

1. URLs (claimed, never anchors) and code in backticks: a backticked path is a FILE_PATH, a
   backticked name a SYMBOL (subtype ``backticked``). Any other backticked code — a fenced
   block, an expression, a log — is mined, never taken whole (see :func:`mine_code`): its
   traceback frames give FILE_PATH (subtype ``traceback``) and SYMBOL (``frame``) anchors, its
   paths FILE_PATH anchors (``in_code``), its identifier-shaped names SYMBOL anchors
   (``in_code``). Mined anchors are hints (confidence below the path-scope threshold): a pasted
   log names many files besides the one asked about. Traceback frames outside backticks are
   mined the same way.
2. Paths with a separator (``src/http/client.py``, ``../../etc/passwd``, ``src/ingest/``),
   optionally with ``:line`` / ``#L10`` (subtype ``path:line``) or ``#section`` on a doc file
   (also a DOC_REF ``section``). A slash alone is not enough ("и/или", "TCP/IP"): the path
   needs an extension, a leading ``./`` ``../`` ``/`` ``~/``, a trailing ``/``, two or more
   separators, or a first segment that is a well-known or ``repo_context.top_dirs`` folder.
3. Bare file names with a known extension (``client.py``, ``README.md``) and well-known names
   (``Makefile``, ``.gitignore``). Extensions that are also attribute names (``response.json``)
   give low confidence.
4. Doc files named without extension (``README``) and ``repo_context.doc_files``: DOC_REF.
5. Doc sections: a marker (раздел, section, ...) next to a quoted title or a capitalised word.
6. The repository's own names and its dependencies' names: KEY_TERM anchors
   (:mod:`ragstrata.query.project_terms`).
7. Symbols from identifier-shaped tokens (dotted, snake, camel, pascal, letters+digits), calls
   (``get()``), names right after a code-unit word ("класс UserService", "the Router class"),
   and in a Russian question any other Latin word (subtype ``word``, low confidence):
   :mod:`ragstrata.query.symbol_words`.

The anchors being built and the claimed spans live in an :class:`Extraction`
(:mod:`ragstrata.query.extraction`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence

from ragstrata.query.extraction import AnchorDraft, Extraction, SpanDraft, anchor_at
from ragstrata.query.intents import RouterData, fold
from ragstrata.query.lexicon import BACKTICK_RE, is_glob
from ragstrata.query.models import AnchorType, RepoContext
from ragstrata.query.paths import LINE_RE, PathRules, accept_slash_path, path_part
from ragstrata.query.symbol_words import (
    VERSION_RE,
    after_example_cue,
    find_symbols,
    symbol_shape,
)
from ragstrata.text.stopwords import is_stopword
from ragstrata.text.tokens import Token, cyrillic_dominant, has_cyrillic, tokenize

__all__ = [
    "MINED_CONFIDENCE",
    "AnchorDraft",
    "Extraction",
    "PathRules",
    "SpanDraft",
    "extract_anchors",
    "mine_code",
    "path_part",
]

MINED_CONFIDENCE = {"traceback": 0.65, "frame": 0.6, "in_expr": 0.8, "in_code": 0.5}
"""Confidence of anchors mined from code and logs, by subtype (all below path-scope level)."""
_FRAME_RE = re.compile(r'File "([^"\n]+)", line (\d+)(?:, in ([A-Za-z_<][\w<>]*))?')
_NAME_RE = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\(\))?$")
_MAX_MINED = 24  # identifiers mined from one question's code, at most
_INLINE_CHARS = 80  # a one-line backticked expression this short is about its names

_URL_RE = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s`'\"<>«»]+|\bwww\.[^\s`'\"<>«»]+")
# a quoted example value ("my_crate=debug,warn", «a=1; b=2»): data the question shows, whose
# parts name nothing the user asks about
_QUOTED_RE = re.compile(r'"([^"\n]+)"|«([^»\n]+)»|“([^”\n]+)”')
_EXAMPLE_MARKS = re.compile(r"[=,;&|]")
_SLASH_RE = re.compile(
    r"(?<![\w.~/\\@%+-])(?:[A-Za-z]:[\\/]|~[\\/]|\.{1,2}[\\/]|[\\/])?(?:[\w.@+~%-]+[\\/])+[\w.@+~%-]*"
)
_SECTION_RE = re.compile(r"#[\w][\w.\-]*")
_NODE_ID_RE = re.compile(r"::(\w+(?:::\w+)*)")  # pytest node ids: path.py::Class::test
_QUOTES = {"«": "»", '"': '"', "“": "”", "„": "“", "'": "'", "‘": "’"}
_CLOSERS = {v: k for k, v in _QUOTES.items()}
_ANY_CASE_DOC_NAMES = frozenset({"readme", "changelog", "contributing"})


def _backticks(raw: str, rules: PathRules, repo: RepoContext, out: Extraction) -> None:
    for m in BACKTICK_RE.finditer(raw):
        s, e = m.start(2), m.end(2)
        out.code_spans.append((m.start(), m.end()))
        inner = raw[s:e]
        stripped = inner.strip()
        if not stripped:
            continue
        s += len(inner) - len(inner.lstrip())
        e = s + len(stripped)
        if is_glob(stripped):
            # `src/{lib,test}/*.js`: a pattern the question shows, no file it is about
            out.claim(m.start(), m.end())
            continue
        if not _NAME_RE.match(stripped) and not _path_like(stripped, rules, repo):
            mine_code(raw, s, e, rules, repo, out)
            continue
        if not any(c.isspace() for c in stripped):
            line = LINE_RE.search(stripped)
            base = stripped[: line.start()] if line and line.end() == len(stripped) else stripped
            kind = None
            if "/" in base or "\\" in base:
                kind = accept_slash_path(base, rules, repo)
                if kind is None and _loose_path(base):
                    kind = ("dir", 0.8)
            elif rules.is_file_name(base) and not base.endswith(")"):
                kind = ("file", 0.9)
            if kind is not None:
                subtype = "path:line" if base != stripped else kind[0]
                out.add(anchor_at(AnchorType.FILE_PATH, raw, s, e, subtype, kind[1] + 0.04))
                if rules.is_doc(base):
                    out.add(anchor_at(AnchorType.DOC_REF, raw, s, e, "file", kind[1]), claim=False)
                continue
        out.add(anchor_at(AnchorType.SYMBOL, raw, s, e, "backticked", 0.95))


def _example_values(raw: str, out: Extraction) -> None:
    """Claim each quoted example value outside backticks (``"my_crate=debug,warn"``): its
    identifier-shaped parts are data, never a definition the question requires."""
    for m in _QUOTED_RE.finditer(raw):
        inside = any(s <= m.start() < e for s, e in out.code_spans)
        if not inside and _EXAMPLE_MARKS.search(m.group(0)):
            out.claim(m.start(), m.end())


def _path_like(text: str, rules: PathRules, repo: RepoContext) -> bool:
    if any(c.isspace() for c in text):
        return False
    line = LINE_RE.search(text)
    base = text[: line.start()] if line and line.end() == len(text) else text
    if "/" in base or "\\" in base:
        return accept_slash_path(base, rules, repo) is not None or _loose_path(base)
    return rules.is_file_name(base)


def _loose_path(text: str) -> bool:
    """A backticked slash word that accept_slash_path rejects but still names a folder
    (``src/x``); never one made of one-letter parts (``\\n``, ``w/``)."""
    if not re.fullmatch(r"[\w.@+~%\-/\\]+", text):
        return False
    return any(len(seg) > 1 for seg in re.split(r"[/\\]", text))


def mine_code(
    raw: str, start: int, end: int, rules: PathRules, repo: RepoContext, out: Extraction
) -> None:
    """Anchors inside pasted code ``raw[start:end]`` (see the module docstring); the span is
    claimed afterwards so no later pass reads it as prose."""
    _frames(raw, start, end, out)
    for m in _SLASH_RE.finditer(raw, start, end):
        s, e = m.start(), m.end()
        trimmed = raw[s:e].rstrip(".,-~:")
        e = s + len(trimmed)
        if not trimmed or out.overlaps(s, e) or accept_slash_path(trimmed, rules, repo) is None:
            continue
        if not rules.is_file_name(trimmed.replace("\\", "/").rsplit("/", 1)[-1]):
            continue  # folders inside logs (site-packages/, /tmp/x/) say nothing
        line = LINE_RE.match(raw, e)
        e2 = line.end() if line else e
        out.add(anchor_at(AnchorType.FILE_PATH, raw, s, e2, "in_code", MINED_CONFIDENCE["in_code"]))
    inline = "\n" not in raw[start:end] and end - start <= _INLINE_CHARS
    subtype = "in_expr" if inline else "in_code"
    mined = 0
    for tok in tokenize(raw[start:end]):
        s, e = start + tok.start, start + tok.end
        if tok.kind != "ident" or out.overlaps(s, e) or mined >= _MAX_MINED:
            continue
        shape = symbol_shape(tok.text)
        if shape is None or shape[0] == "alnum" or tok.text.startswith("__"):
            continue
        mined += 1
        out.add(anchor_at(AnchorType.SYMBOL, raw, s, e, subtype, MINED_CONFIDENCE[subtype]))
    out.claim(start, end)


def _frames(raw: str, start: int, end: int, out: Extraction) -> None:
    """``File "path", line N, in name`` (Python tracebacks): the path and the function."""
    for m in _FRAME_RE.finditer(raw, start, end):
        if out.overlaps(m.start(1), m.end(1)):
            continue
        conf = MINED_CONFIDENCE["traceback"]
        out.add(anchor_at(AnchorType.FILE_PATH, raw, m.start(1), m.end(1), "traceback", conf))
        if m.group(3) and not m.group(3).startswith("<"):
            conf = MINED_CONFIDENCE["frame"]
            out.add(anchor_at(AnchorType.SYMBOL, raw, m.start(3), m.end(3), "frame", conf))
        out.claim(m.start(), m.end())


def _paths(
    raw: str,
    rules: PathRules,
    repo: RepoContext,
    out: Extraction,
    example: Callable[[int], bool],
) -> None:
    for m in _SLASH_RE.finditer(raw):
        s, e = m.start(), m.end()
        if out.overlaps(s, e):
            continue
        if example(s):  # "a route like /articles/{id}": data, no place to look
            out.claim(s, e)
            continue
        cand = raw[s:e]
        trimmed = cand.rstrip(".,-~")
        if trimmed.endswith("/.") or trimmed == "":
            trimmed = cand
        e = s + len(trimmed)
        verdict = accept_slash_path(trimmed, rules, repo)
        if verdict is None:
            continue
        subtype, conf = verdict
        _file_anchor(raw, s, e, subtype, conf, rules, out)
    for m in rules.names_re.finditer(raw):
        if out.overlaps(m.start(), m.end()):
            continue
        if example(m.start()):  # «имени вроде "../secret.txt"»: data the code is given
            out.claim(m.start(), m.end())
            continue
        _file_anchor(raw, m.start(), m.end(), "file", 0.9, rules, out)


def _file_anchor(
    raw: str, s: int, e: int, subtype: str, conf: float, rules: PathRules, out: Extraction
) -> None:
    """Add a FILE_PATH at raw[s:e], extended by a ``:line`` or ``#section`` suffix."""
    line = LINE_RE.match(raw, e)
    if line:
        out.add(anchor_at(AnchorType.FILE_PATH, raw, s, line.end(), "path:line", conf))
        if rules.is_doc(raw[s:e]):
            out.add(anchor_at(AnchorType.DOC_REF, raw, s, line.end(), "file", conf), claim=False)
        return
    section = _SECTION_RE.match(raw, e) if rules.is_doc(raw[s:e]) else None
    out.add(anchor_at(AnchorType.FILE_PATH, raw, s, e, subtype, conf))
    node = _NODE_ID_RE.match(raw, e)
    if node:
        out.add(anchor_at(AnchorType.SYMBOL, raw, node.start(1), node.end(1), "qualified", 0.9))
        out.claim(s, node.end())
    if section:
        out.claim(s, section.end())
        out.add(anchor_at(AnchorType.DOC_REF, raw, s, section.end(), "section", conf), False)
    elif rules.is_doc(raw[s:e]):
        out.add(anchor_at(AnchorType.DOC_REF, raw, s, e, "file", conf), claim=False)


def _bare_files(
    raw: str,
    toks: Sequence[Token],
    rules: PathRules,
    out: Extraction,
    example: Callable[[int], bool],
    names: frozenset[str],
) -> None:
    for tok in toks:
        if "." not in tok.text or out.overlaps(tok.start, tok.end):
            continue
        if tok.text.lower() in names:  # "Node.js", "Vue.js": a product, no file
            out.claim(tok.start, tok.end)
            continue
        ext = rules.ext_of(tok.text)
        if ext is None or VERSION_RE.fullmatch(tok.text) or tok.text.startswith("."):
            continue
        if example(tok.start):  # "a file like config.yaml": data the code reads, no place
            out.claim(tok.start, tok.end)
            continue
        if tok.end < len(raw) and raw[tok.end] == "(":
            continue  # a call: response.json()
        conf = 0.6 if ext in rules.ambiguous_ext else 0.9
        _file_anchor(raw, tok.start, tok.end, "file", conf, rules, out)


def _doc_names(
    raw: str, toks: Sequence[Token], rules: PathRules, repo: RepoContext, out: Extraction
) -> None:
    doc_bases = {d.rsplit("/", 1)[-1] for d in repo.doc_files}
    doc_stems = {b.split(".", 1)[0].lower() for b in doc_bases}
    for tok in toks:
        text = tok.text
        if not text[:1].isalpha() or not (text[:1].isupper() or doc_stems or text[:1] in "rcRC"):
            continue  # fast path: doc names start with a capital (or are readme/changelog/...)
        if out.overlaps(tok.start, tok.end):
            continue
        if text in doc_bases or (len(text) >= 4 and text.lower() in doc_stems):
            out.add(anchor_at(AnchorType.DOC_REF, raw, tok.start, tok.end, "file", 0.9))
        elif text in rules.doc_names or text.lower() in _ANY_CASE_DOC_NAMES:
            out.add(anchor_at(AnchorType.DOC_REF, raw, tok.start, tok.end, "file", 0.8))


def _quoted_after(raw: str, pos: int) -> tuple[int, int] | None:
    while pos < len(raw) and raw[pos] in " \t:":
        pos += 1
    if pos >= len(raw) or raw[pos] not in _QUOTES:
        return None
    close = raw.find(_QUOTES[raw[pos]], pos + 1, pos + 122)
    if close <= pos + 1 or "\n" in raw[pos + 1 : close]:
        return None
    return pos + 1, close


def _quoted_before(raw: str, pos: int) -> tuple[int, int] | None:
    pos -= 1
    while pos >= 0 and raw[pos] in " \t":
        pos -= 1
    if pos < 0 or raw[pos] not in _CLOSERS:
        return None
    opener = _CLOSERS[raw[pos]]
    start = raw.rfind(opener, max(0, pos - 121), pos)
    if start < 0 or start + 1 >= pos or "\n" in raw[start + 1 : pos]:
        return None
    return start + 1, pos


def _sections(raw: str, toks: Sequence[Token], data: RouterData, out: Extraction) -> None:
    for i, tok in enumerate(toks):
        if tok.kind != "word" or fold(tok.text) not in data.section_markers:
            continue
        span = _quoted_after(raw, tok.end)
        if span is None and not has_cyrillic(tok.text):
            span = _quoted_before(raw, tok.start)
        if span is None:
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            prv = toks[i - 1] if i > 0 else None
            if nxt and nxt.text[:1].isupper() and not is_stopword(nxt.text):
                if raw[tok.end : nxt.start].strip() == "":
                    span = (nxt.start, nxt.end)
            elif (
                prv
                and not has_cyrillic(tok.text)
                and prv.text[:1].isupper()
                and raw[prv.end : tok.start].strip() == ""
                and not is_stopword(prv.text)
            ):
                span = (prv.start, prv.end)
        if span is None:
            continue
        s, e = span
        inner = raw[s:e]
        s += len(inner) - len(inner.lstrip())
        e = s + len(inner.strip())
        if e > s and not out.overlaps(s, e):
            out.add(anchor_at(AnchorType.DOC_REF, raw, s, e, "section", 0.85))


def extract_anchors(
    raw: str, data: RouterData, rules: PathRules, repo: RepoContext
) -> tuple[Extraction, list[Token]]:
    """All FILE_PATH / SYMBOL / DOC_REF anchors of ``raw`` and the KEY_TERM anchors naming the
    project or a dependency (sorted by position), and its tokens."""
    out = Extraction(len(raw))
    for m in _URL_RE.finditer(raw):
        out.claim(m.start(), m.end())
        out.code_spans.append((m.start(), m.end()))
    _backticks(raw, rules, repo, out)
    _example_values(raw, out)
    _frames(raw, 0, len(raw), out)
    toks = tokenize(raw)
    starts = [t.start for t in toks]

    def example(start: int) -> bool:
        i = bisect_left(starts, start)  # the path's first word ("articles" of "/articles/")
        return i < len(toks) and after_example_cue(raw, toks, i, data, at=start)

    _paths(raw, rules, repo, out, example)
    out.ru_dominant = cyrillic_dominant(toks)
    _bare_files(raw, toks, rules, out, example, data.not_symbols)
    _doc_names(raw, toks, rules, repo, out)
    _sections(raw, toks, data, out)
    if repo.project_names or repo.dependencies:
        from ragstrata.query.project_terms import project_terms

        project_terms(raw, toks, data, repo, out)
    find_symbols(raw, toks, data, out)
    order = {t: n for n, t in enumerate(AnchorType)}
    out.anchors.sort(key=lambda a: (a.span.start if a.span else 0, order[a.type]))
    return out, toks
