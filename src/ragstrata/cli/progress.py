"""Index progress on stderr: rich bars on a terminal, one plain line every few seconds otherwise.

Both views take :class:`IndexEvent` s. The plain view (logs, CI, pipes, editors that run the
command) prints a line when a phase starts or ends and at most every ``every`` seconds while
one runs::

    index: files 120/229 | rows 5012 | extracting 45.1 files/s | ETA 3s
    index: vectors 1152/2621 | embedding 33.9 texts/s | ETA 43s

A count shows once it is known (a run that only fills vectors says nothing of files). The rate
and the ETA are smoothed (an exponential moving average of the recent rate, :class:`Smoothed`),
so one slow batch does not double the ETA and the start-up does not shape it for the whole run.
When the rows are written it says that lexical, symbol and relation search already work, so
a user (or an agent) knows it can ask while vectors are still being filled.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from ragstrata.core.events import WAITING_FOR_RUN

if TYPE_CHECKING:
    from ragstrata.core.events import IndexEvent

__all__ = ["PLAIN_EVERY_S", "PlainProgress", "RichProgress", "Smoothed", "progress_view"]

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
SMOOTHING_S = 10.0
"""Time constant of the rate average: a rate seen this many seconds ago weighs 1/e as much."""


class Smoothed:
    """A unit rate as an exponential moving average over time, and the ETA it gives. The first
    step of a phase is not measured: it carries the warm-up (loading the embedding model)."""

    def __init__(self, done: float, now: float, *, tau: float = SMOOTHING_S) -> None:
        self.tau = tau
        self.last = (done, now)
        self.rate: float | None = None
        self.warm = False

    def update(self, done: float, now: float) -> float | None:
        """Fold the units done since the last update into the rate; the rate so far."""
        last_done, last_t = self.last
        elapsed = now - last_t
        if done <= last_done or elapsed <= 0:
            return self.rate
        if not self.warm:
            self.warm, self.last = True, (done, now)
            return self.rate
        rate = (done - last_done) / elapsed
        weight = 1.0 - math.exp(-elapsed / self.tau)
        self.rate = rate if self.rate is None else self.rate + weight * (rate - self.rate)
        self.last = (done, now)
        return self.rate

    def eta(self, done: float, total: float) -> float | None:
        """Seconds left at the smoothed rate (``None`` before a rate or when finished)."""
        if not self.rate or total <= done:
            return None
        return (total - done) / self.rate


def measure(event: IndexEvent) -> tuple[float, float]:
    """``(done, total)`` of ``event`` in the units an ETA should count: the share of work when
    the event carries one (texts differ in cost), else units."""
    return (event.work, 1.0) if event.work > 0 else (event.done, event.total)


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
            TextColumn("{task.fields[eta]}"),
            console=console,
            transient=False,
        )
        self.tasks: dict[str, TaskID] = {}
        self.rates: dict[str, Smoothed] = {}
        self.rows = 0

    def __enter__(self) -> RichProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def __call__(self, event: IndexEvent) -> None:
        if event.message == WAITING_FOR_RUN:
            self.progress.console.print(f"index: {WAITING_FOR_RUN}", markup=False, highlight=False)
            return
        label = _LABELS.get(event.phase)
        if label is None:
            return
        if event.phase == "extract":
            self.rows += event.rows
        extra = f"{self.rows} rows" if event.phase in ("extract", "write") else ""
        if event.phase == "embed":
            extra = "vectors"
            if "embed" not in self.tasks and event.total:
                self.progress.console.print(READY_LINE, markup=False, highlight=False)
        now = time.monotonic()
        rate = self.rates.setdefault(event.phase, Smoothed(0, now))
        rate.update(measure(event)[0], now)
        left = rate.eta(*measure(event))
        eta = f"ETA {_duration(left)}" if left is not None else ""
        task = self.tasks.get(event.phase)
        if task is None:
            task = self.tasks[event.phase] = self.progress.add_task(
                label, total=event.total or None, extra=extra, eta=eta
            )
        self.progress.update(
            task, completed=event.done, total=event.total or None, extra=extra, eta=eta
        )


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
        self.rate = Smoothed(0, 0.0)  # the current phase's smoothed rate
        self.work = (0.0, 0.0)  # the current phase's (done, total) for the ETA
        self.unit_state = (0, 0)  # (done, total) of the current phase
        self.current_said = False  # the current phase's final line is out

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, event: IndexEvent) -> None:
        now = self.clock()
        if event.message == WAITING_FOR_RUN:
            self._say(f"{self.prefix}: {WAITING_FOR_RUN}")
            return
        if event.phase != "done" and event.phase not in _LABELS:
            return
        if event.phase != self.phase:
            if self.phase is not None and not self.current_said:
                self._line(now, final=True)  # the finished phase's last state
            if event.phase == "done":
                return
            self.phase, self.first = event.phase, (event.done, now)
            self.rate = Smoothed(0, now)
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
        self.work = measure(event)
        self.rate.update(self.work[0], now)
        finished = event.total > 0 and event.done >= event.total
        if finished:
            self._line(now, final=True)
            self.current_said = True
        elif now - self.last_line >= self.every:
            self._line(now)

    def _line(self, now: float, *, final: bool = False) -> None:
        phase = self.phase or ""
        done, total = self.unit_state
        parts = []
        if self.files[1] or self.rows:
            parts += [f"files {self.files[0]}/{self.files[1]}", f"rows {self.rows}"]
        if self.vectors[1]:
            parts.append(f"vectors {self.vectors[0]}/{self.vectors[1]}")
        unit = _UNITS.get(phase)
        start_done, start_t = self.first
        elapsed = now - start_t
        label = _LABELS.get(phase, phase)
        if unit and elapsed > 0 and done > start_done:
            parts.append(f"{label} {(done - start_done) / elapsed:.1f} {unit}/s")
            left = self.rate.eta(*self.work) if total > done else None
            if left is not None:
                parts.append(f"ETA {_duration(left)}")
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
