"""Documentation sections for project-wide questions: which ones answer "how do I install /
build / use it?" and which paragraph summarises the project.

- A section is evidence only with a body: text or code under its heading, not just the heading,
  badges, images or an HTML comment.
- Project-wide questions read the root README and top-level docs first (``doc_rank``); nested
  READMEs of tools, tests or sub-packages come after, and repository templates, licences and
  funding pages (:func:`~ragstrata.answer.graphs.focus.not_overview_path`) never count.
- A setup question's sections come from the root documents first (root README, root files,
  top-level doc folders), then from nested ones; within each, by how the section answers the
  topic (:func:`~ragstrata.query.facets.heading_topic_score`: Russian and English
  heading words, the topic's commands in the body), then by where the document sits, then by the question's own words in the heading,
  then by file order.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace

from ragstrata.answer.graphs.base import CitationList, hit_from_scored, quote_block
from ragstrata.answer.graphs.focus import not_overview_path
from ragstrata.answer.graphs.messages import Messages
from ragstrata.answer.graphs.words import stem_groups, word_stems
from ragstrata.core.evidence import Hit
from ragstrata.core.languages import detect_language
from ragstrata.core.rows import SectionRow
from ragstrata.core.values import scored_row
from ragstrata.query.facets import heading_topic_score
from ragstrata.query.lexicon import query_tokens
from ragstrata.retrieve.reader import IndexReader

__all__ = [
    "doc_rank",
    "has_body",
    "main_readme",
    "project_docs",
    "prose_paragraph",
    "readme_parts",
    "topic_sections",
]

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_NOT_PROSE = re.compile(r"^\s*(?:\[!\[|!\[|<|\[\[|\|?\s*:?-{3,}|[=\-~^*_#]{3,}\s*$|\[[^\]]*\]:\s)")
_HEADING = re.compile(r"^\s*#{1,6}\s")
_UNDERLINE = re.compile(r"^\s*[=\-~^*`#]{3,}\s*$")
_DOC_DIRS = ("docs/", "doc/", "documentation/", "wiki/")
_MAX_DOCS = 40
_ROOT_RANK = 2  # doc_rank of the root README, root documents and top-level doc folders


def _lines(text: str) -> list[str]:
    return _COMMENT.sub("", text).splitlines()


def has_body(text: str, heading: str = "") -> bool:
    """True when a section holds text or code beyond its heading, badges and images."""
    title = heading.rsplit(">", 1)[-1].strip().lower()
    for line in _lines(text):
        s = line.strip()
        if not s or _HEADING.match(s) or _UNDERLINE.match(s) or _NOT_PROSE.match(s):
            continue
        if title and s.lower().strip("#* ") == title:
            continue
        return True
    return False


def prose_paragraph(text: str, min_words: int = 3) -> str:
    """The first paragraph of running text (no heading, badge, image, HTML or link list)."""
    for block in re.split(r"\n\s*\n", "\n".join(_lines(text))):
        lines = [
            ln.rstrip()
            for ln in block.strip().splitlines()
            if ln.strip() and not _HEADING.match(ln) and not _UNDERLINE.match(ln)
        ]
        if not lines or any(_NOT_PROSE.match(ln) for ln in lines[:1]):
            continue
        if lines[0].lstrip().startswith(("```", "    ", "\t", "$ ", "- [", "* [")):
            continue
        if len(" ".join(lines).split()) >= min_words:
            return "\n".join(lines)
    return ""


def main_readme(paths: Sequence[str]) -> str | None:
    """The project's README: the root one, else the shallowest (:func:`doc_rank`)."""
    readmes = [p for p in paths if posixpath.basename(p).lower().startswith("readme")]
    return min(readmes, key=lambda p: (doc_rank(p), p)) if readmes else None


def doc_rank(path: str) -> int:
    """0 for the root README, 1 for other root documents, 2 for top-level doc folders, then
    deeper documents by depth (nested READMEs of tools and sub-packages last)."""
    low = path.lower()
    depth = low.count("/")
    name = posixpath.basename(low)
    if depth == 0:
        return 0 if name.startswith("readme") else 1
    if low.startswith(_DOC_DIRS) and depth == 1:
        return 2
    return 2 + depth


def project_docs(paths: Iterable[str]) -> list[str]:
    """Documents a project-wide question reads, best first (see :func:`doc_rank`)."""
    docs = [
        p
        for p in paths
        if detect_language(p) in ("markdown", "rst", "text") and not not_overview_path(p)
    ]
    docs.sort(key=lambda p: (doc_rank(p), p))
    return docs[:_MAX_DOCS]


def topic_sections(
    reader: IndexReader,
    paths: Sequence[str],
    topics: Sequence[str],
    words: frozenset[str] = frozenset(),
    limit: int = 2,
) -> list[SectionRow]:
    """The sections with a body whose heading names one of ``topics``, best first (see the
    module docstring); ``words`` (the question's, from its facets) break ties."""
    scored: list[tuple[tuple[int, int, int, int, int], SectionRow]] = []
    for path in project_docs(paths):
        for section in reader.sections(path):
            score = heading_topic_score(section.heading_path, topics, section.text)
            if score == 0 or not has_body(section.text, section.heading_path):
                continue
            own = {t.text for t in query_tokens(section.heading_path.rsplit(">", 1)[-1])}
            key = (
                int(doc_rank(path) > _ROOT_RANK),
                -score,
                doc_rank(path),
                -len(words & own),
                section.start_line,
            )
            scored.append((key, section))
    scored.sort(key=lambda pair: pair[0])
    return [s for _, s in scored[:limit]]


def heading_section(
    reader: IndexReader,
    paths: Sequence[str],
    concepts: Sequence[frozenset[str]],
    ignore: Iterable[str] = (),
) -> SectionRow | None:
    """The documentation section whose own heading is made of the question's words ("How do I
    serve static files?" and ``### Static Files``): at least two of the question's words
    (a Russian word counts by its English terms, once), or every word of a one-word heading
    that is not a generic one; the best match first, then the root README and shallower
    documents. ``ignore``: the project's names (its README's title is no answer)."""
    groups = stem_groups(concepts, ignore)
    best: tuple[tuple[int, int, int], SectionRow] | None = None
    for path in project_docs(paths):
        for section in reader.sections(path):
            if section.level == 0 or not has_body(section.text, section.heading_path):
                continue
            title = section.heading_path.rsplit(">", 1)[-1]
            words = word_stems(title)
            matched = sum(1 for g in groups if g & words)
            if matched < 2 and not (matched == 1 and len(words) == 1):
                continue
            key = (-matched, doc_rank(path), section.start_line)
            if best is None or key < best[0]:
                best = (key, section)
    return best[1] if best else None


def readme_overview(reader: IndexReader, paths: Sequence[str]) -> SectionRow | None:
    """The root README's first section of running text (not a title, badges or a logo): the
    project's own description of itself and its parts."""
    for path in filter(None, [main_readme(paths)]):
        for section in reader.sections(path):
            if prose_paragraph(section.text):
                return section
    return None


_PARTS_LINES = 20  # a README section naming the parts is cited by this many lines at most
_PARTS_HEADING_WORDS = (
    2  # "Features", "Key features", «Компоненты»: not "Apache Commons Components"
)
_README_HEAD = 80  # the README's description of itself is in its first lines
_INTRO_WORDS = 6  # a title's paragraph this long says what the project is ("... so sign this": no)
# "Gin is a …", "Apache Commons Lang, a package …", "Package `mux` implements …", «X — это …»
_DESCRIBES = re.compile(
    r"^\W*[^.!?]{1,60}?\s(?:is|are)\s+(?:a|an|the)\s|^[^,.!?]{1,50},\s+(?:a|an|the)\s"
    r"|\b(?:implements|provides)\b|\s[—–-]\s+(?:это\s)?|\bэто\b",
    re.IGNORECASE,
)


def _paragraphs(text: str) -> list[tuple[int, list[str]]]:
    """The paragraphs of running text in ``text``: (index of the first line, lines)."""
    out: list[tuple[int, list[str]]] = []
    block: list[str] = []
    first = 0
    hidden = False  # inside an HTML comment: a license header, a template's notes
    for k, line in enumerate([*text.splitlines(), ""]):
        opened = hidden or line.lstrip().startswith("<!--")
        hidden = opened and "-->" not in line
        if opened:
            line = ""  # a comment ends a paragraph and is none
        if line.strip():
            if not block:
                first = k
            block.append(line.rstrip())
            continue
        if block and not any(
            _NOT_PROSE.match(ln) or _HEADING.match(ln) or _UNDERLINE.match(ln) for ln in block[:1]
        ):
            head = block[0].lstrip()
            code = head.startswith(("```", "$ ", "- [", "* [", "<!--"))
            if (
                not code
                and not block[0].startswith(("    ", "\t"))
                and len(" ".join(block).split()) >= 3
            ):
                out.append((first, block))
        block = []
    return out


def readme_parts(reader: IndexReader, paths: Sequence[str]) -> tuple[str, int, str] | None:
    """Where the root README describes the project and its parts: a section whose own short
    heading names them ("Features", "Architecture", «Компоненты»; not the title section), else
    the paragraph of its first lines that says what the project is ("Gin is a …"), else the
    first paragraph of running text: (path, first line, the lines to cite), never the badges,
    logos and release news around them."""
    for path in filter(None, [main_readme(paths)]):
        sections = reader.sections(path)
        for section in sections[1:]:
            if section.level > 2 or not has_body(section.text, section.heading_path):
                continue
            title = section.heading_path.rsplit(">", 1)[-1]
            if len(title.split()) > _PARTS_HEADING_WORDS:
                continue
            if any(heading_topic_score(title, [t]) == 4 for t in ("parts", "overview")):
                lines = section.text.splitlines()
                skip = 0  # the heading itself, its underline and blank lines
                while skip < len(lines) and (
                    not lines[skip].strip()
                    or _HEADING.match(lines[skip])
                    or _UNDERLINE.match(lines[skip])
                    or lines[skip].strip() == title.strip()
                ):
                    skip += 1
                text = "\n".join(lines[skip : skip + _PARTS_LINES]).rstrip()
                return path, section.start_line + skip, text
        head = [s for s in sections if s.start_line <= _README_HEAD]
        found = [(s, k, lines) for s in head for k, lines in _paragraphs(s.text)]
        if not found:  # a long preamble of titles: the first section of running text
            first = readme_overview(reader, [path])
            found = [(first, k, lines) for k, lines in _paragraphs(first.text)] if first else []
        # the title's own paragraphs first: one saying what the project is, else the first
        # of some length ("The complete solution for node.js command-line interfaces."); then
        # a later one saying so ("Here is a more complete program" only looks alike)
        first_prose = found[0][0] if found else None
        opening = [f for f in found if f[0] is first_prose]
        described = [
            *(f for f in opening if _DESCRIBES.search(f[2][0])),
            *(f for f in opening if len(" ".join(f[2]).split()) >= _INTRO_WORDS),
            *(f for f in found if _DESCRIBES.search(f[2][0])),
            *found[:1],
        ]
        if described:
            section, k, lines = described[0]
            return path, section.start_line + k, "\n".join(lines)
    return None


def quoted_section(
    section: SectionRow,
    msgs: Messages,
    citations: CitationList,
    reason: str,
    groups: Sequence[AbstractSet[str]] = (),
) -> tuple[str, str, Hit]:
    """A section quoted under its heading path and cited, the lead naming it, and its hit; a
    long one by its paragraph that carries most of the question's word ``groups`` (stems) with
    the code block after it (:func:`answering_paragraph`)."""
    hit = answering_paragraph(hit_from_scored(scored_row(section, 0.0), reason), groups)
    cited = citations.add_hit(hit)
    title = section.heading_path.rsplit(">", 1)[-1].strip()
    part = (
        msgs.t("section", heading=section.heading_path, cite=cited)
        + "\n"
        + quote_block(hit.path, hit.text, hit.start_line)
    )
    return part, msgs.t("lead_section", heading=title, cite=cited), hit


_LONG_SECTION = 40  # a section longer than this many lines is quoted by the part that answers
_ANSWERING_WORDS = 2  # ... a paragraph carrying at least this many of the question's words


def answering_paragraph(hit: Hit, groups: Sequence[AbstractSet[str]]) -> Hit:
    """``hit`` (a documentation section) narrowed, when it is long, to its paragraph carrying
    the most of the question's word ``groups`` (at least :data:`_ANSWERING_WORDS`; the first of
    equals) and the code block right after it ("Route patterns may include named parameters"
    and its example, not the whole "Routes" chapter); unchanged otherwise."""
    lines = hit.text.splitlines()
    if len(lines) <= _LONG_SECTION or not groups:
        return hit
    best: tuple[int, int, int] | None = None
    for first, para in _prose_outside_fences(lines):
        stems = word_stems(" ".join(para))
        found = sum(1 for g in groups if g & stems)
        if found >= _ANSWERING_WORDS and (best is None or found > best[0]):
            best = (found, first, first + len(para))
    if best is None:
        return hit
    _, first, end = best
    after = end
    while after < len(lines) and not lines[after].strip():
        after += 1
    if after < len(lines) and lines[after].lstrip().startswith(("```", "~~~")):
        fence = lines[after].lstrip()[:3]
        close = after + 1
        while close < len(lines) and not lines[close].lstrip().startswith(fence):
            close += 1
        end = min(close + 1, len(lines))
    elif after < len(lines) and lines[after].startswith(("    ", "\t")):  # an indented block
        while after < len(lines) and (not lines[after].strip() or lines[after][:1] in " \t"):
            after += 1
        end = after
    text = "\n".join(lines[first:end]).rstrip()
    start = hit.start_line + first
    return replace(hit, start_line=start, end_line=start + len(text.splitlines()) - 1, text=text)


def _prose_outside_fences(lines: list[str]) -> list[tuple[int, list[str]]]:
    """The paragraphs of ``lines`` outside fenced code blocks (:func:`_paragraphs` of each
    stretch between fences): (index of the first line, lines)."""
    out: list[tuple[int, list[str]]] = []
    stretch = 0
    fence = ""
    for k, line in enumerate([*lines, "```"]):
        mark = line.lstrip()[:3]
        if mark in ("```", "~~~") and (not fence or mark == fence):
            if not fence:  # prose ends where a fence opens
                text = "\n".join(lines[stretch:k])
                out += [(stretch + first, para) for first, para in _paragraphs(text)]
            fence = "" if fence else mark
            stretch = k + 1
    return out
