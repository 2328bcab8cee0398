"""Index progress on stderr: rich bars on a terminal, one plain line every few seconds otherwise.

Both views take :class:`IndexEvent` s. The plain view (logs, CI, pipes, editors that run the
command) prints a line when a phase starts or ends and at most every ``every`` seconds while
one runs::

    index: files 120/229 | rows 5012 | vectors 0/0 | extracting 45.1 files/s | ETA 3s

When the rows are written it says that lexical, symbol and relation search already work, so
a user (or an agent) knows it can ask while vectors are still being filled.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import IO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ragstrata.core.events import IndexEvent

__all__ = ["PLAIN_EVERY_S", "PlainProgress", "RichProgress", "progress_view"]

PLAIN_EVERY_S = 5.0
"""Seconds between two plain progress lines within one phase."""

_LABELS = {
    "scan": "scanning files",
    "extract": "extracting",
    "resolve": "resolving relations",
    "write": "writing batches",
    "remove": "removing files",
    "embed": "embedding",
}
_UNITS = {"scan": "files", "extract": "files", "write": "files", "embed": "texts"}
READY_LINE = "rows written: lexical, symbol and relation search work now; vectors follow"


class RichProgress:
    """Draws :class:`IndexEvent` s as rich progress bars (one per phase)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress = Progress(
            TextColumn("{task.description:<20}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[extra]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self.tasks: dict[str, TaskID] = {}
        self.rows = 0

    def __enter__(self) -> RichProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def __call__(self, event: IndexEvent) -> None:
        label = _LABELS.get(event.phase)
        if label is None:
            return
        if event.phase == "extract":
            self.rows += event.rows
        extra = f"{self.rows} rows" if event.phase in ("extract", "write") else ""
        if event.phase == "embed":
            extra = "texts"
            if "embed" not in self.tasks and event.total:
                self.progress.console.print(READY_LINE, markup=False, highlight=False)
        task = self.tasks.get(event.phase)
        if task is None:
            task = self.tasks[event.phase] = self.progress.add_task(
                label, total=event.total or None, extra=extra
            )
        self.progress.update(task, completed=event.done, total=event.total or None, extra=extra)


class PlainProgress:
    """One line per phase change and at most one every ``every`` seconds (see module doc)."""

    def __init__(
        self,
        stream: IO[str],
        *,
        every: float = PLAIN_EVERY_S,
        prefix: str = "index",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.every = every
        self.prefix = prefix
        self.clock = clock
        self.files = (0, 0)
        self.rows = 0
        self.vectors = (0, 0)
        self.phase: str | None = None
        self.phase_start = 0.0
        self.last_line = float("-inf")
        self.ready_said = False
        self.first = (0, 0.0)  # (units done, time) when the current phase started
        self.unit_state = (0, 0)  # (done, total) of the current phase
        self.current_said = False  # the current phase's final line is out

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, event: IndexEvent) -> None:
        now = self.clock()
        if event.phase != "done" and event.phase not in _LABELS:
            return
        if event.phase != self.phase:
            if self.phase is not None and not self.current_said:
                self._line(now, final=True)  # the finished phase's last state
            if event.phase == "done":
                return
            self.phase, self.first = event.phase, (event.done, now)
            self.current_said = False
        if event.phase == "extract":
            self.files = (event.done, event.total)
            self.rows += event.rows
        elif event.phase == "embed":
            self.vectors = (event.done, event.total)
            if event.total and not self.ready_said:
                self.ready_said = True
                self._say(f"{self.prefix}: {READY_LINE}")
        self.unit_state = (event.done, event.total)
        finished = event.total > 0 and event.done >= event.total
        if finished:
            self._line(now, final=True)
            self.current_said = True
        elif now - self.last_line >= self.every:
            self._line(now)

    def _line(self, now: float, *, final: bool = False) -> None:
        phase = self.phase or ""
        done, total = self.unit_state
        parts = [
            f"files {self.files[0]}/{self.files[1]}",
            f"rows {self.rows}",
            f"vectors {self.vectors[0]}/{self.vectors[1]}",
        ]
        unit = _UNITS.get(phase)
        start_done, start_t = self.first
        elapsed = now - start_t
        label = _LABELS.get(phase, phase)
        if unit and elapsed > 0 and done > start_done:
            rate = (done - start_done) / elapsed
            parts.append(f"{label} {rate:.1f} {unit}/s")
            if total > done and rate > 0:
                parts.append(f"ETA {_duration((total - done) / rate)}")
        else:
            parts.append(label + (" done" if final else ""))
        self._say(f"{self.prefix}: " + " | ".join(parts))
        self.last_line = now

    def _say(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()


def _duration(seconds: float) -> str:
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m}m{s:02d}s"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m"


def progress_view(
    console: Console, *, every: float = PLAIN_EVERY_S
) -> RichProgress | PlainProgress:
    """Rich bars when ``console`` is a terminal, plain lines on its stream otherwise."""
    if console.is_terminal:
        return RichProgress(console)
    return PlainProgress(console.file, every=every)
