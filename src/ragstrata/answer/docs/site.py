"""Generate documentation pages — one target, or the whole repository — with optional LLM prose.

:class:`DocsGenerator` is what the facade calls. ``page(target)`` renders one page;
``site(out_dir)`` writes one page per package (every folder with non-test code files) plus an
``index.md`` listing them, with relations cross-linked to the page documenting their target.
Page files are named after their folder (``src/app`` -> ``src__app.md``, the root ->
``_root.md``), made distinct and safe by :mod:`ragstrata.answer.docs.pagenames`. ``plan()`` lists the LLM jobs and ``estimate()`` prices them (``--dry-run``).
Progress is reported as ``(done, total, label)`` events; the CLI draws them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from ragstrata.answer.docs.collect import Collector, Reader
from ragstrata.answer.docs.fsio import write_atomic
from ragstrata.answer.docs.index_view import IndexView
from ragstrata.answer.docs.model import Page
from ragstrata.answer.docs.pagenames import INDEX, page_names
from ragstrata.answer.docs.prose import ProseCache, ProseJob, estimate, plan_jobs, write_prose
from ragstrata.answer.docs.render import Rendered, render_page, slug
from ragstrata.answer.docs.safe import code_span, safe_markdown
from ragstrata.answer.docs.strings import Strings, strings
from ragstrata.answer.docs.targets import Target, collect_page, resolve_target
from ragstrata.llm.base import Runner
from ragstrata.retrieve.reader import IndexReader

__all__ = ["DocsGenerator", "SiteReport", "page_file"]

Progress = Callable[[int, int, str], None]


def page_file(folder: str) -> str:
    """The file name of a package's page when it is the only one (a site names its pages
    together, :func:`ragstrata.answer.docs.pagenames.page_names`, so they never clash)."""
    return page_names([folder])[folder]


@dataclass
class SiteReport:
    """What a run wrote and what the LLM part cost."""

    pages: list[str] = field(default_factory=list)
    llm_calls: int = 0
    llm_cached: int = 0
    removed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # "folder: error" of pages not written


class DocsGenerator:
    """Pages for one store, in one language, with prose when a runner is given."""

    def __init__(
        self,
        reader: IndexReader,
        *,
        language: str = "en",
        read: Reader | None = None,
        runner: Runner | None = None,
        cache_path: Path | None = None,
    ) -> None:
        self.reader = reader
        self.s: Strings = strings(language)
        self.view = IndexView(reader)
        self.collector = Collector(self.view, read)
        self.runner = runner
        self.cache = ProseCache(cache_path)
        self.report = SiteReport()

    # ---------------------------------------------------------------- one page
    def collect(self, target: str | Target) -> Page:
        resolved = target if isinstance(target, Target) else resolve_target(target, self.reader)
        return collect_page(resolved, self.collector)

    def render(
        self, page: Page, *, header: bool = False, link: Callable[[str], str | None] | None = None
    ) -> Rendered:
        prose: dict[str, str] = {}
        removed: list[str] = []
        if self.runner is not None:
            result = write_prose(
                plan_jobs(page, self.s), self.runner, self.cache, self.view.resolver
            )
            prose, removed = result.prose, result.removed
            self.report.llm_calls += result.calls
            self.report.llm_cached += result.cached
            self.report.removed += removed
        return render_page(page, self.s, header=header, link=link, prose=prose, removed=removed)

    def page(self, target: str, *, header: bool = False) -> Rendered:
        return self.render(self.collect(target), header=header)

    # ---------------------------------------------------------------- whole repository
    def packages(self) -> list[str]:
        """Every folder that holds non-test code files with definitions, sorted."""
        folders = sorted({posixpath.dirname(p) for p in self.view.paths()})
        return [f for f in folders if self.collector.package_files(f)]

    def plan(self, targets: list[str | Target] | None = None) -> list[ProseJob]:
        """The LLM jobs of ``targets`` (every package when None)."""
        chosen = targets if targets is not None else [Target("package", f) for f in self.packages()]
        jobs: list[ProseJob] = []
        for target in chosen:
            jobs += plan_jobs(self.collect(target), self.s)
        return jobs

    def estimate(self, jobs: list[ProseJob]) -> dict[str, int]:
        return estimate(jobs, self.cache)

    def site(self, out_dir: Path, progress: Progress | None = None) -> SiteReport:
        """Write one page per package and ``index.md`` into ``out_dir``; a page that fails is
        reported in ``failed`` and left out of the index, and the others are still written."""
        folders = self.packages()
        names = page_names(folders)
        pages = {f: self.collect(Target("package", f)) for f in folders}
        home: dict[str, str] = {}
        for folder, page in pages.items():
            for item in page.items():
                home.setdefault(
                    item.row.symbol,
                    quote(names[folder])
                    + "#"
                    + slug(f"{self.s.kind(item.row.kind)} {item.row.name}"),
                )
        out_dir.mkdir(parents=True, exist_ok=True)
        index = [
            f"# {safe_markdown(self.s.t('index_title', target=out_dir.name))}",
            "",
            self.s.t("index_intro"),
            "",
            f"## {self.s.t('packages')}",
            "",
        ]
        for n, (folder, page) in enumerate(pages.items(), 1):
            name = names[folder]
            try:
                rendered = self.render(page, header=True, link=home.get)
                write_atomic(out_dir / name, rendered.markdown)
            except (OSError, ValueError, UnicodeError) as exc:
                self.report.failed.append(f"{folder or '.'}: {type(exc).__name__}: {exc}")
                continue
            self.report.pages.append(name)
            summary = (
                " ".join(page.overview.text.split("\n\n")[0].split())[:160] if page.overview else ""
            )
            entry = f"- [{code_span(folder or '.')}]({quote(name)})"
            index.append(entry + (f" — {safe_markdown(summary)}" if summary else ""))
            if progress:
                progress(n, len(pages), folder or ".")
        write_atomic(out_dir / INDEX, "\n".join(index) + "\n")
        return self.report
