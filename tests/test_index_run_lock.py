"""One indexing run of a repository at a time: a second run (another process, a watcher, a
benchmark over the same tree) waits for the first and then finds the files up to date, and a
reader about to decide whether to index waits for a run in progress instead of answering from
half of a first index.

Один прогон индексации репозитория за раз: второй прогон ждёт первого и находит файлы уже
проиндексированными, а читатель ждёт идущий прогон, а не отвечает по половине индекса."""

from __future__ import annotations

import io
import sys
import threading
import time
from pathlib import Path

import pytest

from ragstrata import Ragstrata
from ragstrata.cli.eval_cmd import ensure_index
from ragstrata.cli.progress import PlainProgress
from ragstrata.core.events import WAITING_FOR_RUN, IndexEvent, IndexReport
from ragstrata.indexer.run_lock import wait_for_index_run
from ragstrata.settings import EmbedderSettings, Settings

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="advisory file locks (flock) are POSIX"
)

WAITING = WAITING_FOR_RUN


def _repo(root: Path) -> Ragstrata:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "retry.py").write_text(
        "def retry(call, attempts=3):\n"
        '    """Call again until it succeeds."""\n'
        "    for _ in range(attempts):\n"
        "        try:\n"
        "            return call()\n"
        "        except OSError:\n"
        "            pass\n",
        encoding="utf-8",
    )
    return Ragstrata(root, Settings(embedder=EmbedderSettings(provider="hash", dimensions=64)))


def _until(condition: object, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return False


class _PausedRun:
    """A first index run in a thread, paused at its first written batch (the manifest and
    some rows are in the store) until :meth:`finish`."""

    def __init__(self, repo: Ragstrata) -> None:
        self.paused = threading.Event()
        self.go_on = threading.Event()
        self.reports: list[IndexReport] = []

        def progress(event: IndexEvent) -> None:
            if event.phase == "write" and not self.paused.is_set():
                self.paused.set()
                self.go_on.wait(timeout=60)

        self.thread = threading.Thread(
            target=lambda: self.reports.append(repo.index(progress=progress))
        )
        self.thread.start()
        assert self.paused.wait(timeout=60), "the first run never wrote"

    def finish(self) -> IndexReport:
        self.go_on.set()
        self.thread.join(timeout=60)
        assert not self.thread.is_alive()
        return self.reports[0]


def test_a_second_run_waits_for_the_first_and_then_has_nothing_to_do(tmp_path: Path) -> None:
    with _repo(tmp_path) as first, Ragstrata(tmp_path, first.settings) as second:
        run = _PausedRun(first)
        events: list[IndexEvent] = []
        reports: list[IndexReport] = []
        worker = threading.Thread(
            target=lambda: reports.append(second.index(progress=events.append))
        )
        worker.start()
        assert _until(lambda: any(e.message == WAITING for e in events)), events
        # nothing extracted while the other run holds the repository
        assert not any(e.phase in ("extract", "write") for e in events)
        assert worker.is_alive()
        assert run.finish().added == 1
        worker.join(timeout=60)
        assert not worker.is_alive()
        # the second found the file indexed already
        assert reports and reports[0].added == 0 and reports[0].changed == 0


def test_a_reader_waits_for_a_run_in_progress_before_deciding_to_index(tmp_path: Path) -> None:
    with _repo(tmp_path) as writer, Ragstrata(tmp_path, writer.settings) as reader:
        assert reader.wait_for_indexing() is False  # nothing going on
        run = _PausedRun(writer)
        # half of a first index: the store says there is one
        assert reader.has_index()
        decided: list[bool] = []
        thread = threading.Thread(target=lambda: decided.append(ensure_index(reader, quiet=True)))
        thread.start()
        time.sleep(0.3)
        assert thread.is_alive() and not decided  # it waits for the run to end
        run.finish()
        thread.join(timeout=60)
        # the run ended: the index is complete and current, so the reader indexes nothing
        assert decided == [False]
        assert wait_for_index_run(reader.index_dir) is False


def test_the_wait_is_said_in_plain_progress() -> None:
    """Piped output says why nothing moves: one line naming the other run."""
    out = io.StringIO()
    with PlainProgress(out, every=0.0) as progress:
        progress(IndexEvent("scan", 0, 0, message=WAITING_FOR_RUN))
        progress(IndexEvent("scan", 1, 1, message="comparing files with the catalog"))
    lines = out.getvalue().splitlines()
    assert lines[0] == f"index: {WAITING_FOR_RUN}"
    assert "scanning files" in lines[1]
