"""Generate documentation pages — one target, or the whole repository — with optional LLM prose.

:class:`DocsGenerator` is what the facade calls. ``page(target)`` renders one page;
``site(out_dir)`` writes one page per package (every folder with non-test code files) plus an
``index.md`` listing them, with relations cross-linked to the page documenting their target.
Page files are named after their folder (``src/app`` -> ``src__app.md``, the root ->
``_root.md``). ``plan()`` lists the LLM jobs and ``estimate()`` prices them (``--dry-run``).
Progress is reported as ``(done, total, label)`` events; the CLI draws them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ragstrata.answer.gendocs import Target, collect_page, resolve_target
from ragstrata.docgen.collect import Collector, Reader
from ragstrata.docgen.fsio import write_atomic
from ragstrata.docgen.index_view import IndexView
from ragstrata.docgen.model import Page
from ragstrata.docgen.prose import ProseCache, ProseJob, estimate, plan_jobs, write_prose
from ragstrata.docgen.render import Rendered, render_page, slug
from ragstrata.docgen.strings import Strings, strings
from ragstrata.llm.base import Runner
from ragstrata.store.base import Store

__all__ = ["DocsGenerator", "SiteReport", "page_file"]

Progress = Callable[[int, int, str], None]


def page_file(folder: str) -> str:
    """The file name of a package's page."""
    return (folder.replace("/", "__") or "_root") + ".md"


@dataclass
class SiteReport:
    """What a run wrote and what the LLM part cost."""

    pages: list[str] = field(default_factory=list)
    llm_calls: int = 0
    llm_cached: int = 0
    removed: list[str] = field(default_factory=list)


class DocsGenerator:
    """Pages for one store, in one language, with prose when a runner is given."""

    def __init__(
        self,
        store: Store,
        *,
        language: str = "en",
        read: Reader | None = None,
        runner: Runner | None = None,
        cache_path: Path | None = None,
    ) -> None:
        self.store = store
        self.s: Strings = strings(language)
        self.view = IndexView(store)
        self.collector = Collector(self.view, read)
        self.runner = runner
        self.cache = ProseCache(cache_path)
        self.report = SiteReport()

    # ---------------------------------------------------------------- one page
    def collect(self, target: str | Target) -> Page:
        resolved = target if isinstance(target, Target) else resolve_target(target, self.store)
        return collect_page(resolved, self.collector)

    def render(
        self, page: Page, *, header: bool = False, link: Callable[[str], str | None] | None = None
    ) -> Rendered:
        prose: dict[str, str] = {}
        removed: list[str] = []
        if self.runner is not None:
            result = write_prose(plan_jobs(page, self.s), self.runner, self.cache,
                                 self.view.resolver)
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
        chosen = targets if targets is not None else [
            Target("package", f) for f in self.packages()
        ]
        jobs: list[ProseJob] = []
        for target in chosen:
            jobs += plan_jobs(self.collect(target), self.s)
        return jobs

    def estimate(self, jobs: list[ProseJob]) -> dict[str, int]:
        return estimate(jobs, self.cache)

    def site(self, out_dir: Path, progress: Progress | None = None) -> SiteReport:
        """Write one page per package and ``index.md`` into ``out_dir``."""
        folders = self.packages()
        pages = {f: self.collect(Target("package", f)) for f in folders}
        home: dict[str, str] = {}
        for folder, page in pages.items():
            for item in page.items():
                home.setdefault(item.row.symbol, page_file(folder) + "#" + slug(
                    f"{self.s.kind(item.row.kind)} {item.row.name}"))
        out_dir.mkdir(parents=True, exist_ok=True)
        index = [f"# {self.s.t('index_title', target=out_dir.name)}", "",
                 self.s.t("index_intro"), "", f"## {self.s.t('packages')}", ""]
        for n, (folder, page) in enumerate(pages.items(), 1):
            name = page_file(folder)
            rendered = self.render(page, header=True, link=home.get)
            write_atomic(out_dir / name, rendered.markdown)
            self.report.pages.append(name)
            summary = " ".join(page.overview.text.split("\n\n")[0].split())[:160] \
                if page.overview else ""
            index.append(f"- [`{folder or '.'}`]({name})" + (f" — {summary}" if summary else ""))
            if progress:
                progress(n, len(pages), folder or ".")
        write_atomic(out_dir / "index.md", "\n".join(index) + "\n")
        return self.report
