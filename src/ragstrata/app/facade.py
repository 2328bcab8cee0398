"""The library facade: one object per repository that every interface (CLI, HTTP, MCP) calls.

Interfaces parse their input, call one method here, render the result and map errors; they hold
no routing, retrieval or answering logic of their own. Heavy parts (store, embedder, LLM) open
lazily on first use.

::

    rs = Ragstrata(Path("path/to/repo"))
    rs.index()                                   # build / refresh the index
    rs.search("где определён класс UserService?")  # plan + ranked hits
    rs.ask("how does retry work?", session="s1")  # plan + evidence + cited answer
    rs.definition("Class::method")               # the one symbol resolver's definitions
    rs.references("charge"); rs.outline("src/app.py")
    rs.summarize(dry_run=True)                   # LLM summaries: the plan, tokens and cost
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragstrata.errors import InvalidQueryError, RepositoryNotFoundError
from ragstrata.settings import Settings

if TYPE_CHECKING:
    from ragstrata.answer.docs.drift import DriftReport
    from ragstrata.answer.docs.site import DocsGenerator
    from ragstrata.core.answer import AskResult
    from ragstrata.core.evidence import SearchResult
    from ragstrata.core.values import SearchFilters, SummaryKind
    from ragstrata.embed.base import Embedder
    from ragstrata.indexer import IndexEvent, IndexReport, IndexStatus
    from ragstrata.indexer.summary_plan import Progress as SummaryProgress
    from ragstrata.indexer.summary_result import SummarizeResult
    from ragstrata.llm.base import Runner
    from ragstrata.llm.preflight import PreflightResult
    from ragstrata.query.router import Router
    from ragstrata.retrieve.lookups import DefinitionResult, OutlineResult, ReferencesResult
    from ragstrata.retrieve.reader import IndexReader
    from ragstrata.store.protocols import Store

__all__ = ["Ragstrata"]

_HOW_DEPTH = 2  # a how-question's evidence list is this many times deeper


class Ragstrata:
    """Everything ragstrata does for one repository."""

    def __init__(
        self,
        repo: Path | str,
        settings: Settings | None = None,
        *,
        store: Store | None = None,
        embedder: Embedder | None = None,
        runner: Runner | None = None,
    ) -> None:
        root = Path(repo).expanduser()
        if not root.is_dir():
            raise RepositoryNotFoundError(f"repository folder not found: {root}")
        self.repo = root.resolve()
        self.settings = settings or Settings()
        self._store = store
        self._embedder = embedder
        self._runner = runner
        self._router: Router | None = None
        self._context: dict[str, Any] | None = None

    # ------------------------------------------------------------------ resources
    @property
    def index_dir(self) -> Path:
        """Where this repository's index lives (``REPO/.ragstrata`` by default)."""
        return self.repo / self.settings.store.index_dir_name

    @property
    def store(self) -> Store:
        if self._store is None:
            from ragstrata.store.open import open_store

            self._store = open_store(self.repo, self.settings)
        return self._store

    @property
    def reader(self) -> IndexReader:
        """The read-only view of the index that the answer stage is given (never the store)."""
        from ragstrata.retrieve.reader import IndexReader

        return IndexReader(self.checked_store())

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from ragstrata.embed.factory import make_embedder

            self._embedder = make_embedder(self.settings.embedder)
        return self._embedder

    @property
    def runner(self) -> Runner | None:
        """The configured LLM runner, or ``None`` (extractive answers)."""
        if self._runner is None and self.settings.llm.provider != "none":
            from ragstrata.llm.factory import make_runner

            self._runner = make_runner(self.settings.llm)
        return self._runner

    @property
    def router(self) -> Router:
        if self._router is None:
            self._router = build_router(self.settings, lambda: self.runner)
        return self._router

    def has_index(self) -> bool:
        """True when this repository has an index to read: the one place that decides it
        (asks the configured store; creates no file, no database entry)."""
        return self.store.has_index()

    def wait_for_indexing(self, on_wait: Callable[[], None] | None = None) -> bool:
        """Return once no indexing run of this repository is going on in another process
        (``on_wait`` is called when one is); True when one was. Before deciding whether to
        index, a caller waits: a first index in progress already has a manifest and half of
        the files."""
        from ragstrata.indexer.run_lock import wait_for_index_run

        return wait_for_index_run(self.index_dir, on_wait)

    def repo_context(self) -> dict[str, Any]:
        """What the router knows of this repository without retrieval: its own names and its
        dependencies' names (its manifests among the indexed files, and its folder), read once
        per opened index and again after :meth:`index`. A question that names the project
        gets key terms for them, never a definition it must find."""
        if self._context is None:
            from ragstrata.ingest.project import project_names

            paths = self.store.catalog() if self.store.has_index() else {}
            self._context = project_names(self.repo, paths).to_context()
        return self._context

    def checked_store(self) -> Store:
        """The store, once its index is known to hold rows of this version's schema: the one
        schema check every read (search, status, lookups, docs) goes through; an index of
        another ``schema_version`` is an ``IndexMismatchError`` naming the rebuild."""
        from ragstrata.errors import IndexMismatchError

        store = self.store
        manifest = store.read_manifest() if store.has_index() else None
        if manifest is not None and manifest.schema_version != store.schema_version:
            raise IndexMismatchError(
                f"the index at {self.index_dir} has schema version {manifest.schema_version}, "
                f"this version of ragstrata reads {store.schema_version}; rebuild it with "
                f"`ragstrata index --rebuild {self.repo}`"
            )
        return store

    def close(self) -> None:
        """Release the store (safe to call twice)."""
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> Ragstrata:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ operations
    def index(
        self,
        *,
        rebuild: bool = False,
        dry_run: bool = False,
        embed: bool = True,
        progress: Callable[[IndexEvent], None] | None = None,
    ) -> IndexReport:
        """Build or refresh the index incrementally (only new/changed files are processed).

        ``rebuild`` builds a new index from scratch. A store that can (the SQLite file) builds
        it beside the old one, which keeps answering searches, and swaps it in at the end, so a
        damaged index is always recovered; others rebuild in place."""
        from ragstrata.indexer import Indexer
        from ragstrata.store.protocols import Rebuildable

        self._context = None  # the manifests may change: read them again on the next question
        store = self.store
        if rebuild and not dry_run and isinstance(store, Rebuildable):
            built = store.beside()  # waits while another process rebuilds this index
            try:
                indexer = Indexer(self.repo, built, self.embedder, self.settings)
                report = indexer.run(rebuild=True, embed=embed, progress=progress)
                store.replace_with(built)
            finally:
                built.close()  # gives a failed rebuild's lock back
            return report
        indexer = Indexer(self.repo, store, self.embedder, self.settings)
        return indexer.run(rebuild=rebuild, dry_run=dry_run, embed=embed, progress=progress)

    def status(self) -> IndexStatus:
        """Rows per layer, stale files, pending embeddings, fingerprint, schema version."""
        from ragstrata.indexer import index_status

        return index_status(self.repo, self.checked_store(), self.embedder, self.settings)

    def route(
        self,
        query: str,
        state: dict[str, Any] | None = None,
        repo_context: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The router plan for ``query`` (JSON-ready); without a ``repo_context``, the index's
        own (:meth:`repo_context`) when there is an index."""
        if repo_context is None and self.has_index():
            repo_context = self.repo_context()
        return self.router.route(query, state, repo_context)

    def search(
        self,
        query: str,
        *,
        layers: Sequence[str] | None = None,
        top_k: int = 10,
        state: dict[str, Any] | None = None,
    ) -> SearchResult:
        """Route ``query`` and return the plan with ranked hits."""
        from ragstrata.core.evidence import SearchResult
        from ragstrata.retrieve.retriever import Retriever

        plan = self.router.plan(query, state, self.repo_context())
        evidence = Retriever(self.checked_store(), self.embedder, self.settings).retrieve(
            plan, top_k=top_k, layers=layers
        )
        return SearchResult(plan=plan.model_dump(mode="json"), hits=evidence.hits)

    def ask(self, question: str, *, session: str | None = None, top_k: int = 10) -> AskResult:
        """Answer ``question`` from cited evidence; ``session`` keeps the conversation topic."""
        from ragstrata.answer.graphs import build_graph
        from ragstrata.answer.graphs.missing import evidence_footer
        from ragstrata.app.doctor import blocking_error, run_checks
        from ragstrata.app.sessions import SessionStore, next_state
        from ragstrata.core.answer import AskResult
        from ragstrata.query.facets import facets_of
        from ragstrata.retrieve.retriever import Retriever

        # A blocking pre-flight finding (no index, other schema, ...) refuses with its message.
        findings = run_checks(self, quick=True)
        blocking = blocking_error(findings)
        if blocking is not None:
            raise blocking
        # vectors of another embedding model: answers still come, lexical only, and say so
        notices = tuple(
            f"{f.observation}; {getattr(f, 'fix', '')}"
            for f in findings.findings
            if f.category == "stale"
        )
        sessions = SessionStore(self.index_dir / "sessions")
        state = sessions.load(session) if session else None
        plan = self.router.plan(question, state, self.repo_context())
        focus = facets_of(plan)
        # a how-question in plain words: the function doing the work may rank below the types
        # that name its words, so the graph weighs a deeper list
        depth = top_k * _HOW_DEPTH if focus.how else top_k
        retriever = Retriever(self.checked_store(), self.embedder, self.settings)
        evidence = retriever.retrieve(plan, top_k=depth)
        if state and state.get("last_query") and focus.details:
            # a follow-up asking a detail: what it and the question it follows find together
            joint = f"{state['last_query']} {plan.query_plan.raw}"
            found = retriever.retrieve(
                self.router.plan(joint, None, self.repo_context()), top_k=top_k
            )
            evidence = replace(evidence, followed=tuple(h for h in found.hits if h.layer == "C1"))
        graph = build_graph(plan.graph_id, reader=self.reader, runner=self.runner)
        answer = graph.answer(plan, evidence)
        answer = replace(answer, footer=evidence_footer(plan, evidence, answer))
        plan_dict = plan.model_dump(mode="json")
        if session:
            topic = answer.meta.get("topic")
            undefined = answer.meta.get("undefined", ())
            sessions.save(session, next_state(plan_dict, state, topic, undefined))
        return AskResult(
            plan=plan_dict, evidence=evidence, answer=answer, session=session, notices=notices
        )

    def definition(
        self,
        name: str,
        *,
        paths: Sequence[str] | None = None,
        is_test: bool | None = None,
        limit: int = 10,
    ) -> DefinitionResult:
        """The definitions ``name`` resolves to (``UserService``, ``pkg.mod.Class.method``,
        ``Class::method``, ``a/b.py:func``, wrong case, typos), best first, with how they
        matched; near candidates when it resolves to nothing. ``paths`` limits to path prefixes
        (widened when nothing matches there), ``is_test`` to test or non-test code."""
        from ragstrata.retrieve.lookups import DefinitionResult
        from ragstrata.retrieve.resolve import SymbolResolver

        match = SymbolResolver(self.checked_store()).resolve(
            _name(name), _filters(paths, is_test), limit=limit
        )
        return DefinitionResult(name=match.name, match=match)

    def references(
        self,
        name: str,
        *,
        paths: Sequence[str] | None = None,
        is_test: bool | None = None,
        limit: int = 50,
    ) -> ReferencesResult:
        """Callers, callees and test uses of the definition ``name`` resolves to."""
        from ragstrata.retrieve.lookups import ReferencesResult
        from ragstrata.retrieve.resolve import SymbolResolver

        refs = SymbolResolver(self.checked_store()).references(
            _name(name), _filters(paths, is_test), limit=limit
        )
        return ReferencesResult(refs)

    def outline(self, path: str) -> OutlineResult:
        """The definitions of one indexed file in file order (``indexed`` false when the index
        has no such file)."""
        from ragstrata.retrieve.lookups import OutlineResult
        from ragstrata.retrieve.rows import outline

        key = path.strip().replace("\\", "/").removeprefix("./")
        if not key:
            raise InvalidQueryError("empty path; give a repository-relative file path")
        defs = tuple(outline(self.checked_store(), key))
        indexed = bool(defs) or key in self.store.catalog()
        return OutlineResult(path=key, indexed=indexed, definitions=defs)

    def gendocs(self, target: str, *, language: str = "en", header: bool = False) -> str:
        """Markdown documentation for a file, package or symbol, from C0/C1/C2 (with LLM
        prose when an LLM is configured)."""
        return self.docs(language).page(target, header=header).markdown

    def docs(self, language: str = "en", *, use_llm: bool = True) -> DocsGenerator:
        """The documentation generator over this index: module docs read from the repository's
        files, LLM replies cached in the index folder (``gendocs-cache.json``)."""
        from ragstrata.answer.docs.site import DocsGenerator

        return DocsGenerator(
            self.reader,
            language=language,
            read=self.read_indexed,
            runner=self.runner if use_llm else None,
            cache_path=self.index_dir / "gendocs-cache.json",
        )

    def check_docs(self, folder: Path) -> DriftReport:
        """Generated pages under ``folder`` whose sources changed, and doc sections naming
        symbols that no longer exist."""
        from ragstrata.answer.docs.drift import check_drift

        return check_drift(folder, self.reader)

    def read_indexed(self, path: str) -> str | None:
        """The text of an indexed file as indexed (rebuilt from its chunks), else as it is on
        disk (``None`` for paths the index does not list or that leave the repository)."""
        from ragstrata.retrieve.rows import file_text

        text = file_text(self.store, path)
        if text is not None:
            return text
        if path not in self.store.catalog():
            return None
        root = self.repo.resolve()
        file = (root / path).resolve()
        if not file.is_relative_to(root) or not file.is_file():
            return None
        try:
            return file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def summarize(
        self,
        *,
        kinds: Sequence[SummaryKind | str] | None = None,
        include_tests: bool = False,
        force: bool = False,
        limit: int | None = None,
        dry_run: bool = False,
        on_plan: Callable[[SummarizeResult], None] | None = None,
        progress: SummaryProgress | None = None,
    ) -> SummarizeResult:
        """Cached LLM summaries of files and definitions (``kinds``: both by default): only
        those whose prompt changed, or all with ``force``; at most ``limit`` calls.

        ``dry_run`` plans and estimates tokens and cost, spends nothing and needs no LLM. A real
        run needs one (``ConfigError``) and passes the pre-flight checks first (a blocking
        finding is raised); ``on_plan`` sees the plan before the first call, ``progress`` gets
        ``(done, total, key)`` after each."""
        from ragstrata.app.doctor import blocking_error
        from ragstrata.core.values import SummaryKind
        from ragstrata.errors import ConfigError, IndexMissingError
        from ragstrata.indexer.summary_plan import SummaryPlanner
        from ragstrata.indexer.summary_result import (
            NO_LLM_MESSAGE,
            PREFLIGHT_CATEGORIES,
            SummarizeResult,
            price_function,
        )

        if not dry_run and self.settings.llm.provider == "none":
            raise ConfigError(NO_LLM_MESSAGE)
        if not self.has_index():
            raise IndexMissingError(
                f"no index at {self.index_dir}; run `ragstrata index {self.repo}`"
            )
        price, priced = price_function(self.settings.llm)
        planner = SummaryPlanner(
            self.store,
            self.repo,
            kinds=kinds or (SummaryKind.FILE, SummaryKind.DEFINITION),
            include_tests=include_tests,
            model=self.settings.llm.model or "",
            price=price,
        )
        planned = SummarizeResult(
            dry_run=dry_run, plan=planner.plan(force=force, limit=limit), report=None, priced=priced
        )
        if dry_run:
            return planned
        blocking = blocking_error(
            self.doctor(), action="summarize", categories=PREFLIGHT_CATEGORIES
        )
        if blocking is not None:
            raise blocking
        runner = self.runner
        if runner is None:
            raise ConfigError(NO_LLM_MESSAGE)
        if on_plan is not None:
            on_plan(planned)
        if not planned.plan.calls:
            return planned
        report = planner.run(runner, force=force, limit=limit, progress=progress)
        return SummarizeResult(dry_run=False, plan=planned.plan, report=report, priced=priced)

    def doctor(self) -> PreflightResult:
        """Run the pre-flight checks (settings, index, provider, dimensions, disk)."""
        from ragstrata.app.doctor import run_checks

        return run_checks(self)


def _name(name: str) -> str:
    if not name or not name.strip():
        raise InvalidQueryError("empty symbol name; give a name such as UserService or a.b.func")
    return name.strip()


def _filters(paths: Sequence[str] | None, is_test: bool | None) -> SearchFilters | None:
    if not paths and is_test is None:
        return None
    from ragstrata.core.values import SearchFilters

    return SearchFilters(path_prefixes=tuple(paths) if paths else None, is_test=is_test)


def router_for(settings: Settings) -> Router:
    """The router ``settings`` ask for, with the configured LLM when its classifier or
    decomposer needs one (``ragstrata route``)."""
    from ragstrata.llm.factory import make_runner

    llm = settings.llm
    return build_router(settings, lambda: make_runner(llm) if llm.provider != "none" else None)


def build_router(settings: Settings, runner: Callable[[], Runner | None]) -> Router:
    """The router ``settings.router`` asks for: its decomposer and, with ``classifier =
    "llm"``, the LLM classifier over ``runner()`` (a one-line ``ConfigError`` saying how to
    configure the LLM when there is none)."""
    from ragstrata.errors import ConfigError
    from ragstrata.query.router import Router

    rs = settings.router
    decomposer = classifier = None
    if rs.decomposer != "rule":
        from ragstrata.query.decompose import build_decomposer

        decomposer = build_decomposer(rs.decomposer, runner())
    if rs.classifier == "llm":
        from ragstrata.query.llm_classifier import LLMIntentClassifier

        llm = runner()
        if llm is None:
            raise ConfigError(
                "router.classifier 'llm' needs an LLM: set llm.provider (RAGSTRATA_LLM_PROVIDER "
                "or [llm] in your user config file), or set router.classifier to 'none'"
            )
        classifier = LLMIntentClassifier(llm)
    return Router(rs, classifier=classifier, decomposer=decomposer)
