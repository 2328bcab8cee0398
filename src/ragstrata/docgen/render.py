"""A :class:`~ragstrata.docgen.model.Page` as Markdown, in the page's language.

Headings, labels and sentences come from :mod:`ragstrata.docgen.strings`; identifiers, code and
doc comments are not translated. Every item cites ``path:start-end``. ``link`` (symbol -> a
relative URL) turns relations into cross-links between the pages of a ``--all`` run.
``prose`` (key -> Markdown) adds LLM-written text under the overview (key ``overview``) and
under each item (key: its qualified symbol). With ``header=True`` the page starts with a
``<!-- ragstrata-gendocs {...} -->`` comment holding the source hashes the drift check reads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence

from ragstrata.answer.base import Citation
from ragstrata.docgen.doccomment import DocComment
from ragstrata.docgen.index_view import Site
from ragstrata.docgen.mermaid import diagram
from ragstrata.docgen.model import Item, Overview, Page, PageFile
from ragstrata.docgen.strings import Strings
from ragstrata.ingest.languages import detect_language

__all__ = ["HEADER_PREFIX", "MAX_RELATIONS", "Rendered", "render_page", "slug"]

HEADER_PREFIX = "<!-- ragstrata-gendocs "
MAX_RELATIONS = 15
MAX_EXAMPLES = 2
MAX_EXAMPLE_LINES = 20
Link = Callable[[str], "str | None"]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces -> ``-``."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _span(path: str, start: int, end: int) -> str:
    return f"{path}:{start}" if start == end else f"{path}:{start}-{end}"


def _quote(path: str, text: str, start: int, max_lines: int = 0) -> str:
    lang = detect_language(path)
    lines = text.rstrip("\n").split("\n")
    more = max_lines and len(lines) > max_lines
    lines = lines[:max_lines] if more else lines
    body = "\n".join(f"{start + i} | {line}" for i, line in enumerate(lines))
    fence = "```" + (lang if lang not in ("unknown", "text") else "")
    return f"{fence}\n{body}\n" + ("…\n" if more else "") + "```"


def _one_line(text: str) -> str:
    return " ".join(text.split())


class Rendered:
    """Markdown lines and the citations they make."""

    def __init__(self, s: Strings, link: Link | None, prose: Mapping[str, str]) -> None:
        self.s = s
        self.link = link or (lambda _symbol: None)
        self.prose = prose
        self.lines: list[str] = []
        self._cites: dict[tuple[str, int, int], Citation] = {}

    def cite(self, path: str, start: int, end: int) -> str:
        self._cites.setdefault((path, start, end), Citation(path, start, end))
        return _span(path, start, end)

    @property
    def citations(self) -> tuple[Citation, ...]:
        return tuple(self._cites.values())

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def name(self, name: str) -> str:
        url = self.link(name)
        return f"[`{name}`]({url})" if url else f"`{name}`"

    @property
    def markdown(self) -> str:
        return "\n".join(self.lines).rstrip() + "\n"


def render_page(
    page: Page,
    s: Strings,
    *,
    header: bool = False,
    link: Link | None = None,
    prose: Mapping[str, str] | None = None,
    removed: Sequence[str] = (),
) -> Rendered:
    """The Markdown of ``page`` (see the module docstring)."""
    out = Rendered(s, link, prose or {})
    if header:
        meta = {"target": page.target, "kind": page.kind, "lang": s.language,
                "sources": page.sources}
        out.add(HEADER_PREFIX + json.dumps(meta, sort_keys=True, ensure_ascii=False) + " -->", "")
    if page.kind == "symbol" and page.symbol is not None:
        row = page.symbol.row
        out.add(f"# {s.t('symbol_title', kind=s.kind(row.kind), target=row.symbol)}", "")
        _item(out, page.symbol, 2, heading=False)
    elif page.kind == "file":
        out.add(f"# {s.t('file_title', target=page.target)}", "")
        _overview(out, page.overview, 2)
        _api(out, page.files[0], 2)
    else:
        out.add(f"# {s.t('package_title', target=page.target or '.')}", "")
        _overview(out, page.overview, 2)
        out.add(f"## {s.t('files')}", "")
        for part in page.files:
            summary = part.overview.text.split("\n\n")[0] if part.overview else ""
            summary = _one_line(summary)[:200]
            out.add(f"- `{part.path}`" + (f" — {summary}" if summary else ""))
        out.add("")
        for part in page.files:
            out.add(f"## {s.t('file_title', target=part.path)}", "")
            _api(out, part, 3)
    _deprecated(out, page)
    if removed:
        out.add(f"> {s.t('removed', names=', '.join(f'`{n}`' for n in removed))}", "")
    if page.kind != "symbol":
        _diagram(out, page)
    _relations(out, page)
    _examples(out, page)
    return out


def _overview(out: Rendered, ov: Overview | None, level: int) -> None:
    s = out.s
    out.add(f"{'#' * level} {s.t('overview')}", "")
    if ov is None:
        out.add(s.t("no_overview"), "")
    else:
        cited = out.cite(ov.path, ov.start_line, ov.end_line)
        if ov.heading:
            out.add(s.t("overview_readme", heading=ov.heading.split(" > ")[-1]), "")
        out.add(ov.text.strip(), "", f"*`{cited}`*", "")
    if "overview" in out.prose:
        out.add(out.prose["overview"].strip(), "")


def _api(out: Rendered, part: PageFile, level: int) -> None:
    s = out.s
    out.add(f"{'#' * level} {s.t('public_api')}", "")
    if not part.items and not part.elsewhere:
        out.add(s.t("no_public_api"), "")
    for item in part.items:
        _item(out, item, level + 1)
    for owner, where, methods in part.elsewhere:
        out.add(f"{'#' * (level + 1)} {s.t('methods_elsewhere', owner=owner, where=where)}", "")
        for m in methods:
            _item(out, m, level + 2)


def _item(out: Rendered, item: Item, level: int, heading: bool = True) -> None:
    s, row = out.s, item.row
    cited = out.cite(row.path, row.start_line, row.end_line)
    if heading:
        out.add(f"{'#' * level} {s.kind(row.kind)} `{row.name}`", "")
    out.add(f"`{cited}`", "", _quote(row.path, row.signature, row.start_line), "")
    _doc(out, item.doc)
    if row.symbol in out.prose:
        out.add(out.prose[row.symbol].strip(), "")
    if item.members:
        out.add(s.t("methods"), "")
        for m in item.members:
            mcite = out.cite(m.row.path, m.row.start_line, m.row.end_line)
            summary = f" — {m.doc.summary}" if m.doc.summary else ""
            dep = " *(deprecated)*" if m.doc.deprecated is not None else ""
            out.add(f"- `{_one_line(m.row.signature)}`{dep}{summary} (`{mcite}`)")
        out.add("")
        for m in item.members:
            if _detailed(m.doc):
                _item(out, m, min(level + 1, 6))
    for nested in item.nested:
        _item(out, nested, min(level + 1, 6))


def _detailed(doc: DocComment) -> bool:
    """A member whose doc says more than its one-line summary gets its own subsection."""
    more = doc.description.strip() != doc.summary.strip()
    return bool(more or doc.params or doc.returns or doc.raises or doc.examples or doc.extra
                or doc.deprecated is not None or doc.see)


def _doc(out: Rendered, doc: DocComment) -> None:
    s = out.s
    if doc.deprecated is not None:
        out.add(f"{s.t('deprecated')} {doc.deprecated}".rstrip(), "")
    if doc.description:
        out.add(doc.description, "")
    if doc.params:
        out.add(s.t("parameters"), "")
        out.add(*(f"- `{n}` — {d}" if d else f"- `{n}`" for n, d in doc.params))
        out.add("")
    if doc.returns:
        out.add(f"{s.t('returns')} {doc.returns}", "")
    if doc.raises:
        out.add(s.t("raises"), "")
        out.add(*(f"- `{n}` — {d}" if n and d else f"- {n or d}" for n, d in doc.raises))
        out.add("")
    for title, body in doc.extra:
        out.add(f"**{title}**", "", body, "")
    for example in doc.examples:
        out.add(s.t("example"), "", example, "")
    if doc.see:
        out.add(f"{s.t('see_also')} " + ", ".join(doc.see), "")


def _deprecated(out: Rendered, page: Page) -> None:
    """A list of the page's deprecated items, each with its reason."""
    items = [i for i in page.items() if i.doc.deprecated is not None]
    if not items:
        return
    out.add(f"## {out.s.t('deprecated_items')}", "")
    for i in items:
        cited = out.cite(i.row.path, i.row.start_line, i.row.end_line)
        reason = f" — {_one_line(i.doc.deprecated or '')}" if i.doc.deprecated else ""
        out.add(f"- `{i.row.symbol}` (`{cited}`){reason}")
    out.add("")


def _diagram(out: Rendered, page: Page) -> None:
    text = diagram(page)
    if text:
        out.add(f"## {out.s.t('diagram')}", "", out.s.t("diagram_note"), "", "```mermaid", text,
                "```", "")


def _sites(out: Rendered, sites: Sequence[Site]) -> list[str]:
    lines = []
    for site in sites[:MAX_RELATIONS]:
        cited = out.cite(site.path, site.line, site.line)
        lines.append(f"- {out.name(site.name)} (`{cited}`)")
    if len(sites) > MAX_RELATIONS:
        lines += ["", out.s.t("more", count=len(sites) - MAX_RELATIONS)]
    return lines


def _relations(out: Rendered, page: Page) -> None:
    s = out.s
    out.add(f"## {s.t('relations')}", "")
    wrote = False
    for key, sites in (
        ("imports", page.imports),
        ("calls", [c for c in page.calls if c.precise]),
        ("calls_external", [c for c in page.calls if not c.precise]),
        ("used_by", page.used_by),
        ("used_by_possible", page.used_by_possible),
    ):
        if sites:
            wrote = True
            out.add(s.t(key), "", *_sites(out, sites), "")
    if not wrote:
        out.add(s.t("no_relations"), "")


def _examples(out: Rendered, page: Page) -> None:
    s = out.s
    out.add(f"## {s.t('examples')}", "")
    chosen = sorted(page.examples, key=lambda d: (d.end_line - d.start_line, d.path,
                                                   d.start_line))[:MAX_EXAMPLES]
    for d in sorted(chosen, key=lambda d: (d.path, d.start_line)):
        cited = out.cite(d.path, d.start_line, d.end_line)
        out.add(f"`{cited}` — `{d.symbol}`", "",
                _quote(d.path, d.text, d.start_line, MAX_EXAMPLE_LINES), "")
    if page.examples_possible:
        out.add(s.t("examples_possible"), "", *_sites(out, page.examples_possible), "")
    if not page.examples and not page.examples_possible:
        out.add(s.t("no_examples"), "")
