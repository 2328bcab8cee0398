"""Helpers shared by CLI commands: JSON/@file arguments, JSON printing, settings at the edge."""

from __future__ import annotations

import ipaddress
import json
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderHook, RenderResult
from rich.segment import Segment
from rich.text import Text

from ragstrata.errors import InvalidStateError
from ragstrata.text.visible import visible, visible_json

if TYPE_CHECKING:
    from collections.abc import Callable

    from ragstrata.app.facade import Ragstrata
    from ragstrata.app.registry import Registry
    from ragstrata.settings import Settings

__all__ = [
    "MAX_TOP_K",
    "GlobalOptions",
    "ServedRepos",
    "WarmUp",
    "WatchFlag",
    "edge_settings",
    "err_console",
    "is_loopback",
    "make_console",
    "open_served",
    "parse_json_arg",
    "parse_repo_arg",
    "print_json",
    "start_warm_up",
]

MAX_TOP_K = 1000
"""Largest ``--top-k`` a command accepts (every numeric input has bounds)."""


def parse_json_arg(value: str | None, name: str) -> Any:
    """Parse ``value`` as inline JSON, or as ``@file`` holding JSON; ``None`` stays ``None``."""
    if value is None:
        return None
    text = value
    if value.startswith("@"):
        path = Path(value[1:])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidStateError(f"{name}: cannot read {path}: {exc.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidStateError(
            f"{name} is not valid JSON: {exc.msg} at position {exc.pos}"
        ) from None


def print_json(data: Any, *, indent: int | None = 2) -> None:
    """Print ``data`` as UTF-8 JSON (Cyrillic kept readable) on stdout; bidi and invisible
    characters from the repository are written as ``\\uXXXX`` escapes (text.visible)."""
    sys.stdout.write(visible_json(json.dumps(data, ensure_ascii=False, indent=indent)) + "\n")


class _Visible:
    """A renderable drawn as ``inner`` is, with every text segment passed through
    :func:`~ragstrata.text.visible.visible` (styles and rich's own control codes untouched)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for segment in console.render(self.inner, options):
            if segment.control or not segment.text:
                yield segment
            else:
                yield Segment(visible(segment.text), segment.style, segment.control)


class _VisibleHook(RenderHook):
    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        return [_Visible(r) for r in renderables]


class _SafeConsole(Console):
    """A console that escapes unsafe characters of a string *before* rich turns it into
    ``Text``: rich silently drops BEL, backspace, VT, FF and CR there, which would hide them
    instead of showing them."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(visible(text), **kwargs)


def make_console(**kwargs: Any) -> Console:
    """The one way CLI commands make a rich console: whatever it prints (paths, symbols, file
    content, messages) shows control and bidi characters as escapes instead of obeying them,
    and never turns ``:x:`` into an emoji (``emoji=False`` unless asked for). ``Text`` built
    by a caller from repository text must pass it through ``visible`` first."""
    kwargs.setdefault("emoji", False)
    console = _SafeConsole(**kwargs)
    console.push_render_hook(_VisibleHook())
    return console


err_console = make_console(stderr=True, soft_wrap=True)
"""Where errors and warnings go (one line each)."""


@dataclass(frozen=True, slots=True)
class GlobalOptions:
    """The global flags (``ragstrata --store URL --trust-repo-config CMD ...``): the root
    callback puts them on the click context (``ctx.obj``) of one invocation; a command hands
    ``ctx.obj`` to :func:`edge_settings`. Nothing outlives the invocation."""

    store: str | None = None
    trust_repo_config: bool = False

    def overrides(self) -> dict[str, Any]:
        """The settings these flags set (the highest layer)."""
        return {"store": {"url": self.store}} if self.store else {}


def edge_settings(
    folder: Path | None = None, *, options: GlobalOptions | None = None, **overrides: Any
) -> Settings:
    """The settings for a command: user file < repository file in ``folder`` (or cwd, under the
    repository rules) < environment < the global ``options`` < the command's ``overrides``."""
    from ragstrata.settings import load_settings  # pydantic: loaded by commands that need it

    options = options or GlobalOptions()
    merged = {**options.overrides(), **overrides}
    return load_settings(
        folder or Path.cwd(),
        env=os.environ,
        overrides=merged or None,
        trust_repo_config=options.trust_repo_config,
    )


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_repo_arg(value: str) -> tuple[str, Path]:
    """A ``--repo`` value, ``NAME=PATH`` or ``PATH`` -> ``(name, path)``: the registry's rule
    (:func:`ragstrata.app.registry.parse_repo_spec`), shared by ``serve`` and ``mcp``."""
    from ragstrata.app.registry import parse_repo_spec

    return parse_repo_spec(value)


WARM_UP_QUERIES = ("where is the main entry point defined?", "как устроен проект?")
"""Asked once per served repository at start: English and Russian, so the router, the search
structures, the embedding model and the Russian morphology are all loaded."""


def start_warm_up(served: Registry) -> Callable[[], None]:
    """Load what answering needs for each served repository in a background thread, so a
    server (``serve``, ``mcp``) answers its client at once and its first questions cost what
    the later ones do. A repository that cannot be searched yet is skipped (its error shows
    when a client asks). Returns the stop: call it before the stores close, so no warm-up
    search is still reading a connection being closed."""
    stopping = threading.Event()

    def run() -> None:
        for name in served.names:
            for query in WARM_UP_QUERIES:
                if stopping.is_set():
                    return
                try:
                    with served.reading(name, indexed=True) as (_, rs):
                        rs.search(query, top_k=1)
                except Exception:  # best effort: a client's request reports the error
                    break

    thread = threading.Thread(target=run, name="ragstrata-warm-up", daemon=True)
    thread.start()

    def stop() -> None:
        stopping.set()
        thread.join()

    return stop


class WarmUp:
    """:func:`start_warm_up` started once, when :meth:`start` is first called (the MCP stdio
    server calls it after its first reply: warming up meanwhile would hold the interpreter while
    the client waits for ``initialize``); :meth:`stop` joins it if it ever started, and keeps it
    from starting afterwards."""

    def __init__(self, served: Registry) -> None:
        self._served = served
        self._lock = threading.Lock()
        self._stop: Callable[[], None] | None = None
        self._closed = False

    def start(self) -> None:
        with self._lock:
            if self._stop is None and not self._closed:
                self._stop = start_warm_up(self._served)

    def stop(self) -> None:
        with self._lock:
            self._closed = True
            stop = self._stop
        if stop is not None:
            stop()


ServedRepos = Annotated[
    list[str] | None,
    typer.Option(
        "--repo", help="Repository folder, or NAME=PATH; repeatable (default: the current folder)."
    ),
]
"""The ``--repo`` option of the servers (``serve``, ``mcp``)."""

WatchFlag = Annotated[
    bool, typer.Option("--watch", help="Re-index each repository when its files change.")
]
"""The ``--watch`` flag of the servers."""


def open_served(repo: list[str] | None, options: Any) -> dict[str, Ragstrata]:
    """The facades of the served repositories (``--repo`` values; the current folder when
    none), each with the settings built at the edge."""
    from ragstrata.app.registry import open_facades

    return open_facades(
        repo or [str(Path.cwd())], lambda folder: edge_settings(folder, options=options)
    )
